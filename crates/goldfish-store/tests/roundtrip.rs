//! Property tests: any checkpoint round-trips through a day file; any text parses.

use chrono::{DateTime, TimeZone, Utc};
use goldfish_store::{
    Checkpoint, format_day_file, parse_checkpoint_file, parse_day_bytes, parse_day_file,
};
use proptest::prelude::*;

/// Lines that look like day-file structure, mixed into descriptions on purpose.
fn tricky_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("## 10:00 - looks like a header".to_string()),
        Just("- **Tags**: not, tags".to_string()),
        Just("<!-- id: fake at: 2020-01-01T00:00:00Z -->".to_string()),
        Just("<!--".to_string()),
        Just("summary: x".to_string()),
        Just("-->".to_string()),
        Just("\\".to_string()),
        Just("# Checkpoints for 2020-01-01".to_string()),
        Just(String::new()),
        Just("   ".to_string()),
        "\\PC*",
        any::<String>().prop_map(|s| s.replace('\n', " ")),
    ]
}

fn description() -> impl Strategy<Value = String> {
    prop::collection::vec(tricky_line(), 0..6).prop_map(|lines| lines.join("\n"))
}

fn timestamp() -> impl Strategy<Value = DateTime<Utc>> {
    (0i64..4_102_444_800_000)
        .prop_map(|ms| Utc.timestamp_millis_opt(ms).single().expect("in range"))
}

fn item() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("a, b\\c".to_string()),
        "[a-z/._ -]{1,12}",
        any::<String>()
    ]
}

fn checkpoint() -> impl Strategy<Value = Checkpoint> {
    (
        "[A-Za-z0-9_.:-]{1,30}|\\PC{1,10}",
        timestamp(),
        description(),
        prop::collection::vec("[^,\n\r]{0,10}", 0..4),
        prop::option::of(any::<String>()),
        prop::option::of("[0-9a-f]{7}"),
        prop::collection::vec(item(), 0..4),
        0usize..100,
        prop::collection::btree_map("[A-Z][a-z ]{0,8}", any::<String>(), 0..3),
    )
        .prop_map(
            |(id, ts, description, tags, branch, commit, files, omitted, extra)| {
                let mut cp = Checkpoint::new(id, ts, "ws", description);
                cp.tags = tags;
                cp.branch = branch;
                cp.commit = commit;
                cp.files = files;
                cp.files_omitted = omitted;
                cp.extra = extra
                    .into_iter()
                    .filter(|(k, _)| {
                        !["Tags", "Branch", "Commit", "Files", "More files"].contains(&k.as_str())
                    })
                    .collect();
                cp
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_checkpoint_round_trips(cps in prop::collection::vec(checkpoint(), 1..4)) {
        // One day file per checkpoint date; all in one file when they share the first's date.
        let date = cps[0].timestamp.date_naive();
        let same_day: Vec<Checkpoint> = cps.into_iter().filter(|c| c.timestamp.date_naive() == date).collect();
        let text = format_day_file(date, &same_day);
        let back = parse_checkpoint_file(&text, "ws", date);
        prop_assert!(back.is_ok(), "{text}\n{back:?}");
        prop_assert_eq!(back.ok(), Some(same_day), "{}", text);
    }

    #[test]
    fn any_text_parses_without_panic(text in "(## [0-9:]{0,6}( - )?|<!-- id: |- \\*\\*|\\PC|\n){0,200}") {
        let date = chrono::NaiveDate::from_ymd_opt(2025, 10, 13).expect("valid date");
        let day = parse_day_file(&text, "ws", date);
        // Whatever was read formats and parses back the same.
        let again = format_day_file(date, &day.checkpoints);
        prop_assert_eq!(parse_checkpoint_file(&again, "ws", date).ok(), Some(day.checkpoints));
    }

    #[test]
    fn any_bytes_parse_without_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let date = chrono::NaiveDate::from_ymd_opt(2025, 10, 13).expect("valid date");
        let _ = parse_day_bytes(&bytes, "ws", date);
    }
}
