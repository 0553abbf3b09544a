//! Fuzz target: the JSON Lines import reader never panics and accounts for every line: each
//! non-blank line is a checkpoint, a plan or a problem naming its line. A checkpoint it reads
//! exports and reads back the same.
#![no_main]
use std::path::Path;

use goldfish_import::{CheckpointRecord, Record, parse_jsonl};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.jsonl");
    let batch = parse_jsonl(text, path);
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    assert_eq!(
        batch.checkpoints.len() + batch.plans.len() + batch.problems.len(),
        lines,
        "every line is read or reported"
    );
    for p in &batch.problems {
        assert!(
            p.line().is_some_and(|l| l >= 1),
            "a problem names its line: {p}"
        );
    }
    for c in &batch.checkpoints {
        let line = serde_json::to_string(&Record::Checkpoint(CheckpointRecord::from(c)))
            .expect("a record serialises");
        let again = parse_jsonl(&line, path);
        assert_eq!(
            again.checkpoints.as_slice(),
            std::slice::from_ref(c),
            "export → import is stable"
        );
    }
});
