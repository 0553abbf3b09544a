//! The search engine: BM25F over fuzzily expanded query terms, with a coverage factor and a
//! relative cut-off. Pure: it takes checkpoints in memory and returns ranked indices.
//!
//! How a search runs (all per call, because recall searches a freshly read set):
//!
//! 1. Every field of every checkpoint is tokenised and folded once; each distinct token
//!    becomes a vocabulary term, and documents are stored as streams of term ids.
//! 2. Each query word is compared with the *vocabulary* (not the documents): exact match,
//!    same stem, prefix in either direction, or a bounded Damerau (OSA) edit distance, each
//!    with a similarity factor below 1. So the fuzzy work grows with the vocabulary, which
//!    grows far slower than the number of checkpoints.
//! 3. The term streams are scanned once; each document gets, per query word, the best
//!    BM25F score among that word's expansions, scaled by the similarity.
//! 4. The sum is multiplied by the square of the share of the query's weight (IDF) that the
//!    document matched; documents matching less than [`SearchOptions::min_coverage`] of it,
//!    or scoring under [`SearchOptions::relative_cutoff`] of the best, are dropped.
//! 5. Ties are broken by recency (newer first), then by input order.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use goldfish_store::Checkpoint;

use crate::text::{is_stop_word, osa_within, stem, tokenize};

/// How much a match in each field counts. The defaults are Goldfish v4's fuse.js keys.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct FieldWeights {
    /// The description, title and body alike. Default 2.
    pub description: f32,
    /// Tags. Default 1.
    pub tags: f32,
    /// The git branch. Default 0.5.
    pub branch: f32,
    /// Changed file paths. Default 0.3.
    pub files: f32,
}

impl Default for FieldWeights {
    fn default() -> Self {
        FieldWeights {
            description: 2.0,
            tags: 1.0,
            branch: 0.5,
            files: 0.3,
        }
    }
}

/// Tuning knobs of [`search`]. The defaults were chosen on the evaluation set in
/// `tests/fixtures/`; change them only with a measurement.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SearchOptions {
    /// Field weights.
    pub weights: FieldWeights,
    /// Whether to expand query words to similar vocabulary terms (typos, stems, prefixes).
    /// With `false` the engine is plain BM25F. Default `true`.
    pub fuzzy: bool,
    /// A document must match at least this share (0–1) of the query's total IDF weight.
    /// Default 0.5.
    pub min_coverage: f32,
    /// Documents scoring below this share (0–1) of the best score are dropped. Default 0.2.
    pub relative_cutoff: f32,
    /// Vocabulary terms less similar than this (0–1) to a query word are ignored.
    /// Default 0.5.
    pub min_similarity: f32,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            weights: FieldWeights::default(),
            fuzzy: true,
            min_coverage: 0.5,
            relative_cutoff: 0.2,
            min_similarity: 0.5,
        }
    }
}

/// One search result: which checkpoint (an index into the searched slice) and how well it
/// matched (higher is better; only comparable within one search).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Hit {
    /// Index of the checkpoint in the slice given to [`search`].
    pub index: usize,
    /// Relevance score, greater than zero.
    pub score: f32,
}

/// A parsed query: its folded words, stop words removed (unless nothing else is left),
/// duplicates removed, at most [`Query::MAX_TERMS`] of them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    terms: Vec<String>,
}

impl Query {
    /// Words beyond this many are ignored: a query is a few words, not a document.
    pub const MAX_TERMS: usize = 32;

    /// Parses free text into a query. Never fails; a query without words matches nothing.
    pub fn parse(text: &str) -> Query {
        let mut all: Vec<String> = Vec::new();
        let mut buf = Vec::new();
        tokenize(text, &mut buf, |t| {
            let s = String::from_utf8_lossy(t).into_owned();
            if !all.contains(&s) {
                all.push(s);
            }
        });
        let content: Vec<String> = all
            .iter()
            .filter(|t| !is_stop_word(t.as_bytes()))
            .cloned()
            .collect();
        let mut terms = if content.is_empty() { all } else { content };
        terms.truncate(Self::MAX_TERMS);
        Query { terms }
    }

    /// The folded words that will be searched for.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// Whether the query has no words (it then matches nothing).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// Searches `checkpoints` for `query` and returns the matches, best first.
///
/// Returns an empty vector when nothing is close enough; never panics, whatever the query.
///
/// # Example
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use goldfish_recall::{search, Query, SearchOptions};
/// use goldfish_store::Checkpoint;
///
/// let t = Utc.with_ymd_and_hms(2025, 10, 13, 9, 0, 0).unwrap();
/// let cps = vec![
///     Checkpoint::new("a", t, "ws", "Refactored database queries"),
///     Checkpoint::new("b", t, "ws", "Fixed the migration script"),
/// ];
/// let hits = search(&Query::parse("migratoin"), &cps, &SearchOptions::default());
/// assert_eq!(hits.len(), 1);
/// assert_eq!(hits[0].index, 1);
/// ```
pub fn search(query: &Query, checkpoints: &[Checkpoint], opts: &SearchOptions) -> Vec<Hit> {
    if query.is_empty() || checkpoints.is_empty() {
        return Vec::new();
    }
    let index = Index::build(checkpoints);
    index.search(query, checkpoints, opts)
}

/// Number of indexed fields: title, body, tags, branch, files.
const FIELDS: usize = 5;
/// BM25 length normalisation per field.
const B: [f32; FIELDS] = [0.5, 0.75, 0.5, 0.0, 0.75];
/// BM25 term-frequency saturation.
const K1: f32 = 1.2;
/// Expansions kept per query word (the most similar ones).
const MAX_EXPANSIONS: usize = 64;
const NONE: u32 = u32::MAX;

/// A fast, non-cryptographic hash for short byte strings (the `FxHash` of rustc).
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes(c.try_into().expect("chunks_exact yields 8 bytes"));
            h = (h.rotate_left(5) ^ v).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
        self.0 = h;
    }
    fn write_usize(&mut self, i: usize) {
        self.write(&i.to_le_bytes());
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// The vocabulary: distinct folded tokens in one byte arena, found through a flat
/// open-addressing table (cheaper than a map of boxed keys on this hot path). Each slot packs
/// the upper half of the term's hash with its id, and each term keeps its first eight bytes
/// inline, so most lookups touch neither the arena nor `memcmp`.
struct Vocab {
    /// `(hash >> 32) << 32 | (id + 1)` per slot; 0 is empty. Its length is a power of two.
    table: Vec<u64>,
    /// Per term: its first eight bytes, zero-padded, and its length.
    heads: Vec<(u64, u32)>,
    /// Per term: where its bytes start in `arena`.
    starts: Vec<u32>,
    arena: Vec<u8>,
}

/// The first eight bytes of `tok`, zero-padded, as one word.
fn head(tok: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = tok.len().min(8);
    b[..n].copy_from_slice(&tok[..n]);
    u64::from_le_bytes(b)
}

impl Vocab {
    fn with_capacity(n: usize) -> Vocab {
        let cap = (n * 2).next_power_of_two().max(16);
        Vocab {
            table: vec![0; cap],
            heads: Vec::with_capacity(n),
            starts: Vec::with_capacity(n),
            arena: Vec::with_capacity(n * 8),
        }
    }

    fn len(&self) -> usize {
        self.heads.len()
    }

    fn term(&self, id: usize) -> &[u8] {
        let s = self.starts[id] as usize;
        &self.arena[s..s + self.heads[id].1 as usize]
    }

    fn hash(tok: &[u8]) -> u64 {
        let mut h = FxHasher::default();
        h.write(tok);
        // Fx leaves the low bits weak (they depend only on the bytes' low bits), and the slot
        // index uses them: finish with MurmurHash3's 64-bit mixer.
        let mut x = h.finish();
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }

    /// The slot where `tok` is, or the empty slot where it would go.
    fn probe(&self, tok: &[u8], h: u64) -> (usize, Option<u32>) {
        let mask = self.table.len() - 1;
        let tag = h & !0xffff_ffff;
        let hd = head(tok);
        let len = tok.len() as u32;
        let mut i = (h as usize) & mask;
        loop {
            let e = self.table[i];
            if e == 0 {
                return (i, None);
            }
            if e & !0xffff_ffff == tag {
                let id = (e & 0xffff_ffff) as u32 - 1;
                let (th, tl) = self.heads[id as usize];
                if th == hd && tl == len && (len <= 8 || self.term(id as usize) == tok) {
                    return (i, Some(id));
                }
            }
            i = (i + 1) & mask;
        }
    }

    fn get(&self, tok: &[u8]) -> Option<u32> {
        self.probe(tok, Self::hash(tok)).1
    }

    /// The id of `tok`, adding it if new; the flag says whether it was added.
    fn intern(&mut self, tok: &[u8]) -> (u32, bool) {
        let h = Self::hash(tok);
        let (slot, found) = self.probe(tok, h);
        if let Some(id) = found {
            return (id, false);
        }
        let id = u32::try_from(self.heads.len()).unwrap_or(u32::MAX - 1);
        self.starts.push(self.arena.len() as u32);
        self.heads.push((head(tok), tok.len() as u32));
        self.arena.extend_from_slice(tok);
        self.table[slot] = (h & !0xffff_ffff) | u64::from(id + 1);
        if self.heads.len() * 2 > self.table.len() {
            self.grow();
        }
        (id, true)
    }

    fn grow(&mut self) {
        let cap = self.table.len() * 2;
        let mask = cap - 1;
        let mut table = vec![0u64; cap];
        for id in 0..self.heads.len() {
            let h = Self::hash(self.term(id));
            let mut i = (h as usize) & mask;
            while table[i] != 0 {
                i = (i + 1) & mask;
            }
            table[i] = (h & !0xffff_ffff) | (id as u64 + 1);
        }
        self.table = table;
    }
}

/// The per-call index: vocabulary, document frequencies and term streams.
struct Index {
    vocab: Vocab,
    df: Vec<u32>,
    /// Term ids of every field of every document, in order.
    stream: Vec<u32>,
    /// `bounds[d * FIELDS + f]` is where field `f` of document `d` starts in `stream`;
    /// the last entry is the end.
    bounds: Vec<u32>,
    avg_len: [f32; FIELDS],
}

impl Index {
    // Several per-field arrays are indexed by the field number together.
    #[allow(clippy::needless_range_loop)]
    fn build(checkpoints: &[Checkpoint]) -> Index {
        let n = checkpoints.len();
        let mut ix = Index {
            vocab: Vocab::with_capacity(1024),
            df: Vec::new(),
            stream: Vec::with_capacity(n * 48),
            bounds: Vec::with_capacity(n * FIELDS + 1),
            avg_len: [0.0; FIELDS],
        };
        let mut last_doc: Vec<u32> = Vec::new();
        let mut buf = Vec::with_capacity(64);
        let mut scratch: Vec<u32> = Vec::with_capacity(64);
        let mut totals = [0u64; FIELDS];
        // Tags, branches and file paths repeat across checkpoints (the same files are touched
        // again and again): their term ids are cached per distinct value, so each distinct
        // path is tokenised once per call. Descriptions are tokenised every time.
        let mut value_cache: FxMap<&str, (u32, u32)> = FxMap::default();
        let mut cached_ids: Vec<u32> = Vec::new();
        for (d, cp) in checkpoints.iter().enumerate() {
            let d = u32::try_from(d).unwrap_or(u32::MAX);
            let (title, body) = match cp.description.split_once('\n') {
                Some((t, b)) => (t, b),
                None => (cp.description.as_str(), ""),
            };
            for f in 0..FIELDS {
                let start = ix.stream.len();
                ix.bounds.push(u32::try_from(start).unwrap_or(u32::MAX));
                if f < 2 {
                    scratch.clear();
                    ix.intern(
                        if f == 0 { title } else { body },
                        &mut buf,
                        &mut scratch,
                        &mut last_doc,
                    );
                    ix.push_doc_terms(&scratch, d, &mut last_doc);
                } else {
                    let values: &mut dyn Iterator<Item = &str> = match f {
                        2 => &mut cp.tags.iter().map(String::as_str),
                        3 => &mut cp.branch.as_deref().into_iter(),
                        _ => &mut cp.files.iter().map(String::as_str),
                    };
                    for value in values {
                        let (s, n) = match value_cache.get(value) {
                            Some(&span) => span,
                            None => {
                                let s = cached_ids.len();
                                ix.intern(value, &mut buf, &mut cached_ids, &mut last_doc);
                                let span = (s as u32, (cached_ids.len() - s) as u32);
                                value_cache.insert(value, span);
                                span
                            }
                        };
                        ix.push_doc_terms(
                            &cached_ids[s as usize..(s + n) as usize],
                            d,
                            &mut last_doc,
                        );
                    }
                }
                totals[f] += (ix.stream.len() - start) as u64;
            }
        }
        ix.bounds
            .push(u32::try_from(ix.stream.len()).unwrap_or(u32::MAX));
        for f in 0..FIELDS {
            ix.avg_len[f] = (totals[f] as f32 / n.max(1) as f32).max(1.0);
        }
        ix
    }

    /// Tokenises `text` and appends the term ids to `out`, adding new terms to the vocabulary.
    fn intern(
        &mut self,
        text: &str,
        buf: &mut Vec<u8>,
        out: &mut Vec<u32>,
        last_doc: &mut Vec<u32>,
    ) {
        tokenize(text, buf, |tok| {
            let (id, new) = self.vocab.intern(tok);
            if new {
                self.df.push(0);
                last_doc.push(NONE);
            }
            out.push(id);
        });
    }

    /// Appends `ids` to the stream as terms of document `d`, counting document frequencies.
    fn push_doc_terms(&mut self, ids: &[u32], d: u32, last_doc: &mut [u32]) {
        for &id in ids {
            let slot = id as usize;
            if last_doc[slot] != d {
                last_doc[slot] = d;
                self.df[slot] += 1;
            }
        }
        self.stream.extend_from_slice(ids);
    }

    fn idf(&self, term: usize, n: f32) -> f32 {
        let df = self.df[term] as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    // Several per-field arrays are indexed by the field number together.
    #[allow(clippy::needless_range_loop)]
    fn search(&self, query: &Query, checkpoints: &[Checkpoint], opts: &SearchOptions) -> Vec<Hit> {
        let n_docs = checkpoints.len();
        let n = n_docs as f32;
        let q_len = query.terms.len();
        // Expansion: for every query word, the vocabulary terms it stands for.
        let mut slot_of: Vec<u32> = vec![NONE; self.vocab.len()];
        let mut slot_term: Vec<u32> = Vec::new();
        // Per slot, the (query word, similarity) pairs it serves.
        let mut slot_matches: Vec<Vec<(usize, f32)>> = Vec::new();
        let mut q_weight = vec![0.0f32; q_len];
        let unseen_idf = (1.0 + (n + 0.5) / 0.5).ln();
        for (qi, q) in query.terms.iter().enumerate() {
            let is_last = qi + 1 == q_len;
            let mut found: Vec<(u32, f32)> = Vec::new();
            if let Some(id) = self.vocab.get(q.as_bytes()) {
                found.push((id, 1.0));
            }
            if opts.fuzzy {
                let mut qs_buf = [0u8; 64];
                let qb = q.as_bytes();
                let qs = stem(qb, &mut qs_buf).to_vec();
                for id in 0..self.vocab.len() {
                    let v = self.vocab.term(id);
                    let sim = similarity(qb, &qs, v, is_last);
                    if sim >= opts.min_similarity && sim < 1.0 {
                        found.push((id as u32, sim));
                    }
                }
                if found.len() > MAX_EXPANSIONS {
                    found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                    found.truncate(MAX_EXPANSIONS);
                }
            }
            let mut best_weight = 0.0f32;
            for (id, sim) in found {
                let idx = id as usize;
                best_weight = best_weight.max(sim * self.idf(idx, n));
                let slot = if slot_of[idx] == NONE {
                    slot_of[idx] = slot_term.len() as u32;
                    slot_term.push(id);
                    slot_matches.push(Vec::new());
                    slot_term.len() - 1
                } else {
                    slot_of[idx] as usize
                };
                slot_matches[slot].push((qi, sim));
            }
            // A word found nowhere still counts, at half weight, against every document:
            // "file locking" with no "locking" anywhere must not become a search for "file".
            q_weight[qi] = if best_weight > 0.0 {
                best_weight
            } else {
                0.5 * unseen_idf
            };
        }
        if slot_term.is_empty() {
            return Vec::new();
        }
        let total_weight: f32 = q_weight.iter().sum();
        let slot_idf: Vec<f32> = slot_term.iter().map(|&t| self.idf(t as usize, n)).collect();
        let w = opts.weights;
        let field_w = [w.description, w.description, w.tags, w.branch, w.files];

        let mut tf: Vec<[f32; FIELDS]> = vec![[0.0; FIELDS]; slot_term.len()];
        let mut touched: Vec<usize> = Vec::new();
        let mut best = vec![0.0f32; q_len];
        let mut strong = vec![false; q_len];
        let mut hits: Vec<Hit> = Vec::new();
        for d in 0..n_docs {
            let base = d * FIELDS;
            for f in 0..FIELDS {
                let (s, e) = (
                    self.bounds[base + f] as usize,
                    self.bounds[base + f + 1] as usize,
                );
                for &t in &self.stream[s..e] {
                    let slot = slot_of[t as usize];
                    if slot != NONE {
                        let slot = slot as usize;
                        if tf[slot].iter().all(|&x| x == 0.0) {
                            touched.push(slot);
                        }
                        tf[slot][f] += 1.0;
                    }
                }
            }
            if touched.is_empty() {
                continue;
            }
            let mut norm = [0.0f32; FIELDS];
            for f in 0..FIELDS {
                let len = (self.bounds[base + f + 1] - self.bounds[base + f]) as f32;
                norm[f] = 1.0 - B[f] + B[f] * len / self.avg_len[f];
            }
            best.iter_mut().for_each(|b| *b = 0.0);
            strong.iter_mut().for_each(|s| *s = false);
            for &slot in &touched {
                // A word found only in file paths, and only approximately ("locking" in
                // `Cargo.lock`), adds to the score but does not count as covering the word.
                let outside_files = tf[slot][..FIELDS - 1].iter().any(|&x| x > 0.0);
                let mut tfw = 0.0;
                for f in 0..FIELDS {
                    tfw += field_w[f] * tf[slot][f] / norm[f];
                }
                let sat = tfw * (K1 + 1.0) / (tfw + K1);
                for &(qi, sim) in &slot_matches[slot] {
                    let v = sim * slot_idf[slot] * sat;
                    if v > best[qi] {
                        best[qi] = v;
                    }
                    strong[qi] |= outside_files || sim >= 1.0;
                }
                tf[slot] = [0.0; FIELDS];
            }
            touched.clear();
            let mut score = 0.0;
            let mut covered = 0.0;
            for qi in 0..q_len {
                score += best[qi];
                if strong[qi] {
                    covered += q_weight[qi];
                }
            }
            let coverage = if total_weight > 0.0 {
                covered / total_weight
            } else {
                0.0
            };
            if coverage < opts.min_coverage || score <= 0.0 {
                continue;
            }
            hits.push(Hit {
                index: d,
                score: score * coverage * coverage,
            });
        }
        let top = hits.iter().map(|h| h.score).fold(0.0f32, f32::max);
        hits.retain(|h| h.score >= top * opts.relative_cutoff);
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| {
                    checkpoints[b.index]
                        .timestamp
                        .cmp(&checkpoints[a.index].timestamp)
                })
                .then(a.index.cmp(&b.index))
        });
        hits
    }
}

/// How similar a vocabulary term `v` is to the query word `q` (with stem `qs`), 0–1;
/// exact equality is handled by the caller and scores 0 here only if nothing else applies.
fn similarity(q: &[u8], qs: &[u8], v: &[u8], is_last: bool) -> f32 {
    if v == q {
        return 1.0;
    }
    let (lq, lv) = (q.len(), v.len());
    let mut sim = 0.0f32;
    // Partial words: the query word begins a longer term ("auth" → "authentication"),
    // more readily for the last word, which may still be being typed.
    if lq >= 3 && lv > lq && v.starts_with(q) {
        let base = if is_last { 0.6 } else { 0.5 };
        sim = sim.max(base + 0.35 * lq as f32 / lv as f32);
    }
    // The other way: a shorter term begins the query word ("authentication" → "auth").
    if lv >= 4 && lq > lv && q.starts_with(v) {
        sim = sim.max(0.45 + 0.35 * lv as f32 / lq as f32);
    }
    if lq.abs_diff(lv) > 4 {
        return sim;
    }
    let mut vs_buf = [0u8; 64];
    let vs = stem(v, &mut vs_buf);
    if vs.len() >= 3 && vs == qs {
        return sim.max(0.92);
    }
    // Typos: a bounded edit distance, allowing more edits in longer words. Short words
    // must keep their first letter ("lock" is not a typo of "block"). The stems are compared
    // too, with the allowance and the penalty of the stem's own length.
    let typo = |a: &[u8], b: &[u8]| -> Option<f32> {
        let la = a.len();
        let max = if la >= 8 {
            2
        } else if la >= 4 {
            1
        } else {
            0
        };
        if max == 0 || b.is_empty() || (la <= 5 && a[0] != b[0]) {
            return None;
        }
        let d = osa_within(a, b, max)?;
        (d > 0).then(|| (1.0 - 1.2 * d as f32 / la as f32).max(0.3))
    };
    // Stems shorter than five letters are too ambiguous for typos ("sale" ~ "same").
    let stem_typo = || if qs.len() >= 5 { typo(qs, vs) } else { None };
    if let Some(mut t) = typo(q, v).or_else(stem_typo) {
        // A different first letter is a rarer slip than one further in.
        if q.first() != v.first() {
            t *= 0.85;
        }
        sim = sim.max(t);
    }
    sim
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn cp(id: &str, minute: u32, desc: &str, tags: &[&str]) -> Checkpoint {
        let t = Utc.with_ymd_and_hms(2025, 10, 13, 9, minute, 0).unwrap();
        let mut c = Checkpoint::new(id, t, "test", desc);
        c.tags = tags.iter().map(|s| s.to_string()).collect();
        c
    }

    fn ids(q: &str, cps: &[Checkpoint]) -> Vec<String> {
        search(&Query::parse(q), cps, &SearchOptions::default())
            .into_iter()
            .map(|h| cps[h.index].id.clone())
            .collect()
    }

    #[test]
    fn seed_three_checkpoints() {
        let cps = vec![
            cp("auth", 0, "Fixed auth bug", &["bug-fix", "auth"]),
            cp("oauth", 1, "Added OAuth2 support", &["feature", "auth"]),
            cp(
                "db",
                2,
                "Refactored database queries",
                &["refactor", "database"],
            ),
        ];
        let table: &[(&str, &[&str])] = &[
            ("authentication", &["auth", "oauth"]),
            ("auth", &["auth", "oauth"]),
            ("datbase", &["db"]),
            ("QUERIES", &["db"]),
            ("refactor databse queries", &["db"]),
            ("kubernetes", &[]),
            ("", &[]),
            ("the", &[]),
        ];
        for (q, want) in table {
            assert_eq!(ids(q, &cps), *want, "query {q:?}");
        }
    }

    #[test]
    fn typos_and_partials() {
        let cps = vec![
            cp("m", 0, "Ran the database migration", &[]),
            cp("c", 1, "Saved a checkpoint before lunch", &[]),
            cp("x", 2, "Unrelated work on the parser", &[]),
        ];
        let table: &[(&str, &[&str])] = &[
            ("migratoin", &["m"]),
            ("checkpnt", &["c"]),
            ("migr", &["m"]),
            ("MIGRATION", &["m"]),
            ("pârser", &["x"]),
        ];
        for (q, want) in table {
            assert_eq!(ids(q, &cps), *want, "query {q:?}");
        }
    }

    #[test]
    fn ties_break_by_recency() {
        let cps = vec![
            cp("old", 0, "same words", &[]),
            cp("new", 5, "same words", &[]),
        ];
        assert_eq!(ids("same words", &cps), ["new", "old"]);
    }

    #[test]
    fn query_parse_drops_stop_words() {
        assert_eq!(
            Query::parse("What did we do about the Flaky test?").terms(),
            ["flaky", "test"]
        );
        assert_eq!(Query::parse("the").terms(), ["the"]);
        assert!(Query::parse("  !! ").is_empty());
    }
}
