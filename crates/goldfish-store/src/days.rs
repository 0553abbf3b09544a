//! Day files, named and listed in one place: where a workspace keeps them
//! (`{workspace dir}/checkpoints/`), what a day file's name is (`YYYY-MM-DD.md`, the UTC date
//! of its entries), what a name of that shape without a real date is (`2025-02-30.md`: its
//! checkpoints cannot be placed in time, so it is reported on every read instead of vanishing
//! without a word), and which workspace a path under the store's root belongs to. The store
//! reads with these; the recall index and the MCP server's watcher use them too, so no other
//! crate repeats the rule.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use chrono::NaiveDate;

use crate::skipped::Skipped;

/// The directory, inside a workspace's directory, that holds its day files.
pub const CHECKPOINTS_DIR: &str = "checkpoints";

/// What is reported for a file named like a day file whose name is not a real date.
pub const NOT_A_DATE: &str = "not a real date: this day file's checkpoints cannot be placed in time; rename it to the UTC date of its entries (YYYY-MM-DD.md)";

/// What a file name in a `checkpoints/` directory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DayFileName {
    /// `YYYY-MM-DD.md` with a real date.
    Date(NaiveDate),
    /// The `YYYY-MM-DD.md` shape, but no such date (`2025-13-45.md`, `2025-02-30.md`).
    NotADate,
    /// Anything else (lock and temp files, notes a person keeps there): not a day file.
    Other,
}

impl DayFileName {
    /// What `name` (a file name, not a path) is.
    pub fn parse(name: &str) -> DayFileName {
        let Some(stem) = name.strip_suffix(".md") else {
            return DayFileName::Other;
        };
        let shaped = stem.len() == 10
            && stem.bytes().enumerate().all(|(i, b)| match i {
                4 | 7 => b == b'-',
                _ => b.is_ascii_digit(),
            });
        if !shaped {
            return DayFileName::Other;
        }
        // The shape is checked: three runs of ASCII digits (cheaper than a format string,
        // for every file of every listing).
        let num = |r: std::ops::Range<usize>| -> u32 {
            stem.as_bytes()[r]
                .iter()
                .fold(0, |n, b| n * 10 + u32::from(b - b'0'))
        };
        match NaiveDate::from_ymd_opt(num(0..4) as i32, num(5..7), num(8..10)) {
            Some(date) => DayFileName::Date(date),
            None => DayFileName::NotADate,
        }
    }
}

/// The name of the day file of `date`: `YYYY-MM-DD.md`.
pub fn day_file_name(date: NaiveDate) -> String {
    format!("{}.md", date.format("%Y-%m-%d"))
}

/// The directory of day files of the workspace whose directory is `workspace_dir`.
pub fn checkpoints_dir(workspace_dir: &Path) -> PathBuf {
    workspace_dir.join(CHECKPOINTS_DIR)
}

/// The day file of `date` in the workspace whose directory is `workspace_dir` (it may not
/// exist).
pub fn day_file_in(workspace_dir: &Path, date: NaiveDate) -> PathBuf {
    checkpoints_dir(workspace_dir).join(day_file_name(date))
}

/// A day file found by [`list_day_files`].
#[derive(Debug)]
pub struct DayFile<'a> {
    /// The UTC date its name says.
    pub date: NaiveDate,
    entry: &'a fs::DirEntry,
}

impl DayFile<'_> {
    /// Its path.
    pub fn path(&self) -> PathBuf {
        self.entry.path()
    }

    /// Its metadata, a symbolic link followed (as reading it does). Relative to the open
    /// directory, so cheaper than a `stat` of its path. An error when it vanished since the
    /// listing.
    pub fn metadata(&self) -> io::Result<fs::Metadata> {
        match self.entry.metadata() {
            Ok(m) if m.file_type().is_symlink() => fs::metadata(self.entry.path()),
            other => other,
        }
    }
}

/// Lists the day files of `dir` (a workspace's `checkpoints/`, see [`checkpoints_dir`]),
/// calling `visit` with each in the file system's order, and returns the listing's problems
/// sorted by path: files named like a day file without a real date ([`NOT_A_DATE`]) and a
/// directory that cannot be listed. A directory that does not exist holds no day files and
/// is no problem. Names that are not UTF-8, and files that are not day files, are ignored.
pub fn list_day_files(dir: &Path, mut visit: impl FnMut(DayFile<'_>)) -> Vec<Skipped> {
    let mut problems = Vec::new();
    match fs::read_dir(dir) {
        Ok(entries) => {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(name) = name.to_str() else {
                    continue;
                };
                match DayFileName::parse(name) {
                    DayFileName::Date(date) => visit(DayFile {
                        date,
                        entry: &entry,
                    }),
                    DayFileName::Other => {}
                    DayFileName::NotADate => problems.push(Skipped {
                        path: dir.join(name),
                        line: None,
                        message: NOT_A_DATE.to_string(),
                    }),
                }
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => problems.push(Skipped {
            path: dir.to_path_buf(),
            line: None,
            message: format!("cannot list this checkpoints directory: {e}"),
        }),
    }
    problems.sort_by(|a, b| a.path.cmp(&b.path));
    problems
}

/// The workspace whose day files `path` is among, for a store whose root is `root`:
/// `{root}/{workspace}/checkpoints/…` (the directory itself included), the workspace not
/// hidden (`.index/`, `.git/` are not workspaces).
pub fn day_file_workspace(root: &Path, path: &Path) -> Option<String> {
    let mut parts = path.strip_prefix(root).ok()?.components();
    let Some(Component::Normal(ws)) = parts.next() else {
        return None;
    };
    let ws = ws.to_str()?;
    let in_checkpoints =
        matches!(parts.next(), Some(Component::Normal(dir)) if dir == CHECKPOINTS_DIR);
    (in_checkpoints && !ws.starts_with('.')).then(|| ws.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_file_names() {
        let date = |y, m, d| {
            DayFileName::Date(NaiveDate::from_ymd_opt(y, m, d).expect("a real test date"))
        };
        let cases = [
            ("2025-10-13.md", date(2025, 10, 13)),
            ("2024-02-29.md", date(2024, 2, 29)),
            ("0000-01-01.md", date(0, 1, 1)),
            ("2025-13-45.md", DayFileName::NotADate),
            ("2025-02-30.md", DayFileName::NotADate),
            ("2023-02-29.md", DayFileName::NotADate),
            ("2025-00-01.md", DayFileName::NotADate),
            ("2025-1-3.md", DayFileName::Other),
            ("2025-10-13.md.lock", DayFileName::Other),
            (".2025-10-13.md.lock", DayFileName::Other),
            (".2025-10-13.md.123-a-0.tmp", DayFileName::Other),
            ("2025-10-13.md.tmp.1700000000", DayFileName::Other),
            ("+2025-10-1.md", DayFileName::Other),
            ("2025/10/13.md", DayFileName::Other),
            ("notes.md", DayFileName::Other),
        ];
        for (name, want) in cases {
            assert_eq!(DayFileName::parse(name), want, "{name}");
            if let DayFileName::Date(d) = want {
                assert_eq!(day_file_name(d), name);
            }
        }
    }

    #[test]
    fn a_listing_finds_day_files_and_reports_names_without_a_date() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        let cps = checkpoints_dir(dir.path());
        fs::create_dir_all(&cps)?;
        for name in [
            "2025-10-13.md",
            "2025-02-30.md",
            "notes.md",
            "2024-01-02.md",
        ] {
            fs::write(cps.join(name), "x")?;
        }
        let mut found = Vec::new();
        let problems = list_day_files(&cps, |f| {
            let len = f.metadata().map(|m| m.len()).unwrap_or(0);
            found.push((f.date, f.path(), len));
        });
        found.sort();
        let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("a test date");
        assert_eq!(
            found,
            [
                (
                    day("2024-01-02"),
                    day_file_in(dir.path(), day("2024-01-02")),
                    1
                ),
                (
                    day("2025-10-13"),
                    day_file_in(dir.path(), day("2025-10-13")),
                    1
                ),
            ]
        );
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].path, cps.join("2025-02-30.md"));
        assert_eq!(problems[0].message, NOT_A_DATE);
        // A workspace that has no day files yet: nothing, and no problem.
        assert!(list_day_files(&dir.path().join("none"), |_| found.clear()).is_empty());
        assert_eq!(found.len(), 2);
        Ok(())
    }

    #[test]
    fn only_day_file_paths_name_a_workspace() {
        let root = Path::new("/home/me/.goldfish");
        let ws = |p: &str| day_file_workspace(root, Path::new(p));
        assert_eq!(
            ws("/home/me/.goldfish/api/checkpoints/2026-05-01.md").as_deref(),
            Some("api")
        );
        assert_eq!(
            ws("/home/me/.goldfish/api/checkpoints").as_deref(),
            Some("api")
        );
        for other in [
            "/home/me/.goldfish/api/plans/x.md",
            "/home/me/.goldfish/.index/api.gfi",
            "/home/me/.goldfish/.git/checkpoints/x",
            "/home/me/.goldfish/api",
            "/elsewhere/api/checkpoints/2026-05-01.md",
        ] {
            assert_eq!(ws(other), None, "{other}");
        }
    }
}
