//! The agent's error: one variant per crate it calls, so `?` converts each crate's error and
//! the kind stays reachable (`AgentError::Store(e)` → `e.kind()`).

use std::path::{Path, PathBuf};

/// Everything that can stop the agent.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AgentError {
    /// Not one directory argument.
    #[error(
        "usage: goldfish-example-agent DIR\n  (DIR, missing or empty, gets the store and the project)"
    )]
    Usage,
    /// A file or directory of the agent's own could not be made, read or removed.
    #[error("cannot use {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The directory to work in holds something already.
    #[error(
        "{0} is not empty: give a new or empty directory (the agent makes a fresh store there)"
    )]
    NotEmpty(PathBuf),
    /// A store error (checkpoints, plans).
    #[error(transparent)]
    Store(#[from] goldfish_store::Error),
    /// A recall error.
    #[error(transparent)]
    Recall(#[from] goldfish_recall::Error),
    /// A GOBLIN_NOTES.md error.
    #[error(transparent)]
    Notes(#[from] notes_core::Error),
    /// A signal or pipeline error.
    #[error(transparent)]
    Signals(#[from] goldfish_signals::Error),
    /// A journal error.
    #[error(transparent)]
    Journal(#[from] goldfish_journal::Error),
    /// A library answered, but not what the agent relies on.
    #[error("{0}")]
    Unexpected(String),
    /// A task failed: which one, and why.
    #[error("task {number} ({title}) failed: {error}")]
    Task {
        /// Its number, from 1.
        number: usize,
        /// Its title.
        title: &'static str,
        /// Why it failed.
        error: Box<AgentError>,
    },
}

impl AgentError {
    /// An I/O error of the agent's own on `path`.
    pub(crate) fn io(path: &Path, source: std::io::Error) -> AgentError {
        AgentError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
