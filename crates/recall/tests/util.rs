//! Shared helpers: a store in a temp dir with a manual clock.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use goldfish_core::time::{ManualClock, parse_utc};
use goldfish_store::{Checkpoint, CheckpointInput, Store};

pub(crate) type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A temporary store whose clock stands where the test puts it.
pub(crate) struct TestStore {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) store: Store,
    pub(crate) clock: Arc<ManualClock>,
}

impl TestStore {
    pub(crate) fn new(now: &str) -> Result<TestStore, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let clock = Arc::new(ManualClock::new(parse_utc(now)?));
        let store = Store::open(dir.path())?.with_clock(clock.clone());
        Ok(TestStore { dir, store, clock })
    }

    pub(crate) fn now(&self) -> DateTime<Utc> {
        use goldfish_core::time::Clock;
        self.clock.now()
    }

    /// Saves a checkpoint at `at` (the clock is moved there first).
    pub(crate) fn save_at(
        &self,
        at: &str,
        ws: &str,
        desc: &str,
        tags: &[&str],
    ) -> Result<Checkpoint, Box<dyn std::error::Error>> {
        self.clock.set(parse_utc(at)?);
        let mut input = CheckpointInput::new(desc);
        input.workspace = Some(ws.to_string());
        input.tags = tags.iter().map(|t| t.to_string()).collect();
        Ok(self.store.save_checkpoint(input)?)
    }
}

pub(crate) fn t(s: &str) -> DateTime<Utc> {
    parse_utc(s).expect("test timestamps are valid")
}
