//! Many real processes writing one journal at once. The children are this test binary itself,
//! re-executed with an environment variable that tells the child test what to do.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use goldfish_journal::{Document, EntryKind, ItemKind, Journal, LogKind};

use crate::util::{TestResult, clock, journal};

const CHILD_ROLE: &str = "GOLDFISH_JOURNAL_TEST_CHILD";
const CHILD_DIR: &str = "GOLDFISH_JOURNAL_TEST_DIR";
const CHILD_ID: &str = "GOLDFISH_JOURNAL_TEST_ID";
const PROCESSES: usize = 8;
const ENTRIES: usize = 50;

/// Runs `PROCESSES` children of the test `child` with `role`, and waits for all of them.
fn run_children(dir: &Path, role: &str) -> TestResult {
    let exe = std::env::current_exe()?;
    let children: Vec<_> = (0..PROCESSES)
        .map(|id| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "concurrency::child",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_ROLE, role)
                .env(CHILD_DIR, dir)
                .env(CHILD_ID, id.to_string())
                .stdout(Stdio::null())
                .spawn()
        })
        .collect::<Result<_, _>>()?;
    for mut child in children {
        let status = child.wait()?;
        assert!(status.success(), "a child process failed: {status}");
    }
    Ok(())
}

/// The child's work; returns at once when not started by `run_children`.
#[test]
fn child() -> TestResult {
    let (Some(role), Some(dir), Some(id)) = (
        std::env::var_os(CHILD_ROLE),
        std::env::var_os(CHILD_DIR),
        std::env::var_os(CHILD_ID),
    ) else {
        return Ok(());
    };
    let id = id.to_string_lossy().into_owned();
    let j = Journal::open(dir)?;
    match role.to_str() {
        Some("log") => {
            for n in 0..ENTRIES {
                j.log(
                    LogKind::Decision,
                    &format!("child {id} entry {n}\nsecond line of {id}/{n}"),
                )?;
            }
        }
        Some("fail") => match j.fail("alpha", &format!("child {id} tried")) {
            Ok(_) => {}
            Err(e) if e.is_mutation_required() => {}
            Err(e) => return Err(e.into()),
        },
        other => panic!("unknown child role {other:?}"),
    }
    Ok(())
}

#[test]
fn eight_processes_log_without_losing_or_interleaving_lines() -> TestResult {
    let dir = tempfile::tempdir()?;
    let j = journal(dir.path(), "t", &clock(2026, 1, 2, 3, 4))?;
    j.boot("many writers", "alpha", "")?;
    run_children(dir.path(), "log")?;

    let text = std::fs::read_to_string(j.path())?;
    let doc = Document::parse(&text);
    assert_eq!(doc.format(), text);
    let mut seen: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for item in doc.items() {
        let ItemKind::Entry(e) = item.kind() else {
            continue;
        };
        assert_eq!(e.kind, EntryKind::Decision);
        let rest = e.text.strip_prefix("child ").expect("an entry of a child");
        let (id, n) = rest.split_once(" entry ").expect("child {id} entry {n}");
        // The second line belongs to the same entry: no other writer got in between.
        assert_eq!(e.continuation, vec![format!("second line of {id}/{n}")]);
        seen.entry(id.to_string()).or_default().push(n.parse()?);
    }
    assert_eq!(seen.len(), PROCESSES);
    for (id, ns) in &seen {
        assert_eq!(
            ns,
            &(0..ENTRIES).collect::<Vec<_>>(),
            "child {id}: every entry, in order"
        );
    }
    let status = j.status()?;
    assert_eq!(status.entries, PROCESSES * ENTRIES);
    // Title, header, two field lines, the blank line, then two lines per entry.
    assert_eq!(status.lines, 5 + 2 * PROCESSES * ENTRIES);
    Ok(())
}

#[test]
fn only_one_process_gets_the_third_failure_past_the_check() -> TestResult {
    let dir = tempfile::tempdir()?;
    let j = journal(dir.path(), "t", &clock(2026, 1, 2, 3, 4))?;
    j.boot("race", "alpha", "")?;
    j.fail("alpha", "first")?;
    j.fail("alpha", "second")?;
    run_children(dir.path(), "fail")?;
    let status = j.status()?;
    let streak = status.streak("alpha").expect("alpha's streak");
    assert_eq!(
        streak.failures, 3,
        "exactly one child wrote the third failure"
    );
    assert!(streak.mutation_required);
    let failures = std::fs::read_to_string(j.path())?.matches("❌").count();
    assert_eq!(failures, 3);
    Ok(())
}
