//! Which workspace an operation uses: [`choose_workspace`] over real directories and git
//! repositories, and the refusal of a guessed workspace for writing.

use std::path::{Path, PathBuf};

use chrono::Duration;
use goldfish_store::{
    CheckpointInput, WorkspaceCandidate, WorkspaceChoice, WorkspaceQuery, WorkspaceSource,
    choose_workspace, find_project, recent_workspaces,
};

use crate::{TestResult, git, repo_with_commit, store_at};

fn query(given: Option<&str>, dir: &Path, home: &Path) -> WorkspaceQuery {
    let mut q = WorkspaceQuery::default();
    q.given = given.map(str::to_string);
    q.dir = dir.to_path_buf();
    q.user_home = Some(home.to_path_buf());
    q
}

fn choose(
    given: Option<&str>,
    dir: &Path,
    home: &Path,
) -> Result<WorkspaceChoice, goldfish_store::Error> {
    choose_workspace(&query(given, dir, home))
}

/// A user's home holding a dotfiles repository and the default store, with a git project, a
/// linked worktree of it, a `.goldfish/` project and a plain directory under it.
struct Tree {
    _tmp: tempfile::TempDir,
    home: PathBuf,
}

impl Tree {
    fn new() -> Result<Self, Box<dyn std::error::Error>> {
        let tmp = tempfile::tempdir()?;
        let home = tmp.path().join("me");
        std::fs::create_dir_all(home.join(".goldfish"))?;
        git(&home, &["init", "-q"])?;
        repo_with_commit(&home.join("src/Reef-App"))?;
        std::fs::create_dir_all(home.join("src/Reef-App/crates/core"))?;
        git(
            &home.join("src/Reef-App"),
            &["worktree", "add", "-q", "-b", "side", "../reef-side"],
        )?;
        std::fs::create_dir_all(home.join("notes/Tide Pool/.goldfish"))?;
        std::fs::create_dir_all(home.join("notes/Tide Pool/deep"))?;
        std::fs::create_dir_all(home.join(".cache/plugins/goldfish/1.0"))?;
        Ok(Tree { _tmp: tmp, home })
    }
}

#[test]
fn projects_are_git_work_trees_or_goldfish_directories() -> TestResult {
    let t = Tree::new()?;
    let home = &t.home;
    let cases = [
        ("src/Reef-App", "reef-app", "src/Reef-App"),
        ("src/Reef-App/crates/core", "reef-app", "src/Reef-App"),
        // A linked worktree is its own project directory, named after the main repository.
        ("src/reef-side", "reef-app", "src/reef-side"),
        ("notes/Tide Pool/deep", "tide-pool", "notes/Tide Pool"),
    ];
    for (dir, name, root) in cases {
        let choice = choose(None, &home.join(dir), home)?;
        assert_eq!(choice.name, name, "{dir}");
        assert_eq!(
            choice.source,
            WorkspaceSource::Project(home.join(root)),
            "{dir}"
        );
        assert_eq!(
            find_project(&home.join(dir), Some(home)),
            Some(home.join(root))
        );
        assert_eq!(choice.clone().for_writing(&[])?, name);
        assert_eq!(choice.guess_note(), None);
    }
    Ok(())
}

#[test]
fn the_home_directory_and_the_root_are_never_projects() -> TestResult {
    let t = Tree::new()?;
    let home = &t.home;
    // The home holds `.git` (dotfiles) and `.goldfish/` (the store); a plugin cache under it
    // is inside neither a project nor anything but the home.
    for dir in [
        home.clone(),
        home.join(".cache/plugins/goldfish/1.0"),
        PathBuf::from("/"),
    ] {
        let choice = choose(None, &dir, home)?;
        assert!(
            matches!(&choice.source, WorkspaceSource::Guess(d) if *d == dir),
            "{}: {choice:?}",
            dir.display()
        );
        assert_eq!(find_project(&dir, Some(home)), None, "{}", dir.display());
        let note = choice.guess_note().ok_or("a guess has a note")?;
        assert!(note.contains(&dir.display().to_string()), "{note}");
        let err = choice
            .for_writing(&[WorkspaceCandidate::new("reef-app")])
            .expect_err("a guess is never written to");
        let message = err.to_string();
        for needle in [
            "no workspace to save to",
            &dir.display().to_string(),
            "not inside a project",
            "`workspace`",
            "GOLDFISH_WORKSPACE",
            "Candidates: `reef-app`",
        ] {
            assert!(message.contains(needle), "{needle:?} in {message}");
        }
    }
    // The root a client names is the workspace's directory, project or not, unless it is
    // the home directory or `/`.
    let mut q = query(None, &home.join(".cache/plugins/goldfish/1.0"), home);
    q.dir_is_client_root = true;
    let choice = choose_workspace(&q)?;
    assert_eq!(choice.name, "1-0");
    assert!(
        matches!(choice.source, WorkspaceSource::ClientRoot(_)),
        "{choice:?}"
    );
    q.dir = home.clone();
    assert!(matches!(
        choose_workspace(&q)?.source,
        WorkspaceSource::Guess(_)
    ));
    Ok(())
}

#[test]
fn a_given_name_or_project_path_wins() -> TestResult {
    let t = Tree::new()?;
    let home = &t.home;
    let plugin = home.join(".cache/plugins/goldfish/1.0");
    let choice = choose(Some(" My Project "), &plugin, home)?;
    assert_eq!(
        (choice.name.as_str(), &choice.source),
        ("my-project", &WorkspaceSource::Named)
    );
    // An absolute path names the project around it.
    let core = home.join("src/Reef-App/crates/core");
    let choice = choose(Some(&core.to_string_lossy()), &plugin, home)?;
    assert_eq!(choice.name, "reef-app");
    assert_eq!(choice.source, WorkspaceSource::Path(core));
    // A directory that is not inside a project is the caller's word for its own project.
    let plain = tempfile::tempdir()?;
    let dir = plain.path().join("Loose Notes");
    std::fs::create_dir(&dir)?;
    assert_eq!(
        choose(Some(&dir.to_string_lossy()), &plugin, home)?.name,
        "loose-notes"
    );
    // Refused, naming what was given: a missing directory, the home, `/`, an escape.
    let missing = home.join("no-such-dir");
    let missing = missing.to_string_lossy();
    let home_text = home.to_string_lossy();
    for (given, needle) in [
        (&*missing, "is not a directory"),
        (&*home_text, "not a project"),
        ("/", "not a project"),
        ("../etc", "workspace name"),
    ] {
        let err = choose(Some(given), &plugin, home).expect_err(given);
        assert!(err.is_invalid_input(), "{err}");
        let message = err.to_string();
        assert!(
            message.contains(needle) && message.contains(given),
            "{message}"
        );
    }
    // Blank counts as not given.
    assert!(matches!(
        choose(Some("  "), &plugin, home)?.source,
        WorkspaceSource::Guess(_)
    ));
    Ok(())
}

#[test]
fn recent_workspaces_are_listed_newest_first() -> TestResult {
    let home = tempfile::tempdir()?;
    let (store, clock) = store_at(home.path())?;
    for (workspace, days) in [("older", 0), ("newest", 3), ("middle", 1)] {
        clock.set(crate::seed_time() + Duration::days(days));
        let mut input = CheckpointInput::new(format!("work in {workspace}"));
        input.workspace = Some(workspace.into());
        store.save_checkpoint(input)?;
    }
    std::fs::create_dir(home.path().join("empty"))?;
    let listed = recent_workspaces(&store, 10)?;
    let names: Vec<&str> = listed.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["newest", "middle", "older", "empty"]);
    assert_eq!(
        listed[0].last_saved,
        Some(crate::seed_date() + Duration::days(3))
    );
    assert_eq!(listed[3].last_saved, None);
    assert_eq!(recent_workspaces(&store, 2)?.len(), 2);
    let err = choose(None, Path::new("/"), home.path())?
        .for_writing(&listed)
        .expect_err("a guess");
    assert!(
        err.to_string().contains(&format!(
            "`newest` (last saved {})",
            crate::seed_date() + Duration::days(3)
        )),
        "{err}"
    );
    Ok(())
}

#[test]
fn selector_words_are_never_workspaces_written_to() -> Result<(), Box<dyn std::error::Error>> {
    use goldfish_store::{CheckpointInput, ErrorKind, PlanInput, Store, WorkspaceSelector};
    let dir = tempfile::tempdir()?;
    let store = Store::open(dir.path())?;
    for name in ["all", "current", "ALL", " Current "] {
        let mut input = CheckpointInput::new("into a reserved word");
        input.workspace = Some(name.into());
        let e = store.save_checkpoint(input).err().ok_or("saved")?;
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
        assert!(e.message().contains("reserved word"), "{e}");
        let mut plan = PlanInput::new("Plan", "- [ ] x");
        plan.workspace = Some(name.into());
        let e = store.save_plan(plan).err().ok_or("saved")?;
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
        let mut imported =
            goldfish_store::Checkpoint::new("i-1", store.now(), name.trim(), "imported");
        imported.workspace = name.trim().to_string();
        assert!(store.import_checkpoint(&imported).is_err());
    }
    assert!(store.list_workspaces()?.is_empty(), "nothing was written");
    // Parsed once: the words, names (normalised) and paths.
    assert_eq!(
        "current".parse::<WorkspaceSelector>()?,
        WorkspaceSelector::Current
    );
    assert_eq!(
        " All ".parse::<WorkspaceSelector>()?,
        WorkspaceSelector::All
    );
    assert_eq!(
        "My API".parse::<WorkspaceSelector>()?,
        WorkspaceSelector::Named("my-api".into())
    );
    let path = dir.path().to_string_lossy().into_owned();
    assert_eq!(
        path.parse::<WorkspaceSelector>()?,
        WorkspaceSelector::Named(path.clone())
    );
    for bad in ["", "  ", "../x", "!!!"] {
        let e = bad.parse::<WorkspaceSelector>().err().ok_or(bad)?;
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{bad:?}: {e}");
    }
    assert!(WorkspaceSelector::All.single().is_err());
    assert_eq!(WorkspaceSelector::Current.single()?, None);
    Ok(())
}

#[test]
fn a_checkpoint_without_a_workspace_uses_its_own_git_directory() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(&dir.path().join("store"))?;
    let repo = dir.path().join("Lagoon");
    std::fs::create_dir_all(&repo)?;
    git(&repo, &["init", "-q"])?;
    let mut input = CheckpointInput::new("in the lagoon");
    input.git_dir = Some(repo.clone());
    // The test process runs elsewhere (the crate's directory), and the variable is not set
    // by the test harness for this crate.
    if std::env::var_os(goldfish_store::WORKSPACE_ENV).is_none() {
        assert_eq!(store.save_checkpoint(input)?.workspace, "lagoon");
    }
    Ok(())
}
