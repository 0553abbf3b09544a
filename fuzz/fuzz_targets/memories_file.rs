//! Fuzz target: the Goldfish checkpoint-file and brief parsers never panic, a checkpoint
//! they read has an id and a trimmed description, and CRLF line ends read the same as LF.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = goldfish_memories::parse_brief_file(text);
    let Ok((record, _)) = goldfish_memories::parse_memory_file(text) else {
        return;
    };
    assert!(!record.id.trim().is_empty(), "a checkpoint has an id");
    let edges = |c: char| c == ' ' || c == '\t' || c == '\n';
    assert_eq!(
        record.description.trim_matches(edges),
        record.description,
        "the description is trimmed"
    );
    let crlf = text.replace("\r\n", "\n").replace('\n', "\r\n");
    let (again, _) = goldfish_memories::parse_memory_file(&crlf)
        .expect("the same file with CRLF line ends parses");
    assert_eq!(again, record, "CRLF and LF read the same");
});
