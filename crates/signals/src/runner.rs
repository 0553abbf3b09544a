//! `PipelineRunner`: drives one worktree's pipeline from its signal files, and survives restarts.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use goldfish_core::fs::{
    FileLock, FsError, FsOp, WriteOptions, create_dir_all, try_lock_exclusive, write_atomic,
};
use goldfish_core::time::{SharedClock, now_millis, system_clock};

use crate::dir::GOBLIN_DIR;
use crate::pipeline::{DEFAULT_MAX_RETRIES, expected_signals};
use crate::{Error, ErrorKind, Pipeline, Signal, SignalDir, SignalKind, Stage, Transition};

/// The file in `.goblin/` that holds the pipeline state.
pub const STATE_FILE: &str = "pipeline.json";

/// The file in `.goblin/` that asks a running runner to cancel; its text (optional) is the
/// reason.
pub const CANCEL_FILE: &str = "cancel";

/// The longest cancel reason kept from a `cancel` file, in characters.
const MAX_REASON_CHARS: usize = 200;

/// How a [`PipelineRunner`] works. Build with `RunnerOptions::default()` and set fields.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunnerOptions {
    /// How often to look for signals (default 5 s, the protocol's `POLL_INTERVAL_SECONDS`).
    pub poll_interval: Duration,
    /// The retry limit of a new pipeline (default 3). A resumed pipeline keeps its own.
    pub max_retries: u32,
    /// Also watch `.goblin/` for file-system events (default: yes). An event only triggers an
    /// immediate rescan; polling goes on regardless, so a missed or unsupported event costs
    /// at most one poll interval. If the watcher cannot be set up the runner just polls.
    pub use_events: bool,
    /// How old an *empty* signal file must be before it counts (default 200 ms).
    ///
    /// A careless `echo '{…}' > .goblin/build-complete` first creates an empty file and
    /// writes the JSON a moment later; an empty file is also a valid signal (`touch`). The
    /// runner waits until an empty file has been empty for this long (by its modification
    /// time, or by how long this runner has seen it unchanged) so it never acts on the empty
    /// moment of a write in progress.
    pub empty_signal_settle: Duration,
    /// The clock for transition times (default: the system clock).
    pub clock: SharedClock,
    /// When [`run_until_terminal`](PipelineRunner::run_until_terminal) gives up waiting and
    /// returns the pipeline as it is, not yet ended (default: never). At least one scan is
    /// made even when the deadline has already passed.
    pub deadline: Option<Instant>,
}

impl Default for RunnerOptions {
    fn default() -> Self {
        RunnerOptions {
            poll_interval: Duration::from_secs(5),
            max_retries: DEFAULT_MAX_RETRIES,
            use_events: true,
            empty_signal_settle: Duration::from_millis(200),
            clock: system_clock(),
            deadline: None,
        }
    }
}

/// What one scan found and did; returned by [`PipelineRunner::scan_once`].
#[derive(Debug)]
#[non_exhaustive]
pub struct ScanReport {
    /// The scan's number in this runner (1 for the first).
    pub scan: u64,
    /// The transition made, if any (at most one per scan).
    pub transition: Option<Transition>,
    /// Signals that could not be read (invalid JSON, half-written, unreadable) — they are
    /// left in place and block the stage until fixed — and side effects that failed without
    /// stopping the pipeline (updating `GOBLIN_NOTES.md`, removing an old signal).
    pub problems: Vec<Error>,
    /// Empty signal files not yet old enough to count (see
    /// [`RunnerOptions::empty_signal_settle`]).
    pub waiting: Vec<SignalKind>,
    /// Signal files removed by this scan's clean-up.
    pub removed: Vec<SignalKind>,
    /// When to scan again at the latest to pick up a waiting signal, if sooner than the poll
    /// interval.
    pub rescan_after: Option<Duration>,
}

/// A stage has started: passed to the handler of [`PipelineRunner::run_until_terminal`] so
/// that it can launch the agent for the stage.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StageStart {
    /// The stage that started (terminal stages included, so a caller can report the end).
    pub stage: Stage,
    /// Retries so far.
    pub retries: u32,
    /// The transition that started it; `None` when the runner begins with the current stage.
    pub transition: Option<Transition>,
    /// True when the runner resumed a pipeline that was already at this stage (for example
    /// after a restart): the agent for the stage may or may not still be running.
    pub resumed: bool,
}

/// What [`PipelineRunner::run_until_terminal`] reports to its handler.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum RunEvent<'a> {
    /// A stage started: launch its agent.
    StageStarted(&'a StageStart),
    /// A scan finished (every poll, event or wake-up); carries its problems.
    Scanned(&'a ScanReport),
}

/// A pipeline as [`PipelineRunner::inspect`] sees it, without changing anything.
#[derive(Debug)]
#[non_exhaustive]
pub struct PipelineView {
    /// The pipeline as last persisted.
    pub pipeline: Pipeline,
    /// Signal files present that fit the current stage but have not been applied yet (a
    /// runner applies them at its next scan; `goldfish pipeline advance` or `watch` does it
    /// now). Each holds the signal or why it cannot be read. Empty once the pipeline ended.
    pub pending: Vec<crate::PresentSignal>,
}

/// What [`PipelineRunner::request_cancel`] did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CancelOutcome {
    /// A runner holds the pipeline; it was asked to cancel through the `cancel` file at this
    /// path and will do so at its next scan (at once when it watches events).
    Requested(PathBuf),
    /// No runner held the pipeline, so it was cancelled directly; this is its final state.
    Cancelled(Pipeline),
    /// The pipeline had already ended at this stage; nothing was changed.
    AlreadyEnded(Stage),
    /// The worktree has no pipeline.
    NoPipeline,
}

#[derive(Debug, Default)]
struct CancelShared {
    reason: Mutex<Option<String>>,
}

/// Cancels a running [`PipelineRunner`] from any thread. Cheap to clone.
///
/// The runner notices at once, even while it waits for its next poll.
#[derive(Debug, Clone)]
pub struct CancelHandle {
    shared: Arc<CancelShared>,
    wake: Sender<()>,
}

impl CancelHandle {
    /// Asks the runner to cancel with `reason` (kept in the state). Later calls before the
    /// runner acts keep the first reason.
    pub fn cancel(&self, reason: &str) {
        let mut slot = self.shared.reason.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| reason.to_string());
        drop(slot);
        // The runner may have gone; then there is nobody left to wake.
        let _ = self.wake.send(());
    }

    /// True once a cancel was asked for through this handle (or a clone).
    pub fn is_requested(&self) -> bool {
        self.shared
            .reason
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    fn take(&self) -> Option<String> {
        self.shared
            .reason
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}

/// Drives one worktree's pipeline: reads the signal files in `.goblin/`, moves the
/// [`Pipeline`], persists it, cleans up, and tells a handler when a stage starts.
///
/// # Files (all in `{worktree}/.goblin/`)
///
/// - `pipeline.json` — the state ([`Pipeline::to_json`]), replaced atomically and durably
///   after every transition, so a runner killed at any instant resumes with the same stage,
///   retries and history. Read it with [`PipelineRunner::status`].
/// - `.pipeline.json.lock` — held (`flock`) for the runner's whole life, so one worktree has
///   at most one runner; the operating system releases it when the process dies.
/// - `cancel` — a request from another process to cancel; its optional text is the reason.
///   Create it with [`PipelineRunner::request_cancel`] (or by hand: `echo why > .goblin/cancel`).
/// - the six signal files, read but never written by the runner. A file that cannot be read
///   (invalid JSON, half written) is reported in [`ScanReport::problems`], left in place, and
///   blocks its stage until it is fixed; it is re-read at every scan.
/// - `GOBLIN_NOTES.md` — when it exists, its `Stage:` line follows the pipeline, written
///   through [`notes_core::NotesManager::update`] under the notes' own lock (CANCELLED, which
///   the notes format lacks, leaves it unchanged). A missing notes file is not an error and is
///   not created; a notes file that cannot be updated (say, a `Stage:` a person mistyped) is
///   reported in [`ScanReport::problems`] as [`ErrorKind::Notes`] and left untouched, and the
///   pipeline moves on regardless.
///
/// # Order of a transition (crash safety)
///
/// 1. remove stale signals of the new stage (see *Stale signals* below; they cannot fit the
///    old stage, so removing them first loses nothing);
/// 2. write `pipeline.json` (the commit point);
/// 3. update `GOBLIN_NOTES.md`;
/// 4. remove the signal that led to the new stage — or, on DONE, FAILED and CANCELLED, all
///    signals and the `cancel` file.
///
/// A runner killed between 2 and 4 leaves that signal behind; the next runner removes it on
/// [`open`](PipelineRunner::open), since it can never fit the stage it led to.
///
/// # Stale signals
///
/// A signal of the new stage that is already present when the stage starts is usually a
/// genuine early completion: an agent finished two stages within one poll interval, or
/// while no runner was running. It is kept, and the scan that follows the transition acts
/// on it (so `scope-complete` and `build-complete` together take the pipeline from SCOPE to
/// REVIEW in two scans). Only a signal that is *strictly older* than both the signal that
/// caused the transition and the start of the stage being left (the modification time of
/// `pipeline.json`, written when that stage began) is a leftover from an earlier round and
/// is removed. All times compared are file modification times; on a tie (coarse time
/// granularity) or an unknown time the signal is kept.
///
/// When a stage has two signals at once (`review-approved` and `review-changes-requested`),
/// the older file wins; the other predates the stage that follows, so it is removed as stale
/// when its stage comes round again.
#[derive(Debug)]
pub struct PipelineRunner {
    worktree: PathBuf,
    dir: SignalDir,
    state_path: PathBuf,
    cancel_path: PathBuf,
    pipeline: Pipeline,
    options: RunnerOptions,
    resumed: bool,
    cancel: CancelHandle,
    wake: Receiver<()>,
    watcher: Option<notify::RecommendedWatcher>,
    settling: HashMap<SignalKind, (u64, Option<SystemTime>, Instant)>,
    scans: u64,
    // Held for the runner's life: the exclusive lock that makes it the only runner. A
    // `FileLock` unlocks explicitly when dropped, so a child process that another thread forked
    // in the meantime (and that still shares the descriptor until it execs) cannot keep the
    // worktree locked after the runner is gone.
    _lock: FileLock,
}

fn goblin_dir(worktree: &Path) -> PathBuf {
    worktree.join(GOBLIN_DIR)
}

fn state_path(worktree: &Path) -> PathBuf {
    goblin_dir(worktree).join(STATE_FILE)
}

/// Takes the runner lock without waiting: `Ok(None)` when another runner holds it.
fn try_lock(worktree: &Path) -> Result<Option<FileLock>, Error> {
    if !worktree.is_dir() {
        // A mistyped worktree must not be created on the way to `.goblin/`.
        let e = io::Error::new(io::ErrorKind::NotFound, "the worktree is not a directory");
        return Err(FsError::new(FsOp::CreateDir, worktree, e).into());
    }
    create_dir_all(&goblin_dir(worktree), None)?;
    Ok(try_lock_exclusive(
        &state_path(worktree),
        &WriteOptions::umask(),
    )?)
}

fn lock_or_fail(worktree: &Path) -> Result<FileLock, Error> {
    try_lock(worktree)?.ok_or_else(|| {
        Error::new(ErrorKind::Locked, "its lock file is held").with_path(goblin_dir(worktree))
    })
}

fn read_state(worktree: &Path) -> Result<Option<Pipeline>, Error> {
    let path = state_path(worktree);
    match goldfish_core::fs::read_utf8_opt(&path)? {
        None => Ok(None),
        Some(text) => Pipeline::from_json(&text)
            .map(Some)
            .map_err(|e| e.with_path(&path)),
    }
}

fn persist(worktree: &Path, pipeline: &Pipeline) -> Result<(), Error> {
    write_atomic(
        &state_path(worktree),
        pipeline.to_json().as_bytes(),
        &WriteOptions::umask(),
    )?;
    Ok(())
}

fn remove_if_present(path: &Path) -> Result<bool, Error> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(FsError::new(FsOp::Remove, path, e).into()),
    }
}

/// Ends a pipeline's files after a terminal transition: all signals and the cancel file go.
fn clean_terminal(dir: &SignalDir, cancel_path: &Path, report: &mut Vec<Error>) -> Vec<SignalKind> {
    let removed = dir.clear_all().unwrap_or_else(|e| {
        report.push(e);
        Vec::new()
    });
    if let Err(e) = remove_if_present(cancel_path) {
        report.push(e);
    }
    removed
}

/// A file's modification time; `None` when it is missing or the file system has none.
fn modified_time(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The time before which a signal of the stage about to start is stale: the earlier of the
/// triggering signal's modification time and the time the stage being left began (the
/// modification time of `pipeline.json`). Both are file times from the same clock, so a
/// coarse granularity only produces ties. `None` (nothing is stale) when either is unknown.
fn stale_cutoff(
    trigger: Option<SystemTime>,
    stage_began: Option<SystemTime>,
) -> Option<SystemTime> {
    Some(trigger?.min(stage_began?))
}

/// Whether a signal file modified at `modified` predates `cutoff`. Ties and unknown times
/// keep the signal: only a file provably older than the stage being left is a leftover.
fn is_stale(modified: Option<SystemTime>, cutoff: Option<SystemTime>) -> bool {
    matches!((modified, cutoff), (Some(m), Some(c)) if m < c)
}

/// The reason written in a `cancel` file: its first line, trimmed and shortened.
fn cancel_file_reason(path: &Path) -> Option<String> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        // Present but unreadable still means "cancel".
        Err(_) => Vec::new(),
    };
    let text = String::from_utf8_lossy(&bytes);
    let line: String = text
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .take(MAX_REASON_CHARS)
        .collect();
    Some(if line.is_empty() {
        "requested through the cancel file".to_string()
    } else {
        line
    })
}

fn make_watcher(dir: &Path, wake: Sender<()>) -> Option<notify::RecommendedWatcher> {
    use notify::{EventKind, RecursiveMode, Watcher};
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        // Reads (ours included) must not wake the runner, or every scan would cause the
        // next; only changes to a signal or the cancel file matter.
        if matches!(event.kind, EventKind::Access(_)) {
            return;
        }
        let relevant = event.paths.iter().any(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n == CANCEL_FILE || SignalKind::from_file_name(n).is_some())
        });
        if relevant || event.paths.is_empty() {
            let _ = wake.send(());
        }
    })
    .ok()?;
    watcher.watch(dir, RecursiveMode::NonRecursive).ok()?;
    Some(watcher)
}

impl PipelineRunner {
    /// Opens the pipeline of `worktree`, resuming the one in `.goblin/pipeline.json` (at its
    /// stage, with its retries) or starting a new one at SCOPE when there is none. Creates
    /// `.goblin/` if needed and removes a signal left behind by a runner killed mid-transition.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Locked`] when another runner holds the worktree,
    /// [`ErrorKind::InvalidState`] when `pipeline.json` is unreadable (it is left untouched),
    /// [`ErrorKind::Io`] when `.goblin/` cannot be written.
    pub fn open(worktree: impl AsRef<Path>, options: RunnerOptions) -> Result<Self, Error> {
        let worktree = worktree.as_ref();
        let lock = lock_or_fail(worktree)?;
        let (pipeline, resumed) = match read_state(worktree)? {
            Some(pipeline) => (pipeline, true),
            None => {
                let pipeline =
                    Pipeline::new(options.max_retries, now_millis(options.clock.as_ref()));
                persist(worktree, &pipeline)?;
                (pipeline, false)
            }
        };
        let runner = PipelineRunner::build(worktree, options, pipeline, resumed, lock);
        if resumed && !runner.pipeline.is_terminal() {
            // A runner killed after committing a transition but before removing the signal
            // that caused it leaves that signal behind. It never fits the stage it led to.
            if let Some(kind) = runner
                .pipeline
                .history()
                .last()
                .and_then(|t| t.signal.as_ref())
            {
                runner.dir.clear(kind.kind())?;
            }
        }
        Ok(runner)
    }

    /// Starts a new pipeline at SCOPE in `worktree`, replacing a finished one (DONE, FAILED or
    /// CANCELLED) and removing a stale `cancel` file. Signals already present are kept, so a
    /// `scope-complete` made beforehand moves the new pipeline at the first scan.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::AlreadyActive`] when a pipeline that has not ended exists (resume it with
    /// [`open`](PipelineRunner::open) or cancel it first), plus the errors of `open`.
    pub fn start(worktree: impl AsRef<Path>, options: RunnerOptions) -> Result<Self, Error> {
        let worktree = worktree.as_ref();
        let lock = lock_or_fail(worktree)?;
        if let Some(existing) = read_state(worktree)?
            && !existing.is_terminal()
        {
            return Err(Error::new(
                ErrorKind::AlreadyActive {
                    stage: existing.stage(),
                },
                "",
            )
            .with_path(state_path(worktree)));
        }
        remove_if_present(&goblin_dir(worktree).join(CANCEL_FILE))?;
        let pipeline = Pipeline::new(options.max_retries, now_millis(options.clock.as_ref()));
        persist(worktree, &pipeline)?;
        Ok(PipelineRunner::build(
            worktree, options, pipeline, false, lock,
        ))
    }

    fn build(
        worktree: &Path,
        options: RunnerOptions,
        pipeline: Pipeline,
        resumed: bool,
        lock: FileLock,
    ) -> Self {
        let (tx, rx) = mpsc::channel();
        let dir = SignalDir::new(worktree);
        let watcher = if options.use_events {
            make_watcher(dir.path(), tx.clone())
        } else {
            None
        };
        PipelineRunner {
            worktree: worktree.to_path_buf(),
            state_path: state_path(worktree),
            cancel_path: dir.path().join(CANCEL_FILE),
            dir,
            pipeline,
            options,
            resumed,
            cancel: CancelHandle {
                shared: Arc::default(),
                wake: tx,
            },
            wake: rx,
            watcher,
            settling: HashMap::new(),
            scans: 0,
            _lock: lock,
        }
    }

    /// The pipeline of `worktree` as last persisted, without taking the runner lock (the
    /// file is replaced atomically, so this never sees half a state); `None` when there is
    /// none. For `pipeline status`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidState`] or [`ErrorKind::Io`] when `pipeline.json` is unreadable.
    pub fn status(worktree: impl AsRef<Path>) -> Result<Option<Pipeline>, Error> {
        read_state(worktree.as_ref())
    }

    /// The pipeline of `worktree` as last persisted and the signals waiting to be applied to
    /// it; `None` when there is none. Only reads: no lock is taken, no signal is applied or
    /// removed, nothing is written. For `goldfish pipeline status`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidState`] or [`ErrorKind::Io`] when `pipeline.json` is unreadable.
    pub fn inspect(worktree: impl AsRef<Path>) -> Result<Option<PipelineView>, Error> {
        let worktree = worktree.as_ref();
        let Some(pipeline) = read_state(worktree)? else {
            return Ok(None);
        };
        let dir = SignalDir::new(worktree);
        let pending = if pipeline.is_terminal() {
            Vec::new()
        } else {
            expected_signals(pipeline.stage())
                .iter()
                .filter_map(|&kind| dir.read_entry(kind))
                .collect()
        };
        Ok(Some(PipelineView { pipeline, pending }))
    }

    /// Cancels the pipeline of `worktree` from any process, with `reason`.
    ///
    /// When a runner holds the worktree, this writes `.goblin/cancel` (atomically) and the
    /// runner cancels at its next scan — immediately when it watches events, else within
    /// one poll interval. When no runner holds it, the pipeline is cancelled here: the state
    /// becomes CANCELLED with the reason, and all signals are removed.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidState`] or [`ErrorKind::Io`] for unreadable or unwritable files.
    pub fn request_cancel(
        worktree: impl AsRef<Path>,
        reason: &str,
    ) -> Result<CancelOutcome, Error> {
        let worktree = worktree.as_ref();
        if !state_path(worktree).exists() {
            return Ok(CancelOutcome::NoPipeline);
        }
        let Some(_lock) = try_lock(worktree)? else {
            let path = goblin_dir(worktree).join(CANCEL_FILE);
            let text = format!("{}\n", reason.trim());
            write_atomic(&path, text.as_bytes(), &WriteOptions::umask())?;
            return Ok(CancelOutcome::Requested(path));
        };
        let Some(mut pipeline) = read_state(worktree)? else {
            return Ok(CancelOutcome::NoPipeline);
        };
        if pipeline.is_terminal() {
            return Ok(CancelOutcome::AlreadyEnded(pipeline.stage()));
        }
        pipeline.cancel(reason, chrono::Utc::now())?;
        persist(worktree, &pipeline)?;
        let dir = SignalDir::new(worktree);
        let mut problems = Vec::new();
        clean_terminal(&dir, &dir.path().join(CANCEL_FILE), &mut problems);
        match problems.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(CancelOutcome::Cancelled(pipeline)),
        }
    }

    /// The worktree.
    pub fn worktree(&self) -> &Path {
        &self.worktree
    }

    /// The pipeline as last persisted.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// The current stage.
    pub fn stage(&self) -> Stage {
        self.pipeline.stage()
    }

    /// The state file, `.goblin/pipeline.json`.
    pub fn state_path(&self) -> &Path {
        &self.state_path
    }

    /// The signal directory.
    pub fn signals(&self) -> &SignalDir {
        &self.dir
    }

    /// True when file-system events are being watched (asked for, and the watcher started).
    pub fn events_active(&self) -> bool {
        self.watcher.is_some()
    }

    /// A handle that cancels this runner from another thread.
    pub fn cancel_handle(&self) -> CancelHandle {
        self.cancel.clone()
    }

    /// Scans once: honours a pending cancel, reads the signals that fit the current stage,
    /// and makes at most one transition (persisting it, updating the notes and cleaning up).
    /// Does not wait and does not call a handler; [`run_until_terminal`](Self::run_until_terminal)
    /// is this in a loop.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`] when the state cannot be persisted or a stale signal cannot be
    /// removed; the pipeline then stays as it was. Unreadable signals are not errors of the
    /// scan: they are listed in [`ScanReport::problems`].
    pub fn scan_once(&mut self) -> Result<ScanReport, Error> {
        // This scan answers every wake-up so far (events and cancels queued while nobody
        // waited); dropping them keeps the queue from growing when only `scan_once` is used.
        while self.wake.try_recv().is_ok() {}
        self.scans += 1;
        let mut report = ScanReport {
            scan: self.scans,
            transition: None,
            problems: Vec::new(),
            waiting: Vec::new(),
            removed: Vec::new(),
            rescan_after: None,
        };
        if self.pipeline.is_terminal() {
            return Ok(report);
        }
        let cancel_reason = self
            .cancel
            .take()
            .or_else(|| cancel_file_reason(&self.cancel_path));
        if let Some(reason) = cancel_reason {
            let mut next = self.pipeline.clone();
            let transition = next.cancel(&reason, now_millis(self.options.clock.as_ref()))?;
            persist(&self.worktree, &next)?;
            self.pipeline = next;
            report.removed = clean_terminal(&self.dir, &self.cancel_path, &mut report.problems);
            report.transition = Some(transition);
            self.settling.clear();
            return Ok(report);
        }

        let mut candidates: Vec<(Option<SystemTime>, Signal)> = Vec::new();
        let mut blocked = false;
        let settle = self.options.empty_signal_settle;
        for &kind in expected_signals(self.pipeline.stage()) {
            let Some(entry) = self.dir.read_entry(kind) else {
                self.settling.remove(&kind);
                continue;
            };
            match entry.signal {
                Err(e) => {
                    blocked = true;
                    report.problems.push(e);
                }
                Ok(signal) if signal.body().is_none() && !settle.is_zero() => {
                    let key = (entry.len, entry.modified);
                    let seen = self
                        .settling
                        .entry(kind)
                        .or_insert((key.0, key.1, Instant::now()));
                    if (seen.0, seen.1) != key {
                        *seen = (key.0, key.1, Instant::now());
                    }
                    let by_mtime = entry
                        .modified
                        .and_then(|m| SystemTime::now().duration_since(m).ok())
                        .unwrap_or_default();
                    let age = by_mtime.max(seen.2.elapsed());
                    if age >= settle {
                        candidates.push((entry.modified, signal));
                    } else {
                        blocked = true;
                        report.waiting.push(kind);
                        let left = settle - age;
                        report.rescan_after =
                            Some(report.rescan_after.map_or(left, |d: Duration| d.min(left)));
                    }
                }
                Ok(signal) => candidates.push((entry.modified, signal)),
            }
        }
        if blocked {
            return Ok(report);
        }
        // The older file wins (None, unknown time, sorts last); the sort is stable, so ties
        // keep the table's order.
        candidates.sort_by_key(|(modified, _)| (modified.is_none(), *modified));
        let Some((trigger_modified, signal)) = candidates.into_iter().next() else {
            return Ok(report);
        };
        let kind = signal.kind();
        // `pipeline.json` was last written when the current stage began; read before the
        // transition rewrites it.
        let stage_began = modified_time(&self.state_path);
        let mut next = self.pipeline.clone();
        let transition = next.apply(signal, now_millis(self.options.clock.as_ref()))?;
        if !transition.to.is_terminal() {
            let cutoff = stale_cutoff(trigger_modified, stage_began);
            for &early in expected_signals(transition.to) {
                let path = self.dir.signal_path(early);
                if is_stale(modified_time(&path), cutoff) && self.dir.clear(early)? {
                    report.removed.push(early);
                }
            }
        }
        persist(&self.worktree, &next)?;
        self.pipeline = next;
        self.settling.clear();
        // The notes keep the stage a pipeline was cancelled in.
        if transition.to != Stage::Cancelled
            && let Err(e) =
                crate::notes::update_stage(&self.worktree, transition.to, &self.options.clock)
        {
            report.problems.push(e);
        }
        if transition.to.is_terminal() {
            let removed = clean_terminal(&self.dir, &self.cancel_path, &mut report.problems);
            report.removed.extend(removed);
        } else {
            match self.dir.clear(kind) {
                Ok(true) => report.removed.push(kind),
                Ok(false) => {}
                Err(e) => report.problems.push(e),
            }
        }
        report.transition = Some(transition);
        Ok(report)
    }

    /// Applies every signal present that fits, scan after scan, until a scan makes no
    /// transition or the pipeline ends; returns the reports of the scans made (at least
    /// one). An empty signal that has not settled yet (see
    /// [`RunnerOptions::empty_signal_settle`]) is waited for, for at most that long each
    /// time, since `touch .goblin/<kind>` followed at once by an advance is the common case.
    /// For `goldfish pipeline advance`.
    ///
    /// # Errors
    ///
    /// The first error of [`scan_once`](Self::scan_once).
    pub fn advance(&mut self) -> Result<Vec<ScanReport>, Error> {
        // A file rewritten again and again never settles; stop waiting for it after a while.
        const MAX_SETTLE_WAITS: u32 = 20;
        let mut waits = 0;
        let mut reports = Vec::new();
        loop {
            let report = self.scan_once()?;
            let moved = report.transition.is_some();
            let settle = if report.waiting.is_empty() {
                None
            } else {
                report.rescan_after
            };
            reports.push(report);
            if self.pipeline.is_terminal() {
                return Ok(reports);
            }
            if moved {
                continue;
            }
            match settle {
                Some(wait) if waits < MAX_SETTLE_WAITS => {
                    waits += 1;
                    std::thread::sleep(wait.min(self.options.empty_signal_settle));
                }
                _ => return Ok(reports),
            }
        }
    }

    /// Runs the pipeline until it is DONE, FAILED or CANCELLED, or until
    /// [`RunnerOptions::deadline`] passes, and returns its state (not yet ended when the
    /// deadline stopped it).
    ///
    /// `on_event` first receives [`RunEvent::StageStarted`] for the current stage (with
    /// `resumed` set when the pipeline was already there), then [`RunEvent::Scanned`] after
    /// every scan and [`RunEvent::StageStarted`] after every transition (terminal stages
    /// included). Between scans the runner sleeps for the poll interval, waking at once on a
    /// file-system event (when watched), on [`CancelHandle::cancel`], or when an empty signal
    /// has settled. To stop from the handler, cancel through a handle taken beforehand.
    ///
    /// # Errors
    ///
    /// The first error of [`scan_once`](Self::scan_once); the persisted state is consistent
    /// and a new runner resumes from it.
    pub fn run_until_terminal(
        &mut self,
        mut on_event: impl FnMut(RunEvent<'_>),
    ) -> Result<&Pipeline, Error> {
        if !self.pipeline.is_terminal() {
            let start = StageStart {
                stage: self.pipeline.stage(),
                retries: self.pipeline.retries(),
                transition: None,
                resumed: self.resumed,
            };
            on_event(RunEvent::StageStarted(&start));
        }
        while !self.pipeline.is_terminal() {
            let report = self.scan_once()?;
            on_event(RunEvent::Scanned(&report));
            if let Some(transition) = &report.transition {
                let start = StageStart {
                    stage: transition.to,
                    retries: transition.retries,
                    transition: Some(transition.clone()),
                    resumed: false,
                };
                on_event(RunEvent::StageStarted(&start));
            }
            if self.pipeline.is_terminal() {
                break;
            }
            if report.transition.is_some() {
                // Something changed: look again at once (signals of the new stage may exist).
                continue;
            }
            let mut wait = report.rescan_after.map_or(self.options.poll_interval, |d| {
                d.min(self.options.poll_interval)
            });
            if let Some(deadline) = self.options.deadline {
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                wait = wait.min(deadline - now);
            }
            match self.wake.recv_timeout(wait) {
                Ok(()) | Err(RecvTimeoutError::Timeout) => {}
                // Impossible while the runner holds its own sender; wait out the interval.
                Err(RecvTimeoutError::Disconnected) => std::thread::sleep(wait),
            }
            // Coalesce a burst of events into one scan.
            while self.wake.try_recv().is_ok() {}
        }
        Ok(&self.pipeline)
    }
}
