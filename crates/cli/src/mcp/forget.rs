//! The `forget` tool: checkpoints (by id) or a plan taken out of memory for good, through the
//! same library calls as `goldfish forget` and `goldfish plan delete`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::replies::Reply;
use crate::context::Context;

/// The `forget` tool's description.
pub(crate) const FORGET_DESCRIPTION: &str = "\
Forget memories for good: checkpoints by id (recall lists the ids) or one plan by id.
Use it only when the user asks to delete a memory, or when a memory is wrong, was saved in
the wrong workspace, or holds something that must not be kept. To correct a memory that is
merely out of date, save a new checkpoint that `supersedes` it instead.

The memory leaves the store's files, the search index and the vectors, on every machine
that syncs; a tombstone (id, time, who; never the text) keeps it from coming back.
Pass `dry_run: true` to see what would go. An unknown id forgets nothing.";

/// Arguments of the `forget` tool.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ForgetParams {
    /// Ids of the checkpoints to forget, as recall lists them. Looked for in `workspace`
    /// first, then in every workspace.
    #[serde(default, deserialize_with = "crate::args::string_list")]
    pub(crate) ids: Vec<String>,
    /// The id of a plan of `workspace` to delete for good.
    #[serde(default)]
    pub(crate) plan: Option<String>,
    /// The workspace: a name, or the project's absolute path (default: the current project).
    #[serde(default)]
    pub(crate) workspace: Option<String>,
    /// Show what would be forgotten, and write nothing.
    #[serde(default, deserialize_with = "crate::args::opt_bool")]
    pub(crate) dry_run: Option<bool>,
}

/// The `forget` tool's structured reply.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ForgetOut {
    /// Nothing was written: this is what would go.
    pub(crate) dry_run: bool,
    /// The memories forgotten (or that would be).
    pub(crate) forgotten: Vec<ForgottenOut>,
    /// Ids asked for that were already forgotten.
    pub(crate) already_forgotten: Vec<String>,
}

/// One forgotten memory.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ForgottenOut {
    /// `checkpoint` or `plan`.
    pub(crate) kind: String,
    /// Its id.
    pub(crate) id: String,
    /// Its workspace.
    pub(crate) workspace: String,
    /// Its title, as it was stored.
    pub(crate) title: String,
}

/// The `forget` tool: one library call (`goldfish_recall::forget` or `forget_plan`) and the
/// reply the CLI renders too.
pub(super) fn forget_tool(ctx: &Context, p: ForgetParams, by: &str) -> anyhow::Result<Reply> {
    let dry_run = p.dry_run.unwrap_or(false);
    let store = ctx.open_store()?;
    let report = match (&p.plan, p.ids.is_empty()) {
        (Some(_), false) => {
            anyhow::bail!(
                "give either `ids` (checkpoints) or `plan`, not both: one call forgets one kind"
            )
        }
        (None, true) => {
            anyhow::bail!("give `ids` (checkpoint ids, as recall lists them) or `plan` (a plan id)")
        }
        (Some(plan), true) => {
            let workspace = ctx.workspace_to_write(p.workspace.as_deref())?;
            goldfish_recall::forget_plan(&store, &workspace, plan, by, dry_run)?
        }
        (None, false) => {
            let preferred = ctx.workspace(p.workspace.as_deref()).ok();
            goldfish_recall::forget(&store, &p.ids, preferred.as_deref(), by, dry_run)?
        }
    };
    let out = ForgetOut {
        dry_run: report.dry_run,
        forgotten: report
            .forgotten
            .iter()
            .map(|m| ForgottenOut {
                kind: m.tombstone.what.kind().into(),
                id: m.tombstone.what.id().to_string(),
                workspace: m.workspace.clone(),
                title: crate::render::echo(&m.title),
            })
            .collect(),
        already_forgotten: report.already_forgotten.clone(),
    };
    Reply::new(crate::render::forget_text(&report), &out)
}
