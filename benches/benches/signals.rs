//! Benches for goldfish-signals: durable emit, and detection latency (emit → stage started)
//! with file-system events and with fast polling.
//!
//! Detection is measured from the moment `emit` returns (the signal is visible) to the moment
//! the runner's handler is told the next stage started, so it includes the scan, the atomic
//! durable write of `pipeline.json` and the clean-up: what an orchestrator waits for.
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use goldfish_core::fs::WriteOptions;
use goldfish_signals::{
    BuildComplete, CancelHandle, PipelineRunner, RunEvent, RunnerOptions, Signal, SignalDir,
    SignalKind, Stage,
};

fn build_complete() -> Signal {
    let mut body = BuildComplete::default();
    body.completed_at = Some(chrono::Utc::now());
    body.commits = Some(5);
    body.files_changed = Some(8);
    body.lines_added = Some(200);
    body.lines_removed = Some(50);
    Signal::from(body)
}

fn emit_fsync(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = SignalDir::new(tmp.path());
    let signal = build_complete();
    let mut group = c.benchmark_group("signals");
    group.bench_function("emit_fsync", |b| {
        b.iter(|| dir.emit(&signal).expect("emit"))
    });
    group.finish();
}

/// A runner thread that starts a new pipeline whenever one is DONE, and reports each stage
/// start with the instant it happened.
struct Driver {
    worktree: PathBuf,
    started: Receiver<(Stage, Instant)>,
    cancel: Receiver<CancelHandle>,
    thread: JoinHandle<()>,
    stage: Stage,
}

impl Driver {
    fn new(worktree: &Path, options: RunnerOptions) -> Driver {
        let (tx, started) = mpsc::channel();
        let (cancel_tx, cancel) = mpsc::channel();
        let wt = worktree.to_path_buf();
        let thread = std::thread::spawn(move || {
            loop {
                let mut runner = PipelineRunner::start(&wt, options.clone()).expect("start");
                if cancel_tx.send(runner.cancel_handle()).is_err() {
                    return;
                }
                let end = runner
                    .run_until_terminal(|event| {
                        if let RunEvent::StageStarted(s) = event {
                            let _ = tx.send((s.stage, Instant::now()));
                        }
                    })
                    .expect("run");
                if end.stage() != Stage::Done {
                    return;
                }
            }
        });
        let mut driver = Driver {
            worktree: worktree.to_path_buf(),
            started,
            cancel,
            thread,
            stage: Stage::Scope,
        };
        driver.wait_for(Stage::Scope);
        driver
    }

    fn wait_for(&mut self, stage: Stage) -> Instant {
        loop {
            let (got, at) = self.started.recv().expect("runner alive");
            self.stage = got;
            if got == stage {
                return at;
            }
        }
    }

    /// Waits `pause` (untimed, so the runner is back to waiting and the emit lands at some
    /// phase of its poll), emits the forward signal of the current stage, and returns the
    /// detection latency.
    fn step(&mut self, dir: &SignalDir, pause: Duration) -> Duration {
        if self.stage == Stage::Done {
            self.wait_for(Stage::Scope);
        }
        std::thread::sleep(pause);
        let (kind, next) = match self.stage {
            Stage::Scope => (SignalKind::ScopeComplete, Stage::Build),
            Stage::Build => (SignalKind::BuildComplete, Stage::Review),
            Stage::Review => (SignalKind::ReviewApproved, Stage::Test),
            _ => (SignalKind::TestPassed, Stage::Done),
        };
        let signal = if kind == SignalKind::BuildComplete {
            build_complete()
        } else {
            Signal::parse(kind, "{\"completed_at\": \"2024-01-15T10:30:00Z\"}").expect("valid")
        };
        dir.emit(&signal).expect("emit");
        let emitted = Instant::now();
        self.wait_for(next).saturating_duration_since(emitted)
    }

    fn stop(self) {
        // Cancel whichever pipeline is running; the thread ends at a non-DONE end.
        while let Ok(handle) = self.cancel.try_recv() {
            handle.cancel("bench over");
        }
        let _ = PipelineRunner::request_cancel(&self.worktree, "bench over");
        let _ = self.thread.join();
    }
}

/// `pauses(n)` gives the untimed pause before the n-th emit.
fn detect(c: &mut Criterion, name: &str, options: RunnerOptions, pauses: fn(u64) -> Duration) {
    let tmp = tempfile::tempdir().expect("temp dir");
    // The emitting agent's own fsync is not part of detection: skip it to keep the bench short.
    let mut write = WriteOptions::umask();
    write.durable = false;
    let dir = SignalDir::new(tmp.path()).with_write_options(write);
    let mut driver = Driver::new(tmp.path(), options);
    let mut group = c.benchmark_group("signals");
    group.sample_size(10);
    group.bench_function(name, |b| {
        b.iter_custom(|iters| (0..iters).map(|n| driver.step(&dir, pauses(n))).sum())
    });
    group.finish();
    driver.stop();
}

fn detect_events(c: &mut Criterion) {
    let mut options = RunnerOptions::default();
    options.use_events = true; // poll_interval stays 5 s: events do the work
    // A fixed pause: the runner is asleep in its 5 s poll wait when the signal lands.
    detect(c, "detect_events", options, |_| Duration::from_millis(2));
}

fn detect_poll(c: &mut Criterion) {
    let mut options = RunnerOptions::default();
    options.use_events = false;
    options.poll_interval = Duration::from_millis(10);
    // Spread the emits over the 10 ms poll period (1..=10 ms after the last stage started),
    // so the median reflects a random phase rather than an emit that races the next scan.
    detect(c, "detect_poll", options, |n| {
        Duration::from_millis(1 + (n * 7) % 10)
    });
}

criterion_group!(benches, emit_fsync, detect_events, detect_poll);
criterion_main!(benches);
