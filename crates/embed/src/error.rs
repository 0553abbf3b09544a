//! The crate's one error type.

use std::path::PathBuf;

/// What went wrong, naming the file or the value at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read, written, renamed or removed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A model file is missing.
    #[error("{path}: missing (the model directory is incomplete)")]
    Missing {
        /// The file expected.
        path: PathBuf,
    },
    /// A model file is there but unreadable as what it should be.
    #[error("{path}: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The model asks for something this crate does not implement (a pooling mode, say).
    #[error("{path}: {reason}")]
    Unsupported {
        /// The file that asks for it.
        path: PathBuf,
        /// What is asked and what is supported.
        reason: String,
    },
    /// Tokenizing or running the model failed.
    #[error("embedding failed: {0}")]
    Model(String),
    /// A downloaded file's digest differs from the pinned one.
    #[error("{file}: SHA-256 {actual}, expected {expected} (download corrupted or tampered with)")]
    Digest {
        /// The file, relative to the model directory.
        file: String,
        /// The digest of what was downloaded.
        actual: String,
        /// The pinned digest.
        expected: String,
    },
    /// The download failed.
    #[error("{url}: {reason}")]
    Download {
        /// What was being downloaded.
        url: String,
        /// Why it failed.
        reason: String,
    },
    /// The model directory cannot be determined (no home directory).
    #[error("no model directory: none of GOLDFISH_MODEL_DIR, XDG_CACHE_HOME and HOME is set")]
    NoModelDir,
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn corrupt(path: impl Into<PathBuf>, reason: impl std::fmt::Display) -> Self {
        Self::Corrupt {
            path: path.into(),
            reason: reason.to_string(),
        }
    }
}
