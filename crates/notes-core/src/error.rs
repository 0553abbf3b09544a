//! The crate's error type.

use std::fmt;
use std::path::{Path, PathBuf};

use goldfish_core::fs::FsError;

/// What kind of problem an [`Error`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file does not exist.
    NotFound,
    /// The file is not valid UTF-8.
    InvalidUtf8,
    /// The text could not be understood (for example an unknown `Stage:`).
    Parse,
    /// Any other file-system failure (permissions, disk full, …).
    Io,
}

/// An error from this crate: what went wrong, and the file and line it concerns when known.
///
/// The message says what to do next. Use the `is_*` helpers rather than matching on text.
#[derive(Debug)]
pub struct Error {
    // Boxed: keeps `Result<_, Error>` small on the happy path.
    inner: Box<Inner>,
}

#[derive(Debug)]
struct Inner {
    kind: ErrorKind,
    path: Option<PathBuf>,
    line: Option<usize>,
    message: String,
    source: Option<FsError>,
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.source.as_ref().map(|e| e as _)
    }
}

impl Error {
    /// A parse problem at `line` (1-based) of the text being read.
    pub(crate) fn parse(line: usize, message: impl Into<String>) -> Self {
        Error {
            inner: Box::new(Inner {
                kind: ErrorKind::Parse,
                path: None,
                line: Some(line),
                message: message.into(),
                source: None,
            }),
        }
    }

    /// Sets the path the error concerns (parsers do not know it; the manager does).
    pub(crate) fn with_path(mut self, path: &Path) -> Self {
        self.inner.path = Some(path.to_path_buf());
        self
    }

    /// The kind of the I/O error behind this one, when a file-system operation failed: the
    /// same question, answered the same way, in every goldfish crate.
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        goldfish_core::fs::io_kind_in(self)
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The file concerned, when known.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// The 1-based line concerned, when known.
    pub fn line(&self) -> Option<usize> {
        self.inner.line
    }

    /// The underlying file-system error, if that is what failed.
    pub fn fs_error(&self) -> Option<&FsError> {
        self.inner.source.as_ref()
    }

    /// True when the file does not exist.
    pub fn is_not_found(&self) -> bool {
        self.inner.kind == ErrorKind::NotFound
    }

    /// True when the file is not valid UTF-8.
    pub fn is_invalid_utf8(&self) -> bool {
        self.inner.kind == ErrorKind::InvalidUtf8
    }

    /// True when the text could not be understood.
    pub fn is_parse(&self) -> bool {
        self.inner.kind == ErrorKind::Parse
    }

    /// True for file-system failures other than a missing file or bad UTF-8.
    pub fn is_io(&self) -> bool {
        self.inner.kind == ErrorKind::Io
    }

    /// True when the file system refused for lack of permission.
    pub fn is_permission_denied(&self) -> bool {
        self.inner
            .source
            .as_ref()
            .is_some_and(FsError::is_permission_denied)
    }
}

impl From<FsError> for Error {
    fn from(e: FsError) -> Self {
        let kind = if e.is_not_found() {
            ErrorKind::NotFound
        } else if e.is_invalid_utf8() {
            ErrorKind::InvalidUtf8
        } else {
            ErrorKind::Io
        };
        let message = match kind {
            ErrorKind::NotFound => "the file does not exist; create the notes first",
            ErrorKind::InvalidUtf8 => {
                "the file is not UTF-8 text; fix or remove the bad bytes, it was left untouched"
            }
            _ => "check the path's permissions and free space, then retry",
        };
        Error {
            inner: Box::new(Inner {
                kind,
                path: Some(e.path().to_path_buf()),
                line: e.line(),
                message: message.to_string(),
                source: Some(e),
            }),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(source) = &self.inner.source {
            // The file-system error already names the operation, the path and (for bad UTF-8)
            // the line.
            return write!(f, "{source}: {}", self.inner.message);
        }
        match (&self.inner.path, self.inner.line) {
            (Some(p), Some(l)) => write!(f, "{}:{l}: ", p.display())?,
            (Some(p), None) => write!(f, "{}: ", p.display())?,
            (None, Some(l)) => write!(f, "line {l}: ")?,
            (None, None) => {}
        }
        f.write_str(&self.inner.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use goldfish_core::fs::FsOp;
    use std::io;

    #[test]
    fn kinds_and_messages() {
        let cases = [
            (
                io::ErrorKind::NotFound,
                ErrorKind::NotFound,
                "create the notes first",
            ),
            (
                io::ErrorKind::PermissionDenied,
                ErrorKind::Io,
                "permissions",
            ),
        ];
        for (io_kind, kind, hint) in cases {
            let e: Error = FsError::new(FsOp::Read, "/x/notes.md", io::Error::from(io_kind)).into();
            assert_eq!(e.kind(), kind);
            assert_eq!(e.path(), Some(Path::new("/x/notes.md")));
            let msg = e.to_string();
            assert!(msg.contains("/x/notes.md") && msg.contains(hint), "{msg}");
        }
        let e = Error::parse(3, "unknown stage").with_path(Path::new("n.md"));
        assert!(e.is_parse());
        assert_eq!(e.to_string(), "n.md:3: unknown stage");
        assert_eq!(Error::parse(1, "x").to_string(), "line 1: x");
    }
}
