//! Fuzz target: the tombstone parser never panics; what it reads formats and parses back to
//! the same tombstones; a tombstone whose id and author are cut from the input round-trips
//! whenever the id is one a tombstone can name.
#![no_main]
use goldfish_store::{
    Forgotten, Tombstone, format_tombstone, format_tombstone_header, is_tombstone_id,
    parse_tombstones,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(stones) = parse_tombstones(&text) {
        let mut again = format_tombstone_header("fuzz");
        for t in &stones {
            again.push_str(&format_tombstone(t));
        }
        assert_eq!(
            parse_tombstones(&again).ok(),
            Some(stones),
            "parse → format → parse is stable"
        );
    }
    let (id, by) = text.split_once('\0').unwrap_or((&text, ""));
    if is_tombstone_id(id) {
        let at =
            goldfish_store::chrono::DateTime::from_timestamp_millis(data.len() as i64 * 1_000_003)
                .expect("time in range");
        let what = if data.len() % 2 == 0 {
            Forgotten::Plan { id: id.to_string() }
        } else {
            let day = goldfish_store::chrono::NaiveDate::from_ymd_opt(2025, 10, 13).expect("date");
            Forgotten::Checkpoint {
                id: id.to_string(),
                day,
            }
        };
        let t = Tombstone::new(what, at, by);
        let line = format_tombstone(&t);
        assert_eq!(
            parse_tombstones(&line).ok(),
            Some(vec![t]),
            "a tombstone round-trips"
        );
    }
});
