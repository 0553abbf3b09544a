//! Scoring the documents the pass kept: per query word, the best BM25F score among its
//! expansions (its own typos, stems and partial words, and its synonyms) scaled by their
//! similarity; the sum multiplied by the share of the query covered; a
//! coverage floor relative to the best-covering document, a score cut-off relative to the
//! best; ties by recency. Explanations are built here too, from the same numbers.

use chrono::{DateTime, Utc};

use crate::explain::{Explanation, TermMatch, WordExplanation};
use crate::fields::{B, FIELDS, FILES, Field};
use crate::hit::Hit;
use crate::matches::Pass;
use crate::prefilter::Word;
use crate::query::Query;
use crate::search_options::SearchOptions;
use crate::similarity::{how, known_word_similarity};

/// BM25 term-frequency saturation.
pub(crate) const K1: f32 = 1.2;
/// Expansions kept per query word (the most similar ones).
pub(crate) const MAX_EXPANSIONS: usize = 64;

/// The inverse document frequency of a term found in `df` of `n` documents.
pub(crate) fn idf(df: u32, n: f32) -> f32 {
    let df = df as f32;
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// The weight of a query word whose best expansion weighs `best` (similarity × IDF) in `n`
/// documents: that, or for a word found nowhere, half the IDF of an unseen term. A word
/// found nowhere still counts against every document: "file locking" with no "locking"
/// anywhere must not become a search for "file".
pub(crate) fn word_weight(best: f32, n: f32) -> f32 {
    if best > 0.0 {
        best
    } else {
        0.5 * (1.0 + (n + 0.5) / 0.5).ln()
    }
}

/// How one matched term scores in one document, before its similarity and IDF.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TermFit {
    /// The saturated, field-weighted, length-normalised term frequency.
    pub(crate) sat: f32,
    /// The fields it is in, one bit per field number.
    pub(crate) fields: u8,
    /// Whether it is in some field other than the files (a word found only in file paths,
    /// and only approximately — "locking" in `Cargo.lock` — adds to the score but does not
    /// count as covering the word).
    pub(crate) outside_files: bool,
}

/// The per-document part of BM25F, written once for every engine (the pass, the index and
/// the reference engine): field length normalisation, term-frequency saturation, and the
/// sum and coverage of a document's best matches.
pub(crate) struct DocScorer {
    field_w: [f32; FIELDS],
    avg_len: [f32; FIELDS],
}

impl DocScorer {
    /// A scorer with `opts`' field weights over documents of average field lengths
    /// `avg_len`.
    pub(crate) fn new(opts: &SearchOptions, avg_len: [f32; FIELDS]) -> DocScorer {
        DocScorer {
            field_w: opts.weights.by_field(),
            avg_len,
        }
    }

    /// The length normalisation of each field of a document with these field lengths.
    pub(crate) fn norms(&self, lens: [u32; FIELDS]) -> [f32; FIELDS] {
        let mut norm = [0.0f32; FIELDS];
        for (f, n) in norm.iter_mut().enumerate() {
            let len = lens[f] as f32;
            *n = 1.0 - B[f] + B[f] * len / self.avg_len[f];
        }
        norm
    }

    /// How a term occurring `tf[f]` times in each field `f` of a document of norms `norm`
    /// fits it.
    pub(crate) fn fit(&self, tf: &[f32; FIELDS], norm: &[f32; FIELDS]) -> TermFit {
        let outside_files = tf[..FILES].iter().any(|&x| x > 0.0);
        let mut tfw = 0.0;
        let mut fields = 0u8;
        for f in 0..FIELDS {
            tfw += self.field_w[f] * tf[f] / norm[f];
            fields |= u8::from(tf[f] > 0.0) << f;
        }
        TermFit {
            sat: tfw * (K1 + 1.0) / (tfw + K1),
            fields,
            outside_files,
        }
    }
}

/// A document's raw sum and coverage from its best contribution per query word (`best`),
/// which words it covers (`strong`) and the words' weights.
pub(crate) fn sum_and_coverage(
    best: impl Iterator<Item = f32>,
    strong: &[bool],
    q_weight: &[f32],
    total_weight: f32,
) -> (f32, f32) {
    let mut sum = 0.0;
    let mut covered = 0.0;
    for (qi, value) in best.enumerate() {
        sum += value;
        if strong[qi] {
            covered += q_weight[qi];
        }
    }
    let coverage = if total_weight > 0.0 {
        covered / total_weight
    } else {
        0.0
    };
    (sum, coverage)
}

/// A document that matched something, before the cut: its raw sum and its coverage.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate {
    /// Index of the checkpoint.
    pub(crate) index: usize,
    /// Sum of the words' best contributions.
    pub(crate) sum: f32,
    /// Share of the query's weight covered.
    pub(crate) coverage: f32,
    /// Its position among the candidates (where the caller keeps more about it).
    pub(crate) at: usize,
    /// The checkpoint's time (ties go to the newer one).
    pub(crate) timestamp: DateTime<Utc>,
}

/// The average length of each field over `n` documents whose field lengths add up to
/// `totals` (integer sums: the same whatever order the documents were counted in), at
/// least 1.
pub(crate) fn average_lengths(totals: [u64; FIELDS], n: usize) -> [f32; FIELDS] {
    totals.map(|t| (t as f32 / n.max(1) as f32).max(1.0))
}

/// The hits among `cands`, best first, each with the position of its candidate: a document
/// must cover at least [`SearchOptions::min_coverage`] of the best coverage, score above
/// zero (`sum × coverage`) and at least [`SearchOptions::relative_cutoff`] of the best
/// score; ties go to the newer checkpoint, then to the earlier one in the input.
pub(crate) fn rank(cands: &[Candidate], opts: &SearchOptions) -> Vec<(Hit, usize)> {
    let best_cov = cands.iter().map(|c| c.coverage).fold(0.0f32, f32::max);
    let floor = opts.min_coverage * best_cov;
    let mut hits: Vec<(Hit, usize, DateTime<Utc>)> = cands
        .iter()
        .filter(|c| c.coverage >= floor)
        .map(|c| {
            let hit = Hit {
                index: c.index,
                score: c.sum * c.coverage,
                explain: None,
            };
            (hit, c.at, c.timestamp)
        })
        .filter(|(h, _, _)| h.score > 0.0)
        .collect();
    let top = hits.iter().map(|h| h.0.score).fold(0.0f32, f32::max);
    hits.retain(|h| h.0.score >= top * opts.relative_cutoff);
    hits.sort_by(|(a, _, ta), (b, _, tb)| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| tb.cmp(ta))
            .then(a.index.cmp(&b.index))
    });
    hits.into_iter().map(|(h, at, _)| (h, at)).collect()
}

/// A word's best match in one document: the term, the word that matched it (the query
/// word or a synonym), the similarity, the term-frequency part, and the fields it is in.
#[derive(Debug, Clone, Copy, Default)]
struct Best {
    value: f32,
    term: u32,
    word: u32,
    sim: f32,
    sat: f32,
    fields: u8,
}

/// Per word searched for, whether it is a query word (not a synonym) that the store holds:
/// one of `terms`, the store's words that matched the query (every token equal to a query
/// word matches it, so a word absent from them is absent from the store).
pub(crate) fn known_words<'a>(
    words: &[Word],
    terms: impl Iterator<Item = &'a [u8]> + Clone,
) -> Vec<bool> {
    words
        .iter()
        .map(|w| w.synonym.is_none() && terms.clone().any(|t| t == &w.bytes[..]))
        .collect()
}

/// The similarity of the match of `term` to `word` once it is known whether the store holds
/// the word (`known`): for a word it holds, typos do not count
/// ([`known_word_similarity`]); `None` when nothing else matches.
pub(crate) fn known_word_match(
    word: &Word,
    known: bool,
    term: &[u8],
    sim: f32,
    opts: &SearchOptions,
) -> Option<f32> {
    if !known || sim >= 1.0 {
        return Some(sim);
    }
    let s = known_word_similarity(&word.bytes, &word.stem, &word.porter, term, word.is_last);
    (s > 0.0 && s >= opts.min_similarity).then_some(s)
}

impl Pass {
    fn idf(&self, term: usize, n: f32) -> f32 {
        idf(self.terms[term].df, n)
    }

    // Several per-field arrays are indexed by the field number together.
    #[allow(clippy::needless_range_loop)]
    // Long: the scoring loop over every matching document, kept whole for speed.
    pub(crate) fn score(
        &self,
        query: &Query,
        words: &[Word],
        n: usize,
        opts: &SearchOptions,
    ) -> Vec<Hit> {
        let q_len = query.terms.len();
        let n = n as f32;
        // Expansion: for every query word, the matched terms it stands for, in term order,
        // each once with the best similarity of the words of its slot (and that word).
        let mut found: Vec<Vec<(u32, f32, u32)>> = vec![Vec::new(); q_len];
        let known = known_words(words, self.terms.iter().map(|t| &t.text[..]));
        for (t, term) in self.terms.iter().enumerate() {
            for &(wi, sim) in &term.matches {
                let Some(sim) = known_word_match(&words[wi], known[wi], &term.text, sim, opts)
                else {
                    continue;
                };
                let list = &mut found[words[wi].slot];
                match list.last_mut() {
                    Some(last) if last.0 == t as u32 => {
                        if sim > last.1 {
                            *last = (t as u32, sim, wi as u32);
                        }
                    }
                    _ => list.push((t as u32, sim, wi as u32)),
                }
            }
        }
        // Per term, the (query word, similarity, matching word) it serves after the cut to
        // the `MAX_EXPANSIONS` most similar expansions of each word.
        let mut kept: Vec<Vec<(usize, f32, u32)>> = vec![Vec::new(); self.terms.len()];
        let mut q_weight = vec![0.0f32; q_len];
        let mut any = false;
        for (qi, list) in found.iter_mut().enumerate() {
            if list.len() > MAX_EXPANSIONS {
                // Ties by the term's text, never by the order terms were found in (the pass
                // and the index find them in different orders).
                let text = |t: u32| &self.terms[t as usize].text;
                list.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| text(a.0).cmp(text(b.0))));
                list.truncate(MAX_EXPANSIONS);
            }
            let mut best_weight = 0.0f32;
            for &(t, sim, wi) in list.iter() {
                best_weight = best_weight.max(sim * self.idf(t as usize, n));
                kept[t as usize].push((qi, sim, wi));
                any = true;
            }
            q_weight[qi] = word_weight(best_weight, n);
        }
        if !any {
            return Vec::new();
        }
        let total_weight: f32 = q_weight.iter().sum();
        let term_idf: Vec<f32> = (0..self.terms.len()).map(|t| self.idf(t, n)).collect();
        let scorer = DocScorer::new(opts, self.avg_len);

        let mut tf: Vec<[f32; FIELDS]> = vec![[0.0; FIELDS]; self.terms.len()];
        let mut touched: Vec<usize> = Vec::new();
        let mut best = vec![Best::default(); q_len];
        let mut strong = vec![false; q_len];
        let mut cands: Vec<Candidate> = Vec::new();
        // The best matches of the candidates, kept only when explaining.
        let mut bests: Vec<(Vec<Best>, Vec<bool>)> = Vec::new();
        let mut start = 0;
        for doc in &self.docs {
            for &(t, f) in &self.occurrences[start..doc.end] {
                let t = t as usize;
                if kept[t].is_empty() {
                    continue;
                }
                if tf[t].iter().all(|&x| x == 0.0) {
                    touched.push(t);
                }
                tf[t][usize::from(f)] += 1.0;
            }
            start = doc.end;
            if touched.is_empty() {
                continue;
            }
            let norm = scorer.norms(doc.lens);
            best.iter_mut().for_each(|b| b.value = 0.0);
            strong.iter_mut().for_each(|s| *s = false);
            for &t in &touched {
                let TermFit {
                    sat,
                    fields,
                    outside_files,
                } = scorer.fit(&tf[t], &norm);
                for &(qi, sim, wi) in &kept[t] {
                    let v = sim * term_idf[t] * sat;
                    // Equal contributions go to the smaller term text (explanations must not
                    // depend on the order occurrences were found in).
                    let better = v > best[qi].value
                        || (v == best[qi].value
                            && v > 0.0
                            && self.terms[t].text < self.terms[best[qi].term as usize].text);
                    if better {
                        best[qi] = Best {
                            value: v,
                            term: t as u32,
                            word: wi,
                            sim,
                            sat,
                            fields,
                        };
                    }
                    strong[qi] |= outside_files || sim >= 1.0;
                }
                tf[t] = [0.0; FIELDS];
            }
            touched.clear();
            let (sum, coverage) = sum_and_coverage(
                best.iter().map(|b| b.value),
                &strong,
                &q_weight,
                total_weight,
            );
            if sum <= 0.0 {
                continue;
            }
            cands.push(Candidate {
                index: doc.index,
                sum,
                coverage,
                at: cands.len(),
                timestamp: doc.timestamp,
            });
            if opts.explain {
                bests.push((best.clone(), strong.clone()));
            }
        }
        let mut hits = Vec::with_capacity(cands.len());
        for (mut hit, at) in rank(&cands, opts) {
            if opts.explain
                && let (Some(c), Some((best, strong))) = (cands.get(at), bests.get(at))
            {
                hit.explain = Some(Box::new(
                    self.explanation(query, words, &q_weight, best, strong, &term_idf, c),
                ));
            }
            hits.push(hit);
        }
        hits
    }

    /// The explanation of a candidate from its best matches.
    #[allow(clippy::too_many_arguments)]
    fn explanation(
        &self,
        query: &Query,
        words: &[Word],
        q_weight: &[f32],
        best: &[Best],
        strong: &[bool],
        term_idf: &[f32],
        c: &Candidate,
    ) -> Explanation {
        let known = known_words(words, self.terms.iter().map(|t| &t.text[..]));
        let explained = query.terms.iter().enumerate().map(|(qi, word)| {
            let b = best[qi];
            let matched = (b.value > 0.0).then(|| {
                let w = &words[b.word as usize];
                let term = &self.terms[b.term as usize].text;
                let q = &words[qi];
                TermMatch {
                    term: String::from_utf8_lossy(term).into_owned(),
                    how: how(
                        &q.bytes,
                        &q.stem,
                        &q.porter,
                        term,
                        q.is_last,
                        w.synonym.is_some(),
                        known[qi],
                    ),
                    fields: (0..FIELDS)
                        .filter(|f| b.fields & (1 << f) != 0)
                        .map(Field::of)
                        .collect(),
                    similarity: b.sim,
                    idf: term_idf[b.term as usize],
                    tf: b.sat,
                    contribution: b.value,
                }
            });
            WordExplanation {
                word: word.clone(),
                weight: q_weight[qi],
                covered: strong[qi],
                matched,
            }
        });
        Explanation {
            words: explained.collect(),
            sum: c.sum,
            coverage: c.coverage,
            score: c.sum * c.coverage,
            fusion: None,
        }
    }
}
