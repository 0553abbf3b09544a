//! `goldfish tidy [--apply]`: what may need tidying in a workspace ([`goldfish_recall::tidy`])
//! and, with `--apply`, the clean-ups that lose nothing ([`goldfish_recall::apply_tidy`]);
//! this module renders both.

use std::fmt::Write as _;

use goldfish_recall::{TidyApplied, TidyMemory, TidyOptions, TidyReport};
use serde_json::json;

use crate::cli::TidyArgs;
use crate::context::Context;
use crate::output::Report;
use crate::render::echo;

/// `goldfish tidy`: the current workspace (or `-w NAME`, or every one with `-w all`).
pub(crate) fn run(ctx: &Context, args: &TidyArgs) -> anyhow::Result<Report> {
    let store = ctx.open_store()?;
    let workspaces = if ctx.selector(None)?.is_all() {
        store.list_workspaces()?
    } else {
        let (name, note) = ctx.workspace_for(None, args.apply)?;
        if let Some(note) = note {
            crate::output::eprintln_inert!("goldfish: {note}");
        }
        vec![name]
    };
    let mut options = TidyOptions::default();
    if let Some(days) = args.older_than {
        options.older_than_days = days;
    }
    if let Some(days) = args.unreturned_for {
        options.unreturned_days = days;
    }
    // Chains by meaning too when a model is installed (only the cached vectors are read).
    let semantic = ctx.semantic();
    let by = crate::actor::forgetter(None);
    let mut text = String::new();
    let mut reports = Vec::new();
    let mut failed = false;
    for ws in &workspaces {
        let report = goldfish_recall::tidy(&store, ws, &options, semantic.as_ref())?;
        let applied = if args.apply && report.has_changes() {
            Some(goldfish_recall::apply_tidy(&store, &report, &by))
        } else {
            None
        };
        failed |= applied.as_ref().is_some_and(|a| !a.failed.is_empty());
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&render(&report, applied.as_ref(), args.apply));
        reports.push(json!({
            "report": report,
            "applied": applied,
        }));
    }
    let json = json!({
        "apply": args.apply,
        "workspaces": reports,
    });
    let report = Report::new(text, json);
    // Exit 1 when something could not be applied (what was done is said all the same).
    Ok(if failed {
        report.with_code(std::process::ExitCode::FAILURE)
    } else {
        report
    })
}

/// One memory on one line: id, day, type, title.
fn line(m: &TidyMemory) -> String {
    format!(
        "{} {} [{}] {}",
        m.id,
        m.timestamp.format("%Y-%m-%d"),
        m.memory_type.as_str(),
        echo(&m.title)
    )
}

/// The report for people: each finding, then what was done or what `--apply` would do.
fn render(report: &TidyReport, applied: Option<&TidyApplied>, apply: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Tidy: workspace `{}` ({} checkpoints)",
        report.workspace, report.checkpoints
    );
    for p in &report.problems {
        let _ = writeln!(s, "  could not read: {p}");
    }

    let _ = writeln!(
        s,
        "\nNear-duplicates: {}",
        count(report.duplicates.len(), "cluster", "clusters")
    );
    for (n, d) in report.duplicates.iter().enumerate() {
        let _ = writeln!(
            s,
            "  {}. {} checkpoints, words in common ≥ {:.2}",
            n + 1,
            d.members.len(),
            d.similarity
        );
        for m in &d.members {
            let mark = if d.copies_to_forget.contains(&m.id) {
                "exact copy"
            } else {
                ""
            };
            let _ = writeln!(s, "     {mark:>10} {}", line(m));
        }
    }

    let _ = writeln!(
        s,
        "\nDecisions and incidents on one subject, not linked: {}",
        count(report.chains.len(), "chain", "chains")
    );
    for (n, c) in report.chains.iter().enumerate() {
        let _ = writeln!(s, "  {}. newest  {}", n + 1, line(&c.newest));
        for l in &c.older {
            let _ = writeln!(
                s,
                "     older   {} ({} {:.2})",
                line(&l.memory),
                l.by.as_str(),
                l.similarity
            );
        }
    }

    let u = &report.unreturned;
    let heading = format!(
        "\nOlder than {} days and not returned by a recall or hook in {} days",
        report.older_than_days, report.unreturned_days
    );
    match (u.known, u.record_since, u.known_from) {
        (true, _, _) => {
            let _ = writeln!(s, "{heading}: {}", u.memories.len());
            for m in &u.memories {
                let _ = writeln!(s, "     {}", line(m));
            }
        }
        (false, Some(since), Some(from)) => {
            let _ = writeln!(
                s,
                "{heading}: not known yet (returns are recorded since {since}; known from {from})"
            );
        }
        _ => {
            let _ = writeln!(
                s,
                "{heading}: not known yet (no recall or hook has returned a memory of this workspace since returns began to be recorded)"
            );
        }
    }

    let copies: usize = report
        .duplicates
        .iter()
        .map(|d| d.copies_to_forget.len())
        .sum();
    let links: usize = report.chains.iter().map(|c| c.older.len()).sum();
    s.push('\n');
    match applied {
        Some(a) => {
            let _ = writeln!(
                s,
                "Applied: forgot {} (a tombstone each), added {}.",
                count(a.forgotten.forgotten.len(), "exact copy", "exact copies"),
                count(
                    a.linked.iter().map(|l| l.supersedes.len()).sum(),
                    "supersession link",
                    "supersession links"
                )
            );
            for l in &a.linked {
                let _ = writeln!(s, "  {} now supersedes {}", l.id, l.supersedes.join(", "));
            }
            for f in &a.failed {
                let _ = writeln!(s, "  not done: {f}");
            }
        }
        None if apply => {
            let _ = writeln!(s, "Nothing to apply.");
        }
        None if copies + links == 0 => {
            let _ = writeln!(s, "Nothing `--apply` would change.");
        }
        None => {
            let _ = writeln!(
                s,
                "Dry run: nothing changed. `goldfish tidy --apply` would forget {} and add {} (the newest of each chain supersedes the older ones). Near-duplicates that are not exact copies, and unreturned memories, are left for you: `goldfish forget ID`.",
                count(copies, "exact copy", "exact copies"),
                count(links, "supersession link", "supersession links")
            );
        }
    }
    s
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
