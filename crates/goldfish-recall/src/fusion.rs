//! Fusion of two rankings of the same documents: the lexical engine's and the semantic
//! channel's (nearest sentence embeddings).
//!
//! Pure: the channels rank, this module only merges what they ranked. The keys are whatever
//! identifies a document to the caller (an entry number of the index, a position in a
//! corpus); each list is best first. A key that appears twice in one list counts at its
//! first (best) place only.

use std::collections::HashMap;
use std::hash::Hash;

/// How two rankings are fused.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Fusion {
    /// Reciprocal rank fusion: a document's fused score is the sum, over the channels that
    /// ranked it, of `weight / (k + rank)` with ranks counted from 1. Only ranks matter, so
    /// the two channels' scores need no calibration against each other.
    Rrf {
        /// The damping constant: larger values flatten the difference between the first
        /// ranks and the later ones (60 in the original paper).
        k: f32,
        /// The lexical channel's weight.
        lexical_weight: f32,
        /// The semantic channel's weight.
        semantic_weight: f32,
    },
}

impl Fusion {
    /// Reciprocal rank fusion with equal weights and the damping constant `k`.
    #[must_use]
    pub fn rrf(k: f32) -> Self {
        Fusion::Rrf {
            k,
            lexical_weight: 1.0,
            semantic_weight: 1.0,
        }
    }
}

impl Default for Fusion {
    /// Reciprocal rank fusion, `k` = 60, equal weights.
    fn default() -> Self {
        Fusion::rrf(60.0)
    }
}

/// What one channel says about a fused document.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ChannelPart {
    /// The document's place in that channel's ranking, from 1.
    pub rank: u32,
    /// The channel's own score (the lexical score, or the cosine similarity).
    pub score: f32,
    /// What this channel added to the fused score.
    pub contribution: f32,
}

/// One document of a fused ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fused<K> {
    /// The document, as the caller identified it.
    pub key: K,
    /// The fused score: the order of the fused ranking.
    pub score: f32,
    /// Its part in the lexical ranking, if that channel ranked it.
    pub lexical: Option<ChannelPart>,
    /// Its part in the semantic ranking, if that channel ranked it.
    pub semantic: Option<ChannelPart>,
}

/// Fuses a lexical and a semantic ranking (each `(key, score)`, best first) into one, best
/// first.
///
/// Ties of the fused score are broken by the better lexical rank, then the better semantic
/// rank, then the order in which the documents first appear (lexical list first): the result
/// depends only on the two lists, never on hashing.
#[must_use]
pub fn fuse<K: Copy + Eq + Hash>(
    lexical: &[(K, f32)],
    semantic: &[(K, f32)],
    fusion: Fusion,
) -> Vec<Fused<K>> {
    let Fusion::Rrf {
        k,
        lexical_weight,
        semantic_weight,
    } = fusion;
    let part = |rank: usize, score: f32, weight: f32| {
        let rank = u32::try_from(rank + 1).unwrap_or(u32::MAX);
        ChannelPart {
            rank,
            score,
            contribution: weight / (k + rank as f32),
        }
    };
    let mut place: HashMap<K, usize> = HashMap::with_capacity(lexical.len() + semantic.len());
    let mut fused: Vec<Fused<K>> = Vec::with_capacity(lexical.len() + semantic.len());
    for (rank, &(key, score)) in lexical.iter().enumerate() {
        if place.contains_key(&key) {
            continue;
        }
        place.insert(key, fused.len());
        let lexical = part(rank, score, lexical_weight);
        fused.push(Fused {
            key,
            score: lexical.contribution,
            lexical: Some(lexical),
            semantic: None,
        });
    }
    for (rank, &(key, score)) in semantic.iter().enumerate() {
        let semantic = part(rank, score, semantic_weight);
        match place.get(&key) {
            Some(&at) => {
                let doc = &mut fused[at];
                if doc.semantic.is_none() {
                    doc.score += semantic.contribution;
                    doc.semantic = Some(semantic);
                }
            }
            None => {
                place.insert(key, fused.len());
                fused.push(Fused {
                    key,
                    score: semantic.contribution,
                    lexical: None,
                    semantic: Some(semantic),
                });
            }
        }
    }
    let rank_of = |part: Option<ChannelPart>| part.map_or(u32::MAX, |p| p.rank);
    // A stable sort keeps first appearance as the last tie-break.
    fused.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| rank_of(a.lexical).cmp(&rank_of(b.lexical)))
            .then_with(|| rank_of(a.semantic).cmp(&rank_of(b.semantic)))
    });
    fused
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn keys(fused: &[Fused<u32>]) -> Vec<u32> {
        fused.iter().map(|f| f.key).collect()
    }

    #[test]
    fn a_document_both_channels_rank_beats_one_that_only_one_ranks_first() {
        let lexical = [(1, 9.0), (2, 5.0), (3, 1.0)];
        let semantic = [(4, 0.9), (2, 0.8), (5, 0.7)];
        let fused = fuse(&lexical, &semantic, Fusion::default());
        assert_eq!(keys(&fused), [2, 1, 4, 3, 5]);
        let two = fused[0];
        assert_eq!(two.lexical.map(|p| p.rank), Some(2));
        assert_eq!(two.semantic.map(|p| (p.rank, p.score)), Some((2, 0.8)));
        assert!((two.score - 2.0 / 62.0).abs() < 1e-7);
    }

    #[test]
    fn ties_go_to_the_better_lexical_rank_and_weights_shift_the_balance() {
        let lexical = [(1, 3.0)];
        let semantic = [(2, 0.5)];
        assert_eq!(keys(&fuse(&lexical, &semantic, Fusion::default())), [1, 2]);
        let semantic_first = Fusion::Rrf {
            k: 60.0,
            lexical_weight: 1.0,
            semantic_weight: 1.5,
        };
        assert_eq!(keys(&fuse(&lexical, &semantic, semantic_first)), [2, 1]);
    }

    #[test]
    fn a_repeated_key_counts_at_its_best_place_only() {
        let fused = fuse(
            &[(7, 2.0), (7, 1.0)],
            &[(7, 0.3), (7, 0.2)],
            Fusion::rrf(1.0),
        );
        assert_eq!(fused.len(), 1);
        assert!((fused[0].score - 1.0).abs() < 1e-7);
    }

    proptest! {
        #[test]
        fn every_document_once_scores_descending_and_parts_add_up(
            lexical in proptest::collection::vec((0u32..40, 0f32..10.0), 0..30),
            semantic in proptest::collection::vec((0u32..40, -1f32..1.0), 0..30),
        ) {
            let fused = fuse(&lexical, &semantic, Fusion::default());
            let mut seen: Vec<u32> = lexical.iter().chain(&semantic).map(|&(k, _)| k).collect();
            seen.sort_unstable();
            seen.dedup();
            let mut got = keys(&fused);
            got.sort_unstable();
            prop_assert_eq!(got, seen);
            for pair in fused.windows(2) {
                prop_assert!(pair[0].score >= pair[1].score);
            }
            for f in &fused {
                let sum = f.lexical.map_or(0.0, |p| p.contribution)
                    + f.semantic.map_or(0.0, |p| p.contribution);
                prop_assert!((f.score - sum).abs() < 1e-6);
            }
            // With no semantic list the lexical order is kept as it is.
            let alone = fuse(&lexical, &[], Fusion::default());
            let mut first = Vec::new();
            for &(k, _) in &lexical {
                if !first.contains(&k) {
                    first.push(k);
                }
            }
            prop_assert_eq!(keys(&alone), first);
        }
    }
}
