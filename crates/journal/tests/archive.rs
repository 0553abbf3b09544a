//! Archiving: the copy, corrections.md, patterns.jsonl, idempotence and unwritable roots.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use chrono::TimeDelta;
use goldfish_core::time::ManualClock;
use goldfish_journal::{Approach, Journal, LogKind, MutationCode};

use crate::util::{TestResult, clock, journal};

/// A journal with two mutations: the first followed by a success, the second not.
fn finished_journal(dir: &Path) -> TestResult<(Journal, Arc<ManualClock>)> {
    let c = clock(2026, 3, 17, 14, 30);
    let j = journal(dir, "auth/machine-token-flow", &c)?;
    j.boot("replace JWT", "full token swap", "direct swap")?;
    for n in 0..3 {
        j.fail(Approach::Current, &format!("rejected {n}"))?;
    }
    j.mutate(
        MutationCode::ReduceScope,
        Approach::Current,
        "middleware hook only",
        "scope too broad",
    )?;
    j.succeed(Approach::Current, "hook works on 3/7 routes")?;
    c.advance(TimeDelta::hours(2));
    j.boot("graphql", "graphql adapter", "second session")?;
    j.mutate(
        MutationCode::Ask,
        "graphql adapter",
        "ask the platform team",
        "no docs",
    )?;
    j.log(LogKind::State, "waiting for an answer")?;
    Ok((j, c))
}

/// The archive's default place is inside the store but is not a workspace: the store lists
/// the same workspaces before and after an archive (and standup shows no stray one).
#[test]
fn default_archive_root_is_not_a_workspace() -> TestResult {
    let work = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let store = goldfish_store::Store::open(home.path())?;
    let mut input = goldfish_store::CheckpointInput::new("set up the store");
    input.workspace = Some("api".into());
    store.save_checkpoint(input)?;
    let before = store.list_workspaces()?;
    assert_eq!(before, ["api"]);

    let (j, _c) = finished_journal(work.path())?;
    let report = j.archive(&goldfish_journal::archive_root_in(store.root()))?;
    assert!(
        report.journal_copy.starts_with(home.path()),
        "archived inside the store"
    );
    assert!(report.journal_copy.exists());
    assert_eq!(store.list_workspaces()?, before);
    // A fresh handle (no cached listing) agrees.
    assert_eq!(
        goldfish_store::Store::open(home.path())?.list_workspaces()?,
        before
    );
    Ok(())
}

fn read(path: &Path) -> TestResult<String> {
    Ok(fs::read_to_string(path)?)
}

#[test]
fn archive_copies_and_surfaces_patterns_once() -> TestResult {
    let work = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let root = home.path().join("self-improving");
    let (j, c) = finished_journal(work.path())?;
    c.advance(TimeDelta::days(3));
    let journal_before = fs::read(j.path())?;

    let report = j.archive(&root)?;
    let copy = root.join("journals/auth-machine-token-flow-2026-03-20.md");
    assert_eq!(report.journal_copy, copy);
    assert!(report.copied);
    assert_eq!((report.corrections_added, report.patterns_added), (2, 1));
    assert_eq!(fs::read(&copy)?, journal_before);
    assert_eq!(
        fs::read(j.path())?,
        journal_before,
        "the journal is untouched"
    );

    let corrections = read(&root.join("corrections.md"))?;
    assert_eq!(corrections.matches("<!-- id: ").count(), 2);
    for needle in [
        "## 2026-03-17 — auth/machine-token-flow — M5 (Reduce Scope)",
        "<!-- id: auth/machine-token-flow@2026-03-17T14:30Z#1 -->",
        "- What went wrong: failed 3x on: full token swap",
        "- New approach: middleware hook only",
        "- Rationale: scope too broad",
        "- Outcome: worked: hook works on 3/7 routes",
        "## 2026-03-17 — auth/machine-token-flow — M7 (Ask)",
        "- Outcome: no success recorded",
    ] {
        assert!(
            corrections.contains(needle),
            "{corrections}\nlacks {needle}"
        );
    }

    let patterns = read(&root.join("patterns.jsonl"))?;
    let lines: Vec<serde_json::Value> = patterns
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_eq!(lines.len(), 1, "{patterns}");
    assert_eq!(
        lines[0],
        serde_json::json!({
            "id": "auth/machine-token-flow@2026-03-17T14:30Z#1",
            "ts": "2026-03-17T14:30:00.000Z",
            "task": "auth/machine-token-flow",
            "code": "M5",
            "failed_on": "full token swap",
            "switching_to": "middleware hook only",
            "rationale": "scope too broad",
            "outcome": "success",
            "evidence": "hook works on 3/7 routes",
        })
    );

    // Archiving again adds nothing, even on another day.
    let snapshot = |root: &Path| -> TestResult<Vec<(String, Vec<u8>)>> {
        let mut files = Vec::new();
        for dir in [root.to_path_buf(), root.join("journals")] {
            for e in fs::read_dir(dir)? {
                let e = e?;
                if e.file_type()?.is_file() {
                    files.push((e.path().display().to_string(), fs::read(e.path())?));
                }
            }
        }
        files.sort();
        Ok(files)
    };
    let before = snapshot(&root)?;
    c.advance(TimeDelta::days(1));
    let again = j.archive(&root)?;
    assert!(!again.copied);
    assert_eq!(again.journal_copy, copy);
    assert_eq!((again.corrections_added, again.patterns_added), (0, 0));
    assert_eq!(snapshot(&root)?, before);
    Ok(())
}

#[test]
fn a_grown_journal_gets_a_new_copy_and_only_its_new_patterns() -> TestResult {
    let work = tempfile::tempdir()?;
    let root = tempfile::tempdir()?;
    let (j, _c) = finished_journal(work.path())?;
    let first = j.archive(root.path())?;
    let first_copy = fs::read(&first.journal_copy)?;
    j.succeed(Approach::Current, "the platform team answered")?;
    let second = j.archive(root.path())?;
    assert!(second.copied);
    assert_eq!(
        second.journal_copy,
        root.path()
            .join("journals/auth-machine-token-flow-2026-03-17-2.md")
    );
    assert_eq!(
        fs::read(&first.journal_copy)?,
        first_copy,
        "an earlier archive is never overwritten"
    );
    assert_eq!((second.corrections_added, second.patterns_added), (0, 1));
    let patterns = read(&root.path().join("patterns.jsonl"))?;
    assert_eq!(patterns.lines().count(), 2);
    assert!(
        patterns.contains("\"id\":\"auth/machine-token-flow@2026-03-17T16:30Z#1\""),
        "{patterns}"
    );
    Ok(())
}

#[cfg(unix)]
#[test]
fn archive_files_are_private() -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    let work = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let root = home.path().join("self-improving");
    let (j, _c) = finished_journal(work.path())?;
    let report = j.archive(&root)?;
    let mode = |p: &Path| -> TestResult<u32> { Ok(fs::metadata(p)?.permissions().mode() & 0o777) };
    assert_eq!(mode(&root)?, 0o700);
    assert_eq!(mode(&root.join("journals"))?, 0o700);
    assert_eq!(mode(&report.journal_copy)?, 0o600);
    assert_eq!(mode(&root.join("corrections.md"))?, 0o600);
    assert_eq!(mode(&root.join("patterns.jsonl"))?, 0o600);
    Ok(())
}

/// Makes `dir` read-only, even for root when the file system allows the immutable attribute.
/// Returns false when neither works (then the caller tests another unwritable root).
#[cfg(unix)]
fn make_read_only(dir: &Path) -> TestResult<bool> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o555))?;
    let probe = dir.join(".probe");
    if fs::write(&probe, b"x").is_err() {
        return Ok(true);
    }
    fs::remove_file(&probe)?;
    let immutable = Command::new("chattr")
        .arg("+i")
        .arg(dir)
        .status()
        .is_ok_and(|s| s.success());
    Ok(immutable && fs::write(&probe, b"x").is_err())
}

#[cfg(unix)]
fn undo_read_only(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = Command::new("chattr").arg("-i").arg(dir).status();
    let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o755));
}

#[cfg(unix)]
use std::process::Command;

#[cfg(unix)]
#[test]
fn read_only_root_is_a_clear_error_and_leaves_the_journal_untouched() -> TestResult {
    let work = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let (j, _c) = finished_journal(work.path())?;
    let journal_before = fs::read(j.path())?;
    let root = home.path().join("self-improving");
    fs::create_dir(&root)?;
    let read_only = make_read_only(&root)?;
    let result = if read_only {
        j.archive(&root)
    } else {
        // Privileged and no immutable attribute: a root below a regular file cannot be
        // written by anyone either.
        let file = home.path().join("a-file");
        fs::write(&file, "")?;
        j.archive(&file.join("self-improving"))
    };
    undo_read_only(&root);
    let err = result.expect_err("an unwritable root must fail");
    assert!(err.is_archive_not_writable(), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("self-improving"), "{msg}");
    assert!(msg.contains("journal is untouched"), "{msg}");
    assert!(msg.contains("GOLDFISH_HOME"), "{msg}");
    if read_only {
        assert!(err.is_permission_denied(), "{err:?}");
        assert_eq!(
            fs::read_dir(&root)?.count(),
            0,
            "nothing written in the root"
        );
    }
    assert_eq!(fs::read(j.path())?, journal_before);
    Ok(())
}

#[test]
fn archive_needs_a_journal() -> TestResult {
    let work = tempfile::tempdir()?;
    let root = tempfile::tempdir()?;
    let j = Journal::open(work.path())?;
    assert!(j.archive(root.path()).unwrap_err().is_not_booted());
    assert_eq!(fs::read_dir(root.path())?.count(), 0);
    Ok(())
}

#[test]
fn invalid_utf8_and_io_kind_are_asked_the_same_way_as_everywhere()
-> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    fs::write(
        dir.path().join("JOURNAL.md"),
        b"# Journal\n\nApproach: \xff\n",
    )?;
    let e = Journal::open(dir.path())?
        .read()
        .err()
        .ok_or("read a bad file")?;
    assert!(e.is_invalid_utf8(), "{e}");
    assert_eq!(e.io_kind(), Some(std::io::ErrorKind::InvalidData));
    // Not found: the kind of the I/O error, without depending on the foundation crate.
    let e = Journal::open(dir.path().join("missing"))
        .err()
        .ok_or("opened a missing directory")?;
    assert!(!e.is_invalid_utf8());
    assert_eq!(e.io_kind(), Some(std::io::ErrorKind::NotFound), "{e}");
    Ok(())
}
