//! Scoring the documents the pass kept: per query word, the best BM25F score among its
//! expansions scaled by their similarity; the sum multiplied by the square of the share of
//! the query covered; a coverage floor and a cut-off relative to the best; ties by recency.

use goldfish_store::Checkpoint;

use crate::engine::{Hit, SearchOptions};
use crate::pass::{FIELDS, Pass};

/// BM25 length normalisation per field.
pub(crate) const B: [f32; FIELDS] = [0.5, 0.75, 0.5, 0.0, 0.75];
/// BM25 term-frequency saturation.
pub(crate) const K1: f32 = 1.2;
/// Expansions kept per query word (the most similar ones).
pub(crate) const MAX_EXPANSIONS: usize = 64;

impl Pass {
    fn idf(&self, term: usize, n: f32) -> f32 {
        let df = self.terms[term].df as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    // Several per-field arrays are indexed by the field number together.
    #[allow(clippy::needless_range_loop)]
    pub(crate) fn score(
        &self,
        q_len: usize,
        checkpoints: &[Checkpoint],
        opts: &SearchOptions,
    ) -> Vec<Hit> {
        let n = checkpoints.len() as f32;
        // Expansion: for every query word, the matched terms it stands for, in term order.
        let mut found: Vec<Vec<(u32, f32)>> = vec![Vec::new(); q_len];
        for (t, term) in self.terms.iter().enumerate() {
            for &(qi, sim) in &term.matches {
                found[qi].push((t as u32, sim));
            }
        }
        // Per term, the (query word, similarity) pairs it serves after the cut to the
        // `MAX_EXPANSIONS` most similar expansions of each word.
        let mut kept: Vec<Vec<(usize, f32)>> = vec![Vec::new(); self.terms.len()];
        let mut q_weight = vec![0.0f32; q_len];
        let unseen_idf = (1.0 + (n + 0.5) / 0.5).ln();
        let mut any = false;
        for (qi, list) in found.iter_mut().enumerate() {
            if list.len() > MAX_EXPANSIONS {
                list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                list.truncate(MAX_EXPANSIONS);
            }
            let mut best_weight = 0.0f32;
            for &(t, sim) in list.iter() {
                best_weight = best_weight.max(sim * self.idf(t as usize, n));
                kept[t as usize].push((qi, sim));
                any = true;
            }
            // A word found nowhere still counts, at half weight, against every document:
            // "file locking" with no "locking" anywhere must not become a search for "file".
            q_weight[qi] = if best_weight > 0.0 {
                best_weight
            } else {
                0.5 * unseen_idf
            };
        }
        if !any {
            return Vec::new();
        }
        let total_weight: f32 = q_weight.iter().sum();
        let term_idf: Vec<f32> = (0..self.terms.len()).map(|t| self.idf(t, n)).collect();
        let w = opts.weights;
        let field_w = [w.description, w.description, w.tags, w.branch, w.files];

        let mut tf: Vec<[f32; FIELDS]> = vec![[0.0; FIELDS]; self.terms.len()];
        let mut touched: Vec<usize> = Vec::new();
        let mut best = vec![0.0f32; q_len];
        let mut strong = vec![false; q_len];
        let mut hits: Vec<Hit> = Vec::new();
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
            let mut norm = [0.0f32; FIELDS];
            for f in 0..FIELDS {
                let len = doc.lens[f] as f32;
                norm[f] = 1.0 - B[f] + B[f] * len / self.avg_len[f];
            }
            best.iter_mut().for_each(|b| *b = 0.0);
            strong.iter_mut().for_each(|s| *s = false);
            for &t in &touched {
                // A word found only in file paths, and only approximately ("locking" in
                // `Cargo.lock`), adds to the score but does not count as covering the word.
                let outside_files = tf[t][..FIELDS - 1].iter().any(|&x| x > 0.0);
                let mut tfw = 0.0;
                for f in 0..FIELDS {
                    tfw += field_w[f] * tf[t][f] / norm[f];
                }
                let sat = tfw * (K1 + 1.0) / (tfw + K1);
                for &(qi, sim) in &kept[t] {
                    let v = sim * term_idf[t] * sat;
                    if v > best[qi] {
                        best[qi] = v;
                    }
                    strong[qi] |= outside_files || sim >= 1.0;
                }
                tf[t] = [0.0; FIELDS];
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
                index: doc.index,
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
