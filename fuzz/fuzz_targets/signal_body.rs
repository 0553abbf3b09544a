//! Fuzz target: signal_body. Any bytes, read as any signal kind's file, must parse or fail
//! cleanly (never panic); a parsed signal must format and parse back to the same value, and
//! formatting must then be stable.
#![no_main]
use goldfish_signals::{Signal, SignalKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let kind = SignalKind::ALL[usize::from(selector) % SignalKind::ALL.len()];
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(signal) = Signal::parse(kind, text) else {
        return;
    };
    let formatted = signal.to_json();
    let again = Signal::parse(kind, &formatted).expect("formatted signal parses");
    assert_eq!(again, signal, "parse -> format -> parse is stable");
    assert_eq!(again.to_json(), formatted, "formatting is stable");
    // The JSON value form agrees too (what pipeline.json stores in its history).
    let from_value = Signal::from_value(kind, signal.to_value()).expect("value form parses");
    assert_eq!(from_value, signal);
});
