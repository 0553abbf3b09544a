//! Fuzz target: the markdown section splitter. Any UTF-8 text (invalid bytes replaced) splits
//! into parts that join back byte for byte, tile the text in order, and survive a body splice.
#![no_main]
use libfuzzer_sys::fuzz_target;
use goldfish_core::Document;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let doc = Document::parse(&text);
    assert_eq!(doc.parts().collect::<String>(), text);
    let mut at = doc.preamble_range().end;
    for s in doc.sections() {
        assert_eq!(s.heading_range.start, at);
        assert_eq!(s.heading_range.end, s.body_range.start);
        at = s.body_range.end;
    }
    assert_eq!(at, text.len());
    if let Some(first) = doc.sections().first() {
        // The splice is exact: the text before and after the body is untouched. (How the
        // result parses is pulldown-cmark's business: markdown is not local, and with lone CR
        // line endings it may read the edited text's structure differently.)
        let (start, end) = (first.body_range.start, first.body_range.end);
        let prefix = &text[..start];
        let mut edited = doc.clone();
        edited.replace_section_body(0, "replaced\n");
        let glue = if prefix.ends_with(['\n', '\r']) {
            ""
        } else {
            "\n"
        };
        let expected = format!("{prefix}{glue}replaced\n{}", &text[end..]);
        assert_eq!(edited.as_str(), expected);
        if let Some(last) = edited.sections().len().checked_sub(1) {
            edited.remove_section(last);
        }
    }
});
