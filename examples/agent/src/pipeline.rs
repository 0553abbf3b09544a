//! Task 5: drive a SCOPE → BUILD → REVIEW → TEST → DONE pipeline in process
//! (goldfish-signals), with one round of requested changes and a deadline.

use std::time::{Duration, Instant};

use goldfish_signals::{
    BuildComplete, PipelineRunner, ReviewApproved, ReviewChangesRequested, RunEvent, RunnerOptions,
    ScopeComplete, Signal, SignalDir, Stage, TestPassed,
};

use crate::{Agent, AgentError};

/// How long the pipeline may take before the runner gives up waiting: a signal that never
/// comes must not hang the agent.
const DEADLINE: Duration = Duration::from_secs(60);

/// Runs the pipeline, acting as the agent of every stage, until DONE or the deadline.
pub(crate) fn run(agent: &Agent) -> Result<(), AgentError> {
    let mut options = RunnerOptions::default();
    options.deadline = Some(Instant::now() + DEADLINE);
    // Signals are emitted from the handler below, and the runner scans again at once after
    // every transition, so the poll interval (default 5 s) only matters for agents that
    // finish later, in other threads or processes.
    options.poll_interval = Duration::from_millis(200);
    // One runner per worktree: `open` takes `.goblin/pipeline.json`'s lock for its life and
    // resumes a pipeline a killed runner left.
    let mut runner = PipelineRunner::open(&agent.project, options)?;
    let cancel = runner.cancel_handle();
    let signals = SignalDir::new(&agent.project);

    let mut reviews = 0;
    let mut failed = None;
    let end = runner.run_until_terminal(|event| {
        let RunEvent::StageStarted(start) = event else {
            return;
        };
        if let Some(t) = &start.transition {
            let signal = t
                .signal
                .as_ref()
                .map_or("a cancel".into(), |s| s.kind().to_string());
            println!("   {:<6} -> {:<6} on {signal}", t.from, t.to);
        }
        // "Launch the agent" of the stage: here it finishes at once and says so with its
        // signal. A real orchestrator would start a process that emits it when done.
        let signal = match start.stage {
            Stage::Scope => Signal::from(ScopeComplete::default()),
            Stage::Build => {
                let mut done = BuildComplete::default();
                done.commits = Some(2);
                Signal::from(done)
            }
            Stage::Review => {
                reviews += 1;
                if reviews == 1 {
                    let mut changes = ReviewChangesRequested::default();
                    changes.summary = Some("retry the 503s too".into());
                    Signal::from(changes)
                } else {
                    Signal::from(ReviewApproved::default())
                }
            }
            Stage::Test => {
                let mut passed = TestPassed::default();
                (passed.qa_steps_total, passed.qa_steps_passed) = (Some(5), Some(5));
                Signal::from(passed)
            }
            _ => return, // DONE, FAILED, CANCELLED: nothing to launch
        };
        // The handler cannot return an error: keep the first and stop the runner.
        if let Err(e) = signals.emit_stamped(signal) {
            cancel.cancel("the agent could not emit its signal");
            failed.get_or_insert(e);
        }
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    println!(
        "   ended {} after {} transitions, {} retry: {}",
        end.stage(),
        end.history().len(),
        end.retries(),
        end.reason().unwrap_or("")
    );
    if end.stage() != Stage::Done {
        // The deadline passed (or a cancel came from elsewhere): the state is kept in
        // `pipeline.json`, and a new runner would resume from it.
        return Err(AgentError::Unexpected(format!(
            "the pipeline stopped at {} instead of DONE",
            end.stage()
        )));
    }
    Ok(())
}
