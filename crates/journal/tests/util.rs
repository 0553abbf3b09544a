//! Shared helpers: a journal in a temp dir with a manual clock.

use std::path::Path;
use std::sync::Arc;

use chrono::{TimeZone, Utc};
use goldfish_core::time::ManualClock;
use goldfish_journal::Journal;

pub(crate) type TestResult<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// A manual clock standing at the given UTC minute.
pub(crate) fn clock(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> Arc<ManualClock> {
    let t = Utc
        .with_ymd_and_hms(y, mo, d, h, mi, 0)
        .single()
        .expect("valid test date");
    Arc::new(ManualClock::new(t))
}

/// The journal of `dir`, task `task`, with `clock`.
pub(crate) fn journal(dir: &Path, task: &str, clock: &Arc<ManualClock>) -> TestResult<Journal> {
    Ok(Journal::open(dir)?
        .with_task(task)
        .with_clock(clock.clone()))
}

/// The fixture's bytes, as text.
pub(crate) fn fixture(name: &str) -> TestResult<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    Ok(std::fs::read_to_string(path)?)
}
