//! `goldfish journal …`, over `goldfish_journal`.

use std::str::FromStr as _;

use goldfish_journal::{Journal, LogKind, MutationCode};
use serde_json::json;

use crate::cli::{JournalArgs, JournalCommand};
use crate::context::Context;
use crate::output::Report;

/// `goldfish journal …`.
pub(crate) fn run(ctx: &Context, a: JournalArgs) -> anyhow::Result<Report> {
    let worktree = ctx.worktree(a.worktree.as_deref());
    let mut journal = Journal::open(&worktree)?;
    let path = journal.path().to_path_buf();
    Ok(match a.command {
        JournalCommand::Boot {
            title,
            intent,
            approach,
            task,
        } => {
            if let Some(task) = task {
                journal = journal.with_task(task);
            }
            let s = journal.boot(
                intent.as_deref().unwrap_or(""),
                approach.as_deref().unwrap_or(""),
                &title,
            )?;
            Report::new(
                format!("Session started in {} (line {})", path.display(), s.line),
                json!({"path": path, "session": s}),
            )
        }
        JournalCommand::Log { kind, text } => {
            let kind = LogKind::from_str(&kind)?;
            let line = journal.log(kind, &text)?;
            Report::new(
                format!("Logged at {}:{line}", path.display()),
                json!({"path": path, "line": line}),
            )
        }
        JournalCommand::Fail { text, approach } => {
            let streak = journal.fail(approach.as_deref(), &text)?;
            let mut msg = format!(
                "Failure {} of approach {:?} logged at {}:{}",
                streak.failures,
                streak.approach,
                path.display(),
                streak.line
            );
            if streak.mutation_required {
                msg.push_str(
                    "\nMUTATION REQUIRED: declare one before the next attempt \
                     (goldfish journal mutate M1..M8 --switching-to … --rationale …)",
                );
            }
            Report::new(msg, json!({"path": path, "streak": streak}))
        }
        JournalCommand::Ok { text, approach } => {
            let line = journal.succeed(approach.as_deref(), &text)?;
            Report::new(
                format!("Success logged at {}:{line}", path.display()),
                json!({"path": path, "line": line}),
            )
        }
        JournalCommand::Mutate {
            code,
            failed,
            switching_to,
            rationale,
        } => {
            let code = MutationCode::from_str(&code)?;
            let m = journal.mutate(code, failed.as_deref(), &switching_to, &rationale)?;
            Report::new(
                format!("Mutation {code} declared at {}:{}", path.display(), m.line),
                json!({"path": path, "mutation": m}),
            )
        }
        JournalCommand::Status => {
            let status = journal.status()?;
            Report::new(status.to_string(), json!({"path": path, "status": status}))
        }
        JournalCommand::Handover => {
            let h = journal.handover()?;
            Report::new(h.to_string(), json!({"path": path, "handover": h}))
        }
        JournalCommand::Archive { root } => {
            let root = match root {
                Some(r) if r.is_relative() => ctx.cwd.join(r),
                Some(r) => r,
                None => goldfish_journal::archive_root_in(&ctx.home),
            };
            let r = journal.archive(&root)?;
            let text = format!(
                "Archived to {}{}; {} correction(s), {} pattern(s) added",
                r.journal_copy.display(),
                if r.copied { "" } else { " (already there)" },
                r.corrections_added,
                r.patterns_added
            );
            Report::new(text, json!({"path": path, "archive": r}))
        }
    })
}
