//! Fuzz target: the Goldfish checkpoint-file and brief parsers never panic, a checkpoint
//! they read has an id and a trimmed LF description, and CRLF line ends read the same as LF.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = goldfish_import::parse_brief_file(text);
    let Ok((record, _)) = goldfish_import::parse_memory_file(text) else {
        return;
    };
    assert!(!record.id.trim().is_empty(), "a checkpoint has an id");
    assert!(!record.description.contains("\r\n"), "CRLF is read as LF");
    let crlf = text.replace("\r\n", "\n").replace('\n', "\r\n");
    let (again, _) = goldfish_import::parse_memory_file(&crlf)
        .expect("the same file with CRLF line ends parses");
    assert_eq!(again, record, "CRLF and LF read the same");
});
