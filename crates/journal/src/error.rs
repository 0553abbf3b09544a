//! The crate's one error type.

use std::fmt;
use std::path::{Path, PathBuf};

use goldfish_core::fs::FsError;

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The caller gave a value the journal refuses: an empty text, a line break in a
    /// one-line field, brackets in an approach name, an unknown mutation code or entry kind.
    InvalidInput,
    /// An entry had more than two lines (the protocol: one or two lines of facts).
    EntryTooLong,
    /// The approach failed three times in a row; a mutation must be declared before it is
    /// tried again.
    MutationRequired,
    /// There is no `JOURNAL.md` yet: a session must be booted first.
    NotBooted,
    /// The worktree given to [`Journal::open`](crate::Journal::open) is not a directory.
    NotADirectory,
    /// The archive root cannot be written (read-only, not a directory, …).
    ArchiveNotWritable,
    /// No archive root could be found: neither `GOLDFISH_HOME` nor a home directory is set.
    NoHome,
    /// Any other file-system failure (including a journal that is not valid UTF-8).
    Io,
}

/// An error from the journal: what went wrong, the path and line it concerns, and what to do.
///
/// Boxed, so that `Result<T, Error>` stays one pointer wide.
#[derive(Debug)]
pub struct Error(Box<Inner>);

#[derive(Debug)]
struct Inner {
    kind: ErrorKind,
    path: Option<PathBuf>,
    line: Option<usize>,
    approach: Option<String>,
    message: String,
    source: Option<FsError>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.0.path, self.0.line) {
            (Some(path), Some(line)) => write!(f, "{}:{line}: ", path.display())?,
            (Some(path), None) => write!(f, "{}: ", path.display())?,
            (None, Some(line)) => write!(f, "line {line}: ")?,
            (None, None) => {}
        }
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<FsError> for Error {
    fn from(e: FsError) -> Self {
        // FsError's own message already names the path and the operation.
        let message = e.to_string();
        let mut err = Error::new(ErrorKind::Io, message);
        err.0.source = Some(e);
        err
    }
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error(Box::new(Inner {
            kind,
            path: None,
            line: None,
            approach: None,
            message: message.into(),
            source: None,
        }))
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidInput, message)
    }

    pub(crate) fn too_long(lines: usize) -> Self {
        Error::new(
            ErrorKind::EntryTooLong,
            format!(
                "the entry has {lines} lines; a journal entry is one or two lines of facts \
                 (decisions, failures, findings), so shorten it or log it as separate entries"
            ),
        )
    }

    /// The same error, naming the approach it concerns ([`Error::approach`]).
    pub(crate) fn with_approach(mut self, approach: &str) -> Self {
        self.0.approach = Some(approach.to_string());
        self
    }

    pub(crate) fn not_booted(path: &Path) -> Self {
        Error::new(
            ErrorKind::NotBooted,
            "no journal here yet; boot a session first, which creates it",
        )
        .with_path(path)
    }

    pub(crate) fn archive(root: &Path, source: FsError) -> Self {
        let mut e = Error::new(
            ErrorKind::ArchiveNotWritable,
            format!(
                "cannot write the archive ({source}); the journal is untouched: make the \
                 archive root writable, set GOLDFISH_HOME or pass another archive root"
            ),
        )
        .with_path(root);
        e.0.source = Some(source);
        e
    }

    /// File-system failures while archiving are reported as an unwritable archive.
    pub(crate) fn into_archive(mut self, root: &Path) -> Error {
        match self.0.source.take() {
            Some(source) if self.0.kind == ErrorKind::Io => Error::archive(root, source),
            source => {
                self.0.source = source;
                self
            }
        }
    }

    /// Keeps the file-system failure behind this error as its source.
    pub(crate) fn with_source(mut self, source: FsError) -> Self {
        self.0.source = Some(source);
        self
    }

    pub(crate) fn with_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.0.path = Some(path.into());
        self
    }

    pub(crate) fn at_line(mut self, line: usize) -> Self {
        self.0.line = Some(line);
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
        self.0.kind
    }

    /// The file or directory the error concerns, when there is one.
    pub fn path(&self) -> Option<&Path> {
        self.0
            .path
            .as_deref()
            .or_else(|| self.0.source.as_ref().map(FsError::path))
    }

    /// The 1-based line of the journal the error concerns, when there is one (for a refused
    /// attempt: the line of the last failure of the streak).
    pub fn line(&self) -> Option<usize> {
        self.0.line
    }

    /// For [`ErrorKind::MutationRequired`]: the approach that needs a mutation.
    pub fn approach(&self) -> Option<&str> {
        self.0.approach.as_deref()
    }

    /// The underlying file-system error, when there is one.
    pub fn fs_error(&self) -> Option<&FsError> {
        self.0.source.as_ref()
    }

    /// True when an attempt was refused because its approach needs a mutation first.
    pub fn is_mutation_required(&self) -> bool {
        self.0.kind == ErrorKind::MutationRequired
    }

    /// True when an entry was refused for having more than two lines.
    pub fn is_entry_too_long(&self) -> bool {
        self.0.kind == ErrorKind::EntryTooLong
    }

    /// True when a value given by the caller was refused.
    pub fn is_invalid_input(&self) -> bool {
        self.0.kind == ErrorKind::InvalidInput
    }

    /// True when there is no journal yet (boot first).
    pub fn is_not_booted(&self) -> bool {
        self.0.kind == ErrorKind::NotBooted
    }

    /// True when the archive root cannot be written.
    pub fn is_archive_not_writable(&self) -> bool {
        self.0.kind == ErrorKind::ArchiveNotWritable
    }

    /// True when the file system refused for lack of permission.
    pub fn is_permission_denied(&self) -> bool {
        self.0
            .source
            .as_ref()
            .is_some_and(FsError::is_permission_denied)
    }

    /// True for any other file-system failure.
    pub fn is_io(&self) -> bool {
        self.0.kind == ErrorKind::Io
    }
}

/// The result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_path_line_and_next_step() {
        let cases: Vec<(Error, ErrorKind, &[&str])> = vec![
            (
                Error::mutation_required("full swap", 3, 12).with_path("/w/JOURNAL.md"),
                ErrorKind::MutationRequired,
                &[
                    "/w/JOURNAL.md",
                    "\"full swap\"",
                    "line 12",
                    "M5 (Reduce Scope)",
                    "M8 (Read)",
                ],
            ),
            (
                Error::too_long(3),
                ErrorKind::EntryTooLong,
                &["3 lines", "two lines"],
            ),
            (
                Error::not_booted(Path::new("/w/JOURNAL.md")),
                ErrorKind::NotBooted,
                &["/w/JOURNAL.md", "boot"],
            ),
            (
                Error::invalid("x").at_line(4),
                ErrorKind::InvalidInput,
                &["line 4: x"],
            ),
        ];
        for (err, kind, needles) in cases {
            assert_eq!(err.kind(), kind);
            let msg = err.to_string();
            for n in needles {
                assert!(msg.contains(n), "{msg:?} lacks {n:?}");
            }
        }
        assert_eq!(Error::mutation_required("a", 3, 1).approach(), Some("a"));
    }
}
