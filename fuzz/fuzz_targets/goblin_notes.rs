//! Fuzz target: the GOBLIN_NOTES.md parser. Never panics; when the input parses, formatting
//! is stable (parse → format → parse → format gives the same text and an equal value).
#![no_main]
use libfuzzer_sys::fuzz_target;
use notes_core::Notes;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(first) = Notes::parse(text) else {
        return;
    };
    let f1 = first.format();
    let second = Notes::parse(&f1).expect("formatted notes parse");
    let f2 = second.format();
    assert_eq!(f1, f2, "formatting is idempotent");
    assert_eq!(Notes::parse(&f2).expect("parses again"), second);
    // Edits through the API keep it parseable.
    let mut edited = second;
    edited.add_decision("fuzz: decision", "a\nb");
    edited.add_file_changed("`odd` path", "");
    edited.add_completed_step("# step");
    let f3 = edited.format();
    assert_eq!(Notes::parse(&f3).expect("edited notes parse"), edited);
});
