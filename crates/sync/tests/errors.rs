//! Failures: clear errors of the right kind, and the store's files untouched.

use std::fs;
use std::path::Path;
use std::process::Command;

use goldfish_store::CheckpointInput;
use goldfish_sync::{ErrorKind, SyncOptions, init, status, sync};

use crate::util::{TestResult, bare_remote, git, snapshot, store_at, tool};

fn save(home: &Path, text: &str) -> TestResult {
    let mut input = CheckpointInput::new(text);
    input.workspace = Some("ws".into());
    store_at(home, "2025-10-13T09:00:00Z")?.save_checkpoint(input)?;
    Ok(())
}

/// Runs sync on a store with a local change and checks the error kind and that no store byte
/// changed.
fn fails_untouched(home: &Path, kind: ErrorKind, words: &str) -> TestResult {
    save(home, "Local work that must survive")?;
    let before = snapshot(home);
    let err = sync(home, &SyncOptions::default()).expect_err("sync fails");
    assert_eq!(err.kind(), kind, "{err}");
    assert!(err.to_string().contains(words), "{err}");
    assert_eq!(snapshot(home), before, "the store is untouched");
    assert!(!home.join(".git/MERGE_HEAD").exists());
    Ok(())
}

#[test]
fn not_a_repository() -> TestResult {
    let dir = tempfile::tempdir()?;
    fails_untouched(
        dir.path(),
        ErrorKind::NotARepository,
        "not a git repository",
    )?;
    let err = status(dir.path()).expect_err("no repository");
    assert_eq!(err.kind(), ErrorKind::NotARepository);
    Ok(())
}

#[test]
fn no_remote_configured() -> TestResult {
    let dir = tempfile::tempdir()?;
    init(dir.path(), None, &tool())?;
    fails_untouched(dir.path(), ErrorKind::NoRemote, "no remote `origin`")
}

#[test]
fn remote_missing() -> TestResult {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let nowhere = dir.path().join("nowhere.git");
    init(&home, Some(nowhere.to_str().ok_or("utf8")?), &tool())?;
    fails_untouched(&home, ErrorKind::RemoteUnreachable, "cannot be reached")
}

#[test]
fn remote_unreachable_over_the_network() -> TestResult {
    let dir = tempfile::tempdir()?;
    // Port 9 on the loopback (discard): refused at once, nothing leaves the machine.
    init(dir.path(), Some("http://127.0.0.1:9/memory.git"), &tool())?;
    fails_untouched(
        dir.path(),
        ErrorKind::RemoteUnreachable,
        "cannot be reached",
    )
}

#[test]
fn push_rejected_by_a_hook() -> TestResult {
    let dir = tempfile::tempdir()?;
    let remote = bare_remote(dir.path());
    let hook = remote.join("hooks/pre-receive");
    fs::write(
        &hook,
        "#!/bin/sh\necho 'pushes are closed today' >&2\nexit 1\n",
    )?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&hook, fs::Permissions::from_mode(0o755))?;
    }
    let home = dir.path().join("home");
    init(&home, Some(remote.to_str().ok_or("utf8")?), &tool())?;
    fails_untouched(&home, ErrorKind::PushRejected, "pushes are closed today")
}

#[test]
fn git_missing_from_path() -> TestResult {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    init(&home, Some("/nonexistent/remote.git"), &tool())?;
    save(&home, "Local work")?;
    let before = snapshot(&home);
    let empty = dir.path().join("empty-bin");
    fs::create_dir(&empty)?;
    let out = Command::new(tool())
        .arg("sync")
        .arg(&home)
        .env("PATH", &empty)
        .output()?;
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not installed or not on PATH"), "{stderr}");
    assert!(stderr.contains("GitMissing"), "{stderr}");
    assert_eq!(snapshot(&home), before);
    Ok(())
}

#[test]
fn unmergeable_file_aborts_the_merge_and_names_it() -> TestResult {
    let dir = tempfile::tempdir()?;
    let remote = bare_remote(dir.path());
    let remote = remote.to_str().ok_or("utf8")?;
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    init(&a, Some(remote), &tool())?;
    init(&b, Some(remote), &tool())?;
    save(&a, "Shared entry")?;
    sync(&a, &SyncOptions::default())?;
    sync(&b, &SyncOptions::default())?;
    let day = "ws/checkpoints/2025-10-13.md";
    for (home, stray) in [(&a, "stray text from a\n"), (&b, "stray text from b\n")] {
        let text = fs::read_to_string(home.join(day))?;
        fs::write(
            home.join(day),
            text.replacen('\n', &format!("\n{stray}"), 1),
        )?;
    }
    sync(&a, &SyncOptions::default())?;
    let before = snapshot(&b);
    let err = sync(&b, &SyncOptions::default()).expect_err("cannot merge by meaning");
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert_eq!(err.files(), [Path::new(day)]);
    assert!(err.to_string().contains(day), "{err}");
    assert_eq!(snapshot(&b), before, "merge aborted, store as it was");
    assert!(!b.join(".git/MERGE_HEAD").exists());
    assert!(git(&b, &["ls-files", "-u"]).is_empty());
    // Fixing the file on one side lets the next sync through.
    let theirs = git(&b, &["show", &format!("refs/remotes/origin/main:{day}")]);
    fs::write(b.join(day), theirs)?;
    sync(&b, &SyncOptions::default())?;
    Ok(())
}
