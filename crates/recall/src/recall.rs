//! Recall over a store, the crate's top: one recall as the steps a person would name, each
//! the work of a module of its own —
//!
//! 1. choose the window and the workspaces ([`prepare`](crate::prepare));
//! 2. parse what is searched for ([`query`](crate::query)), and start embedding it beside the
//!    rest when the semantic channel takes part ([`semantic`](crate::semantic));
//! 3. learn who is superseded, to hide it ([`supersession`](crate::supersession));
//! 4. rank: through the index ([`index`](crate::index)) or from the day files
//!    ([`from_files`](crate::from_files)); either ranks lexically ([`engine`](crate::engine),
//!    [`score`](crate::score)), then adds meaning and fuses the two rankings
//!    ([`semantic`](crate::semantic), [`fusion`](crate::fusion));
//! 5. attach the active plan and each hit's links ([`result`](crate::result)); freshness is
//!    the caller's to add ([`RecallResult::set_freshness`]).
//!
//! [`checkpoints_per_day`] counts the window for the activity chart through the same first
//! and third steps.

use goldfish_store::{Plan, Store, Supersession};

use crate::error::Error;
use crate::from_files;
use crate::index::{self, RecallCache, WsIndex};
use crate::inplace::InPlace;
use crate::newest;
use crate::options::{RecallOptions, Scope};
use crate::prepare::{Prepared, prepare};
use crate::query::Query;
use crate::result::{
    DayCounts, Links, RecallHit, RecallResult, Shown, SkippedFile, WorkspaceCount,
};
use crate::search_options::SearchOptions;
use crate::semantic::Caches;
use crate::supersession::{Known, supersession_of};
use crate::window::TimeWindow;

/// Recalls checkpoints from `store` as `opts` asks.
///
/// Reads only the day files the window touches; with [`Scope::All`] the workspaces are
/// read in parallel. A corrupt file or entry is skipped and listed in
/// [`RecallResult::skipped`], never fatal. Errors: an option that cannot be parsed, or two
/// of `days`, `since` and `from` given together ([`Error::is_invalid_argument`], naming
/// them), or a store that cannot be listed.
pub fn recall(store: &Store, opts: &RecallOptions) -> Result<RecallResult, Error> {
    recall_phrased(store, opts, None)
}

/// [`recall`] for a long-lived process: the index of each workspace searched is kept in
/// `cache` between calls and refreshed by the same check of the day files (so never
/// stale), instead of being read from its file every time.
pub fn recall_with(
    store: &Store,
    opts: &RecallOptions,
    cache: &RecallCache,
) -> Result<RecallResult, Error> {
    recall_phrased(store, opts, Some(cache))
}

/// One recall, or one per phrasing fused when other phrasings are given.
fn recall_phrased(
    store: &Store,
    opts: &RecallOptions,
    cache: Option<&RecallCache>,
) -> Result<RecallResult, Error> {
    if opts.also_search.is_empty() {
        recall_inner(store, opts, cache)
    } else {
        crate::phrasings::recall_phrasings(store, opts, cache, recall_inner)
    }
}

// Long: the orchestrator, one numbered step each; the answer's fields are a third of it.
fn recall_inner(
    store: &Store,
    opts: &RecallOptions,
    cache: Option<&RecallCache>,
) -> Result<RecallResult, Error> {
    // 1. The window, the workspaces, the projects read in place.
    let Prepared {
        now,
        state,
        in_place,
        window,
        workspaces,
        all,
    } = prepare(store, opts)?;
    let mut notes = Vec::new();
    // 2. What is searched for, and the semantic channel's query embedded beside the rest.
    let query = parse_search(opts)?;
    let search_opts = SearchOptions {
        explain: opts.explain,
        ..SearchOptions::default()
    };
    let mut caches = start_semantic(store, opts, query.as_ref(), &workspaces);
    // 3. Who is superseded comes from every entry of each workspace, not the window's: a
    // checkpoint of last week replaced today is hidden from a recall of last week. The
    // index keeps what that takes; without it, every day file is read.
    let Known { links, indexed } = supersession_of(
        store,
        opts.use_index,
        &workspaces,
        cache,
        opts.search.as_deref().is_some_and(|s| !s.trim().is_empty()),
        &mut notes,
    )?;
    // The options as the day files are read: the caller's, with the superseded checkpoints
    // filtered out.
    let mut effective = opts.clone();
    if !opts.include_superseded {
        effective.filter.hide_superseded(&workspaces, &links);
    }
    // 4. Rank, lexically then by meaning: through the index when it can answer, else from
    // the day files.
    let through_index = through_index(
        opts,
        query.as_ref(),
        indexed,
        &workspaces,
        &in_place,
        window,
        &search_opts,
        caches.as_mut(),
        &mut notes,
    );
    let (mut hits, total, counts, mut skipped) = match through_index {
        Some(shown) => shown,
        None => from_files::read_and_search(
            store,
            &effective,
            &workspaces,
            window,
            &in_place,
            query.as_ref(),
            &search_opts,
            caches.as_mut(),
            &mut notes,
        )?,
    };
    let channels = channels(query.as_ref(), caches, &mut notes);
    // 5. The active plan, and each hit's links.
    let active_plan = if all {
        None
    } else {
        active_plan(store, &workspaces[0], &in_place, &mut skipped)?
    };
    attach_links(&mut hits, &workspaces, &links);
    Ok(RecallResult {
        scope: if all {
            Scope::All
        } else {
            Scope::Named(workspaces[0].clone())
        },
        window,
        now,
        search: opts.search.clone().filter(|s| !s.trim().is_empty()),
        also_searched: Vec::new(),
        channels,
        hits,
        total,
        workspaces: counts,
        active_plan,
        skipped,
        limit: opts.limit,
        store_root: store.root().to_path_buf(),
        store: state,
        notes,
    })
}

/// The query of `opts.search`. A blank search is no search; text without a single content
/// word is an error that says so, never a silent "nothing matched".
fn parse_search(opts: &RecallOptions) -> Result<Option<Query>, Error> {
    Ok(
        match opts.search.as_deref().filter(|s| !s.trim().is_empty()) {
            Some(text) => Some(Query::try_parse(text)?),
            None => None,
        },
    )
}

/// The semantic channel, with a search of enough words and a model: the query embedded
/// once, beside the lexical search. A model that fails leaves the search lexical, with a
/// note.
fn start_semantic<'a>(
    store: &'a Store,
    opts: &'a RecallOptions,
    query: Option<&Query>,
    workspaces: &[String],
) -> Option<Caches<'a>> {
    match (query, &opts.semantic) {
        (Some(q), Some(channel)) if channel.options.applies_to(q) => {
            let text = opts.search.as_deref().unwrap_or_default();
            Some(Caches::new(store.root(), channel, text, workspaces))
        }
        _ => None,
    }
}

/// The search through the indexes (`indexed`: each workspace's fresh index and the entries
/// it hides), when they can answer it: a search without filters over the store's own files
/// (Goldfish 5–8 projects in the searched workspaces, and filters, are read from the files).
/// `None`: the day files are to be read, with a note when an index proved unusable.
#[allow(clippy::too_many_arguments)]
fn through_index(
    opts: &RecallOptions,
    query: Option<&Query>,
    indexed: Option<Vec<(WsIndex, Vec<u32>)>>,
    workspaces: &[String],
    in_place: &InPlace,
    window: TimeWindow,
    search_opts: &SearchOptions,
    caches: Option<&mut Caches<'_>>,
    notes: &mut Vec<String>,
) -> Option<Shown> {
    let answer = match (query, indexed) {
        (Some(q), Some(indexed))
            if opts.filter.is_empty()
                && !workspaces.iter().any(|ws| in_place.has_checkpoints(ws)) =>
        {
            let (indexes, hidden): (Vec<_>, Vec<_>) = indexed.into_iter().unzip();
            let hidden = if opts.include_superseded {
                Vec::new()
            } else {
                hidden
            };
            index::search(
                indexes,
                &hidden,
                window,
                q,
                search_opts,
                opts.limit,
                caches,
                notes,
            )
            .map_err(|why| {
                notes.push(format!(
                    "recall index not used ({}); answered from the day files",
                    why.0
                ));
            })
            .ok()
        }
        _ => None,
    }?;
    let mut skipped = answer.skipped;
    skipped.extend(in_place.skipped.iter().cloned());
    let counts = answer
        .counts
        .into_iter()
        .map(|(workspace, matched, shown)| WorkspaceCount {
            workspace,
            matched,
            shown,
        })
        .collect();
    Some((answer.shown, answer.total, counts, skipped))
}

/// What ranked the answer: the semantic channel too when its query was embedded. Then the
/// vectors this recall embedded are saved.
fn channels(
    query: Option<&Query>,
    mut caches: Option<Caches<'_>>,
    notes: &mut Vec<String>,
) -> Vec<&'static str> {
    let semantic = caches.as_mut().is_some_and(|c| c.ranked(notes));
    let channels = match (query, semantic) {
        (None, _) => Vec::new(),
        (Some(_), true) => vec!["lexical", "semantic"],
        (Some(_), false) => vec!["lexical"],
    };
    if let Some(c) = caches {
        c.save(notes);
    }
    channels
}

/// The active plan of `workspace`: the store's, else a project's read in place. A broken plan
/// file must not hide the checkpoints: it is reported in `skipped` and recall goes on.
fn active_plan(
    store: &Store,
    workspace: &str,
    in_place: &InPlace,
    skipped: &mut Vec<SkippedFile>,
) -> Result<Option<Plan>, Error> {
    match store.active_plan(workspace) {
        Ok(plan) => Ok(plan.or_else(|| in_place.active_plan(workspace))),
        Err(e) if e.is_parse() || e.path().is_some() => {
            skipped.push(SkippedFile {
                path: e
                    .path()
                    .map(std::path::Path::to_path_buf)
                    .unwrap_or_default(),
                line: e.line(),
                message: e.message().to_string(),
            });
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// Gives each hit its supersession links, from its workspace's (`links` in the order of
/// `workspaces`).
fn attach_links(hits: &mut [RecallHit], workspaces: &[String], links: &[Supersession]) {
    if !links.iter().all(Supersession::is_empty) {
        for hit in hits {
            if let Some(i) = workspaces
                .iter()
                .position(|ws| *ws == hit.checkpoint.workspace)
            {
                hit.links = Links::of(&links[i], &hit.checkpoint);
            }
        }
    }
}

/// How many checkpoints each workspace holds per UTC day of the window that `opts` describes
/// (its scope, window, filter and [`include_superseded`](RecallOptions::include_superseded):
/// a superseded checkpoint is not counted unless asked, as recall does not show it; its
/// search and limit are not used), as the activity chart of the web view shows them. Reads
/// one day file at a time: memory does not grow with the window.
pub fn checkpoints_per_day(store: &Store, opts: &RecallOptions) -> Result<DayCounts, Error> {
    let p = prepare(store, opts)?;
    let mut filter = opts.filter.clone();
    if !opts.include_superseded {
        let known = supersession_of(
            store,
            opts.use_index,
            &p.workspaces,
            None,
            // Counting reads every day file of the window anyway: no index is built for it.
            false,
            &mut Vec::new(),
        )?;
        filter.hide_superseded(&p.workspaces, &known.links);
    }
    let (days, skipped) = newest::per_day(store, &p.workspaces, p.window, &p.in_place, &filter)?;
    Ok(DayCounts {
        window: p.window,
        days,
        skipped,
    })
}
