//! The crate's one error type.

use std::fmt;
use std::path::{Path, PathBuf};

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An option had a value recall cannot use (a bad `since`, `from` or `to`, a workspace
    /// name that could escape the store, a window that ends before it starts).
    InvalidArgument,
    /// A search query had nothing to search for: only stop words, the framing of a question
    /// ("what was it?") or punctuation.
    NothingToSearch,
    /// The store failed in a way that is not about one skippable file (an unreadable store
    /// directory, a broken active-plan file, …).
    Store,
}

/// An error from recall or standup: what went wrong, which argument or file it concerns, and
/// what to do next.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Error {
    // Boxed: results stay small on the happy path. Transparent: the error chain is Inner's
    // own (its store error, if any), not Inner repeated.
    inner: Box<Inner>,
}

#[derive(Debug, thiserror::Error)]
struct Inner {
    kind: ErrorKind,
    argument: Option<&'static str>,
    path: Option<PathBuf>,
    line: Option<usize>,
    message: String,
    #[source]
    source: Option<goldfish_store::Error>,
}

impl fmt::Display for Inner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.path, self.line) {
            (Some(path), Some(line)) => write!(f, "{}:{line}: ", path.display())?,
            (Some(path), None) => write!(f, "{}: ", path.display())?,
            _ => {}
        }
        f.write_str(&self.message)
    }
}

impl Error {
    pub(crate) fn argument(argument: &'static str, message: impl Into<String>) -> Self {
        Error {
            inner: Box::new(Inner {
                kind: ErrorKind::InvalidArgument,
                argument: Some(argument),
                path: None,
                line: None,
                message: message.into(),
                source: None,
            }),
        }
    }

    /// A store-level failure about one file (the recall index that cannot be written).
    pub(crate) fn file(path: &Path, message: impl Into<String>) -> Self {
        Error {
            inner: Box::new(Inner {
                kind: ErrorKind::Store,
                argument: None,
                path: Some(path.to_path_buf()),
                line: None,
                message: message.into(),
                source: None,
            }),
        }
    }

    pub(crate) fn nothing_to_search(query: &str) -> Self {
        let shown: String = query.chars().take(80).collect();
        Error {
            inner: Box::new(Inner {
                kind: ErrorKind::NothingToSearch,
                argument: Some("search"),
                path: None,
                line: None,
                message: format!(
                    "nothing to search for in {shown:?}: it has only common words or \
                     punctuation; add a word the checkpoint would contain (a name, a topic, \
                     an error message)"
                ),
                source: None,
            }),
        }
    }

    /// Whether the error is a search query with nothing to search for.
    pub fn is_nothing_to_search(&self) -> bool {
        self.inner.kind == ErrorKind::NothingToSearch
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
        self.inner.kind
    }

    /// The option that was refused (`"since"`, `"from"`, `"to"`, `"workspace"`, …), if any.
    pub fn argument_name(&self) -> Option<&str> {
        self.inner.argument
    }

    /// The file the error concerns, when there is one.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// The 1-based line of [`path`](Self::path) the error concerns, when known.
    pub fn line(&self) -> Option<usize> {
        self.inner.line
    }

    /// The message without the path and line prefix.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// True when an option was refused; [`argument_name`](Self::argument_name) says which.
    pub fn is_invalid_argument(&self) -> bool {
        self.inner.kind == ErrorKind::InvalidArgument
    }

    /// True when the store failed.
    pub fn is_store(&self) -> bool {
        self.inner.kind == ErrorKind::Store
    }

    /// The store's own error, when this wraps one.
    pub fn store_error(&self) -> Option<&goldfish_store::Error> {
        self.inner.source.as_ref()
    }
}

impl From<goldfish_store::Error> for Error {
    fn from(e: goldfish_store::Error) -> Self {
        let (kind, argument) = if e.is_invalid_input() {
            (ErrorKind::InvalidArgument, Some("workspace"))
        } else {
            (ErrorKind::Store, None)
        };
        Error {
            inner: Box::new(Inner {
                kind,
                argument,
                path: e.path().map(Path::to_path_buf),
                line: e.line(),
                message: e.message().to_string(),
                source: Some(e),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_errors_name_the_argument() {
        let e = Error::argument("since", "bad");
        assert!(e.is_invalid_argument());
        assert!(!e.is_store());
        assert_eq!(e.argument_name(), Some("since"));
        assert_eq!(e.to_string(), "bad");
        assert_eq!(e.path(), None);
    }
}
