//! `goldfish redact [--apply]`: today's redaction over the stored files, one library call
//! ([`goldfish_store::Store::redact_stored`]); this module renders its report.

use std::fmt::Write as _;
use std::process::ExitCode;

use goldfish_store::{RedactStored, RedactedFile, StoredFile, StoredFileKind};
use notes_core::NotesManager;
use serde_json::json;

use crate::cli::RedactArgs;
use crate::context::Context;
use crate::output::Report;

/// `goldfish redact`: the store's day files and plans, and the worktree's notes and journal.
/// Exit 1 when a file could not be read or redacted.
pub(crate) fn run(ctx: &Context, args: &RedactArgs) -> anyhow::Result<Report> {
    let store = ctx.open_store()?;
    let worktree = ctx.worktree(args.worktree.as_deref());
    let also = [
        StoredFile::new(NotesManager::path(&worktree), StoredFileKind::Notes),
        StoredFile::new(
            worktree.join(goldfish_journal::JOURNAL_FILE),
            StoredFileKind::Journal,
        ),
    ];
    let report = store.redact_stored(&also, args.apply)?;
    // The recall index and the vectors keep the text of the day files they were built from:
    // a workspace whose day files were rewritten gets its index rebuilt and the vectors of
    // texts no entry has any more dropped now, not at its next recall.
    let mut index_errors = Vec::new();
    for workspace in &report.workspaces_changed {
        if let Err(e) = goldfish_recall::index::prune_caches(&store, workspace) {
            index_errors.push(format!("{workspace}: {e}"));
        }
    }
    let mut json = serde_json::to_value(&report)?;
    json["index_errors"] = json!(index_errors);
    let mut text = render(&report);
    for e in &index_errors {
        let _ = writeln!(
            text,
            "the recall index could not be rebuilt ({e}); run `goldfish index rebuild`"
        );
    }
    let failed = report.has_errors() || !index_errors.is_empty();
    let out = Report::new(text, json);
    Ok(if failed {
        out.with_code(ExitCode::FAILURE)
    } else {
        out
    })
}

/// The report for people: one line per file that holds something, then what was done.
fn render(report: &RedactStored) -> String {
    let mut text = String::new();
    for file in &report.files {
        let _ = writeln!(text, "{}", file_line(file, report.applied));
    }
    let n = report.scanned;
    let files = |n: usize| format!("{n} file{}", if n == 1 { "" } else { "s" });
    let holding = report.files.iter().filter(|f| !f.found.is_empty()).count();
    let _ = if holding == 0 {
        writeln!(text, "nothing to redact in {}", files(n))
    } else if report.applied {
        writeln!(
            text,
            "rewrote {} of {} (every secret as [REDACTED:<kind>], every private span dropped); \
             a copy synced before, and git history, still hold what was there",
            files(report.rewritten()),
            files(n)
        )
    } else {
        writeln!(
            text,
            "{} of {} hold something to redact; nothing was written: run `goldfish redact --apply` to rewrite them",
            holding,
            files(n)
        )
    };
    text
}

/// `{path} ({kind}): 2 github-token, 1 private — rewritten`.
fn file_line(file: &RedactedFile, applied: bool) -> String {
    let counts: Vec<String> = file
        .found
        .iter()
        .map(|c| format!("{} {}", c.count, c.kind))
        .collect();
    let mut line = format!("{} ({})", file.path.display(), file.kind.name());
    if !counts.is_empty() {
        let _ = write!(line, ": {}", counts.join(", "));
    }
    match (&file.error, applied) {
        (Some(e), _) => {
            let _ = write!(line, " — {e}");
        }
        (None, true) if file.rewritten => line.push_str(" — rewritten"),
        (None, _) => {}
    }
    line
}
