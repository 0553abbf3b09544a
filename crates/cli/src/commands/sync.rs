//! `goldfish sync [init|status]`, `goldfish merge-driver` and `goldfish init --in-repo`: clap
//! → one `goldfish_sync` call each, and rendering.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use goldfish_sync::{MergeOutcome, SyncOptions};
use serde_json::json;

use crate::cli::{InitArgs, MergeDriverArgs, SyncArgs, SyncCommand};
use crate::context::Context;
use crate::output::Report;

/// This binary, which git runs as the merge driver.
fn goldfish_binary() -> anyhow::Result<PathBuf> {
    std::env::current_exe().context("cannot find the path of the goldfish binary for git's config")
}

fn paths_json(paths: &[PathBuf]) -> Vec<String> {
    paths.iter().map(|p| p.display().to_string()).collect()
}

/// `goldfish sync`, `goldfish sync init`, `goldfish sync status`.
pub(crate) fn sync(ctx: &Context, a: SyncArgs) -> anyhow::Result<Report> {
    let home = &ctx.home;
    match a.command {
        None => {
            let report = goldfish_sync::sync(home, &SyncOptions::from_env())?;
            let mut text = format!(
                "Synced {}: {} file{} committed, {}, {}",
                home.display(),
                report.committed,
                if report.committed == 1 { "" } else { "s" },
                if report.merged {
                    "remote changes merged"
                } else {
                    "nothing to merge"
                },
                if report.pushed {
                    "pushed"
                } else {
                    "nothing to push"
                },
            );
            if report.attempts > 1 {
                let _ = write!(text, " ({} rounds)", report.attempts);
            }
            // The sync removed memories another machine forgot: the search caches follow.
            let store = ctx.open_store()?;
            for ws in &report.forgotten_in {
                goldfish_recall::index::prune_caches(&store, ws)?;
            }
            if !report.forgotten_in.is_empty() {
                let _ = write!(
                    text,
                    "\nforgotten memories removed (named by a tombstone) in: {}",
                    report.forgotten_in.join(", ")
                );
            }
            for plan in &report.plan_conflicts {
                let _ = write!(
                    text,
                    "\n{}: changed on both sides; both versions are kept between merge-conflict markers (`goldfish plan get` shows it): keep one and `goldfish plan update` it",
                    plan.display()
                );
            }
            Ok(Report::new(
                text,
                json!({
                    "home": home,
                    "committed": report.committed,
                    "merged": report.merged,
                    "pushed": report.pushed,
                    "attempts": report.attempts,
                    "plan_conflicts": paths_json(&report.plan_conflicts),
                    "forgotten_in": report.forgotten_in,
                }),
            ))
        }
        Some(SyncCommand::Init { remote }) => {
            let report = goldfish_sync::init(home, remote.as_deref(), &goldfish_binary()?)?;
            let mut text = if report.created_repository {
                format!("Made {} a git repository that syncs", home.display())
            } else {
                format!("{} is set up to sync", home.display())
            };
            match &report.remote {
                Some(url) => {
                    let _ = write!(text, " with `{url}`; run `goldfish sync`");
                }
                None => text.push_str(
                    "; add a remote with `goldfish sync init --remote URL`, then run `goldfish sync`",
                ),
            }
            Ok(Report::new(
                text,
                json!({
                    "home": home,
                    "created_repository": report.created_repository,
                    "remote": report.remote,
                }),
            ))
        }
        Some(SyncCommand::Status) => {
            let s = goldfish_sync::status(home)?;
            let mut text = format!(
                "{} · branch {} · remote {} · ahead {} · behind {} (as of the last fetch)",
                home.display(),
                s.branch,
                s.remote_url.as_deref().unwrap_or("(none)"),
                s.ahead,
                s.behind
            );
            if s.unsynced.is_empty() {
                text.push_str("\nNothing unsynced.");
            } else {
                let _ = write!(text, "\nUnsynced files ({}):", s.unsynced.len());
                for file in &s.unsynced {
                    let _ = write!(text, "\n  {}", file.display());
                }
            }
            Ok(Report::new(
                text,
                json!({
                    "home": home,
                    "branch": s.branch,
                    "remote": s.remote_url,
                    "ahead": s.ahead,
                    "behind": s.behind,
                    "unsynced": paths_json(&s.unsynced),
                }),
            ))
        }
    }
}

/// `goldfish merge-driver %O %A %B %P`: exit 0 when merged cleanly, 1 when git's conflict
/// markers were written (the reason on stderr).
pub(crate) fn merge_driver(a: MergeDriverArgs) -> anyhow::Result<ExitCode> {
    // `goldfish sync` names the commit it merges in this variable of the `git merge` it runs.
    let theirs_commit = std::env::var(goldfish_sync::MERGE_THEIRS_ENV).ok();
    let outcome = goldfish_sync::run_merge_driver(
        &a.base,
        &a.ours,
        &a.theirs,
        &a.path,
        theirs_commit.as_deref(),
    )?;
    if let MergeOutcome::Conflict { reason } = &outcome {
        crate::output::eprintln_inert!("goldfish merge-driver: {reason}");
    }
    Ok(ExitCode::from(
        u8::try_from(outcome.exit_code()).unwrap_or(1),
    ))
}

/// `goldfish init --in-repo`.
pub(crate) fn init(ctx: &Context, a: InitArgs) -> anyhow::Result<Report> {
    debug_assert!(a.in_repo, "clap requires --in-repo");
    let workspace = ctx.workspace(None)?;
    let root = goldfish_sync::init_in_repo(&ctx.cwd, &workspace, &goldfish_binary()?)?;
    let dir = root.join(&workspace);
    let repo = root.parent().unwrap_or(Path::new("."));
    Ok(Report::new(
        format!(
            "Workspace `{workspace}` now keeps its checkpoints and plans in {} (commit them with your code); the merge driver is registered in this clone (in a fresh clone: `goldfish doctor --fix`)",
            dir.display()
        ),
        json!({
            "workspace": workspace,
            "repository": repo,
            "root": root,
            "directory": dir,
        }),
    ))
}
