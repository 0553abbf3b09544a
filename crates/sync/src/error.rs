//! The crate's one error type.

use std::fmt;
use std::path::{Path, PathBuf};

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The `git` executable could not be started (not installed, or not on `PATH`).
    GitMissing,
    /// The directory is not a git repository (or not the top of one) that sync manages.
    NotARepository,
    /// No remote is configured, so there is nowhere to sync to.
    NoRemote,
    /// The remote is configured but cannot be reached: a missing path, an unknown host, a
    /// refused connection, a URL that is not a repository.
    RemoteUnreachable,
    /// The remote refused our credentials (or asked for some and none were available).
    Authentication,
    /// The remote refused the push (a hook or a protected branch), or it kept moving ahead
    /// faster than the bounded retries could follow.
    PushRejected,
    /// A file could not be merged by meaning, so sync merged nothing and left the store as it
    /// was. [`Error::files`] names the files.
    Conflict,
    /// A git command failed for another reason; the message holds its output.
    Git,
    /// A file-system failure (reading, writing or locking a file).
    Io,
    /// The caller gave a value sync refuses (a workspace name, a path outside the repository).
    InvalidInput,
}

/// An error from sync or the merge driver: what went wrong, the path it concerns, and what to
/// do next.
#[derive(Debug, thiserror::Error)]
pub struct Error {
    kind: ErrorKind,
    path: Option<PathBuf>,
    files: Vec<PathBuf>,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // File-system errors already name their path in the message.
        if let Some(path) = &self.path
            && !self.message.contains(&path.display().to_string())
        {
            write!(f, "{}: ", path.display())?;
        }
        f.write_str(&self.message)
    }
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            path: None,
            files: Vec::new(),
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn with_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    pub(crate) fn with_files(mut self, files: Vec<PathBuf>) -> Self {
        self.files = files;
        self
    }

    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(Box::new(source));
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

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The file or directory the error concerns, when there is one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The files a [`ErrorKind::Conflict`] is about (relative to the repository), else empty.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The message, without the path.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// True when `git` could not be started.
    pub fn is_git_missing(&self) -> bool {
        self.kind == ErrorKind::GitMissing
    }

    /// True when a file could not be merged by meaning (nothing was merged).
    pub fn is_conflict(&self) -> bool {
        self.kind == ErrorKind::Conflict
    }

    /// True when the remote is missing, unreachable, refused our credentials or the push.
    pub fn is_remote(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::NoRemote
                | ErrorKind::RemoteUnreachable
                | ErrorKind::Authentication
                | ErrorKind::PushRejected
        )
    }
}

impl From<goldfish_core::fs::FsError> for Error {
    fn from(e: goldfish_core::fs::FsError) -> Self {
        let path = e.path().to_path_buf();
        Error::new(ErrorKind::Io, e.to_string())
            .with_source(e)
            .with_path(path)
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
