//! Task 3: keep a plan (goldfish-store): create it, check and uncheck items under the plan's
//! lock, and make it the workspace's active plan.

use goldfish_store::{Plan, PlanInput};

use crate::{Agent, AgentError, WORKSPACE};

/// The plan's title; its id is derived from it (`retry-backoff-rollout`).
pub(crate) const TITLE: &str = "Retry backoff rollout";

/// Creates the plan, works through its checklist, activates it.
pub(crate) fn run(agent: &Agent) -> Result<(), AgentError> {
    let store = &agent.store;
    let mut input = PlanInput::new(
        TITLE,
        "## Steps\n\
         - [ ] Backoff helper with jitter\n\
         - [ ] Use it in the HTTP client\n\
         - [ ] Load test against staging\n",
    );
    input.workspace = Some(WORKSPACE.into());
    let plan = store.save_plan(input)?;
    // A new plan's *status* is `active` (open, being worked on), but it is not the
    // workspace's active plan (its one focus, what recall and session starts show) until
    // activated.
    println!(
        "   created {:?}: status {}, the workspace's active plan: {}",
        plan.id,
        plan.status,
        active_id(agent)?.unwrap_or_else(|| "none".into())
    );

    // Read-modify-write under the plan's lock: no other writer can come between the read
    // and the write. Items are found by text (ignoring case; a unique part is enough) or by
    // position from 0; the rest of the markdown is left byte for byte.
    let plan = store.update_plan_with(WORKSPACE, &plan.id, |plan| {
        plan.check("backoff helper")?;
        plan.check(1)?;
        Ok(())
    })?;
    report("checked 2 items", &plan);

    // The HTTP client change was reverted: uncheck it again.
    let plan = store.update_plan_with(WORKSPACE, &plan.id, |plan| {
        plan.uncheck("HTTP client")?;
        Ok(())
    })?;
    report("unchecked 1 item", &plan);

    store.activate_plan(WORKSPACE, &plan.id)?;
    println!(
        "   activated: the workspace's active plan is {}",
        active_id(agent)?.unwrap_or_else(|| "none".into())
    );
    Ok(())
}

/// The id of the workspace's active plan, if it has one.
fn active_id(agent: &Agent) -> Result<Option<String>, AgentError> {
    Ok(agent.store.active_plan(WORKSPACE)?.map(|plan| plan.id))
}

/// Prints what was done and the plan's progress, item by item.
fn report(what: &str, plan: &Plan) {
    let progress = plan.progress();
    println!("   {what}: {}/{} done", progress.done, progress.total());
    for item in plan.checklist() {
        println!(
            "      [{}] {}",
            if item.done { "x" } else { " " },
            item.text
        );
    }
}
