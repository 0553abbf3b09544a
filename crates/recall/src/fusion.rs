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
    /// A calibrated mix of the two channels' scores: a document's fused score is its
    /// lexical score normalised over the lexical list (so the best lexical document has 1)
    /// plus `semantic_weight` × its cosine similarity (normalised over the semantic list
    /// too with [`Normalisation::MinMax`]). A channel that did not rank a document adds 0.
    /// Unlike rank fusion, how much better the best lexical match is than the next one
    /// counts: a keyword query whose words one document holds keeps that document first.
    Mix {
        /// How the scores are brought to a common scale.
        normalisation: Normalisation,
        /// The weight of the semantic part against the normalised lexical score's 1.
        semantic_weight: f32,
    },
}

/// How [`Fusion::Mix`] scales each channel's scores, per query, over that channel's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Normalisation {
    /// The lexical score divided by the list's best; the cosine as it is.
    Max,
    /// Each channel's score min-max scaled over its list (`(s − min) / (max − min)`, 1 when
    /// every score of the list is the same).
    MinMax,
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

    /// A score mix: the lexical score divided by the best lexical score, plus
    /// `semantic_weight` × the cosine ([`Normalisation::Max`]).
    #[must_use]
    pub fn mix(semantic_weight: f32) -> Self {
        Fusion::Mix {
            normalisation: Normalisation::Max,
            semantic_weight,
        }
    }
}

impl Default for Fusion {
    /// The score mix by the maximum with the cosine weighed 2 ([`Fusion::mix`]`(2.0)`):
    /// chosen on the tuning sets by the rules of `eval/README.md` (the sum of recall@10 and
    /// MRR@10 over LoCoMo 1–5, the natural-language set and the keyword set: 5.183 against
    /// 5.132 for the best reciprocal rank fusion and 4.999 for the lexical engine alone).
    fn default() -> Self {
        Fusion::mix(2.0)
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

/// How a hit's place was made from the two channels: in
/// [`Explanation::fusion`](crate::Explanation::fusion) when the semantic channel ranked.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct FusionExplanation {
    /// The fused score: the order of the answer.
    pub score: f32,
    /// Its place in the lexical ranking, if it had one among the candidates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lexical: Option<ChannelPart>,
    /// Its place in the semantic ranking (the score is the cosine similarity), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic: Option<ChannelPart>,
}

/// Fuses a lexical and a semantic ranking (each `(key, score)`, best first) into one, best
/// first, by `fusion` (each document's [`ChannelPart`]s say what each channel added).
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
    let lexical_part = scorer(lexical, fusion, Channel::Lexical);
    let semantic_part = scorer(semantic, fusion, Channel::Semantic);
    let part = |rank: usize, score: f32, contribution: &dyn Fn(u32, f32) -> f32| {
        let rank = u32::try_from(rank + 1).unwrap_or(u32::MAX);
        ChannelPart {
            rank,
            score,
            contribution: contribution(rank, score),
        }
    };
    let mut place: HashMap<K, usize> = HashMap::with_capacity(lexical.len() + semantic.len());
    let mut fused: Vec<Fused<K>> = Vec::with_capacity(lexical.len() + semantic.len());
    for (rank, &(key, score)) in lexical.iter().enumerate() {
        if place.contains_key(&key) {
            continue;
        }
        place.insert(key, fused.len());
        let lexical = part(rank, score, &lexical_part);
        fused.push(Fused {
            key,
            score: lexical.contribution,
            lexical: Some(lexical),
            semantic: None,
        });
    }
    for (rank, &(key, score)) in semantic.iter().enumerate() {
        let semantic = part(rank, score, &semantic_part);
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

#[derive(Clone, Copy)]
enum Channel {
    Lexical,
    Semantic,
}

/// What a document at `rank` (from 1) with `score` adds from `channel`'s `list`.
fn scorer<K>(list: &[(K, f32)], fusion: Fusion, channel: Channel) -> impl Fn(u32, f32) -> f32 {
    let (lo, hi) = list
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), e| {
            (lo.min(e.1), hi.max(e.1))
        });
    move |rank: u32, score: f32| match (fusion, channel) {
        (
            Fusion::Rrf {
                k, lexical_weight, ..
            },
            Channel::Lexical,
        ) => lexical_weight / (k + rank as f32),
        (
            Fusion::Rrf {
                k, semantic_weight, ..
            },
            Channel::Semantic,
        ) => semantic_weight / (k + rank as f32),
        (Fusion::Mix { normalisation, .. }, Channel::Lexical) => match normalisation {
            Normalisation::Max if hi > 0.0 => score / hi,
            Normalisation::Max => 0.0,
            Normalisation::MinMax => min_max(score, lo, hi),
        },
        (
            Fusion::Mix {
                normalisation,
                semantic_weight,
            },
            Channel::Semantic,
        ) => match normalisation {
            Normalisation::Max => semantic_weight * score,
            Normalisation::MinMax => semantic_weight * min_max(score, lo, hi),
        },
    }
}

/// `score` scaled to 0–1 between `lo` and `hi`; 1 when they are equal.
fn min_max(score: f32, lo: f32, hi: f32) -> f32 {
    if hi > lo {
        (score - lo) / (hi - lo)
    } else {
        1.0
    }
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
        let fused = fuse(&lexical, &semantic, Fusion::rrf(60.0));
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
        assert_eq!(keys(&fuse(&lexical, &semantic, Fusion::rrf(60.0))), [1, 2]);
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

    #[test]
    fn the_mix_adds_the_normalised_lexical_score_and_the_weighted_cosine() {
        let lexical = [(1, 8.0), (2, 4.0), (3, 2.0)];
        let semantic = [(3, 0.9), (4, 0.5)];
        let fused = fuse(&lexical, &semantic, Fusion::mix(0.5));
        // 1: 1.0; 2: 0.5; 3: 0.25 + 0.45 = 0.7; 4 (by meaning alone): 0.25.
        assert_eq!(keys(&fused), [1, 3, 2, 4]);
        let three = fused[1];
        assert_eq!(
            three.lexical.map(|p| (p.rank, p.contribution)),
            Some((3, 0.25))
        );
        assert!((three.semantic.map_or(0.0, |p| p.contribution) - 0.45).abs() < 1e-6);
        assert!((three.score - 0.7).abs() < 1e-6);
        let four = fused[3];
        assert!(four.lexical.is_none() && (four.score - 0.25).abs() < 1e-6);
    }

    #[test]
    fn min_max_spreads_each_list_over_zero_to_one() {
        let minmax = Fusion::Mix {
            normalisation: Normalisation::MinMax,
            semantic_weight: 1.0,
        };
        let fused = fuse(
            &[(1, 6.0), (2, 4.0), (3, 2.0)],
            &[(2, 0.4), (3, 0.3)],
            minmax,
        );
        // Lexical 1, 0.5, 0; semantic 1, 0: 2 has 1.5, 1 has 1, 3 has 0.
        assert_eq!(keys(&fused), [2, 1, 3]);
        assert!((fused[0].score - 1.5).abs() < 1e-6);
        assert!(fused[2].score.abs() < 1e-6);
        // A list of one (or of equal scores) gives each of its documents 1.
        let alone = fuse(&[(5, 3.0)], &[(6, 0.2)], minmax);
        assert_eq!(
            alone.iter().map(|f| f.score).collect::<Vec<_>>(),
            [1.0, 1.0]
        );
        assert_eq!(keys(&alone), [5, 6], "a tie goes to the lexical rank");
    }

    #[test]
    fn the_mix_with_one_channel_empty_keeps_the_other_channels_order() {
        let lexical = [(4, 3.0), (9, 2.0), (1, 2.0)];
        let semantic = [(7, 0.8), (2, 0.6), (3, 0.6)];
        for normalisation in [Normalisation::Max, Normalisation::MinMax] {
            let f = Fusion::Mix {
                normalisation,
                semantic_weight: 0.3,
            };
            assert_eq!(keys(&fuse(&lexical, &[], f)), [4, 9, 1]);
            // Found by meaning alone: every part is semantic, ties in semantic rank order.
            let only = fuse(&[], &semantic, f);
            assert_eq!(keys(&only), [7, 2, 3]);
            assert!(
                only.iter()
                    .all(|d| d.lexical.is_none() && d.semantic.is_some())
            );
            assert!(fuse::<u32>(&[], &[], f).is_empty());
        }
        // A lexical list whose best score is 0 adds nothing rather than dividing by it.
        let zero = fuse(&[(1, 0.0)], &[(2, 0.5)], Fusion::mix(1.0));
        assert_eq!(keys(&zero), [2, 1]);
        assert_eq!(zero[1].score, 0.0);
    }

    proptest! {
        #[test]
        fn every_document_once_scores_descending_and_parts_add_up(
            lexical in proptest::collection::vec((0u32..40, 0f32..10.0), 0..30),
            semantic in proptest::collection::vec((0u32..40, -1f32..1.0), 0..30),
        ) {
            // Each list best first, as the channels give them.
            let (mut lexical, mut semantic) = (lexical, semantic);
            lexical.sort_by(|a, b| b.1.total_cmp(&a.1));
            semantic.sort_by(|a, b| b.1.total_cmp(&a.1));
            for fusion in [
                Fusion::default(),
                Fusion::mix(0.4),
                Fusion::Mix { normalisation: Normalisation::MinMax, semantic_weight: 1.5 },
            ] {
            let fused = fuse(&lexical, &semantic, fusion);
            // The same lists give the same answer, key for key and bit for bit.
            prop_assert_eq!(&fused, &fuse(&lexical, &semantic, fusion));
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
            let alone = fuse(&lexical, &[], fusion);
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
}
