//! `goldfish hook prompt`: the checkpoints that clearly match what the user just asked.

use goldfish_recall::{Explanation, Field, MatchKind};
use goldfish_store::Store;

use super::{HookKind, HookOptions, Injection, entries_of, inject, room, state_of};
use crate::Error;

// The two thresholds were chosen on the evaluation set in `tests/fixtures/` (30 memories,
// 17 prompts that should find one, 15 of chit-chat), written before any threshold: the
// matches' lowest coverage is 0.49 and lowest strength 1.66; the best non-matches are at
// coverage 0.46 with strength 1.64, coverage 0.47 with strength 1.31, and coverage 1.00
// with strength 0.72 (one common word). Each threshold sits between the two. (With the
// Snowball stems, "returns" meets "returned" and the first non-match rose from coverage
// 0.41 to 0.46: the coverage threshold moved from 0.45 to the new gap's middle.)

/// A hit is injected only when its matched words cover at least this share of the
/// prompt's weight ([`Explanation::coverage`]) …
pub const MIN_COVERAGE: f32 = 0.475;

/// … and its strong matches add up to at least this much evidence ([`Confidence::strength`]:
/// one and a half words found in that checkpoint alone).
pub const MIN_STRENGTH: f32 = 1.5;

/// How many hits are considered.
const CANDIDATES: usize = 6;

/// Words of a prompt that say what to do, not what about ("run the tests again", "thanks,
/// commit it"): left out before the search, so that they alone never match a memory.
/// Recall's own stop words (articles, pronouns, question framing) are dropped by recall.
const CONVERSATIONAL: &[&str] = &[
    "again", "ahead", "alright", "also", "amazing", "answer", "awesome", "build", "can", "change",
    "changes", "check", "clippy", "code", "commit", "continue", "cool", "could", "describe", "do",
    "docs", "does", "done", "error", "errors", "explain", "fail", "failing", "fails", "fine",
    "fix", "fmt", "go", "good", "great", "hello", "help", "hi", "idea", "it", "let", "lets",
    "look", "looks", "make", "me", "more", "next", "nice", "no", "now", "ok", "okay", "perfect",
    "please", "proceed", "push", "rerun", "retry", "run", "same", "see", "should", "show", "start",
    "stop", "suite", "sure", "tell", "test", "tests", "thank", "thanks", "that", "thats", "then",
    "this", "thx", "try", "ty", "update", "wait", "what", "whats", "why", "work", "works", "would",
    "write", "yeah", "yep", "yes", "you",
];

/// The words of `prompt` that are searched for: recall's query words (folded, without stop
/// words or question framing, at most [`goldfish_recall::Query::MAX_TERMS`]) minus the
/// conversational ones ("thanks", "run", "tests", "again", "commit", …). Empty when the
/// prompt is only chit-chat.
pub fn prompt_terms(prompt: &str) -> Vec<String> {
    goldfish_recall::Query::parse(prompt)
        .terms()
        .iter()
        .filter(|t| !CONVERSATIONAL.contains(&t.as_str()))
        .cloned()
        .collect()
}

/// How sure a hit is, from its explanation.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Confidence {
    /// The share of the query's weight it covers.
    pub coverage: f32,
    /// The sum, over query words matched strongly — the word itself, another form of it or
    /// a part of it (not a typo or a synonym), in the title, body or tags (not only a file
    /// path) — of the matched term's IDF times its similarity, in units of the IDF of a word
    /// that only one checkpoint holds: rare words matched well count most, and the measure
    /// means the same in a store of 30 checkpoints and in one of 100,000.
    pub strength: f32,
    /// How many query words matched strongly.
    pub strong: usize,
    /// How many words the query had.
    pub words: usize,
}

impl Confidence {
    /// Reads it off an explanation of a search over `checkpoints` checkpoints.
    pub fn of(e: &Explanation, checkpoints: usize) -> Confidence {
        // Recall's IDF of a term found in one checkpoint of `checkpoints` (BM25's).
        let n = checkpoints.max(1) as f32;
        let unique = (1.0 + (n - 0.5) / 1.5).ln();
        let mut strength = 0.0;
        let mut strong = 0;
        for w in &e.words {
            let Some(m) = &w.matched else { continue };
            let kind = matches!(
                m.how,
                MatchKind::Exact | MatchKind::Stem | MatchKind::Prefix
            );
            let place = m
                .fields
                .iter()
                .any(|f| matches!(f, Field::Title | Field::Body | Field::Tags));
            if w.covered && kind && place {
                strength += m.idf * m.similarity;
                strong += 1;
            }
        }
        Confidence {
            coverage: e.coverage,
            strength: strength / unique,
            strong,
            words: e.words.len(),
        }
    }

    /// Whether the hit clearly matches: enough coverage and strength, and at least two
    /// strong words (one for a one-word query).
    pub fn clear(&self) -> bool {
        self.coverage >= MIN_COVERAGE
            && self.strength >= MIN_STRENGTH
            && self.strong >= self.words.min(2)
    }
}

/// The checkpoints of `opts.workspace` that clearly match `prompt`, not given to this
/// session before, within the room left ([`HookOptions::budget`] and the session's); the
/// injection is recorded in the session's ledger. Chit-chat finds nothing and reads no
/// checkpoint.
pub fn prompt_context(store: &Store, opts: &HookOptions, prompt: &str) -> Result<Injection, Error> {
    let state = state_of(opts)?;
    let none = Injection::empty(HookKind::Prompt, &state, opts.session_budget);
    let terms = prompt_terms(prompt);
    let room = room(opts, &state);
    if terms.is_empty() || room == 0 {
        return Ok(none);
    }
    let mut o = super::recall_options(opts);
    o.search = Some(terms.join(" "));
    o.explain = true;
    o.limit = CANDIDATES;
    let result = match goldfish_recall::recall(store, &o) {
        Ok(r) => r,
        // Only stop words left: nothing to search for is nothing to inject.
        Err(e) if e.kind() == goldfish_recall::ErrorKind::NothingToSearch => return Ok(none),
        Err(e) => return Err(e.into()),
    };
    // How many checkpoints the search weighed (the workspace's whole history): the recall
    // just brought its index up to date.
    let searched = goldfish_recall::index_status(store, &o.workspace, Some(&opts.cwd))
        .map(|s| s.entries)
        .unwrap_or(0)
        .max(result.total);
    let clear: Vec<&goldfish_store::Checkpoint> = result
        .hits
        .iter()
        .filter(|h| {
            h.explanation
                .as_ref()
                .is_some_and(|e| Confidence::of(e, searched).clear())
        })
        .map(|h| &h.checkpoint)
        .collect();
    let entries = entries_of(opts, &state, &clear, result.now);
    let head = "goldfish memory matching this prompt (open one in full with `goldfish show ID`, \
                or the recall tool with `id`):\n";
    inject(opts, none, head, &entries, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chit_chat_has_no_terms() {
        for p in [
            "thanks!",
            "run the tests again",
            "ok",
            "yes please do that",
            "continue",
        ] {
            assert!(prompt_terms(p).is_empty(), "{p}: {:?}", prompt_terms(p));
        }
        let terms = prompt_terms("Why is the Stripe webhook failing?");
        assert_eq!(terms, ["stripe", "webhook"]);
    }
}
