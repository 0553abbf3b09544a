//! Listing a workspace's day files (through the store's listing and naming rule) with what
//! identifies each one's content without reading it.

use super::*;

/// What identifies a file's content without reading it: length, mtime (ns), inode.
pub(super) fn identity(m: &fs::Metadata) -> (u64, i64, u64) {
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

pub(super) fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

pub(super) fn days(date: NaiveDate) -> i32 {
    use chrono::Datelike;
    date.num_days_from_ce()
}

pub(super) fn date_of(days: i32) -> Option<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(days)
}

/// The day files of a workspace as listed now, and the listing's problems.
#[derive(Debug, Default)]
pub(super) struct Listing {
    /// In reading order (directory, then date), without content hashes.
    pub(super) files: Vec<FileRec>,
    pub(super) problems: Vec<ProblemRec>,
}

/// Lists the day files of the workspace directories `dirs` (the store's listing and naming
/// rule), each with what identifies its content.
pub(super) fn list(dirs: &[PathBuf]) -> Listing {
    let mut out = Listing::default();
    for (d, dir) in dirs.iter().enumerate() {
        let mut files = Vec::new();
        let problems = list_day_files(&checkpoints_dir(dir), |f| {
            // A file that vanished since the listing is not there.
            if let Ok(m) = f.metadata() {
                let (len, mtime_ns, ino) = identity(&m);
                files.push(FileRec {
                    dir: d as u32,
                    date: days(f.date),
                    len,
                    mtime_ns,
                    ino,
                    hash: 0,
                });
            }
        });
        out.problems
            .extend(problems.into_iter().map(|p| ProblemRec {
                file: u32::MAX,
                dir: d as u32,
                line: 0,
                path: p.path.to_string_lossy().into_owned(),
                message: p.message,
            }));
        files.sort_by_key(|f| f.date);
        out.files.extend(files);
    }
    out
}

pub(super) fn file_path(dirs: &[PathBuf], f: &FileRec) -> Option<PathBuf> {
    let dir = dirs.get(f.dir as usize)?;
    Some(day_file_in(dir, date_of(f.date)?))
}
