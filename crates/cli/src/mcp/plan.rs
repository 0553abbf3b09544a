//! The `plan` tool (and the `plan-status` prompt's text): its parameters as the store's
//! [`PlanAction`](goldfish_store::PlanAction), one call, a short markdown reply.

use std::fmt::Write as _;

use goldfish_store::{
    Plan, PlanAction as StoreAction, PlanInput, PlanOutcome, PlanStatus, PlanUpdate,
};

use super::params::{PlanAction, PlanParams};
use super::replies::{PlanOut, PlanToolOut, RedactionOut, Reply, note_guess};
use crate::context::Context;
use crate::render::{echo, plan_list_markdown, plan_markdown, redacted_line};

/// The `plan` tool's description (behavioural wording that makes agents use it unprompted).
pub(crate) const PLAN_DESCRIPTION: &str = "\
Plans represent HOURS of planning work. Losing them is unacceptable.

CRITICAL: When ExitPlanMode is called → save plan within 1 exchange.
NOT optional. NO asking permission.

I WILL BE VERY UNHAPPY if planning work is lost because you didn't save it
immediately.

Update plans as you make progress. Stale plans waste time and context.

Actions: save (title, content; optional id, tags, activate), get (id; default the active plan),
list, activate (id), update (id; title, content, status), complete (id), archive (id).
Marked destructive because save with an existing id and update replace what a plan said;
get and list only read, the others change a plan's status.";

fn parse_status(status: Option<&str>) -> anyhow::Result<Option<PlanStatus>> {
    Ok(status.map(str::parse::<PlanStatus>).transpose()?)
}

/// The `plan` tool's parameters as the store's plan action.
fn plan_action(p: &PlanParams) -> anyhow::Result<StoreAction> {
    let id = p.id.clone().filter(|i| !i.trim().is_empty());
    // Checked whatever the action, as the schema says.
    let status = parse_status(p.status.as_deref())?;
    let need_id = |action: &str| {
        id.clone().ok_or_else(|| {
            anyhow::anyhow!("`{action}` needs the plan's `id` (use action `list` to see the ids)")
        })
    };
    Ok(match p.action {
        PlanAction::Save => {
            let title = p.title.clone().unwrap_or_default();
            if title.trim().is_empty() && id.is_none() {
                anyhow::bail!("`save` needs a `title` (and the plan's markdown in `content`)");
            }
            let mut input = PlanInput::new(title, p.content.clone().unwrap_or_default());
            input.id = id;
            input.tags = p.tags.clone().unwrap_or_default();
            input.status = status;
            input.activate = p.activate.unwrap_or(true);
            StoreAction::Save(input)
        }
        PlanAction::Get => StoreAction::Get(id),
        PlanAction::List => StoreAction::List,
        PlanAction::Activate => StoreAction::Activate(need_id("activate")?),
        PlanAction::Update => {
            let mut u = PlanUpdate::default();
            u.title = p.title.clone();
            u.content = p.content.clone();
            u.status = status;
            u.tags = p.tags.clone();
            StoreAction::Update(need_id("update")?, u)
        }
        PlanAction::Complete => StoreAction::Complete(need_id("complete")?),
        PlanAction::Archive => StoreAction::Archive(need_id("archive")?),
    })
}

/// The `plan` tool: one call to the store, a short markdown reply.
pub(super) fn plan_tool(ctx: &Context, p: PlanParams) -> anyhow::Result<Reply> {
    let action = plan_action(&p)?;
    let (workspace, guess) = ctx.workspace_for(p.workspace.as_deref(), action.writes())?;
    let outcome = ctx.open_store()?.plan_action(&workspace, action)?;
    let action_name = format!("{:?}", p.action).to_lowercase();
    match outcome {
        PlanOutcome::List {
            workspace,
            list,
            active,
        } => {
            let mut text = plan_list_markdown(&list, active.as_deref(), &workspace);
            note_guess(&mut text, guess.as_deref());
            let plans = list
                .plans
                .iter()
                .map(|plan| PlanOut::of(plan, active.as_deref() == Some(plan.id.as_str())))
                .collect();
            let out = PlanToolOut {
                action: action_name,
                workspace,
                plan: None,
                plans: Some(plans),
                skipped: list.skipped.iter().map(ToString::to_string).collect(),
                redacted: Vec::new(),
                workspace_note: guess,
            };
            Reply::new(text, &out)
        }
        PlanOutcome::Plan {
            plan,
            active,
            redacted,
        } => {
            let mut text = confirmation(p.action, &plan, active, &workspace);
            if let Some(line) = redacted_line(&redacted) {
                let _ = write!(text, "\n{line}.");
            }
            // `get` shows the plan's body; the other actions confirm, echoing the title.
            let plan_out = if p.action == PlanAction::Get {
                PlanOut::with_content(&plan, active, plan.content.trim().to_string())
            } else {
                PlanOut {
                    title: echo(&plan.title),
                    ..PlanOut::of(&plan, active)
                }
            };
            note_guess(&mut text, guess.as_deref());
            let out = PlanToolOut {
                action: action_name,
                workspace,
                plan: Some(plan_out),
                plans: None,
                skipped: Vec::new(),
                redacted: RedactionOut::all(&redacted),
                workspace_note: guess,
            };
            Reply::new(text, &out)
        }
        other => anyhow::bail!("unexpected plan outcome: {other:?}"),
    }
}

/// The `plan` tool's text for a plan it got or changed: the plan itself for `get`, else a
/// line confirming the action, echoing the title.
fn confirmation(action: PlanAction, plan: &Plan, active: bool, workspace: &str) -> String {
    let title = echo(&plan.title);
    match action {
        PlanAction::Get | PlanAction::List => format!(
            "{}\n(workspace `{workspace}`)",
            plan_markdown(plan, active).trim_end()
        ),
        PlanAction::Save => format!(
            "Plan saved: **{title}** (`{}`) in workspace `{workspace}`{}.",
            plan.id,
            if active { ", now the active plan" } else { "" }
        ),
        PlanAction::Activate => format!(
            "Plan `{}` ({title}) is now the active plan of `{workspace}`.",
            plan.id
        ),
        PlanAction::Update => {
            let progress = plan.progress();
            format!(
                "Plan `{}` updated (status {}, progress {}/{}).",
                plan.id,
                plan.status,
                progress.done,
                progress.total()
            )
        }
        PlanAction::Complete => {
            format!("Plan `{}` ({title}) marked completed.", plan.id)
        }
        PlanAction::Archive => {
            format!("Plan `{}` ({title}) archived.", plan.id)
        }
    }
}

/// The active plan as markdown, for the `plan-status` prompt.
pub(super) fn plan_status_markdown(ctx: &Context) -> anyhow::Result<String> {
    let workspace = ctx.workspace(None)?;
    Ok(match ctx.open_store()?.active_plan(&workspace)? {
        Some(plan) => plan_markdown(&plan, true),
        None => format!("Workspace `{workspace}` has no active plan."),
    })
}
