//! Git context and workspace detection against real repositories.

use goldfish_store::{Actor, MAX_FILES, detect_workspace, git_context, git_identity};

use crate::{TestResult, git, repo_with_commit};

#[test]
fn clean_dirty_detached_and_unborn() -> TestResult {
    let dir = tempfile::tempdir()?;
    let repo = dir.path().join("Repo");
    repo_with_commit(&repo)?;
    let clean = git_context(&repo).ok_or("a repository has context")?;
    assert_eq!(clean.branch.as_deref(), Some("main"));
    assert!(clean.files.is_empty());

    std::fs::write(repo.join("README.md"), "changed\n")?;
    std::fs::write(repo.join(".gitignore"), "ignored.txt\n")?;
    std::fs::write(repo.join("ignored.txt"), "x")?;
    let dirty = git_context(&repo).ok_or("context")?;
    let mut files = dirty.files.clone();
    files.sort();
    assert_eq!(files, [".gitignore", "README.md"]);
    assert!(!dirty.files.iter().any(|f| f == "ignored.txt"));

    let head = git(&repo, &["rev-parse", "--short=7", "HEAD"])?;
    git(&repo, &["checkout", "-q", "--detach"])?;
    let detached = git_context(&repo).ok_or("context")?;
    assert_eq!(detached.branch, None);
    assert_eq!(detached.commit.as_deref(), Some(head.trim()));

    let unborn = dir.path().join("unborn");
    std::fs::create_dir(&unborn)?;
    git(&unborn, &["init", "-q"])?;
    let ctx = git_context(&unborn).ok_or("context")?;
    assert_eq!(ctx.branch.as_deref(), Some("main"));
    assert_eq!(ctx.commit, None);

    let none = dir.path().join("plain");
    std::fs::create_dir(&none)?;
    assert_eq!(git_context(&none), None);
    Ok(())
}

#[test]
fn many_changed_files_are_capped() -> TestResult {
    let dir = tempfile::tempdir()?;
    repo_with_commit(dir.path())?;
    for i in 0..(MAX_FILES + 7) {
        std::fs::write(dir.path().join(format!("f{i:02}.txt")), "x")?;
    }
    let ctx = git_context(dir.path()).ok_or("context")?;
    assert_eq!(ctx.files.len(), MAX_FILES);
    assert_eq!(ctx.files_omitted, 7);
    Ok(())
}

#[test]
fn worktrees_and_subdirectories_resolve_to_the_main_repository() -> TestResult {
    let dir = tempfile::tempdir()?;
    let main = dir.path().join("My-Project");
    repo_with_commit(&main)?;
    std::fs::create_dir_all(main.join("src/deep"))?;
    let worktree = dir.path().join("feature-wt");
    git(
        &main,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature",
            worktree.to_str().ok_or("utf-8 path")?,
        ],
    )?;
    std::fs::create_dir_all(worktree.join("sub"))?;
    let cases = [
        (main.clone(), "my-project"),
        (main.join("src/deep"), "my-project"),
        (worktree.clone(), "my-project"),
        (worktree.join("sub"), "my-project"),
        (dir.path().join("elsewhere"), "elsewhere"),
    ];
    for (path, want) in cases {
        assert_eq!(detect_workspace(&path), want, "{}", path.display());
    }
    Ok(())
}

#[test]
fn no_git_binary_saves_without_context() -> TestResult {
    // With PATH empty, git cannot be found: the checkpoint is saved without context. This runs
    // in a child process so the PATH change does not affect other tests.
    if std::env::var_os("GOLDFISH_STORE_NO_GIT_CHILD").is_none() {
        let out = std::process::Command::new(std::env::current_exe()?)
            .args([
                "--exact",
                "git::no_git_binary_saves_without_context",
                "--test-threads=1",
            ])
            .env("GOLDFISH_STORE_NO_GIT_CHILD", "1")
            .env("PATH", "")
            .output()?;
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git"))?;
    assert_eq!(git_context(&repo), None);
    let store = goldfish_store::Store::open(dir.path().join("store"))?;
    let mut input = goldfish_store::CheckpointInput::new("no git here");
    input.workspace = Some("ws".into());
    input.git_dir = Some(repo);
    let saved = store.save_checkpoint(input)?;
    assert_eq!((saved.branch, saved.commit), (None, None));
    Ok(())
}

#[test]
fn git_context_only_for_the_directorys_own_workspace() -> TestResult {
    let dir = tempfile::tempdir()?;
    let repo = dir.path().join("shop");
    repo_with_commit(&repo)?;
    std::fs::write(repo.join("new.txt"), "x")?;
    let store = goldfish_store::Store::open(dir.path().join("store"))?;

    let mut own = goldfish_store::CheckpointInput::new("in the repository's own workspace");
    own.workspace = Some("shop".into());
    own.git_dir = Some(repo.clone());
    let saved = store.save_checkpoint(own)?;
    assert_eq!(saved.branch.as_deref(), Some("main"));
    assert_eq!(saved.files, ["new.txt"]);

    let mut other = goldfish_store::CheckpointInput::new("filed under another workspace");
    other.workspace = Some("other".into());
    other.git_dir = Some(repo);
    let saved = store.save_checkpoint(other)?;
    assert_eq!((saved.branch, saved.commit), (None, None));
    assert!(saved.files.is_empty(), "{:?}", saved.files);
    Ok(())
}

#[test]
fn a_save_records_its_actor_with_the_git_user_of_its_directory() -> TestResult {
    let dir = tempfile::tempdir()?;
    let repo = dir.path().join("shop");
    repo_with_commit(&repo)?;
    // The repository's own configuration wins over the user's, whatever the machine has.
    git(&repo, &["config", "user.name", "Dev Eloper"])?;
    git(&repo, &["config", "user.email", "dev@example.com"])?;
    assert_eq!(
        git_identity(&repo),
        goldfish_store::parse_identity("user.name\nDev Eloper\0user.email\ndev@example.com\0")
    );
    let store = goldfish_store::Store::open(dir.path().join("store"))?;

    let mut input = goldfish_store::CheckpointInput::new("saved through a client");
    input.workspace = Some("shop".into());
    input.git_dir = Some(repo.clone());
    input.actor.harness = Some("claude-code\n2.1.197".into());
    input.actor.model = Some("  ".into());
    input.actor.user = Some("dev".into());
    let saved = store.save_checkpoint(input)?;
    let mut want = Actor::default();
    want.harness = Some("claude-code 2.1.197".into());
    want.user = Some("dev".into());
    want.git_user = Some("Dev Eloper".into());
    want.git_email = Some("dev@example.com".into());
    assert_eq!(saved.actor, want);
    // What was written reads back the same, as ordinary bullets.
    let path = store.day_file_path("shop", saved.timestamp.date_naive())?;
    let text = std::fs::read_to_string(&path)?;
    assert!(text.contains("- **Git user**: Dev Eloper\n"), "{text}");
    let day = store.read_day("shop", saved.timestamp.date_naive())?;
    assert_eq!(day.checkpoints[0].actor, want);

    // Filed under another workspace, the git user is still the person saving.
    let mut other = goldfish_store::CheckpointInput::new("filed elsewhere");
    other.workspace = Some("other".into());
    other.git_dir = Some(repo);
    assert_eq!(
        store.save_checkpoint(other)?.actor.git_email.as_deref(),
        Some("dev@example.com")
    );

    // No directory: no git user, and nothing invented.
    let mut bare = goldfish_store::CheckpointInput::new("no directory");
    bare.workspace = Some("shop".into());
    assert!(store.save_checkpoint(bare)?.actor.is_empty());
    assert_eq!(
        git_identity(&dir.path().join("missing")),
        goldfish_store::GitIdentity::default()
    );
    Ok(())
}
