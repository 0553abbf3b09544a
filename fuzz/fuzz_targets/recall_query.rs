//! Fuzz target: recall_query. Query parsing, scoring, explanations, time-window parsing and
//! formatting must never panic; search results are valid, distinct indices in relevance order,
//! the same with explanations as without; parsing a query's own terms again gives the same
//! query; `try_parse` refuses exactly the queries with nothing to search for.
#![no_main]
use libfuzzer_sys::fuzz_target;

use goldfish_recall::{
    Bound, Query, SearchOptions, format_explanation, parse_bound, parse_since, search,
};
use goldfish_store::Checkpoint;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // The first line is the query; the rest are checkpoint descriptions, tags and paths.
    let mut lines = text.split('\n');
    let query_text = lines.next().unwrap_or("");
    let t = goldfish_core::time::parse_utc("2025-10-13T09:00:00Z").expect("valid timestamp");
    let mut cps = Vec::new();
    for (i, line) in lines.enumerate().take(64) {
        let mut c = Checkpoint::new(i.to_string(), t, "fuzz", line.replace('|', "\n"));
        c.tags = line.split(',').take(4).map(String::from).collect();
        c.files = line.split(' ').take(4).map(String::from).collect();
        c.branch = Some(line.chars().take(20).collect());
        cps.push(c);
    }
    let query = Query::parse(query_text);
    let again = Query::parse(&query.terms().join(" "));
    assert_eq!(query, again, "parse(terms(parse(q))) must equal parse(q)");
    assert_eq!(Query::try_parse(query_text).is_err(), query.is_empty());
    let hits = search(&query, &cps, &SearchOptions::default());
    let mut explaining = SearchOptions::default();
    explaining.explain = true;
    let explained = search(&query, &cps, &explaining);
    assert_eq!(explained.len(), hits.len());
    for (a, b) in hits.iter().zip(&explained) {
        assert!(a.index == b.index && a.score.to_bits() == b.score.to_bits());
        let e = b.explain.as_deref().expect("explanations were asked for");
        assert_eq!(e.words.len(), query.terms().len());
        let _ = format_explanation(e);
    }
    let mut seen = std::collections::HashSet::new();
    for w in hits.windows(2) {
        assert!(w[0].score >= w[1].score);
    }
    for h in &hits {
        assert!(h.index < cps.len() && h.score > 0.0 && seen.insert(h.index));
    }
    let _ = parse_since(query_text, t);
    let _ = parse_bound(query_text, Bound::From);
    let _ = parse_bound(query_text, Bound::To);
});
