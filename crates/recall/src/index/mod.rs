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

mod format;

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use goldfish_store::{Checkpoint, Store, parse_day_bytes};

use crate::engine::{Hit, SearchOptions};
use crate::explain::Explanation;
use crate::pass::{DocMatch, FIELDS, Pass, TermMatcher};
use crate::query::{Query, Word};
use crate::recall::{SkippedFile, append_typed_text};
use crate::scan::NONE;
use crate::score::average_lengths;
use crate::text::checkpoint_tokens;
use crate::window::TimeWindow;

pub(crate) use format::Corrupt;
use format::{
    Contents, DOCS, DocRec, FILES, FileRec, HEADER_LEN, Header, META, Meta, POSTINGS, ProblemRec,
    VOCAB, Vocab,
};

/// Set to `1` (or any value but `0`), recall reads the day files and never the index.
pub const NO_INDEX_ENV: &str = "GOLDFISH_NO_INDEX";

/// The directory under the store's root that holds the index files.
pub const INDEX_DIR: &str = ".index";

/// A file whose mtime is this close to the build (or later) gets a content hash.
const RACY_NS: i64 = 2_000_000_000;

/// True when `$GOLDFISH_NO_INDEX` asks to bypass the index.
pub(crate) fn disabled_by_env() -> bool {
    std::env::var_os(NO_INDEX_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The index file of `workspace`.
pub(crate) fn index_path(store: &Store, workspace: &str) -> PathBuf {
    store
        .root()
        .join(INDEX_DIR)
        .join(format!("{workspace}.gfi"))
}

/// The directories of a workspace, in the order the store reads them.
pub(crate) fn workspace_dirs(store: &Store, workspace: &str) -> Vec<PathBuf> {
    let home = store.root().join(workspace);
    match store
        .workspaces_elsewhere()
        .find(|(name, _)| *name == workspace)
    {
        Some((_, root)) => vec![root.join(workspace), home],
        None => vec![home],
    }
}

/// What identifies a file's content without reading it: length, mtime (ns), inode.
fn identity(m: &fs::Metadata) -> (u64, i64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (
            m.len(),
            m.mtime()
                .saturating_mul(1_000_000_000)
                .saturating_add(m.mtime_nsec()),
            m.ino(),
        )
    }
    #[cfg(not(unix))]
    {
        let ns = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        (m.len(), ns, 0)
    }
}

fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

fn days(date: NaiveDate) -> i32 {
    use chrono::Datelike;
    date.num_days_from_ce()
}

fn date_of(days: i32) -> Option<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(days)
}

fn day_file_name(date: NaiveDate) -> String {
    format!("{}.md", date.format("%Y-%m-%d"))
}

/// What a name in `checkpoints/` is (the store's rule): a day file's date, a day file's shape
/// without a real date (reported), or something else (ignored).
fn day_file_date(name: &str) -> Result<Option<NaiveDate>, ()> {
    let Some(stem) = name.strip_suffix(".md") else {
        return Ok(None);
    };
    let shaped = stem.len() == 10
        && stem.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
    if !shaped {
        return Ok(None);
    }
    // The shape is checked: three runs of ASCII digits (cheaper than a format string, for
    // every file of every listing).
    let num = |r: std::ops::Range<usize>| -> u32 {
        stem.as_bytes()[r]
            .iter()
            .fold(0, |n, b| n * 10 + u32::from(b - b'0'))
    };
    NaiveDate::from_ymd_opt(num(0..4) as i32, num(5..7), num(8..10))
        .map(Some)
        .ok_or(())
}

const NOT_A_DATE: &str = "not a real date: this day file's checkpoints cannot be placed in time; rename it to the UTC date of its entries (YYYY-MM-DD.md)";

/// The day files of a workspace as listed now, and the listing's problems.
#[derive(Debug, Default)]
struct Listing {
    /// In reading order (directory, then date), without content hashes.
    files: Vec<FileRec>,
    problems: Vec<ProblemRec>,
}

fn list(dirs: &[PathBuf]) -> Listing {
    let mut out = Listing::default();
    for (d, dir) in dirs.iter().enumerate() {
        let dir = dir.join("checkpoints");
        let mut files = Vec::new();
        match fs::read_dir(&dir) {
            Ok(entries) => {
                for entry in entries.flatten() {
                    let Ok(name) = entry.file_name().into_string() else {
                        continue;
                    };
                    match day_file_date(&name) {
                        Ok(Some(date)) => {
                            // Relative to the open directory (cheaper than a path); a
                            // symbolic link is followed, as reading it does. A file that
                            // vanished since the listing is not there.
                            let meta = match entry.metadata() {
                                Ok(m) if m.file_type().is_symlink() => {
                                    fs::metadata(dir.join(&name))
                                }
                                other => other,
                            };
                            if let Ok(m) = meta {
                                let (len, mtime_ns, ino) = identity(&m);
                                files.push(FileRec {
                                    dir: d as u32,
                                    date: days(date),
                                    len,
                                    mtime_ns,
                                    ino,
                                    hash: 0,
                                });
                            }
                        }
                        Ok(None) => {}
                        Err(()) => out.problems.push(ProblemRec {
                            file: u32::MAX,
                            dir: d as u32,
                            line: 0,
                            path: dir.join(&name).to_string_lossy().into_owned(),
                            message: NOT_A_DATE.to_string(),
                        }),
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => out.problems.push(ProblemRec {
                file: u32::MAX,
                dir: d as u32,
                line: 0,
                path: dir.to_string_lossy().into_owned(),
                message: format!("cannot list this checkpoints directory: {e}"),
            }),
        }
        files.sort_by_key(|f| f.date);
        out.files.extend(files);
    }
    // Listing order is the file system's: compare and keep them in one order.
    out.problems
        .sort_by(|a, b| (a.dir, &a.path).cmp(&(b.dir, &b.path)));
    out
}

fn file_path(dirs: &[PathBuf], f: &FileRec) -> Option<PathBuf> {
    let dir = dirs.get(f.dir as usize)?;
    Some(
        dir.join("checkpoints")
            .join(day_file_name(date_of(f.date)?)),
    )
}

/// Builds a workspace's index from its day files.
fn build(workspace: &str, dirs: &[PathBuf], listing: Listing) -> Contents {
    let built_ns = now_ns();
    let mut meta = Meta {
        workspace: workspace.to_string(),
        dirs: dirs
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect(),
        built_ns,
        problems: listing.problems,
        min_ts: (i64::MAX, u32::MAX),
        max_ts: (i64::MIN, 0),
        min_date: i32::MAX,
        max_date: i32::MIN,
        ..Meta::default()
    };
    let mut files = listing.files;
    let mut docs: Vec<DocRec> = Vec::new();
    let mut vocab: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut postings: Vec<Vec<(u32, u8, u32)>> = Vec::new();
    let mut first_of_id: HashMap<String, u32> = HashMap::new();
    let mut buf = Vec::new();
    let mut occ: Vec<(u32, u8)> = Vec::new();
    for (fi, f) in files.iter_mut().enumerate() {
        let (Some(path), Some(date)) = (file_path(dirs, f), date_of(f.date)) else {
            continue;
        };
        let bytes = match read_checked(&path, f) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // Gone since the listing: the next listing differs and rebuilds.
                f.len = u64::MAX;
                continue;
            }
            Err(e) => {
                meta.problems.push(ProblemRec {
                    file: fi as u32,
                    dir: f.dir,
                    line: 0,
                    path: path.to_string_lossy().into_owned(),
                    message: format!("cannot read this day file: {e}"),
                });
                continue;
            }
        };
        if f.mtime_ns >= built_ns.saturating_sub(RACY_NS) {
            f.hash = format::checksum(&bytes) | 1;
        }
        let parsed = parse_day_bytes(&bytes, workspace, date);
        for p in parsed.problems {
            meta.problems.push(ProblemRec {
                file: fi as u32,
                dir: f.dir,
                line: u32::try_from(p.line).unwrap_or(u32::MAX),
                path: path.to_string_lossy().into_owned(),
                message: p.message,
            });
        }
        let mut checkpoints = parsed.checkpoints;
        append_typed_text(&mut checkpoints);
        for (ordinal, cp) in checkpoints.iter().enumerate() {
            let d = docs.len() as u32;
            let group = if dirs.len() > 1 {
                *first_of_id.entry(cp.id.clone()).or_insert(d)
            } else {
                d
            };
            let mut lens = [0u32; FIELDS];
            occ.clear();
            checkpoint_tokens(cp, &mut buf, |field, tok| {
                lens[field] += 1;
                let next = vocab.len() as u32;
                let t = *vocab.entry(tok.to_vec()).or_insert(next);
                if t == next {
                    postings.push(Vec::new());
                }
                occ.push((t, field as u8));
            });
            occ.sort_unstable();
            let mut i = 0;
            while i < occ.len() {
                let mut j = i;
                while j < occ.len() && occ[j] == occ[i] {
                    j += 1;
                }
                let (t, field) = occ[i];
                postings[t as usize].push((d, field, (j - i) as u32));
                i = j;
            }
            let ts = (
                cp.timestamp.timestamp(),
                cp.timestamp.timestamp_subsec_nanos(),
            );
            for (total, len) in meta.totals.iter_mut().zip(lens) {
                *total += u64::from(len);
            }
            meta.min_ts = meta.min_ts.min(ts);
            meta.max_ts = meta.max_ts.max(ts);
            meta.min_date = meta.min_date.min(f.date);
            meta.max_date = meta.max_date.max(f.date);
            docs.push(DocRec {
                secs: ts.0,
                nanos: ts.1,
                file: fi as u32,
                ordinal: ordinal as u32,
                group,
                lens,
            });
        }
    }
    meta.docs = docs.len() as u32;
    // One directory: entries in the order recall reads them (by time, stably — file order
    // breaks ties), so that any window's entries are already in that order.
    if dirs.len() == 1 {
        let mut order: Vec<u32> = (0..docs.len() as u32).collect();
        order.sort_by_key(|&i| (docs[i as usize].secs, docs[i as usize].nanos));
        if order
            .iter()
            .enumerate()
            .any(|(new, &old)| new as u32 != old)
        {
            let mut new_of = vec![0u32; docs.len()];
            for (new, &old) in order.iter().enumerate() {
                new_of[old as usize] = new as u32;
            }
            docs = order
                .iter()
                .enumerate()
                .map(|(new, &old)| DocRec {
                    group: new as u32,
                    ..docs[old as usize]
                })
                .collect();
            for list in &mut postings {
                for p in list.iter_mut() {
                    p.0 = new_of[p.0 as usize];
                }
                list.sort_unstable();
            }
        }
    }
    let mut terms: format::Terms = vocab
        .into_iter()
        .map(|(text, t)| (text, std::mem::take(&mut postings[t as usize])))
        .collect();
    terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Contents {
        meta,
        files,
        docs,
        terms,
    }
}

/// Reads a day file whose listing said `f`; a file that changed while it was read is
/// marked so that the next check rebuilds.
fn read_checked(path: &Path, f: &mut FileRec) -> io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    let before = identity(&file.metadata()?);
    let mut bytes = Vec::with_capacity(usize::try_from(before.0).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    let after = identity(&file.metadata()?);
    (f.len, f.mtime_ns, f.ino) = after;
    if before != after || after.0 != bytes.len() as u64 {
        f.len = u64::MAX;
    }
    Ok(bytes)
}

/// Where an index's bytes are: its file (read by position) or memory (just built, or held
/// by a [`RecallCache`](crate::RecallCache)).
#[derive(Debug, Clone)]
enum Source {
    File(Arc<File>),
    Bytes(Arc<Vec<u8>>),
    /// The file, closed: [`WsIndex::reopen`] opens it again (a recall over thousands of
    /// workspaces, or a long-lived cache, holds no file descriptor per workspace).
    Closed,
}

impl Source {
    fn read(&self, offset: u64, len: u64) -> io::Result<Vec<u8>> {
        let len = usize::try_from(len).map_err(|_| io::Error::other("section too large"))?;
        match self {
            Source::File(f) => {
                let mut buf = vec![0u8; len];
                let mut f: &File = f;
                f.seek(SeekFrom::Start(offset))?;
                f.read_exact(&mut buf)?;
                Ok(buf)
            }
            Source::Closed => Err(io::Error::other("the index file is closed")),
            Source::Bytes(b) => usize::try_from(offset)
                .ok()
                .and_then(|o| b.get(o..o.checked_add(len)?))
                .map(<[u8]>::to_vec)
                .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof)),
        }
    }
}

/// A workspace's index, checked fresh against its day files.
#[derive(Debug, Clone)]
pub(crate) struct WsIndex {
    source: Source,
    header: Header,
    meta: Meta,
    files: Vec<FileRec>,
    dirs: Vec<PathBuf>,
    /// Where it is (or would be) on disk.
    pub(crate) path: PathBuf,
}

impl WsIndex {
    fn section(&self, which: usize) -> Result<Vec<u8>, Corrupt> {
        let s = self.header.sections[which];
        let bytes = self
            .source
            .read(s.offset, s.len)
            .map_err(|e| Corrupt(format!("cannot read section {which}: {e}")))?;
        format::check_section(&bytes, &s, which)?;
        Ok(bytes)
    }

    /// The entries' table, checked whole, decoded one entry at a time.
    fn docs_view(&self) -> Result<DocsView, Corrupt> {
        let bytes = self.section(DOCS)?;
        Ok(DocsView {
            n: bytes.len() / format::DOC_LEN,
            bytes,
            files: self.files.len(),
        })
    }

    fn docs(&self) -> Result<Vec<DocRec>, Corrupt> {
        format::decode_docs(&self.section(DOCS)?, self.files.len(), 0)
    }

    /// Entry `i` alone (a positioned read of its record).
    fn doc(&self, i: u32) -> Result<DocRec, Corrupt> {
        let s = self.header.sections[DOCS];
        let len = format::DOC_LEN as u64;
        let bytes = self
            .source
            .read(s.offset + u64::from(i) * len, len)
            .map_err(|e| Corrupt(format!("cannot read entry {i}: {e}")))?;
        let mut docs = format::decode_docs(&bytes, self.files.len(), i as usize)?;
        docs.pop()
            .ok_or_else(|| Corrupt(format!("entry {i} missing")))
    }

    fn vocab(&self) -> Result<Vocab, Corrupt> {
        Vocab::decode(self.section(VOCAB)?, self.header.sections[POSTINGS].len)
    }

    fn postings(&self, at: &format::PostingsAt) -> Result<Vec<u8>, Corrupt> {
        let base = self.header.sections[POSTINGS].offset;
        self.source
            .read(base + at.offset, u64::from(at.len))
            .map_err(|e| Corrupt(format!("cannot read postings: {e}")))
    }

    /// The same index with its file closed (kept in memory when it is not a file).
    fn close(self) -> WsIndex {
        match self.source {
            Source::File(_) => WsIndex {
                source: Source::Closed,
                ..self
            },
            _ => self,
        }
    }

    /// The same index readable again: a closed file is opened anew and must be the same
    /// index (the same header: lengths and checksums of every section), not one written
    /// since by another process.
    fn reopen(&self) -> Result<WsIndex, Corrupt> {
        if !matches!(self.source, Source::Closed) {
            return Ok(self.clone());
        }
        let replaced = |why: String| Corrupt(format!("{}: {why}", self.path.display()));
        let file =
            File::open(&self.path).map_err(|e| replaced(format!("cannot reopen it: {e}")))?;
        let len = file
            .metadata()
            .map_err(|e| replaced(format!("cannot stat it: {e}")))?
            .len();
        let source = Source::File(Arc::new(file));
        let head = source
            .read(0, (HEADER_LEN as u64).min(len))
            .map_err(|e| replaced(format!("cannot read it: {e}")))?;
        if format::decode_header(&head, len).ok() != Some(self.header) {
            return Err(replaced(
                "replaced by another process during the search".into(),
            ));
        }
        Ok(WsIndex {
            source,
            ..self.clone()
        })
    }

    /// Entries indexed.
    pub(crate) fn entries(&self) -> usize {
        self.meta.docs as usize
    }

    /// Day files indexed.
    pub(crate) fn file_count(&self) -> usize {
        self.files.len()
    }

    /// When it was built.
    pub(crate) fn built(&self) -> Option<DateTime<Utc>> {
        DateTime::from_timestamp_nanos(self.meta.built_ns).into()
    }

    /// Its size in bytes.
    pub(crate) fn size(&self) -> u64 {
        self.header.total
    }
}

/// The entries' table of an index, decoded on demand.
struct DocsView {
    bytes: Vec<u8>,
    n: usize,
    files: usize,
}

impl DocsView {
    fn len(&self) -> usize {
        self.n
    }

    fn get(&self, i: usize) -> Result<DocRec, Corrupt> {
        let at = i * format::DOC_LEN;
        let bytes = self
            .bytes
            .get(at..at + format::DOC_LEN)
            .ok_or_else(|| Corrupt(format!("entry {i} outside the table")))?;
        let mut docs = format::decode_docs(bytes, self.files, i)?;
        docs.pop()
            .ok_or_else(|| Corrupt(format!("entry {i} missing")))
    }
}

/// Opens an index from its bytes' source: header, meta and files (checked).
fn load(source: Source, len: u64, path: PathBuf, dirs: Vec<PathBuf>) -> Result<WsIndex, Corrupt> {
    let head = source
        .read(0, (HEADER_LEN as u64).min(len))
        .map_err(|e| Corrupt(format!("cannot read the header: {e}")))?;
    let header = format::decode_header(&head, len)?;
    let mut ix = WsIndex {
        source,
        header,
        meta: Meta::default(),
        files: Vec::new(),
        dirs,
        path,
    };
    ix.meta = format::decode_meta(&ix.section(META)?)?;
    ix.files = format::decode_files(&ix.section(FILES)?)?;
    if ix.meta.problems.iter().any(|p| {
        p.file != u32::MAX && p.file as usize >= ix.files.len()
            || p.dir as usize >= ix.meta.dirs.len()
    }) {
        return Err(Corrupt("a problem points outside the index".into()));
    }
    Ok(ix)
}

/// True when `ix` checks some file by content (modified within [`RACY_NS`] of the build)
/// whose mtime is now older than that: a rebuild would check it by `stat` alone.
fn settled_racy(ix: &WsIndex) -> bool {
    let settled = now_ns().saturating_sub(RACY_NS);
    ix.files.iter().any(|f| f.hash != 0 && f.mtime_ns < settled)
}

/// What the files say of an index: fresh, or which files differ.
fn stale_files(ix: &WsIndex, listing: &Listing) -> Vec<String> {
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
fn probe_with(path: &Path, dirs: &[PathBuf], listing: &Listing) -> Probe {
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
    let dirs = workspace_dirs(store, workspace);
    let listing = list(&dirs);
    rebuild_with(store, workspace, dirs, listing)
}

fn rebuild_with(
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

fn write(path: &Path, bytes: &[u8]) -> Result<(), goldfish_core::fs::FsError> {
    goldfish_core::fs::write_atomic(path, bytes, &goldfish_core::fs::WriteOptions::default())
}

/// A fresh index for `workspace`: the file's, else rebuilt (and written when it can be).
/// What a person should know goes to `notes`.
pub(crate) fn fresh(
    store: &Store,
    workspace: &str,
    cache: Option<&crate::RecallCache>,
    notes: &mut Vec<String>,
) -> WsIndex {
    let dirs = workspace_dirs(store, workspace);
    let listing = list(&dirs);
    let path = index_path(store, workspace);
    if let Some(cache) = cache
        && let Some(ix) = cache.get(workspace)
        && ix.dirs == dirs
        && stale_files(&ix, &listing).is_empty()
        && !settled_racy(&ix)
    {
        return ix;
    }
    let ix = match probe_with(&path, &dirs, &listing) {
        // Files written just before the build are checked by content, every time: once
        // their mtime is old enough to tell a later write apart, rebuild (once) so that
        // the check is a `stat` again. If the index cannot be written, the one read is
        // still right.
        Probe::Fresh(ix) if settled_racy(&ix) => {
            match rebuild_with(store, workspace, dirs, listing) {
                (rebuilt, None) => rebuilt,
                (_, Some(_)) => ix,
            }
        }
        Probe::Fresh(ix) => ix,
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

/// [`fresh`] for each workspace, in parallel (each is a directory listing, a `stat` per day
/// file, and perhaps a rebuild); in the order given.
fn fresh_all(
    store: &Store,
    workspaces: &[String],
    cache: Option<&crate::RecallCache>,
    notes: &mut Vec<String>,
) -> Vec<WsIndex> {
    let threads = std::thread::available_parallelism()
        .map_or(4, |n| n.get())
        .clamp(1, 8)
        .min(workspaces.len());
    if threads <= 1 {
        return workspaces
            .iter()
            .map(|ws| fresh(store, ws, cache, notes))
            .collect();
    }
    let mut results: Vec<Option<(WsIndex, Vec<String>)>> = Vec::new();
    results.resize_with(workspaces.len(), || None);
    // Each thread takes the next workspace when it is done with one: workspaces differ in
    // size, and a fixed share per thread left one thread waiting for the other.
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let next = &next;
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(ws) = workspaces.get(i) else { break };
                        let mut mine = Vec::new();
                        done.push((i, fresh(store, ws, cache, &mut mine), mine));
                    }
                    done
                })
            })
            .collect();
        for h in handles {
            // A panicking thread is a bug; surface it as a panic here.
            for (i, ix, n) in h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)) {
                results[i] = Some((ix, n));
            }
        }
    });
    results
        .into_iter()
        .flatten()
        .map(|(ix, n)| {
            for text in n {
                note(notes, text);
            }
            ix
        })
        .collect()
}

/// Adds a note once.
fn note(notes: &mut Vec<String>, text: String) {
    if !notes.contains(&text) {
        notes.push(text);
    }
}

/// Why the index cannot answer this call (then recall reads the day files).
#[derive(Debug)]
pub(crate) struct Fallback(pub(crate) String);

impl Fallback {
    /// A part of `ix` found unusable during a search: the file is removed (the next recall
    /// rebuilds it) and this call reads the day files.
    fn unusable(ix: &WsIndex, why: Corrupt) -> Fallback {
        let _ = fs::remove_file(&ix.path);
        Fallback(format!(
            "{} was unusable ({why}); removed it for a rebuild",
            ix.path.display()
        ))
    }
}

/// What a search through the index found: as recall reports it.
#[derive(Debug, Default)]
pub(crate) struct Answer {
    /// The checkpoints shown (at most the limit), best first.
    pub(crate) shown: Vec<Checkpoint>,
    /// Their explanations, when asked for.
    pub(crate) explanations: Vec<Explanation>,
    /// Hits before the limit.
    pub(crate) total: usize,
    /// Per workspace (in the order given): hits and shown.
    pub(crate) counts: Vec<(String, usize, usize)>,
    /// Problems of the day files in the window.
    pub(crate) skipped: Vec<SkippedFile>,
}

/// One workspace's part of a search.
struct Part {
    ix: WsIndex,
    /// Selected entries (local numbers), in the order recall reads them.
    selected: Vec<u32>,
    base: usize,
}

/// Searches `workspaces` within `window` through their indexes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn search(
    store: &Store,
    workspaces: &[String],
    window: TimeWindow,
    query: &Query,
    opts: &SearchOptions,
    limit: usize,
    cache: Option<&crate::RecallCache>,
    notes: &mut Vec<String>,
) -> Result<Answer, Fallback> {
    let words: Vec<Word> = query.words(opts);
    let mut matcher = TermMatcher::new(&words, opts);
    let mut parts: Vec<Part> = Vec::new();
    let mut skipped = Vec::new();
    let mut n = 0usize;
    let mut totals = [0u64; FIELDS];
    let mut df: Vec<u32> = Vec::new();
    let mut docs_out: Vec<DocMatch> = Vec::new();
    let mut occ_out: Vec<(u32, u8)> = Vec::new();
    let from = (
        window.from.timestamp(),
        window.from.timestamp_subsec_nanos(),
    );
    let to = (window.to.timestamp(), window.to.timestamp_subsec_nanos());
    let (first, last) = (days(window.from.date_naive()), days(window.to.date_naive()));
    for ix in fresh_all(store, workspaces, cache, notes) {
        if from > to {
            // An empty window reads nothing, so it has nothing to report.
            continue;
        }
        report_problems(&ix, first, last, &mut skipped);
        if ix.meta.docs == 0 || ix.meta.max_date < first || ix.meta.min_date > last {
            continue;
        }
        let ix = ix.reopen().map_err(|c| Fallback(c.0))?;
        let unusable = |c| Fallback::unusable(&ix, c);
        let docs = ix.docs_view().map_err(unusable)?;
        // One directory and the whole workspace in the window: every entry, in stored
        // order (already recall's), with the stored totals; nothing to read per entry.
        let covered = ix.dirs.len() == 1
            && first <= ix.meta.min_date
            && ix.meta.max_date <= last
            && from <= ix.meta.min_ts
            && ix.meta.max_ts <= to;
        let mut selected: Vec<u32> = Vec::new();
        let mut lens_sum = [0u64; FIELDS];
        if covered {
            selected.extend(0..docs.len() as u32);
            lens_sum = ix.meta.totals;
        } else {
            let mut seen = HashSet::new();
            let mut keys = Vec::new();
            for i in 0..docs.len() {
                let d = docs.get(i).map_err(unusable)?;
                let date = ix.files[d.file as usize].date;
                if date < first || date > last {
                    continue;
                }
                if ix.dirs.len() > 1 && !seen.insert(d.group) {
                    continue;
                }
                let ts = (d.secs, d.nanos);
                if ts >= from && ts <= to {
                    selected.push(i as u32);
                    keys.push(ts);
                    for (total, len) in lens_sum.iter_mut().zip(d.lens) {
                        *total += u64::from(len);
                    }
                }
            }
            // Several directories keep reading order: recall sorts by time, stably.
            if !keys.is_sorted() {
                let mut pairs: Vec<((i64, u32), u32)> = keys.into_iter().zip(selected).collect();
                pairs.sort_by_key(|p| p.0);
                selected = pairs.into_iter().map(|p| p.1).collect();
            }
        }
        if selected.is_empty() {
            continue;
        }
        for (total, t) in totals.iter_mut().zip(lens_sum) {
            *total += t;
        }
        let base = n;
        n += selected.len();
        // Local entry → its place among the selected (none: the identity).
        let pos: Option<Vec<u32>> = (!covered).then(|| {
            let mut pos = vec![NONE; docs.len()];
            for (p, &i) in selected.iter().enumerate() {
                pos[i as usize] = p as u32;
            }
            pos
        });
        let vocab = ix.vocab().map_err(unusable)?;
        let mut occ: Vec<(u32, u32, u8, u32)> = Vec::new();
        for t in 0..vocab.len() {
            let g = matcher.classify(vocab.text(t));
            if g == NONE {
                continue;
            }
            if df.len() <= g as usize {
                df.resize(g as usize + 1, 0);
            }
            let at = vocab.postings(t);
            let bytes = ix.postings(&at).map_err(unusable)?;
            let mut last_doc = NONE;
            let decoded = format::decode_postings(&bytes, &at, docs.len(), |d, f, tf| {
                let p = pos.as_ref().map_or(d, |pos| pos[d as usize]);
                if p != NONE {
                    if last_doc != d {
                        last_doc = d;
                        df[g as usize] += 1;
                    }
                    occ.push((p, g, f, tf));
                }
            });
            decoded.map_err(unusable)?;
        }
        occ.sort_unstable_by_key(|o| o.0);
        let mut i = 0;
        while i < occ.len() {
            let p = occ[i].0;
            while i < occ.len() && occ[i].0 == p {
                let (_, g, f, tf) = occ[i];
                for _ in 0..tf {
                    occ_out.push((g, f));
                }
                i += 1;
            }
            let d = &docs.get(selected[p as usize] as usize).map_err(unusable)?;
            docs_out.push(DocMatch {
                index: base + p as usize,
                timestamp: timestamp(d),
                lens: d.lens,
                end: occ_out.len(),
            });
        }
        parts.push(Part {
            ix: ix.close(),
            selected,
            base,
        });
    }
    let mut answer = Answer {
        skipped,
        ..Answer::default()
    };
    if n == 0 || query.is_empty() {
        return Ok(answer);
    }
    // Terms of the vocabularies that no searched entry holds are not in the searched set:
    // the pass never sees them, and neither does scoring.
    let mut renumber = vec![NONE; df.len()];
    let mut terms = Vec::new();
    for (t, mut term) in matcher.into_terms().into_iter().enumerate() {
        let count = df.get(t).copied().unwrap_or(0);
        if count > 0 {
            term.df = count;
            renumber[t] = terms.len() as u32;
            terms.push(term);
        }
    }
    for o in &mut occ_out {
        o.0 = renumber[o.0 as usize];
    }
    let pass = Pass {
        terms,
        docs: docs_out,
        occurrences: occ_out,
        avg_len: average_lengths(totals, n),
    };
    let hits: Vec<Hit> = pass.score(query, &words, n, opts);
    answer.total = hits.len();
    let part_of = |index: usize| parts.partition_point(|p| p.base <= index) - 1;
    let mut counts = vec![(0usize, 0usize); parts.len()];
    let mut parsed: HashMap<(usize, u32), Vec<Checkpoint>> = HashMap::new();
    let mut opened: HashMap<usize, WsIndex> = HashMap::new();
    for (k, hit) in hits.into_iter().enumerate() {
        let pi = part_of(hit.index);
        counts[pi].0 += 1;
        if k >= limit {
            continue;
        }
        counts[pi].1 += 1;
        let part = &parts[pi];
        // The entries' table was checked whole by this call, through the same open file.
        let open = match opened.entry(pi) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(part.ix.reopen().map_err(|c| Fallback(c.0))?)
            }
        };
        let doc = &open
            .doc(part.selected[hit.index - part.base])
            .map_err(|c| Fallback::unusable(open, c))?;
        let cps = match parsed.entry((pi, doc.file)) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(read_entries(&part.ix, doc.file)?)
            }
        };
        let cp = cps
            .get(doc.ordinal as usize)
            .cloned()
            .ok_or_else(|| Fallback("a day file changed during the search".into()))?;
        answer.shown.push(cp);
        if let Some(e) = hit.explain {
            answer.explanations.push(*e);
        }
    }
    answer.counts = parts
        .iter()
        .zip(counts)
        .filter(|(_, c)| c.0 > 0)
        .map(|(p, c)| (p.ix.meta.workspace.clone(), c.0, c.1))
        .collect();
    Ok(answer)
}

fn timestamp(d: &DocRec) -> DateTime<Utc> {
    DateTime::from_timestamp(d.secs, d.nanos).unwrap_or_default()
}

/// Parses the entries of an indexed day file again, checking it is the file indexed.
fn read_entries(ix: &WsIndex, file: u32) -> Result<Vec<Checkpoint>, Fallback> {
    let changed = || Fallback("a day file changed during the search".into());
    let rec = ix.files.get(file as usize).ok_or_else(changed)?;
    let (path, date) = file_path(&ix.dirs, rec)
        .zip(date_of(rec.date))
        .ok_or_else(changed)?;
    let mut copy = *rec;
    let bytes = read_checked(&path, &mut copy).map_err(|_| changed())?;
    if (copy.len, copy.mtime_ns, copy.ino) != (rec.len, rec.mtime_ns, rec.ino) {
        return Err(changed());
    }
    Ok(parse_day_bytes(&bytes, &ix.meta.workspace, date).checkpoints)
}

/// The problems recall reports for a window of dates, in the store's order: per directory,
/// its listing problems (the whole list then sorted by path), then its files' problems by
/// date.
fn report_problems(ix: &WsIndex, first: i32, last: i32, out: &mut Vec<SkippedFile>) {
    let start = out.len();
    let skipped = |p: &ProblemRec| SkippedFile {
        path: PathBuf::from(&p.path),
        line: (p.line > 0).then_some(p.line as usize),
        message: p.message.clone(),
    };
    for d in 0..ix.dirs.len() as u32 {
        for p in ix
            .meta
            .problems
            .iter()
            .filter(|p| p.file == u32::MAX && p.dir == d)
        {
            out.push(skipped(p));
        }
        out[start..].sort_by(|a, b| a.path.cmp(&b.path));
        for p in ix
            .meta
            .problems
            .iter()
            .filter(|p| p.file != u32::MAX && p.dir == d)
        {
            let date = ix.files[p.file as usize].date;
            if date >= first && date <= last {
                out.push(skipped(p));
            }
        }
    }
}

/// Re-reads every file of `workspace` and compares with its index file: the differences.
pub(crate) fn verify(store: &Store, workspace: &str) -> Result<Vec<String>, String> {
    let dirs = workspace_dirs(store, workspace);
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
        Ok(Contents {
            meta: ix.meta.clone(),
            files: ix.files.clone(),
            docs,
            terms,
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
    Ok(terms.len())
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
    indexes: std::sync::Mutex<HashMap<String, WsIndex>>,
}

impl RecallCache {
    /// An empty cache.
    pub fn new() -> RecallCache {
        RecallCache::default()
    }

    fn get(&self, workspace: &str) -> Option<WsIndex> {
        self.indexes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(workspace)
            .cloned()
    }

    fn put(&self, workspace: &str, ix: WsIndex) -> WsIndex {
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

fn scope_workspaces(
    store: &Store,
    scope: &crate::Scope,
    cwd: Option<&Path>,
) -> Result<Vec<String>, crate::Error> {
    Ok(match scope {
        crate::Scope::All => store.list_workspaces()?,
        crate::Scope::Current => vec![crate::recall::resolve_scope(None, cwd)?],
        crate::Scope::Named(n) => vec![crate::recall::resolve_scope(Some(n), cwd)?],
    })
}

fn summary(
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

fn status_of(store: &Store, workspaces: Vec<WorkspaceIndex>) -> IndexStatus {
    IndexStatus {
        dir: store.root().join(INDEX_DIR),
        entries: workspaces.iter().map(|w| w.entries).sum(),
        bytes: workspaces.iter().map(|w| w.bytes).sum(),
        workspaces,
    }
}

/// The state of the recall index of `scope`'s workspaces (`cwd` resolves
/// [`Scope::Current`](crate::Scope::Current)): per workspace its entries, files, size,
/// build time and what is stale. Reads the index files and lists the day files; writes
/// nothing.
pub fn index_status(
    store: &Store,
    scope: &crate::Scope,
    cwd: Option<&Path>,
) -> Result<IndexStatus, crate::Error> {
    let list = scope_workspaces(store, scope, cwd)?
        .into_iter()
        .map(|ws| {
            let path = index_path(store, &ws);
            let dirs = workspace_dirs(store, &ws);
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
    scope: &crate::Scope,
    cwd: Option<&Path>,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<IndexStatus, crate::Error> {
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
            return Err(crate::Error::file(
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
    scope: &crate::Scope,
    cwd: Option<&Path>,
) -> Result<IndexVerify, crate::Error> {
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
