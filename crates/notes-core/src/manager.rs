//! `NotesManager`: reading and writing `{worktree}/.goblin/GOBLIN_NOTES.md`.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use goldfish_redact::Redactor;

use crate::error::Error;
use crate::notes::Notes;
use crate::stage::Stage;
use goldfish_core::fs::{self, FsError, FsOp, Update, WriteOptions};
use goldfish_core::time::{SharedClock, now_millis, system_clock};

/// Reads and writes a worktree's `GOBLIN_NOTES.md`.
///
/// The associated functions ([`read`](Self::read), [`write`](Self::write),
/// [`init`](Self::init), [`update`](Self::update)) use the system clock for `Last Updated`;
/// build a manager with [`with_clock`](Self::with_clock) and call the `*_notes` methods to
/// inject a clock (tests).
///
/// Every write is atomic (temp file, fsync, rename, fsync of `.goblin/`) and runs under an
/// exclusive lock on the sidecar `.goblin/.GOBLIN_NOTES.md.lock`, so any number of agents and
/// processes may update the same notes at once: each update sees all the ones before it. A
/// process killed at any instant leaves the old or the new file. Files follow the umask
/// (they live in a worktree). A file that cannot be parsed is never overwritten.
///
/// Secrets are never written: every write passes the whole file through a redactor first, so
/// a token pasted into a step, a decision or the context is stored as `[REDACTED:<kind>]`
/// (and one a person pasted by hand is replaced at the next write). Text between
/// `<private>` and `</private>` is dropped the same way (an open tag never closed drops the
/// rest of its line: [`Redactor::redact_document`]). A worktree has no setting
/// of its own, so every kind is replaced ([`Redactor::everything`]) unless the manager is
/// given another redactor ([`with_redactor`](Self::with_redactor)).
///
/// # Example
///
/// ```
/// use notes_core::{NotesManager, Stage};
///
/// # fn main() -> Result<(), notes_core::Error> {
/// let worktree = tempfile::tempdir().expect("temp dir");
/// NotesManager::init(worktree.path(), "ENG-123", Stage::Build, "Implement auth")?;
/// NotesManager::update(worktree.path(), |notes| {
///     notes.add_completed_step("Created auth module");
///     notes.add_decision("Using JWT", "Stateless auth");
/// })?;
/// let notes = NotesManager::read(worktree.path())?;
/// assert_eq!(notes.decisions[0].decision, "Using JWT");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct NotesManager {
    clock: SharedClock,
    /// `None` is [`Redactor::everything`].
    redactor: Option<Arc<Redactor>>,
}

impl Default for NotesManager {
    fn default() -> Self {
        NotesManager {
            clock: system_clock(),
            redactor: None,
        }
    }
}

impl NotesManager {
    /// A manager using the system clock.
    pub fn new() -> Self {
        NotesManager::default()
    }

    /// A manager that stamps `Last Updated` from `clock`.
    pub fn with_clock(clock: SharedClock) -> Self {
        NotesManager {
            clock,
            redactor: None,
        }
    }

    /// The same manager, redacting with `redactor` (built from a store's setting, say)
    /// instead of [`Redactor::everything`].
    pub fn with_redactor(mut self, redactor: Arc<Redactor>) -> Self {
        self.redactor = Some(redactor);
        self
    }

    /// The notes' text with its secrets replaced: the last step of every write.
    fn redact(&self, text: String) -> String {
        let redactor: &Redactor = match &self.redactor {
            Some(r) => r,
            None => Redactor::everything(),
        };
        // The file is written whole: a `<private>` never closed drops to the end of its line,
        // not the rest of the notes.
        match redactor.redact_document(&text).text {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(redacted) => redacted,
        }
    }

    /// The notes file of `worktree`: `{worktree}/.goblin/GOBLIN_NOTES.md`.
    pub fn path(worktree: &Path) -> PathBuf {
        worktree.join(".goblin").join("GOBLIN_NOTES.md")
    }

    /// Reads and parses the notes of `worktree`. Never locks, never sees a half-written file.
    ///
    /// A missing file is an error with [`Error::is_not_found`].
    pub fn read(worktree: &Path) -> Result<Notes, Error> {
        let path = Self::path(worktree);
        let text = fs::read_utf8(&path)?;
        Notes::parse(&text).map_err(|e| e.with_path(&path))
    }

    /// Writes `notes` with `Last Updated` set to now (system clock); see
    /// [`write_notes`](Self::write_notes).
    pub fn write(worktree: &Path, notes: &Notes) -> Result<(), Error> {
        Self::new().write_notes(worktree, notes)
    }

    /// Creates the notes, or restarts them for a new stage; see [`init_notes`](Self::init_notes).
    pub fn init(
        worktree: &Path,
        issue: &str,
        stage: Stage,
        objective: &str,
    ) -> Result<Notes, Error> {
        Self::new().init_notes(worktree, issue, stage, objective)
    }

    /// Read–modify–write under the lock; see [`update_notes`](Self::update_notes).
    pub fn update<T>(worktree: &Path, f: impl FnOnce(&mut Notes) -> T) -> Result<T, Error> {
        Self::new().update_notes(worktree, f)
    }

    /// Writes `notes` to `worktree`, with `Last Updated` set to now and the limits applied
    /// ([`Notes::enforce_limits`]). `notes` itself is not changed.
    ///
    /// Sections and lines of the file on disk that `notes` does not have (for example a
    /// `## Blockers` section a person added since `notes` was read) are kept. If the file on
    /// disk cannot be parsed, nothing is written and the parse error is returned.
    pub fn write_notes(&self, worktree: &Path, notes: &Notes) -> Result<(), Error> {
        let path = Self::path(worktree);
        let now = now_millis(self.clock.as_ref());
        fs::update_locked(&path, &WriteOptions::umask(), |current| {
            let mut notes = notes.clone();
            notes.touch(now);
            notes.enforce_limits();
            if let Some(text) = current {
                let on_disk = Notes::parse(text).map_err(|e| refuse(e, &path))?;
                notes.keep_unknown_from(&on_disk);
            }
            let text = notes.format_checked().map_err(|e| e.with_path(&path))?;
            Ok::<_, Error>(Update::Write(self.redact(text), ()))
        })
    }

    /// Starts a stage: creates the notes with `issue`, `stage` and `objective` (and the context
    /// `Starting {STAGE} stage.`), or, when the file exists, sets those three and keeps
    /// everything else (steps, decisions, files, context, hand-added sections). Returns the
    /// notes as written.
    pub fn init_notes(
        &self,
        worktree: &Path,
        issue: &str,
        stage: Stage,
        objective: &str,
    ) -> Result<Notes, Error> {
        let path = Self::path(worktree);
        let now = now_millis(self.clock.as_ref());
        fs::update_locked(&path, &WriteOptions::umask(), |current| {
            let notes = match current {
                None => {
                    let mut notes = Notes::new(issue, stage, objective, now);
                    notes.set_context(format!("Starting {stage} stage."));
                    notes
                }
                Some(text) => {
                    let mut notes = Notes::parse(text).map_err(|e| refuse(e, &path))?;
                    notes.issue = issue.to_string();
                    notes.set_stage(stage);
                    notes.set_objective(objective);
                    notes.touch(now);
                    notes
                }
            };
            let text = self.redact(notes.format_checked().map_err(|e| e.with_path(&path))?);
            // The notes returned are the notes written.
            let notes = Notes::parse(&text).unwrap_or(notes);
            Ok::<_, Error>(Update::Write(text, notes))
        })
    }

    /// Reads the notes, runs `f` on them, sets `Last Updated`, applies the limits and writes
    /// them back, all under the notes' exclusive lock: concurrent updates from any number of
    /// threads and processes all land. Returns what `f` returned.
    ///
    /// A missing file is an error with [`Error::is_not_found`] (call [`init`](Self::init)
    /// first); a file that cannot be parsed is left untouched and its error returned.
    pub fn update_notes<T>(
        &self,
        worktree: &Path,
        f: impl FnOnce(&mut Notes) -> T,
    ) -> Result<T, Error> {
        let path = Self::path(worktree);
        if !path.exists() {
            // Checked first so that a missing worktree gets no `.goblin/` or lock file.
            return Err(not_found(&path));
        }
        fs::update_locked(&path, &WriteOptions::umask(), |current| {
            let text = current.ok_or_else(|| not_found(&path))?;
            let mut notes = Notes::parse(text).map_err(|e| refuse(e, &path))?;
            let out = f(&mut notes);
            notes.touch(now_millis(self.clock.as_ref()));
            notes.enforce_limits();
            let text = notes.format_checked().map_err(|e| e.with_path(&path))?;
            Ok::<_, Error>(Update::Write(self.redact(text), out))
        })
    }
}

fn not_found(path: &Path) -> Error {
    FsError::new(FsOp::Read, path, io::Error::from(io::ErrorKind::NotFound)).into()
}

fn refuse(e: Error, path: &Path) -> Error {
    e.with_path(path)
}
