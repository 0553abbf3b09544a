//! Forgetting as a person or agent asks for it: the store takes the memory out of its files
//! and leaves a tombstone, then the caches that held its text follow (the workspace's search
//! index is rebuilt, its vectors pruned). The CLI's `forget` and `plan delete`, and the MCP
//! tools, call these; after a sync that removed forgotten memories, the CLI calls
//! [`index::prune_caches`](crate::index::prune_caches) for each workspace it names.

use std::collections::BTreeSet;

use goldfish_store::{ForgetReport, Store};

use crate::error::Error;

/// Forgets the checkpoints `ids` ([`Store::forget_checkpoints`]: each looked for in
/// `workspace` first, then everywhere; all resolved before anything is written), then prunes
/// the caches of every workspace touched, so that no search, hook or vector keeps the text.
/// `by` names who forgot (kept in the tombstone). With `dry_run`, nothing is written.
pub fn forget(
    store: &Store,
    ids: &[String],
    workspace: Option<&str>,
    by: &str,
    dry_run: bool,
) -> Result<ForgetReport, Error> {
    let report = store.forget_checkpoints(ids, workspace, by, dry_run)?;
    if !dry_run {
        let touched: BTreeSet<&str> = report
            .forgotten
            .iter()
            .map(|m| m.workspace.as_str())
            .collect();
        for ws in touched {
            crate::index::prune_caches(store, ws)?;
        }
    }
    Ok(report)
}

/// Deletes plan `id` of `workspace` for good ([`Store::forget_plan`]: the file goes and a
/// tombstone keeps it from coming back by sync or import). Plans are not indexed: no cache
/// to prune.
pub fn forget_plan(
    store: &Store,
    workspace: &str,
    id: &str,
    by: &str,
    dry_run: bool,
) -> Result<ForgetReport, Error> {
    Ok(store.forget_plan(workspace, id, by, dry_run)?)
}
