//! Fuzz target: the JOURNAL.md parser. Any UTF-8 input parses without panicking, formats back
//! byte for byte, re-parses to the same document, and every reader (document, text, hand-over)
//! derives the same status.
#![no_main]
use goldfish_journal::{Document, Handover, HandoverOptions, Status};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let doc = Document::parse(text);
    let formatted = doc.format();
    assert_eq!(formatted, text, "parse → format must be byte-identical");
    assert_eq!(
        Document::parse(&formatted),
        doc,
        "parse → format → parse must be stable"
    );
    let status = Status::from_text(text);
    assert_eq!(doc.status(), status);
    let handover = Handover::from_text(text, &HandoverOptions::default());
    assert_eq!(handover.status, status);
    assert!(handover.tail.len() <= text.len() && text.ends_with(&handover.tail));
    // The summaries render without panicking.
    let _ = handover.to_string();
});
