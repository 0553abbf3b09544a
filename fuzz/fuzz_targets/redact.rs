//! Fuzz target: redaction. Any UTF-8 input is redacted without panicking; findings are in
//! order, do not overlap and lie on character boundaries; the text is borrowed exactly when
//! nothing was found; and redacting the output again finds nothing (idempotence).
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
    let _ = once.summary();
});
