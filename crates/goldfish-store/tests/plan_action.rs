//! `Store::plan_action`: the one entry point the CLI and the MCP server share.

use goldfish_store::{PlanAction, PlanInput, PlanOutcome, PlanUpdate, Store};

use crate::TestResult;

fn plan_of(outcome: PlanOutcome) -> Result<(goldfish_store::Plan, bool), String> {
    match outcome {
        PlanOutcome::Plan { plan, active, .. } => Ok((plan, active)),
        other => Err(format!("expected a plan, got {other:?}")),
    }
}

#[test]
fn every_action_through_one_function() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::open(dir.path())?;
    let err = store
        .plan_action("ws", PlanAction::Get(None))
        .err()
        .ok_or("no active plan yet")?;
    assert!(
        err.is_invalid_input() && err.to_string().contains("no active plan"),
        "{err}"
    );

    let mut input = PlanInput::new("Auth", "- [x] a\n+ [ ] b\n");
    input.activate = true;
    let (plan, active) = plan_of(store.plan_action("ws", PlanAction::Save(input))?)?;
    assert_eq!(
        (plan.id.as_str(), plan.workspace.as_str(), active),
        ("auth", "ws", true)
    );
    assert_eq!((plan.progress().done, plan.progress().open), (1, 1));

    let (got, active) = plan_of(store.plan_action("ws", PlanAction::Get(None))?)?;
    assert_eq!((got.id.as_str(), active), ("auth", true));

    let err = store
        .plan_action(
            "ws",
            PlanAction::Update("auth".into(), PlanUpdate::default()),
        )
        .err()
        .ok_or("an empty update is refused")?;
    assert!(err.to_string().contains("nothing to update"), "{err}");

    let (done, active) = plan_of(store.plan_action("ws", PlanAction::Complete("auth".into()))?)?;
    assert_eq!((done.status.as_str(), active), ("completed", false));

    let PlanOutcome::List { list, active, .. } = store.plan_action("ws", PlanAction::List)? else {
        return Err("expected a list".into());
    };
    assert_eq!((list.plans.len(), active), (1, None));
    assert!(store.plan_action("../x", PlanAction::List).is_err());
    Ok(())
}

#[test]
fn list_goes_on_when_the_active_plan_is_unreadable() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::open(dir.path())?;
    let mut good = PlanInput::new("Good", "");
    good.activate = false;
    store.plan_action("ws", PlanAction::Save(good))?;
    store.plan_action("ws", PlanAction::Save(PlanInput::new("Broken", "")))?;
    let broken = dir.path().join("ws").join("plans").join("broken.md");
    std::fs::write(&broken, "---\ntitle: [unclosed\n---\n# Broken\n")?;
    let PlanOutcome::List { list, active, .. } = store.plan_action("ws", PlanAction::List)? else {
        return Err("expected a list".into());
    };
    assert_eq!(active, None);
    assert_eq!(
        list.plans.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        ["good"]
    );
    assert_eq!(list.skipped.len(), 1, "{:?}", list.skipped);
    assert_eq!(list.skipped[0].path, broken);
    Ok(())
}
