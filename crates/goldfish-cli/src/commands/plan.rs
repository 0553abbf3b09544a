//! `goldfish plan …` and the `plan` MCP tool, over `goldfish_store`.

use std::fmt::Write as _;
use std::str::FromStr as _;

use anyhow::{Context as _, bail};
use goldfish_store::{Plan, PlanInput, PlanStatus, PlanUpdate, Store};
use notes_core::time::format_utc;
use serde_json::{Value, json};

use super::{open_store, resolve_workspace};
use crate::args::stdin_if_dash;
use crate::cli::{PlanCommand, PlanSaveArgs, PlanUpdateArgs};
use crate::context::Context;
use crate::mcp::{PlanAction, PlanParams};
use crate::output::Report;

/// Checked and open `- [ ]` boxes in a plan's body.
pub(crate) fn progress(content: &str) -> (usize, usize) {
    let mut done = 0;
    let mut open = 0;
    for line in content.lines() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("- [").or_else(|| t.strip_prefix("* [")) else {
            continue;
        };
        match rest.get(..2) {
            Some("x]" | "X]") => done += 1,
            Some(" ]") => open += 1,
            _ => {}
        }
    }
    (done, open)
}

/// A plan as JSON (timestamps in goldfish's one UTC format).
pub(crate) fn plan_json(plan: &Plan) -> Value {
    let (done, open) = progress(&plan.content);
    json!({
        "id": plan.id,
        "title": plan.title,
        "status": plan.status.as_str(),
        "workspace": plan.workspace,
        "created": format_utc(&plan.created),
        "updated": format_utc(&plan.updated),
        "tags": plan.tags,
        "content": plan.content,
        "progress": {"done": done, "open": open},
    })
}

/// A plan as markdown: a heading, one line of facts, then the body.
pub(crate) fn plan_markdown(plan: &Plan, active: bool) -> String {
    let (done, open) = progress(&plan.content);
    let mut s = format!("## Plan: {} (`{}`)\n", plan.title, plan.id);
    let _ = write!(s, "Status: {}", plan.status);
    if active {
        s.push_str(" (active plan)");
    }
    if done + open > 0 {
        let _ = write!(s, " · progress {done}/{}", done + open);
    }
    let _ = write!(s, " · updated {}", format_utc(&plan.updated));
    if !plan.tags.is_empty() {
        let _ = write!(s, " · tags: {}", plan.tags.join(", "));
    }
    s.push('\n');
    let body = plan.content.trim();
    if !body.is_empty() {
        s.push('\n');
        s.push_str(body);
        s.push('\n');
    }
    s
}

fn parse_status(status: Option<&str>) -> anyhow::Result<Option<PlanStatus>> {
    Ok(status.map(PlanStatus::from_str).transpose()?)
}

fn list_markdown(plans: &[Plan], active: Option<&str>, workspace: &str) -> String {
    if plans.is_empty() {
        return format!("No plans in workspace `{workspace}`.\n");
    }
    let mut s = format!("Plans in `{workspace}`:\n");
    for p in plans {
        let (done, open) = progress(&p.content);
        let mark = if active == Some(p.id.as_str()) {
            " ← active"
        } else {
            ""
        };
        let prog = if done + open > 0 {
            format!(", {done}/{}", done + open)
        } else {
            String::new()
        };
        let _ = writeln!(s, "- `{}` {} ({}{prog}){mark}", p.id, p.title, p.status);
    }
    s
}

/// `goldfish plan …`.
pub(crate) fn run(ctx: &Context, cmd: PlanCommand) -> anyhow::Result<Report> {
    let store = open_store(ctx)?;
    let ws = resolve_workspace(ctx, None)?;
    let (verb, plan) = match cmd {
        PlanCommand::Save(a) => ("Saved", save(&store, a, &ws)?),
        PlanCommand::Get { id } => {
            let plan = match id {
                Some(id) => store.get_plan(&ws, &id)?,
                None => store.active_plan(&ws)?.with_context(|| {
                    format!("workspace {ws:?} has no active plan; give a plan id (see `goldfish plan list`)")
                })?,
            };
            let active = is_active(&store, &ws, &plan.id)?;
            return Ok(Report::new(plan_markdown(&plan, active), plan_json(&plan)));
        }
        PlanCommand::List => {
            let list = store.list_plans(&ws)?;
            let active = list.active.clone();
            let skipped: Vec<String> = list.skipped.iter().map(ToString::to_string).collect();
            let mut text = list_markdown(&list.plans, active.as_deref(), &ws);
            for s in &skipped {
                let _ = writeln!(text, "(skipped {s})");
            }
            let json = json!({
                "workspace": ws,
                "active": active,
                "plans": list.plans.iter().map(plan_json).collect::<Vec<_>>(),
                "skipped": skipped,
            });
            return Ok(Report::new(text, json));
        }
        PlanCommand::Activate { id } => ("Activated", store.activate_plan(&ws, &id)?),
        PlanCommand::Update(a) => ("Updated", update(&store, a, &ws)?),
        PlanCommand::Complete { id } => ("Completed", store.complete_plan(&ws, &id)?),
        PlanCommand::Archive { id } => ("Archived", store.archive_plan(&ws, &id)?),
    };
    let active = is_active(&store, &ws, &plan.id)?;
    let text = format!(
        "{verb} plan `{}` ({}) in workspace `{}`: status {}{}",
        plan.id,
        plan.title,
        plan.workspace,
        plan.status,
        if active { ", active" } else { "" }
    );
    Ok(Report::new(text, plan_json(&plan)))
}

fn save(store: &Store, a: PlanSaveArgs, ws: &str) -> anyhow::Result<Plan> {
    let content = a
        .content
        .map(stdin_if_dash)
        .transpose()?
        .unwrap_or_default();
    let mut input = PlanInput::new(a.title, content);
    input.id = a.id;
    input.tags = a.tags;
    input.status = parse_status(a.status.as_deref())?;
    input.workspace = Some(ws.to_string());
    input.activate = a.activate;
    Ok(store.save_plan(input)?)
}

fn update(store: &Store, a: PlanUpdateArgs, ws: &str) -> anyhow::Result<Plan> {
    let mut u = PlanUpdate::default();
    u.title = a.title;
    u.content = a.content.map(stdin_if_dash).transpose()?;
    u.status = parse_status(a.status.as_deref())?;
    u.tags = a.tags;
    if u == PlanUpdate::default() {
        bail!("nothing to update: give --title, --content, --status or --tags");
    }
    Ok(store.update_plan(ws, &a.id, u)?)
}

/// The `plan` MCP tool.
pub(crate) fn mcp(ctx: &Context, p: PlanParams) -> anyhow::Result<String> {
    let store = open_store(ctx)?;
    let ws = resolve_workspace(ctx, p.workspace.as_deref())?;
    let need_id = |action: &str| {
        p.id.clone()
            .filter(|i| !i.trim().is_empty())
            .with_context(|| {
                format!("`{action}` needs the plan's `id` (use action `list` to see the ids)")
            })
    };
    match p.action {
        PlanAction::Save => {
            let title = p.title.clone().unwrap_or_default();
            if title.trim().is_empty() && p.id.as_deref().is_none_or(|i| i.trim().is_empty()) {
                bail!("`save` needs a `title` (and the plan's markdown in `content`)");
            }
            let mut input = PlanInput::new(title, p.content.clone().unwrap_or_default());
            input.id = p.id.clone().filter(|i| !i.trim().is_empty());
            input.tags = p.tags.clone().unwrap_or_default();
            input.status = parse_status(p.status.as_deref())?;
            input.workspace = Some(ws.clone());
            input.activate = p.activate.unwrap_or(true);
            let plan = store.save_plan(input)?;
            let active = is_active(&store, &ws, &plan.id)?;
            Ok(format!(
                "Plan saved: **{}** (`{}`) in workspace `{ws}`{}.",
                plan.title,
                plan.id,
                if active { ", now the active plan" } else { "" }
            ))
        }
        PlanAction::Get => {
            let plan = match p.id.as_deref().filter(|i| !i.trim().is_empty()) {
                Some(id) => store.get_plan(&ws, id)?,
                None => store.active_plan(&ws)?.with_context(|| {
                    format!("workspace `{ws}` has no active plan; give an `id` or save a plan")
                })?,
            };
            let active = is_active(&store, &ws, &plan.id)?;
            Ok(plan_markdown(&plan, active))
        }
        PlanAction::List => {
            let list = store.list_plans(&ws)?;
            let active = list.active.clone();
            let mut s = list_markdown(&list.plans, active.as_deref(), &ws);
            for k in &list.skipped {
                let _ = writeln!(s, "(skipped {k})");
            }
            Ok(s)
        }
        PlanAction::Activate => {
            let plan = store.activate_plan(&ws, &need_id("activate")?)?;
            Ok(format!(
                "Plan `{}` ({}) is now the active plan of `{ws}`.",
                plan.id, plan.title
            ))
        }
        PlanAction::Update => {
            let id = need_id("update")?;
            let mut u = PlanUpdate::default();
            u.title = p.title.clone();
            u.content = p.content.clone();
            u.status = parse_status(p.status.as_deref())?;
            u.tags = p.tags.clone();
            if u == PlanUpdate::default() {
                bail!("`update` needs at least one of `title`, `content`, `status`, `tags`");
            }
            let plan = store.update_plan(&ws, &id, u)?;
            let (done, open) = progress(&plan.content);
            Ok(format!(
                "Plan `{}` updated (status {}, progress {done}/{}).",
                plan.id,
                plan.status,
                done + open
            ))
        }
        PlanAction::Complete => {
            let plan = store.complete_plan(&ws, &need_id("complete")?)?;
            Ok(format!(
                "Plan `{}` ({}) marked completed.",
                plan.id, plan.title
            ))
        }
    }
}

fn is_active(store: &Store, ws: &str, id: &str) -> anyhow::Result<bool> {
    Ok(store.active_plan(ws)?.is_some_and(|p| p.id == id))
}

/// The active plan as markdown, for the `plan-status` prompt.
pub(crate) fn status_markdown(ctx: &Context) -> anyhow::Result<String> {
    let store = open_store(ctx)?;
    let ws = resolve_workspace(ctx, None)?;
    Ok(match store.active_plan(&ws)? {
        Some(plan) => plan_markdown(&plan, true),
        None => format!("Workspace `{ws}` has no active plan."),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_counts_boxes() {
        let cases = [
            ("", (0, 0)),
            ("- [x] a\n- [ ] b\n  - [X] c\n* [ ] d\n- [-] e\n- x", (2, 2)),
            ("text [x] not a box", (0, 0)),
        ];
        for (input, want) in cases {
            assert_eq!(progress(input), want, "{input}");
        }
    }
}
