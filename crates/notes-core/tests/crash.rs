//! A process SIGKILLed while rewriting the notes never leaves them torn.

use std::path::Path;
use std::time::Duration;

use notes_core::{Notes, NotesManager, Stage};

use crate::{TestResult, spawn_self};

const DIR_VAR: &str = "GOLDFISH_NOTES_TEST_CRASH_DIR";
const KILLS: u64 = 20;

/// The child's work: rewrite the notes forever; does nothing unless started by the crash test.
#[test]
fn child_rewrites_forever() -> TestResult {
    let Ok(dir) = std::env::var(DIR_VAR) else {
        return Ok(());
    };
    let filler = "lorem ipsum dolor sit amet ".repeat(200);
    loop {
        NotesManager::update(Path::new(&dir), |n| {
            let i = n
                .current_objective
                .split(' ')
                .nth(1)
                .and_then(|s| s.parse::<u64>().ok());
            let i = i.map_or(0, |i| i + 1);
            // Objective and context carry the same number: a torn file could not match.
            n.set_objective(format!("iteration {i} {filler}"));
            n.set_context(format!("{filler}\nend of iteration {i}"));
            n.add_decision(format!("decision {i}"), "because");
        })?;
    }
}

fn iteration(notes: &Notes) -> Result<u64, Box<dyn std::error::Error>> {
    let i: u64 = notes
        .current_objective
        .split(' ')
        .nth(1)
        .ok_or("no number")?
        .parse()?;
    let marker = format!("end of iteration {i}");
    assert!(
        notes.context.lines().any(|l| l == marker),
        "objective and context disagree"
    );
    Ok(i)
}

#[test]
fn killed_writer_never_leaves_a_torn_file() -> TestResult {
    let dir = tempfile::tempdir()?;
    NotesManager::init(dir.path(), "ENG-2", Stage::Build, "iteration 0 start")?;
    NotesManager::update(dir.path(), |n| n.set_context("end of iteration 0"))?;
    let path = NotesManager::path(dir.path());
    let mut last = 0;
    for k in 0..KILLS {
        let mut child = spawn_self(
            "crash::child_rewrites_forever",
            &[(DIR_VAR, dir.path().display().to_string())],
        )?;
        std::thread::sleep(Duration::from_millis(20 + (k * 13) % 60));
        child.kill()?; // SIGKILL on Unix
        child.wait()?;
        let text = std::fs::read_to_string(&path)?;
        let notes = Notes::parse(&text)?;
        assert_eq!(
            notes.format(),
            text,
            "the file is exactly what a writer formatted"
        );
        let i = iteration(&notes)?;
        assert!(i >= last, "iterations never go back: {i} < {last}");
        last = i;
    }
    assert!(last > 0, "the children made progress");
    // Stray temp files of killed writers are ignored by readers and do not block writers.
    NotesManager::update(dir.path(), |n| {
        n.add_decision("after the crashes", "still works")
    })?;
    assert_eq!(
        NotesManager::read(dir.path())?
            .decisions
            .last()
            .map(|d| d.decision.as_str()),
        Some("after the crashes")
    );
    Ok(())
}
