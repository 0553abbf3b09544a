//! The persistent recall index: a cache of what a search needs, beside the day files, never
//! their substitute.
//!
//! One file per workspace, `{store root}/.index/{workspace}.gfi` (sync ignores `.index/`):
//! a save re-indexes only its own workspace, and a search over one workspace opens one file.
//! Each file records every day file it was built from (directory, date, length, mtime in
//! nanoseconds, inode, and a content hash for a file modified within two seconds of the
//! build, whose mtime alone cannot tell a later same-length edit; once such a file's mtime is
//! older than that, the next search rebuilds the index once so that a `stat` suffices again),
//! the problems found in
//! them, per entry its timestamp, place and field lengths, and the vocabulary (every token
//! of the five fields, tokenized as the search pass does) with postings `(entry, field,
//! count)`. Layout and checks: `format`.
//!
//! A search lists each workspace's day files (one directory listing and a `stat` per file)
//! and compares them with the index: any difference — a file changed, appeared or vanished,
//! another directory — rebuilds that workspace's index from its files before it answers, so
//! an entry saved a moment ago by another process is found. A file that is unreadable,
//! truncated, of another version or fails a checksum is rebuilt too, with a note. The new
//! index is written with the store's atomic replace (temporary file, fsync, rename): readers
//! hold the old file open and see it whole; nothing is locked. When it cannot be written
//! (a read-only store), the search answers from what it just built, with a note.
//!
//! What a search reads: the header, the meta and files sections (change detection), the
//! entries' table and the vocabulary of each workspace the window touches, and the postings
//! of the terms that match — by positioned reads, never the whole file. The checkpoints
//! shown are parsed again from their day files (checked unchanged), so the index holds no
//! copy of any text but the vocabulary.
//!
//! The module's files, one concern each: `listing` (a workspace's day files, through the
//! store's listing and naming rule, with what identifies each one), `build` (an index from
//! the day files), `format` (the bytes on disk and their checks), `access` (reading an index
//! from its file or from memory), `fresh` (an index compared with the day files, rebuilt and
//! written when they differ; [`RecallCache`] for a long-lived process), `search` (a search
//! through the indexes), `supersede` (the supersession facts kept per entry, turned into
//! links by the store's rule) and `admin` (`goldfish index`: status, rebuild, verify).

mod access;
mod admin;
mod build;
pub(crate) mod format;
mod fresh;
mod listing;
mod search;
mod supersede;

use self::{access::*, build::*, fresh::*, listing::*};
pub(crate) use access::WsIndex;
pub use admin::{
    IndexState, IndexStatus, IndexVerify, VectorReport, WorkspaceIndex, WorkspaceVerify,
    embed_vectors, index_rebuild, index_status, index_verify, prune_caches, read_index_bytes,
};
pub use fresh::RecallCache;
pub(crate) use fresh::{current_all, fresh_all};
pub(crate) use search::{Fallback, search};
pub(crate) use supersede::{Indexed, supersession};

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use goldfish_store::{
    Checkpoint, Store, SupersessionFacts, checkpoints_dir, day_file_in, list_day_files,
    parse_day_bytes,
};

use crate::fields::{FIELDS, checkpoint_tokens};
use crate::hit::Hit;
use crate::matches::{DocMatch, Pass};
use crate::pass::TermMatcher;
use crate::prefilter::Word;
use crate::query::Query;
use crate::result::{RecallHit, SkippedFile};
use crate::scan::NONE;
use crate::score::average_lengths;
use crate::search_options::SearchOptions;
use crate::window::TimeWindow;

pub(crate) use format::Corrupt;
use format::{
    Contents, DOCS, DocRec, FILES, FileRec, HEADER_LEN, Header, META, Meta, POSTINGS, ProblemRec,
    SUPERSESSION, SupRec, VOCAB, Vocab,
};

pub use crate::options::NO_INDEX_ENV;
pub use format::INDEX_DIR;

/// A file whose mtime is this close to the build (or later) gets a content hash.
const RACY_NS: i64 = 2_000_000_000;

/// The index file of `workspace`.
pub(crate) fn index_path(store: &Store, workspace: &str) -> PathBuf {
    store
        .root()
        .join(INDEX_DIR)
        .join(format!("{workspace}.gfi"))
}

/// Runs `work` on items `0..count` on a few scoped threads (the processor count, at most 8,
/// at most one per item; on this thread when that is one), each thread taking the next item
/// when it is done with one (items differ in size: a fixed share each left one thread
/// waiting for the other). Each thread has a `state` of its own from `init`, passed to its
/// every `work`. Returns the threads' states, and the results in item order, each with the
/// number of the thread (its place among the states) that made it.
pub(super) fn spread<S: Send, R: Send>(
    count: usize,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) -> R + Sync,
) -> (Vec<S>, Vec<(usize, R)>) {
    let threads = std::thread::available_parallelism()
        .map_or(4, |n| n.get())
        .clamp(1, 8)
        .min(count);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let run = || {
        let mut state = init();
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if i >= count {
                break;
            }
            done.push((i, work(&mut state, i)));
        }
        (state, done)
    };
    let per_thread = if threads <= 1 {
        vec![run()]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(run)).collect();
            handles
                .into_iter()
                // A panicking thread is a bug; surface it as a panic here.
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect::<Vec<_>>()
        })
    };
    let mut states = Vec::with_capacity(per_thread.len());
    let mut results: Vec<Option<(usize, R)>> = Vec::new();
    results.resize_with(count, || None);
    for (thread, (state, done)) in per_thread.into_iter().enumerate() {
        states.push(state);
        for (i, r) in done {
            results[i] = Some((thread, r));
        }
    }
    // Every item was taken by exactly one thread.
    (states, results.into_iter().flatten().collect())
}
