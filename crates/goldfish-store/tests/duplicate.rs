//! Idempotent saves: the same checkpoint saved again within ten minutes returns the first
//! one's id and writes nothing; later, or with anything of it different, it is a new entry.

use chrono::{Duration, NaiveDate, TimeZone, Utc};
use goldfish_core::time::ManualClock;
use goldfish_store::{CheckpointInput, MemoryType, Saved, Store, Structured};
use std::sync::Arc;

use crate::{TestResult, seed_date, store_at};

/// A decision with typed fields and tags, in workspace `proj`.
fn decision() -> CheckpointInput {
    let mut input = CheckpointInput::new("Rotate refresh tokens\nOn every use.");
    input.workspace = Some("proj".into());
    input.tags = vec!["auth".into(), "security".into()];
    input.memory_type = MemoryType::Decision;
    let mut s = Structured::default();
    s.decision = Some("Rotate on every use".into());
    s.alternatives = vec!["Sliding expiry".into(), "Short-lived tokens".into()];
    s.confidence = Some(4);
    input.structured = s;
    input
}

fn save(
    store: &Store,
    input: CheckpointInput,
) -> Result<Saved<goldfish_store::Checkpoint>, goldfish_store::Error> {
    store.save_checkpoint_reported(input)
}

fn day_bytes(home: &std::path::Path, date: NaiveDate) -> std::io::Result<Vec<u8>> {
    std::fs::read(home.join("proj/checkpoints").join(format!("{date}.md")))
}

#[test]
fn the_same_save_within_ten_minutes_returns_the_first_and_writes_nothing() -> TestResult {
    let home = tempfile::tempdir()?;
    let (store, clock) = store_at(home.path())?;
    let first = save(&store, decision())?;
    assert_eq!(first.duplicate_of, None);
    let before = day_bytes(home.path(), seed_date())?;
    clock.advance(Duration::minutes(9) + Duration::seconds(59));
    // Tags in another order, and padded, are the same tags.
    let mut again = decision();
    again.tags = vec![" security".into(), "auth".into()];
    let second = save(&store, again)?;
    assert_eq!(
        second.duplicate_of.as_deref(),
        Some(first.value.id.as_str())
    );
    assert_eq!(
        second.value, first.value,
        "the reply is the entry already there"
    );
    assert_eq!(
        day_bytes(home.path(), seed_date())?,
        before,
        "nothing written"
    );
    assert_eq!(store.checkpoints_for_day("proj", seed_date())?.len(), 1);
    Ok(())
}

#[test]
fn the_same_save_after_ten_minutes_is_a_new_entry() -> TestResult {
    let home = tempfile::tempdir()?;
    let (store, clock) = store_at(home.path())?;
    let first = save(&store, decision())?;
    clock.advance(Duration::minutes(10) + Duration::seconds(1));
    let second = save(&store, decision())?;
    assert_eq!(second.duplicate_of, None);
    assert_ne!(second.value.id, first.value.id);
    assert_eq!(store.checkpoints_for_day("proj", seed_date())?.len(), 2);
    // And the window runs from the newest of them.
    clock.advance(Duration::minutes(5));
    let third = save(&store, decision())?;
    assert_eq!(
        third.duplicate_of.as_deref(),
        Some(second.value.id.as_str())
    );
    Ok(())
}

/// A change to the input of [`decision`].
type Change = Box<dyn Fn(&mut CheckpointInput)>;

#[test]
fn anything_different_is_a_new_entry() -> TestResult {
    let home = tempfile::tempdir()?;
    let (store, clock) = store_at(home.path())?;
    let first = save(&store, decision())?;
    let variants: Vec<(&str, Change)> = vec![
        ("a tag more", Box::new(|i| i.tags.push("tokens".into()))),
        (
            "a tag less",
            Box::new(|i| {
                i.tags.pop();
            }),
        ),
        (
            "another description",
            Box::new(|i| i.description.push_str(" Also on login.")),
        ),
        (
            "another type",
            Box::new(|i| i.memory_type = MemoryType::Learning),
        ),
        (
            "another decision",
            Box::new(|i| i.structured.decision = Some("Rotate daily".into())),
        ),
        (
            "an alternative less",
            Box::new(|i| {
                i.structured.alternatives.pop();
            }),
        ),
        (
            "another confidence",
            Box::new(|i| i.structured.confidence = Some(3)),
        ),
        (
            "an impact",
            Box::new(|i| i.structured.impact = Some("Sessions end on reuse".into())),
        ),
        (
            "a topic",
            Box::new(|i| i.topic = Some("auth-tokens".into())),
        ),
        (
            "another workspace",
            Box::new(|i| i.workspace = Some("other".into())),
        ),
    ];
    let mut ids = vec![first.value.id.clone()];
    for (what, change) in &variants {
        clock.advance(Duration::seconds(1));
        let mut input = decision();
        change(&mut input);
        let saved = save(&store, input)?;
        assert_eq!(saved.duplicate_of, None, "{what}");
        assert!(!ids.contains(&saved.value.id), "{what}");
        ids.push(saved.value.id);
    }
    // Naming an id to supersede that the first did not supersede is a new save too.
    let mut input = decision();
    input.supersedes = vec![first.value.id.clone()];
    let superseding = save(&store, input)?;
    assert_eq!(superseding.duplicate_of, None);
    assert_eq!(superseding.value.supersedes, vec![first.value.id.clone()]);
    // Which then is the one a repeat of it finds.
    let mut input = decision();
    input.supersedes = vec![first.value.id.clone()];
    let repeat = save(&store, input)?;
    assert_eq!(
        repeat.duplicate_of.as_deref(),
        Some(superseding.value.id.as_str())
    );
    Ok(())
}

#[test]
fn a_repeat_saved_before_midnight_is_found_after_it() -> TestResult {
    let home = tempfile::tempdir()?;
    let late = Utc
        .with_ymd_and_hms(2025, 10, 13, 23, 56, 0)
        .single()
        .expect("a time");
    let clock = Arc::new(ManualClock::new(late));
    let store = Store::open(home.path())?.with_clock(clock.clone());
    let first = save(&store, decision())?;
    clock.advance(Duration::minutes(6));
    let second = save(&store, decision())?;
    assert_eq!(
        second.duplicate_of.as_deref(),
        Some(first.value.id.as_str())
    );
    let next_day = NaiveDate::from_ymd_opt(2025, 10, 14).expect("a date");
    assert!(store.checkpoints_for_day("proj", next_day)?.is_empty());
    Ok(())
}

#[test]
fn a_repeat_is_found_in_a_day_file_with_invalid_utf8() -> TestResult {
    let home = tempfile::tempdir()?;
    let (store, clock) = store_at(home.path())?;
    let first = save(&store, decision())?;
    let path = home
        .path()
        .join(format!("proj/checkpoints/{}.md", seed_date()));
    // A bad byte in the heading, before any entry: the entries still read.
    let mut bytes = b"\xff".to_vec();
    bytes.extend_from_slice(&std::fs::read(&path)?);
    std::fs::write(&path, &bytes)?;
    clock.advance(Duration::minutes(1));
    let second = save(&store, decision())?;
    assert_eq!(
        second.duplicate_of.as_deref(),
        Some(first.value.id.as_str())
    );
    assert_eq!(std::fs::read(&path)?, bytes, "nothing written");
    Ok(())
}
