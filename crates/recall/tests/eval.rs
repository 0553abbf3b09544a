//! The evaluation set: 400 real checkpoints (commit metadata of six public repositories) and
//! 59 hand-written queries with the checkpoints each should find. Prints MRR and
//! success@1/@5 for the engine and two baselines — a fuse.js-like Bitap matcher re-sorted by
//! time (Goldfish v4) and plain BM25 without fuzziness (Goldfish v7) — and asserts floors.
//!
//! Run with `cargo test -p goldfish-recall --test all eval -- --nocapture` to see the table.

use chrono::{DateTime, Utc};
use goldfish_recall::{Query, SearchOptions, search};
use goldfish_store::Checkpoint;

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[derive(serde::Deserialize)]
struct Row {
    id: String,
    workspace: String,
    timestamp: DateTime<Utc>,
    description: String,
    tags: Vec<String>,
    branch: Option<String>,
    commit: Option<String>,
    files: Vec<String>,
}

#[derive(serde::Deserialize)]
struct EvalQuery {
    kind: String,
    query: String,
    expect: Vec<String>,
}

/// The 400 checkpoints of the evaluation set.
pub(crate) fn corpus() -> Result<Vec<Checkpoint>, Box<dyn std::error::Error>> {
    checkpoints(include_str!("fixtures/eval_checkpoints.jsonl"))
}

/// Checkpoints from JSON Lines, one `{id, workspace, timestamp, description, tags, branch,
/// commit, files}` object a line (both evaluation corpora).
pub(crate) fn checkpoints(text: &str) -> Result<Vec<Checkpoint>, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let r: Row = serde_json::from_str(line)?;
        let mut c = Checkpoint::new(r.id, r.timestamp, r.workspace, r.description);
        c.tags = r.tags;
        c.branch = r.branch;
        c.commit = r.commit;
        c.files = r.files;
        out.push(c);
    }
    Ok(out)
}

fn queries() -> Result<Vec<EvalQuery>, Box<dyn std::error::Error>> {
    let text = include_str!("fixtures/eval_queries.jsonl");
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        out.push(serde_json::from_str(line)?);
    }
    Ok(out)
}

/// A ranker: query text → indices, best first.
type Ranker<'a> = dyn Fn(&str) -> Vec<usize> + 'a;

#[derive(Default, Debug, Clone, Copy)]
struct Metrics {
    queries: usize,
    rr_sum: f64,
    at1: usize,
    at5: usize,
    noise_queries: usize,
    noise_hits: usize,
}

impl Metrics {
    fn mrr(&self) -> f64 {
        self.rr_sum / self.queries.max(1) as f64
    }
    fn s1(&self) -> f64 {
        self.at1 as f64 / self.queries.max(1) as f64
    }
    fn s5(&self) -> f64 {
        self.at5 as f64 / self.queries.max(1) as f64
    }
}

/// Scores a ranker (query → ids, best first) on the evaluation set.
fn evaluate(
    cps: &[Checkpoint],
    qs: &[EvalQuery],
    kind: Option<&str>,
    rank: &dyn Fn(&str) -> Vec<usize>,
) -> Metrics {
    let mut m = Metrics::default();
    for q in qs.iter().filter(|q| kind.is_none_or(|k| q.kind == k)) {
        let got = rank(&q.query);
        if q.expect.is_empty() {
            m.noise_queries += 1;
            m.noise_hits += got.len();
            continue;
        }
        m.queries += 1;
        if let Some(pos) = got.iter().position(|&i| q.expect.contains(&cps[i].id)) {
            m.rr_sum += 1.0 / (pos + 1) as f64;
            m.at1 += usize::from(pos == 0);
            m.at5 += usize::from(pos < 5);
        }
    }
    m
}

fn engine(cps: &[Checkpoint], opts: &SearchOptions) -> impl Fn(&str) -> Vec<usize> {
    move |q: &str| {
        search(&Query::parse(q), cps, opts)
            .into_iter()
            .map(|h| h.index)
            .collect()
    }
}

fn ours_hits(cps: &[Checkpoint], q: &str) -> usize {
    search(&Query::parse(q), cps, &SearchOptions::default()).len()
}

fn plain_bm25() -> SearchOptions {
    let mut o = SearchOptions::default();
    o.fuzzy = false;
    o.min_coverage = 0.0;
    o.relative_cutoff = 0.0;
    o
}

/// Fuse.js-like baseline: the whole query is one Bitap pattern (at most 32 chars), matched
/// approximately against each field value; score = errors / length + distance from the start
/// / 100; a document matches when some field scores ≤ 0.4. Matches are then sorted newest
/// first, as Goldfish v4 did.
fn fuse_like(cps: &[Checkpoint]) -> impl Fn(&str) -> Vec<usize> {
    move |q: &str| {
        let pat: Vec<char> = q.to_lowercase().chars().take(32).collect();
        if pat.is_empty() {
            return Vec::new();
        }
        let mut hits: Vec<usize> = cps
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                let mut fields: Vec<&str> = vec![c.description.as_str()];
                fields.extend(c.tags.iter().map(String::as_str));
                fields.extend(c.branch.as_deref());
                fields.extend(c.files.iter().map(String::as_str));
                fields.iter().any(|f| fuse_score(&pat, f) <= 0.4)
            })
            .map(|(i, _)| i)
            .collect();
        hits.sort_by(|&a, &b| cps[b].timestamp.cmp(&cps[a].timestamp));
        hits
    }
}

/// Best `errors / len + start / 100` over approximate occurrences of `pat` in `text`
/// (Sellers' algorithm, tracking where each alignment starts).
fn fuse_score(pat: &[char], text: &str) -> f64 {
    let m = pat.len();
    // A match starting 40 or more characters in scores over 0.4 on proximity alone.
    let text: Vec<char> = text.to_lowercase().chars().take(40 + 2 * m).collect();
    // prev[i] = (edits, start) aligning pat[..i] to a suffix of the text read so far.
    let mut prev: Vec<(usize, usize)> = (0..=m).map(|i| (i, 0)).collect();
    let mut best = f64::MAX;
    for (j, &tc) in text.iter().enumerate() {
        let mut cur = vec![(0usize, j + 1); m + 1];
        for i in 1..=m {
            let sub = (prev[i - 1].0 + usize::from(pat[i - 1] != tc), prev[i - 1].1);
            let del = (prev[i].0 + 1, prev[i].1);
            let ins = (cur[i - 1].0 + 1, cur[i - 1].1);
            cur[i] = [sub, del, ins]
                .into_iter()
                .min_by_key(|x| x.0)
                .unwrap_or(sub);
        }
        if i_score(cur[m], m) < best {
            best = i_score(cur[m], m);
        }
        prev = cur;
    }
    best
}

fn i_score((edits, start): (usize, usize), m: usize) -> f64 {
    edits as f64 / m as f64 + start as f64 / 100.0
}

#[test]
fn evaluation_set_figures_and_floors() -> TestResult {
    let cps = corpus()?;
    let qs = queries()?;
    assert!(cps.len() >= 300 && qs.len() >= 40);
    let default_opts = SearchOptions::default();
    let ours = engine(&cps, &default_opts);
    let bm25_opts = plain_bm25();
    let bm25 = engine(&cps, &bm25_opts);
    let fuse = fuse_like(&cps);
    let rankers: [(&str, &Ranker<'_>); 3] = [
        ("goldfish-recall", &ours),
        ("plain BM25", &bm25),
        ("fuse-like (v4)", &fuse),
    ];
    println!(
        "{:<16} {:<15} {:>3} {:>6} {:>6} {:>6} {:>10}",
        "kind", "ranker", "n", "MRR", "s@1", "s@5", "noise hits"
    );
    let mut totals = Vec::new();
    for kind in [
        None,
        Some("typo"),
        Some("partial"),
        Some("conversational"),
        Some("tag"),
        Some("file"),
        Some("branch"),
    ] {
        for (name, r) in &rankers {
            let m = evaluate(&cps, &qs, kind, *r);
            println!(
                "{:<16} {:<15} {:>3} {:>6.3} {:>6.3} {:>6.3} {:>10}",
                kind.unwrap_or("ALL"),
                name,
                m.queries,
                m.mrr(),
                m.s1(),
                m.s5(),
                m.noise_hits
            );
            if kind.is_none() {
                totals.push(m);
            }
        }
    }
    let (ours, bm25, fuse) = (totals[0], totals[1], totals[2]);
    assert!(
        ours.mrr() >= 0.8,
        "MRR {:.3} below the floor 0.8",
        ours.mrr()
    );
    assert!(
        ours.s5() >= 0.9,
        "success@5 {:.3} below the floor 0.9",
        ours.s5()
    );
    assert!(
        ours.mrr() > bm25.mrr() && ours.mrr() > fuse.mrr(),
        "must beat both baselines"
    );
    // A query about nothing in the corpus may still share a word with a checkpoint ("quarterly
    // sales report" and "Report August 2026"): it then finds those, ranked, as any query
    // sharing a content word must. There is no cut-off (it cost answers in the top 10 on
    // every set), so the bound is what a stemmed BM25 returns: every checkpoint sharing a
    // stemmed word, and little more (typos and partial words add a few).
    let porter = crate::baseline::Bm25::porter(&cps);
    let porter_noise: usize = qs
        .iter()
        .filter(|q| q.expect.is_empty())
        .map(|q| porter.rank(&q.query).len())
        .sum();
    assert!(
        ours.noise_hits <= porter_noise + porter_noise / 2,
        "queries about nothing in the corpus returned {} hits, BM25 + Porter {porter_noise}",
        ours.noise_hits
    );

    // Goldfish v4's fuse.js matched "file locking" in a third of a 10,000-checkpoint corpus,
    // in time order; here the checkpoints that say "file" come back ranked.
    let loose = [
        ("goldfish-recall", ours_hits(&cps, "file locking")),
        ("BM25 + Porter", porter.rank("file locking").len()),
        ("fuse-like (v4)", fuse_like(&cps)("file locking").len()),
    ];
    for (name, n) in loose {
        println!("\"file locking\": {name} returns {n} of {}", cps.len());
    }
    assert!(
        loose[0].1 <= loose[1].1 + loose[1].1 / 2,
        "\"file locking\" matched {} checkpoints, BM25 + Porter {}",
        loose[0].1,
        loose[1].1
    );
    Ok(())
}

/// Lists, for every query the engine does not rank first, what it ranked instead. A
/// diagnostic for tuning; it always passes.
#[test]
fn evaluation_set_misses() -> TestResult {
    let cps = corpus()?;
    let opts = SearchOptions::default();
    for q in queries()? {
        let hits = search(&Query::parse(&q.query), &cps, &opts);
        let first_ok = hits
            .first()
            .is_some_and(|h| q.expect.contains(&cps[h.index].id));
        if first_ok || (q.expect.is_empty() && hits.is_empty()) {
            continue;
        }
        println!("MISS {:?} ({} hits)", q.query, hits.len());
        for h in hits.iter().take(3) {
            println!(
                "   {:.3} {} {}",
                h.score,
                cps[h.index].id,
                cps[h.index].title()
            );
        }
    }
    Ok(())
}

/// Sweeps the tuning knobs over the evaluation set and prints a table: how the defaults were
/// chosen. Ignored by default (it is slow in debug builds); run it with
/// `cargo test -p goldfish-recall --release --test all evaluation_sweep -- --ignored --nocapture`.
#[test]
#[ignore = "a tuning aid, not a check"]
fn evaluation_sweep() -> TestResult {
    let cps = corpus()?;
    let qs = queries()?;
    println!(
        "{:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "cover", "cutoff", "minsim", "branch", "MRR", "s@1", "s@5", "noise"
    );
    for cover in [0.3f32, 0.4, 0.5, 0.6, 0.7] {
        for cutoff in [0.1f32, 0.2, 0.3] {
            for minsim in [0.5f32, 0.6] {
                for branch in [0.5f32, 1.0] {
                    let mut o = SearchOptions::default();
                    o.min_coverage = cover;
                    o.relative_cutoff = cutoff;
                    o.min_similarity = minsim;
                    o.weights.branch = branch;
                    let m = evaluate(&cps, &qs, None, &engine(&cps, &o));
                    println!(
                        "{cover:>6.2} {cutoff:>6.2} {minsim:>6.2} {branch:>6.2} {:>6.3} {:>6.3} {:>6.3} {:>6}",
                        m.mrr(),
                        m.s1(),
                        m.s5(),
                        m.noise_hits
                    );
                }
            }
        }
    }
    Ok(())
}
