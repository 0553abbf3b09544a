//! `goldfish notes …`, over `notes_core::NotesManager`.

use std::path::Path;

use anyhow::bail;
use goldfish_core::time::format_utc;
use notes_core::{Notes, NotesManager, Stage};
use serde_json::{Value, json};

use crate::cli::{NotesArgs, NotesCommand};
use crate::context::Context;
use crate::output::Report;

fn notes_json(worktree: &Path, n: &Notes) -> Value {
    json!({
        "path": NotesManager::path(worktree),
        "issue": n.issue,
        "stage": n.stage.as_str(),
        "last_updated": format_utc(&n.last_updated),
        "current_objective": n.current_objective,
        "completed": n.completed_steps().collect::<Vec<_>>(),
        "in_progress": n.in_progress_steps().collect::<Vec<_>>(),
        "pending": n.pending_steps().collect::<Vec<_>>(),
        "decisions": n.decisions.iter().map(|d| json!({"decision": d.decision, "reason": d.reason})).collect::<Vec<_>>(),
        "files_changed": n.files_changed.iter().map(|f| json!({"path": f.path, "description": f.description})).collect::<Vec<_>>(),
        "context": n.context,
    })
}

fn stage_of(s: &str) -> anyhow::Result<Stage> {
    Ok(s.parse::<Stage>()?)
}

/// `goldfish notes …`.
pub(crate) fn run(ctx: &Context, a: NotesArgs) -> anyhow::Result<Report> {
    let wt = ctx.worktree(a.worktree.as_deref());
    let init = matches!(a.command, NotesCommand::Init { .. });
    run_in(&wt, a.command).map_err(|e| match e.downcast_ref::<notes_core::Error>() {
        Some(n) if n.is_not_found() && !init => anyhow::anyhow!(
            "no notes in {}: create them with `goldfish notes init ISSUE`",
            wt.display()
        ),
        _ => e,
    })
}

fn run_in(wt: &Path, command: NotesCommand) -> anyhow::Result<Report> {
    let wt = wt.to_path_buf();
    let (what, notes) = match command {
        NotesCommand::Show => {
            let notes = NotesManager::read(&wt)?;
            return Ok(Report::new(notes.format(), notes_json(&wt, &notes)));
        }
        NotesCommand::Init {
            issue,
            objective,
            stage,
        } => {
            let stage = stage_of(&stage)?;
            let objective = objective.unwrap_or_else(|| issue.clone());
            (
                "Notes initialised",
                NotesManager::init(&wt, &issue, stage, &objective)?,
            )
        }
        NotesCommand::Objective { text } => {
            ("Objective set", update(&wt, |n| n.set_objective(text))?)
        }
        NotesCommand::Step { text, status } => {
            let status = status.trim().to_ascii_lowercase().replace('_', "-");
            let notes = match status.as_str() {
                "completed" | "done" => update(&wt, |n| n.add_completed_step(text))?,
                "in-progress" | "doing" => update(&wt, |n| n.add_in_progress(text))?,
                "pending" | "todo" => update(&wt, |n| n.add_pending(text))?,
                other => {
                    bail!("unknown step status {other:?}: use completed, in-progress or pending")
                }
            };
            ("Step recorded", notes)
        }
        NotesCommand::Decision { text, reason } => (
            "Decision recorded",
            update(&wt, |n| n.add_decision(text, reason))?,
        ),
        NotesCommand::File { path, note } => (
            "File recorded",
            update(&wt, |n| n.add_file_changed(path, note))?,
        ),
        NotesCommand::Stage { stage } => {
            let stage = stage_of(&stage)?;
            ("Stage set", update(&wt, |n| n.set_stage(stage))?)
        }
    };
    let text = format!(
        "{what}: {} (issue {}, stage {})",
        NotesManager::path(&wt).display(),
        notes.issue,
        notes.stage.as_str()
    );
    Ok(Report::new(text, notes_json(&wt, &notes)))
}

/// Applies `f` under the notes' lock and returns the notes as written.
fn update(wt: &Path, f: impl FnOnce(&mut Notes)) -> anyhow::Result<Notes> {
    NotesManager::update(wt, |n| {
        f(n);
    })?;
    Ok(NotesManager::read(wt)?)
}
