//! Runs a pipeline in a temporary worktree with scripted "agents" that emit signals, including
//! one round of review changes (a retry), and prints every transition.
//!
//! ```text
//! cargo run -p goldfish-signals --example scripted
//! ```

use std::time::Duration;

use goldfish_signals::{
    BuildComplete, PipelineRunner, ReviewApproved, ReviewChangesRequested, ReviewIssue, RunEvent,
    RunnerOptions, ScopeComplete, Signal, SignalDir, SignalKind, Stage, TestPassed,
};

/// What the scripted agent of `stage` emits on its `round`-th visit to that stage.
fn scripted(stage: Stage, round: u32) -> Option<Signal> {
    let now = Some(chrono::Utc::now());
    Some(match stage {
        Stage::Scope => {
            let mut b = ScopeComplete::default();
            (b.completed_at, b.scope_result_hash) = (now, Some("abc123".into()));
            Signal::from(b)
        }
        Stage::Build => {
            let mut b = BuildComplete::default();
            (b.completed_at, b.commits, b.files_changed) = (now, Some(round.into()), Some(3));
            Signal::from(b)
        }
        Stage::Review if round == 1 => {
            let mut issue = ReviewIssue::default();
            issue.issue_type = Some("critical".into());
            issue.file = Some("db.py".into());
            issue.line = Some(45);
            issue.description = Some("String interpolation in query".into());
            let mut b = ReviewChangesRequested::default();
            (b.completed_at, b.issues) = (now, Some(vec![issue]));
            b.summary = Some("1 critical issue requires a fix".into());
            Signal::from(b)
        }
        Stage::Review => {
            let mut b = ReviewApproved::default();
            (b.completed_at, b.critical_issues) = (now, Some(0));
            Signal::from(b)
        }
        Stage::Test => {
            let mut b = TestPassed::default();
            (b.completed_at, b.qa_steps_total, b.qa_steps_passed) = (now, Some(5), Some(5));
            Signal::from(b)
        }
        _ => return None,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tmp = tempfile::tempdir()?;
    let worktree = tmp.path().to_path_buf();
    println!("worktree: {}", worktree.display());

    let mut options = RunnerOptions::default();
    options.poll_interval = Duration::from_millis(200);
    let mut runner = PipelineRunner::open(&worktree, options)?;
    println!(
        "events: {}",
        if runner.events_active() {
            "on"
        } else {
            "off (polling)"
        }
    );

    let signals = SignalDir::new(&worktree);
    let mut rounds = std::collections::HashMap::new();
    let mut agents = Vec::new();
    let end = runner.run_until_terminal(|event| match event {
        RunEvent::StageStarted(start) => {
            match &start.transition {
                Some(t) => println!(
                    "{:>6} -> {:<9} on {:<24} retries {}",
                    t.from.as_str(),
                    t.to.as_str(),
                    t.signal
                        .as_ref()
                        .map_or("cancel".into(), |s| s.kind().to_string()),
                    t.retries
                ),
                None => println!("start at {}", start.stage),
            }
            // "Launch the agent" for the stage: here, a thread that emits its signal shortly.
            let round = rounds.entry(start.stage).or_insert(0);
            *round += 1;
            if let Some(signal) = scripted(start.stage, *round) {
                let signals = signals.clone();
                agents.push(std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(50));
                    signals.emit(&signal).map(|_| ())
                }));
            }
        }
        RunEvent::Scanned(report) => {
            for problem in &report.problems {
                eprintln!("problem: {problem}");
            }
        }
        _ => {}
    })?;
    println!("end: {} ({})", end.stage(), end.reason().unwrap_or(""));
    println!(
        "history: {} transitions, {} retries",
        end.history().len(),
        end.retries()
    );
    for agent in agents {
        agent.join().map_err(|_| "agent thread panicked")??;
    }
    let left: Vec<SignalKind> = signals.present().iter().map(|p| p.kind).collect();
    println!("signals left: {left:?}");
    Ok(())
}
