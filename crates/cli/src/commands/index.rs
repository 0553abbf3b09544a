//! `goldfish index status|rebuild|verify`: the recall index, one library call each.

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::process::ExitCode;

use goldfish_core::time::format_utc;
use goldfish_recall::{IndexState, IndexStatus, IndexVerify, Scope};

use crate::cli::IndexCommand;
use crate::context::Context;
use crate::output::Report;

/// `goldfish index …`: every workspace, or the one `--workspace` names.
pub(crate) fn run(ctx: &Context, command: IndexCommand) -> anyhow::Result<Report> {
    let store = ctx.open_store()?;
    // `--workspace` names one workspace (a name or a project's path) or `all`.
    let scope = match ctx.workspace {
        Some(_) => ctx.recall_scope(None)?.0,
        None => Scope::All,
    };
    let cwd = Some(ctx.cwd.as_path());
    match command {
        IndexCommand::Status => {
            let status = goldfish_recall::index_status(&store, &scope, cwd)?;
            Ok(Report::new(
                render_status(&status),
                serde_json::to_value(&status)?,
            ))
        }
        IndexCommand::Rebuild => {
            // A progress bar on a terminal only: a pipe or a file gets nothing but the report.
            let tty = std::io::stderr().is_terminal() && !ctx.json;
            let mut bar: Option<indicatif::ProgressBar> = None;
            let mut progress = |done: usize, total: usize, workspace: &str| {
                if !tty {
                    return;
                }
                let bar = bar.get_or_insert_with(|| {
                    let bar = indicatif::ProgressBar::new(total as u64);
                    if let Ok(style) = indicatif::ProgressStyle::with_template(
                        "indexing {bar:30} {pos}/{len} workspaces {msg}",
                    ) {
                        bar.set_style(style);
                    }
                    bar
                });
                bar.set_position(done as u64);
                bar.set_message(workspace.to_string());
                if done == total {
                    bar.finish_and_clear();
                }
            };
            let status = goldfish_recall::index_rebuild(&store, &scope, cwd, &mut progress)?;
            let mut text = render_status(&status);
            let mut json = serde_json::to_value(&status)?;
            // With the embedding model installed: the vectors of entries that have none.
            if let Some(channel) = ctx.semantic() {
                let started = std::time::Instant::now();
                let mut bar: Option<indicatif::ProgressBar> = None;
                let mut progress = |done: usize, total: usize| {
                    if !tty || total == 0 {
                        return;
                    }
                    let bar = bar.get_or_insert_with(|| {
                        let bar = indicatif::ProgressBar::new(total as u64);
                        if let Ok(style) = indicatif::ProgressStyle::with_template(
                            "embedding {bar:30} {pos}/{len} checkpoints ({per_sec}, {eta} left)",
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
                let report =
                    goldfish_recall::embed_vectors(&store, &scope, cwd, &channel, &mut progress)?;
                let secs = started.elapsed().as_secs_f64();
                let _ = write!(
                    text,
                    "\nVectors ({}): {} embedded, {} kept, {} removed",
                    channel.embedder.id(),
                    report.embedded,
                    report.kept,
                    report.removed
                );
                if report.embedded > 0 {
                    let _ = write!(
                        text,
                        " · {:.1} checkpoints/s",
                        report.embedded as f64 / secs.max(1e-9)
                    );
                }
                if report.shared > 0 {
                    let _ = write!(
                        text,
                        " · {} shared (the same text in another workspace)",
                        report.shared
                    );
                }
                if report.unreadable > 0 {
                    let _ = write!(text, " · {} unreadable", report.unreadable);
                }
                json["vectors"] = serde_json::to_value(&report)?;
                json["vectors"]["model"] = channel.embedder.id().into();
                json["vectors"]["seconds"] = secs.into();
            }
            Ok(Report::new(text, json))
        }
        IndexCommand::Verify => {
            let verify = goldfish_recall::index_verify(&store, &scope, cwd)?;
            let code = if verify.ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
            Ok(Report::new(render_verify(&verify), serde_json::to_value(&verify)?).with_code(code))
        }
    }
}

fn render_status(s: &IndexStatus) -> String {
    let mut out = format!(
        "Recall index in {}: {} checkpoints, {} bytes\n",
        s.dir.display(),
        s.entries,
        s.bytes
    );
    for w in &s.workspaces {
        let state = match &w.state {
            IndexState::Fresh => "fresh".to_string(),
            IndexState::Stale { changed } => format!("stale ({} day files changed)", changed.len()),
            IndexState::Missing => "missing (the next search builds it)".to_string(),
            IndexState::Empty => "no day files, nothing to index".to_string(),
            IndexState::Unusable { reason } => format!("unusable: {reason}"),
            _ => "unknown".to_string(),
        };
        let _ = write!(
            out,
            "  {}: {state} · {} checkpoints in {} day files · {} bytes",
            w.workspace, w.entries, w.files, w.bytes
        );
        if let Some(built) = &w.built {
            let _ = write!(out, " · built {}", format_utc(built));
        }
        out.push('\n');
        if let IndexState::Stale { changed } = &w.state {
            for f in changed {
                let _ = writeln!(out, "    {f}");
            }
        }
    }
    out
}

fn render_verify(v: &IndexVerify) -> String {
    let mut out = String::new();
    for w in &v.workspaces {
        if w.ok {
            let _ = writeln!(out, "  {}: agrees with its day files", w.workspace);
        } else {
            let _ = writeln!(out, "  {}: DISAGREES", w.workspace);
            for d in &w.differences {
                let _ = writeln!(out, "    {d}");
            }
        }
    }
    let verdict = if v.ok {
        "The recall index agrees with the day files."
    } else {
        "The recall index disagrees with the day files (`goldfish index rebuild` fixes it; any search would too)."
    };
    format!("{verdict}\n{out}")
}
