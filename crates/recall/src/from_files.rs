//! Recall from the day files, without the index: the newest checkpoints of the window, or
//! all of them read, filtered, searched and re-ranked by meaning.

use goldfish_store::{Checkpoint, Store};

use crate::engine::search;
use crate::error::Error;
use crate::inplace::InPlace;
use crate::newest;
use crate::options::RecallOptions;
use crate::query::Query;
use crate::result::{Links, RecallHit, Shown, WorkspaceCount};
use crate::search_options::SearchOptions;
use crate::semantic::Caches;
use crate::window::TimeWindow;

/// Recall without the index: without a search, the newest checkpoints read one day file at a
/// time; with one, the window's day files read, filtered and searched.
#[allow(clippy::too_many_arguments)]
// Long: the two ways (newest, or read and search) and the counts of what is shown.
pub(crate) fn read_and_search(
    store: &Store,
    opts: &RecallOptions,
    workspaces: &[String],
    window: TimeWindow,
    in_place: &InPlace,
    query: Option<&Query>,
    search_opts: &SearchOptions,
    caches: Option<&mut Caches<'_>>,
    notes: &mut Vec<String>,
) -> Result<Shown, Error> {
    let Some(q) = query else {
        let (shown, total, counts, skipped) = newest::newest(
            store,
            workspaces,
            window,
            in_place,
            &opts.filter,
            opts.limit,
        )?;
        let hits = shown.into_iter().map(RecallHit::unranked).collect();
        return Ok((hits, total, counts, skipped));
    };
    let (mut checkpoints, mut skipped) = newest::all(store, workspaces, window)?;
    for ws in workspaces {
        in_place.add_checkpoints(ws, window, &mut checkpoints);
    }
    skipped.extend(in_place.skipped.iter().cloned());
    if !opts.filter.is_empty() {
        checkpoints.retain(|c| opts.filter.matches(c));
    }
    let mut found = search(q, &checkpoints, search_opts);
    if let Some(caches) = caches {
        let entries: Vec<crate::semantic::Entry<'_>> = checkpoints
            .iter()
            .map(|c| crate::semantic::Entry {
                workspace: &c.workspace,
                key: crate::semantic::text_key(&crate::semantic::embedding_text(c)),
            })
            .collect();
        found = crate::semantic::rerank(
            found,
            &entries,
            caches,
            search_opts.explain,
            |i| checkpoints.get(i).map(crate::semantic::embedding_text),
            notes,
        );
    }
    let mut slots: Vec<Option<Checkpoint>> = checkpoints.into_iter().map(Some).collect();
    let mut ordered: Vec<RecallHit> = Vec::with_capacity(found.len());
    for hit in found {
        if let Some(checkpoint) = slots.get_mut(hit.index).and_then(Option::take) {
            ordered.push(RecallHit {
                checkpoint,
                score: Some(hit.score),
                explanation: hit.explain.map(|e| *e),
                links: Links::default(),
                freshness: None,
            });
        }
    }
    let total = ordered.len();
    let matched_in = |ws: &String| {
        ordered
            .iter()
            .filter(|h| &h.checkpoint.workspace == ws)
            .count()
    };
    let matched: Vec<usize> = workspaces.iter().map(matched_in).collect();
    ordered.truncate(opts.limit);
    let shown = ordered;
    let mut counts: Vec<WorkspaceCount> = Vec::new();
    for (ws, matched) in workspaces.iter().zip(matched) {
        if matched > 0 {
            let shown = shown
                .iter()
                .filter(|h| &h.checkpoint.workspace == ws)
                .count();
            counts.push(WorkspaceCount {
                workspace: ws.clone(),
                matched,
                shown,
            });
        }
    }
    Ok((shown, total, counts, skipped))
}
