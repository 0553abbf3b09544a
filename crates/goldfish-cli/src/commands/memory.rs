//! `goldfish checkpoint`, `recall`, `standup` and the `checkpoint`/`recall` MCP tools.

use std::fmt::Write as _;

use goldfish_store::{Checkpoint, CheckpointInput, detect_workspace};
use notes_core::time::format_utc;
use serde_json::{Value, json};

use goldfish_recall::FormatOptions;

use super::recall_backend::{self, CLI_BUDGET, Request};
use super::{open_store, resolve_workspace};
use crate::args::stdin_if_dash;
use crate::cli::{CheckpointArgs, RecallArgs, StandupArgs};
use crate::context::Context;
use crate::mcp::{CheckpointParams, RecallParams};
use crate::output::Report;

/// A checkpoint as JSON: the fields scripts rely on, timestamps in goldfish's UTC format.
pub(crate) fn checkpoint_json(c: &Checkpoint) -> Value {
    json!({
        "id": c.id,
        "timestamp": format_utc(&c.timestamp),
        "workspace": c.workspace,
        "description": c.description,
        "tags": c.tags,
        "branch": c.branch,
        "commit": c.commit,
        "files": c.files,
        "files_omitted": c.files_omitted,
    })
}

/// `goldfish checkpoint`.
pub(crate) fn checkpoint(ctx: &Context, a: CheckpointArgs) -> anyhow::Result<Report> {
    let description = stdin_if_dash(a.description)?;
    let ws = resolve_workspace(ctx, None)?;
    let mut input = CheckpointInput::new(description);
    input.tags = a.tags;
    input.workspace = Some(ws);
    input.git_dir = Some(ctx.cwd.clone());
    let saved = open_store(ctx)?.save_checkpoint(input)?;
    let mut text = format!(
        "Checkpoint saved: {}\n  id {} · workspace {} · {}",
        saved.title(),
        saved.id,
        saved.workspace,
        format_utc(&saved.timestamp)
    );
    if let Some(branch) = &saved.branch {
        let _ = write!(text, " · {branch}");
        if let Some(commit) = &saved.commit {
            let _ = write!(text, "@{commit}");
        }
    }
    Ok(Report::new(text, checkpoint_json(&saved)))
}

/// The `checkpoint` MCP tool.
pub(crate) fn mcp_checkpoint(ctx: &Context, p: CheckpointParams) -> anyhow::Result<String> {
    let ws = resolve_workspace(ctx, p.workspace.as_deref())?;
    let mut input = CheckpointInput::new(p.description);
    input.tags = p.tags;
    // The server's directory is the project the client runs in; its git context belongs to a
    // checkpoint of that project only, not to one filed under another workspace.
    if detect_workspace(&ctx.cwd) == ws {
        input.git_dir = Some(ctx.cwd.clone());
    }
    input.workspace = Some(ws);
    let saved = open_store(ctx)?.save_checkpoint(input)?;
    let mut s = format!("Checkpoint saved: {}", saved.title());
    let _ = write!(
        s,
        "\n(workspace `{}`, {}",
        saved.workspace,
        format_utc(&saved.timestamp)
    );
    if !saved.tags.is_empty() {
        let _ = write!(s, ", tags: {}", saved.tags.join(", "));
    }
    if let Some(branch) = &saved.branch {
        let _ = write!(s, ", branch {branch}");
    }
    s.push(')');
    Ok(s)
}

/// `goldfish recall`.
pub(crate) fn recall(ctx: &Context, a: RecallArgs) -> anyhow::Result<Report> {
    let req = Request {
        workspace: ctx.workspace.clone(),
        days: a.days.map(u64::from),
        since: a.since,
        from: a.from,
        to: a.to,
        search: a.search,
        limit: a.limit.map(|l| u64::try_from(l).unwrap_or(u64::MAX)),
        full: a.full,
    };
    let result = recall_backend::recall(ctx, &req)?;
    Ok(Report::new(
        recall_backend::markdown(&result, CLI_BUDGET),
        recall_backend::json(&result),
    ))
}

/// The `recall` MCP tool: compact markdown within recall's default character budget.
pub(crate) fn mcp_recall(ctx: &Context, p: RecallParams) -> anyhow::Result<String> {
    let req = Request {
        workspace: p.workspace.or_else(|| ctx.workspace.clone()),
        days: p.days,
        since: p.since,
        from: p.from,
        to: p.to,
        search: p.search,
        limit: p.limit,
        full: p.full.unwrap_or(false),
    };
    let result = recall_backend::recall(ctx, &req)?;
    Ok(recall_backend::markdown(
        &result,
        FormatOptions::default().max_chars,
    ))
}

/// `goldfish standup`.
pub(crate) fn standup(ctx: &Context, a: StandupArgs) -> anyhow::Result<Report> {
    let (text, json) = recall_backend::standup(ctx, a.days.map(u64::from), CLI_BUDGET)?;
    Ok(Report::new(text, json))
}

/// The standup as markdown, for the `standup` MCP prompt.
pub(crate) fn mcp_standup(ctx: &Context, days: Option<u64>) -> anyhow::Result<String> {
    recall_backend::standup(ctx, days, FormatOptions::default().max_chars).map(|(text, _)| text)
}
