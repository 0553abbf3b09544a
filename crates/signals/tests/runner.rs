//! `PipelineRunner` with real files, real threads and real processes (this test binary
//! re-executed as a child; see `child_process`).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use goldfish_signals::{
    CANCEL_FILE, CancelHandle, CancelOutcome, Error, Pipeline, PipelineRunner, RunEvent,
    RunnerOptions, Signal, SignalBody, SignalDir, SignalKind, Stage, StageStart,
};

use crate::util::{CHILD_ENV, TestResult, WORKTREE_ENV, run_child, spawn_child, wait_for};

const CHILD_TEST: &str = "runner::child_process";
const GUARD: Duration = Duration::from_secs(60);

/// A signal of `kind` with a small JSON body (so no settling delay applies).
fn signal(kind: SignalKind) -> Signal {
    Signal::parse(kind, r#"{"completed_at": "2024-01-15T10:30:00Z"}"#).expect("valid body")
}

fn options(poll_ms: u64, events: bool) -> RunnerOptions {
    let mut o = RunnerOptions::default();
    o.poll_interval = Duration::from_millis(poll_ms);
    o.use_events = events;
    o.empty_signal_settle = Duration::from_millis(50);
    o
}

fn signal_files(worktree: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(worktree.join(".goblin"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| SignalKind::from_file_name(n).is_some() || n == CANCEL_FILE)
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn stage_of(worktree: &Path) -> Option<(Stage, u32)> {
    PipelineRunner::status(worktree)
        .ok()
        .flatten()
        .map(|p| (p.stage(), p.retries()))
}

/// The child half of the process tests; does nothing unless re-executed with [`CHILD_ENV`].
#[test]
fn child_process() -> TestResult {
    let Ok(job) = std::env::var(CHILD_ENV) else {
        return Ok(());
    };
    let worktree = PathBuf::from(std::env::var(WORKTREE_ENV)?);
    let (what, arg) = job.split_once(':').unwrap_or((job.as_str(), ""));
    match what {
        "emit" => {
            SignalDir::new(&worktree).emit(&signal(arg.parse()?))?;
        }
        "runner" => {
            let mut runner = PipelineRunner::open(&worktree, options(20, true))?;
            runner.run_until_terminal(|_| {})?;
        }
        "cancel" => {
            let outcome = PipelineRunner::request_cancel(&worktree, arg)?;
            if !matches!(outcome, CancelOutcome::Requested(_)) {
                return Err(format!("expected a request to the runner, got {outcome:?}").into());
            }
        }
        "half" => {
            // A careless agent: not atomic, and the document arrives in two parts.
            let path = worktree.join(".goblin/build-complete");
            fs::write(&path, "{\"commits\":")?;
            std::thread::sleep(Duration::from_millis(500));
            fs::OpenOptions::new()
                .append(true)
                .open(&path)?
                .write_all(b" 5}\n")?;
        }
        other => return Err(format!("unknown child job {other}").into()),
    }
    Ok(())
}

/// What a runner thread reports.
#[derive(Debug)]
enum Seen {
    Scan { scan: u64, problems: Vec<String> },
    Stage(StageStart),
}

struct Running {
    events: Receiver<Seen>,
    cancel: CancelHandle,
    events_active: bool,
    scans: Arc<AtomicU64>,
    join: JoinHandle<Result<Pipeline, Error>>,
}

impl Running {
    fn next(&self) -> Result<Seen, Box<dyn std::error::Error>> {
        Ok(self.events.recv_timeout(GUARD)?)
    }

    /// Waits for the stage `stage` to start; returns it and the scans seen before it.
    fn until_stage(
        &self,
        stage: Stage,
    ) -> Result<(StageStart, Vec<Seen>), Box<dyn std::error::Error>> {
        let mut before = Vec::new();
        loop {
            match self.next()? {
                Seen::Stage(s) if s.stage == stage => return Ok((s, before)),
                other => before.push(other),
            }
        }
    }

    fn finish(self) -> Result<Pipeline, Box<dyn std::error::Error>> {
        Ok(self.join.join().map_err(|_| "runner thread panicked")??)
    }
}

fn run_in_thread(
    worktree: &Path,
    options: RunnerOptions,
) -> Result<Running, Box<dyn std::error::Error>> {
    let (tx, events) = mpsc::channel();
    let (ready_tx, ready) = mpsc::channel();
    let scans = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&scans);
    let worktree = worktree.to_path_buf();
    let join = std::thread::spawn(move || -> Result<Pipeline, Error> {
        let mut runner = PipelineRunner::open(&worktree, options)?;
        let _ = ready_tx.send((runner.cancel_handle(), runner.events_active()));
        let end = runner.run_until_terminal(|event| {
            let seen = match event {
                RunEvent::Scanned(r) => {
                    counter.store(r.scan, Ordering::SeqCst);
                    Seen::Scan {
                        scan: r.scan,
                        problems: r.problems.iter().map(|e| e.to_string()).collect(),
                    }
                }
                RunEvent::StageStarted(s) => Seen::Stage(s.clone()),
                _ => return,
            };
            let _ = tx.send(seen);
        })?;
        Ok(end.clone())
    });
    let (cancel, events_active) = ready.recv_timeout(GUARD)?;
    Ok(Running {
        events,
        cancel,
        events_active,
        scans,
        join,
    })
}

#[test]
fn signal_from_another_process_is_picked_up_within_one_poll() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let run = run_in_thread(tmp.path(), options(100, false))?;
    assert!(!run.events_active);
    match run.next()? {
        Seen::Stage(s) => assert_eq!((s.stage, s.resumed), (Stage::Scope, false)),
        other => return Err(format!("expected SCOPE to start first, got {other:?}").into()),
    }
    run_child(CHILD_TEST, "emit:scope-complete", tmp.path())?;
    // Scans completed when the emitting process had exited. The scan after it may have been
    // under way already; the one after that (one poll interval later) must see the signal.
    let done_before = run.scans.load(Ordering::SeqCst);
    let (start, seen) = run.until_stage(Stage::Build)?;
    let detected = seen
        .iter()
        .filter_map(|s| match s {
            Seen::Scan { scan, .. } => Some(*scan),
            Seen::Stage(_) => None,
        })
        .max()
        .map_or(1, |last| last + 1);
    assert!(
        detected <= done_before + 2,
        "detected at scan {detected}, emitted after {done_before}"
    );
    let transition = start.transition.expect("a transition started BUILD");
    assert_eq!(
        transition.signal,
        Some(signal(SignalKind::ScopeComplete)),
        "body recorded"
    );
    assert!(
        signal_files(tmp.path()).is_empty(),
        "the signal that led to BUILD is removed"
    );

    run.cancel.cancel("test over");
    let end = run.finish()?;
    assert_eq!(end.stage(), Stage::Cancelled);
    assert_eq!(end.reason(), Some("cancelled: test over"));
    Ok(())
}

#[test]
fn events_pick_up_a_signal_long_before_the_poll() -> TestResult {
    let tmp = tempfile::tempdir()?;
    // One hour between polls: only an event can wake the runner during this test.
    let mut opts = options(3_600_000, true);
    opts.empty_signal_settle = Duration::from_secs(3600);
    let run = run_in_thread(tmp.path(), opts)?;
    if !run.events_active {
        // No file-system events on this platform: nothing to test; stop the runner.
        run.cancel.cancel("no events");
        run.finish()?;
        return Ok(());
    }
    wait_for("the first scan", || {
        (run.scans.load(Ordering::SeqCst) >= 1).then_some(())
    })?;
    run_child(CHILD_TEST, "emit:scope-complete", tmp.path())?;
    let (start, _) = run.until_stage(Stage::Build)?;
    assert_eq!(start.retries, 0);
    // A cancel from another thread also wakes it at once.
    run.cancel.cancel("from another thread");
    let end = run.finish()?;
    assert_eq!((end.stage(), end.history().len()), (Stage::Cancelled, 2));
    assert_eq!(
        stage_of(tmp.path()),
        Some((Stage::Cancelled, 0)),
        "persisted"
    );
    Ok(())
}

#[test]
fn killed_runner_resumes_with_same_stage_and_retries() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    let dir = SignalDir::new(wt);
    let mut child = spawn_child(CHILD_TEST, "runner", wt)?;
    let steps = [
        (SignalKind::ScopeComplete, Stage::Build, 0),
        (SignalKind::BuildComplete, Stage::Review, 0),
        (SignalKind::ReviewChangesRequested, Stage::Build, 1),
    ];
    wait_for("the child runner", || stage_of(wt))?;
    for (kind, stage, retries) in steps {
        dir.emit(&signal(kind))?;
        wait_for(&format!("{stage}"), || {
            (stage_of(wt) == Some((stage, retries))).then_some(())
        })?;
    }
    let err = PipelineRunner::open(wt, options(20, false)).expect_err("the child holds it");
    assert!(err.is_locked(), "{err}");
    child.kill()?; // SIGKILL: no clean-up of any kind
    child.wait()?;

    let mut runner = PipelineRunner::open(wt, options(20, false))?;
    assert_eq!(
        (runner.stage(), runner.pipeline().retries()),
        (Stage::Build, 1)
    );
    assert_eq!(runner.pipeline().history().len(), 3);
    for (kind, stage) in [
        (SignalKind::BuildComplete, Stage::Review),
        (SignalKind::ReviewApproved, Stage::Test),
        (SignalKind::TestFailed, Stage::Review),
        (SignalKind::ReviewApproved, Stage::Test),
        (SignalKind::TestPassed, Stage::Done),
    ] {
        dir.emit(&signal(kind))?;
        let report = runner.scan_once()?;
        assert_eq!(report.transition.map(|t| t.to), Some(stage), "{kind}");
    }
    assert_eq!(runner.pipeline().retries(), 2);
    assert!(signal_files(wt).is_empty(), "DONE removes every signal");
    let status = PipelineRunner::status(wt)?.expect("persisted");
    assert_eq!(status.reason(), Some("all stages complete (test-passed)"));
    Ok(())
}

#[test]
fn cancel_from_another_process_stops_and_cleans_up() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    let dir = SignalDir::new(wt);
    dir.emit(&signal(SignalKind::ScopeComplete))?;
    // Polling only, so the cancel file is found by a scan, not an event.
    let run = run_in_thread(wt, options(50, false))?;
    run.until_stage(Stage::Build)?;
    fs::write(dir.signal_path(SignalKind::BuildComplete), "{\"commits\": ")?; // stuck
    fs::write(dir.signal_path(SignalKind::TestPassed), "")?; // stray
    run_child(CHILD_TEST, "cancel:operator said stop", wt)?;
    let (start, _) = run.until_stage(Stage::Cancelled)?;
    assert_eq!(
        start.transition.and_then(|t| t.reason).as_deref(),
        Some("cancelled: operator said stop")
    );
    let end = run.finish()?;
    assert_eq!(end.stage(), Stage::Cancelled);
    assert!(
        signal_files(wt).is_empty(),
        "signals and the cancel file are removed"
    );
    assert_eq!(stage_of(wt), Some((Stage::Cancelled, 0)));
    Ok(())
}

#[test]
fn cancel_without_a_runner_is_done_directly() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    assert_eq!(
        PipelineRunner::request_cancel(wt, "x")?,
        CancelOutcome::NoPipeline
    );
    drop(PipelineRunner::open(wt, options(20, false))?);
    SignalDir::new(wt).emit(&signal(SignalKind::TestFailed))?;
    let CancelOutcome::Cancelled(p) = PipelineRunner::request_cancel(wt, "not needed")? else {
        return Err("expected a direct cancel".into());
    };
    assert_eq!(
        (p.stage(), p.reason()),
        (Stage::Cancelled, Some("cancelled: not needed"))
    );
    assert!(signal_files(wt).is_empty());
    assert_eq!(
        PipelineRunner::request_cancel(wt, "again")?,
        CancelOutcome::AlreadyEnded(Stage::Cancelled)
    );
    Ok(())
}

#[test]
fn half_written_signal_is_reported_then_acted_on_when_complete() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    let dir = SignalDir::new(wt);
    let mut runner = PipelineRunner::open(wt, options(20, false))?;
    dir.emit(&signal(SignalKind::ScopeComplete))?;
    runner.scan_once()?;
    let path = dir.signal_path(SignalKind::BuildComplete);
    fs::write(&path, "{\"commits\":")?;
    for _ in 0..2 {
        let report = runner.scan_once()?;
        assert!(report.transition.is_none());
        assert_eq!(report.problems.len(), 1);
        let problem = &report.problems[0];
        assert!(problem.is_invalid_signal());
        assert_eq!(
            (problem.path(), problem.line()),
            (Some(path.as_path()), Some(1))
        );
        assert_eq!(runner.stage(), Stage::Build);
        assert_eq!(fs::read_to_string(&path)?, "{\"commits\":", "left in place");
    }
    fs::OpenOptions::new()
        .append(true)
        .open(&path)?
        .write_all(b" 5}\n")?;
    let report = runner.scan_once()?;
    let transition = report.transition.expect("acted on the complete document");
    let Some(SignalBody::BuildComplete(body)) = transition.signal.as_ref().and_then(Signal::body)
    else {
        return Err("expected a build-complete body".into());
    };
    assert_eq!(body.commits, Some(5));
    Ok(())
}

#[test]
fn half_written_signal_from_another_process() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    SignalDir::new(wt).emit(&signal(SignalKind::ScopeComplete))?;
    let run = run_in_thread(wt, options(50, true))?;
    run.until_stage(Stage::Build)?;
    run_child(CHILD_TEST, "half", wt)?;
    let (start, seen) = run.until_stage(Stage::Review)?;
    let reported = seen.iter().any(|s| {
        matches!(s, Seen::Scan { problems, .. } if problems.iter().any(|p| p.contains("build-complete")))
    });
    assert!(reported, "the broken document was reported: {seen:?}");
    let body = start
        .transition
        .and_then(|t| t.signal)
        .and_then(|s| s.to_value());
    assert_eq!(
        body,
        Some(serde_json::json!({"commits": 5})),
        "only the complete one acted on"
    );
    run.cancel.cancel("done");
    run.finish()?;
    Ok(())
}

#[test]
fn empty_signal_counts_only_once_settled() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    let dir = SignalDir::new(wt);
    let mut runner = PipelineRunner::open(wt, options(20, false))?;
    // The empty moment of `echo '{…}' > scope-complete`: waits, then takes the body.
    let path = dir.signal_path(SignalKind::ScopeComplete);
    fs::write(&path, "")?;
    let report = runner.scan_once()?;
    assert!(report.transition.is_none());
    assert_eq!(report.waiting, [SignalKind::ScopeComplete]);
    assert!(
        report
            .rescan_after
            .is_some_and(|d| d <= Duration::from_millis(50))
    );
    fs::write(&path, "{\"scope_result_hash\": \"abc\"}")?;
    let t = runner.scan_once()?.transition.expect("the complete body");
    assert!(t.signal.and_then(|s| s.to_value()).is_some());
    // A `touch` made a while ago counts at once, with no body.
    let path = dir.signal_path(SignalKind::BuildComplete);
    fs::File::create(&path)?.set_modified(SystemTime::now() - Duration::from_secs(60))?;
    let t = runner
        .scan_once()?
        .transition
        .expect("a settled empty signal");
    assert_eq!(t.signal, Some(Signal::empty(SignalKind::BuildComplete)));
    // A fresh `touch` counts after the settle time.
    fs::File::create(dir.signal_path(SignalKind::ReviewApproved))?;
    assert!(runner.scan_once()?.transition.is_none());
    std::thread::sleep(Duration::from_millis(60));
    assert_eq!(
        runner.scan_once()?.transition.map(|t| t.to),
        Some(Stage::Test)
    );
    Ok(())
}

#[test]
fn one_runner_per_worktree_and_start_rules() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    let runner = PipelineRunner::start(wt, options(20, false))?;
    assert!(
        PipelineRunner::open(wt, options(20, false))
            .expect_err("held")
            .is_locked()
    );
    drop(runner);
    let err = PipelineRunner::start(wt, options(20, false)).expect_err("a SCOPE pipeline exists");
    assert!(err.is_already_active(), "{err}");
    let runner = PipelineRunner::open(wt, options(20, false))?;
    let handle = runner.cancel_handle();
    let mut runner = runner;
    handle.cancel("restart");
    assert_eq!(
        runner.scan_once()?.transition.map(|t| t.to),
        Some(Stage::Cancelled)
    );
    drop(runner);
    fs::write(wt.join(".goblin").join(CANCEL_FILE), "stale")?;
    let runner = PipelineRunner::start(wt, options(20, false))?;
    assert_eq!(
        (runner.stage(), runner.pipeline().history().len()),
        (Stage::Scope, 0)
    );
    assert!(
        !wt.join(".goblin").join(CANCEL_FILE).exists(),
        "a stale cancel file is dropped"
    );
    Ok(())
}

#[test]
fn unreadable_state_is_reported_and_left_untouched() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let state = tmp.path().join(".goblin/pipeline.json");
    fs::create_dir_all(state.parent().expect("has a parent"))?;
    fs::write(&state, "{\n  \"stage\": \"BUILD\",\n  oops\n}")?;
    for err in [
        PipelineRunner::open(tmp.path(), options(20, false)).expect_err("corrupt"),
        PipelineRunner::start(tmp.path(), options(20, false)).expect_err("corrupt"),
        PipelineRunner::status(tmp.path()).expect_err("corrupt"),
    ] {
        assert!(err.is_invalid_state(), "{err}");
        assert_eq!((err.path(), err.line()), (Some(state.as_path()), Some(3)));
    }
    assert_eq!(
        fs::read_to_string(&state)?,
        "{\n  \"stage\": \"BUILD\",\n  oops\n}"
    );
    Ok(())
}

#[test]
fn clean_up_of_stale_and_leftover_signals() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    let dir = SignalDir::new(wt);
    let mut runner = PipelineRunner::open(wt, options(20, false))?;
    // A signal that does not fit the stage is ignored and left alone.
    dir.emit(&signal(SignalKind::TestPassed))?;
    // Older than the start of SCOPE: a leftover of an earlier round, stale for BUILD.
    let old = dir.emit(&signal(SignalKind::BuildComplete))?;
    set_age(&old, Duration::from_secs(60))?;
    assert!(runner.scan_once()?.transition.is_none());
    dir.emit(&signal(SignalKind::ScopeComplete))?;
    let report = runner.scan_once()?;
    assert_eq!(report.transition.map(|t| t.to), Some(Stage::Build));
    assert_eq!(
        report.removed,
        [SignalKind::BuildComplete, SignalKind::ScopeComplete]
    );
    assert_eq!(signal_files(wt), ["test-passed"]);
    drop(runner);

    // A runner killed after committing a transition but before removing its signal.
    dir.emit(&signal(SignalKind::ScopeComplete))?;
    let runner = PipelineRunner::open(wt, options(20, false))?;
    assert_eq!(runner.stage(), Stage::Build);
    assert_eq!(
        signal_files(wt),
        ["test-passed"],
        "the leftover scope-complete is removed"
    );
    Ok(())
}

fn set_age(path: &Path, age: Duration) -> std::io::Result<()> {
    fs::File::options()
        .write(true)
        .open(path)?
        .set_modified(SystemTime::now() - age)
}

/// Regression: two stages finished before the runner scans (one poll interval, or no runner
/// at all) must not lose the second signal as "stale".
#[test]
fn early_signals_of_the_next_stage_are_kept_and_consumed() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    let dir = SignalDir::new(wt);

    // Within one poll interval of a running runner.
    let mut runner = PipelineRunner::start(wt, options(20, false))?;
    dir.emit(&signal(SignalKind::ScopeComplete))?;
    dir.emit(&signal(SignalKind::BuildComplete))?;
    let report = runner.scan_once()?;
    assert_eq!(report.transition.map(|t| t.to), Some(Stage::Build));
    assert_eq!(report.removed, [SignalKind::ScopeComplete]);
    assert_eq!(
        signal_files(wt),
        ["build-complete"],
        "the early signal is kept"
    );
    let report = runner.scan_once()?;
    assert_eq!(report.transition.map(|t| t.to), Some(Stage::Review));
    assert_eq!(report.removed, [SignalKind::BuildComplete], "consumed");
    assert!(signal_files(wt).is_empty());
    runner.cancel_handle().cancel("next case");
    runner.scan_once()?;
    drop(runner);

    // While no runner runs (`pipeline start`, emits, then `pipeline watch`).
    drop(PipelineRunner::start(wt, options(20, false))?);
    dir.emit(&signal(SignalKind::ScopeComplete))?;
    dir.emit(&signal(SignalKind::BuildComplete))?;
    let mut runner = PipelineRunner::open(wt, options(20, false))?;
    let cancel = runner.cancel_handle();
    let mut stages = Vec::new();
    let end = runner.run_until_terminal(|event| {
        if let RunEvent::StageStarted(start) = event {
            stages.push(start.stage);
            if start.stage == Stage::Review {
                cancel.cancel("reached REVIEW");
            }
        }
    })?;
    assert_eq!(end.stage(), Stage::Cancelled);
    assert_eq!(
        stages,
        [Stage::Scope, Stage::Build, Stage::Review, Stage::Cancelled]
    );
    assert!(signal_files(wt).is_empty(), "all signals gone on cancel");
    Ok(())
}

/// A signal of the new stage that predates the stage being left is a leftover of an earlier
/// round: the losing answer of a REVIEW goes when REVIEW comes round again.
#[test]
fn leftovers_from_an_earlier_round_are_removed() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    let dir = SignalDir::new(wt);
    let mut runner = PipelineRunner::open(wt, options(20, false))?;
    for kind in [SignalKind::ScopeComplete, SignalKind::BuildComplete] {
        dir.emit(&signal(kind))?;
        runner.scan_once()?;
    }
    assert_eq!(runner.stage(), Stage::Review);
    let approved = dir.emit(&signal(SignalKind::ReviewApproved))?;
    let changes = dir.emit(&signal(SignalKind::ReviewChangesRequested))?;
    // Both written before BUILD starts again; the older (changes requested) wins.
    set_age(&changes, Duration::from_secs(10))?;
    set_age(&approved, Duration::from_secs(5))?;
    let t = runner.scan_once()?.transition.expect("changes requested");
    assert_eq!((t.to, t.retry), (Stage::Build, true));
    assert_eq!(signal_files(wt), ["review-approved"], "not BUILD's signal");
    dir.emit(&signal(SignalKind::BuildComplete))?;
    let report = runner.scan_once()?;
    assert_eq!(report.transition.map(|t| t.to), Some(Stage::Review));
    assert_eq!(
        report.removed,
        [SignalKind::ReviewApproved, SignalKind::BuildComplete],
        "the old approval is stale"
    );
    assert!(runner.scan_once()?.transition.is_none(), "REVIEW waits");
    Ok(())
}

#[test]
fn with_two_answers_the_older_file_wins() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    let dir = SignalDir::new(wt);
    let mut runner = PipelineRunner::open(wt, options(20, false))?;
    for kind in [SignalKind::ScopeComplete, SignalKind::BuildComplete] {
        dir.emit(&signal(kind))?;
        runner.scan_once()?;
    }
    let approved = dir.emit(&signal(SignalKind::ReviewApproved))?;
    dir.emit(&signal(SignalKind::ReviewChangesRequested))?;
    fs::File::options()
        .write(true)
        .open(&approved)?
        .set_modified(SystemTime::now() - Duration::from_secs(10))?;
    let t = runner.scan_once()?.transition.expect("one of them");
    assert_eq!((t.to, t.retry), (Stage::Test, false));
    Ok(())
}

#[test]
fn notes_stage_follows_the_pipeline_when_the_file_exists() -> TestResult {
    use goldfish_core::time::ManualClock;
    use notes_core::{NotesManager, Stage};

    let t = crate::util::utc("2024-01-15T10:30:00Z");
    let mut opts = options(20, false);
    opts.clock = Arc::new(ManualClock::new(t));

    // No notes file: the runner neither fails nor creates one.
    let bare = tempfile::tempdir()?;
    let mut runner = PipelineRunner::open(bare.path(), opts.clone())?;
    SignalDir::new(bare.path()).emit(&signal(SignalKind::ScopeComplete))?;
    let report = runner.scan_once()?;
    assert!(report.problems.is_empty() && report.transition.is_some());
    assert!(!NotesManager::path(bare.path()).exists());

    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    NotesManager::init(wt, "ENG-123", Stage::Scope, "Implement auth")?;
    let dir = SignalDir::new(wt);
    let mut runner = PipelineRunner::open(wt, opts)?;
    for (kind, stage) in [
        (SignalKind::ScopeComplete, Stage::Build),
        (SignalKind::BuildComplete, Stage::Review),
        (SignalKind::ReviewChangesRequested, Stage::Build),
    ] {
        dir.emit(&signal(kind))?;
        let report = runner.scan_once()?;
        assert_eq!(
            report.transition.map(|t| t.at),
            Some(t),
            "the injected clock"
        );
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        assert_eq!(NotesManager::read(wt)?.stage, stage);
    }
    // CANCELLED has no notes Stage: the notes keep the stage it was cancelled in.
    runner.cancel_handle().cancel("stop");
    assert!(runner.scan_once()?.transition.is_some());
    assert_eq!(NotesManager::read(wt)?.stage, Stage::Build);
    Ok(())
}

#[test]
fn unreadable_notes_are_a_problem_not_a_stop() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let wt = tmp.path();
    let notes = notes_core::NotesManager::path(wt);
    fs::create_dir_all(notes.parent().expect("has a parent"))?;
    let text = "# GOBLIN_NOTES\n\nIssue: X\nStage: SHIPPING\n";
    fs::write(&notes, text)?;
    let mut runner = PipelineRunner::open(wt, options(20, false))?;
    SignalDir::new(wt).emit(&signal(SignalKind::ScopeComplete))?;
    let report = runner.scan_once()?;
    assert_eq!(
        report.transition.map(|t| t.to),
        Some(Stage::Build),
        "the pipeline moves"
    );
    assert_eq!(report.problems.len(), 1);
    let problem = &report.problems[0];
    assert!(problem.is_notes(), "{problem}");
    assert_eq!(problem.path(), Some(notes.as_path()));
    let msg = problem.to_string();
    assert!(msg.contains("SHIPPING") && msg.contains("Stage"), "{msg}");
    assert_eq!(fs::read_to_string(&notes)?, text, "left untouched");
    Ok(())
}

#[test]
fn a_missing_worktree_is_not_created() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let typo = tmp.path().join("no-such-worktree");
    let err = PipelineRunner::open(&typo, options(20, false)).expect_err("missing worktree");
    assert!(err.is_not_found(), "{err}");
    assert!(!typo.exists());
    assert_eq!(PipelineRunner::status(&typo)?, None);
    assert_eq!(
        PipelineRunner::request_cancel(&typo, "x")?,
        CancelOutcome::NoPipeline
    );
    Ok(())
}

#[test]
fn a_deadline_returns_the_pipeline_unfinished() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut opts = options(20, false);
    // Already passed: one scan is still made, then the runner returns.
    opts.deadline = Some(std::time::Instant::now());
    PipelineRunner::start(dir.path(), RunnerOptions::default())?;
    SignalDir::new(dir.path()).emit(&signal(SignalKind::ScopeComplete))?;
    let mut runner = PipelineRunner::open(dir.path(), opts)?;
    let mut scans = 0;
    let p = runner.run_until_terminal(|e| {
        if matches!(e, RunEvent::Scanned(_)) {
            scans += 1;
        }
    })?;
    assert_eq!(p.stage(), Stage::Build, "the signal present was applied");
    assert!(!p.is_terminal());
    assert!(scans >= 1);
    Ok(())
}

#[test]
fn inspect_only_reads_and_advance_applies() -> TestResult {
    let dir = tempfile::tempdir()?;
    PipelineRunner::start(dir.path(), RunnerOptions::default())?;
    let signals = SignalDir::new(dir.path());
    signals.emit(&signal(SignalKind::ScopeComplete))?;
    let state = dir.path().join(".goblin").join("pipeline.json");
    let before = fs::read(&state)?;
    let files_before = signal_files(dir.path());

    let view = PipelineRunner::inspect(dir.path())?.ok_or("a pipeline")?;
    assert_eq!(view.pipeline.stage(), Stage::Scope);
    let pending: Vec<SignalKind> = view.pending.iter().map(|p| p.kind).collect();
    assert_eq!(pending, [SignalKind::ScopeComplete]);
    assert_eq!(fs::read(&state)?, before, "inspect wrote the state");
    assert_eq!(signal_files(dir.path()), files_before);

    signals.emit(&signal(SignalKind::BuildComplete))?;
    let mut runner = PipelineRunner::open(dir.path(), options(20, false))?;
    let reports = runner.advance()?;
    assert_eq!(runner.stage(), Stage::Review);
    assert_eq!(
        reports.len(),
        3,
        "two transitions, then a scan that found nothing"
    );
    assert!(
        PipelineRunner::inspect(dir.path())?
            .ok_or("a pipeline")?
            .pending
            .is_empty()
    );
    Ok(())
}

#[test]
fn pipeline_serialises_as_its_state_file() -> TestResult {
    let p = Pipeline::new(3, chrono::Utc::now());
    let via_serde: serde_json::Value = serde_json::to_value(&p)?;
    let via_file: serde_json::Value = serde_json::from_str(&p.to_json())?;
    assert_eq!(via_serde, via_file);
    assert_eq!(via_serde["stage"], "SCOPE");
    Ok(())
}

#[test]
fn emit_stamped_uses_the_directorys_clock() -> TestResult {
    use goldfish_core::time::ManualClock;
    let dir = tempfile::tempdir()?;
    let t = chrono::DateTime::parse_from_rfc3339("2031-02-03T04:05:06.789Z")?.to_utc();
    let signals = SignalDir::new(dir.path()).with_clock(Arc::new(ManualClock::new(t)));
    let body = Signal::from_value(
        SignalKind::BuildComplete,
        Some(serde_json::json!({"commits": 2})),
    )?;
    let (_, written) = signals.emit_stamped(body)?;
    assert_eq!(written.completed_at(), Some(t));
    let read = signals.read(SignalKind::BuildComplete)?.ok_or("emitted")?;
    assert_eq!(read.completed_at(), Some(t));
    // A given completed_at is kept; an empty signal stays empty.
    let (_, kept) = signals.emit_stamped(signal(SignalKind::TestPassed))?;
    assert_eq!(
        kept.completed_at().map(|c| c.to_rfc3339()),
        Some("2024-01-15T10:30:00+00:00".to_string())
    );
    let (path, empty) = signals.emit_stamped(Signal::empty(SignalKind::ScopeComplete))?;
    assert!(empty.body().is_none());
    assert_eq!(fs::read_to_string(path)?, "");
    Ok(())
}
