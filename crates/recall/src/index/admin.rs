//! `goldfish index`: status, rebuild and verification of the index files, and reading
//! arbitrary bytes as an index (the fuzz target).

use super::*;

/// Re-reads every file of `workspace` and compares with its index file: the differences.
pub(crate) fn verify(store: &Store, workspace: &str) -> Result<Vec<String>, String> {
    let dirs = store.workspace_dirs(workspace);
    let listing = list(&dirs);
    let path = index_path(store, workspace);
    let ix = match probe_with(&path, &dirs, &listing) {
        Probe::Fresh(ix) => ix,
        Probe::Stale(_, files) => {
            return Ok(files.into_iter().map(|f| format!("stale: {f}")).collect());
        }
        // Nothing to index, nothing kept: the index agrees.
        Probe::Missing if listing.files.is_empty() && listing.problems.is_empty() => {
            return Ok(Vec::new());
        }
        Probe::Missing => {
            return Err(format!(
                "{}: no index yet (the next search builds it)",
                path.display()
            ));
        }
        Probe::Corrupt(c) => return Ok(vec![format!("unusable: {c}")]),
    };
    let built = build(workspace, &dirs, listing);
    let mut diffs = Vec::new();
    let decoded = (|| -> Result<Contents, Corrupt> {
        let docs = ix.docs()?;
        let vocab = ix.vocab()?;
        let postings = ix.section(POSTINGS)?;
        let terms = format::decode_terms(&vocab, &postings, docs.len())?;
        let supersession = ix.supersession_records()?;
        Ok(Contents {
            meta: ix.meta.clone(),
            files: ix.files.clone(),
            docs,
            terms,
            supersession,
        })
    })();
    let decoded = match decoded {
        Ok(c) => c,
        Err(c) => return Ok(vec![format!("unusable: {c}")]),
    };
    let strip = |m: &Meta| Meta {
        built_ns: 0,
        ..m.clone()
    };
    if strip(&decoded.meta) != strip(&built.meta) {
        diffs.push("entries' totals, dates or problems differ".to_string());
    }
    let key = |f: &FileRec| (f.dir, f.date, f.len, f.mtime_ns, f.ino);
    if decoded
        .files
        .iter()
        .map(key)
        .ne(built.files.iter().map(key))
    {
        diffs.push("the day files differ".to_string());
    }
    if decoded.docs != built.docs {
        diffs.push(format!(
            "entries differ ({} indexed, {} in the files)",
            decoded.docs.len(),
            built.docs.len()
        ));
    }
    if decoded.terms != built.terms {
        diffs.push(format!(
            "vocabulary or postings differ ({} terms indexed, {} in the files)",
            decoded.terms.len(),
            built.terms.len()
        ));
    }
    if decoded.supersession != built.supersession {
        diffs.push(format!(
            "supersession facts differ ({} indexed, {} in the files)",
            decoded.supersession.len(),
            built.supersession.len()
        ));
    }
    Ok(diffs)
}

/// Reads arbitrary bytes as an index file, as a search would (for the fuzz target): never
/// panics.
#[doc(hidden)]
pub fn read_index_bytes(bytes: &[u8]) -> Result<usize, String> {
    let src = Source::Bytes(Arc::new(bytes.to_vec()));
    let ix = load(src, bytes.len() as u64, PathBuf::new(), Vec::new()).map_err(|c| c.0)?;
    let docs = ix.docs().map_err(|c| c.0)?;
    let vocab = ix.vocab().map_err(|c| c.0)?;
    let postings = ix.section(POSTINGS).map_err(|c| c.0)?;
    let terms = format::decode_terms(&vocab, &postings, docs.len()).map_err(|c| c.0)?;
    ix.supersession_records().map_err(|c| c.0)?;
    Ok(terms.len())
}

// ----- `goldfish index` -----------------------------------------------------------------

/// How a workspace's index file stands against its day files.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "state")]
#[non_exhaustive]
pub enum IndexState {
    /// Up to date: a search uses it as is.
    Fresh,
    /// Out of date (the next search rebuilds it): the day files that differ.
    Stale {
        /// Each day file that differs, with `(new)`, `(changed)` or `(gone)`.
        changed: Vec<String>,
    },
    /// No index file yet (the next search builds it).
    Missing,
    /// The workspace has no day files: nothing to index, and no index file is kept.
    Empty,
    /// Unreadable, truncated, of another format version or failing a checksum (the next
    /// search rebuilds it, with a note).
    Unusable {
        /// What is wrong with it.
        reason: String,
    },
}

/// One workspace's index.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct WorkspaceIndex {
    /// The workspace.
    pub workspace: String,
    /// Its index file.
    pub path: PathBuf,
    /// How it stands.
    #[serde(flatten)]
    pub state: IndexState,
    /// Checkpoints indexed (0 when missing or unusable).
    pub entries: usize,
    /// Day files indexed.
    pub files: usize,
    /// Size of the index file in bytes.
    pub bytes: u64,
    /// When it was built.
    pub built: Option<DateTime<Utc>>,
}

/// What [`index_status`] and [`index_rebuild`] report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct IndexStatus {
    /// Where the index files are.
    pub dir: PathBuf,
    /// Per workspace, in name order.
    pub workspaces: Vec<WorkspaceIndex>,
    /// Checkpoints indexed in all.
    pub entries: usize,
    /// Bytes on disk in all.
    pub bytes: u64,
}

/// One workspace's verification.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct WorkspaceVerify {
    /// The workspace.
    pub workspace: String,
    /// Its index file.
    pub path: PathBuf,
    /// True when the index agrees with its day files in every entry, term and posting.
    pub ok: bool,
    /// What disagrees (empty when `ok`).
    pub differences: Vec<String>,
}

/// What [`index_verify`] found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct IndexVerify {
    /// True when every index agreed with its files.
    pub ok: bool,
    /// Per workspace, in name order.
    pub workspaces: Vec<WorkspaceVerify>,
}

pub(super) fn scope_workspaces(
    store: &Store,
    scope: &crate::options::Scope,
    cwd: Option<&Path>,
) -> Result<Vec<String>, crate::error::Error> {
    Ok(match scope {
        crate::options::Scope::All => store.list_workspaces()?,
        crate::options::Scope::Current => vec![crate::prepare::resolve_scope(None, cwd)?],
        crate::options::Scope::Named(n) => vec![crate::prepare::resolve_scope(Some(n), cwd)?],
    })
}

pub(super) fn summary(
    workspace: &str,
    path: PathBuf,
    state: IndexState,
    ix: Option<&WsIndex>,
) -> WorkspaceIndex {
    WorkspaceIndex {
        workspace: workspace.to_string(),
        path,
        state,
        entries: ix.map_or(0, WsIndex::entries),
        files: ix.map_or(0, WsIndex::file_count),
        bytes: ix.map_or(0, WsIndex::size),
        built: ix.and_then(WsIndex::built),
    }
}

pub(super) fn status_of(store: &Store, workspaces: Vec<WorkspaceIndex>) -> IndexStatus {
    IndexStatus {
        dir: store.root().join(INDEX_DIR),
        entries: workspaces.iter().map(|w| w.entries).sum(),
        bytes: workspaces.iter().map(|w| w.bytes).sum(),
        workspaces,
    }
}

/// The state of the recall index of `scope`'s workspaces (`cwd` resolves
/// [`Scope::Current`](crate::options::Scope::Current)): per workspace its entries, files, size,
/// build time and what is stale. Reads the index files and lists the day files; writes
/// nothing.
pub fn index_status(
    store: &Store,
    scope: &crate::options::Scope,
    cwd: Option<&Path>,
) -> Result<IndexStatus, crate::error::Error> {
    let list = scope_workspaces(store, scope, cwd)?
        .into_iter()
        .map(|ws| {
            let path = index_path(store, &ws);
            let dirs = store.workspace_dirs(&ws);
            let listing = list(&dirs);
            match probe_with(&path, &dirs, &listing) {
                Probe::Fresh(ix) => summary(&ws, path, IndexState::Fresh, Some(&ix)),
                Probe::Stale(ix, changed) => {
                    summary(&ws, path, IndexState::Stale { changed }, Some(&ix))
                }
                Probe::Missing if listing.files.is_empty() && listing.problems.is_empty() => {
                    summary(&ws, path, IndexState::Empty, None)
                }
                Probe::Missing => summary(&ws, path, IndexState::Missing, None),
                Probe::Corrupt(c) => summary(&ws, path, IndexState::Unusable { reason: c.0 }, None),
            }
        })
        .collect();
    Ok(status_of(store, list))
}

/// Rebuilds the recall index of `scope`'s workspaces from their day files (several at a
/// time), calling `progress(done, total, workspace)` as each one is written and
/// `progress(total, total, "")` at the end. Errors:
/// the scope cannot be resolved, or an index file cannot be written (named).
pub fn index_rebuild(
    store: &Store,
    scope: &crate::options::Scope,
    cwd: Option<&Path>,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<IndexStatus, crate::error::Error> {
    let workspaces = scope_workspaces(store, scope, cwd)?;
    let total = workspaces.len();
    // Workspaces are built in parallel; progress is reported here, as each one finishes.
    let threads = std::thread::available_parallelism()
        .map_or(4, |n| n.get())
        .clamp(1, 8)
        .min(total.max(1));
    let mut built: Vec<Option<(WsIndex, Option<String>)>> = Vec::new();
    built.resize_with(total, || None);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (tx, next, workspaces) = (tx.clone(), &next, &workspaces);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(ws) = workspaces.get(i) else { break };
                    let (ix, unwritten) = rebuild(store, ws);
                    if tx.send((i, (ix.close(), unwritten))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (done, (i, result)) in rx.iter().enumerate() {
            progress(done, total, &workspaces[i]);
            built[i] = Some(result);
        }
    });
    let mut list = Vec::with_capacity(total);
    for (ws, result) in workspaces.iter().zip(built) {
        let Some((ix, unwritten)) = result else {
            continue;
        };
        if let Some(why) = unwritten {
            return Err(crate::error::Error::file(
                &ix.path,
                format!("cannot write the recall index: {why}"),
            ));
        }
        // A workspace without day files is given no file (see `rebuild_with`).
        list.push(if ix.file_count() == 0 && !ix.path.exists() {
            summary(ws, ix.path.clone(), IndexState::Empty, None)
        } else {
            summary(ws, ix.path.clone(), IndexState::Fresh, Some(&ix))
        });
    }
    progress(total, total, "");
    Ok(status_of(store, list))
}

/// Re-reads every day file of `scope`'s workspaces and compares with their index files:
/// [`IndexVerify::ok`] is false when any index disagrees (stale, unusable, missing while the
/// workspace has day files, or an entry, term or posting differs). Writes nothing.
pub fn index_verify(
    store: &Store,
    scope: &crate::options::Scope,
    cwd: Option<&Path>,
) -> Result<IndexVerify, crate::error::Error> {
    let workspaces: Vec<WorkspaceVerify> = scope_workspaces(store, scope, cwd)?
        .into_iter()
        .map(|ws| {
            let differences = match verify(store, &ws) {
                Ok(d) => d,
                Err(missing) => vec![missing],
            };
            WorkspaceVerify {
                path: index_path(store, &ws),
                workspace: ws,
                ok: differences.is_empty(),
                differences,
            }
        })
        .collect();
    Ok(IndexVerify {
        ok: workspaces.iter().all(|w| w.ok),
        workspaces,
    })
}

/// What [`embed_vectors`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct VectorReport {
    /// Workspaces whose entries were looked at.
    pub workspaces: usize,
    /// Entries (distinct texts) that got a vector now.
    pub embedded: usize,
    /// Entries that got the vector of the same text from another workspace (a text in
    /// several workspaces is embedded once).
    pub shared: usize,
    /// Entries that already had one and kept it.
    pub kept: usize,
    /// Vectors of texts no entry has any more, removed.
    pub removed: usize,
    /// Entries that could not be read (their day file changed meanwhile, or is corrupt).
    pub unreadable: usize,
}

/// Gives every entry of `scope`'s workspaces a vector in the semantic channel's cache
/// (`.index/{workspace}.gfv`), embedding only the entries without one (in batches), and
/// removes vectors no entry uses any more. A text found in several workspaces is embedded
/// once: the others are given a copy of its vector. `progress(done, total)` counts entries
/// embedded over all workspaces. Errors: the scope cannot be resolved, the model fails, or a
/// vector file cannot be written (named).
// Long: read, share across workspaces, embed in batches, write: one sequence over one state.
pub fn embed_vectors(
    store: &Store,
    scope: &crate::options::Scope,
    cwd: Option<&Path>,
    channel: &crate::semantic::SemanticChannel,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<VectorReport, crate::error::Error> {
    use crate::semantic::{embedding_text, read_vectors, write_vectors};
    let workspaces = scope_workspaces(store, scope, cwd)?;
    let embedder = channel.embedder.as_ref();
    let mut report = VectorReport {
        workspaces: workspaces.len(),
        ..VectorReport::default()
    };
    // Every workspace's vectors first: a text with a vector in any of them is copied, not
    // embedded. Then what each workspace is missing (so that progress has a total, and a
    // text is embedded for one workspace only), then the embedding.
    let mut files: Vec<_> = workspaces
        .iter()
        .map(|ws| read_vectors(store.root(), ws, embedder))
        .collect();
    let mut available: HashSet<u64> = files.iter().flat_map(|v| v.keys()).collect();
    let mut work = Vec::new();
    let mut wanted: HashSet<u64> = HashSet::new();
    for (ws, vectors) in workspaces.iter().zip(files.drain(..)) {
        let mut notes = Vec::new();
        let ix = fresh(store, ws, None, &mut notes);
        let docs = ix
            .reopen()
            .and_then(|open| open.docs())
            .map_err(|c| crate::error::Error::file(&ix.path, c.0))?;
        let mut by_file: HashMap<u32, Vec<(u32, u64)>> = HashMap::new();
        let mut seen = HashSet::new();
        let mut copies = Vec::new();
        for d in &docs {
            if !seen.insert(d.text) {
                continue;
            }
            if vectors.contains(d.text) {
                report.kept += 1;
            } else if available.contains(&d.text) {
                copies.push(d.text);
                wanted.insert(d.text);
            } else {
                by_file.entry(d.file).or_default().push((d.ordinal, d.text));
            }
        }
        let mut texts: Vec<(u64, String)> = Vec::new();
        let mut files: Vec<_> = by_file.into_iter().collect();
        files.sort_unstable_by_key(|f| f.0);
        for (file, wanted) in files {
            match super::search::read_entries(&ix, file) {
                Ok(cps) => {
                    for (ordinal, key) in wanted {
                        match cps.get(ordinal as usize) {
                            Some(cp) => texts.push((key, embedding_text(cp))),
                            None => report.unreadable += 1,
                        }
                    }
                }
                Err(_) => report.unreadable += wanted.len(),
            }
        }
        available.extend(texts.iter().map(|t| t.0));
        work.push((ws.clone(), seen, vectors, texts, copies));
    }
    // The vectors other workspaces copy: from the files read, then from each workspace's
    // batches as they are embedded (a copy is always of a workspace before it, or of a file).
    let mut shared: HashMap<u64, (f32, Vec<u8>)> = HashMap::new();
    for (_, _, vectors, _, _) in &work {
        for &key in &wanted {
            if let Some((scale, v)) = vectors.get(key) {
                shared.entry(key).or_insert_with(|| (scale, v.to_vec()));
            }
        }
    }
    let total: usize = work.iter().map(|w| w.3.len()).sum();
    let mut done = 0;
    progress(0, total);
    const BATCH: usize = 16;
    // Batches are embedded by one thread per core (the model runs each on one), and their
    // vectors gathered here, in order, as they come.
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8);
    for (ws, keys, mut vectors, texts, copies) in work {
        let before = vectors.len();
        vectors.retain(|k| keys.contains(&k));
        report.removed += before - vectors.len();
        // Texts of like length side by side: a batch is padded to its longest text.
        let mut texts = texts;
        texts.sort_by_key(|t| t.1.len());
        let batches: Vec<&[(u64, String)]> = texts.chunks(BATCH).collect();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let (tx, rx) = std::sync::mpsc::channel();
        let mut failure = None;
        std::thread::scope(|scope| {
            for _ in 0..threads.min(batches.len()) {
                let (tx, next, batches) = (tx.clone(), &next, &batches);
                scope.spawn(move || {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(batch) = batches.get(i) else { break };
                        let refs: Vec<&str> = batch.iter().map(|(_, t)| t.as_str()).collect();
                        let out = embedder.embed_documents(&refs);
                        let failed = out.is_err();
                        if tx.send((i, out)).is_err() || failed {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            for (i, out) in rx {
                match out {
                    Ok(out) => {
                        let batch = batches[i];
                        vectors.insert(batch.iter().map(|(k, _)| *k).zip(out).collect());
                        done += batch.len();
                        report.embedded += batch.len();
                        progress(done, total);
                    }
                    Err(e) => {
                        // The other threads stop at their next batch.
                        next.store(batches.len(), std::sync::atomic::Ordering::Relaxed);
                        failure.get_or_insert(e);
                    }
                }
            }
        });
        if let Some(e) = failure {
            // What was embedded before the failure is kept.
            if vectors.dirty {
                let _ = write_vectors(store.root(), &ws, &vectors, embedder.id());
            }
            return Err(crate::error::Error::file(
                &crate::semantic::vectors_path(store.root(), &ws),
                format!("the model could not embed entries of {ws}: {e}"),
            ));
        }
        let copied: Vec<(u64, f32, Vec<u8>)> = copies
            .iter()
            .filter_map(|key| shared.get(key).map(|(scale, v)| (*key, *scale, v.clone())))
            .collect();
        // A text whose only other workspace failed to be read has no vector yet: it is
        // embedded by the next rebuild or recall.
        report.unreadable += copies.len() - copied.len();
        report.shared += copied.len();
        vectors.insert_quantized(copied);
        for key in texts.iter().map(|t| t.0).filter(|k| wanted.contains(k)) {
            if let Some((scale, v)) = vectors.get(key) {
                shared.entry(key).or_insert_with(|| (scale, v.to_vec()));
            }
        }
        if vectors.dirty {
            write_vectors(store.root(), &ws, &vectors, embedder.id()).map_err(|e| {
                crate::error::Error::file(
                    &crate::semantic::vectors_path(store.root(), &ws),
                    format!("cannot write the vectors: {e}"),
                )
            })?;
        }
    }
    Ok(report)
}

/// Brings `workspace`'s caches in line with its files after memories were taken out of them
/// (forgotten, or removed by a sync that applied a tombstone): its index is rebuilt from the
/// day files (so no term of the removed text stays in it), and its vector file keeps only
/// the vectors of texts an entry still has. Loads no model. Returns how many vectors went.
/// Errors: the index cannot be written, or the vector file cannot be read or written (named).
pub fn prune_caches(store: &Store, workspace: &str) -> Result<usize, crate::error::Error> {
    let (ix, unwritten) = rebuild(store, workspace);
    if let Some(why) = unwritten {
        return Err(crate::error::Error::file(
            &ix.path,
            format!("cannot write the recall index: {why}"),
        ));
    }
    let keys: HashSet<u64> = match ix.reopen().and_then(|open| open.docs()) {
        Ok(docs) => docs.iter().map(|d| d.text).collect(),
        // A workspace with no day file left has no index file: no vector is used.
        Err(_) if ix.file_count() == 0 => HashSet::new(),
        Err(c) => return Err(crate::error::Error::file(&ix.path, c.0)),
    };
    crate::semantic::retain_keys(store.root(), workspace, |k| keys.contains(&k))
        .map_err(|e| crate::error::Error::file(e.path(), e.to_string()))
}
