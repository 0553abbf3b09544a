//! Task 4: maintain GOBLIN_NOTES.md, the hand-off notes of the project (notes-core).

use notes_core::{NotesManager, Stage};

use crate::{Agent, AgentError};

/// Starts the notes at SCOPE, records progress under the notes' lock, reads them back.
pub(crate) fn run(agent: &Agent) -> Result<(), AgentError> {
    let project = agent.project.as_path();
    // Creates `.goblin/GOBLIN_NOTES.md` (or, when it exists, sets these three and keeps the
    // rest). The pipeline of task 5 moves its `Stage:` line from here to DONE.
    NotesManager::init(project, "ENG-42", Stage::Scope, "Roll out retry backoff")?;

    // A read-modify-write under the notes' lock; `Last Updated` is stamped, the sections'
    // limits applied (older entries fold into the context, never dropped), and secrets are
    // replaced before the file is written.
    NotesManager::update(project, |notes| {
        notes.add_completed_step("Wrote the backoff helper");
        notes.add_in_progress("Use the helper in the HTTP client");
        notes.add_decision("Full jitter", "spreads retries out after an outage");
        notes.add_file_changed("src/retry.rs", "exponential backoff with jitter");
        notes.set_context("The load test against staging is still to run.");
    })?;

    let notes = NotesManager::read(project)?;
    println!("   {}", NotesManager::path(project).display());
    println!(
        "   issue {}, stage {}: {} completed, {} in progress, {} decision(s), {} file(s)",
        notes.issue,
        notes.stage,
        notes.completed_steps().count(),
        notes.in_progress_steps().count(),
        notes.decisions.len(),
        notes.files_changed.len()
    );
    Ok(())
}
