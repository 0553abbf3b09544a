//! Real processes updating the same notes at once: no decision is lost or duplicated.

use std::collections::BTreeMap;
use std::path::Path;

use notes_core::{Notes, NotesManager, Stage};

use crate::{TestResult, spawn_self};

const PROCESSES: usize = 8;
const UPDATES: usize = 50;
const DIR_VAR: &str = "GOLDFISH_NOTES_TEST_CONCURRENCY_DIR";
const ID_VAR: &str = "GOLDFISH_NOTES_TEST_CONCURRENCY_ID";

/// The child's work; does nothing unless started by `eight_processes_lose_no_decision`.
#[test]
fn child_adds_decisions() -> TestResult {
    let (Ok(dir), Ok(id)) = (std::env::var(DIR_VAR), std::env::var(ID_VAR)) else {
        return Ok(());
    };
    for i in 0..UPDATES {
        NotesManager::update(Path::new(&dir), |n| {
            n.add_decision(format!("p{id}-d{i}"), format!("reason {id}/{i}"));
        })?;
    }
    Ok(())
}

/// Every decision name in the list or in the folded `Earlier decisions:` lines, with counts.
fn decision_counts(notes: &Notes) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for d in &notes.decisions {
        *counts.entry(d.decision.clone()).or_default() += 1;
    }
    for line in notes.context.lines() {
        if let Some(list) = line.strip_prefix("Earlier decisions: ") {
            for item in list.split("; ") {
                let name = item.split_once(" (").map_or(item, |(n, _)| n);
                *counts.entry(name.to_string()).or_default() += 1;
            }
        }
    }
    counts
}

#[test]
fn eight_processes_lose_no_decision() -> TestResult {
    let dir = tempfile::tempdir()?;
    NotesManager::init(dir.path(), "ENG-1", Stage::Build, "Concurrency")?;
    let children = (0..PROCESSES)
        .map(|id| {
            spawn_self(
                "concurrency::child_adds_decisions",
                &[
                    (DIR_VAR, dir.path().display().to_string()),
                    (ID_VAR, id.to_string()),
                ],
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    for mut child in children {
        assert!(child.wait()?.success(), "a child process failed");
    }
    let notes = NotesManager::read(dir.path())?;
    assert_eq!(notes.decisions.len(), Notes::MAX_DECISIONS);
    let counts = decision_counts(&notes);
    for id in 0..PROCESSES {
        for i in 0..UPDATES {
            let name = format!("p{id}-d{i}");
            assert_eq!(
                counts.get(&name),
                Some(&1),
                "{name} must appear exactly once"
            );
        }
    }
    assert_eq!(
        counts.len(),
        PROCESSES * UPDATES,
        "no unexpected entries: {counts:?}"
    );
    // Each process's decisions are in its own order (updates are serialised).
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join(".goblin"))?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    assert!(
        leftovers
            .iter()
            .all(|n| n == "GOBLIN_NOTES.md" || n == ".GOBLIN_NOTES.md.lock"),
        "no temp files left: {leftovers:?}"
    );
    Ok(())
}
