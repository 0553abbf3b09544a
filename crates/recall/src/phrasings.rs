//! Several phrasings of one need, searched each and fused into one ranking: the agent that
//! calls recall is a language model, and it can say what it looks for in more than one way
//! (the user's words, a few keywords, a question in other words). Each phrasing is a whole
//! search (lexical, and by meaning when the channel is on); the rankings are fused by
//! reciprocal rank ([`fuse_phrasings`]), so a memory that several phrasings find rises, and
//! one that only a single phrasing finds still takes part.

use std::collections::HashMap;
use std::hash::Hash;

use goldfish_store::Store;

use crate::error::Error;
use crate::index::RecallCache;
use crate::options::RecallOptions;
use crate::result::{RecallHit, RecallResult};

/// At most this many phrasings in one recall: the search and three more.
pub const MAX_PHRASINGS: usize = 4;

/// The damping constant of the fusion of phrasings (the reciprocal-rank fusion paper's 60).
pub const PHRASINGS_RRF_K: f32 = 60.0;

/// Fuses rankings of the same documents, one per phrasing (each best first; a key twice in
/// one list counts at its first place): a document's score is the sum over the lists that
/// hold it of `1 / (PHRASINGS_RRF_K + rank)`, ranks from 1. Returns every key, best first;
/// ties keep the order in which the keys first appear (the first list first).
pub fn fuse_phrasings<K: Clone + Eq + Hash>(rankings: &[Vec<K>]) -> Vec<(K, f32)> {
    let mut place: HashMap<K, usize> = HashMap::new();
    let mut fused: Vec<(K, f32)> = Vec::new();
    for list in rankings {
        let mut seen: HashMap<&K, ()> = HashMap::with_capacity(list.len());
        let mut rank = 0usize;
        for key in list {
            if seen.insert(key, ()).is_some() {
                continue;
            }
            rank += 1;
            let add = 1.0 / (PHRASINGS_RRF_K + rank as f32);
            match place.get(key) {
                Some(&i) => fused[i].1 += add,
                None => {
                    place.insert(key.clone(), fused.len());
                    fused.push((key.clone(), add));
                }
            }
        }
    }
    // Stable: equal scores keep their first appearance's order.
    fused.sort_by(|a, b| b.1.total_cmp(&a.1));
    fused
}

/// One recall per phrasing (`opts.search` and each of `opts.also_search`), each asked for a
/// deeper list than the caller's limit, fused into the first one's answer: its window, plan,
/// workspaces and notes, with the fused hits (each as the phrasing that ranked it best
/// found it, its score the fused one) cut to the limit.
pub(crate) fn recall_phrasings(
    store: &Store,
    opts: &RecallOptions,
    cache: Option<&RecallCache>,
    one: impl Fn(&Store, &RecallOptions, Option<&RecallCache>) -> Result<RecallResult, Error>,
) -> Result<RecallResult, Error> {
    let phrasings: Vec<&String> = opts
        .search
        .iter()
        .chain(&opts.also_search)
        .filter(|s| !s.trim().is_empty())
        .collect();
    if opts.search.as_deref().is_none_or(|s| s.trim().is_empty()) {
        return Err(Error::argument(
            "also_search",
            "other phrasings are given without a search: give the first one as the search",
        ));
    }
    if phrasings.len() > MAX_PHRASINGS {
        return Err(Error::argument(
            "also_search",
            format!(
                "{} phrasings of one search: at most {MAX_PHRASINGS}",
                phrasings.len()
            ),
        ));
    }
    // A deeper list from each phrasing: a memory ranked 15th by one and 2nd by another
    // belongs in the fused top ten.
    let pool = opts.limit.max(10).saturating_mul(3);
    let mut first: Option<RecallResult> = None;
    let mut lists: Vec<Vec<RecallHit>> = Vec::with_capacity(phrasings.len());
    let mut total = 0;
    let mut notes = Vec::new();
    for phrasing in &phrasings {
        let mut o = opts.clone();
        o.search = Some((*phrasing).clone());
        o.also_search = Vec::new();
        o.limit = pool;
        let result = one(store, &o, cache)?;
        total = total.max(result.total);
        for note in &result.notes {
            if !notes.contains(note) {
                notes.push(note.clone());
            }
        }
        lists.push(result.hits.clone());
        if first.is_none() {
            first = Some(result);
        }
    }
    let Some(mut result) = first else {
        return Err(Error::argument("search", "nothing to search for"));
    };
    let keys: Vec<Vec<(String, String)>> = lists
        .iter()
        .map(|l| {
            l.iter()
                .map(|h| (h.checkpoint.workspace.clone(), h.checkpoint.id.clone()))
                .collect()
        })
        .collect();
    let fused = fuse_phrasings(&keys);
    // Each hit as the phrasing that ranked it best found it.
    let mut best: HashMap<(String, String), (usize, RecallHit)> = HashMap::new();
    for list in lists {
        for (rank, hit) in list.into_iter().enumerate() {
            let key = (hit.checkpoint.workspace.clone(), hit.checkpoint.id.clone());
            match best.get(&key) {
                Some((r, _)) if *r <= rank => {}
                _ => {
                    best.insert(key, (rank, hit));
                }
            }
        }
    }
    let mut hits = Vec::with_capacity(opts.limit);
    for (key, score) in fused.into_iter().take(opts.limit) {
        if let Some((_, mut hit)) = best.remove(&key) {
            hit.score = Some(score);
            hits.push(hit);
        }
    }
    result.total = total.max(hits.len());
    result.hits = hits;
    result.limit = opts.limit;
    result.also_searched = phrasings[1..].iter().map(|s| (*s).clone()).collect();
    result.notes = notes;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_several_phrasings_find_rises() {
        let a = vec!["x", "y", "z"];
        let b = vec!["y", "w"];
        let fused = fuse_phrasings(&[a, b]);
        let order: Vec<&str> = fused.iter().map(|(k, _)| *k).collect();
        assert_eq!(order, ["y", "x", "w", "z"]);
        let y = 1.0 / 62.0 + 1.0 / 61.0;
        assert!((fused[0].1 - y).abs() < 1e-6);
        // One list alone keeps its order; a repeated key counts once, at its first place.
        let one = fuse_phrasings(&[vec!["b", "a", "b", "c"]]);
        let order: Vec<&str> = one.iter().map(|(k, _)| *k).collect();
        assert_eq!(order, ["b", "a", "c"]);
        assert!(fuse_phrasings::<u32>(&[]).is_empty());
    }
}
