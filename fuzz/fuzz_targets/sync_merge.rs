//! Fuzz target: the sync merge driver's mergers (day files, plans, the active plan, append-only
//! logs such as JOURNAL.md) never panic on any three versions. A merge with an unchanged side
//! gives the other side byte for byte; a day file or plan merged by meaning reads back; an
//! append-only merge keeps every line either side added.
#![no_main]
use goldfish_store::chrono::NaiveDate;
use goldfish_sync::{merge_append_only, merge_file};
use libfuzzer_sys::fuzz_target;

const PATHS: [&str; 4] = [
    "fuzz/checkpoints/2026-03/2026-03-02.md",
    "fuzz/plans/roadmap.md",
    "fuzz/.active-plan",
    "JOURNAL.md",
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    // base, ours and theirs, separated by NUL bytes.
    let mut parts = rest.splitn(3, |&b| b == 0);
    let (Some(base), Some(ours), Some(theirs)) = (parts.next(), parts.next(), parts.next()) else {
        return;
    };
    let path = PATHS[usize::from(selector) % PATHS.len()];
    let none = |_: &str| None;
    let merged = merge_file(path, base, ours, theirs, &none);
    if ours == theirs || base == theirs {
        assert_eq!(merged.as_ref().map(|m| m.text.as_slice()).ok(), Some(ours));
    } else if base == ours {
        assert_eq!(
            merged.as_ref().map(|m| m.text.as_slice()).ok(),
            Some(theirs)
        );
    }
    let (Ok(b), Ok(o), Ok(t)) = (
        std::str::from_utf8(base),
        std::str::from_utf8(ours),
        std::str::from_utf8(theirs),
    ) else {
        return;
    };
    let shortcut = ours == theirs || base == theirs || base == ours;
    if let (Ok(m), false) = (&merged, shortcut) {
        let text = std::str::from_utf8(&m.text).expect("a merge of UTF-8 versions is UTF-8");
        match selector as usize % PATHS.len() {
            0 => {
                let date = NaiveDate::from_ymd_opt(2026, 3, 2).expect("a valid date");
                goldfish_store::parse_checkpoint_file(text, "fuzz", date)
                    .expect("a day file merged by meaning parses strictly");
            }
            1 => {
                goldfish_store::parse_plan(text, "fuzz", "roadmap").expect("a merged plan parses");
            }
            _ => {}
        }
    }
    let union = merge_append_only(b, o, t);
    // Every line a side added (one the base does not hold) is kept. Compared trimmed:
    // blocks that differ only in surrounding whitespace count as one, and blank lines only
    // separate blocks. A base whose last line is unfinished may be extended on that line by
    // both sides, which splits it differently (nothing is lost, but lines are not kept
    // whole): logs end their lines, so the property is checked on those.
    if !(b.is_empty() || b.ends_with('\n')) {
        return;
    }
    let lines: std::collections::HashSet<&str> = union.lines().map(str::trim).collect();
    let old: std::collections::HashSet<&str> = b.lines().map(str::trim).collect();
    for line in o
        .lines()
        .chain(t.lines())
        .map(str::trim)
        .filter(|l| !l.is_empty() && !old.contains(l))
    {
        assert!(lines.contains(line), "the append-only merge lost {line:?}");
    }
});
