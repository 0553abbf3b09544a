//! The MCP server's resources: the same memory as the tools, addressed by URI, for clients
//! that attach context themselves.
//!
//! - `goldfish://{workspace}/plan`: the workspace's active plan;
//! - `goldfish://{workspace}/checkpoints`: its recent checkpoints (recall's summary view);
//! - `goldfish://{workspace}/plans/{id}`: one plan (a template).
//!
//! The list names every workspace of the store (and the current one), each with its recent
//! checkpoints, and its active plan when it has one.

use goldfish_recall::{FormatOptions, RecallOptions, Scope};
use rmcp::ErrorData as McpError;
use rmcp::model::{Resource, ResourceTemplate};

use crate::context::Context;
use crate::render::plan_markdown;

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
                Resource::new(format!("{SCHEME}{ws}/plan"), format!("{ws}: active plan"))
                    .with_title(format!("Active plan of {ws}: {}", plan.title))
                    .with_description("The workspace's active plan and its progress.")
                    .with_mime_type("text/markdown"),
            );
        }
        out.push(
            Resource::new(
                format!("{SCHEME}{ws}/checkpoints"),
                format!("{ws}: recent checkpoints"),
            )
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
