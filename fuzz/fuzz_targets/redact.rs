//! Fuzz target: redaction. Any UTF-8 input is redacted without panicking; findings are in
//! order, do not overlap and lie on character boundaries; the text is borrowed exactly when
//! nothing was found; redacting the output again finds nothing (idempotence); and no
//! `<private>` tag is left, as a field or as a document (no text between the tags survives).
#![no_main]
use std::borrow::Cow;
use std::sync::LazyLock;

use goldfish_redact::Redactor;
use libfuzzer_sys::fuzz_target;

static REDACTOR: LazyLock<Redactor> = LazyLock::new(Redactor::default);

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let once = REDACTOR.redact(text);
    let mut end = 0;
    for finding in &once.findings {
        let range = &finding.range;
        assert!(range.start >= end && range.start < range.end && range.end <= text.len());
        assert!(text.is_char_boundary(range.start) && text.is_char_boundary(range.end));
        end = range.end;
    }
    assert_eq!(
        once.findings.is_empty(),
        matches!(once.text, Cow::Borrowed(_))
    );
    let twice = REDACTOR.redact(&once.text);
    assert!(
        twice.findings.is_empty(),
        "found again: {:?} in {:?}",
        twice.findings,
        once.text
    );
    assert!(!once.text.contains("<private>"), "an open tag left in {:?}", once.text);
    let _ = once.summary();
    let document = REDACTOR.redact_document(text);
    assert!(
        !document.text.contains("<private>"),
        "an open tag left in {:?}",
        document.text
    );
    let again = REDACTOR.redact_document(&document.text);
    assert!(
        again.findings.is_empty(),
        "found again: {:?} in {:?}",
        again.findings,
        document.text
    );
});
