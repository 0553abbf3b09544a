//! The MCP server's resources: the same memory as the tools, addressed by URI, for clients
//! that attach context themselves.
//!
//! - `goldfish://{workspace}/plan`: the workspace's active plan;
//! - `goldfish://{workspace}/checkpoints`: its recent checkpoints (recall's summary view);
//! - `goldfish://{workspace}/plans/{id}`: one plan (a template).
//!
//! The list names every workspace of the store (and the current one), each with its recent
//! checkpoints, and its active plan when it has one.
//!
//! A client may subscribe to the two kinds the list gives, `…/plan` and `…/checkpoints`, of
//! any workspace (a plan resource before the workspace has an active plan included: that is
//! when its change matters). [`changed_by`] says which of them a file of the store touches.

use std::path::{Component, Path};

use goldfish_recall::{FormatOptions, RecallOptions, Scope};
use rmcp::ErrorData as McpError;
use rmcp::model::{Resource, ResourceTemplate};

use crate::context::Context;
use crate::render::plan_markdown;
use goldfish_store::{CHECKPOINTS_DIR, day_file_workspace};

/// The URI scheme.
const SCHEME: &str = "goldfish://";

/// The resources of every workspace in the store.
pub(crate) fn list(ctx: &Context) -> anyhow::Result<Vec<Resource>> {
    let store = ctx.open_store()?;
    let mut workspaces = store.list_workspaces()?;
    if let Ok(current) = ctx.workspace(None)
        && !workspaces.contains(&current)
    {
        workspaces.insert(0, current);
    }
    let mut out = Vec::new();
    for ws in workspaces {
        if let Ok(Some(plan)) = store.active_plan(&ws) {
            out.push(
                Resource::new(plan_uri(&ws), format!("{ws}: active plan"))
                    .with_title(format!("Active plan of {ws}: {}", plan.title))
                    .with_description("The workspace's active plan and its progress.")
                    .with_mime_type("text/markdown"),
            );
        }
        out.push(
            Resource::new(checkpoints_uri(&ws), format!("{ws}: recent checkpoints"))
                .with_title(format!("Recent checkpoints of {ws}"))
                .with_description("The workspace's checkpoints of the last two days, newest first.")
                .with_mime_type("text/markdown"),
        );
    }
    Ok(out)
}

/// The resource templates.
pub(crate) fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(format!("{SCHEME}{{workspace}}/plans/{{id}}"), "plan")
            .with_title("A plan")
            .with_description("One plan of a workspace, by id.")
            .with_mime_type("text/markdown"),
        ResourceTemplate::new(format!("{SCHEME}{{workspace}}/plan"), "active-plan")
            .with_title("A workspace's active plan")
            .with_mime_type("text/markdown"),
        ResourceTemplate::new(format!("{SCHEME}{{workspace}}/checkpoints"), "checkpoints")
            .with_title("A workspace's recent checkpoints")
            .with_mime_type("text/markdown"),
    ]
}

/// The URI of a workspace's active plan.
fn plan_uri(ws: &str) -> String {
    format!("{SCHEME}{ws}/plan")
}

/// The URI of a workspace's recent checkpoints.
fn checkpoints_uri(ws: &str) -> String {
    format!("{SCHEME}{ws}/checkpoints")
}

/// The URI `resources/subscribe` and `resources/unsubscribe` keep for `uri`: a plan or
/// checkpoints resource, its workspace checked and named as the store names it. A URI that
/// names no such resource (another scheme, a plan by id) is accepted as it is, as the
/// protocol lets a client subscribe to what does not exist yet, but no update will come for
/// it: the client is told so at `warning` level. A goldfish URI whose workspace cannot be a
/// workspace (`goldfish://../checkpoints`) is an error naming it.
pub(crate) fn subscribable(ctx: &Context, uri: &str) -> Result<String, McpError> {
    let never = |why: &str| {
        super::outgoing::to_client(
            super::outgoing::Level::Warning,
            format!(
                "subscribed to `{uri}`, but {why}: no update will come for it; goldfish sends \
                 updates for goldfish://WORKSPACE/plan and goldfish://WORKSPACE/checkpoints"
            ),
        );
        Ok(uri.to_string())
    };
    let Some(rest) = uri.strip_prefix(SCHEME) else {
        return never("it is not a goldfish resource");
    };
    let (ws, kind) = match rest.split('/').collect::<Vec<_>>().as_slice() {
        [ws, kind @ ("plan" | "checkpoints")] => (ws.to_string(), *kind),
        _ => return never("goldfish sends no update for it"),
    };
    let ws = ctx.workspace(Some(&ws)).map_err(|e| {
        McpError::invalid_params(format!("cannot subscribe to `{uri}`: {e:#}"), None)
    })?;
    Ok(if kind == "plan" {
        plan_uri(&ws)
    } else {
        checkpoints_uri(&ws)
    })
}

/// The subscribable resources that a change of the file at `path` in the store at `root`
/// may have changed: a day file changes its workspace's checkpoints; a plan file or the
/// active-plan marker its plan, and its checkpoints too (that view shows the active plan).
/// Any plan's file counts, active or not: a client told of a change that was none reads the
/// resource again and finds it the same, while one never told keeps a stale copy.
pub(crate) fn changed_by(root: &Path, path: &Path) -> Vec<String> {
    if let Some(ws) = day_file_workspace(root, path) {
        return vec![checkpoints_uri(&ws)];
    }
    let Ok(rel) = path.strip_prefix(root) else {
        return Vec::new();
    };
    let mut parts = rel.components();
    let (Some(Component::Normal(ws)), Some(Component::Normal(entry))) =
        (parts.next(), parts.next())
    else {
        return Vec::new();
    };
    let Some(ws) = ws.to_str().filter(|ws| !ws.starts_with('.')) else {
        return Vec::new();
    };
    let entry = entry.to_string_lossy();
    // `.active-plan` is replaced through a temporary file beside it (`..active-plan.….tmp`).
    if entry == "plans" || entry.trim_start_matches('.').starts_with("active-plan") {
        vec![checkpoints_uri(ws), plan_uri(ws)]
    } else {
        debug_assert_ne!(entry, CHECKPOINTS_DIR, "day_file_workspace handles it");
        Vec::new()
    }
}

/// The markdown of the resource at `uri`.
pub(crate) fn read(ctx: &Context, uri: &str) -> Result<String, McpError> {
    let not_found = || {
        McpError::resource_not_found(
            format!(
                "no goldfish resource `{uri}`: use goldfish://WORKSPACE/plan, \
                 goldfish://WORKSPACE/checkpoints or goldfish://WORKSPACE/plans/ID"
            ),
            None,
        )
    };
    let rest = uri.strip_prefix(SCHEME).ok_or_else(not_found)?;
    let parts: Vec<&str> = rest.split('/').collect();
    let failed = |e: anyhow::Error| McpError::resource_not_found(format!("{uri}: {e:#}"), None);
    let store = ctx.open_store().map_err(failed)?;
    match parts.as_slice() {
        [ws, "plan"] => {
            let ws = ctx.workspace(Some(ws)).map_err(failed)?;
            match store.active_plan(&ws).map_err(|e| failed(e.into()))? {
                Some(plan) => Ok(plan_markdown(&plan, true)),
                None => Ok(format!("Workspace `{ws}` has no active plan.")),
            }
        }
        [ws, "checkpoints"] => {
            let ws = ctx.workspace(Some(ws)).map_err(failed)?;
            let mut o = RecallOptions::from_env();
            o.workspace = Scope::Named(ws);
            o.cwd = Some(ctx.cwd.clone());
            let result = goldfish_recall::recall(&store, &o).map_err(|e| failed(e.into()))?;
            Ok(goldfish_recall::format_recall(
                &result,
                &FormatOptions::default(),
            ))
        }
        [ws, "plans", id] if !id.is_empty() => {
            let ws = ctx.workspace(Some(ws)).map_err(failed)?;
            let plan = store.get_plan(&ws, id).map_err(|e| failed(e.into()))?;
            let active = store
                .active_plan(&ws)
                .ok()
                .flatten()
                .is_some_and(|a| a.id == plan.id);
            Ok(plan_markdown(&plan, active))
        }
        _ => Err(not_found()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_files_name_the_resources_they_change() {
        let root = Path::new("/store");
        let cases: &[(&str, &[&str])] = &[
            (
                "/store/web/checkpoints/2026-01-02.md",
                &["goldfish://web/checkpoints"],
            ),
            (
                "/store/web/checkpoints/.2026-01-02.md.123-a-0.tmp",
                &["goldfish://web/checkpoints"],
            ),
            (
                "/store/web/plans/auth.md",
                &["goldfish://web/checkpoints", "goldfish://web/plan"],
            ),
            (
                "/store/web/plans",
                &["goldfish://web/checkpoints", "goldfish://web/plan"],
            ),
            (
                "/store/web/.active-plan",
                &["goldfish://web/checkpoints", "goldfish://web/plan"],
            ),
            (
                "/store/web/..active-plan.7-a-0.tmp",
                &["goldfish://web/checkpoints", "goldfish://web/plan"],
            ),
            ("/store/web", &[]),
            ("/store/web/notes.md", &[]),
            ("/store/.index/web.gfv", &[]),
            ("/store/.index/plans/x.md", &[]),
            ("/elsewhere/web/plans/auth.md", &[]),
        ];
        for (path, want) in cases {
            assert_eq!(changed_by(root, Path::new(path)), *want, "{path}");
        }
    }
}
