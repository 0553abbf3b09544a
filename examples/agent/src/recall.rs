//! Task 2: recall by keyword, by question and with a type filter (goldfish-recall).

use goldfish_recall::{MemoryType, RecallOptions, RecallResult, recall};

use crate::{Agent, AgentError, WORKSPACE};

/// Three recalls over what task 1 saved.
pub(crate) fn run(agent: &Agent) -> Result<(), AgentError> {
    // A keyword with a typo: "migratoin" finds "migration".
    let mut keyword = options("migratoin");
    keyword.explain = true; // each hit says which query word matched which term, and how
    let found = recall(&agent.store, &keyword)?;
    report("keyword \"migratoin\"", &found);
    if let Some(explanation) = found.hits.first().and_then(|hit| hit.explanation.as_ref()) {
        for word in &explanation.words {
            if let Some(m) = &word.matched {
                println!("      {:?} matched {:?} ({})", word.word, m.term, m.how);
            }
        }
    }

    // A question in plain words: its framing ("what did we decide about") is not searched for.
    let question = options("what did we decide about retry backoff?");
    report("question", &recall(&agent.store, &question)?);

    // A type filter, applied before the search and the limit: of everything about the
    // database, only what was learnt.
    let mut learnt = options("database");
    learnt.filter.memory_type = Some(MemoryType::Learning);
    report(
        "learnings about \"database\"",
        &recall(&agent.store, &learnt)?,
    );
    Ok(())
}

/// Recall options for the agent's workspace, searching for `search`.
fn options(search: &str) -> RecallOptions {
    // `RecallOptions` is `#[non_exhaustive]`: start from the default (the last two days, ten
    // hits, the persistent index, no model) and set fields.
    let mut opts = RecallOptions::default();
    // Named, not `Scope::Current`: the library reads no current directory to detect it.
    opts.workspace = WORKSPACE.into();
    opts.search = Some(search.to_string());
    opts
}

/// Prints how many checkpoints matched and the ranked hits.
fn report(what: &str, result: &RecallResult) {
    println!("   {what}: {} found", result.total);
    for hit in &result.hits {
        let score = hit
            .score
            .map_or(String::new(), |s| format!(" (score {s:.2})"));
        println!(
            "      {:<10} {}{score}",
            hit.checkpoint.memory_type.as_str(),
            hit.checkpoint.title()
        );
    }
}
