//! Sync orchestration: `init`, `sync` and `status` for the home store, and the in-repository
//! setup, all by driving the `git` executable.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use goldfish_core::fs::{FileLock, WriteOptions, create_dir_all, lock_exclusive, write_atomic};

use crate::driver::MERGE_THEIRS_ENV;
use crate::error::{Error, ErrorKind, Result};
use crate::git::{Git, is_non_fast_forward, shell_quote, split_z};
use crate::merge::{FileKind, classify, has_merge_conflict_text};

/// The name of the merge driver in `.gitattributes` (`merge=goldfish`) and git's config
/// (`merge.goldfish.driver`).
pub const DRIVER_NAME: &str = "goldfish";

/// The directory, at the top of a repository, that holds memory kept in the repository.
pub const IN_REPO_DIR: &str = goldfish_store::IN_REPO_DIR;

/// What git must never track in a store: sidecar lock files, temporary files of atomic
/// writes, and caches (a search index) that are rebuilt from the files.
const IGNORE_LINES: [&str; 5] = [".*.lock", ".*.tmp", ".index/", ".cache/", "*.tmp"];

/// Which files the goldfish merge driver merges, and `union` for the tombstone files (a line
/// per forgotten memory, only ever appended) and the two settings files, so that two
/// machines' versions of them never conflict.
const ATTRIBUTE_LINES: [&str; 8] = [
    "*/checkpoints/*.md merge=goldfish",
    "*/forgotten.md merge=union",
    "*/plans/*.md merge=goldfish",
    ".active-plan merge=goldfish",
    "JOURNAL.md merge=goldfish",
    "GOBLIN_NOTES.md merge=goldfish",
    ".gitignore merge=union",
    ".gitattributes merge=union",
];

/// What [`init_in_repo`] adds to the repository's own `.gitattributes`: the worktree's logs.
const REPO_ATTRIBUTE_LINES: [&str; 2] = [
    "JOURNAL.md merge=goldfish",
    "GOBLIN_NOTES.md merge=goldfish",
];

/// The branch a new store repository starts on.
const DEFAULT_BRANCH: &str = "main";

/// How [`sync`] runs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SyncOptions {
    /// The remote to sync with (default `origin`).
    pub remote: String,
    /// How many fetch–merge–push rounds to try when the remote moves on between our fetch and
    /// our push (default 5).
    pub max_attempts: usize,
    /// The machine's name in commit messages ("goldfish sync: 2 files from NAME"); default
    /// `this machine`. [`SyncOptions::from_env`] reads it from the system.
    pub host: String,
}

impl Default for SyncOptions {
    fn default() -> Self {
        SyncOptions {
            remote: "origin".to_string(),
            max_attempts: 5,
            host: DEFAULT_HOST.to_string(),
        }
    }
}

/// The machine's name in commit messages when none is known.
const DEFAULT_HOST: &str = "this machine";

impl SyncOptions {
    /// The defaults with the machine's name from `$HOSTNAME`, else `/etc/hostname`. For a
    /// binary; a library sets [`host`](Self::host) itself.
    pub fn from_env() -> SyncOptions {
        let host = std::env::var("HOSTNAME")
            .ok()
            .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| DEFAULT_HOST.to_string());
        SyncOptions {
            host,
            ..SyncOptions::default()
        }
    }
}

/// What a [`sync`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SyncReport {
    /// Files committed from the store's local changes (over all rounds).
    pub committed: usize,
    /// Whether the remote's changes were merged in (at least once).
    pub merged: bool,
    /// Whether our commits were pushed (false when the remote already had them).
    pub pushed: bool,
    /// Fetch–merge–push rounds it took.
    pub attempts: usize,
    /// Plans (paths relative to the store) whose bodies were changed on both sides and now
    /// hold both versions between merge-conflict markers; `goldfish plan get` shows them.
    pub plan_conflicts: Vec<PathBuf>,
    /// Workspaces from which memories named by a tombstone were removed after the merge
    /// (forgotten on another machine, or brought back by one that had not heard of the
    /// forget yet): their search caches are stale.
    pub forgotten_in: Vec<String>,
}

/// Where the store stands against its remote, as of the last fetch (see [`status`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SyncStatus {
    /// The branch the store is on.
    pub branch: String,
    /// The remote's URL, when one is configured.
    pub remote_url: Option<String>,
    /// Commits here that the remote does not have.
    pub ahead: usize,
    /// Commits on the remote (as last fetched) that are not here.
    pub behind: usize,
    /// Files with changes the remote does not have: not yet committed, or committed and not
    /// pushed. Paths relative to the store, sorted.
    pub unsynced: Vec<PathBuf>,
}

/// What [`init`] set up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct InitReport {
    /// A new repository was created (false when the store already was one).
    pub created_repository: bool,
    /// The remote that was added or changed, if any.
    pub remote: Option<String>,
}

/// The merge driver command registered in git's config for `goldfish_binary`:
/// `'<binary>' merge-driver %O %A %B %P`.
pub fn driver_command(goldfish_binary: &Path) -> String {
    format!(
        "{} merge-driver %O %A %B %P",
        shell_quote(&goldfish_binary.to_string_lossy())
    )
}

/// Makes the store at `home` a git repository that syncs (idempotent: running it again only
/// fills in what is missing).
///
/// - `git init` (branch `main`) when `home` is not yet the top of a repository, private
///   like the rest of the store: `.git` 0700, `core.sharedRepository = 0600` (so files git
///   writes there are 0600), `.gitignore` and `.gitattributes` 0600 — also when `home`
///   already was a repository;
/// - `.gitignore` ignoring lock files (`.*.lock`), temporary files (`.*.tmp`) and caches
///   (`.index/`, `.cache/`), and `.gitattributes` sending day files, plans, `.active-plan`,
///   `JOURNAL.md` and `GOBLIN_NOTES.md` to the goldfish merge driver; both committed;
/// - the driver registered in the repository's own config ([`fix_driver_config`]);
/// - with `remote`, the `origin` remote added or pointed at it.
///
/// Nothing is fetched or pushed: [`sync`] does that, and merges unrelated histories, so a
/// second machine can `init` its own store and sync into the same remote.
pub fn init(home: &Path, remote: Option<&str>, goldfish_binary: &Path) -> Result<InitReport> {
    create_dir_all(home, Some(0o700))?;
    let mut git = Git::new(home);
    git.run(&["--version"])?;
    let mut report = InitReport::default();
    if !is_top_of_repository(&git)? {
        // `--shared=0600`: everything git creates in `.git` is private, as the store is.
        git.ok(&["init", "-q", "--shared=0600", "-b", DEFAULT_BRANCH])?;
        report.created_repository = true;
    }
    keep_repository_private(&git)?;
    ensure_lines(&home.join(".gitignore"), &IGNORE_LINES)?;
    ensure_lines(&home.join(".gitattributes"), &ATTRIBUTE_LINES)?;
    set_private(&home.join(".gitignore"), 0o600)?;
    set_private(&home.join(".gitattributes"), 0o600)?;
    fix_driver_config(home, goldfish_binary)?;
    if let Some(url) = remote {
        let has_origin = git.run(&["remote", "get-url", "origin"])?.ok;
        if has_origin {
            git.ok(&["remote", "set-url", "origin", url])?;
        } else {
            git.ok(&["remote", "add", "origin", url])?;
        }
        report.remote = Some(url.to_string());
    }
    git.ensure_identity()?;
    commit_paths(
        &git,
        &[".gitignore", ".gitattributes"],
        "goldfish sync init: ignore locks and caches, merge memory by meaning",
    )?;
    Ok(report)
}

/// Keeps the store's repository as private as the store: `core.sharedRepository = 0600`
/// (files git writes in `.git` from now on are 0600, its directories 0700), the git
/// directory itself 0700, and what was already in it stripped of group and other
/// permissions, so nothing there is reachable by other users.
fn keep_repository_private(git: &Git) -> Result<()> {
    let key = "core.sharedRepository";
    let current = git.run(&["config", "--local", "--get", key])?;
    if !current.ok || current.stdout.trim() != "0600" {
        git.ok(&["config", "--local", key, "0600"])?;
    }
    let git_dir = git.ok(&["rev-parse", "--absolute-git-dir"])?;
    let git_dir = Path::new(git_dir.trim_end_matches('\n'));
    set_private(git_dir, 0o700)?;
    strip_others(git_dir)
}

/// Takes every group and other permission away from what is under `dir` (Unix), so a
/// repository made before `core.sharedRepository` was set has nothing left open either.
fn strip_others(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let io = |path: &Path, e: std::io::Error| {
            Error::new(ErrorKind::Io, format!("cannot make it private: {e}"))
                .with_path(path)
                .with_source(e)
        };
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).map_err(|e| io(&d, e))? {
                let entry = entry.map_err(|e| io(&d, e))?;
                let path = entry.path();
                // Not followed: a symbolic link's target is not the repository's.
                let meta = std::fs::symlink_metadata(&path).map_err(|e| io(&path, e))?;
                if meta.file_type().is_symlink() {
                    continue;
                }
                let mode = meta.permissions().mode() & 0o7777;
                if mode & 0o077 != 0 {
                    set_private(&path, mode & !0o077)?;
                }
                if meta.is_dir() {
                    stack.push(path);
                }
            }
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Sets `path`'s mode to `mode` (Unix; elsewhere files keep what the system gives them).
fn set_private(path: &Path, mode: u32) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(|e| {
            Error::new(
                ErrorKind::Io,
                format!("cannot make it private (mode {mode:o}): {e}"),
            )
            .with_path(path)
            .with_source(e)
        })?;
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
    Ok(())
}

/// Registers the goldfish merge driver in the repository's own config (`.git/config`):
/// `merge.goldfish.driver = '<goldfish_binary>' merge-driver %O %A %B %P`. Config is not
/// cloned, so a fresh clone of a repository with memory in it needs this once (`goldfish
/// doctor --fix`). Returns whether anything changed.
pub fn fix_driver_config(repo: &Path, goldfish_binary: &Path) -> Result<bool> {
    let git = Git::new(repo);
    let command = driver_command(goldfish_binary);
    let mut changed = false;
    for (key, value) in [
        (
            format!("merge.{DRIVER_NAME}.name"),
            "goldfish memory (merges entries by meaning)".to_string(),
        ),
        (format!("merge.{DRIVER_NAME}.driver"), command),
    ] {
        let current = git.run(&["config", "--local", "--get", &key])?;
        if !current.ok || current.stdout.trim_end_matches('\n') != value {
            git.ok(&["config", "--local", &key, &value])?;
            changed = true;
        }
    }
    Ok(changed)
}

/// Whether the repository at `repo` has the goldfish merge driver registered (for `goldfish
/// doctor`): any `merge.goldfish.driver` in its config.
pub fn driver_configured(repo: &Path) -> Result<bool> {
    let git = Git::new(repo);
    let ran = git.run(&["config", "--get", &format!("merge.{DRIVER_NAME}.driver")])?;
    Ok(ran.ok && !ran.stdout.trim().is_empty())
}

/// Keeps a workspace's memory in the repository at (or above) `repo_dir`, under
/// `{repo}/.goldfish/` (a store root: `.goldfish/{workspace}/checkpoints/…`, `plans/…`), so it
/// is committed with the code and travels with branches. Writes `.goldfish/.gitignore` and
/// `.goldfish/.gitattributes` (the same rules as [`init`], for that directory only), adds
/// `JOURNAL.md` and `GOBLIN_NOTES.md` to the repository's `.gitattributes` (so the worktree's
/// logs, when committed, merge as append-only unions), commits just those files, and
/// registers the merge driver in the repository's config.
/// Idempotent. Returns the store root to open with `goldfish_store::Store::open`.
pub fn init_in_repo(repo_dir: &Path, workspace: &str, goldfish_binary: &Path) -> Result<PathBuf> {
    let workspace = goldfish_store::validate_workspace(workspace)
        .map_err(|e| Error::new(ErrorKind::InvalidInput, e.to_string()).with_source(e))?;
    let mut git = Git::new(repo_dir);
    let ran = git.run(&["rev-parse", "--show-toplevel"])?;
    if !ran.ok {
        return Err(Error::new(
            ErrorKind::NotARepository,
            "memory kept in a repository needs a git repository: run this inside one (or `git init` first)",
        )
        .with_path(repo_dir));
    }
    let top = PathBuf::from(ran.stdout.trim_end_matches('\n'));
    git = Git::new(&top);
    let root = top.join(IN_REPO_DIR);
    create_dir_all(&root.join(&workspace), None)?;
    ensure_lines(&root.join(".gitignore"), &IGNORE_LINES)?;
    ensure_lines(&root.join(".gitattributes"), &ATTRIBUTE_LINES)?;
    // The worktree's own logs, when a project commits them, merge the same way.
    ensure_lines(&top.join(".gitattributes"), &REPO_ATTRIBUTE_LINES)?;
    fix_driver_config(&top, goldfish_binary)?;
    git.ensure_identity()?;
    commit_paths(
        &git,
        &[
            ".goldfish/.gitignore",
            ".goldfish/.gitattributes",
            ".gitattributes",
        ],
        "goldfish: keep this repository's memory in .goldfish/, merged by meaning",
    )?;
    Ok(root)
}

/// Syncs the store at `home` with its remote: commits local changes (with a generated
/// message), fetches, merges (with the goldfish merge driver), and pushes, starting over from
/// the fetch when the remote moved on meanwhile (at most [`SyncOptions::max_attempts`]
/// rounds).
///
/// **Locks.** One sync at a time per store (`.sync.lock`). Before merging, sync takes the
/// store's own sidecar lock of every file the merge may write (the files the remote changed
/// since the common ancestor) — the same `.{name}.lock` a checkpoint or plan save takes —
/// and commits once more under them. A concurrent save of one of those files waits until the
/// merge is done and then adds its entry to the merged file; a save to any other file goes
/// on and lands in the next sync. No save ever writes into a half-merged file, and no merge
/// overwrites a save.
///
/// **Merging never tears a file.** The merge is computed apart from the work tree (`git
/// merge-tree`, which runs the goldfish merge driver); each file it changed is then replaced
/// atomically, and only then does the branch move. A sync killed at any instant leaves every
/// file old or merged, and the next sync (which first removes git's stale lock files)
/// commits what is there and merges again, losing nothing, since merges are unions.
///
/// **Failures leave the store as it was**: git missing (or older than 2.38), not a
/// repository, no remote, remote unreachable, authentication refused, push rejected, or a
/// file that cannot be merged by meaning ([`ErrorKind::Conflict`], naming the files; nothing
/// is merged). The only trace is the local commit of local changes, which changes no file.
pub fn sync(home: &Path, options: &SyncOptions) -> Result<SyncReport> {
    if !home.is_dir() {
        return Err(not_a_store_repo(home));
    }
    let mut git = Git::new(home);
    check_git_version(&git)?;
    if !is_top_of_repository(&git)? {
        return Err(not_a_store_repo(home));
    }
    let _sync_lock = lock_exclusive(&home.join("sync"), &WriteOptions::private())?;
    recover(&git)?;
    git.ensure_identity()?;
    let remote = &options.remote;
    if !git.run(&["remote", "get-url", remote])?.ok {
        return Err(Error::new(
            ErrorKind::NoRemote,
            format!("no remote `{remote}` to sync with (`git remote add {remote} <url>` adds one)"),
        )
        .with_path(home));
    }
    let branch = current_branch(&git)?;
    let remote_ref = format!("refs/remotes/{remote}/{branch}");
    // A store made before tombstones were synced gets their merge rule (committed below).
    ensure_lines(&home.join(".gitattributes"), &ATTRIBUTE_LINES)?;
    let mut report = SyncReport::default();
    apply_tombstones(home, &mut report)?;
    report.committed = commit_local(&git, &options.host)?;
    for attempt in 1..=options.max_attempts.max(1) {
        report.attempts = attempt;
        let remote_has_branch = fetch(&git, remote, &branch, &remote_ref)?;
        if remote_has_branch && !is_ancestor(&git, &remote_ref, "HEAD")? {
            merge_remote(&git, home, &remote_ref, &options.host, &mut report)?;
            // What the other side still held of what a tombstone (ours or theirs) names.
            if apply_tombstones(home, &mut report)? {
                report.committed += commit_local(&git, &options.host)?;
            }
        }
        if remote_has_branch && rev(&git, &remote_ref)? == rev(&git, "HEAD")? {
            return Ok(report);
        }
        let refspec = format!("HEAD:refs/heads/{branch}");
        let args = ["push", "-u", remote.as_str(), refspec.as_str()];
        let ran = git.run(&args)?;
        if ran.ok {
            report.pushed = true;
            return Ok(report);
        }
        if !is_non_fast_forward(&ran) {
            return Err(git.failure(&args, &ran));
        }
    }
    Err(Error::new(
        ErrorKind::PushRejected,
        format!(
            "the remote kept moving: {} fetch–merge–push rounds did not get our commits in; run sync again",
            options.max_attempts.max(1)
        ),
    )
    .with_path(home))
}

/// Where the store stands against its remote: ahead/behind counts and unsynced files. Reads
/// only local state (the remote as of the last fetch); it never contacts the remote.
pub fn status(home: &Path) -> Result<SyncStatus> {
    if !home.is_dir() {
        return Err(not_a_store_repo(home));
    }
    let git = Git::new(home);
    git.run(&["--version"])?;
    if !is_top_of_repository(&git)? {
        return Err(not_a_store_repo(home));
    }
    let branch = current_branch(&git)?;
    let url = git.run(&["remote", "get-url", "origin"])?;
    let remote_url = url.ok.then(|| url.stdout.trim().to_string());
    let remote_ref = format!("refs/remotes/origin/{branch}");
    let has_head = git.run(&["rev-parse", "--verify", "-q", "HEAD"])?.ok;
    let has_remote = git.run(&["rev-parse", "--verify", "-q", &remote_ref])?.ok;
    let mut status = SyncStatus {
        branch,
        remote_url,
        ..SyncStatus::default()
    };
    let mut files: Vec<String> = Vec::new();
    if has_head && has_remote {
        let counts = git.ok(&[
            "rev-list",
            "--left-right",
            "--count",
            &format!("HEAD...{remote_ref}"),
        ])?;
        let mut it = counts
            .split_whitespace()
            .map(|n| n.parse::<usize>().unwrap_or(0));
        status.ahead = it.next().unwrap_or(0);
        status.behind = it.next().unwrap_or(0);
        files.extend(split_z(&git.ok(&[
            "diff",
            "--name-only",
            "-z",
            &format!("{remote_ref}...HEAD"),
        ])?));
    } else if has_head {
        status.ahead = git
            .ok(&["rev-list", "--count", "HEAD"])?
            .trim()
            .parse()
            .unwrap_or(0);
        files.extend(split_z(&git.ok(&[
            "ls-tree",
            "-r",
            "--name-only",
            "-z",
            "HEAD",
        ])?));
    }
    let porcelain = git.ok(&["status", "--porcelain", "-z", "--untracked-files=all"])?;
    let mut entries = porcelain.split('\0').filter(|s| !s.is_empty());
    while let Some(entry) = entries.next() {
        if entry.len() > 3 {
            files.push(entry[3..].to_string());
        }
        // A rename is followed by its source path.
        if entry.starts_with('R') || entry.starts_with('C') {
            entries.next();
        }
    }
    files.sort();
    files.dedup();
    status.unsynced = files.into_iter().map(PathBuf::from).collect();
    Ok(status)
}

// ----- steps ---------------------------------------------------------------------------------

/// Sync merges with `git merge-tree --write-tree` (git 2.38, 2022): refuse older gits with a
/// clear message rather than fail in the middle.
fn check_git_version(git: &Git) -> Result<()> {
    let version = git.ok(&["--version"])?;
    let numbers: Vec<u32> = version
        .split_whitespace()
        .nth(2)
        .unwrap_or("")
        .split('.')
        .map_while(|n| n.parse().ok())
        .collect();
    match numbers.as_slice() {
        [major, minor, ..] if (*major, *minor) < (2, 38) => Err(Error::new(
            ErrorKind::GitMissing,
            format!(
                "goldfish sync needs git 2.38 or newer, and this is {}; upgrade git and run again",
                version.trim()
            ),
        )),
        _ => Ok(()),
    }
}

fn not_a_store_repo(home: &Path) -> Error {
    Error::new(
        ErrorKind::NotARepository,
        "the store is not a git repository yet",
    )
    .with_path(home)
}

/// True when the repository's top level is exactly `git.dir()` (not a repository the store
/// merely sits inside, such as a dotfiles repository).
fn is_top_of_repository(git: &Git) -> Result<bool> {
    let ran = git.run(&["rev-parse", "--show-toplevel"])?;
    if !ran.ok {
        return Ok(false);
    }
    let top = PathBuf::from(ran.stdout.trim_end_matches('\n'));
    let same = match (top.canonicalize(), git.dir().canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    Ok(same)
}

fn current_branch(git: &Git) -> Result<String> {
    let ran = git.run(&["symbolic-ref", "--short", "-q", "HEAD"])?;
    if !ran.ok || ran.stdout.trim().is_empty() {
        return Err(Error::new(
            ErrorKind::Git,
            "the store's repository is not on a branch (detached HEAD): check out its branch (`git checkout main`) and run sync again",
        )
        .with_path(git.dir()));
    }
    Ok(ran.stdout.trim().to_string())
}

fn rev(git: &Git, name: &str) -> Result<Option<String>> {
    let ran = git.run(&["rev-parse", "--verify", "-q", name])?;
    Ok(ran.ok.then(|| ran.stdout.trim().to_string()))
}

fn is_ancestor(git: &Git, ancestor: &str, of: &str) -> Result<bool> {
    if rev(git, of)?.is_none() {
        return Ok(false);
    }
    let ran = git.run(&["merge-base", "--is-ancestor", ancestor, of])?;
    match ran.code {
        Some(0) => Ok(true),
        Some(1) => Ok(false),
        _ => Err(git.failure(&["merge-base", "--is-ancestor", ancestor, of], &ran)),
    }
}

/// How old a lock file in `.git` must be before it is taken as left by a killed git: a
/// younger one may belong to a git still finishing (an orphan of a killed sync).
const STALE_GIT_LOCK: Duration = Duration::from_secs(5);

/// Undoes what a sync killed halfway left: git's lock files (`index.lock`, ref locks). Runs
/// under the sync lock, so no other sync of this store is running; a lock younger than
/// [`STALE_GIT_LOCK`] is given that long to go away first. Merges never leave a half-merged
/// work tree (see [`merge_remote`]); a merge someone started by hand in the store is aborted.
fn recover(git: &Git) -> Result<()> {
    let git_dir = git.dir().join(".git");
    let mut locks = Vec::new();
    collect_locks(&git_dir, &mut locks, 0);
    for lock in locks {
        loop {
            let age = std::fs::metadata(&lock)
                .and_then(|m| m.modified())
                .ok()
                .map(|t| SystemTime::now().duration_since(t).unwrap_or_default());
            match age {
                None => break,
                Some(age) if age < STALE_GIT_LOCK => {
                    // A deadline, not a synchronisation: a live git releases its lock in
                    // milliseconds; past the deadline the lock is stale.
                    std::thread::sleep(Duration::from_millis(100));
                }
                Some(_) => {
                    match std::fs::remove_file(&lock) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => {
                            return Err(Error::new(
                                ErrorKind::Io,
                                format!("cannot remove git's stale lock: {e}; remove it by hand"),
                            )
                            .with_path(&lock)
                            .with_source(e));
                        }
                    }
                    break;
                }
            }
        }
    }
    if git_dir.join("MERGE_HEAD").exists() {
        let aborted = git
            .run(&["merge", "--abort"])
            .map(|r| r.ok)
            .unwrap_or(false);
        if !aborted {
            let _ = git.run(&["reset", "--merge"]);
        }
    }
    Ok(())
}

/// The `*.lock` files of `.git` itself and under `.git/refs` (not the objects).
fn collect_locks(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".lock") && path.is_file() {
            out.push(path);
        } else if path.is_dir() && (name == "refs" || depth > 0) && depth < 8 {
            collect_locks(&path, out, depth + 1);
        }
    }
}

/// Stages and commits every local change; returns how many files the commit holds.
fn commit_local(git: &Git, host: &str) -> Result<usize> {
    git.ok(&["add", "-A"])?;
    let staged = split_z(&git.ok(&["diff", "--cached", "--name-only", "-z"])?);
    if staged.is_empty() {
        return Ok(0);
    }
    let message = format!(
        "goldfish sync: {} file{} from {} at {}",
        staged.len(),
        if staged.len() == 1 { "" } else { "s" },
        host,
        goldfish_core::time::format_utc(&chrono::Utc::now()),
    );
    let args = [
        "-c",
        "commit.gpgsign=false",
        "commit",
        "-q",
        "--no-verify",
        "-m",
        message.as_str(),
    ];
    let ran = git.commit_cmd(&args)?;
    if !ran.ok {
        return Err(git.failure(&args, &ran));
    }
    Ok(staged.len())
}

/// Commits just `paths` when they changed (other staged changes stay staged).
fn commit_paths(git: &Git, paths: &[&str], message: &str) -> Result<()> {
    let mut add = vec!["add", "--"];
    add.extend_from_slice(paths);
    git.ok(&add)?;
    let mut diff = vec!["diff", "--cached", "--quiet", "--"];
    diff.extend_from_slice(paths);
    let has_head = git.run(&["rev-parse", "--verify", "-q", "HEAD"])?.ok;
    if has_head && git.run(&diff)?.ok {
        return Ok(());
    }
    let mut args = vec!["commit", "-q", "--no-verify", "-m", message, "--"];
    args.extend_from_slice(paths);
    let ran = git.commit_cmd(&args)?;
    if !ran.ok {
        return Err(git.failure(&args, &ran));
    }
    Ok(())
}

/// Fetches the remote's branch into `remote_ref`; false when the remote has no such branch
/// yet (a new, empty remote).
fn fetch(git: &Git, remote: &str, branch: &str, remote_ref: &str) -> Result<bool> {
    let refspec = format!("+refs/heads/{branch}:{remote_ref}");
    let args = ["fetch", "-q", "--no-tags", remote, refspec.as_str()];
    let ran = git.run(&args)?;
    if ran.ok {
        return Ok(true);
    }
    if ran.stderr.contains("couldn't find remote ref") {
        return Ok(false);
    }
    Err(git.failure(&args, &ran))
}

/// Merges `remote_ref` into HEAD under the store locks of every file the merge may write.
///
/// The merge is computed apart from the work tree (`git merge-tree --write-tree`, which runs
/// the merge driver), so a file that cannot be merged leaves every file untouched. A clean
/// result is committed (`commit-tree`), each changed file is replaced atomically in the work
/// tree, and only then does the branch move: a sync killed at any instant leaves each file
/// old or merged, never torn, and the next sync commits what is there and merges again,
/// which loses nothing because merges are unions.
fn merge_remote(
    git: &Git,
    home: &Path,
    remote_ref: &str,
    host: &str,
    report: &mut SyncReport,
) -> Result<()> {
    let range = format!("HEAD...{remote_ref}");
    let changed = git.run(&["diff", "--name-only", "--no-renames", "-z", &range])?;
    let files = if changed.ok {
        split_z(&changed.stdout)
    } else {
        // No common ancestor (two machines that each ran `sync init`): every file of theirs.
        split_z(&git.ok(&["ls-tree", "-r", "--name-only", "-z", remote_ref])?)
    };
    let mut sorted = files;
    sorted.sort();
    sorted.dedup();
    let mut locks: Vec<FileLock> = Vec::with_capacity(sorted.len());
    for file in &sorted {
        locks.push(lock_exclusive(&home.join(file), &WriteOptions::private())?);
    }
    report.committed += commit_local(git, host)?;
    let head = rev(git, "HEAD")?.ok_or_else(|| {
        Error::new(ErrorKind::Git, "the store's repository has no commit yet").with_path(home)
    })?;
    let message = format!("goldfish sync: merge {remote_ref} from {host}");
    let merge = if is_ancestor(git, &head, remote_ref)? {
        // Nothing here the remote lacks: fast-forward to its commit.
        rev(git, remote_ref)?.unwrap_or_default()
    } else {
        merge_commit(git, home, &head, remote_ref, &message)?
    };
    // The files the merge changed, written atomically before the branch moves.
    let diff = git.ok(&[
        "diff-tree",
        "-r",
        "--no-renames",
        "--name-status",
        "-z",
        &head,
        &merge,
    ])?;
    let mut fields = split_z(&diff).into_iter();
    while let (Some(status), Some(file)) = (fields.next(), fields.next()) {
        let path = home.join(&file);
        if status == "D" {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(Error::new(ErrorKind::Io, format!("cannot remove it: {e}"))
                        .with_path(path)
                        .with_source(e));
                }
            }
            continue;
        }
        let spec = format!("{merge}:{file}");
        let blob = git.run(&["cat-file", "blob", &spec])?;
        if !blob.ok {
            return Err(git.failure(&["cat-file", "blob", &spec], &blob));
        }
        write_atomic(&path, &blob.stdout_bytes, &WriteOptions::private())?;
        if matches!(classify(&file), FileKind::Plan { .. })
            && has_merge_conflict_text(&String::from_utf8_lossy(&blob.stdout_bytes))
        {
            report.plan_conflicts.push(PathBuf::from(&file));
        }
    }
    git.ok(&["update-ref", "-m", &message, "HEAD", &merge, &head])?;
    // The index follows the new commit; the work tree already does.
    git.ok(&["reset", "-q"])?;
    report.merged = true;
    drop(locks);
    Ok(())
}

/// A merge commit of `head` and `remote_ref`, made without touching the work tree (`git
/// merge-tree --write-tree`, which runs the goldfish merge driver, then `commit-tree`).
fn merge_commit(
    git: &Git,
    home: &Path,
    head: &str,
    remote_ref: &str,
    message: &str,
) -> Result<String> {
    let args = [
        "merge-tree",
        "--write-tree",
        "--allow-unrelated-histories",
        "--name-only",
        "--no-messages",
        "-z",
        head,
        remote_ref,
    ];
    let ran = git.commit_cmd_env(&args, &[(MERGE_THEIRS_ENV, remote_ref)])?;
    let mut out = split_z(&ran.stdout).into_iter();
    let mut tree = out.next().unwrap_or_default();
    match ran.code {
        Some(0) => {}
        Some(1) => {
            let conflicted: Vec<String> = out.collect();
            if let Some(cleaned) =
                without_forgotten_plans(git, tree.trim(), [head, remote_ref], &conflicted)?
            {
                tree = cleaned;
            } else {
                return Err(Error::new(
                ErrorKind::Conflict,
                format!(
                    "could not merge {} by meaning, so nothing was merged and the store is as it was; fix or remove the unreadable text on one side and run sync again",
                    conflicted.join(", "),
                ),
            )
            .with_path(home)
            .with_files(conflicted.into_iter().map(PathBuf::from).collect()));
            }
        }
        _ => return Err(git.failure(&args, &ran)),
    }
    let commit_args = [
        "commit-tree",
        tree.trim(),
        "-p",
        head,
        "-p",
        remote_ref,
        "-m",
        message,
    ];
    let ran = git.commit_cmd(&commit_args)?;
    if !ran.ok {
        return Err(git.failure(&commit_args, &ran));
    }
    Ok(ran.stdout.trim().to_string())
}

/// Removes from the store what its tombstones name and a file still holds; true when
/// something was removed (then `report` names the workspaces).
fn apply_tombstones(home: &Path, report: &mut SyncReport) -> Result<bool> {
    let store_error = |e: goldfish_store::Error| {
        let path = e
            .path()
            .map_or_else(|| home.to_path_buf(), Path::to_path_buf);
        Error::new(
            ErrorKind::Io,
            format!("cannot apply the forgotten memories' tombstones: {e}"),
        )
        .with_path(path)
    };
    let store = goldfish_store::Store::open(home).map_err(store_error)?;
    let applied = store.apply_tombstones().map_err(store_error)?;
    for (ws, _) in &applied {
        if !report.forgotten_in.contains(ws) {
            report.forgotten_in.push(ws.clone());
        }
    }
    Ok(!applied.is_empty())
}

/// When every file a merge could not merge is a plan that a tombstone of either side names
/// (deleted on one side, changed on the other: git's modify/delete), the merged tree without
/// those plans; `None` when any other file is in conflict.
fn without_forgotten_plans(
    git: &Git,
    tree: &str,
    sides: [&str; 2],
    conflicted: &[String],
) -> Result<Option<String>> {
    if conflicted.is_empty() {
        return Ok(None);
    }
    for path in conflicted {
        let FileKind::Plan { workspace, id } = classify(path) else {
            return Ok(None);
        };
        let file = format!("{workspace}/{}", goldfish_store::TOMBSTONE_FILE);
        let mut named = false;
        for side in sides {
            let shown = git.run(&["show", &format!("{side}:{file}")])?;
            named |= shown.ok
                && goldfish_store::parse_tombstones(&shown.stdout).is_ok_and(|stones| {
                    stones.iter().any(|t| {
                        matches!(&t.what, goldfish_store::Forgotten::Plan { id: gone } if *gone == id)
                    })
                });
        }
        if !named {
            return Ok(None);
        }
    }
    // The tree less those paths, through an index of our own (the store's is untouched).
    let index = git.ok(&["rev-parse", "--git-path", "goldfish-merge.index"])?;
    let index = git.dir().join(index.trim());
    let env = [("GIT_INDEX_FILE", index.to_str().unwrap_or_default())];
    let mut remove = vec!["update-index", "--force-remove", "--"];
    remove.extend(conflicted.iter().map(String::as_str));
    let steps: [&[&str]; 3] = [&["read-tree", tree], &remove, &["write-tree"]];
    let mut out = String::new();
    for args in steps {
        let ran = git.commit_cmd_env(args, &env)?;
        if !ran.ok {
            let _ = std::fs::remove_file(&index);
            return Err(git.failure(args, &ran));
        }
        out = ran.stdout;
    }
    let _ = std::fs::remove_file(&index);
    Ok(Some(out.trim().to_string()))
}

/// Adds the missing `lines` to the text file at `path` (creating it), keeping what is there.
fn ensure_lines(path: &Path, lines: &[&str]) -> Result<()> {
    let current = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(Error::new(ErrorKind::Io, format!("cannot read it: {e}"))
                .with_path(path)
                .with_source(e));
        }
    };
    let have: Vec<&str> = current.lines().map(str::trim).collect();
    let missing: Vec<&&str> = lines.iter().filter(|l| !have.contains(l)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let mut text = current.clone();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for line in missing {
        text.push_str(line);
        text.push('\n');
    }
    write_atomic(path, text.as_bytes(), &WriteOptions::umask())?;
    Ok(())
}
