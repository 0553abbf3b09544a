//! Freshness: an index compared with the day files listed now, rebuilt and written when
//! anything differs; and the indexes a long-lived process keeps across recalls.

use super::*;

/// True when `ix` checks some file by content (modified within [`RACY_NS`] of the build)
/// whose mtime is now older than that: a rebuild would check it by `stat` alone.
pub(super) fn settled_racy(ix: &WsIndex) -> bool {
    let settled = now_ns().saturating_sub(RACY_NS);
    ix.files.iter().any(|f| f.hash != 0 && f.mtime_ns < settled)
}

/// What the files say of an index: fresh, or which files differ.
pub(super) fn stale_files(ix: &WsIndex, listing: &Listing) -> Vec<String> {
    let mut out = Vec::new();
    let dirs: Vec<String> = ix
        .dirs
        .iter()
        .map(|d| d.to_string_lossy().into_owned())
        .collect();
    if ix.meta.dirs != dirs {
        out.push("the workspace's directories changed".to_string());
        return out;
    }
    let old: HashMap<(u32, i32), &FileRec> =
        ix.files.iter().map(|f| ((f.dir, f.date), f)).collect();
    let new: HashSet<(u32, i32)> = listing.files.iter().map(|f| (f.dir, f.date)).collect();
    let name = |f: &FileRec| {
        file_path(&ix.dirs, f).map_or_else(|| "?".to_string(), |p| p.display().to_string())
    };
    for f in &listing.files {
        match old.get(&(f.dir, f.date)) {
            None => out.push(format!("{} (new)", name(f))),
            Some(o) if (o.len, o.mtime_ns, o.ino) != (f.len, f.mtime_ns, f.ino) => {
                out.push(format!("{} (changed)", name(f)));
            }
            Some(o) if o.hash != 0 => {
                // Modified within the mtime's resolution of the build: compare the content.
                let same = file_path(&ix.dirs, f)
                    .and_then(|p| fs::read(p).ok())
                    .is_some_and(|b| format::checksum(&b) | 1 == o.hash);
                if !same {
                    out.push(format!("{} (changed)", name(f)));
                }
            }
            Some(_) => {}
        }
    }
    for f in &ix.files {
        if !new.contains(&(f.dir, f.date)) {
            out.push(format!("{} (gone)", name(f)));
        }
    }
    let listed: Vec<&ProblemRec> = ix
        .meta
        .problems
        .iter()
        .filter(|p| p.file == u32::MAX)
        .collect();
    if listed.len() != listing.problems.len()
        || listed.iter().zip(&listing.problems).any(|(a, b)| *a != b)
    {
        out.push("the listing's problems changed".to_string());
    }
    out
}

/// The state of a workspace's index file against its day files.
#[derive(Debug)]
pub(crate) enum Probe {
    /// Fresh: usable as is.
    Fresh(WsIndex),
    /// Readable but out of date: these files differ.
    Stale(WsIndex, Vec<String>),
    /// No index file.
    Missing,
    /// Unusable: why.
    Corrupt(Corrupt),
}

/// Opens `workspace`'s index file and compares it with the day files listed now.
pub(super) fn probe_with(path: &Path, dirs: &[PathBuf], listing: &Listing) -> Probe {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Probe::Missing;
        }
        Err(e) => return Probe::Corrupt(Corrupt(format!("cannot open it: {e}"))),
    };
    let len = match file.metadata() {
        Ok(m) => m.len(),
        Err(e) => return Probe::Corrupt(Corrupt(format!("cannot stat it: {e}"))),
    };
    match load(
        Source::File(Arc::new(file)),
        len,
        path.to_path_buf(),
        dirs.to_vec(),
    ) {
        Ok(ix) => {
            let stale = stale_files(&ix, listing);
            if stale.is_empty() {
                Probe::Fresh(ix)
            } else {
                Probe::Stale(ix, stale)
            }
        }
        Err(c) => Probe::Corrupt(c),
    }
}

/// Builds `workspace`'s index from its files and writes it; returns it (from memory when
/// it could not be written, with the reason).
pub(crate) fn rebuild(store: &Store, workspace: &str) -> (WsIndex, Option<String>) {
    let dirs = store.workspace_dirs(workspace);
    let listing = list(&dirs);
    rebuild_with(store, workspace, dirs, listing)
}

pub(super) fn rebuild_with(
    store: &Store,
    workspace: &str,
    dirs: Vec<PathBuf>,
    listing: Listing,
) -> (WsIndex, Option<String>) {
    let path = index_path(store, workspace);
    let contents = build(workspace, &dirs, listing);
    let bytes = Arc::new(format::encode(&contents));
    let from_memory = |bytes: Arc<Vec<u8>>, path: PathBuf, dirs: Vec<PathBuf>| {
        let len = bytes.len() as u64;
        load(Source::Bytes(bytes), len, path, dirs).expect("an index encoded by this code decodes")
    };
    // A workspace without day files (never used, or emptied) gets no index file: nothing
    // to cache, and a recall must not create a store's directories.
    if contents.files.is_empty() && contents.meta.problems.is_empty() {
        if path.exists() {
            let _ = fs::remove_file(&path);
        }
        return (from_memory(bytes, path, dirs), None);
    }
    match write(&path, &bytes) {
        Ok(()) => {
            // Read back from the file just written, so that a recall building many
            // workspaces holds none of them in memory; if another process replaced it
            // meanwhile with an index of other files, this one is used from memory.
            let reopened = File::open(&path).ok().and_then(|f| {
                let len = f.metadata().ok()?.len();
                load(Source::File(Arc::new(f)), len, path.clone(), dirs.clone()).ok()
            });
            match reopened {
                Some(ix) if ix.files == contents.files && ix.meta == contents.meta => (ix, None),
                _ => (from_memory(bytes, path, dirs), None),
            }
        }
        Err(e) => {
            // The reason names the index directory, not the file: one note for a read-only
            // store, however many workspaces a recall covers.
            let why =
                std::error::Error::source(&e).map_or_else(|| e.to_string(), ToString::to_string);
            let why = format!("{}: {why}", path.parent().unwrap_or(&path).display());
            (from_memory(bytes, path, dirs), Some(why))
        }
    }
}

/// Writes an index file as the store writes its own: private (0600 in a 0700 directory),
/// since it holds the words of every checkpoint.
pub(super) fn write(path: &Path, bytes: &[u8]) -> Result<(), goldfish_core::fs::FsError> {
    goldfish_core::fs::write_atomic(path, bytes, &goldfish_core::fs::WriteOptions::private())
}

/// Why a workspace's index is not current, with what was learnt finding out: its
/// directories, their listing and what its file holds.
struct NotCurrent {
    dirs: Vec<PathBuf>,
    listing: Listing,
    probe: Probe,
}

/// `workspace`'s index when it is current, with no rebuild: kept in `cache` and matching the
/// day files, or a file that matches them and was written long enough after them (then
/// kept in `cache`).
fn current(
    store: &Store,
    workspace: &str,
    cache: Option<&RecallCache>,
) -> Result<WsIndex, Box<NotCurrent>> {
    let dirs = store.workspace_dirs(workspace);
    let listing = list(&dirs);
    if let Some(cache) = cache
        && let Some(ix) = cache.get(workspace)
        && ix.dirs == dirs
        && stale_files(&ix, &listing).is_empty()
        && !settled_racy(&ix)
    {
        return Ok(ix);
    }
    match probe_with(&index_path(store, workspace), &dirs, &listing) {
        Probe::Fresh(ix) if !settled_racy(&ix) => {
            let ix = ix.close();
            Ok(match cache {
                Some(cache) => cache.put(workspace, ix),
                None => ix,
            })
        }
        probe => Err(Box::new(NotCurrent {
            dirs,
            listing,
            probe,
        })),
    }
}

/// A fresh index for `workspace`: the file's, else rebuilt (and written when it can be).
/// What a person should know goes to `notes`.
pub(crate) fn fresh(
    store: &Store,
    workspace: &str,
    cache: Option<&RecallCache>,
    notes: &mut Vec<String>,
) -> WsIndex {
    let NotCurrent {
        dirs,
        listing,
        probe,
    } = match current(store, workspace, cache) {
        Ok(ix) => return ix,
        Err(not) => *not,
    };
    let path = index_path(store, workspace);
    let ix = match probe {
        // Files written just before the build are checked by content, every time: once
        // their mtime is old enough to tell a later write apart, rebuild (once) so that
        // the check is a `stat` again. If the index cannot be written, the one read is
        // still right.
        Probe::Fresh(ix) => match rebuild_with(store, workspace, dirs, listing) {
            (rebuilt, None) => rebuilt,
            (_, Some(_)) => ix,
        },
        Probe::Stale(..) | Probe::Missing => {
            let (ix, unwritten) = rebuild_with(store, workspace, dirs, listing);
            if let Some(why) = unwritten {
                note(
                    notes,
                    format!("recall index not written ({why}); answered from the day files"),
                );
            }
            ix
        }
        Probe::Corrupt(why) => {
            let (ix, unwritten) = rebuild_with(store, workspace, dirs, listing);
            match unwritten {
                None => note(
                    notes,
                    format!(
                        "recall index {} was unusable ({why}); rebuilt it",
                        path.display()
                    ),
                ),
                Some(w) => note(
                    notes,
                    format!(
                        "recall index {} is unusable ({why}) and cannot be rewritten ({w}); answered from the day files",
                        path.display()
                    ),
                ),
            }
            ix
        }
    };
    let ix = ix.close();
    match cache {
        Some(cache) => cache.put(workspace, ix),
        None => ix,
    }
}

/// Each workspace's index when it is current already (kept in `cache`, or a file that
/// matches the day files), with no rebuild: `None` as soon as one would need building. For a
/// long-lived process's recall without a search, which must not hold a whole workspace's
/// index in memory to build it (the process's memory would grow with the store), and for
/// the activity counts, which read every day file of their window anyway.
pub(crate) fn current_all(
    store: &Store,
    workspaces: &[String],
    cache: Option<&RecallCache>,
) -> Option<Vec<WsIndex>> {
    workspaces
        .iter()
        .map(|workspace| current(store, workspace, cache).ok())
        .collect()
}

/// [`fresh`] for each workspace, in parallel (each is a directory listing, a `stat` per day
/// file, and perhaps a rebuild); in the order given.
pub(crate) fn fresh_all(
    store: &Store,
    workspaces: &[String],
    cache: Option<&RecallCache>,
    notes: &mut Vec<String>,
) -> Vec<WsIndex> {
    let (_, done) = spread(
        workspaces.len(),
        || (),
        |(), i| {
            let mut mine = Vec::new();
            (fresh(store, &workspaces[i], cache, &mut mine), mine)
        },
    );
    done.into_iter()
        .map(|(_, (ix, n))| {
            for text in n {
                note(notes, text);
            }
            ix
        })
        .collect()
}

/// Adds a note once.
pub(super) fn note(notes: &mut Vec<String>, text: String) {
    if !notes.contains(&text) {
        notes.push(text);
    }
}

// ----- what a long-lived process holds ---------------------------------------------------

/// The indexes a long-lived process (the MCP server) keeps across recalls: each workspace's
/// index with its header, meta and file table decoded (an index that could not be written:
/// all of it, in memory), refreshed by the same check of the day files as every recall (a
/// listing and a `stat` per file), so it never answers from a stale copy. No file stays
/// open: a search reopens the file and checks it is the same index (its header) before
/// reading the sections it needs, which the page cache keeps. Pass it to
/// [`recall_with`](crate::recall_with). Cheap to create; shareable between threads.
#[derive(Debug, Default)]
pub struct RecallCache {
    pub(super) indexes: std::sync::Mutex<HashMap<String, WsIndex>>,
}

impl RecallCache {
    /// An empty cache.
    pub fn new() -> RecallCache {
        RecallCache::default()
    }

    pub(super) fn get(&self, workspace: &str) -> Option<WsIndex> {
        self.indexes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(workspace)
            .cloned()
    }

    pub(super) fn put(&self, workspace: &str, ix: WsIndex) -> WsIndex {
        self.indexes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(workspace.to_string(), ix.clone());
        ix
    }

    /// Brings `workspace`'s index up to date now, as the next recall would (a listing and a
    /// `stat` per day file, a rebuild when they changed), and keeps it. A long-lived process
    /// calls this when the file system reports a change to a workspace's day files, so the
    /// next recall finds the work done; the recall still checks the files itself, so a late
    /// or missed event costs time, never a stale answer. Returns what a person should know
    /// (as [`RecallResult::notes`](crate::RecallResult::notes)). A name that is not a valid
    /// workspace does nothing.
    pub fn refresh(&self, store: &Store, workspace: &str) -> Vec<String> {
        let mut notes = Vec::new();
        if goldfish_store::validate_workspace(workspace).is_ok_and(|w| w == workspace) {
            fresh(store, workspace, Some(self), &mut notes);
        }
        notes
    }

    /// Workspaces held.
    pub fn len(&self) -> usize {
        self.indexes.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// True when nothing is held yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
