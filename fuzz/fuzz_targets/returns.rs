//! Fuzz target: the parser of the record of returns never panics; what it reads formats and
//! parses back to the same record; a record noted with ids cut from the input round-trips.
#![no_main]
use goldfish_store::{Returns, format_returns, parse_returns};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(record) = parse_returns(&text) {
        assert_eq!(
            parse_returns(&format_returns(&record)).ok(),
            Some(record),
            "parse → format → parse is stable"
        );
    }
    let day = goldfish_store::chrono::NaiveDate::from_ymd_opt(2026, 11, 28).expect("date")
        + goldfish_store::chrono::Days::new(data.len() as u64);
    let ids: Vec<String> = text.split('\0').map(str::to_string).collect();
    let mut record = Returns::default();
    record.note(&ids, day);
    assert_eq!(
        parse_returns(&format_returns(&record)).ok(),
        Some(record),
        "a noted record round-trips"
    );
});
