//! The crate's one error type.

use std::fmt;
use std::path::{Path, PathBuf};

use goldfish_core::fs::FsError;

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The caller gave a value the store refuses (a workspace or plan id that could escape
    /// its directory, a tag with a line break, an unknown plan status, …).
    InvalidInput,
    /// The plan (or other named item) does not exist.
    NotFound,
    /// A file exists but its contents could not be parsed.
    Parse,
    /// The store cannot be written: its directory or file is read-only.
    PermissionDenied,
    /// Any other file-system failure.
    Io,
}

/// An error from the store: what went wrong, the path and line it concerns, and what to do.
#[derive(Debug, thiserror::Error)]
pub struct Error {
    kind: ErrorKind,
    path: Option<PathBuf>,
    line: Option<usize>,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
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

impl Error {
    /// An error of `kind` with a message that says what the user can do next.
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            path: None,
            line: None,
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidInput, message)
    }

    pub(crate) fn parse(line: Option<usize>, message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Parse, message).at_line(line)
    }

    pub(crate) fn with_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    pub(crate) fn at_line(mut self, line: Option<usize>) -> Self {
        self.line = line;
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

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The file or directory the error concerns, when there is one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The 1-based line of [`path`](Self::path) (or of the parsed text) the error concerns.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// The message without the path and line prefix.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// True when a named plan (or other item) does not exist.
    pub fn is_not_found(&self) -> bool {
        self.kind == ErrorKind::NotFound
    }

    /// True when the caller's input was refused.
    pub fn is_invalid_input(&self) -> bool {
        self.kind == ErrorKind::InvalidInput
    }

    /// True when a file could not be parsed.
    pub fn is_parse(&self) -> bool {
        self.kind == ErrorKind::Parse
    }

    /// True when the store (or one of its files) is read-only.
    pub fn is_permission_denied(&self) -> bool {
        self.kind == ErrorKind::PermissionDenied
    }
}

impl From<FsError> for Error {
    fn from(e: FsError) -> Self {
        let path = e.path().to_path_buf();
        let (kind, message) = if e.is_permission_denied() {
            (
                ErrorKind::PermissionDenied,
                format!(
                    "cannot {}: the goldfish store is read-only here ({}); make it writable \
                     or point GOLDFISH_HOME at a writable directory",
                    e.op(),
                    e.io_error()
                ),
            )
        } else if e.is_invalid_utf8() {
            (
                ErrorKind::Parse,
                format!(
                    "{}; fix or move the file aside, then try again",
                    e.io_error()
                ),
            )
        } else {
            (
                ErrorKind::Io,
                format!("cannot {}: {}", e.op(), e.io_error()),
            )
        };
        Error {
            kind,
            path: Some(path),
            line: None,
            message,
            source: Some(Box::new(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_prefixes_path_and_line() {
        let cases = [
            (Error::parse(Some(3), "bad"), "line 3: bad"),
            (
                Error::parse(Some(3), "bad").with_path("/s/a.md"),
                "/s/a.md:3: bad",
            ),
            (Error::invalid("no").with_path("/s"), "/s: no"),
            (Error::invalid("no"), "no"),
        ];
        for (err, want) in cases {
            assert_eq!(err.to_string(), want);
        }
    }

    #[test]
    fn fs_permission_maps_to_permission_denied() {
        let fs = FsError::new(
            goldfish_core::fs::FsOp::Lock,
            "/store/x",
            std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        );
        let err = Error::from(fs);
        assert!(err.is_permission_denied());
        assert!(err.to_string().contains("read-only"), "{err}");
        assert_eq!(err.path(), Some(Path::new("/store/x")));
    }
}
