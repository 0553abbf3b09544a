//! Keeping `GOBLIN_NOTES.md`'s `Stage:` line in step with the pipeline.

use std::path::Path;

use goldfish_core::time::SharedClock;
use notes_core::{NotesManager, Stage};

use crate::{Error, ErrorKind};

/// Sets the `Stage:` of the worktree's notes file (`.goblin/GOBLIN_NOTES.md`) to `stage`,
/// stamping `Last Updated` from `clock`, under the notes' own lock (so agents updating their
/// notes at the same moment lose nothing). Returns `Ok(false)`, writing nothing, when the
/// worktree has no notes file: a pipeline does not need notes.
///
/// # Errors
///
/// [`ErrorKind::Notes`] when the file exists but cannot be read, parsed or written; it is
/// then left as it was.
pub(crate) fn update_stage(
    worktree: &Path,
    stage: Stage,
    clock: &SharedClock,
) -> Result<bool, Error> {
    match NotesManager::with_clock(clock.clone())
        .update_notes(worktree, |notes| notes.set_stage(stage))
    {
        Ok(()) => Ok(true),
        Err(e) if e.is_not_found() => Ok(false),
        Err(e) => Err(Error::new(ErrorKind::Notes, e.to_string())
            .with_path(NotesManager::path(worktree))
            .with_source(e)),
    }
}
