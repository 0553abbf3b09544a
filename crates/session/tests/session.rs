//! `session_start` over real files in temporary directories.

use std::sync::Arc;

use chrono::{TimeDelta, Utc};
use goldfish_core::time::{ManualClock, SharedClock};
use goldfish_journal::Journal;
use goldfish_session::{SessionOptions, session_start};
use goldfish_store::{CheckpointInput, PlanInput, Store};
use notes_core::{NotesManager, Stage};

type TestResult = Result<(), Box<dyn std::error::Error>>;

struct Fixture {
    home: tempfile::TempDir,
    worktree: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Result<Self, Box<dyn std::error::Error>> {
        Ok(Fixture {
            home: tempfile::tempdir()?,
            worktree: tempfile::tempdir()?,
        })
    }

    fn options(&self) -> SessionOptions {
        let mut o = SessionOptions::new(self.home.path(), self.worktree.path());
        o.workspace = Some("proj".into());
        o
    }
}

fn populate(f: &Fixture, checkpoints: usize) -> TestResult {
    // One second apart, so "newest first" does not depend on how fast the loop runs: saves
    // in the same millisecond would share a timestamp and their order would be a tie.
    let clock = Arc::new(ManualClock::new(Utc::now() - TimeDelta::minutes(30)));
    let store = Store::open(f.home.path())?.with_clock(clock.clone() as SharedClock);
    for i in 0..checkpoints {
        clock.advance(TimeDelta::seconds(1));
        let mut input = CheckpointInput::new(format!("Step {i} of the parser rewrite\nDetails."));
        input.workspace = Some("proj".into());
        input.tags = vec!["parser".into()];
        store.save_checkpoint(input)?;
    }
    let mut plan = PlanInput::new(
        "Parser rewrite",
        "- [x] lexer\n- [ ] grammar\n  - [ ] errors\n",
    );
    plan.workspace = Some("proj".into());
    plan.activate = true;
    store.save_plan(plan)?;
    let journal = Journal::open(f.worktree.path())?;
    journal.boot("rewrite", "hand-written parser", "parser")?;
    journal.fail("hand-written parser", "left recursion loops")?;
    NotesManager::init(f.worktree.path(), "P-1", Stage::Build, "finish the grammar")?;
    Ok(())
}

#[test]
fn gathers_every_source() -> TestResult {
    let f = Fixture::new()?;
    populate(&f, 3)?;
    let start = session_start(&f.options())?;
    let plan = start.plan.as_ref().ok_or("no plan")?;
    assert_eq!((plan.done, plan.total), (1, 3));
    assert_eq!(plan.open, ["grammar", "errors"]);
    assert_eq!(start.checkpoints.len(), 3);
    assert_eq!(start.checkpoints[0].title, "Step 2 of the parser rewrite");
    let journal = start.journal.as_ref().ok_or("no journal")?;
    assert_eq!(journal.streaks.len(), 1);
    assert_eq!(journal.streaks[0].failures, 1);
    assert!(!journal.streaks[0].mutation_required);
    let notes = start.notes.as_ref().ok_or("no notes")?;
    assert_eq!(notes.objective, "finish the grammar");
    assert!(start.skipped.is_empty(), "{:?}", start.skipped);
    let text = start.render(goldfish_session::DEFAULT_BUDGET);
    for needle in [
        goldfish_store::frame::MEMORY_NOTICE,
        "<memory kind=\"plan\" id=\"parser-rewrite\">\nActive plan: Parser rewrite, 1/3 done\n",
        "- [ ] grammar",
        "<memory kind=\"journal\">\n\
         `hand-written parser` failed 1x (open streak); last: left recursion loops",
        "<memory kind=\"notes\" stage=\"BUILD\">\nObjective: finish the grammar\n",
        "Recent checkpoints (3 of 3):",
        "Step 0 of the parser rewrite [parser]</memory>\n",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
    Ok(())
}

#[test]
fn render_never_exceeds_the_budget_and_keeps_the_order() -> TestResult {
    let f = Fixture::new()?;
    populate(&f, 12)?;
    let start = session_start(&f.options())?;
    let full = start.render(100_000);
    for budget in 0..=full.chars().count() + 5 {
        let text = start.render(budget);
        assert!(text.chars().count() <= budget, "budget {budget}: {text:?}");
        // A prefix of the full rendering, but for a last line that may be cut (and the
        // closing delimiter of a block cut by the budget after it).
        let whole_lines = text
            .trim_end_matches('\n')
            .trim_end_matches(goldfish_store::frame::CLOSE_TAG)
            .trim_end_matches('\n')
            .rsplit_once('\n')
            .map_or("", |(head, _)| head);
        assert!(full.starts_with(whole_lines), "budget {budget}: {text:?}");
        assert!(budget < 40 || !text.is_empty(), "budget {budget}: nothing");
    }
    Ok(())
}

#[test]
fn nothing_saved_yet_and_nothing_written() -> TestResult {
    let f = Fixture::new()?;
    let store_root = f.home.path().join("store");
    let mut o = f.options();
    o.home = store_root.clone();
    let start = session_start(&o)?;
    assert!(start.is_empty());
    assert!(start.render(500).contains("Nothing saved yet"));
    assert!(!store_root.exists(), "session_start created the store");
    Ok(())
}

#[test]
fn a_damaged_notes_file_is_left_out_and_named() -> TestResult {
    let f = Fixture::new()?;
    populate(&f, 1)?;
    std::fs::write(NotesManager::path(f.worktree.path()), [0xff, 0xfe, 0x00])?;
    let start = session_start(&f.options())?;
    assert!(start.notes.is_none());
    assert!(start.plan.is_some() && start.journal.is_some());
    assert!(
        start.skipped.iter().any(|s| s.contains("GOBLIN_NOTES.md")),
        "{:?}",
        start.skipped
    );
    Ok(())
}

#[test]
fn a_store_that_is_a_file_is_an_error() -> TestResult {
    let f = Fixture::new()?;
    let file = f.home.path().join("file");
    std::fs::write(&file, "x")?;
    let mut o = f.options();
    o.home = file;
    let err = session_start(&o).err().ok_or("no error")?;
    assert!(err.to_string().contains("directory"), "{err}");
    Ok(())
}
