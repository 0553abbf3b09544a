//! One function per subcommand: call a library, build a [`Report`](crate::output::Report).

mod journal;
mod memory;
mod notes;
mod plan;
mod recall_backend;
mod signal;

use goldfish_store::Store;

use crate::context::Context;

pub(crate) use journal::run as journal;
pub(crate) use memory::{checkpoint, mcp_checkpoint, mcp_recall, mcp_standup, recall, standup};
pub(crate) use notes::run as notes;
pub(crate) use plan::{mcp as mcp_plan, run as plan, status_markdown as mcp_plan_status};
pub(crate) use signal::{pipeline, signal};

/// The store at `--home` / `GOLDFISH_HOME` / `~/.goldfish`.
pub(crate) fn open_store(ctx: &Context) -> anyhow::Result<Store> {
    Ok(Store::open(&ctx.home)?)
}

/// The workspace: `explicit`, else `--workspace` / `GOLDFISH_WORKSPACE`, else detected from
/// the current directory. Names are validated (`../x` is refused) and normalised.
pub(crate) fn resolve_workspace(ctx: &Context, explicit: Option<&str>) -> anyhow::Result<String> {
    let explicit = explicit
        .map(str::trim)
        .filter(|w| !w.is_empty() && *w != "current");
    let given = explicit.or(ctx.workspace.as_deref());
    Ok(goldfish_store::resolve_workspace(given, &ctx.cwd)?)
}
