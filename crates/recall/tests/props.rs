//! Property tests: exact windows over generated stores, an engine that never panics, and a
//! formatter that never exceeds its budget.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use goldfish_core::time::format_utc;
use goldfish_recall::{
    FormatOptions, Query, RecallOptions, SearchOptions, format_recall, recall, search,
};
use goldfish_store::{Checkpoint, Store, format_day_file};
use proptest::prelude::*;

use crate::util::t;

/// Bases where date bugs live: a leap day, month and year ends, an ordinary midnight.
const BASES: [&str; 4] = [
    "2024-02-29T00:00:00Z",
    "2025-01-31T23:00:00Z",
    "2025-12-31T23:30:00Z",
    "2025-10-13T00:00:00Z",
];
/// Offsets span three days either side of the base, to the millisecond.
const SPAN_MS: i64 = 3 * 24 * 3600 * 1000;

fn write_store(
    dir: &std::path::Path,
    cps: &[Checkpoint],
) -> Result<(), Box<dyn std::error::Error>> {
    let mut days: BTreeMap<NaiveDate, Vec<Checkpoint>> = BTreeMap::new();
    for c in cps {
        days.entry(c.timestamp.date_naive())
            .or_default()
            .push(c.clone());
    }
    let cp_dir = dir.join("p").join("checkpoints");
    std::fs::create_dir_all(&cp_dir)?;
    for (date, mut list) in days {
        list.sort_by_key(|c| c.timestamp);
        std::fs::write(
            cp_dir.join(format!("{date}.md")),
            format_day_file(date, &list),
        )?;
    }
    Ok(())
}

fn bound_text(at: DateTime<Utc>, date_only: bool) -> String {
    if date_only {
        at.format("%Y-%m-%d").to_string()
    } else {
        format_utc(&at)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn from_to_returns_exactly_the_window(
        base in 0usize..BASES.len(),
        offsets in prop::collection::vec(-SPAN_MS..SPAN_MS, 0..24),
        a in -SPAN_MS..SPAN_MS,
        b in -SPAN_MS..SPAN_MS,
        from_date in any::<bool>(),
        to_date in any::<bool>(),
    ) {
        let base = t(BASES[base]);
        let cps: Vec<Checkpoint> = offsets
            .iter()
            .enumerate()
            .map(|(i, ms)| Checkpoint::new(format!("id-{i}"), base + TimeDelta::milliseconds(*ms), "p", format!("entry {i}")))
            .collect();
        let dir = tempfile::tempdir().expect("temp dir");
        write_store(dir.path(), &cps).expect("store written");
        let store = Store::open(dir.path()).expect("store opens");

        let (lo, hi) = (a.min(b), a.max(b));
        let mut o = RecallOptions::default();
        o.workspace = "p".into();
        o.from = Some(bound_text(base + TimeDelta::milliseconds(lo), from_date));
        o.to = Some(bound_text(base + TimeDelta::milliseconds(hi), to_date));
        o.limit = usize::MAX;
        o.now = Some(base + TimeDelta::days(30));
        let r = recall(&store, &o).expect("recall works");

        let from = goldfish_recall::parse_bound(o.from.as_deref().unwrap_or(""), goldfish_recall::Bound::From).expect("from");
        let to = goldfish_recall::parse_bound(o.to.as_deref().unwrap_or(""), goldfish_recall::Bound::To).expect("to");
        let want: BTreeSet<String> = cps.iter().filter(|c| from <= c.timestamp && c.timestamp <= to).map(|c| c.id.clone()).collect();
        let got: BTreeSet<String> = r.checkpoints().map(|c| c.id.clone()).collect();
        prop_assert_eq!(got, want);
        prop_assert!(r.skipped.is_empty());
        // Newest first.
        prop_assert!(r.hits.windows(2).all(|w| w[0].checkpoint.timestamp >= w[1].checkpoint.timestamp));
    }

    #[test]
    fn engine_never_panics(query in "\\PC{0,80}", descs in prop::collection::vec("\\PC{0,60}", 0..8)) {
        let now = t("2025-10-13T00:00:00Z");
        let mut cps: Vec<Checkpoint> = descs.iter().enumerate().map(|(i, d)| Checkpoint::new(i.to_string(), now, "w", d.clone())).collect();
        if let Some(c) = cps.first_mut() {
            c.tags = vec![query.clone()];
            c.files = vec![format!("src/{query}.rs")];
            c.branch = Some(query.clone());
        }
        let hits = search(&Query::parse(&query), &cps, &SearchOptions::default());
        prop_assert!(hits.iter().all(|h| h.index < cps.len() && h.score > 0.0));
        let mut seen = BTreeSet::new();
        prop_assert!(hits.iter().all(|h| seen.insert(h.index)));
    }

    #[test]
    fn query_parse_is_idempotent(text in "\\PC{0,80}") {
        let q = Query::parse(&text);
        prop_assert_eq!(Query::parse(&q.terms().join(" ")), q);
    }

    #[test]
    fn engine_never_panics_on_the_evaluation_set(query in "[a-zA-Z0-9 ._/éü-]{0,40}") {
        let cps = crate::eval::corpus().expect("fixture parses");
        let hits = search(&Query::parse(&query), &cps[..60], &SearchOptions::default());
        prop_assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    }

    #[test]
    fn format_stays_within_budget(max in 0usize..4000, n in 0usize..30, full in any::<bool>()) {
        let now = t("2025-10-13T12:00:00Z");
        let cps = crate::eval::corpus().expect("fixture parses");
        let dir = tempfile::tempdir().expect("temp dir");
        let mut mine: Vec<Checkpoint> = cps[..n].to_vec();
        for (i, c) in mine.iter_mut().enumerate() {
            c.workspace = "p".into();
            c.timestamp = now - TimeDelta::minutes(i as i64 + 1);
        }
        write_store(dir.path(), &mine).expect("store written");
        let store = Store::open(dir.path()).expect("store opens");
        let mut o = RecallOptions::default();
        o.workspace = "p".into();
        o.now = Some(now);
        o.limit = 20;
        let r = recall(&store, &o).expect("recall works");
        let mut f = FormatOptions::default();
        f.max_chars = max;
        f.full = full;
        let text = format_recall(&r, &f);
        prop_assert!(text.chars().count() <= max, "{} > {}", text.chars().count(), max);
    }
}

/// Writes `cps` as day files, each in its own workspace's directory.
fn write_workspaces(
    dir: &std::path::Path,
    cps: &[Checkpoint],
) -> Result<(), Box<dyn std::error::Error>> {
    let mut days: BTreeMap<(String, NaiveDate), Vec<Checkpoint>> = BTreeMap::new();
    for c in cps {
        days.entry((c.workspace.clone(), c.timestamp.date_naive()))
            .or_default()
            .push(c.clone());
    }
    for ((ws, date), mut list) in days {
        list.sort_by_key(|c| c.timestamp);
        let cp_dir = dir.join(ws).join("checkpoints");
        std::fs::create_dir_all(&cp_dir)?;
        std::fs::write(
            cp_dir.join(format!("{date}.md")),
            format_day_file(date, &list),
        )?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Without a search, recall reads one day file at a time and keeps only the newest
    /// `limit`: the answer is exactly that of reading every workspace's window whole,
    /// filtering, and sorting newest first (equal times in workspace order), and the day
    /// counts are those of the same checkpoints.
    #[test]
    fn newest_first_equals_sorting_the_whole_window(
        entries in prop::collection::vec((0usize..3, 0i64..40, any::<bool>()), 0..60),
        limit in 0usize..25,
        tagged_only in any::<bool>(),
    ) {
        let base = t("2025-10-13T00:00:00Z");
        let names = ["alpha", "beta", "gamma"];
        // Few distinct times (every 6 hours over ten days): many ties, across workspaces too.
        let cps: Vec<Checkpoint> = entries
            .iter()
            .enumerate()
            .map(|(i, &(ws, slot, tagged))| {
                let mut c = Checkpoint::new(
                    format!("id-{i}"),
                    base + TimeDelta::hours(6 * slot),
                    names[ws],
                    format!("entry {i}"),
                );
                if tagged {
                    c.tags = vec!["kept".to_string()];
                }
                c
            })
            .collect();
        let dir = tempfile::tempdir().expect("temp dir");
        write_workspaces(dir.path(), &cps).expect("store written");
        let store = Store::open(dir.path()).expect("store opens");

        let mut o = RecallOptions::default();
        o.workspace = "all".into();
        o.from = Some("2025-10-14".into());
        o.to = Some("2025-10-21".into());
        o.limit = limit;
        o.now = Some(base + TimeDelta::days(30));
        o.use_index = false;
        if tagged_only {
            o.filter.tags = vec!["kept".to_string()];
        }
        let r = recall(&store, &o).expect("recall works");

        let (from, to) = (r.window.from, r.window.to);
        let mut expected: Vec<Checkpoint> = Vec::new();
        let present: BTreeSet<&str> = cps.iter().map(|c| c.workspace.as_str()).collect();
        for ws in present {
            let range = store.checkpoints_between(ws, from, to).expect("reads");
            expected.extend(range.checkpoints.into_iter().filter(|c| !tagged_only || c.tags.iter().any(|t| t == "kept")));
        }
        expected.sort_by_key(|c| std::cmp::Reverse(c.timestamp));
        prop_assert_eq!(r.total, expected.len());
        let want: Vec<&str> = expected.iter().take(limit).map(|c| c.id.as_str()).collect();
        let got: Vec<&str> = r.checkpoints().map(|c| c.id.as_str()).collect();
        prop_assert_eq!(got, want);
        let shown_total: usize = r.workspaces.iter().map(|w| w.shown).sum();
        prop_assert_eq!(shown_total, r.hits.len());

        let days = goldfish_recall::checkpoints_per_day(&store, &o).expect("counts");
        let mut want_days: BTreeMap<NaiveDate, BTreeMap<String, usize>> = BTreeMap::new();
        for c in &expected {
            *want_days.entry(c.timestamp.date_naive()).or_default().entry(c.workspace.clone()).or_default() += 1;
        }
        prop_assert_eq!(days.days, want_days);
    }
}
