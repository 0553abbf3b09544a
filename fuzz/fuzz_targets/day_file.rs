//! Fuzz target: the day-file parser never panics, and whatever it reads formats and parses
//! back to the same checkpoints.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let date = goldfish_store::chrono::NaiveDate::from_ymd_opt(2025, 10, 13).expect("valid date");
    let day = goldfish_store::parse_day_bytes(data, "fuzz", date);
    let text = goldfish_store::format_day_file(date, &day.checkpoints);
    let again = goldfish_store::parse_checkpoint_file(&text, "fuzz", date)
        .expect("a formatted day file parses strictly");
    assert_eq!(again, day.checkpoints, "parse → format → parse is stable");
});
