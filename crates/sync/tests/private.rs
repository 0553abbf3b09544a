//! The synced store stays private: `.git` and the files `init` writes are the owner's only.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use goldfish_store::CheckpointInput;
use goldfish_sync::{SyncOptions, init, sync};

use crate::util::{TestResult, bare_remote, git, store_at, tool};

fn mode(path: &Path) -> TestResult<u32> {
    Ok(std::fs::metadata(path)?.permissions().mode() & 0o777)
}

/// Every directory and file under `dir`, with its mode, that other users could read, write
/// or enter (any group or other bit).
fn open_to_others(dir: &Path) -> TestResult<Vec<String>> {
    let mut open = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            let m = mode(&path)?;
            if m & 0o077 != 0 {
                open.push(format!("{:o} {}", m, path.display()));
            }
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    Ok(open)
}

/// What git writes for a sync: objects, refs, logs, the index and config.
fn assert_private_repository(home: &Path) -> TestResult {
    assert_eq!(mode(&home.join(".git"))?, 0o700);
    assert_eq!(mode(&home.join(".gitignore"))?, 0o600);
    assert_eq!(mode(&home.join(".gitattributes"))?, 0o600);
    assert_eq!(
        git(home, &["config", "--get", "core.sharedRepository"]).trim(),
        "0600"
    );
    let mut open = Vec::new();
    for sub in ["objects", "refs", "logs"] {
        open.extend(open_to_others(&home.join(".git").join(sub))?);
    }
    for file in ["config", "HEAD", "index"] {
        let m = mode(&home.join(".git").join(file))?;
        if m & 0o077 != 0 {
            open.push(format!("{m:o} .git/{file}"));
        }
    }
    assert!(open.is_empty(), "open to other users: {open:#?}");
    Ok(())
}

#[test]
fn init_and_sync_keep_the_repository_private() -> TestResult {
    let dir = tempfile::tempdir()?;
    let remote = bare_remote(dir.path());
    let home = dir.path().join("home");
    init(&home, remote.to_str(), &tool())?;
    store_at(&home, "2026-03-01T10:00:00Z")?.save_checkpoint(input_in("ws", "private work"))?;
    sync(&home, &SyncOptions::default())?;
    assert_private_repository(&home)
}

#[test]
fn init_makes_an_existing_repository_private() -> TestResult {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    std::fs::create_dir(&home)?;
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700))?;
    git(&home, &["init", "-q", "-b", "main"]);
    std::fs::write(home.join(".gitignore"), "notes.tmp\n")?;
    std::fs::set_permissions(
        home.join(".gitignore"),
        std::fs::Permissions::from_mode(0o644),
    )?;
    std::fs::set_permissions(home.join(".git"), std::fs::Permissions::from_mode(0o755))?;
    init(&home, None, &tool())?;
    // What was there is kept, and the repository is now private.
    assert!(std::fs::read_to_string(home.join(".gitignore"))?.starts_with("notes.tmp\n"));
    assert_eq!(mode(&home.join(".git"))?, 0o700);
    assert_eq!(mode(&home.join(".gitignore"))?, 0o600);
    assert_eq!(mode(&home.join(".gitattributes"))?, 0o600);
    store_at(&home, "2026-03-01T10:00:00Z")?.save_checkpoint(input_in("ws", "after init"))?;
    git(&home, &["add", "-A"]);
    git(&home, &["commit", "-q", "-m", "later"]);
    assert_eq!(
        open_to_others(&home.join(".git/refs"))?,
        Vec::<String>::new()
    );
    Ok(())
}

/// A checkpoint for workspace `ws` (a save names its workspace or its directory).
fn input_in(ws: &str, description: &str) -> CheckpointInput {
    let mut input = CheckpointInput::new(description);
    input.workspace = Some(ws.into());
    input
}
