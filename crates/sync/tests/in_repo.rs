//! Memory kept in the repository: branches merged by git with the goldfish driver.

use std::fs;
use std::path::Path;
use std::process::Command;

use goldfish_store::{CheckpointInput, PlanInput, PlanUpdate, Store};
use goldfish_sync::{driver_configured, fix_driver_config, init_in_repo};

use crate::util::{TestResult, all_checkpoints, assert_no_markers, git, store_at, tool};

fn save(store: &Store, text: &str) -> TestResult {
    let mut input = CheckpointInput::new(text);
    input.workspace = Some("app".into());
    store.save_checkpoint(input)?;
    Ok(())
}

fn commit_all(repo: &Path, message: &str) {
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", message]);
}

fn new_repo(dir: &Path) -> TestResult<std::path::PathBuf> {
    let repo = dir.join("project");
    fs::create_dir(&repo)?;
    git(&repo, &["init", "-q", "-b", "main"]);
    fs::write(repo.join("README.md"), "project\n")?;
    commit_all(&repo, "start");
    Ok(repo)
}

#[test]
fn branches_merge_checkpoints_and_plans_by_meaning() -> TestResult {
    let dir = tempfile::tempdir()?;
    let repo = new_repo(dir.path())?;
    let root = init_in_repo(&repo, "App", &tool())?;
    assert_eq!(root.canonicalize()?, repo.join(".goldfish").canonicalize()?);
    assert!(
        git(&repo, &["status", "--porcelain"]).is_empty(),
        "setup is committed"
    );
    assert!(git(&repo, &["log", "--format=%s", "-1"]).contains(".goldfish"));
    // Idempotent: nothing new to commit the second time.
    let head = git(&repo, &["rev-parse", "HEAD"]);
    init_in_repo(&repo, "app", &tool())?;
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]), head);

    let store = store_at(&root, "2025-10-13T09:00:00Z")?;
    save(&store, "Base entry")?;
    let mut plan = PlanInput::new("Release", "- [ ] one\n- [ ] two\n- [ ] three\n");
    plan.workspace = Some("app".into());
    store.save_plan(plan)?;
    commit_all(&repo, "base memory");

    fs::write(repo.join("JOURNAL.md"), "# Journal\n\n")?;
    commit_all(&repo, "journal");

    git(&repo, &["checkout", "-q", "-b", "feature"]);
    fs::write(
        repo.join("JOURNAL.md"),
        "# Journal\n\n- feature: found the bug\n",
    )?;
    let store = store_at(&root, "2025-10-13T10:00:00Z")?;
    save(&store, "Feature one")?;
    save(&store, "Feature two")?;
    let mut update = PlanUpdate::default();
    update.content = Some("- [x] one\n- [ ] two\n- [ ] three\n".into());
    store.update_plan("app", "release", update)?;
    commit_all(&repo, "feature work");

    git(&repo, &["checkout", "-q", "main"]);
    fs::write(
        repo.join("JOURNAL.md"),
        "# Journal\n\n- main: fixed the build\n",
    )?;
    let store = store_at(&root, "2025-10-13T11:00:00Z")?;
    save(&store, "Main one")?;
    let mut update = PlanUpdate::default();
    update.content = Some("- [ ] one\n- [ ] two\n- [x] three\n".into());
    store.update_plan("app", "release", update)?;
    commit_all(&repo, "main work");

    git(&repo, &["merge", "-q", "--no-edit", "feature"]);
    let entries = all_checkpoints(&root, "app");
    let mut titles: Vec<String> = entries.values().map(|c| c.description.clone()).collect();
    titles.sort();
    assert_eq!(
        titles,
        ["Base entry", "Feature one", "Feature two", "Main one"]
    );
    let plan = store.get_plan("app", "release")?;
    assert_eq!(plan.content, "- [x] one\n- [ ] two\n- [x] three\n");
    let plan_text = fs::read_to_string(root.join("app/plans/release.md"))?;
    assert_no_markers(&plan_text, Path::new("release.md"));
    assert_eq!(
        fs::read_to_string(repo.join("JOURNAL.md"))?,
        "# Journal\n\n- main: fixed the build\n- feature: found the bug\n"
    );
    assert!(git(&repo, &["status", "--porcelain"]).is_empty());
    Ok(())
}

#[test]
fn unreadable_files_fall_back_to_git_conflict_markers() -> TestResult {
    let dir = tempfile::tempdir()?;
    let repo = new_repo(dir.path())?;
    let root = init_in_repo(&repo, "app", &tool())?;
    let store = store_at(&root, "2025-10-13T09:00:00Z")?;
    save(&store, "Base entry")?;
    commit_all(&repo, "base");
    let day = root.join("app/checkpoints/2025-10-13.md");
    let base = fs::read_to_string(&day)?;
    git(&repo, &["checkout", "-q", "-b", "feature"]);
    fs::write(
        &day,
        base.replacen('\n', "\nstray text from the feature\n", 1),
    )?;
    commit_all(&repo, "feature garbage");
    git(&repo, &["checkout", "-q", "main"]);
    fs::write(&day, base.replacen('\n', "\nstray text from main\n", 1))?;
    commit_all(&repo, "main garbage");
    let out = Command::new("git")
        .arg("-C")
        .arg(&repo)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "merge",
            "--no-edit",
            "feature",
        ])
        .output()?;
    assert!(!out.status.success(), "an unreadable file is a conflict");
    let text = fs::read_to_string(&day)?;
    assert!(
        text.contains("<<<<<<<") && text.contains(">>>>>>>"),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("unreadable text"));
    Ok(())
}

#[test]
fn a_fresh_clone_gets_the_driver_config_back() -> TestResult {
    let dir = tempfile::tempdir()?;
    let repo = new_repo(dir.path())?;
    init_in_repo(&repo, "app", &tool())?;
    assert!(driver_configured(&repo)?);
    let clone = dir.path().join("clone");
    let out = Command::new("git")
        .arg("clone")
        .arg("-q")
        .arg(&repo)
        .arg(&clone)
        .output()?;
    assert!(out.status.success());
    assert!(
        clone.join(".goldfish/.gitattributes").exists(),
        "attributes travel"
    );
    assert!(!driver_configured(&clone)?, "config does not travel");
    assert!(fix_driver_config(&clone, &tool())?);
    assert!(driver_configured(&clone)?);
    assert!(!fix_driver_config(&clone, &tool())?, "nothing left to fix");
    Ok(())
}
