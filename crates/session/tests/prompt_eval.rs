//! Keeps the prompt hook's evaluation set (`tests/fixtures/prompt_eval.jsonl`, prompts over
//! the recall crate's natural-language corpus) honest, without running the hook: every line
//! parses, the three kinds are a third each, the expected ids are checkpoints of the prompt's
//! workspace (none for `none`), and a `paraphrase` prompt shares at most one content word with
//! each memory it expects. The set was written before any ranking of it was looked at (see
//! `eval/README.md`).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Words that carry no subject: English function words and the filler of a chat message. A
/// paraphrase may use any of them freely.
const STOP: &[&str] = &[
    "about",
    "after",
    "again",
    "all",
    "also",
    "and",
    "another",
    "any",
    "anything",
    "are",
    "back",
    "because",
    "been",
    "before",
    "being",
    "but",
    "can",
    "could",
    "did",
    "didn",
    "does",
    "doesn",
    "doing",
    "don",
    "done",
    "each",
    "even",
    "ever",
    "every",
    "for",
    "from",
    "get",
    "going",
    "got",
    "had",
    "has",
    "have",
    "here",
    "hey",
    "how",
    "into",
    "isn",
    "its",
    "just",
    "know",
    "last",
    "let",
    "lets",
    "like",
    "made",
    "make",
    "many",
    "maybe",
    "more",
    "most",
    "much",
    "need",
    "never",
    "not",
    "now",
    "okay",
    "one",
    "only",
    "onto",
    "other",
    "our",
    "ours",
    "out",
    "over",
    "please",
    "really",
    "remember",
    "same",
    "see",
    "should",
    "some",
    "something",
    "still",
    "sure",
    "tell",
    "than",
    "thank",
    "thanks",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "think",
    "this",
    "those",
    "time",
    "times",
    "under",
    "use",
    "used",
    "using",
    "very",
    "want",
    "was",
    "wasn",
    "way",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "won",
    "would",
    "yeah",
    "yes",
    "you",
    "your",
    "yours",
];

/// The prompt the set must hold, with the memory it must expect.
const TZIF_PROMPT: &str =
    "the TZif parser panicked again on a truncated zoneinfo file, what did we change last time?";
const TZIF_ID: &str = "jiff@2025-10-08T16:03:45Z#5dcabd7";

fn read(relative: &str) -> Result<String, Box<dyn std::error::Error>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// The corpus checkpoint's workspace and text (description and tags), by id.
fn corpus() -> Result<HashMap<String, (String, String)>, Box<dyn std::error::Error>> {
    let text = read("../recall/tests/fixtures/nl_corpus.jsonl")?;
    let mut out = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)?;
        let tags: Vec<&str> = v["tags"]
            .as_array()
            .ok_or("corpus line without tags")?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let memory = format!(
            "{} {}",
            v["description"].as_str().unwrap_or(""),
            tags.join(" ")
        );
        out.insert(
            v["id"]
                .as_str()
                .ok_or("corpus line without id")?
                .to_string(),
            (v["workspace"].as_str().unwrap_or("").to_string(), memory),
        );
    }
    Ok(out)
}

/// The content words of a text: lowercase runs of 3 or more ASCII letters, minus `STOP`.
fn content_words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| w.len() >= 3)
        .map(str::to_ascii_lowercase)
        .filter(|w| !STOP.contains(&w.as_str()))
        .collect()
}

/// Every problem of the set's `text`, each naming its line.
fn check(text: &str, corpus: &HashMap<String, (String, String)>, min: usize) -> Vec<String> {
    let mut p = Vec::new();
    let mut count: HashMap<String, usize> = HashMap::new();
    let mut tzif = false;
    let mut total = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("prompt_eval.jsonl:{}", i + 1);
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                p.push(format!("{at}: does not parse: {e}"));
                continue;
            }
        };
        total += 1;
        let kind = v["kind"].as_str().unwrap_or("");
        if !["words", "paraphrase", "none"].contains(&kind) {
            p.push(format!(
                "{at}: kind {kind:?} is not words, paraphrase or none"
            ));
        }
        *count.entry(kind.to_string()).or_default() += 1;
        let workspace = v["workspace"].as_str().unwrap_or("");
        let prompt = v["prompt"].as_str().unwrap_or("");
        if prompt.trim().is_empty() {
            p.push(format!("{at}: no prompt"));
        }
        let Some(expect) = v["expect"].as_array() else {
            p.push(format!("{at}: `expect` is not an array"));
            continue;
        };
        if (kind == "none") != expect.is_empty() {
            p.push(format!(
                "{at}: a {kind} prompt with {} expected ids",
                expect.len()
            ));
        }
        let mut seen = HashSet::new();
        for id in expect {
            let id = id.as_str().unwrap_or("");
            if !seen.insert(id) {
                p.push(format!("{at}: {id} expected twice"));
            }
            let Some((ws, memory)) = corpus.get(id) else {
                p.push(format!("{at}: {id:?} is no corpus checkpoint"));
                continue;
            };
            if ws != workspace {
                p.push(format!("{at}: {id} is of {ws}, not {workspace}"));
            }
            if kind == "paraphrase" {
                let shared: Vec<String> = content_words(prompt)
                    .intersection(&content_words(memory))
                    .cloned()
                    .collect();
                if shared.len() > 1 {
                    p.push(format!("{at}: shares {shared:?} with {id}"));
                }
            }
        }
        if prompt == TZIF_PROMPT && workspace == "jiff" && seen.contains(TZIF_ID) {
            tzif = true;
        }
    }
    if total < min {
        p.push(format!(
            "prompt_eval.jsonl: {total} prompts, fewer than {min}"
        ));
    }
    for kind in ["words", "paraphrase", "none"] {
        let n = count.get(kind).copied().unwrap_or(0);
        if n.abs_diff(total / 3) > 1 {
            p.push(format!(
                "prompt_eval.jsonl: {n} {kind} prompts of {total}, not a third"
            ));
        }
    }
    if !tzif {
        p.push(format!(
            "prompt_eval.jsonl: no jiff prompt {TZIF_PROMPT:?} expecting {TZIF_ID}"
        ));
    }
    p
}

#[test]
fn prompt_eval_set_holds() -> TestResult {
    let problems = check(&read("tests/fixtures/prompt_eval.jsonl")?, &corpus()?, 105);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    Ok(())
}

#[test]
fn prompt_eval_checks_catch_wrong_lines() -> TestResult {
    let corpus = corpus()?;
    let text = read("tests/fixtures/prompt_eval.jsonl")?;
    // A paraphrase that is the memory's own title shares more than one word with it.
    let (id, (_, memory)) = corpus
        .iter()
        .find(|(id, _)| id.as_str() == TZIF_ID)
        .ok_or("the TZif memory is not in the corpus")?;
    let title = memory.lines().next().unwrap_or("");
    let copied = serde_json::json!({
        "kind": "paraphrase", "workspace": "jiff", "prompt": title, "expect": [id],
    });
    let two_words = format!("{text}\n{copied}");
    assert!(
        check(&two_words, &corpus, 105)
            .iter()
            .any(|p| p.contains("shares"))
    );
    // An id of another workspace, an id that is no checkpoint, an expected id on a `none`.
    let wrong_ws = serde_json::json!({
        "kind": "words", "workspace": "regex", "prompt": "x", "expect": [id],
    });
    assert!(!check(&format!("{text}\n{wrong_ws}"), &corpus, 105).is_empty());
    let missing = text.replacen(TZIF_ID, "jiff@2025-10-08T16:03:45Z#0000000", 1);
    assert!(!check(&missing, &corpus, 105).is_empty());
    let none = serde_json::json!({
        "kind": "none", "workspace": "jiff", "prompt": "thanks", "expect": [id],
    });
    assert!(!check(&format!("{text}\n{none}"), &corpus, 105).is_empty());
    // Too few prompts, and kinds that are no longer thirds.
    assert!(!check(&text, &corpus, 1000).is_empty());
    let skewed = text.replace("\"kind\": \"none\"", "\"kind\": \"words\"");
    assert!(!check(&skewed, &corpus, 105).is_empty());
    Ok(())
}
