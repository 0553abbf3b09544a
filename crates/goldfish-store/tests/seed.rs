//! Goldfish v4's own tests for workspaces, checkpoints and plans, translated test by test.

use std::path::Path;

use chrono::TimeDelta;
use goldfish_store::{
    CheckpointInput, PlanInput, PlanStatus, PlanUpdate, detect_workspace, normalize_workspace,
};

use crate::{TestResult, repo_with_commit, seed_date, store_at};

// ----- Phase 1: workspace utilities -----------------------------------------------------

#[test]
fn normalizes_full_path_to_simple_name() {
    assert_eq!(
        normalize_workspace("/Users/murphy/source/goldfish"),
        "goldfish"
    );
}

#[test]
fn handles_windows_paths() {
    assert_eq!(normalize_workspace("C:\\source\\goldfish"), "goldfish");
}

#[test]
fn handles_package_names() {
    assert_eq!(normalize_workspace("@coa/goldfish-mcp"), "coa-goldfish-mcp");
}

#[test]
fn detects_current_workspace_from_cwd() -> TestResult {
    let cwd = std::env::current_dir()?;
    let workspace = detect_workspace(&cwd);
    assert!(!workspace.is_empty());
    assert!(
        workspace
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    );
    // This crate lives in a checkout of the goldfish repository (or a copy without .git):
    // either way the name is that of a directory on the way up, not of the crate directory.
    let on_path: Vec<String> = cwd
        .ancestors()
        .map(|a| normalize_workspace(&a.to_string_lossy()))
        .collect();
    assert!(
        on_path.contains(&workspace),
        "{workspace} not among {on_path:?}"
    );
    Ok(())
}

#[test]
fn lists_workspaces_sorted_and_refreshes_after_write() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    assert!(store.list_workspaces()?.is_empty());
    for ws in ["zeta", "alpha"] {
        let mut input = CheckpointInput::new("x");
        input.workspace = Some(ws.into());
        store.save_checkpoint(input)?;
    }
    assert_eq!(store.list_workspaces()?, ["alpha", "zeta"]);
    // Another process adding a workspace is seen too (the root directory changed).
    std::fs::create_dir(dir.path().join("middle"))?;
    assert_eq!(store.list_workspaces()?, ["alpha", "middle", "zeta"]);
    Ok(())
}

// ----- Phase 2: checkpoint storage -----------------------------------------------------

fn input(description: &str, workspace: &str) -> CheckpointInput {
    let mut input = CheckpointInput::new(description);
    input.workspace = Some(workspace.into());
    input
}

#[test]
fn saves_checkpoint_to_daily_file() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let mut i = input("Test checkpoint", "test-workspace");
    i.tags = vec!["test".into()];
    store.save_checkpoint(i)?;
    let path = dir.path().join("test-workspace/checkpoints/2025-10-13.md");
    let content = std::fs::read_to_string(&path)?;
    assert!(content.contains("Test checkpoint"));
    assert!(content.starts_with("# Checkpoints for 2025-10-13\n"));
    assert!(content.contains("## 09:30 - Test checkpoint\n"));
    assert!(content.contains("- **Tags**: test\n"));
    Ok(())
}

#[test]
fn appends_to_existing_daily_file() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, clock) = store_at(dir.path())?;
    store.save_checkpoint(input("First", "test"))?;
    clock.advance(TimeDelta::milliseconds(1500));
    store.save_checkpoint(input("Second", "test"))?;
    let checkpoints = store.checkpoints_for_day("test", seed_date())?;
    assert_eq!(checkpoints.len(), 2);
    assert_eq!(checkpoints[0].description, "First");
    assert_eq!(checkpoints[1].description, "Second");
    Ok(())
}

#[test]
fn captures_git_context_automatically() -> TestResult {
    let dir = tempfile::tempdir()?;
    // The repository's directory names the workspace the checkpoint is saved under.
    let repo = dir.path().join("test");
    repo_with_commit(&repo)?;
    std::fs::write(repo.join("new.txt"), "x")?;
    let (store, _) = store_at(&dir.path().join("store"))?;
    let mut i = input("Test", "test");
    i.git_dir = Some(repo.clone());
    store.save_checkpoint(i)?;
    let checkpoints = store.checkpoints_for_day("test", seed_date())?;
    assert_eq!(checkpoints[0].branch.as_deref(), Some("main"));
    assert_eq!(checkpoints[0].commit.as_deref().map(str::len), Some(7));
    assert_eq!(checkpoints[0].files, ["new.txt"]);
    Ok(())
}

#[test]
fn handles_concurrent_writes_safely() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..10)
            .map(|i| {
                let store = store.clone();
                s.spawn(move || store.save_checkpoint(input(&format!("Checkpoint {i}"), "test")))
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().expect("saver thread panicked").map(|_| ()))
    })?;
    let checkpoints = store.checkpoints_for_day("test", seed_date())?;
    assert_eq!(checkpoints.len(), 10);
    Ok(())
}

#[test]
fn reads_a_window_oldest_first_and_only_its_days() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, clock) = store_at(dir.path())?;
    let mut saved = Vec::new();
    for _ in 0..5 {
        saved.push(store.save_checkpoint(input("day", "test"))?);
        clock.advance(TimeDelta::hours(20));
    }
    let (from, to) = (saved[1].timestamp, saved[3].timestamp);
    let range = store.checkpoints_between("test", from, to)?;
    assert_eq!(range.checkpoints, saved[1..=3].to_vec());
    assert!(range.skipped.is_empty());
    // A day file outside the window is not read: make one unreadable and see no complaint.
    let outside = dir.path().join("test/checkpoints/2025-10-20.md");
    std::fs::write(&outside, b"\xff garbage")?;
    assert!(
        store
            .checkpoints_between("test", from, to)?
            .skipped
            .is_empty()
    );
    assert!(
        !store
            .checkpoints_between("test", from, to + TimeDelta::days(10))?
            .skipped
            .is_empty()
    );
    Ok(())
}

// ----- Phase 3: plan storage ----------------------------------------------------------

fn plan(id: &str, workspace: &str) -> PlanInput {
    let mut input = PlanInput::default();
    input.id = Some(id.into());
    input.workspace = Some(workspace.into());
    input
}

#[test]
fn saves_plan_with_yaml_frontmatter() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let mut p = plan("test-plan", "test");
    p.title = "Test Plan".into();
    p.content = "Plan content".into();
    store.save_plan(p)?;
    let plan = store.get_plan("test", "test-plan")?;
    assert_eq!(plan.title, "Test Plan");
    assert_eq!(plan.content, "Plan content");
    let text = std::fs::read_to_string(dir.path().join("test/plans/test-plan.md"))?;
    assert!(
        text.starts_with("---\nid: test-plan\ntitle: Test Plan\nstatus: active\n"),
        "{text}"
    );
    // As Goldfish v4 wrote it: the title in the frontmatter, the content verbatim after it.
    assert!(text.ends_with("---\n\nPlan content"), "{text}");
    Ok(())
}

#[test]
fn tracks_active_plan_per_workspace() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    for id in ["plan-1", "plan-2"] {
        let mut p = plan(id, "test");
        p.activate = true;
        store.save_plan(p)?;
    }
    assert_eq!(
        store.active_plan("test")?.map(|p| p.id).as_deref(),
        Some("plan-2")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("test/.active-plan"))?.trim(),
        "plan-2"
    );
    assert_eq!(store.active_plan("other")?, None);
    Ok(())
}

#[test]
fn lists_all_plans_for_workspace() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    store.save_plan(plan("plan-1", "test"))?;
    store.save_plan(plan("plan-2", "test"))?;
    let plans = store.list_plans("test")?;
    assert_eq!(plans.plans.len(), 2);
    assert!(plans.skipped.is_empty());
    Ok(())
}

#[test]
fn updates_plan_status() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, clock) = store_at(dir.path())?;
    let mut p = plan("test", "test");
    p.status = Some(PlanStatus::Active);
    let saved = store.save_plan(p)?;
    clock.advance(TimeDelta::minutes(5));
    let update = PlanUpdate::with_status(PlanStatus::Completed);
    store.update_plan("test", "test", update)?;
    let plan = store.get_plan("test", "test")?;
    assert_eq!(plan.status, PlanStatus::Completed);
    assert_eq!(plan.created, saved.created);
    assert_eq!(plan.updated, saved.updated + TimeDelta::minutes(5));
    Ok(())
}

#[test]
fn plan_lifecycle_and_active_pointer() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let mut p = PlanInput::new("Auth System", "- [ ] one\n");
    p.workspace = Some("ws".into());
    p.tags = vec!["backend".into()];
    let saved = store.save_plan(p)?;
    assert_eq!(saved.id, "auth-system");
    store.activate_plan("ws", "auth-system")?;
    assert!(store.active_plan("ws")?.is_some());
    let done = store.complete_plan("ws", "auth-system")?;
    assert_eq!(done.status, PlanStatus::Completed);
    assert_eq!(
        store.active_plan("ws")?,
        None,
        "a completed plan is not active"
    );
    let archived = store.archive_plan("ws", "auth-system")?;
    assert_eq!(archived.status, PlanStatus::Archived);
    let reopened = store.activate_plan("ws", "auth-system")?;
    assert_eq!(reopened.status, PlanStatus::Active);
    assert_eq!(
        store.active_plan("ws")?.map(|p| p.id).as_deref(),
        Some("auth-system")
    );
    let err = store.get_plan("ws", "nope").expect_err("missing plan");
    assert!(err.is_not_found());
    assert!(err.to_string().contains("\"nope\""), "{err}");
    let err = store
        .update_plan("ws", "nope", PlanUpdate::default())
        .expect_err("missing plan");
    assert!(err.is_not_found());
    Ok(())
}

#[test]
fn unknown_frontmatter_keys_survive_updates() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let path = dir.path().join("ws/plans/hand.md");
    std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
    std::fs::write(
        &path,
        "---\nid: hand\nstatus: active\ncreated: 2025-10-13T09:00:00Z\nowner: murphy\n---\n\n# Hand written\n\nBody\n",
    )?;
    let mut update = PlanUpdate::default();
    update.content = Some("New body\n".into());
    let plan = store.update_plan("ws", "hand", update)?;
    assert_eq!(plan.title, "Hand written");
    assert_eq!(plan.extra.get("owner"), Some(&serde_json::json!("murphy")));
    let text = std::fs::read_to_string(&path)?;
    assert!(text.contains("owner: murphy"), "{text}");
    assert_eq!(store.get_plan("ws", "hand")?.content, "New body\n");
    Ok(())
}
