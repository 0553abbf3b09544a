//! `tidy` and `apply_tidy` over a real store: near-duplicate clusters and exact copies,
//! unlinked chains of decisions (by words, and by meaning with a model of the test's own),
//! unreturned memories from the record of returns, and what applying changes (and does not);
//! and recall's several phrasings over the same kind of store.

use std::sync::Arc;

use goldfish_recall::semantic::EmbedError;
use goldfish_recall::{
    Embedder, RecallOptions, ResembleBy, Scope, SemanticChannel, TidyOptions, apply_tidy,
    embed_vectors, note_returned, recall, tidy,
};
use goldfish_store::{CheckpointInput, MemoryType};

use crate::util::{TestResult, TestStore};

/// Saves a memory of `memory_type` at `at` in workspace `ws`.
fn save(
    s: &TestStore,
    at: &str,
    ws: &str,
    memory_type: MemoryType,
    text: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    s.clock.set(goldfish_core::time::parse_utc(at)?);
    let mut input = CheckpointInput::new(text);
    input.workspace = Some(ws.into());
    input.memory_type = memory_type;
    Ok(s.store.save_checkpoint(input)?.id)
}

/// Every byte of every file under `dir`, by path.
fn files(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(b) = std::fs::read(&p) {
                out.push((p, b));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn near_duplicates_cluster_around_their_oldest_and_exact_copies_are_named() -> TestResult {
    let s = TestStore::new("2026-11-01T09:00:00Z")?;
    let cp = MemoryType::Checkpoint;
    let first = save(
        &s,
        "2026-11-01T09:00:00Z",
        "api",
        cp,
        "Switched the retry policy to jittered backoff",
    )?;
    // The same words an hour later (a hand-off saved twice): an exact copy.
    let copy = save(
        &s,
        "2026-11-01T10:00:00Z",
        "api",
        cp,
        "Switched the retry policy to jittered backoff",
    )?;
    // Nearly the same words.
    let near = save(
        &s,
        "2026-11-01T11:00:00Z",
        "api",
        cp,
        "Switched the retry policy to jittered exponential backoff",
    )?;
    // The same words two days later: a new occurrence, named but not a copy to forget.
    let later = save(
        &s,
        "2026-11-03T09:00:00Z",
        "api",
        cp,
        "Switched the retry policy to jittered backoff",
    )?;
    // Two releases: numbers tell them apart.
    save(&s, "2026-11-04T09:00:00Z", "api", cp, "Released grep 0.3.1")?;
    save(&s, "2026-11-05T09:00:00Z", "api", cp, "Released grep 0.3.2")?;
    // The same words as a decision: another type, another cluster.
    save(
        &s,
        "2026-11-06T09:00:00Z",
        "api",
        MemoryType::Decision,
        "Switched the retry policy to jittered backoff",
    )?;

    let report = tidy(&s.store, "api", &TidyOptions::default(), None)?;
    assert_eq!(report.checkpoints, 7);
    assert_eq!(report.duplicates.len(), 1, "{:#?}", report.duplicates);
    let d = &report.duplicates[0];
    let ids: Vec<&str> = d.members.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, [&first, &copy, &near, &later]);
    assert_eq!(d.copies_to_forget, vec![copy.clone()]);
    assert!(d.similarity >= goldfish_recall::NEAR_DUPLICATE_WORDS && d.similarity < 1.0);
    assert!(report.chains.is_empty());
    assert!(report.has_changes());
    Ok(())
}

#[test]
fn chains_of_decisions_on_one_subject_link_to_their_newest_when_applied() -> TestResult {
    let s = TestStore::new("2026-11-01T09:00:00Z")?;
    let d = MemoryType::Decision;
    let old = save(
        &s,
        "2026-10-01T09:00:00Z",
        "api",
        d,
        "Use Postgres 14 for the orders database",
    )?;
    let other = save(
        &s,
        "2026-10-02T09:00:00Z",
        "api",
        d,
        "Chose Redis for the session cache",
    )?;
    let mid = save(
        &s,
        "2026-10-10T09:00:00Z",
        "api",
        d,
        "Orders database: Postgres 15 with pgbouncer",
    )?;
    let new = save(
        &s,
        "2026-10-20T09:00:00Z",
        "api",
        d,
        "Upgrade the orders database to Postgres 16",
    )?;
    // An incident on the same subject is not part of a decision's chain.
    save(
        &s,
        "2026-10-21T09:00:00Z",
        "api",
        MemoryType::Incident,
        "Orders database Postgres 16 outage",
    )?;
    // Already linked: not proposed again.
    let a = save(
        &s,
        "2026-10-03T09:00:00Z",
        "api",
        d,
        "Deploy the web tier with blue green releases",
    )?;
    let mut input =
        CheckpointInput::new("Deploy the web tier with canary releases instead of blue green");
    input.workspace = Some("api".into());
    input.memory_type = d;
    input.supersedes = vec![a.clone()];
    s.clock
        .set(goldfish_core::time::parse_utc("2026-10-04T09:00:00Z")?);
    s.store.save_checkpoint(input)?;

    let report = tidy(&s.store, "api", &TidyOptions::default(), None)?;
    assert_eq!(report.chains.len(), 1, "{:#?}", report.chains);
    let chain = &report.chains[0];
    assert_eq!(chain.newest.id, new);
    let older: Vec<&str> = chain.older.iter().map(|l| l.memory.id.as_str()).collect();
    assert_eq!(older, [&mid, &old]);
    assert!(chain.older.iter().all(|l| l.by == ResembleBy::Words));
    assert!(!older.contains(&other.as_str()));

    let before = recall_ids(&s, "postgres")?;
    assert!(
        before.contains(&old) && before.contains(&mid),
        "{before:?} {old} {mid}"
    );
    let applied = apply_tidy(&s.store, &report, "harness=test");
    assert_eq!(applied.linked.len(), 1);
    assert_eq!(applied.linked[0].id, new);
    assert_eq!(applied.linked[0].supersedes, [mid.clone(), old.clone()]);
    assert!(applied.forgotten.forgotten.is_empty());
    assert!(applied.failed.is_empty(), "{:?}", applied.failed);
    // Recall now hides the superseded decisions; nothing was deleted.
    let after = recall_ids(&s, "postgres")?;
    assert!(
        after.contains(&new) && !after.contains(&old) && !after.contains(&mid),
        "{after:?}"
    );
    assert!(s.store.find_checkpoint(Some("api"), &old)?.is_some());
    // A second run finds nothing to do.
    let again = tidy(&s.store, "api", &TidyOptions::default(), None)?;
    assert!(
        again.chains.is_empty() && !again.has_changes(),
        "{again:#?}"
    );
    Ok(())
}

fn recall_ids(s: &TestStore, search: &str) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    s.clock
        .set(goldfish_core::time::parse_utc("2026-11-01T09:00:00Z")?);
    let mut o = RecallOptions::default();
    o.workspace = Scope::Named("api".into());
    o.search = Some(search.into());
    o.days = Some(365);
    Ok(recall(&s.store, &o)?
        .hits
        .into_iter()
        .map(|h| h.checkpoint.id)
        .collect())
}

#[test]
fn a_dry_run_writes_nothing_and_applying_forgets_only_exact_copies() -> TestResult {
    let s = TestStore::new("2026-11-01T09:00:00Z")?;
    let cp = MemoryType::Checkpoint;
    let first = save(
        &s,
        "2026-11-01T09:00:00Z",
        "api",
        cp,
        "Handed off: the importer is half done",
    )?;
    let copy = save(
        &s,
        "2026-11-01T12:00:00Z",
        "api",
        cp,
        "Handed off: the importer is half done",
    )?;
    let near = save(
        &s,
        "2026-11-01T13:00:00Z",
        "api",
        cp,
        "Handed off: importer is half done",
    )?;
    let before = files(s.dir.path());
    let report = tidy(&s.store, "api", &TidyOptions::default(), None)?;
    assert_eq!(files(s.dir.path()), before, "tidy writes nothing");
    assert_eq!(report.duplicates[0].copies_to_forget, vec![copy.clone()]);

    let applied = apply_tidy(&s.store, &report, "harness=test");
    assert_eq!(applied.forgotten.forgotten.len(), 1);
    assert_eq!(applied.forgotten.forgotten[0].tombstone.what.id(), copy);
    assert!(s.store.find_checkpoint(Some("api"), &copy)?.is_none());
    assert!(s.store.find_checkpoint(Some("api"), &first)?.is_some());
    assert!(s.store.find_checkpoint(Some("api"), &near)?.is_some());
    assert!(s.store.forgotten_ids("api")?.contains(&copy));
    Ok(())
}

#[test]
fn unreturned_memories_are_named_only_once_the_record_reaches_back_far_enough() -> TestResult {
    let s = TestStore::new("2026-01-01T09:00:00Z")?;
    let cp = MemoryType::Checkpoint;
    let used = save(
        &s,
        "2026-01-01T09:00:00Z",
        "api",
        cp,
        "Zebra crossing rules for the router",
    )?;
    let unused = save(
        &s,
        "2026-01-02T09:00:00Z",
        "api",
        cp,
        "Quokka mascot chosen for the docs",
    )?;
    let fresh = save(
        &s,
        "2026-09-01T09:00:00Z",
        "api",
        cp,
        "Lemur naming scheme for hosts",
    )?;
    let mut o = TidyOptions::default();
    o.older_than_days = 90;
    o.unreturned_days = 30;

    // No record yet: nothing can be claimed.
    s.clock
        .set(goldfish_core::time::parse_utc("2026-09-02T09:00:00Z")?);
    let r = tidy(&s.store, "api", &o, None)?;
    assert!(!r.unreturned.known && r.unreturned.record_since.is_none());
    assert!(r.unreturned.memories.is_empty());

    // A recall returns `used` today: the record begins, but reaches back only a day.
    let mut ro = RecallOptions::default();
    ro.workspace = Scope::Named("api".into());
    ro.search = Some("zebra".into());
    ro.days = Some(365);
    let result = recall(&s.store, &ro)?;
    assert_eq!(result.hits.len(), 1);
    note_returned(&s.store, &result)?;
    let r = tidy(&s.store, "api", &o, None)?;
    assert!(!r.unreturned.known);
    assert_eq!(
        r.unreturned.known_from.map(|d| d.to_string()).as_deref(),
        Some("2026-10-02")
    );

    // Twenty days later `used` is returned again (a hook); forty days after the record began,
    // the record knows: `unused` (old, never returned) is named, `used` and `fresh` are not.
    s.clock
        .set(goldfish_core::time::parse_utc("2026-09-22T09:00:00Z")?);
    goldfish_store::note_returned(
        s.dir.path(),
        "api",
        std::slice::from_ref(&used),
        s.now().date_naive(),
    )?;
    s.clock
        .set(goldfish_core::time::parse_utc("2026-10-12T09:00:00Z")?);
    let r = tidy(&s.store, "api", &o, None)?;
    assert!(r.unreturned.known);
    let named: Vec<&str> = r
        .unreturned
        .memories
        .iter()
        .map(|m| m.id.as_str())
        .collect();
    assert_eq!(
        named,
        [unused.as_str()],
        "neither `used` nor `{fresh}`: {r:#?}"
    );
    Ok(())
}

/// A model that knows two concepts and nothing else: storage words, and cache words.
struct TwoConcepts;

impl TwoConcepts {
    fn vector(text: &str) -> Vec<f32> {
        let mut v = vec![0.0; 4];
        for w in text.split(|c: char| !c.is_alphanumeric()) {
            match w.to_lowercase().as_str() {
                "postgres" | "sql" | "database" | "mysql" => v[0] += 1.0,
                "redis" | "memcached" | "cache" => v[1] += 1.0,
                _ => {}
            }
        }
        v[3] = 0.01;
        v
    }
}

impl Embedder for TwoConcepts {
    fn id(&self) -> &str {
        "two-concepts@1"
    }
    fn dimension(&self) -> usize {
        4
    }
    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(Self::vector(text))
    }
    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts.iter().map(|t| Self::vector(t)).collect())
    }
}

#[test]
fn with_a_model_a_chain_is_found_by_meaning_where_words_differ() -> TestResult {
    let s = TestStore::new("2026-11-01T09:00:00Z")?;
    let d = MemoryType::Decision;
    let old = save(&s, "2026-10-01T09:00:00Z", "api", d, "Chose Postgres")?;
    let new = save(
        &s,
        "2026-10-05T09:00:00Z",
        "api",
        d,
        "Moved everything onto MySQL database",
    )?;
    let by_words = tidy(&s.store, "api", &TidyOptions::default(), None)?;
    assert!(by_words.chains.is_empty(), "no word in common");

    let channel = SemanticChannel::new(Arc::new(TwoConcepts));
    // Without vectors in the cache, meaning has nothing to compare.
    let no_vectors = tidy(&s.store, "api", &TidyOptions::default(), Some(&channel))?;
    assert!(!no_vectors.by_meaning && no_vectors.chains.is_empty());
    embed_vectors(&s.store, &Scope::All, None, &channel, &mut |_, _| {})?;
    let report = tidy(&s.store, "api", &TidyOptions::default(), Some(&channel))?;
    assert!(report.by_meaning);
    assert_eq!(report.chains.len(), 1, "{report:#?}");
    assert_eq!(report.chains[0].newest.id, new);
    assert_eq!(report.chains[0].older[0].memory.id, old);
    assert_eq!(report.chains[0].older[0].by, ResembleBy::Meaning);
    Ok(())
}

#[test]
fn copies_count_from_the_one_kept_and_must_match_in_files_branch_and_topic() -> TestResult {
    let s = TestStore::new("2026-11-01T09:00:00Z")?;
    let cp = MemoryType::Checkpoint;
    let text = "Nightly backup of the orders database ran";
    let first = save(&s, "2026-11-01T09:00:00Z", "api", cp, text)?;
    let second = save(&s, "2026-11-02T05:00:00Z", "api", cp, text)?;
    // 40 hours after the first: a copy of the second, but the second is not kept.
    let third = save(&s, "2026-11-03T01:00:00Z", "api", cp, text)?;
    let report = tidy(&s.store, "api", &TidyOptions::default(), None)?;
    assert_eq!(report.duplicates[0].copies_to_forget, vec![second.clone()]);
    assert!(!report.duplicates[0].copies_to_forget.contains(&first));
    assert!(!report.duplicates[0].copies_to_forget.contains(&third));

    // The same words from another branch: a near-duplicate, not a copy to forget.
    s.clock
        .set(goldfish_core::time::parse_utc("2026-11-04T09:00:00Z")?);
    let mut input = CheckpointInput::new("Handed off the importer");
    input.workspace = Some("web".into());
    let one = s.store.save_checkpoint(input)?;
    s.clock
        .set(goldfish_core::time::parse_utc("2026-11-04T10:00:00Z")?);
    let mut other = one.clone();
    other.id = "branch-copy".into();
    other.timestamp += chrono::TimeDelta::hours(1);
    other.branch = Some("feature/x".into());
    s.store.import_checkpoint(&other)?;
    let report = tidy(&s.store, "web", &TidyOptions::default(), None)?;
    assert_eq!(report.duplicates.len(), 1);
    assert!(
        report.duplicates[0].copies_to_forget.is_empty(),
        "{report:#?}"
    );

    // Two decisions on different topics are each current: never chained.
    for (at, topic, text) in [
        (
            "2026-11-05T09:00:00Z",
            "orders-db",
            "Orders database runs on Postgres 16",
        ),
        (
            "2026-11-06T09:00:00Z",
            "analytics-db",
            "Analytics database runs on Postgres 16 replicas",
        ),
    ] {
        s.clock.set(goldfish_core::time::parse_utc(at)?);
        let mut input = CheckpointInput::new(text);
        input.workspace = Some("db".into());
        input.memory_type = MemoryType::Decision;
        input.topic = Some(topic.into());
        s.store.save_checkpoint(input)?;
    }
    let report = tidy(&s.store, "db", &TidyOptions::default(), None)?;
    assert!(report.chains.is_empty(), "{report:#?}");

    // Days beyond any calendar: no panic, nothing named.
    let mut o = TidyOptions::default();
    o.older_than_days = u32::MAX;
    o.unreturned_days = u32::MAX;
    let r = tidy(&s.store, "db", &o, None)?;
    assert!(r.unreturned.memories.is_empty());
    Ok(())
}

#[test]
fn several_phrasings_are_each_searched_and_fused() -> TestResult {
    let s = TestStore::new("2026-11-01T09:00:00Z")?;
    let cp = MemoryType::Checkpoint;
    let tz = save(
        &s,
        "2026-10-30T09:00:00Z",
        "api",
        cp,
        "Fixed the TZif parser panic on truncated zoneinfo files",
    )?;
    let retry = save(
        &s,
        "2026-10-30T10:00:00Z",
        "api",
        cp,
        "Switched the retry policy to jittered backoff",
    )?;
    s.clock
        .set(goldfish_core::time::parse_utc("2026-11-01T09:00:00Z")?);
    let mut o = RecallOptions::default();
    o.workspace = Scope::Named("api".into());
    o.days = Some(30);
    o.search = Some("zoneinfo panic".into());
    let one = recall(&s.store, &o)?;
    assert_eq!(one.hits.len(), 1);
    assert!(one.also_searched.is_empty());
    // A second phrasing finds another memory: both come back, the fused order by rank.
    o.also_search = vec!["jittered backoff".into()];
    let both = recall(&s.store, &o)?;
    let ids: Vec<&str> = both.hits.iter().map(|h| h.checkpoint.id.as_str()).collect();
    assert_eq!(ids, [tz.as_str(), retry.as_str()]);
    assert_eq!(both.also_searched, ["jittered backoff"]);
    assert!(both.hits.iter().all(|h| h.score.is_some_and(|x| x > 0.0)));
    // The limit applies to the fused list.
    o.limit = 1;
    assert_eq!(recall(&s.store, &o)?.hits.len(), 1);
    // Too many phrasings, or phrasings without a search: an argument error.
    o.also_search = vec!["a b".into(), "c d".into(), "e f".into(), "g h".into()];
    let e = recall(&s.store, &o).unwrap_err();
    assert_eq!(e.kind(), goldfish_recall::ErrorKind::InvalidArgument, "{e}");
    o.search = None;
    o.also_search = vec!["jittered".into()];
    let e = recall(&s.store, &o).unwrap_err();
    assert_eq!(e.kind(), goldfish_recall::ErrorKind::InvalidArgument, "{e}");
    Ok(())
}
