//! Task 1: save typed checkpoints (goldfish-store).

use goldfish_store::{CheckpointInput, MemoryType};

use crate::{Agent, AgentError, WORKSPACE};

/// Who saves: recorded in each checkpoint's `Harness` bullet.
const HARNESS: &str = concat!("goldfish-example-agent ", env!("CARGO_PKG_VERSION"));

/// Saves one memory of each type, the incident with a secret in its evidence.
pub(crate) fn run(agent: &Agent) -> Result<(), AgentError> {
    let mut progress = memory(
        MemoryType::Checkpoint,
        "Ran the database migration on staging\nAdded the retry_count column: 2.1 M rows in 40 s.",
        &["db", "migration"],
    );
    progress.structured.next = Some("Run it on production after the load test".into());

    // A typed memory: the type plus structured fields, each stored as a bullet of the day
    // file and searched like the description.
    let mut decision = memory(
        MemoryType::Decision,
        "Retry backoff: exponential with full jitter\n\
         Fixed delays made every client retry at the same instant after an outage.",
        &["retry", "http"],
    );
    decision.structured.decision =
        Some("Exponential backoff from 100 ms to 30 s, full jitter".into());
    decision.structured.alternatives = vec!["Fixed 1 s delay".into(), "Linear backoff".into()];
    decision.structured.confidence = Some(4); // 1 to 5; anything else is refused

    let mut incident = memory(
        MemoryType::Incident,
        "Login page timed out for 20 minutes after the deploy",
        &["auth", "outage"],
    );
    incident.structured.impact = Some("Every user was logged out".into());
    incident.structured.evidence = vec![
        "p99 latency 31 s at 14:02".into(),
        // A secret pasted by mistake: the store replaces it before anything is written.
        "replayed with key AKIAIOSFODNN7EXAMPLE".into(),
    ];

    let learning = memory(
        MemoryType::Learning,
        "The staging database refuses more than 20 connections per client",
        &["db"],
    );

    for input in [progress, decision, incident, learning] {
        // `_reported` also says which secrets were replaced (never the secrets themselves).
        let saved = agent.store.save_checkpoint_reported(input)?;
        let checkpoint = &saved.value;
        println!(
            "   saved {:<10} {}  {}",
            checkpoint.memory_type,
            checkpoint.id,
            checkpoint.title()
        );
        if let Some(summary) = saved.summary() {
            println!("         {summary}");
        }
    }
    Ok(())
}

/// A checkpoint input of `memory_type` in the agent's workspace.
fn memory(memory_type: MemoryType, description: &str, tags: &[&str]) -> CheckpointInput {
    let mut input = CheckpointInput::new(description);
    // Always name the workspace: the store never guesses it from the process.
    input.workspace = Some(WORKSPACE.into());
    input.memory_type = memory_type;
    input.tags = tags.iter().map(|t| t.to_string()).collect();
    input.actor.harness = Some(HARNESS.into());
    // `git_dir: Some(project)` would record the project's branch, commit and changed files
    // (through `git status`); this project is not a git repository.
    input
}
