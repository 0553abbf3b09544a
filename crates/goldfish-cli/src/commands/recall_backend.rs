//! Recall and standup: argument mapping onto `goldfish_recall`, and its formatters.

use goldfish_recall::{
    FormatOptions, RecallOptions, RecallResult, StandupOptions, format_recall, format_standup,
};
use serde_json::{Value, json};

use super::memory::checkpoint_json;
use super::open_store;
use super::plan::plan_json;
use crate::context::Context;

/// The CLI's character budget: people read in a terminal, nothing is worth cutting.
pub(crate) const CLI_BUDGET: usize = 10_000_000;

/// What to recall (the MCP tool's and the CLI's options).
#[derive(Debug, Default)]
pub(crate) struct Request {
    pub(crate) workspace: Option<String>,
    pub(crate) days: Option<u64>,
    pub(crate) since: Option<String>,
    pub(crate) from: Option<String>,
    pub(crate) to: Option<String>,
    pub(crate) search: Option<String>,
    pub(crate) limit: Option<u64>,
    pub(crate) full: bool,
}

/// Runs a recall. `workspace` is a name, `current` (the default) or `all`.
pub(crate) fn recall(ctx: &Context, req: &Request) -> anyhow::Result<RecallResult> {
    let store = open_store(ctx)?;
    let mut o = RecallOptions::default();
    o.workspace = match req.workspace.as_deref().map(str::trim) {
        Some(w) if w.eq_ignore_ascii_case("all") => "all".to_string(),
        other => super::resolve_workspace(ctx, other)?,
    };
    if let Some(days) = req.days {
        o.days = u32::try_from(days).unwrap_or(u32::MAX);
    }
    o.since = req.since.clone().filter(|s| !s.trim().is_empty());
    o.from = req.from.clone().filter(|s| !s.trim().is_empty());
    o.to = req.to.clone().filter(|s| !s.trim().is_empty());
    o.search = req.search.clone().filter(|s| !s.trim().is_empty());
    if let Some(limit) = req.limit {
        o.limit = usize::try_from(limit).unwrap_or(usize::MAX);
    }
    o.full = req.full;
    o.cwd = Some(ctx.cwd.clone());
    Ok(goldfish_recall::recall(&store, &o)?)
}

/// Formats a recall as markdown within `max_chars` characters.
pub(crate) fn markdown(result: &RecallResult, max_chars: usize) -> String {
    let mut f = FormatOptions::default();
    f.max_chars = max_chars;
    format_recall(result, &f)
}

/// `recall --json`: `checkpoints`, `active_plan`, `workspaces` (for `all`), `skipped`.
pub(crate) fn json(r: &RecallResult) -> Value {
    let all = r.scope == "all";
    json!({
        "workspace": r.scope,
        "window": r.window,
        "search": r.search,
        "total": r.total,
        "checkpoints": r.checkpoints.iter().map(checkpoint_json).collect::<Vec<_>>(),
        "active_plan": r.active_plan.as_ref().map(plan_json),
        "workspaces": if all { serde_json::to_value(&r.workspaces).unwrap_or(Value::Null) } else { Value::Null },
        "skipped": serde_json::to_value(&r.skipped).unwrap_or(Value::Null),
    })
}

/// The standup across every workspace, as markdown within `max_chars` and as JSON.
pub(crate) fn standup(
    ctx: &Context,
    days: Option<u64>,
    max_chars: usize,
) -> anyhow::Result<(String, Value)> {
    let store = open_store(ctx)?;
    let mut o = StandupOptions::default();
    if let Some(days) = days {
        o.days = u32::try_from(days).unwrap_or(u32::MAX);
    }
    let s = goldfish_recall::standup_with(&store, &o)?;
    let mut f = FormatOptions::default();
    f.max_chars = max_chars;
    Ok((format_standup(&s, &f), serde_json::to_value(&s)?))
}
