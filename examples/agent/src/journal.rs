//! Task 6: a journal through three failures, a refused fourth attempt, a mutation, a success,
//! the hand-over and the archive (goldfish-journal).

use goldfish_journal::{ErrorKind, Journal, LogKind, MutationCode, archive_root_in};

use crate::{Agent, AgentError};

/// The approach that fails three times.
const FIRST: &str = "patch every call site";
/// The approach the mutation switches to.
const SECOND: &str = "one retry layer in the HTTP client";

/// Fails an approach three times, mutates, succeeds, archives into the store.
pub(crate) fn run(agent: &Agent) -> Result<(), AgentError> {
    // `{project}/JOURNAL.md`, created by the first boot with the title `# JOURNAL — {task}`.
    let journal = Journal::open(&agent.project)?.with_task("retry-backoff");
    journal.boot("retry every outbound request", FIRST, "first session")?;
    journal.log(LogKind::Decision, "full jitter, from 100 ms to 30 s")?;

    for what in [
        "the SDK client has no hook",
        "the webhooks bypass it",
        "cron jobs too",
    ] {
        let streak = journal.fail(FIRST, what)?;
        println!("   failure {} of {:?}", streak.failures, streak.approach);
    }
    // After three failures of one approach, trying it again is refused until a mutation is
    // declared: the check and the append happen under one lock, so two agents cannot both
    // slip a fourth attempt past it.
    match journal.fail(FIRST, "one more try") {
        Err(e) if e.kind() == ErrorKind::MutationRequired => {
            println!("   a fourth attempt is refused ({:?})", e.kind());
        }
        Err(e) => return Err(e.into()),
        Ok(_) => {
            return Err(AgentError::Unexpected(
                "a fourth failure was accepted without a mutation".into(),
            ));
        }
    }
    let mutation = journal.mutate(
        MutationCode::ReduceScope,
        FIRST,
        SECOND,
        "the call sites differ too much to patch one by one",
    )?;
    println!("   mutation {}: now {SECOND:?}", mutation.mutation.code);
    journal.succeed(SECOND, "all 12 request kinds retried in the load test")?;

    // What the next agent reads first: the last lines and the status derived from the file.
    let handover = journal.handover()?;
    let status = &handover.status;
    println!(
        "   hand-over: {} session(s), {} entries, approach {:?}, {} open streak(s)",
        status.sessions,
        status.entries,
        status.current_approach.as_deref().unwrap_or("none"),
        status.streaks.len()
    );

    // The archive belongs beside the store, in `{store}/.self-improving/` (a dot directory:
    // never listed as a workspace). `default_archive_root_from_env` is for binaries.
    let archive = journal.archive(&archive_root_in(agent.store.root()))?;
    println!(
        "   archived to {}: {} correction(s), {} pattern(s)",
        archive.journal_copy.display(),
        archive.corrections_added,
        archive.patterns_added
    );
    Ok(())
}
