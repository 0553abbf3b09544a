//! The crate's one error type.

use std::fmt;
use std::path::{Path, PathBuf};

use goldfish_core::fs::FsError;

use crate::{SignalKind, Stage};

/// What went wrong; part of [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A file-system operation failed (the [`Error::path`] names the file).
    Io,
    /// A signal file is not valid UTF-8 or not a valid JSON body for its kind. The file is left
    /// in place and never advances the pipeline.
    InvalidSignal {
        /// The signal the file is for.
        kind: SignalKind,
    },
    /// A signal that does not fit the pipeline's current stage; nothing was changed.
    UnexpectedSignal {
        /// The stage the pipeline is at.
        stage: Stage,
        /// The signal that was offered.
        signal: SignalKind,
    },
    /// The pipeline has already ended (DONE, FAILED or CANCELLED); nothing was changed.
    Finished {
        /// The final stage.
        stage: Stage,
    },
    /// `pipeline.json` cannot be read as a pipeline state. It is left untouched.
    InvalidState,
    /// Another runner (thread or process) already drives this worktree's pipeline.
    Locked,
    /// A pipeline that has not ended already exists, so a new one was not started.
    AlreadyActive {
        /// The stage the existing pipeline is at.
        stage: Stage,
    },
    /// `GOBLIN_NOTES.md` exists but its `Stage:` could not be updated.
    Notes,
}

/// An error of this crate: what happened ([`ErrorKind`]), the file and position it concerns
/// when there is one, and a message that says what to do next.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    path: Option<PathBuf>,
    line: Option<usize>,
    column: Option<usize>,
    detail: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, detail: impl Into<String>) -> Self {
        Error {
            kind,
            path: None,
            line: None,
            column: None,
            detail: detail.into(),
            source: None,
        }
    }

    pub(crate) fn with_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    pub(crate) fn at(mut self, line: usize, column: usize) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    pub(crate) fn with_source(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// A JSON error, keeping serde_json's line and column (1-based; 0 when it has none).
    pub(crate) fn from_json(kind: ErrorKind, e: &serde_json::Error) -> Self {
        let text = e.to_string();
        // serde_json appends " at line L column C"; the position is kept separately.
        let detail = match text.rfind(" at line ") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        Error::new(kind, detail).at(e.line(), e.column())
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

    /// What happened.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The file concerned, when there is one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The 1-based line in [`path`](Error::path) (or in the text parsed), when known.
    pub fn line(&self) -> Option<usize> {
        self.line.filter(|&l| l > 0)
    }

    /// The 1-based column, when known.
    pub fn column(&self) -> Option<usize> {
        self.column.filter(|_| self.line().is_some())
    }

    /// True for a file-system failure.
    pub fn is_io(&self) -> bool {
        self.kind == ErrorKind::Io
    }

    /// True when the file or directory concerned does not exist.
    pub fn is_not_found(&self) -> bool {
        self.source
            .as_ref()
            .and_then(|s| s.downcast_ref::<FsError>())
            .is_some_and(FsError::is_not_found)
    }

    /// True for a signal file whose body cannot be read ([`ErrorKind::InvalidSignal`]).
    pub fn is_invalid_signal(&self) -> bool {
        matches!(self.kind, ErrorKind::InvalidSignal { .. })
    }

    /// True for a signal that does not fit the current stage ([`ErrorKind::UnexpectedSignal`]).
    pub fn is_unexpected_signal(&self) -> bool {
        matches!(self.kind, ErrorKind::UnexpectedSignal { .. })
    }

    /// True when the pipeline has already ended ([`ErrorKind::Finished`]).
    pub fn is_finished(&self) -> bool {
        matches!(self.kind, ErrorKind::Finished { .. })
    }

    /// True for an unreadable `pipeline.json` ([`ErrorKind::InvalidState`]).
    pub fn is_invalid_state(&self) -> bool {
        self.kind == ErrorKind::InvalidState
    }

    /// True when another runner holds the worktree ([`ErrorKind::Locked`]).
    pub fn is_locked(&self) -> bool {
        self.kind == ErrorKind::Locked
    }

    /// True when a pipeline that has not ended already exists ([`ErrorKind::AlreadyActive`]).
    pub fn is_already_active(&self) -> bool {
        matches!(self.kind, ErrorKind::AlreadyActive { .. })
    }

    /// True when `GOBLIN_NOTES.md` could not be updated ([`ErrorKind::Notes`]).
    pub fn is_notes(&self) -> bool {
        self.kind == ErrorKind::Notes
    }
}

impl From<FsError> for Error {
    fn from(e: FsError) -> Self {
        let path = e.path().to_path_buf();
        Error::new(ErrorKind::Io, e.to_string())
            .with_path(path)
            .with_source(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
            if let Some(path) = &self.path {
                write!(f, "{}", path.display())?;
            } else {
                f.write_str("<input>")?;
            }
            if let (Some(line), Some(column)) = (self.line(), self.column()) {
                write!(f, ":{line}:{column}")?;
            }
            Ok(())
        };
        match &self.kind {
            ErrorKind::Io => f.write_str(&self.detail),
            ErrorKind::InvalidSignal { kind } => {
                place(f)?;
                write!(
                    f,
                    ": invalid {kind} signal: {}; the file is left in place and does not advance \
                     the pipeline: fix it, rewrite it atomically (write a temp file, then rename), \
                     or remove it",
                    self.detail
                )
            }
            ErrorKind::UnexpectedSignal { stage, signal } => write!(
                f,
                "signal {signal} does not fit stage {stage} ({}); nothing was changed",
                self.detail
            ),
            ErrorKind::Finished { stage } => write!(
                f,
                "the pipeline has already ended ({stage}); nothing was changed: start a new \
                 pipeline to run again"
            ),
            ErrorKind::InvalidState => {
                place(f)?;
                write!(
                    f,
                    ": unreadable pipeline state: {}; the file is left untouched: fix it, or \
                     remove it to start a new pipeline",
                    self.detail
                )
            }
            ErrorKind::Locked => {
                place(f)?;
                write!(
                    f,
                    ": another runner is driving this pipeline ({}); stop it first, or cancel \
                     the pipeline (it then stops by itself)",
                    self.detail
                )
            }
            ErrorKind::AlreadyActive { stage } => {
                place(f)?;
                write!(
                    f,
                    ": a pipeline is already at {stage}; resume it, or cancel it \
                     before starting a new one"
                )
            }
            // notes-core' message already names the file and line.
            ErrorKind::Notes => write!(
                f,
                "the Stage of GOBLIN_NOTES.md was not updated: {}; the pipeline itself moved on",
                self.detail
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|s| s as &(dyn std::error::Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_place_and_next_step() {
        let invalid = Error::new(
            ErrorKind::InvalidSignal {
                kind: SignalKind::BuildComplete,
            },
            "EOF while parsing an object",
        )
        .with_path("/w/.goblin/build-complete")
        .at(1, 12);
        let unexpected = Error::new(
            ErrorKind::UnexpectedSignal {
                stage: Stage::Scope,
                signal: SignalKind::TestPassed,
            },
            "expected scope-complete",
        );
        let cases: [(&Error, &[&str]); 2] = [
            (
                &invalid,
                &[
                    "/w/.goblin/build-complete:1:12",
                    "left in place",
                    "remove it",
                ],
            ),
            (
                &unexpected,
                &["test-passed", "SCOPE", "nothing was changed"],
            ),
        ];
        for (err, needles) in cases {
            let msg = err.to_string();
            for needle in needles {
                assert!(msg.contains(needle), "{msg:?} lacks {needle:?}");
            }
        }
        assert!(invalid.is_invalid_signal());
        assert_eq!(invalid.line(), Some(1));
        assert!(unexpected.is_unexpected_signal());
        assert_eq!(unexpected.line(), None);
    }
}
