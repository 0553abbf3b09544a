//! Plans edited without hand-editing markdown: `update_plan_with` under the plan's lock, and
//! checking or unchecking checklist items by index or text.

use goldfish_store::{ErrorKind, PlanInput, PlanStatus};

use crate::{TestResult, store_at};

const CONTENT: &str =
    "# Auth\n\nGoals\n- [ ] JWT tokens\n  * [x] OAuth2\n+ [ ] Rate limits\nNot a box: [ ] here\n";

fn saved(store: &goldfish_store::Store) -> Result<goldfish_store::Plan, goldfish_store::Error> {
    let mut input = PlanInput::new("Auth", CONTENT);
    input.workspace = Some("api".into());
    store.save_plan(input)
}

#[test]
fn check_and_uncheck_by_index_or_text_touch_only_the_box() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, clock) = store_at(dir.path())?;
    let before = saved(&store)?;
    clock.advance(chrono::Duration::minutes(5));
    let plan = store.update_plan_with("api", "auth", |plan| {
        assert_eq!(plan.check("jwt TOKENS")?.text, "JWT tokens");
        plan.uncheck(1)?;
        plan.check("rate")?; // the one item containing it
        Ok(())
    })?;
    assert_eq!(
        plan.content,
        "# Auth\n\nGoals\n- [x] JWT tokens\n  * [ ] OAuth2\n+ [x] Rate limits\nNot a box: [ ] here\n"
    );
    assert_eq!(plan.updated, before.updated + chrono::Duration::minutes(5));
    assert_eq!(plan.created, before.created);
    // What was returned is what the file holds.
    assert_eq!(store.get_plan("api", "auth")?, plan);
    Ok(())
}

#[test]
fn a_failed_change_writes_nothing_and_says_why() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    saved(&store)?;
    let path = dir.path().join("api/plans/auth.md");
    let bytes = std::fs::read(&path)?;
    // No such item: not found, listing the items; nothing written even after a first change.
    let e = store
        .update_plan_with("api", "auth", |plan| {
            plan.check(0)?;
            plan.check("deploy")?;
            Ok(())
        })
        .err()
        .ok_or("no error")?;
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
    assert!(
        e.message()
            .contains(r#"0: "JWT tokens", 1: "OAuth2", 2: "Rate limits""#),
        "{e}"
    );
    assert_eq!(std::fs::read(&path)?, bytes);
    // Text in several items, and an index past the end.
    let mut plan = store.get_plan("api", "auth")?;
    let e = plan.check("t").err().ok_or("ambiguous")?;
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    assert!(e.message().contains("matches 3 checklist items"), "{e}");
    assert_eq!(
        plan.check(3).err().map(|e| e.kind()),
        Some(ErrorKind::NotFound)
    );
    // A title made two lines is refused; id, workspace and created cannot be changed.
    let e = store
        .update_plan_with("api", "auth", |plan| {
            plan.title = "two\nlines".into();
            Ok(())
        })
        .err()
        .ok_or("two lines")?;
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert_eq!(std::fs::read(&path)?, bytes);
    let plan = store.update_plan_with("api", "auth", |plan| {
        plan.id = "elsewhere".into();
        plan.workspace = "other".into();
        Ok(())
    })?;
    assert_eq!((plan.id.as_str(), plan.workspace.as_str()), ("auth", "api"));
    assert!(!dir.path().join("other").exists());
    // A missing plan names its file.
    let e = store
        .update_plan_with("api", "ghost", |_| Ok(()))
        .err()
        .ok_or("ghost")?;
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert_eq!(
        e.path(),
        Some(dir.path().join("api/plans/ghost.md").as_path())
    );
    let e = store.get_plan("api", "ghost").err().ok_or("ghost")?;
    assert_eq!(
        e.path(),
        Some(dir.path().join("api/plans/ghost.md").as_path())
    );
    Ok(())
}

#[test]
fn concurrent_updates_lose_nothing() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let items: Vec<String> = (0..16).map(|i| format!("- [ ] step {i}\n")).collect();
    let mut input = PlanInput::new("Many", items.concat());
    input.workspace = Some("api".into());
    store.save_plan(input)?;
    std::thread::scope(|scope| {
        for i in 0..16 {
            let store = store.clone();
            scope.spawn(move || {
                store.update_plan_with("api", "many", |plan| {
                    plan.check(format!("step {i}"))?;
                    Ok(())
                })
            });
        }
    });
    let plan = store.get_plan("api", "many")?;
    assert_eq!((plan.progress().done, plan.progress().open), (16, 0));
    // Completing through the closure clears it as the workspace's active plan.
    store.activate_plan("api", "many")?;
    store.update_plan_with("api", "many", |plan| {
        plan.status = PlanStatus::Completed;
        Ok(())
    })?;
    assert!(store.active_plan("api")?.is_none());
    Ok(())
}

#[test]
fn invalid_utf8_and_io_kind_are_asked_the_same_way_as_everywhere() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    saved(&store)?;
    let path = dir.path().join("api/plans/auth.md");
    let mut bytes = std::fs::read(&path)?;
    bytes.extend_from_slice(b"- [ ] \xff\n");
    std::fs::write(&path, bytes)?;
    let e = store
        .get_plan("api", "auth")
        .err()
        .ok_or("read a bad file")?;
    assert!(e.is_invalid_utf8(), "{e}");
    assert_eq!(e.kind(), ErrorKind::Parse);
    assert_eq!(e.path(), Some(path.as_path()));
    assert_eq!(e.io_kind(), Some(std::io::ErrorKind::InvalidData));
    // A workspace directory that is a file: an I/O error, its kind reachable from the
    // store's error.
    std::fs::write(dir.path().join("blocked"), "x")?;
    let mut input = goldfish_store::CheckpointInput::new("into a file");
    input.workspace = Some("blocked".into());
    let e = store
        .save_checkpoint(input)
        .err()
        .ok_or("saved under a file")?;
    assert!(e.io_kind().is_some() && !e.is_invalid_utf8(), "{e}");
    Ok(())
}
