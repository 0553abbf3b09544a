//! Stores at scale: N checkpoints as real day files, made from the evaluation corpus.
//!
//! [`generate`] writes a store of `n` checkpoints (10,000, 100,000, 1,000,000) from the 1,974
//! real checkpoints of the evaluation corpus ([`crate::corpus::NL_CORPUS`]):
//!
//! - Copy `k` of the corpus is moved `k × 3` days back in time, and every entry of it by a
//!   further seeded jitter of up to a day (so the copies fall on different days and times).
//! - Entry `i` of copy `k` goes to workspace `{project}-{s:02}` with
//!   `s = (k × 1974 + i) mod 17`: the six projects × 17 = 102 workspaces, filled evenly at any
//!   `n` (10,000 checkpoints are ~100 per workspace).
//! - Ids have the store's shape (`20251013T093012345Z-00c1f2`: the timestamp, then the copy
//!   and the entry in hex), unique in the whole store.
//! - When `n` is not a multiple of 1,974 the last copy holds a seeded choice of entries.
//!
//! The files are [`goldfish_store::format_day_file`]'s output, exactly what goldfish writes,
//! with its modes (directories 0700, files 0600) and each file's mtime at its last entry's
//! time (a minute ago at the latest), written directly without fsync, one thread
//! per core: 100,000 checkpoints (39 MiB of markdown, 44,857 day files) take 1.3 s and
//! 1,000,000 (381 MiB, 197,465 day files) 9.4 s on two loaded cores. The same `n` and seed
//! give the same bytes.
//!
//! [`cached_store`] keeps generated stores under `target/bench-stores/`, keyed by `n`, seed
//! and [`FORMAT_VERSION`], so that benches generate a store once.
//!
//! Such a store repeats the corpus's texts: 100,000 checkpoints hold 1,974 texts, each in
//! every workspace of its project. [`Texts::Distinct`] makes every checkpoint's text its
//! own (copy `k > 0` ends its description with `(copy k)`), for what costs per distinct
//! text, such as the semantic channel's vectors.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{NaiveDate, TimeDelta};
use goldfish_store::{Checkpoint, format_day_file};

use crate::corpus::{NL_CORPUS, checkpoints};

/// The generator's output format. Bump it when [`generate`] writes different bytes for the
/// same arguments (or goldfish's day file format changes), so cached stores are made again.
pub const FORMAT_VERSION: u32 = 2;

/// The seed [`cached_store`] uses.
pub const DEFAULT_SEED: u64 = 0x601d_f154;

/// How many workspace variants each corpus project is spread over (6 × 17 = 102).
pub const VARIANTS: usize = 17;

/// Days between one copy of the corpus and the next.
const COPY_SHIFT_DAYS: i64 = 3;

/// The newest day a generated store can hold a day file for (any `n`, any seed): the
/// corpus's newest day plus the jitter's one day. A day file of a later date in a generated
/// store was saved into it afterwards (a bench's save).
pub fn newest_generated_day() -> NaiveDate {
    let newest = checkpoints(NL_CORPUS)
        .iter()
        .map(|c| c.timestamp)
        .max()
        .unwrap_or_default();
    (newest + TimeDelta::days(1)).date_naive()
}

/// Whether a generated store repeats the corpus's texts or makes each checkpoint's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Texts {
    /// Every copy of the corpus has its texts as they are.
    #[default]
    Repeated,
    /// Copy `k > 0` ends each description with ` (copy k)`: no two checkpoints share a text.
    Distinct,
}

/// What [`generate`] wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoreStats {
    /// Checkpoints written.
    pub checkpoints: usize,
    /// Workspaces written.
    pub workspaces: usize,
    /// Day files written.
    pub day_files: usize,
    /// Total size of the day files in bytes (the store's markdown).
    pub markdown_bytes: u64,
    /// The seed the store was made with.
    pub seed: u64,
    /// [`FORMAT_VERSION`] at generation time.
    pub format_version: u32,
}

impl StoreStats {
    /// Nothing written yet, for a store made with `seed`.
    fn empty(seed: u64) -> StoreStats {
        StoreStats {
            checkpoints: 0,
            workspaces: 0,
            day_files: 0,
            markdown_bytes: 0,
            seed,
            format_version: FORMAT_VERSION,
        }
    }

    /// Adds what `part` wrote.
    fn add(&mut self, part: &StoreStats) {
        self.checkpoints += part.checkpoints;
        self.workspaces += part.workspaces;
        self.day_files += part.day_files;
        self.markdown_bytes += part.markdown_bytes;
    }
}

/// splitmix64: a tiny, well-mixed, seeded generator (no dependency for a bench fixture).
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (`bound > 0`; the modulo bias is irrelevant here).
    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
}

/// The per-entry jitter of copy `k`, entry `i`, in milliseconds (`0..86_400_000`): a pure
/// function of the seed, so any workspace can be written independently of the others.
fn jitter_ms(seed: u64, k: usize, i: usize) -> i64 {
    let mut rng = Rng(seed ^ ((k as u64) << 32) ^ (i as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
    rng.below(86_400_000) as i64
}

/// Which entries of the last, partial copy are kept: `keep` of `len`, chosen by the seed.
fn partial_choice(seed: u64, len: usize, keep: usize) -> Vec<bool> {
    let mut order: Vec<usize> = (0..len).collect();
    let mut rng = Rng(seed.rotate_left(17) ^ 0x5eed);
    for i in (1..len).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let mut chosen = vec![false; len];
    for &i in &order[..keep.min(len)] {
        chosen[i] = true;
    }
    chosen
}

/// Writes a store of `n` checkpoints under `home` (created if missing; it should be empty)
/// and returns what it wrote. See the module documentation for the layout.
///
/// # Errors
///
/// An I/O error, naming the file or directory it was about.
pub fn generate(home: &Path, n: usize, seed: u64) -> io::Result<StoreStats> {
    generate_with(home, n, seed, Texts::Repeated)
}

/// [`generate`] with the texts of `texts`.
///
/// # Errors
///
/// An I/O error, naming the file or directory it was about.
pub fn generate_with(home: &Path, n: usize, seed: u64, texts: Texts) -> io::Result<StoreStats> {
    let corpus = checkpoints(NL_CORPUS);
    let len = corpus.len();
    let copies = n.div_ceil(len);
    let remainder = n - (copies.saturating_sub(1)) * len;
    let chosen = partial_choice(seed, len, remainder);
    let mut projects: Vec<String> = corpus.iter().map(|c| c.workspace.clone()).collect();
    projects.sort();
    projects.dedup();
    create_dir(home)?;

    // One job per workspace variant `s`: every entry (k, i) with (k·len + i) mod 17 == s.
    let jobs: Vec<usize> = (0..VARIANTS).collect();
    let workers = std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(1)
        .min(VARIANTS);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<io::Result<StoreStats>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut total = StoreStats::empty(seed);
                    loop {
                        let job = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&s) = jobs.get(job) else {
                            return Ok(total);
                        };
                        let part = write_variant(home, &corpus, copies, &chosen, seed, s, texts)?;
                        total.add(&part);
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(io::Error::other("a generator thread panicked")))
            })
            .collect()
    });
    let mut stats = StoreStats::empty(seed);
    for part in results {
        let part = part?;
        stats.add(&part);
    }
    debug_assert_eq!(stats.checkpoints, n);
    Ok(stats)
}

/// Writes the workspaces of variant `s` (one per project).
fn write_variant(
    home: &Path,
    corpus: &[Checkpoint],
    copies: usize,
    chosen: &[bool],
    seed: u64,
    s: usize,
    texts: Texts,
) -> io::Result<StoreStats> {
    let len = corpus.len();
    let mut days: BTreeMap<(String, NaiveDate), Vec<Checkpoint>> = BTreeMap::new();
    for k in 0..copies {
        let last = k + 1 == copies;
        // First i with (k·len + i) ≡ s (mod 17), then every 17th.
        let first = (s + VARIANTS - (k * len) % VARIANTS) % VARIANTS;
        for i in (first..len).step_by(VARIANTS) {
            if last && !chosen[i] {
                continue;
            }
            let base = &corpus[i];
            let timestamp = base.timestamp - TimeDelta::days(COPY_SHIFT_DAYS * k as i64)
                + TimeDelta::milliseconds(jitter_ms(seed, k, i));
            let workspace = format!("{}-{s:02}", base.workspace);
            let id = format!("{}-{k:03x}{i:03x}", timestamp.format("%Y%m%dT%H%M%S%3fZ"));
            let mut c = base.clone();
            c.id = id;
            c.timestamp = timestamp;
            c.workspace = workspace.clone();
            if texts == Texts::Distinct && k > 0 {
                c.description.push_str(&format!(" (copy {k})"));
            }
            days.entry((workspace, timestamp.date_naive()))
                .or_default()
                .push(c);
        }
    }
    let mut stats = StoreStats::empty(seed);
    let mut current: Option<String> = None;
    for ((workspace, date), mut list) in days {
        let dir = home.join(&workspace).join("checkpoints");
        if current.as_deref() != Some(workspace.as_str()) {
            create_dir(&home.join(&workspace))?;
            create_dir(&dir)?;
            stats.workspaces += 1;
            current = Some(workspace);
        }
        list.sort_by(|a, b| a.timestamp.cmp(&b.timestamp).then(a.id.cmp(&b.id)));
        let text = format_day_file(date, &list);
        let path = dir.join(format!("{date}.md"));
        write_file(&path, text.as_bytes())?;
        set_mtime(&path, last_written(&list))?;
        stats.checkpoints += list.len();
        stats.day_files += 1;
        stats.markdown_bytes += text.len() as u64;
    }
    Ok(stats)
}

/// Creates a directory as the store does (0700 on Unix); an existing one is fine.
fn create_dir(path: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    builder
        .create(path)
        .map_err(|e| io::Error::new(e.kind(), format!("create {}: {e}", path.display())))
}

/// When a day file was last written, as if each entry had been saved at its time: the last
/// entry's timestamp, or a minute ago when that is later (a generated store is never
/// "just written", which a recall index would check by content until it settles).
fn last_written(list: &[Checkpoint]) -> std::time::SystemTime {
    let minute_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    list.last()
        .map(|c| std::time::SystemTime::from(c.timestamp))
        .map_or(minute_ago, |t| t.min(minute_ago))
}

/// Sets a file's modification time.
fn set_mtime(path: &Path, when: std::time::SystemTime) -> io::Result<()> {
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(when))
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("set the mtime of {}: {e}", path.display()),
            )
        })
}

/// Writes a file as the store does (0600 on Unix), without fsync.
fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|e| io::Error::new(e.kind(), format!("write {}: {e}", path.display())))
}

/// The directory generated stores are cached in: `$CARGO_TARGET_DIR/bench-stores`, else the
/// workspace's `target/bench-stores`.
pub fn cache_root() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let benches = Path::new(env!("CARGO_MANIFEST_DIR"));
            benches.parent().unwrap_or(benches).join("target")
        });
    target.join("bench-stores")
}

/// A generated store of `n` checkpoints, made once and kept under [`cache_root`]: returns
/// the store's home (for `GOLDFISH_HOME`) and what it holds.
///
/// The store is generated into a temporary directory and renamed into place with its
/// `stats.json`, so an interrupted generation is never taken for a store, and two processes
/// generating at once both end up with one complete store. Benches that save into the store
/// (a save before a recall) remove, when they start, the day files their saves made: those
/// dated after [`newest_generated_day`].
///
/// # Errors
///
/// An I/O error, naming the path.
pub fn cached_store(n: usize, seed: u64) -> io::Result<(PathBuf, StoreStats)> {
    cached_store_with(n, seed, Texts::Repeated)
}

/// [`cached_store`] with the texts of `texts` (a store of distinct texts is kept apart).
///
/// # Errors
///
/// An I/O error, naming the path.
pub fn cached_store_with(n: usize, seed: u64, texts: Texts) -> io::Result<(PathBuf, StoreStats)> {
    let root = cache_root();
    let kind = match texts {
        Texts::Repeated => "",
        Texts::Distinct => "-distinct",
    };
    let dir = root.join(format!("v{FORMAT_VERSION}-n{n}-s{seed:x}{kind}"));
    let stats_path = dir.join("stats.json");
    if let Some(stats) = read_stats(&stats_path) {
        return Ok((dir.join("home"), stats));
    }
    create_dir(&root)?;
    let tmp = root.join(format!(
        ".tmp-v{FORMAT_VERSION}-n{n}-s{seed:x}{kind}-{}",
        std::process::id()
    ));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp)
            .map_err(|e| io::Error::new(e.kind(), format!("remove {}: {e}", tmp.display())))?;
    }
    let stats = generate_with(&tmp.join("home"), n, seed, texts)?;
    let json = serde_json::to_string_pretty(&stats).map_err(io::Error::other)?;
    write_file(&tmp.join("stats.json"), json.as_bytes())?;
    if dir.exists() {
        // A half-made store of an older run without stats.json, or one another process
        // finished meanwhile: keep a complete one, else replace it.
        if let Some(theirs) = read_stats(&stats_path) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Ok((dir.join("home"), theirs));
        }
        std::fs::remove_dir_all(&dir)
            .map_err(|e| io::Error::new(e.kind(), format!("remove {}: {e}", dir.display())))?;
    }
    match std::fs::rename(&tmp, &dir) {
        Ok(()) => Ok((dir.join("home"), stats)),
        Err(e) => match read_stats(&stats_path) {
            Some(theirs) => {
                let _ = std::fs::remove_dir_all(&tmp);
                Ok((dir.join("home"), theirs))
            }
            None => Err(io::Error::new(
                e.kind(),
                format!("rename {} to {}: {e}", tmp.display(), dir.display()),
            )),
        },
    }
}

fn read_stats(path: &Path) -> Option<StoreStats> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use goldfish_store::Store;

    /// The descriptions of every checkpoint of a generated store.
    fn descriptions(home: &Path) -> Vec<String> {
        let store = Store::open(home).expect("open");
        let from = goldfish_core::time::parse_utc("2000-01-01T00:00:00Z").expect("date");
        let to = goldfish_core::time::parse_utc("2100-01-01T00:00:00Z").expect("date");
        let mut all = Vec::new();
        for ws in store.list_workspaces().expect("workspaces") {
            let got = store.checkpoints_between(&ws, from, to).expect("read");
            all.extend(got.checkpoints.into_iter().map(|c| c.description));
        }
        all
    }

    #[test]
    fn distinct_texts_are_each_checkpoints_own() {
        let corpus: std::collections::HashSet<String> = checkpoints(NL_CORPUS)
            .into_iter()
            .map(|c| c.description)
            .collect();
        let n = 2 * 1974;
        for (texts, want) in [
            (Texts::Repeated, corpus.len()),
            (Texts::Distinct, 2 * corpus.len()),
        ] {
            let home = tempfile::tempdir().expect("temp dir");
            generate_with(home.path(), n, 7, texts).expect("generate");
            let all = descriptions(home.path());
            assert_eq!(all.len(), n);
            let distinct: std::collections::HashSet<&String> = all.iter().collect();
            assert_eq!(distinct.len(), want, "{texts:?}");
        }
    }

    #[test]
    fn small_store_reads_back_whole_and_is_deterministic() {
        let a = tempfile::tempdir().expect("temp dir");
        let b = tempfile::tempdir().expect("temp dir");
        let n = 2 * 1974 + 500;
        let stats = generate(a.path(), n, 7).expect("generate");
        assert_eq!(stats.checkpoints, n);
        assert_eq!(stats.workspaces, 6 * VARIANTS);
        generate(b.path(), n, 7).expect("generate again");

        let store = Store::open(a.path()).expect("open");
        let workspaces = store.list_workspaces().expect("workspaces");
        assert_eq!(workspaces.len(), 6 * VARIANTS);
        let mut ids = std::collections::BTreeSet::new();
        let mut bytes = 0;
        for ws in &workspaces {
            let from = goldfish_core::time::parse_utc("2000-01-01T00:00:00Z").expect("date");
            let to = goldfish_core::time::parse_utc("2100-01-01T00:00:00Z").expect("date");
            let got = store.checkpoints_between(ws, from, to).expect("read");
            assert!(got.skipped.is_empty(), "{ws}: {:?}", got.skipped);
            for c in got.checkpoints {
                assert_eq!(&c.workspace, ws);
                assert!(ids.insert(c.id.clone()), "duplicate id {}", c.id);
            }
            for entry in std::fs::read_dir(a.path().join(ws).join("checkpoints")).expect("dir") {
                let path = entry.expect("entry").path();
                let mine = std::fs::read(&path).expect("read");
                let theirs = std::fs::read(
                    b.path()
                        .join(ws)
                        .join("checkpoints")
                        .join(path.file_name().expect("name")),
                )
                .expect("same file in the second store");
                assert_eq!(mine, theirs, "{} differs between runs", path.display());
                bytes += mine.len() as u64;
            }
        }
        assert_eq!(ids.len(), n);
        assert_eq!(bytes, stats.markdown_bytes);
        let newest = newest_generated_day();
        for ws in &workspaces {
            for entry in std::fs::read_dir(a.path().join(ws).join("checkpoints")).expect("dir") {
                let name = entry.expect("entry").file_name();
                let name = name.to_string_lossy();
                let day: NaiveDate = name.trim_end_matches(".md").parse().expect("a day file");
                assert!(day <= newest, "{ws}/{name} is newer than {newest}");
            }
        }
    }
}
