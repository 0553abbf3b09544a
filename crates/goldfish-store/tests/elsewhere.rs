//! Workspaces kept outside the home store (memory kept in a repository under `.goldfish/`),
//! read together with the home store.

use chrono::Duration;
use goldfish_store::{
    CheckpointInput, IN_REPO_DIR, PlanInput, PlanUpdate, Store, find_repo_memory,
};

use crate::{TestResult, seed_date, seed_time, store_at};

fn checkpoint(store: &Store, workspace: &str, text: &str) -> Result<String, goldfish_store::Error> {
    let mut input = CheckpointInput::new(text);
    input.workspace = Some(workspace.into());
    Ok(store.save_checkpoint(input)?.id)
}

#[test]
fn writes_go_elsewhere_and_reads_take_in_both() -> TestResult {
    let home = tempfile::tempdir()?;
    let repo = tempfile::tempdir()?;
    let memory = repo.path().join(IN_REPO_DIR);
    let (plain, clock) = store_at(home.path())?;
    let old = checkpoint(&plain, "proj", "Saved before the move")?;
    let mut plan = PlanInput::new("Home plan", "- [ ] one\n");
    plan.workspace = Some("proj".into());
    plan.activate = true;
    plain.save_plan(plan)?;
    checkpoint(&plain, "other", "Another workspace")?;

    let store = plain.clone().with_workspace_root("proj", &memory)?;
    assert_eq!(store.workspace_root("proj"), memory.as_path());
    assert_eq!(store.workspace_root("other"), home.path());
    clock.advance(Duration::minutes(5));
    let new = checkpoint(&store, "proj", "Saved in the repository")?;
    let day = format!("{}.md", seed_date().format("%Y-%m-%d"));
    let in_repo = std::fs::read_to_string(memory.join("proj/checkpoints").join(&day))?;
    assert!(in_repo.contains("Saved in the repository") && !in_repo.contains("before the move"));
    let at_home = std::fs::read_to_string(home.path().join("proj/checkpoints").join(&day))?;
    assert!(!at_home.contains("Saved in the repository"), "{at_home}");

    // Both copies are read, in time order; the plain store sees only the home store.
    let ids: Vec<String> = store
        .checkpoints_between("proj", seed_time(), store.now())?
        .checkpoints
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(ids, [old.clone(), new.clone()]);
    let day_ids: Vec<String> = store
        .checkpoints_for_day("proj", seed_date())?
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(day_ids, [old.clone(), new]);
    assert_eq!(plain.checkpoints_for_day("proj", seed_date())?.len(), 1);
    assert_eq!(store.list_workspaces()?, ["other", "proj"]);

    // The home store's plan and active choice are used until the repository has its own.
    assert_eq!(
        store.active_plan("proj")?.map(|p| p.id).as_deref(),
        Some("home-plan")
    );
    clock.advance(Duration::minutes(5));
    let mut update = PlanUpdate::default();
    update.content = Some("- [x] one\n".into());
    let updated = store.update_plan("proj", "home-plan", update)?;
    assert_eq!(updated.content, "- [x] one\n");
    assert!(memory.join("proj/plans/home-plan.md").exists());
    // The home copy is left as it was, and hidden by the repository's.
    assert_eq!(plain.get_plan("proj", "home-plan")?.content, "- [ ] one\n");
    assert_eq!(store.get_plan("proj", "home-plan")?.content, "- [x] one\n");
    let list = store.list_plans("proj")?;
    assert_eq!(list.plans.len(), 1);
    assert_eq!(list.plans[0].content, "- [x] one\n");

    // Completing it clears the active choice in the repository, not at home.
    store.complete_plan("proj", "home-plan")?;
    assert_eq!(store.active_plan("proj")?, None);
    assert!(memory.join("proj/.active-plan").exists());
    assert_eq!(
        std::fs::read_to_string(home.path().join("proj/.active-plan"))?.trim(),
        "home-plan"
    );

    // A new plan saved with activate lives in the repository.
    let mut plan = PlanInput::new("Repo plan", "- [ ] two\n");
    plan.workspace = Some("proj".into());
    plan.activate = true;
    store.save_plan(plan)?;
    assert!(memory.join("proj/plans/repo-plan.md").exists());
    assert!(!home.path().join("proj/plans/repo-plan.md").exists());
    assert_eq!(
        store.active_plan("proj")?.map(|p| p.id).as_deref(),
        Some("repo-plan")
    );
    assert!(store.with_workspace_root("../x", &memory).is_err());
    Ok(())
}

#[test]
fn repo_memory_is_found_from_any_directory_of_the_work_tree() -> TestResult {
    let home = tempfile::tempdir()?;
    let top = tempfile::tempdir()?;
    let repo = top.path().join("My Project");
    let sub = repo.join("src/deep");
    std::fs::create_dir_all(&sub)?;
    std::fs::create_dir_all(repo.join(".git"))?;
    // No `.goldfish/` yet: nothing is kept in the repository.
    assert_eq!(find_repo_memory(&sub), None);
    let store = Store::open(home.path())?.with_repo_memory(&sub);
    assert_eq!(store.workspaces_elsewhere().count(), 0);

    let memory = repo.join(IN_REPO_DIR);
    std::fs::create_dir_all(memory.join("second"))?;
    std::fs::create_dir_all(memory.join("Not A Name"))?;
    assert_eq!(find_repo_memory(&sub).as_deref(), Some(memory.as_path()));
    let store = Store::open(home.path())?.with_repo_memory(&sub);
    let kept: Vec<&str> = store.workspaces_elsewhere().map(|(n, _)| n).collect();
    assert_eq!(kept, ["my-project", "second"]);
    checkpoint(&store, "my-project", "In the repository")?;
    assert!(memory.join("my-project/checkpoints").is_dir());
    assert_eq!(store.list_workspaces()?, ["my-project", "second"]);

    // A home store that is itself the repository's `.goldfish/` is not kept elsewhere.
    let store = Store::open(&memory)?.with_repo_memory(&sub);
    assert_eq!(store.workspaces_elsewhere().count(), 0);
    // Outside any repository: unchanged.
    let outside = tempfile::tempdir()?;
    assert_eq!(find_repo_memory(outside.path()), None);
    Ok(())
}
