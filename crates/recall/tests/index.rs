//! The persistent index: the same answers as reading the day files, bit for bit, over the
//! evaluation sets and random stores; change detection; corrupt and read-only indexes.

use std::collections::BTreeMap;
use std::path::Path;

use goldfish_recall::{
    IndexState, RecallCache, RecallOptions, RecallResult, Scope, index_rebuild, index_status,
    index_verify, recall, recall_with,
};
use goldfish_store::{Checkpoint, MemoryType, Store, format_day_file};

use crate::eval::checkpoints;
use crate::util::TestResult;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Writes `cps` into a store under `root` as day files, one per workspace and UTC day.
fn write_store(root: &Path, cps: &[Checkpoint]) -> Res<Store> {
    let mut days: BTreeMap<(String, chrono::NaiveDate), Vec<Checkpoint>> = BTreeMap::new();
    for c in cps {
        days.entry((c.workspace.clone(), c.timestamp.date_naive()))
            .or_default()
            .push(c.clone());
    }
    for ((ws, date), list) in &days {
        let dir = root.join(ws).join("checkpoints");
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join(format!("{}.md", date.format("%Y-%m-%d"))),
            format_day_file(*date, list),
        )?;
    }
    Ok(Store::open(root)?)
}

fn opts(search: &str, workspace: &str, from: &str, use_index: bool) -> RecallOptions {
    let mut o = RecallOptions::default();
    o.workspace = Scope::from(workspace);
    o.search = Some(search.to_string());
    o.from = Some(from.to_string());
    o.to = Some("2030-01-01".to_string());
    o.limit = 100_000;
    o.explain = true;
    o.goldfish_memories = false;
    o.use_index = use_index;
    o
}

/// Everything a recall answers that the index must reproduce: ids in order, scores (bits),
/// totals, counts, skipped files, explanations.
fn fingerprint(r: &RecallResult) -> String {
    let ids: Vec<&str> = r.checkpoints().map(|c| c.id.as_str()).collect();
    let scores: Vec<Option<u32>> = r.hits.iter().map(|h| h.score.map(f32::to_bits)).collect();
    let explanations: Vec<_> = r.hits.iter().map(|h| &h.explanation).collect();
    format!(
        "{ids:?}\n{scores:?}\n{}\n{:?}\n{:?}\n{}",
        r.total,
        r.workspaces,
        r.skipped,
        serde_json::to_string(&explanations).unwrap_or_default()
    )
}

fn same_answers(store: &Store, queries: &[(String, String, String)]) -> TestResult {
    same_answers_with(store, queries, |_| {})
}

/// [`same_answers`] with `adjust` applied to both options (an empty query: no search).
fn same_answers_with(
    store: &Store,
    queries: &[(String, String, String)],
    adjust: impl Fn(&mut RecallOptions),
) -> TestResult {
    let options = |q: &str, ws: &str, from: &str, use_index: bool| {
        let mut o = opts(q, ws, from, use_index);
        if q.is_empty() {
            o.search = None;
            o.explain = false;
        }
        adjust(&mut o);
        o
    };
    for (q, ws, from) in queries {
        let files = recall(store, &options(q, ws, from, false));
        let index = recall(store, &options(q, ws, from, true));
        match (files, index) {
            (Ok(a), Ok(b)) => {
                assert_eq!(
                    fingerprint(&a),
                    fingerprint(&b),
                    "query {q:?} in {ws} from {from}"
                );
                assert!(b.notes.is_empty(), "{:?}", b.notes);
                assert_eq!(a.hits, b.hits, "query {q:?}");
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!("query {q:?}: {a:?} vs {b:?}"),
        }
    }
    Ok(())
}

fn query_texts(text: &str) -> Res<Vec<String>> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        if let Some(q) = v["query"].as_str() {
            out.push(q.to_string());
        }
    }
    Ok(out)
}

/// Both evaluation sets as stores: every query, across all workspaces and in one, in a wide
/// and a narrow window, gives the same hits, scores and explanations through the index as
/// from the files; again after a rebuild.
#[test]
fn evaluation_sets_answer_the_same_through_the_index() -> TestResult {
    for (corpus, queries) in [
        (
            include_str!("fixtures/nl_corpus.jsonl"),
            include_str!("fixtures/nl_queries.jsonl"),
        ),
        (
            include_str!("fixtures/eval_checkpoints.jsonl"),
            include_str!("fixtures/eval_queries.jsonl"),
        ),
    ] {
        let dir = tempfile::tempdir()?;
        let cps = checkpoints(corpus)?;
        let store = write_store(dir.path(), &cps)?;
        let one = cps[0].workspace.clone();
        let mid = cps[cps.len() / 2]
            .timestamp
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        let mut table = Vec::new();
        for q in query_texts(queries)? {
            table.push((q.clone(), "all".to_string(), "2000-01-01".to_string()));
            table.push((q.clone(), one.clone(), mid.clone()));
        }
        same_answers(&store, &table)?;
        assert!(index_verify(&store, &Scope::All, None)?.ok);
        index_rebuild(&store, &Scope::All, None, &mut |_, _, _| {})?;
        same_answers(&store, &table)?;
    }
    Ok(())
}

/// A tiny deterministic generator (xorshift), so that every run checks the same stores.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, list: &[&'a str]) -> &'a str {
        list[self.below(list.len())]
    }
}

const WORDS: &[&str] = &[
    "auth",
    "authentication",
    "login",
    "database",
    "db",
    "migration",
    "migrated",
    "migrate",
    "parser",
    "lexer",
    "token",
    "tokens",
    "regex",
    "cache",
    "cached",
    "retry",
    "backoff",
    "timeout",
    "timing",
    "release",
    "Déjà",
    "café",
    "parseSince",
    "HTTPServer",
    "v2",
    "x",
    "the",
    "and",
    "of",
    "fixed",
    "added",
    "refactored",
    "flaky",
    "test",
    "tests",
    "index",
    "indexes",
    "deploy",
    "kubernetes",
    "k8s",
    "config",
    "configuration",
];

fn random_checkpoints(rng: &mut Rng, n: usize) -> Vec<Checkpoint> {
    let base = goldfish_core::time::parse_utc("2026-03-01T00:00:00Z").expect("valid");
    (0..n)
        .map(|i| {
            let words = |rng: &mut Rng, k: usize| -> String {
                (0..1 + rng.below(k))
                    .map(|_| rng.pick(WORDS))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let ts = base + chrono::Duration::seconds((rng.below(20 * 86_400)) as i64);
            let ws = ["api", "web", "ops"][rng.below(3)];
            let mut desc = words(rng, 8);
            if rng.below(3) == 0 {
                desc.push('\n');
                desc.push_str(&words(rng, 20));
            }
            let mut c = Checkpoint::new(format!("id{i}-{}", rng.next() % 1000), ts, ws, desc);
            c.tags = (0..rng.below(3))
                .map(|_| rng.pick(WORDS).to_lowercase())
                .collect();
            if rng.below(2) == 0 {
                c.branch = Some(format!("feat/{}", rng.pick(WORDS)));
            }
            c.files = (0..rng.below(3))
                .map(|_| format!("src/{}/{}.rs", rng.pick(WORDS), rng.pick(WORDS)))
                .collect();
            if rng.below(4) == 0 {
                c.memory_type = MemoryType::Decision;
                c.structured.decision = Some(words(rng, 6));
                c.structured.symbols = vec![format!("Store::{}", rng.pick(WORDS))];
            }
            c
        })
        .collect()
}

/// Random stores (three workspaces, twenty days, typed memories, non-ASCII and camelCase
/// words), random queries with typos, random windows: the index answers as the files do.
#[test]
fn random_stores_answer_the_same_through_the_index() -> TestResult {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..12 {
        let dir = tempfile::tempdir()?;
        let cps = random_checkpoints(&mut rng, 20 + round * 25);
        let store = write_store(dir.path(), &cps)?;
        let mut table = Vec::new();
        for _ in 0..25 {
            let mut q = (0..1 + rng.below(4))
                .map(|_| rng.pick(WORDS).to_string())
                .collect::<Vec<_>>();
            if rng.below(2) == 0 {
                // A typo: two letters swapped.
                let w = &mut q[0];
                if w.is_ascii() && w.len() > 3 {
                    let mut b = w.clone().into_bytes();
                    b.swap(1, 2);
                    *w = String::from_utf8(b)?;
                }
            }
            let ws = ["all", "api", "web", "ops"][rng.below(4)];
            let from = format!(
                "2026-03-{:02}T{:02}:00:00Z",
                1 + rng.below(20),
                rng.below(24)
            );
            table.push((q.join(" "), ws.to_string(), from));
        }
        same_answers(&store, &table)?;
    }
    Ok(())
}

/// Gives random checkpoints supersession bullets: about a third name one to three earlier
/// generated ones (of any workspace, so some name an id their own workspace does not hold,
/// and some an id no entry holds), some replace a checkpoint that itself replaces another,
/// and a sixth carry a topic.
fn with_supersession(rng: &mut Rng, cps: &mut [Checkpoint]) {
    for i in 1..cps.len() {
        if rng.below(3) == 0 {
            for _ in 0..1 + rng.below(3) {
                let id = match rng.below(8) {
                    0 => "20260101T000000000Z-gone".to_string(),
                    _ => cps[rng.below(i)].id.clone(),
                };
                if !cps[i].supersedes.contains(&id) {
                    cps[i].supersedes.push(id);
                }
            }
        }
        if rng.below(6) == 0 {
            cps[i].topic = Some(rng.pick(&["auth", "Database", "release"]).to_string());
        }
    }
}

/// Random stores with supersession (links both ways, chains, dangling ids, topics): the
/// index hides the same checkpoints as the day files and gives the same links, with and
/// without a search, with `include_superseded` off and on; a workspace kept in two
/// directories too.
#[test]
fn superseded_checkpoints_are_hidden_the_same_through_the_index() -> TestResult {
    let mut rng = Rng(0x5eed_5eed_1234_5678);
    let mut hid_some = false;
    for round in 0..8 {
        let dir = tempfile::tempdir()?;
        let mut cps = random_checkpoints(&mut rng, 30 + round * 30);
        with_supersession(&mut rng, &mut cps);
        let store = write_store(dir.path(), &cps)?;
        let mut table = Vec::new();
        for _ in 0..20 {
            let q = (0..1 + rng.below(3))
                .map(|_| rng.pick(WORDS))
                .collect::<Vec<_>>()
                .join(" ");
            let ws = ["all", "api", "web", "ops"][rng.below(4)];
            let from = format!("2026-03-{:02}T00:00:00Z", 1 + rng.below(20));
            table.push((q, ws.to_string(), from));
        }
        table.push((String::new(), "all".into(), "2000-01-01".into()));
        table.push((String::new(), "api".into(), "2026-03-10T00:00:00Z".into()));
        same_answers_with(&store, &table, |_| {})?;
        same_answers_with(&store, &table, |o| o.include_superseded = true)?;
        // Nothing shown is superseded, every link names its other end's title when an entry
        // holds it; and the hidden ones are there when asked for.
        let o = opts("database auth parser", "all", "2000-01-01", true);
        let shown = recall(&store, &o)?;
        let mut with = o.clone();
        with.include_superseded = true;
        let all = recall(&store, &with)?;
        for hit in &shown.hits {
            assert!(hit.links.superseded_by.is_empty(), "{:?}", hit.links);
        }
        hid_some |= all.total > shown.total;
        if all.hits.iter().any(|h| !h.links.superseded_by.is_empty()) {
            hid_some = true;
        }
    }
    assert!(
        hid_some,
        "no random store hid anything: the test tests nothing"
    );

    // Two directories: the links of entries kept in both places count once.
    let home = tempfile::tempdir()?;
    let repo = tempfile::tempdir()?;
    let mut cps: Vec<Checkpoint> = random_checkpoints(&mut rng, 200)
        .into_iter()
        .map(|mut c| {
            c.workspace = "api".into();
            c
        })
        .collect();
    with_supersession(&mut rng, &mut cps);
    write_store(home.path(), &cps[..130])?;
    write_store(repo.path(), &cps[70..])?;
    let store = Store::open(home.path())?.with_workspace_root("api", repo.path())?;
    let mut table = vec![(String::new(), "api".to_string(), "2000-01-01".to_string())];
    for q in [
        "database",
        "auth login",
        "parser cache index",
        "release deploy",
    ] {
        table.push((q.to_string(), "api".to_string(), "2000-01-01".to_string()));
        table.push((
            q.to_string(),
            "api".to_string(),
            "2026-03-08T00:00:00Z".to_string(),
        ));
    }
    same_answers_with(&store, &table, |_| {})?;
    same_answers_with(&store, &table, |o| o.include_superseded = true)?;
    Ok(())
}

/// `links_of` gives the same links through the index as from the day files, for every
/// checkpoint, and the index's verification agrees with a rebuild.
#[test]
fn links_of_one_checkpoint_agree() -> TestResult {
    let mut rng = Rng(77);
    let dir = tempfile::tempdir()?;
    let mut cps = random_checkpoints(&mut rng, 150);
    with_supersession(&mut rng, &mut cps);
    let store = write_store(dir.path(), &cps)?;
    let mut linked = 0;
    for c in &cps {
        let mut notes = Vec::new();
        let mut files = RecallOptions::default();
        files.use_index = false;
        let a = goldfish_recall::links_of(&store, &files, c, &mut notes)?;
        let b = goldfish_recall::links_of(&store, &RecallOptions::default(), c, &mut notes)?;
        assert_eq!(a, b, "{}", c.id);
        assert!(notes.is_empty(), "{notes:?}");
        linked += usize::from(!a.is_empty());
    }
    assert!(linked > 10, "only {linked} checkpoints have links");
    assert!(index_verify(&store, &Scope::All, None)?.ok);
    Ok(())
}

fn ids(r: &RecallResult) -> Vec<String> {
    r.checkpoints().map(|c| c.description.clone()).collect()
}

/// A checkpoint saved after the index was built is found by the next recall; so is a
/// hand edit of the same length made within the same second; a deleted day file's entries
/// are gone.
#[test]
fn changes_to_day_files_are_seen_at_once() -> TestResult {
    let s = crate::util::TestStore::new("2026-05-01T10:00:00Z")?;
    s.save_at("2026-05-01T09:00:00Z", "api", "Fixed the parser bug", &[])?;
    let o = opts("parser", "api", "2000-01-01", true);
    assert_eq!(ids(&recall(&s.store, &o)?), ["Fixed the parser bug"]);
    assert!(s.dir.path().join(".index/api.gfi").is_file());

    s.save_at("2026-05-01T09:30:00Z", "api", "Parser speed-up", &[])?;
    assert_eq!(
        ids(&recall(&s.store, &o)?),
        ["Parser speed-up", "Fixed the parser bug"]
    );

    // The same length, the same second: only the content says it changed.
    let day = s.dir.path().join("api/checkpoints/2026-05-01.md");
    let text = std::fs::read_to_string(&day)?;
    std::fs::write(
        &day,
        text.replace("Fixed the parser bug", "Fixed the lexer  bug"),
    )?;
    assert_eq!(ids(&recall(&s.store, &o)?), ["Parser speed-up"]);
    let lexer = opts("lexer", "api", "2000-01-01", true);
    assert_eq!(ids(&recall(&s.store, &lexer)?), ["Fixed the lexer  bug"]);

    std::fs::remove_file(&day)?;
    assert!(recall(&s.store, &o)?.hits.is_empty());
    Ok(())
}

/// A day file written just before the index was built is checked by its content at every
/// recall, until its mtime is old enough to tell a later write apart; the next recall then
/// rebuilds the index once, and later ones check the file by `stat` alone (no rebuild).
#[test]
fn just_written_files_are_rebuilt_once_when_they_settle() -> TestResult {
    let s = crate::util::TestStore::new("2026-05-01T10:00:00Z")?;
    s.save_at("2026-05-01T09:00:00Z", "api", "Fixed the parser bug", &[])?;
    let o = opts("parser", "api", "2000-01-01", true);
    let api = Scope::Named("api".into());
    let built = || -> Res<Option<chrono::DateTime<chrono::Utc>>> {
        Ok(index_status(&s.store, &api, None)?.workspaces[0].built)
    };
    assert_eq!(ids(&recall(&s.store, &o)?), ["Fixed the parser bug"]);
    let first = built()?;
    assert!(first.is_some());
    // Wait for the file's mtime to be more than two seconds old: a condition, not a guess.
    let day = s.dir.path().join("api/checkpoints/2026-05-01.md");
    let settled = std::fs::metadata(&day)?.modified()? + std::time::Duration::from_millis(2_100);
    while std::time::SystemTime::now() < settled {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(ids(&recall(&s.store, &o)?), ["Fixed the parser bug"]);
    let second = built()?;
    assert!(second > first, "{second:?} after {first:?}");
    assert_eq!(ids(&recall(&s.store, &o)?), ["Fixed the parser bug"]);
    assert_eq!(built()?, second);
    assert!(index_verify(&s.store, &api, None)?.ok);
    Ok(())
}

/// A truncated, garbage or foreign-version index is noticed (one note), rebuilt, and the
/// answer is the files' answer; deleting it loses nothing.
#[test]
fn broken_indexes_are_rebuilt() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut rng = Rng(7);
    let cps = random_checkpoints(&mut rng, 200);
    let store = write_store(dir.path(), &cps)?;
    let o = opts("database migration", "all", "2000-01-01", true);
    let want = fingerprint(&recall(
        &store,
        &opts("database migration", "all", "2000-01-01", false),
    )?);
    assert_eq!(fingerprint(&recall(&store, &o)?), want);
    let file = dir.path().join(".index/api.gfi");
    let good = std::fs::read(&file)?;
    let mut foreign = good.clone();
    foreign[8] = 99;
    // The format before the checksums were CRC-32 and named: never misread, rebuilt.
    let mut version_1 = good.clone();
    version_1[8..12].copy_from_slice(&1u32.to_le_bytes());
    let mut algorithm = good.clone();
    algorithm[12..16].copy_from_slice(b"XXH3");
    let mut header = good.clone();
    header[40] ^= 0x55;
    let mut late = good.clone();
    let last = late.len() - 3;
    late[last] ^= 0x55;
    let mut middle = good.clone();
    let at = middle.len() / 2;
    middle[at] ^= 0x01;
    for (what, bytes) in [
        ("truncated", good[..good.len() / 2].to_vec()),
        ("garbage", b"not an index at all".to_vec()),
        ("empty", Vec::new()),
        ("foreign version", foreign),
        ("format version 1", version_1),
        ("checksum algorithm \"XXH3\"", algorithm),
        ("a flipped byte in the header", header),
    ] {
        std::fs::write(&file, &bytes)?;
        let r = recall(&store, &o)?;
        assert_eq!(fingerprint(&r), want, "{what}");
        assert_eq!(r.notes.len(), 1, "{what}: {:?}", r.notes);
        assert!(r.notes[0].contains("unusable"), "{what}: {:?}", r.notes);
        if what.starts_with("format") || what.starts_with("checksum") {
            assert!(r.notes[0].contains(what), "{what}: {:?}", r.notes);
        }
        // Rebuilt: the next recall has nothing to say.
        assert!(recall(&store, &o)?.notes.is_empty(), "{what}");
    }
    // A flipped byte in the postings is found only when a search reads them: the answer is
    // the files' either way, and an index found broken is not used again.
    for bytes in [late, middle] {
        std::fs::write(&file, &bytes)?;
        for q in [
            "database migration",
            "auth login",
            "cache",
            "parseSince",
            "kubernetes deploy",
        ] {
            let on = opts(q, "all", "2000-01-01", true);
            let off = opts(q, "all", "2000-01-01", false);
            let r = recall(&store, &on)?;
            assert_eq!(fingerprint(&r), fingerprint(&recall(&store, &off)?), "{q}");
            assert!(r.notes.len() <= 1, "{:?}", r.notes);
        }
    }
    std::fs::remove_dir_all(dir.path().join(".index"))?;
    let r = recall(&store, &o)?;
    assert_eq!(fingerprint(&r), want);
    assert!(r.notes.is_empty());
    Ok(())
}

/// A store whose root cannot be written answers from the files with a note, and writes
/// nothing.
#[cfg(unix)]
#[test]
fn a_read_only_store_answers_with_a_note() -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir()?;
    let mut rng = Rng(11);
    let store = write_store(dir.path(), &random_checkpoints(&mut rng, 60))?;
    let want = fingerprint(&recall(
        &store,
        &opts("cache retry", "all", "2000-01-01", false),
    )?);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555))?;
    // Root writes anyway: then the permission bits prove nothing, and the store is made
    // unwritable for the index another way below.
    let probe = dir.path().join("probe");
    let root = std::fs::write(&probe, b"").is_ok();
    if !root {
        let r = recall(&store, &opts("cache retry", "all", "2000-01-01", true));
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))?;
        let r = r?;
        assert_eq!(fingerprint(&r), want);
        assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
        assert!(r.notes[0].contains("not written"), "{:?}", r.notes);
        assert!(!dir.path().join(".index").exists());
    }
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))?;
    let _ = std::fs::remove_file(&probe);
    // `.index` a file: no index can be written under it, whoever runs this.
    std::fs::write(dir.path().join(".index"), b"in the way")?;
    let r = recall(&store, &opts("cache retry", "all", "2000-01-01", true))?;
    assert_eq!(fingerprint(&r), want);
    assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
    assert!(r.notes[0].contains("not written"), "{:?}", r.notes);
    assert_eq!(std::fs::read(dir.path().join(".index"))?, b"in the way");
    Ok(())
}

/// Status, rebuild and verify: missing, then fresh after a recall, stale after a save,
/// fresh after a rebuild; verify says whether the index agrees.
#[test]
fn status_rebuild_and_verify() -> TestResult {
    let s = crate::util::TestStore::new("2026-05-01T10:00:00Z")?;
    s.save_at("2026-05-01T09:00:00Z", "api", "Fixed the parser bug", &[])?;
    let st = index_status(&s.store, &Scope::All, None)?;
    assert_eq!(st.workspaces[0].state, IndexState::Missing);
    assert!(!index_verify(&s.store, &Scope::All, None)?.ok);
    recall(&s.store, &opts("parser", "api", "2000-01-01", true))?;
    let st = index_status(&s.store, &Scope::All, None)?;
    assert_eq!(st.workspaces[0].state, IndexState::Fresh);
    assert_eq!((st.entries, st.workspaces[0].files), (1, 1));
    assert!(st.bytes > 0);
    assert!(index_verify(&s.store, &Scope::All, None)?.ok);
    s.save_at("2026-05-01T09:10:00Z", "api", "Another", &[])?;
    let st = index_status(&s.store, &Scope::All, None)?;
    assert!(matches!(&st.workspaces[0].state, IndexState::Stale { changed } if changed.len() == 1));
    assert!(!index_verify(&s.store, &Scope::All, None)?.ok);
    let mut calls = Vec::new();
    let st = index_rebuild(&s.store, &Scope::All, None, &mut |done, total, ws| {
        calls.push((done, total, ws.to_string()))
    })?;
    assert_eq!(calls, [(0, 1, "api".to_string()), (1, 1, String::new())]);
    assert_eq!(
        (st.entries, &st.workspaces[0].state),
        (2, &IndexState::Fresh)
    );
    // Several workspaces: one call each, in any order, then the end.
    s.save_at("2026-05-01T09:20:00Z", "web", "Web work", &[])?;
    s.save_at("2026-05-01T09:30:00Z", "ops", "Ops work", &[])?;
    let mut calls = Vec::new();
    index_rebuild(&s.store, &Scope::All, None, &mut |done, total, ws| {
        calls.push((done, total, ws.to_string()))
    })?;
    let mut names: Vec<&str> = calls[..3].iter().map(|c| c.2.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["api", "ops", "web"]);
    assert_eq!(
        calls.iter().map(|c| (c.0, c.1)).collect::<Vec<_>>(),
        [(0, 3), (1, 3), (2, 3), (3, 3)]
    );
    let st = index_status(&s.store, &Scope::All, None)?;
    assert_eq!(st.entries, 4);
    assert!(st.workspaces.iter().all(|w| w.state == IndexState::Fresh));
    assert!(index_verify(&s.store, &Scope::All, None)?.ok);
    // A workspace without day files: nothing to index, no file, and nothing to disagree.
    let empty = Scope::Named("empty".into());
    std::fs::create_dir_all(s.store.root().join("empty/checkpoints"))?;
    assert_eq!(
        index_status(&s.store, &empty, None)?.workspaces[0].state,
        IndexState::Empty
    );
    let st = index_rebuild(&s.store, &empty, None, &mut |_, _, _| {})?;
    assert_eq!((&st.workspaces[0].state, st.bytes), (&IndexState::Empty, 0));
    assert!(!st.workspaces[0].path.exists());
    assert!(index_verify(&s.store, &empty, None)?.ok);
    Ok(())
}

/// A workspace kept in two directories (a repository's `.goldfish/` and the home store),
/// with entries in both and some in both places: the same answers through the index.
#[test]
fn a_workspace_in_two_directories_answers_the_same() -> TestResult {
    let home = tempfile::tempdir()?;
    let repo = tempfile::tempdir()?;
    let mut rng = Rng(23);
    let cps: Vec<Checkpoint> = random_checkpoints(&mut rng, 240)
        .into_iter()
        .map(|mut c| {
            c.workspace = "api".into();
            c
        })
        .collect();
    // The first 160 at home, the last 160 in the repository: 80 in both.
    write_store(home.path(), &cps[..160])?;
    write_store(repo.path(), &cps[80..])?;
    let store = Store::open(home.path())?.with_workspace_root("api", repo.path())?;
    let mut table = Vec::new();
    for _ in 0..30 {
        let q = (0..1 + rng.below(3))
            .map(|_| rng.pick(WORDS))
            .collect::<Vec<_>>()
            .join(" ");
        let from = format!("2026-03-{:02}T00:00:00Z", 1 + rng.below(20));
        table.push((q, "api".to_string(), from));
    }
    table.push(("database".into(), "all".into(), "2000-01-01".into()));
    same_answers(&store, &table)?;
    Ok(())
}

/// Day files with problems (a garbage block, invalid UTF-8, a name that is not a date) are
/// reported the same way through the index, for the windows that cover them.
#[test]
fn problems_are_reported_the_same() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut rng = Rng(31);
    let store = write_store(dir.path(), &random_checkpoints(&mut rng, 120))?;
    let days = dir.path().join("api/checkpoints");
    let mut names: Vec<_> = std::fs::read_dir(&days)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    names.sort();
    let mut text = std::fs::read(&names[0])?;
    text.extend_from_slice(b"\ngarbage outside any entry\n## not a header \xff\xfe\n");
    std::fs::write(&names[0], text)?;
    let mut second = std::fs::read(&names[1])?;
    second.splice(0..0, b"stray preamble\n".iter().copied());
    std::fs::write(&names[1], second)?;
    std::fs::write(days.join("2026-02-30.md"), "# Checkpoints for 2026-02-30\n")?;
    let mut table = Vec::new();
    for from in ["2000-01-01", "2026-03-05T00:00:00Z", "2026-03-15T00:00:00Z"] {
        for q in ["database", "auth login", "parser cache"] {
            table.push((q.to_string(), "all".to_string(), from.to_string()));
            table.push((q.to_string(), "api".to_string(), from.to_string()));
        }
    }
    same_answers(&store, &table)?;
    let r = recall(&store, &opts("database", "api", "2000-01-01", true))?;
    assert!(r.skipped.len() >= 3, "{:?}", r.skipped);
    Ok(())
}

/// A search of a store that does not exist, or of a workspace without day files, writes
/// nothing (the store stays missing).
#[test]
fn nothing_is_written_for_nothing() -> TestResult {
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("never");
    let store = Store::open(&root)?;
    let r = recall(&store, &opts("parser", "api", "2000-01-01", true))?;
    assert_eq!(r.store, goldfish_recall::StoreState::Missing);
    assert!(!root.exists());
    let s = crate::util::TestStore::new("2026-05-01T10:00:00Z")?;
    s.save_at("2026-05-01T09:00:00Z", "api", "Fixed the parser bug", &[])?;
    recall(&s.store, &opts("parser", "web", "2000-01-01", true))?;
    assert!(!s.dir.path().join(".index").exists());
    Ok(())
}

/// A cache held across recalls answers as the files do, and sees a save made after it was
/// filled.
#[test]
fn a_cache_held_across_recalls_stays_fresh() -> TestResult {
    let s = crate::util::TestStore::new("2026-05-01T10:00:00Z")?;
    s.save_at("2026-05-01T09:00:00Z", "api", "Fixed the parser bug", &[])?;
    let cache = RecallCache::new();
    let o = opts("parser", "all", "2000-01-01", true);
    assert_eq!(
        ids(&recall_with(&s.store, &o, &cache)?),
        ["Fixed the parser bug"]
    );
    assert_eq!(cache.len(), 1);
    s.save_at("2026-05-01T09:30:00Z", "web", "Parser in the web app", &[])?;
    s.save_at("2026-05-01T09:40:00Z", "api", "Parser again", &[])?;
    let r = recall_with(&s.store, &o, &cache)?;
    let want = recall(&s.store, &opts("parser", "all", "2000-01-01", false))?;
    assert_eq!(fingerprint(&r), fingerprint(&want));
    assert_eq!(r.hits.len(), 3);
    Ok(())
}

/// `RecallCache::refresh` (what the MCP server calls on a file-system event) rebuilds a
/// changed workspace's index without a recall, and ignores names that are no workspace.
#[test]
fn a_refresh_rebuilds_a_changed_workspace_before_any_recall() -> TestResult {
    let s = crate::util::TestStore::new("2026-05-01T10:00:00Z")?;
    s.save_at("2026-05-01T09:00:00Z", "api", "Fixed the parser bug", &[])?;
    let cache = RecallCache::new();
    assert!(cache.refresh(&s.store, "api").is_empty());
    assert_eq!(cache.len(), 1);
    let api = Scope::Named("api".into());
    assert_eq!(index_status(&s.store, &api, None)?.entries, 1);
    s.save_at("2026-05-01T09:30:00Z", "api", "Parser again", &[])?;
    assert!(matches!(
        index_status(&s.store, &api, None)?.workspaces[0].state,
        IndexState::Stale { .. }
    ));
    cache.refresh(&s.store, "api");
    let st = index_status(&s.store, &api, None)?;
    assert_eq!(
        (&st.workspaces[0].state, st.entries),
        (&IndexState::Fresh, 2)
    );
    for bad in ["../api", ".index", ""] {
        assert!(cache.refresh(&s.store, bad).is_empty());
    }
    assert_eq!(cache.len(), 1);
    assert!(!s.dir.path().join(".index/.index.gfi").exists());
    Ok(())
}

/// Standup and the activity counts take a superseded checkpoint for what it is: standup
/// counts it apart (never listed, not among the decisions), the per-day counts leave it out
/// unless asked; the same with the index and from the day files.
#[test]
fn standup_and_activity_count_superseded_checkpoints_apart() -> TestResult {
    let dir = tempfile::tempdir()?;
    let at = |s: &str| goldfish_core::time::parse_utc(s).expect("a time");
    let cp = |id: &str, when: &str, title: &str, supersedes: &[&str]| {
        let mut c = Checkpoint::new(id, at(when), "api", title);
        c.supersedes = supersedes.iter().map(|s| s.to_string()).collect();
        c
    };
    let mut d = cp("d", "2026-05-01T08:00:00Z", "Cache for an hour", &[]);
    d.memory_type = MemoryType::Decision;
    let mut e = cp("e", "2026-05-02T08:00:00Z", "Cache for ten minutes", &["d"]);
    e.memory_type = MemoryType::Decision;
    let cps = [
        cp("a", "2026-05-01T07:00:00Z", "First try at the parser", &[]),
        d,
        cp(
            "b",
            "2026-05-01T09:00:00Z",
            "Second try at the parser",
            &["a"],
        ),
        cp("c", "2026-05-02T07:00:00Z", "Unrelated work", &[]),
        e,
    ];
    let store = write_store(dir.path(), &cps)?;
    for use_index in [true, false] {
        let mut o = goldfish_recall::StandupOptions::default();
        o.days = 7;
        o.now = Some(at("2026-05-02T12:00:00Z"));
        o.goldfish_memories = false;
        o.use_index = use_index;
        let s = goldfish_recall::standup_with(&store, &o)?;
        let api = &s.workspaces[0];
        assert_eq!((api.checkpoints, api.superseded), (3, 2), "{api:?}");
        let recent: Vec<&str> = api.recent.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(recent, ["e", "c", "b"]);
        let decisions: Vec<&str> = api.decisions.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(decisions, ["e"]);
        let text = goldfish_recall::format_standup(&s, &goldfish_recall::FormatOptions::default());
        assert!(
            text.contains("api — 3 checkpoints (and 2 superseded)"),
            "{text}"
        );

        let mut r = RecallOptions::default();
        r.workspace = Scope::All;
        r.from = Some("2026-05-01".into());
        r.to = Some("2026-05-02".into());
        r.goldfish_memories = false;
        r.use_index = use_index;
        let per_day = |r: &RecallOptions| -> Res<Vec<usize>> {
            Ok(goldfish_recall::checkpoints_per_day(&store, r)?
                .days
                .values()
                .map(|ws| ws["api"])
                .collect())
        };
        assert_eq!(per_day(&r)?, [1, 2]);
        r.include_superseded = true;
        assert_eq!(per_day(&r)?, [3, 2]);
    }
    Ok(())
}
