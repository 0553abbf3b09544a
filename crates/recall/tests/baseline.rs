//! What every evaluation in this directory shares: judged queries, the BM25 baselines that
//! sit beside the engine in each table, the figures and their table rows.
//!
//! Two baselines, both Robertson BM25 (k1 1.2, b 0.75) over one text per checkpoint (its
//! description, tags, branch and files, split into lowercase ASCII-alphanumeric words; no stop
//! words, no fuzziness; every document sharing a word with the query is returned):
//! - **plain BM25**: the words as they are;
//! - **BM25 + Porter**: every word reduced by the Snowball English stemmer (Porter2, the
//!   `rust-stemmers` crate), the stemmed BM25 that lexical search engines ship by default.

use std::collections::HashMap;

use goldfish_recall::{Query, SearchOptions, search};
use goldfish_store::Checkpoint;
use rust_stemmers::{Algorithm, Stemmer};

/// One judged query: its kind, its text and the ids of the checkpoints that answer it
/// (none: a query that should find nothing).
#[derive(Debug, Clone, serde::Deserialize)]
pub(crate) struct Judged {
    pub(crate) kind: String,
    pub(crate) query: String,
    pub(crate) expect: Vec<String>,
}

/// Judged queries, one JSON object per line.
pub(crate) fn judged(text: &str) -> Result<Vec<Judged>, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        out.push(serde_json::from_str(line)?);
    }
    Ok(out)
}

/// BM25 over the checkpoints, plain or stemmed (see the module docs).
pub(crate) struct Bm25 {
    docs: Vec<HashMap<String, u32>>,
    lens: Vec<f64>,
    avg: f64,
    df: HashMap<String, u32>,
    stemmer: Option<Stemmer>,
}

impl Bm25 {
    /// Plain BM25.
    pub(crate) fn new(cps: &[Checkpoint]) -> Bm25 {
        Bm25::build(cps, None)
    }

    /// BM25 with every word stemmed by Snowball English (Porter2).
    pub(crate) fn porter(cps: &[Checkpoint]) -> Bm25 {
        Bm25::build(cps, Some(Stemmer::create(Algorithm::English)))
    }

    fn words(&self, text: &str) -> Vec<String> {
        text.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| {
                let w = w.to_ascii_lowercase();
                match &self.stemmer {
                    Some(s) => s.stem(&w).into_owned(),
                    None => w,
                }
            })
            .collect()
    }

    fn build(cps: &[Checkpoint], stemmer: Option<Stemmer>) -> Bm25 {
        let mut bm = Bm25 {
            docs: Vec::new(),
            lens: Vec::new(),
            avg: 0.0,
            df: HashMap::new(),
            stemmer,
        };
        for c in cps {
            let text = format!(
                "{} {} {} {}",
                c.description,
                c.tags.join(" "),
                c.branch.as_deref().unwrap_or(""),
                c.files.join(" ")
            );
            let mut tf: HashMap<String, u32> = HashMap::new();
            let mut len = 0;
            for w in bm.words(&text) {
                *tf.entry(w).or_default() += 1;
                len += 1;
            }
            for w in tf.keys() {
                *bm.df.entry(w.clone()).or_default() += 1;
            }
            bm.docs.push(tf);
            bm.lens.push(f64::from(len));
        }
        bm.avg = bm.lens.iter().sum::<f64>() / bm.lens.len().max(1) as f64;
        bm
    }

    /// The documents sharing a word with `query`, best first (ties by index).
    pub(crate) fn rank(&self, query: &str) -> Vec<usize> {
        let (k1, b) = (1.2, 0.75);
        let n = self.docs.len() as f64;
        let mut q = self.words(query);
        q.sort();
        q.dedup();
        let mut scored: Vec<(usize, f64)> = Vec::new();
        for (d, tf) in self.docs.iter().enumerate() {
            let mut s = 0.0;
            for w in &q {
                let Some(&f) = tf.get(w) else { continue };
                let df = f64::from(self.df[w]);
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                let f = f64::from(f);
                s += idf * f * (k1 + 1.0) / (f + k1 * (1.0 - b + b * self.lens[d] / self.avg));
            }
            if s > 0.0 {
                scored.push((d, s));
            }
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.into_iter().map(|(d, _)| d).collect()
    }
}

/// Figures of one ranker on one kind of query.
#[derive(Default, Debug, Clone, Copy)]
pub(crate) struct Figures {
    /// Queries with at least one expected checkpoint.
    pub(crate) queries: usize,
    rr: f64,
    at1: usize,
    at5: usize,
    recall5: f64,
    recall10: f64,
    /// Queries with an expected checkpoint that got no result at all.
    pub(crate) empty: usize,
}

impl Figures {
    /// Mean reciprocal rank of the first expected checkpoint in the top 10.
    pub(crate) fn mrr(&self) -> f64 {
        self.rr / self.queries.max(1) as f64
    }
    /// Mean share of a query's expected checkpoints found in the top 10.
    pub(crate) fn recall10(&self) -> f64 {
        self.recall10 / self.queries.max(1) as f64
    }
    /// Mean share of a query's expected checkpoints found in the top 5.
    pub(crate) fn recall5(&self) -> f64 {
        self.recall5 / self.queries.max(1) as f64
    }
    fn share(&self, n: usize) -> f64 {
        n as f64 / self.queries.max(1) as f64
    }
    /// Adds another set of queries' figures.
    pub(crate) fn add(&mut self, other: &Figures) {
        self.queries += other.queries;
        self.rr += other.rr;
        self.at1 += other.at1;
        self.at5 += other.at5;
        self.recall5 += other.recall5;
        self.recall10 += other.recall10;
        self.empty += other.empty;
    }
}

/// Scores `rank` on the queries of `qs` that expect something.
pub(crate) fn figures(
    cps: &[Checkpoint],
    qs: &[&Judged],
    rank: &dyn Fn(&str) -> Vec<usize>,
) -> Figures {
    let mut f = Figures::default();
    for q in qs.iter().filter(|q| !q.expect.is_empty()) {
        let got = rank(&q.query);
        f.queries += 1;
        f.empty += usize::from(got.is_empty());
        let top: Vec<&str> = got.iter().take(10).map(|&i| cps[i].id.as_str()).collect();
        if let Some(pos) = top.iter().position(|id| q.expect.iter().any(|e| e == id)) {
            f.rr += 1.0 / (pos + 1) as f64;
            f.at1 += usize::from(pos == 0);
            f.at5 += usize::from(pos < 5);
        }
        let found = |k: usize| {
            q.expect
                .iter()
                .filter(|e| top.iter().take(k).any(|t| t == e))
                .count() as f64
                / q.expect.len() as f64
        };
        f.recall5 += found(5);
        f.recall10 += found(10);
    }
    f
}

/// The engine as a ranker: [`search`] with `opts`; text without a content word finds nothing.
pub(crate) fn engine<'a>(
    cps: &'a [Checkpoint],
    opts: &'a SearchOptions,
) -> impl Fn(&str) -> Vec<usize> + 'a {
    move |q: &str| {
        search(&Query::parse(q), cps, opts)
            .into_iter()
            .map(|h| h.index)
            .collect()
    }
}

/// The table's header.
pub(crate) fn header() {
    println!(
        "| kind             | ranker          |    n | MRR@10 |    s@1 |    s@5 | recall@5 | recall@10 | empty |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
}

/// One row of the table.
pub(crate) fn row(kind: &str, ranker: &str, f: &Figures) {
    println!(
        "| {kind:<16} | {ranker:<15} | {:>4} | {:>6.3} | {:>6.3} | {:>6.3} | {:>8.3} | {:>9.3} | {:>5} |",
        f.queries,
        f.mrr(),
        f.share(f.at1),
        f.share(f.at5),
        f.recall5(),
        f.recall10(),
        f.empty
    );
}
