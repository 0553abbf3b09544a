//! Freshness at the edge: which git repository a recall's hits belong to, and the one `git log`
//! that says whether their files changed since (see [`goldfish_store::git_freshness`]).

use std::path::PathBuf;

use goldfish_recall::RecallResult;
use goldfish_store::{FreshnessFilter, WorkspaceSource};

use crate::context::Context;

/// How many hits a recall with `--stale` or `--fresh` checks before the filter keeps its
/// limit's worth of them.
pub(crate) const FILTER_POOL: usize = 200;

/// The limit to recall with: `limit` itself, or [`FILTER_POOL`] (at least `limit`) when a
/// filter will drop some of the hits.
pub(crate) fn pool_limit(limit: usize, filter: FreshnessFilter) -> usize {
    if filter == FreshnessFilter::Any || limit == 0 {
        limit
    } else {
        limit.max(FILTER_POOL)
    }
}

/// The workspace whose project directory is known, and that directory: the one a path or the
/// MCP client's root names, else the project around the working directory. The store records
/// no workspace's directory, so another workspace's repository is not known.
pub(crate) fn known_project(ctx: &Context) -> Option<(String, PathBuf)> {
    let with_dir = |choice: goldfish_store::WorkspaceChoice| match choice.source {
        WorkspaceSource::Path(dir)
        | WorkspaceSource::ClientRoot(dir)
        | WorkspaceSource::Project(dir) => Some((choice.name, dir)),
        _ => None,
    };
    if let Some(found) = ctx.choose_workspace(None).ok().and_then(with_dir) {
        return Some(found);
    }
    let mut query = goldfish_store::WorkspaceQuery::default();
    query.dir = ctx.cwd.clone();
    query.dir_is_client_root = ctx.cwd_is_client_root;
    query.user_home = ctx.user_home.clone();
    goldfish_store::choose_workspace(&query)
        .ok()
        .and_then(with_dir)
}

/// The git repository (its directory) of `workspace`, when it is the known project's.
pub(crate) fn repository_of(ctx: &Context, workspace: &str) -> Option<PathBuf> {
    known_project(ctx)
        .filter(|(name, _)| name == workspace)
        .map(|(_, dir)| dir)
}

/// Says, for each hit of the known project's workspace that names files and a commit, whether
/// those files changed since (one git process at most; none when no hit asks), then keeps
/// what `filter` keeps and the first `limit` of it. Never fails: what cannot be known is no
/// claim.
pub(crate) fn annotate(
    ctx: &Context,
    result: &mut RecallResult,
    filter: FreshnessFilter,
    limit: usize,
) {
    let asks = |c: &goldfish_store::Checkpoint| c.commit.is_some() && !c.files.is_empty();
    let claims = match result.checkpoints().any(asks).then(|| known_project(ctx)) {
        Some(Some((workspace, dir))) => goldfish_store::checkpoint_freshness(
            &dir,
            &workspace,
            result.checkpoints(),
            goldfish_store::FRESHNESS_TIMEOUT,
        ),
        _ => Vec::new(),
    };
    result.set_freshness(claims, filter, limit);
}
