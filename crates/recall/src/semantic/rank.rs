//! Ranking by meaning: the searched entries' cosine similarities to the query, the channel's
//! candidates chosen among them ([`fuse_channels`]), fused with the lexical ranking.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use super::cache::{Caches, Similar};
use super::channel::{Pool, SemanticOptions};
use super::cosine::PreparedQuery;
use crate::fusion::{Fused, FusionExplanation, fuse};
use crate::hit::Hit;

/// Fuses a search's two channels as [`SemanticOptions`] say: `lexical` is the lexical
/// engine's ranking (`(key, score)`, best first), `cosines` every searched entry that has
/// a vector with its cosine similarity to the query, best first. Each channel is cut to
/// its best [`SemanticOptions::candidates`], the semantic one chosen by
/// [`SemanticOptions::pool`] among the entries at least
/// [`SemanticOptions::min_similarity`] similar, then [`fuse`]d by
/// [`SemanticOptions::fusion`]. Pure: what recall does with a search's rankings, for a
/// caller with rankings of its own.
#[must_use]
pub fn fuse_channels<K: Copy + Eq + Hash>(
    lexical: &[(K, f32)],
    cosines: &[(K, f32)],
    opts: &SemanticOptions,
) -> Vec<Fused<K>> {
    let lexical = &lexical[..lexical.len().min(opts.candidates)];
    let similar = cosines.iter().filter(|c| c.1 >= opts.min_similarity);
    let semantic: Vec<(K, f32)> = match opts.pool {
        Pool::Nearest => similar.take(opts.candidates).copied().collect(),
        Pool::NearestAndLexical | Pool::Lexical => {
            let nearest = if opts.pool == Pool::Lexical {
                0
            } else {
                opts.candidates
            };
            let ranked: HashSet<K> = lexical.iter().map(|l| l.0).collect();
            similar
                .enumerate()
                .filter(|(i, c)| *i < nearest || ranked.contains(&c.0))
                .map(|(_, c)| *c)
                .collect()
        }
    };
    fuse(lexical, &semantic, opts.fusion)
}

/// One searched entry, as the semantic channel sees it.
pub(crate) struct Entry<'w> {
    pub(crate) workspace: &'w str,
    pub(crate) key: u64,
}

/// Re-ranks a lexical answer with the semantic channel: `entries[i]` describes the entry
/// numbered `i` in `hits`; `text_of(i)` gives the text of an entry without a vector (for the
/// bounded number embedded now). Returns the fused hits, best first, and notes.
pub(crate) fn rerank<'w>(
    hits: Vec<Hit>,
    entries: &[Entry<'w>],
    caches: &mut Caches<'_>,
    explain: bool,
    text_of: impl FnMut(usize) -> Option<String>,
    notes: &mut Vec<String>,
) -> Vec<Hit> {
    let opts = caches.channel.options;
    // The query, copied out of the caches (which the missing entries' vectors go into).
    let Some(query) = caches.query(notes).cloned() else {
        return hits;
    };
    let (names, slot) = number_workspaces(entries);
    caches.read(&names, &query);
    // Each entry's similarity, when its text has a vector.
    let mut sims: Vec<Option<f32>> = {
        let tables: Vec<&Similar> = names.iter().map(|n| caches.get(n)).collect();
        entries
            .iter()
            .zip(&slot)
            .map(|(e, &n)| tables[n].get(e.key))
            .collect()
    };
    embed_missing(
        entries, &names, &slot, &mut sims, caches, &query, text_of, notes,
    );
    let mut cosines: Vec<(usize, f32)> = sims
        .into_iter()
        .enumerate()
        .filter_map(|(i, sim)| sim.filter(|&s| s >= opts.min_similarity).map(|s| (i, s)))
        .collect();
    // Best first; equal similarity keeps the newer entry first (later in reading order).
    cosines.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
    let cut = hits.len().min(opts.candidates);
    let lexical: Vec<(usize, f32)> = hits[..cut].iter().map(|h| (h.index, h.score)).collect();
    let fused = fuse_channels(&lexical, &cosines, &opts);
    fused_hits(hits, fused, cut, explain)
}

/// Each entry's workspace, numbered in order of first appearance (entries come grouped by
/// workspace: the name is compared with the last one's before it is looked up): the names
/// in that order, and each entry's number.
fn number_workspaces<'w>(entries: &[Entry<'w>]) -> (Vec<&'w str>, Vec<usize>) {
    let mut names: Vec<&'w str> = Vec::new();
    let mut numbers: HashMap<&'w str, usize> = HashMap::new();
    let mut slot: Vec<usize> = Vec::with_capacity(entries.len());
    for e in entries {
        let n = match slot.last() {
            Some(&last) if names[last] == e.workspace => last,
            _ => *numbers.entry(e.workspace).or_insert_with(|| {
                names.push(e.workspace);
                names.len() - 1
            }),
        };
        slot.push(n);
    }
    (names, slot)
}

/// Embeds the entries without a vector, at most [`SemanticOptions::embed_missing`] of them,
/// the newest (last in reading order) first, and fills in their similarities (and those of
/// the entries of the same text) in `sims`.
#[allow(clippy::too_many_arguments)]
fn embed_missing(
    entries: &[Entry<'_>],
    names: &[&str],
    slot: &[usize],
    sims: &mut [Option<f32>],
    caches: &mut Caches<'_>,
    query: &PreparedQuery,
    mut text_of: impl FnMut(usize) -> Option<String>,
    notes: &mut Vec<String>,
) {
    let opts = caches.channel.options;
    let missing: Vec<usize> = (0..entries.len())
        .rev()
        .filter(|&i| sims[i].is_none())
        .take(opts.embed_missing)
        .collect();
    if missing.is_empty() {
        return;
    }
    let texts: Vec<(usize, String)> = missing
        .iter()
        .filter_map(|&i| text_of(i).map(|t| (i, t)))
        .collect();
    let refs: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).collect();
    match caches.channel.embedder.embed_documents(&refs) {
        Ok(vectors) => {
            let dim = caches.channel.embedder.dimension();
            for ((i, _), v) in texts.iter().zip(vectors) {
                let e = &entries[*i];
                let similar = caches.by_workspace.entry(e.workspace.to_string());
                similar.or_default().add(e.key, v, dim, query);
            }
            // Entries of the same text share the vector just added.
            let tables: Vec<&Similar> = names.iter().map(|n| caches.get(n)).collect();
            for (i, e) in entries.iter().enumerate() {
                if sims[i].is_none() {
                    sims[i] = tables[slot[i]].get(e.key);
                }
            }
        }
        Err(e) => notes.push(format!(
            "entries without a vector could not be embedded ({e}); they rank lexically"
        )),
    }
}

/// The answer in the fused order: the fused hits taken out of the lexical ones (their scores
/// the fused ones, with the fusion's explanation when `explain`), then the lexical hits
/// beyond the first `cut` (the candidates) that were not fused, in their order.
fn fused_hits(hits: Vec<Hit>, fused: Vec<Fused<usize>>, cut: usize, explain: bool) -> Vec<Hit> {
    // What a hit found by meaning alone says about the query's words.
    let words = hits
        .iter()
        .find_map(|h| h.explain.as_ref().map(|e| e.unmatched()));
    // The fused hits taken out of the lexical ones (a few hundred of many thousands); the
    // others beyond the candidates keep their order after them.
    let fused_keys: HashSet<usize> = fused.iter().map(|f| f.key).collect();
    let mut by_index: HashMap<usize, Hit> = HashMap::with_capacity(fused_keys.len());
    let mut rest: Vec<Hit> = Vec::with_capacity(hits.len().saturating_sub(cut));
    for (place, hit) in hits.into_iter().enumerate() {
        if fused_keys.contains(&hit.index) {
            by_index.insert(hit.index, hit);
        } else if place >= cut {
            rest.push(hit);
        }
    }
    let mut out: Vec<Hit> = fused
        .into_iter()
        .map(|f| {
            let mut hit = by_index.remove(&f.key).unwrap_or(Hit {
                index: f.key,
                score: 0.0,
                explain: None,
            });
            hit.score = f.score;
            if explain {
                let mut e = hit
                    .explain
                    .take()
                    .map(|e| *e)
                    .or_else(|| words.clone())
                    .unwrap_or_default();
                e.fusion = Some(FusionExplanation {
                    score: f.score,
                    lexical: f.lexical,
                    semantic: f.semantic,
                });
                hit.explain = Some(Box::new(e));
            }
            hit
        })
        .collect();
    // Lexical hits beyond the candidates keep their order after the fused ones (those the
    // semantic channel fused in are there already).
    out.extend(rest);
    out
}
