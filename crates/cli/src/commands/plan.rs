//! `goldfish plan …`: clap → [`PlanAction`], one call to [`Store::plan_action`], rendering.
//!
//! [`Store::plan_action`]: goldfish_store::Store::plan_action

use std::str::FromStr as _;

use goldfish_store::{PlanAction, PlanInput, PlanOutcome, PlanStatus, PlanUpdate};

use crate::args::stdin_if_dash;
use crate::cli::{PlanCommand, PlanSaveArgs, PlanUpdateArgs};
use crate::context::Context;
use crate::output::Report;
use crate::render::{
    echo, plan_json, plan_list_json, plan_list_markdown, plan_markdown, redacted_json,
    redacted_line,
};

fn parse_status(status: Option<&str>) -> anyhow::Result<Option<PlanStatus>> {
    Ok(status.map(PlanStatus::from_str).transpose()?)
}

/// The clap arguments as the store's plan action, and the verb that reports it.
fn action(cmd: PlanCommand) -> anyhow::Result<(Option<&'static str>, PlanAction)> {
    Ok(match cmd {
        PlanCommand::Save(a) => (Some("Saved"), PlanAction::Save(save_input(a)?)),
        PlanCommand::Get { id } => (None, PlanAction::Get(id)),
        PlanCommand::List => (None, PlanAction::List),
        PlanCommand::Activate { id } => (Some("Activated"), PlanAction::Activate(id)),
        PlanCommand::Update(a) => (Some("Updated"), update_action(a)?),
        PlanCommand::Complete { id } => (Some("Completed"), PlanAction::Complete(id)),
        PlanCommand::Archive { id } => (Some("Archived"), PlanAction::Archive(id)),
        PlanCommand::Delete { .. } => {
            anyhow::bail!("plan delete forgets a plan; it is not a plan action")
        }
    })
}

fn save_input(a: PlanSaveArgs) -> anyhow::Result<PlanInput> {
    let content = a
        .content
        .map(stdin_if_dash)
        .transpose()?
        .unwrap_or_default();
    let mut input = PlanInput::new(a.title, content);
    input.id = a.id;
    input.tags = a.tags;
    input.status = parse_status(a.status.as_deref())?;
    input.activate = a.activate;
    Ok(input)
}

fn update_action(a: PlanUpdateArgs) -> anyhow::Result<PlanAction> {
    let mut u = PlanUpdate::default();
    u.title = a.title;
    u.content = a.content.map(stdin_if_dash).transpose()?;
    u.status = parse_status(a.status.as_deref())?;
    u.tags = a.tags;
    Ok(PlanAction::Update(a.id, u))
}

/// `goldfish plan …`.
pub(crate) fn run(ctx: &Context, cmd: PlanCommand) -> anyhow::Result<Report> {
    if let PlanCommand::Delete { id, dry_run } = &cmd {
        let workspace = ctx.workspace_to_write(None)?;
        let by = crate::actor::forgetter(None);
        let report =
            goldfish_recall::forget_plan(&ctx.open_store()?, &workspace, id, &by, *dry_run)?;
        return Ok(Report::new(
            crate::render::forget_text(&report),
            serde_json::to_value(&report)?,
        ));
    }
    let (verb, action) = action(cmd)?;
    let (workspace, guess) = ctx.workspace_for(None, action.writes())?;
    // A read from a guessed workspace names it; how it was guessed goes to stderr.
    if let Some(note) = guess {
        crate::output::eprintln_inert!("goldfish: {note}");
    }
    Ok(match ctx.open_store()?.plan_action(&workspace, action)? {
        PlanOutcome::List {
            workspace,
            list,
            active,
        } => Report::new(
            plan_list_markdown(&list, active.as_deref(), &workspace),
            plan_list_json(&list, active.as_deref(), &workspace),
        ),
        PlanOutcome::Plan {
            plan,
            active,
            redacted,
        } => match verb {
            None => Report::new(plan_markdown(&plan, active), plan_json(&plan)),
            Some(verb) => {
                let mut text = format!(
                    "{verb} plan `{}` ({}) in workspace `{}`: status {}{}",
                    plan.id,
                    echo(&plan.title),
                    plan.workspace,
                    plan.status,
                    if active { ", active" } else { "" }
                );
                if let Some(line) = redacted_line(&redacted) {
                    text.push_str("\n  ");
                    text.push_str(&line);
                }
                let mut json = plan_json(&plan);
                json["redacted"] = redacted_json(&redacted);
                Report::new(text, json)
            }
        },
        other => anyhow::bail!("unexpected plan outcome: {other:?}"),
    })
}
