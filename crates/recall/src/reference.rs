//! The reference engine, for tests only: the engine before the query-driven pass, slow and
//! plain (a vocabulary of every token, each query word compared with all of it), which the
//! fast path must equal bit for bit on random and real corpora.

use std::collections::HashMap;

use goldfish_store::Checkpoint;

use crate::fields::{FIELDS, checkpoint_tokens};
use crate::hit::Hit;
use crate::query::Query;
use crate::score::{
    Candidate, DocScorer, MAX_EXPANSIONS, average_lengths, idf, known_word_match, known_words,
    rank, sum_and_coverage, word_weight,
};
use crate::search_options::SearchOptions;
use crate::similarity::{similarity, synonym_similarity};

/// The engine before the query-driven pass: a vocabulary of every token, each query
/// word compared with the whole vocabulary. Kept to check that the fast path returns the
/// same hits with bit-identical scores.
// Several per-field arrays are indexed by the field number together.
#[allow(clippy::needless_range_loop)]
// Long: the test-only slow engine, written plainly in one piece to be obviously right.
pub(crate) fn reference_search(
    query: &Query,
    cps: &[Checkpoint],
    opts: &SearchOptions,
) -> Vec<Hit> {
    if query.is_empty() || cps.is_empty() {
        return Vec::new();
    }
    let mut vocab: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut terms: Vec<Vec<u8>> = Vec::new();
    let mut df: Vec<u32> = Vec::new();
    let mut docs: Vec<[Vec<u32>; FIELDS]> = Vec::new();
    let mut buf = Vec::new();
    for cp in cps {
        let mut fields: [Vec<u32>; FIELDS] = Default::default();
        checkpoint_tokens(cp, &mut buf, |f, tok| {
            let id = *vocab.entry(tok.to_vec()).or_insert_with(|| {
                terms.push(tok.to_vec());
                df.push(0);
                (terms.len() - 1) as u32
            });
            fields[f].push(id);
        });
        let mut seen: Vec<u32> = fields.iter().flatten().copied().collect();
        seen.sort_unstable();
        seen.dedup();
        for id in seen {
            df[id as usize] += 1;
        }
        docs.push(fields);
    }
    let n = cps.len() as f32;
    let idf = |t: usize| idf(df[t], n);
    let mut totals = [0u64; FIELDS];
    for f in 0..FIELDS {
        totals[f] = docs.iter().map(|d| d[f].len() as u64).sum();
    }
    let avg_len = average_lengths(totals, cps.len());
    let q_len = query.terms.len();
    let mut slots: HashMap<u32, Vec<(usize, f32)>> = HashMap::new();
    let mut q_weight = vec![0.0f32; q_len];
    let words = query.words(opts);
    let known = known_words(&words, terms.iter().map(Vec::as_slice));
    for qi in 0..q_len {
        // Every term, with the best similarity any word of this slot (the query word or one
        // of its synonyms) gives it.
        let mut found: Vec<(u32, f32)> = Vec::new();
        for (id, v) in terms.iter().enumerate() {
            let mut best = 0.0f32;
            for (wi, w) in words.iter().enumerate().filter(|(_, w)| w.slot == qi) {
                let sim = match w.synonym {
                    Some(weight) => {
                        let s = synonym_similarity(&w.bytes, &w.stem, &w.porter, v);
                        if s > 0.0 && s >= opts.min_similarity {
                            s * weight
                        } else {
                            0.0
                        }
                    }
                    None if v[..] == w.bytes[..] => 1.0,
                    None if opts.fuzzy => {
                        let s = similarity(&w.bytes, &w.stem, &w.porter, v, w.is_last);
                        if s > 0.0 && s >= opts.min_similarity && s < 1.0 {
                            known_word_match(w, known[wi], v, s, opts).unwrap_or(0.0)
                        } else {
                            0.0
                        }
                    }
                    None => 0.0,
                };
                best = best.max(sim);
            }
            if best > 0.0 {
                found.push((id as u32, best));
            }
        }
        if found.len() > MAX_EXPANSIONS {
            found.sort_by(|a, b| {
                b.1.total_cmp(&a.1)
                    .then_with(|| terms[a.0 as usize].cmp(&terms[b.0 as usize]))
            });
            found.truncate(MAX_EXPANSIONS);
        }
        let mut best_weight = 0.0f32;
        for (id, sim) in found {
            best_weight = best_weight.max(sim * idf(id as usize));
            slots.entry(id).or_default().push((qi, sim));
        }
        q_weight[qi] = word_weight(best_weight, n);
    }
    if slots.is_empty() {
        return Vec::new();
    }
    let total_weight: f32 = q_weight.iter().sum();
    let scorer = DocScorer::new(opts, avg_len);
    let mut cands = Vec::new();
    for (d, fields) in docs.iter().enumerate() {
        let mut tf: HashMap<u32, [f32; FIELDS]> = HashMap::new();
        for f in 0..FIELDS {
            for id in &fields[f] {
                if slots.contains_key(id) {
                    tf.entry(*id).or_default()[f] += 1.0;
                }
            }
        }
        let norm = scorer.norms(fields.each_ref().map(|f| f.len() as u32));
        let mut best = vec![0.0f32; q_len];
        let mut strong = vec![false; q_len];
        for (id, tf) in &tf {
            let fit = scorer.fit(tf, &norm);
            for &(qi, sim) in &slots[id] {
                best[qi] = best[qi].max(sim * idf(*id as usize) * fit.sat);
                strong[qi] |= fit.outside_files || sim >= 1.0;
            }
        }
        let (score, coverage) =
            sum_and_coverage(best.iter().copied(), &strong, &q_weight, total_weight);
        if tf.is_empty() || score <= 0.0 {
            continue;
        }
        cands.push(Candidate {
            index: d,
            sum: score,
            coverage,
            at: cands.len(),
            timestamp: cps[d].timestamp,
        });
    }
    rank(&cands, opts).into_iter().map(|(h, _)| h).collect()
}

/// The evaluation set's checkpoints, grown to `n` the way the bench grows them (extra
/// tags `topicN` and paths `src/moduleN/partM.rs`, so some words have hundreds of
/// expansions and the cut to `MAX_EXPANSIONS` is exercised).
pub(crate) fn eval_corpus(n: usize) -> Vec<Checkpoint> {
    let text = include_str!("../tests/fixtures/eval_checkpoints.jsonl");
    let base: Vec<Checkpoint> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            let list = |k: &str| -> Vec<String> {
                v[k].as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let ts = goldfish_core::time::parse_utc(&s("timestamp")).unwrap();
            let mut c = Checkpoint::new(s("id"), ts, s("workspace"), s("description"));
            c.tags = list("tags");
            c.files = list("files");
            c.branch = Some(s("branch"));
            c
        })
        .collect();
    (0..n)
        .map(|i| {
            let mut c = base[i % base.len()].clone();
            if i >= base.len() {
                c.tags.push(format!("topic{}", i % 1000));
                c.files
                    .push(format!("src/module{}/part{}.rs", i % 5000, i % 7));
            }
            c
        })
        .collect()
}

/// Applies byte edits to `q`: (kind, position, byte) with kinds insert, delete,
/// substitute, transpose and truncate.
pub(crate) fn mutate(q: &[u8], edits: &[(u8, usize, u8)]) -> Vec<u8> {
    let mut v = q.to_vec();
    for &(kind, pos, b) in edits {
        let len = v.len();
        match kind {
            0 => v.insert(pos % (len + 1), b),
            1 if len > 0 => {
                v.remove(pos % len);
            }
            2 if len > 0 => v[pos % len] = b,
            3 if len > 1 => v.swap(pos % (len - 1), pos % (len - 1) + 1),
            4 => v.truncate(pos % (len + 1)),
            _ => {}
        }
    }
    v
}

mod tests {
    use super::*;
    use crate::engine::search;
    use crate::engine::search_by;
    use crate::lanes::{Lanes, agreed, each_lanes};

    fn bits(hits: &[Hit]) -> Vec<(usize, u32)> {
        hits.iter().map(|h| (h.index, h.score.to_bits())).collect()
    }

    /// The engine's hits with each [`Lanes`] this machine has, which must all be the same.
    fn searched(q: &Query, cps: &[Checkpoint], opts: &SearchOptions) -> Vec<(usize, u32)> {
        let mut all = Vec::new();
        each_lanes!(lanes => all.push(bits(&search_by(q, cps, opts, |w| lanes.execute(w)))));
        agreed(all, &format!("query {:?}, {opts:?}", q.terms()))
    }

    fn assert_same(q: &Query, cps: &[Checkpoint], opts: &SearchOptions) {
        let fast = searched(q, cps, opts);
        let slow = reference_search(q, cps, opts);
        assert_eq!(fast, bits(&slow), "query {:?}, {opts:?}", q.terms());
        assert_eq!(bits(&search(q, cps, opts)), fast);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Random checkpoints from a small vocabulary with typos, and queries made of its
        /// words with edits: the engine (filter, scanner, memo) equals the reference engine
        /// bit for bit, with and without fuzzy matching.
        #[test]
        fn random_corpora_match_the_reference_engine(
            docs in proptest::collection::vec(
                (proptest::collection::vec((0usize..40, proptest::collection::vec(
                    (0u8..5, 0usize..64, proptest::sample::select(b"aeiorstyln".to_vec())), 0..2)), 1..12),
                 proptest::collection::vec(0usize..40, 0..3),
                 proptest::collection::vec(0usize..40, 0..3)),
                1..25),
            query in proptest::collection::vec((0usize..40, proptest::collection::vec(
                (0u8..5, 0usize..64, proptest::sample::select(b"aeiorstyln".to_vec())), 0..3)), 1..4),
            cut in 0usize..4,
        ) {
            const WORDS: [&str; 40] = [
                "migration", "migrate", "checkpoint", "checkpoints", "authentication", "auth",
                "rollover", "lazy", "dfa", "bug", "studies", "study", "copied", "copy",
                "database", "datbase", "consolidation", "queries", "query", "string", "sties",
                "parseSince", "saveCheckpoint", "café", "Résumé", "locking", "Cargo.lock",
                "src/main.rs", "feature/x-y", "topic12", "sha256", "v0.1.0", "the", "and",
                "regex", "automata", "captures", "tokenizer", "workspace", "WAL",
            ];
            let word = |(w, edits): &(usize, Vec<(u8, usize, u8)>)| {
                String::from_utf8_lossy(&mutate(WORDS[w % WORDS.len()].as_bytes(), edits)).into_owned()
            };
            let t = goldfish_core::time::parse_utc("2026-01-01T00:00:00Z").unwrap();
            let cps: Vec<Checkpoint> = docs
                .iter()
                .enumerate()
                .map(|(i, (desc, tags, files))| {
                    let words: Vec<String> = desc.iter().map(word).collect();
                    // A newline somewhere: a title and a body.
                    let at = cut.min(words.len());
                    let text = format!("{}\n{}", words[..at].join(" "), words[at..].join(" "));
                    let mut c = Checkpoint::new(format!("c{i}"), t, "ws", text);
                    c.tags = tags.iter().map(|&w| WORDS[w].to_string()).collect();
                    c.files = files.iter().map(|&w| format!("src/{}.rs", WORDS[w])).collect();
                    c.branch = Some(WORDS[i % WORDS.len()].to_string());
                    c
                })
                .collect();
            let q: Vec<String> = query.iter().map(word).collect();
            let q = Query::parse(&q.join(" "));
            for opts in [
                SearchOptions::default(),
                SearchOptions { fuzzy: false, ..SearchOptions::default() },
                SearchOptions { min_similarity: 0.0, min_coverage: 0.0, relative_cutoff: 0.0, ..SearchOptions::default() },
            ] {
                proptest::prop_assert_eq!(
                    searched(&q, &cps, &opts),
                    bits(&reference_search(&q, &cps, &opts)),
                    "query {:?}", q.terms()
                );
            }
        }
    }

    #[test]
    fn fast_path_equals_the_reference_engine() {
        let cps = eval_corpus(1500);
        let mut queries: Vec<String> = include_str!("../tests/fixtures/eval_queries.jsonl")
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                v["query"].as_str().unwrap().to_string()
            })
            .collect();
        queries.extend(
            [
                "lazy dfa rolover bug",
                "topic",
                "topic12 modul",
                "part3 src module",
                "te",
                "regex syntax",
                "fix",
                "testing tested tests",
                "queries querying",
                "stoptheworld 123",
                "ünïcödé naïve café",
                "parseSince",
                "x",
            ]
            .map(String::from),
        );
        let loose = SearchOptions {
            min_similarity: 0.3,
            min_coverage: 0.0,
            relative_cutoff: 0.0,
            ..SearchOptions::default()
        };
        let plain = SearchOptions {
            fuzzy: false,
            ..SearchOptions::default()
        };
        for text in &queries {
            let q = Query::parse(text);
            assert_same(&q, &cps, &SearchOptions::default());
            assert_same(&q, &cps[..100], &SearchOptions::default());
            assert_same(&q, &cps, &loose);
            assert_same(&q, &cps, &plain);
        }
    }
}
