//! Typed signal files in a worktree's `.goblin/` directory and a restartable
//! SCOPE → BUILD → REVIEW → TEST → DONE pipeline runner driven by them.
//!
//! Coding agents say "my stage is done" by creating a signal file such as
//! `.goblin/build-complete`, empty (`touch`) or with a JSON body. This crate gives those files
//! types ([`Signal`], [`SignalKind`], one struct per body such as [`BuildComplete`], and a JSON
//! Schema per kind for agents in other languages), reads and writes them safely
//! ([`SignalDir`]), moves a pure state machine with them ([`Pipeline`]), and runs that machine
//! over a real worktree ([`PipelineRunner`]): polling, optional file-system events, durable
//! state in `.goblin/pipeline.json`, cancellation from another thread or process, and clean-up.
//!
//! | signal                     | stage  | leads to | retry |
//! |----------------------------|--------|----------|-------|
//! | `scope-complete`           | SCOPE  | BUILD    |       |
//! | `build-complete`           | BUILD  | REVIEW   |       |
//! | `review-approved`          | REVIEW | TEST     |       |
//! | `review-changes-requested` | REVIEW | BUILD    | yes   |
//! | `test-passed`              | TEST   | DONE     |       |
//! | `test-failed`              | TEST   | REVIEW   | yes   |
//!
//! After `max_retries` returns (default 3) the next return fails the pipeline.
//!
//! # Example
//!
//! ```
//! use goldfish_signals::{
//!     BuildComplete, PipelineRunner, Stage, RunnerOptions, Signal, SignalDir, SignalKind,
//! };
//!
//! # fn main() -> Result<(), goldfish_signals::Error> {
//! # let tmp = tempfile::tempdir().expect("temp dir");
//! # let worktree = tmp.path();
//! let mut runner = PipelineRunner::open(worktree, RunnerOptions::default())?;
//! assert_eq!(runner.stage(), Stage::Scope);
//!
//! // Agents (any process) emit signals; emit is atomic.
//! let signals = SignalDir::new(worktree);
//! signals.emit(&Signal::parse(SignalKind::ScopeComplete, r#"{"scope_result_hash": "abc"}"#)?)?;
//! runner.scan_once()?;
//! assert_eq!(runner.stage(), Stage::Build);
//!
//! let mut body = BuildComplete::default();
//! body.commits = Some(5);
//! signals.emit(&Signal::from(body))?;
//! let report = runner.scan_once()?;
//! assert_eq!(report.transition.map(|t| t.to), Some(Stage::Review));
//!
//! // Another process sees the persisted state, and a restarted runner resumes from it.
//! drop(runner);
//! let status = PipelineRunner::status(worktree)?.expect("persisted");
//! assert_eq!(status.stage(), Stage::Review);
//! # Ok(())
//! # }
//! ```
//!
//! A long-running runner uses [`PipelineRunner::run_until_terminal`] with a handler that
//! launches the agent for each stage; see `examples/scripted.rs`.
//!
//! # Guarantees
//!
//! - [`SignalDir::emit`] and every write of `pipeline.json` are atomic (temporary file,
//!   `fsync`, rename, `fsync` of the directory): readers see the old file or the new one,
//!   never half, and a written file survives a crash of the machine.
//! - A signal file that is not valid (half written by a careless non-atomic writer, invalid
//!   JSON, wrong field types) is reported with its path, line and column, left in place, and
//!   never advances the pipeline; it is re-read at every scan. An empty file counts only once
//!   it has stayed empty for [`RunnerOptions::empty_signal_settle`], so the empty instant of
//!   `echo '{…}' > file` is never taken for a `touch`.
//! - A transition is committed by the atomic write of `pipeline.json`; a runner killed at any
//!   instant resumes with the same stage, retries and history.
//! - One runner per worktree (an exclusive lock held for its life); any number of processes
//!   may emit signals, read the status, or request a cancel at the same time.
//!
//! # Crate features
//!
//! None: everything is always available.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod body;
mod dir;
mod error;
mod kind;
mod notes;
mod pipeline;
mod runner;

pub use body::{
    BuildComplete, ReviewApproved, ReviewChangesRequested, ReviewIssue, ScopeComplete, Signal,
    SignalBody, TestFailed, TestPassed,
};
/// The `chrono` this crate's API uses (`DateTime<Utc>`, `NaiveDate`), re-exported so that
/// callers need not depend on it or match its version.
pub use chrono;
pub use dir::{GOBLIN_DIR, PresentSignal, SignalDir};
pub use error::{Error, ErrorKind};
/// The clock types the `with_clock` constructors take (an injectable clock; [`ManualClock`]
/// for tests and replays), re-exported from goldfish-core.
pub use goldfish_core::time::{Clock, ManualClock, SharedClock, SystemClock, system_clock};
pub use kind::{ParseSignalKindError, SignalKind};
/// The pipeline's stage: the same type as GOBLIN_NOTES.md's `Stage:`.
pub use notes_core::{ParseStageError, Stage};
pub use pipeline::{DEFAULT_MAX_RETRIES, Pipeline, Transition, expected_signals, next_stage};
pub use runner::{
    CANCEL_FILE, CancelHandle, CancelOutcome, PipelineRunner, PipelineView, RunEvent,
    RunnerOptions, STATE_FILE, ScanReport, StageStart,
};

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
