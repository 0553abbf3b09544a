//! The crate's one error type.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// What went wrong, in a form a caller can match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The config file is not valid JSON or TOML; [`Error::line`] says where.
    Malformed,
    /// The file parses, but an entry setup must edit has an unexpected type (for example
    /// `mcpServers` is a list) or is there twice (two `mcpServers`, two `goldfish` servers).
    Shape,
    /// The config file is read-only; nothing was written.
    ReadOnly,
    /// The file changed while setup was editing it (the client rewrote it); nothing was
    /// written.
    Conflict,
    /// No config path could be worked out (no home directory).
    NoHome,
    /// A client name that is not `claude`, `codex` or `cursor`.
    UnknownClient,
    /// Reading, writing or backing up a file failed.
    Io,
}

/// An error of `goldfish-setup`: its kind, the file and line it concerns when known, and a
/// message that says what to do next.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    path: Option<PathBuf>,
    line: Option<usize>,
    message: String,
    source: Option<io::Error>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            path: None,
            line: None,
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn malformed(line: usize, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Malformed, message).at_line(line)
    }

    pub(crate) fn shape(line: Option<usize>, message: impl Into<String>) -> Self {
        let mut e = Error::new(ErrorKind::Shape, message);
        e.line = line;
        e
    }

    pub(crate) fn io(path: &Path, what: &str, source: io::Error) -> Self {
        Error {
            kind: ErrorKind::Io,
            path: Some(path.to_path_buf()),
            line: None,
            message: format!("{what}: {source}"),
            source: Some(source),
        }
    }

    pub(crate) fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    /// Names the file this error concerns (kept if one is already set).
    pub(crate) fn with_path(mut self, path: &Path) -> Self {
        if self.path.is_none() {
            self.path = Some(path.to_path_buf());
        }
        self
    }

    /// The kind of the I/O error behind this one, when a file-system operation failed: the
    /// same question, answered the same way, in every goldfish crate.
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        goldfish_core::fs::io_kind_in(self)
    }

    /// True when a file could not be read because it is not valid UTF-8 (the message names
    /// the file and line): the same question, answered the same way, in every goldfish crate.
    pub fn is_invalid_utf8(&self) -> bool {
        goldfish_core::fs::invalid_utf8_in(self)
    }

    /// What went wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The file concerned, when known.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The 1-based line concerned, when known.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// True when the file is not valid JSON or TOML.
    pub fn is_malformed(&self) -> bool {
        self.kind == ErrorKind::Malformed
    }

    /// True when the file is read-only.
    pub fn is_read_only(&self) -> bool {
        self.kind == ErrorKind::ReadOnly
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.path, self.line) {
            (Some(path), Some(line)) => write!(f, "{}:{line}: ", path.display())?,
            (Some(path), None) => write!(f, "{}: ", path.display())?,
            (None, Some(line)) => write!(f, "line {line}: ")?,
            (None, None) => {}
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<goldfish_core::fs::FsError> for Error {
    fn from(e: goldfish_core::fs::FsError) -> Self {
        let line = e.line();
        Error {
            kind: ErrorKind::Io,
            path: None,
            line,
            message: e.to_string(),
            source: None,
        }
    }
}
