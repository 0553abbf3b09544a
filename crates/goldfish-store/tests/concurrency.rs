//! Many writers at once, and writers killed at random instants: nothing lost, nothing torn.
//!
//! Child processes are this test binary itself, re-executed on one child test that does the
//! work when `GOLDFISH_STORE_CHILD` is set (and returns at once otherwise).

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use goldfish_store::{CheckpointInput, Store, parse_checkpoint_file};

use crate::TestResult;

const CHILD_ENV: &str = "GOLDFISH_STORE_CHILD";
const ROOT_ENV: &str = "GOLDFISH_STORE_CHILD_ROOT";
const COUNT_ENV: &str = "GOLDFISH_STORE_CHILD_COUNT";

fn child_command(mode: &str, root: &Path, count: usize) -> Result<Command, std::io::Error> {
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.args([
        "--exact",
        "concurrency::child_saver",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD_ENV, mode)
    .env(ROOT_ENV, root)
    .env(COUNT_ENV, count.to_string());
    Ok(cmd)
}

/// The child: saves `COUNT` checkpoints (or forever for `loop`), printing each saved id.
#[test]
fn child_saver() -> TestResult {
    let Ok(mode) = std::env::var(CHILD_ENV) else {
        return Ok(());
    };
    let root = std::env::var(ROOT_ENV)?;
    let count: usize = std::env::var(COUNT_ENV)?.parse()?;
    let store = Store::open(root)?;
    let pid = std::process::id();
    let mut i = 0;
    while mode == "loop" || i < count {
        let mut input = CheckpointInput::new(format!("process {pid} save {i}\nsecond line"));
        input.workspace = Some("shared".into());
        input.tags = vec![format!("p{pid}")];
        let saved = store.save_checkpoint(input)?;
        // Printed only after the save returned: every printed id must be in the store.
        println!("saved {}", saved.id);
        i += 1;
    }
    Ok(())
}

/// Reads every day file of `shared` strictly (so a torn or garbled file fails the test).
fn read_all_strict(
    root: &Path,
) -> Result<Vec<goldfish_store::Checkpoint>, Box<dyn std::error::Error>> {
    let dir = root.join("shared/checkpoints");
    let mut all = Vec::new();
    if !dir.exists() {
        return Ok(all);
    }
    for entry in std::fs::read_dir(&dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".md") else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let date = chrono::NaiveDate::parse_from_str(stem, "%Y-%m-%d")?;
        let text = std::fs::read_to_string(entry.path())?;
        all.extend(
            parse_checkpoint_file(&text, "shared", date).map_err(|e| format!("{name}: {e}"))?,
        );
    }
    Ok(all)
}

fn assert_all_distinct(checkpoints: &[goldfish_store::Checkpoint], want: usize) {
    let ids: HashSet<&str> = checkpoints.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(checkpoints.len(), want);
    assert_eq!(ids.len(), want, "ids are distinct");
}

#[test]
fn eight_processes_save_one_hundred_each() -> TestResult {
    let dir = tempfile::tempdir()?;
    let children: Vec<_> = (0..8)
        .map(|_| {
            child_command("count", dir.path(), 100)
                .and_then(|mut c| c.stdout(Stdio::null()).spawn())
        })
        .collect::<Result<_, _>>()?;
    for mut child in children {
        assert!(child.wait()?.success(), "a saver process failed");
    }
    let all = read_all_strict(dir.path())?;
    assert_all_distinct(&all, 800);
    // Each process's saves are all there, and in time order within each day file.
    let store = Store::open(dir.path())?;
    let from = all
        .iter()
        .map(|c| c.timestamp)
        .min()
        .ok_or("no checkpoints")?;
    let to = all
        .iter()
        .map(|c| c.timestamp)
        .max()
        .ok_or("no checkpoints")?;
    let range = store.checkpoints_between("shared", from, to)?;
    assert_eq!(range.checkpoints.len(), 800);
    assert!(range.skipped.is_empty(), "{:?}", range.skipped);
    assert!(
        range
            .checkpoints
            .windows(2)
            .all(|w| w[0].timestamp <= w[1].timestamp)
    );
    Ok(())
}

#[test]
fn eight_threads_save_one_hundred_each() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::open(dir.path())?;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let store = store.clone();
                s.spawn(move || {
                    (0..100).try_for_each(|i| {
                        let mut input = CheckpointInput::new(format!("thread {t} save {i}"));
                        input.workspace = Some("shared".into());
                        store.save_checkpoint(input).map(|_| ())
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().expect("saver thread panicked"))
    })?;
    assert_all_distinct(&read_all_strict(dir.path())?, 800);
    Ok(())
}

/// A tiny deterministic PRNG (xorshift) so the kill instants vary without a dependency.
fn next_random(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn sigkill_never_tears_a_file_or_loses_a_save() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut known: HashSet<String> = HashSet::new();
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let kills = 200;
    for round in 0..kills {
        let mut child = child_command("loop", dir.path(), 0)?
            .stdout(Stdio::piped())
            .spawn()?;
        let mut lines = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
        // The kill comes after the child's first save, not after a fixed delay from its start:
        // on a loaded machine a child may need longer than any delay to start, and every round
        // must kill a saver that is saving. Its first line (after the test harness's own) is
        // printed once that save returned; the kill then lands somewhere in the next ~5 ms of
        // saves, inside a save or between two.
        let mut printed: Vec<String> = Vec::new();
        for line in lines.by_ref() {
            if let Some(id) = line?.strip_prefix("saved ") {
                printed.push(id.to_string());
                break;
            }
        }
        if printed.is_empty() {
            return Err(format!("round {round}: the saver ended before its first save").into());
        }
        std::thread::sleep(Duration::from_micros(next_random(&mut rng) % 5_000));
        child.kill()?; // SIGKILL on Unix
        child.wait()?;
        printed.extend(
            lines
                .map_while(Result::ok)
                .filter_map(|l| l.strip_prefix("saved ").map(str::to_string)),
        );
        let now: HashSet<String> = read_all_strict(dir.path())?
            .into_iter()
            .map(|c| c.id)
            .collect();
        for id in known.iter().chain(&printed) {
            assert!(now.contains(id), "round {round}: checkpoint {id} was lost");
        }
        known = now;
    }
    assert!(known.len() >= kills, "every round saved at least once");
    Ok(())
}
