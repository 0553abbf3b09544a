//! `goldfish import` and `goldfish export`: clap → the import library, and rendering.

use std::fmt::Write as _;
use std::io::{IsTerminal as _, Write as _};

use std::process::ExitCode;

use goldfish_import::{ImportOptions, ImportReport};
use serde_json::json;

use crate::cli::{ExportArgs, ImportArgs, ImportSource};
use crate::context::Context;
use crate::output::Report;

/// `goldfish import KIND PATH`.
pub(crate) fn import(ctx: &Context, a: ImportArgs) -> anyhow::Result<Report> {
    let (kind, path) = match &a.source {
        ImportSource::GoldfishMemories { path } => ("goldfish-memories", path),
        ImportSource::Tusk { path } => ("tusk", path),
        ImportSource::GoldfishV4 { path } => ("goldfish-v4", path),
        ImportSource::Jsonl { path } => ("jsonl", path),
    };
    let batch = match kind {
        "goldfish-memories" => goldfish_import::memories_batch(path)?,
        "tusk" => goldfish_import::tusk_batch(path)?,
        "goldfish-v4" => goldfish_import::v4_batch(path)?,
        _ => goldfish_import::jsonl_batch(path)?,
    };
    let mut opts = ImportOptions::default();
    opts.dry_run = a.dry_run;
    opts.resurrect = a.resurrect;
    let store = ctx.open_store()?;
    // A progress bar on a terminal only: a pipe or a file gets nothing but the report.
    let tty = std::io::stderr().is_terminal() && !ctx.json;
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut progress = |done: usize, total: usize| {
        if !tty {
            return;
        }
        let bar = bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "importing {bar:30} {pos}/{len} records ({eta} left)",
            ) {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(done as u64);
        if done == total {
            bar.finish_and_clear();
        }
    };
    let report = goldfish_import::apply(&store, batch, &opts, &mut progress);
    let code = if report.skipped_anything() || !report.verified() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    };
    Ok(Report::new(render(kind, &report), report_json(kind, &report)).with_code(code))
}

fn render(kind: &str, r: &ImportReport) -> String {
    let mut s = String::new();
    let verb = if r.dry_run {
        "Would import"
    } else {
        "Imported"
    };
    let _ = writeln!(s, "{verb} from {} ({kind}):", r.source.display());
    if r.workspaces.is_empty() {
        let _ = writeln!(s, "  nothing to import");
    }
    for w in &r.workspaces {
        if r.dry_run {
            let _ = writeln!(
                s,
                "  {}: {} checkpoint(s), {} plan(s)",
                w.workspace, w.checkpoints, w.plans
            );
        } else {
            let _ = writeln!(
                s,
                "  {}: {} checkpoint(s) ({} new, {} already there), {} plan(s) ({} new, {} already there); in the store now: {}/{} checkpoints, {}/{} plans",
                w.workspace,
                w.checkpoints,
                w.checkpoints_added,
                w.checkpoints_present,
                w.plans,
                w.plans_added,
                w.plans_present,
                w.verified_checkpoints.unwrap_or(0),
                w.checkpoints - w.checkpoints_forgotten,
                w.verified_plans.unwrap_or(0),
                w.plans - w.plans_forgotten,
            );
        }
    }
    let forgotten: usize = r
        .workspaces
        .iter()
        .map(|w| w.checkpoints_forgotten + w.plans_forgotten)
        .sum();
    if forgotten > 0 {
        let _ = writeln!(
            s,
            "  {forgotten} record(s) not written: they were forgotten on purpose (`--resurrect` brings them back)"
        );
    }
    if let Some(line) = crate::render::redacted_line(&r.redactions()) {
        let _ = writeln!(s, "  {line}, in {} record(s)", r.redacted.len());
    }
    if !r.adjusted.is_empty() {
        let _ = writeln!(s, "Changed to fit, kept ({}):", r.adjusted.len());
        for p in &r.adjusted {
            let _ = writeln!(s, "  {p}");
        }
    }
    if !r.problems.is_empty() {
        let _ = writeln!(s, "Skipped or left out ({}):", r.problems.len());
        for p in &r.problems {
            let _ = writeln!(s, "  {p}");
        }
    }
    if !r.verified() {
        let _ = writeln!(
            s,
            "The store does not hold everything that was imported: see above."
        );
    }
    s
}

fn report_json(kind: &str, r: &ImportReport) -> serde_json::Value {
    json!({
        "source": r.source,
        "kind": kind,
        "dry_run": r.dry_run,
        "workspaces": r.workspaces,
        "problems": r.problems.iter().map(|p| json!({
            "path": p.path(),
            "line": p.line(),
            "row": p.row().map(|(t, id)| json!({"table": t, "rowid": id})),
            "message": p.message(),
        })).collect::<Vec<_>>(),
        "adjusted": r.adjusted.iter().map(|p| json!({
            "path": p.path(),
            "line": p.line(),
            "row": p.row().map(|(t, id)| json!({"table": t, "rowid": id})),
            "message": p.message(),
        })).collect::<Vec<_>>(),
        "redacted": r.redacted,
        "verified": r.verified(),
    })
}

/// `goldfish export`: JSON Lines on stdout; problems on stderr (exit 1 when any).
pub(crate) fn export(ctx: &Context, _a: ExportArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.open_store()?;
    let workspaces = match &ctx.workspace {
        None | Some(goldfish_store::WorkspaceSelector::All) => Vec::new(),
        Some(_) => vec![ctx.workspace(None)?],
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (_, problems) = goldfish_import::export_jsonl(&store, &workspaces, &mut out)?;
    out.flush()?;
    for p in &problems {
        crate::output::eprintln_inert!("goldfish: skipped: {p}");
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
