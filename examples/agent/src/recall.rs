//! Task 2: recall by keyword, by question, with a type filter, and by meaning with a model
//! of the agent's own (goldfish-recall).

use std::sync::Arc;

use goldfish_recall::fusion::ChannelPart;
use goldfish_recall::{MemoryType, RecallOptions, RecallResult, SemanticChannel, recall};

use crate::embedder::ConceptEmbedder;
use crate::{Agent, AgentError, WORKSPACE};

/// Four recalls over what task 1 saved.
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
    let learnings = recall(&agent.store, &learnt)?;
    report("learnings about \"database\"", &learnings);

    // By meaning too, with a model of one's own: the semantic channel ranks the entries by
    // the similarity of their embeddings with the query's, and recall fuses that ranking with
    // the words' one, so an answer in other words than the question's is found.
    let mut meaning = options("how long do we wait between two attempts?");
    meaning.semantic = Some(SemanticChannel::new(Arc::new(ConceptEmbedder)));
    meaning.explain = true; // with a model, each hit also says where each channel ranked it
    let found = recall(&agent.store, &meaning)?;
    report(
        &format!("by meaning ({})", found.channels.join(" + ")),
        &found,
    );
    let best = found.hits.first().and_then(|hit| hit.explanation.as_ref());
    if let Some(fusion) = best.and_then(|explanation| explanation.fusion.as_ref()) {
        let place =
            |part: Option<ChannelPart>| part.map_or("none".into(), |p| format!("#{}", p.rank));
        println!(
            "      lexical rank {}, semantic rank {}",
            place(fusion.lexical),
            place(fusion.semantic)
        );
    }
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
            hit.checkpoint.memory_type,
            hit.checkpoint.title()
        );
    }
}
