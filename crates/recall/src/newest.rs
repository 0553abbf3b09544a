//! Recall without a search, and the per-day counts of the activity chart: the window's
//! checkpoints read one day file at a time, so that memory holds what is kept (the `limit`
//! newest, or a count per day) and one day file, never the whole window. Over 100,000
//! checkpoints a first timeline page held every one of them (about 150 MB) before this.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use goldfish_store::{Checkpoint, Store};

use crate::error::Error;
use crate::filter::Filter;
use crate::inplace::InPlace;
use crate::result::{SkippedFile, WorkspaceCount};
use crate::window::TimeWindow;

/// Where a checkpoint stands in the order a recall without a search shows: newest first;
/// equal timestamps keep the order of reading, workspace by workspace (each oldest first),
/// the Goldfish 5–8 projects read in place after every workspace of the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    newest: Reverse<DateTime<Utc>>,
    source: usize,
    pos: usize,
}

/// A checkpoint and its place; ordered by the place only.
struct Ranked {
    key: Key,
    checkpoint: Checkpoint,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// What one reading thread hands back.
trait Sink: Send {
    /// One checkpoint of workspace number `ws` (an index into the recalled workspaces).
    fn add(&mut self, ws: usize, key: Key, checkpoint: Checkpoint);
}

/// Reads the checkpoints of `workspaces` within `window` that pass `filter`, store first and
/// then in place, into one sink per thread (workspaces are read in parallel, one day file at
/// a time). Returns the sinks and what could not be read, in workspace order.
// Long: the parallel reading loop; its closures share the threads' sinks.
fn read_into<S: Sink>(
    store: &Store,
    workspaces: &[String],
    window: TimeWindow,
    in_place: &InPlace,
    filter: &Filter,
    make: impl Fn() -> S + Sync,
) -> Result<(Vec<S>, Vec<SkippedFile>), Error> {
    let n = workspaces.len();
    let read_one = |i: usize, sink: &mut S| -> Result<Vec<SkippedFile>, Error> {
        let ws = &workspaces[i];
        let mut skipped = Vec::new();
        let mut pos = 0;
        // The ids of the store's entries, for the in-place ones: a project both imported and
        // read in place counts once.
        let dedup = in_place.has_checkpoints(ws);
        let mut ids: HashSet<String> = HashSet::new();
        store.for_each_day_between(ws, window.from, window.to, |day| {
            skipped.extend(day.skipped.into_iter().map(SkippedFile::from));
            for c in day.checkpoints {
                if dedup {
                    ids.insert(c.id.clone());
                }
                pos += 1;
                if filter.is_empty() || filter.matches(&c) {
                    let key = Key {
                        newest: Reverse(c.timestamp),
                        source: i,
                        pos,
                    };
                    sink.add(i, key, c);
                }
            }
        })?;
        let mut extra = Vec::new();
        in_place.add_checkpoints(ws, window, &mut extra);
        for (pos, c) in extra.into_iter().enumerate() {
            if ids.contains(&c.id) || !(filter.is_empty() || filter.matches(&c)) {
                continue;
            }
            let key = Key {
                newest: Reverse(c.timestamp),
                source: n + i,
                pos,
            };
            sink.add(i, key, c);
        }
        Ok(skipped)
    };

    let threads = if n <= 1 {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(4, |t| t.get())
            .clamp(1, 8)
            .min(n)
    };
    let mut per_ws: Vec<Option<Result<Vec<SkippedFile>, Error>>> = Vec::new();
    per_ws.resize_with(n, || None);
    let mut sinks = Vec::with_capacity(threads);
    if threads == 1 {
        let mut sink = make();
        for (i, slot) in per_ws.iter_mut().enumerate() {
            *slot = Some(read_one(i, &mut sink));
        }
        sinks.push(sink);
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let (read_one, make) = (&read_one, &make);
                    scope.spawn(move || {
                        let mut sink = make();
                        let mine: Vec<(usize, _)> = (t..n)
                            .step_by(threads)
                            .map(|i| (i, read_one(i, &mut sink)))
                            .collect();
                        (sink, mine)
                    })
                })
                .collect();
            for h in handles {
                // A panicking reader thread is a bug in the store; surface it as a panic here.
                let (sink, mine) = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                sinks.push(sink);
                for (i, r) in mine {
                    per_ws[i] = Some(r);
                }
            }
        });
    }
    let mut skipped = Vec::new();
    for r in per_ws.into_iter().flatten() {
        skipped.extend(r?);
    }
    skipped.extend(in_place.skipped.iter().cloned());
    Ok((sinks, skipped))
}

/// The newest checkpoints (newest first), how many passed in all, per-workspace counts and
/// what could not be read.
pub(crate) type NewestAnswer = (
    Vec<Checkpoint>,
    usize,
    Vec<WorkspaceCount>,
    Vec<SkippedFile>,
);

/// UTC day → workspace → checkpoints.
pub(crate) type PerDayCounts = BTreeMap<NaiveDate, BTreeMap<String, usize>>;

/// The `limit` first checkpoints in [`Key`] order, and how many passed per workspace.
struct Newest {
    limit: usize,
    /// A max-heap: its top is the kept checkpoint that goes first when a better one comes.
    kept: std::collections::BinaryHeap<Ranked>,
    matched: Vec<usize>,
}

impl Sink for Newest {
    fn add(&mut self, ws: usize, key: Key, checkpoint: Checkpoint) {
        self.matched[ws] += 1;
        if self.kept.len() < self.limit {
            self.kept.push(Ranked { key, checkpoint });
        } else if self.kept.peek().is_some_and(|worst| key < worst.key) {
            self.kept.pop();
            self.kept.push(Ranked { key, checkpoint });
        }
    }
}

/// The newest `limit` checkpoints of the window that pass the filter (newest first), how
/// many passed in all, the per-workspace counts and what could not be read.
pub(crate) fn newest(
    store: &Store,
    workspaces: &[String],
    window: TimeWindow,
    in_place: &InPlace,
    filter: &Filter,
    limit: usize,
) -> Result<NewestAnswer, Error> {
    let n = workspaces.len();
    let (sinks, skipped) = read_into(store, workspaces, window, in_place, filter, || Newest {
        limit,
        kept: std::collections::BinaryHeap::new(),
        matched: vec![0; n],
    })?;
    let mut matched = vec![0; n];
    let mut kept: Vec<Ranked> = Vec::new();
    for sink in sinks {
        for (m, s) in matched.iter_mut().zip(&sink.matched) {
            *m += s;
        }
        kept.extend(sink.kept);
    }
    kept.sort_unstable();
    kept.truncate(limit);
    let mut shown_per_ws = vec![0; n];
    for r in &kept {
        shown_per_ws[r.key.source % n.max(1)] += 1;
    }
    let counts = workspaces
        .iter()
        .enumerate()
        .filter(|&(i, _)| matched[i] > 0)
        .map(|(i, ws)| WorkspaceCount {
            workspace: ws.clone(),
            matched: matched[i],
            shown: shown_per_ws[i],
        })
        .collect();
    let total = matched.iter().sum();
    Ok((
        kept.into_iter().map(|r| r.checkpoint).collect(),
        total,
        counts,
        skipped,
    ))
}

/// Checkpoints per UTC day and workspace.
struct PerDay {
    counts: BTreeMap<(NaiveDate, usize), usize>,
}

impl Sink for PerDay {
    fn add(&mut self, ws: usize, key: Key, _: Checkpoint) {
        *self
            .counts
            .entry((key.newest.0.date_naive(), ws))
            .or_default() += 1;
    }
}

/// How many checkpoints each workspace has per UTC day of the window (that pass the filter):
/// day → workspace → count, days and workspaces in order, days without any left out.
pub(crate) fn per_day(
    store: &Store,
    workspaces: &[String],
    window: TimeWindow,
    in_place: &InPlace,
    filter: &Filter,
) -> Result<(PerDayCounts, Vec<SkippedFile>), Error> {
    let (sinks, skipped) = read_into(store, workspaces, window, in_place, filter, || PerDay {
        counts: BTreeMap::new(),
    })?;
    let mut days: BTreeMap<NaiveDate, BTreeMap<String, usize>> = BTreeMap::new();
    for sink in sinks {
        for ((day, ws), count) in sink.counts {
            *days
                .entry(day)
                .or_default()
                .entry(workspaces[ws].clone())
                .or_default() += count;
        }
    }
    Ok((days, skipped))
}

/// Every checkpoint read, in reading order.
struct Everything(Vec<(Key, Checkpoint)>);

impl Sink for Everything {
    fn add(&mut self, _: usize, key: Key, checkpoint: Checkpoint) {
        self.0.push((key, checkpoint));
    }
}

/// Every checkpoint of `workspaces` within `window`, workspace by workspace (each oldest
/// first), and what could not be read: the search's input, which needs them all at once.
pub(crate) fn all(
    store: &Store,
    workspaces: &[String],
    window: TimeWindow,
) -> Result<(Vec<Checkpoint>, Vec<SkippedFile>), Error> {
    let (sinks, skipped) = read_into(
        store,
        workspaces,
        window,
        &InPlace::default(),
        &Filter::default(),
        || Everything(Vec::new()),
    )?;
    let mut read: Vec<(Key, Checkpoint)> = sinks.into_iter().flat_map(|s| s.0).collect();
    read.sort_by_key(|(key, _)| (key.source, key.pos));
    Ok((read.into_iter().map(|(_, c)| c).collect(), skipped))
}
