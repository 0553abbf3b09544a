//! The evaluation corpora as checkpoints, for the benches and the store generator.

use goldfish_store::Checkpoint;

/// The natural-language evaluation corpus: 1,974 real checkpoints of six projects, as JSON
/// Lines (the recall crate's fixture).
pub const NL_CORPUS: &str = include_str!("../../crates/recall/tests/fixtures/nl_corpus.jsonl");

/// The 400 checkpoints of the recall crate's keyword evaluation set, as JSON Lines.
pub const EVAL_CHECKPOINTS: &str =
    include_str!("../../crates/recall/tests/fixtures/eval_checkpoints.jsonl");

/// Checkpoints from JSON Lines, one `{id, workspace, timestamp, description, tags, branch,
/// commit, files}` object a line, as the recall crate's evaluation fixtures hold them.
///
/// # Panics
///
/// On a line that is not such an object (the corpora are fixtures of this repository), naming
/// the line.
pub fn checkpoints(text: &str) -> Vec<Checkpoint> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(index, line)| {
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("corpus line {}: not JSON: {e}", index + 1));
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            let list = |k: &str| -> Vec<String> {
                v[k].as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let ts = goldfish_core::time::parse_utc(&s("timestamp"))
                .unwrap_or_else(|e| panic!("corpus line {}: bad timestamp: {e}", index + 1));
            let mut c = Checkpoint::new(s("id"), ts, s("workspace"), s("description"));
            c.tags = list("tags");
            c.files = list("files");
            c.branch = Some(s("branch")).filter(|b| !b.is_empty());
            c.commit = Some(s("commit")).filter(|b| !b.is_empty());
            c
        })
        .collect()
}
