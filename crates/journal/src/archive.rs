//! Archiving a finished journal into the self-improving store.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use goldfish_core::fs::{
    FsError, FsOp, Update, WriteOptions, create_dir_all, is_temp_file_name, lock_exclusive,
    read_utf8_opt, update_locked, write_atomic,
};
use goldfish_core::time::format_utc;
use serde::Serialize;

use crate::error::{Error, ErrorKind, Result};
use crate::journal::Journal;
use crate::status::{MutationRecord, Status};

/// What [`Journal::archive`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ArchiveReport {
    /// The archived copy: `{root}/journals/{task}-{date}.md` (new, or an earlier identical one).
    pub journal_copy: PathBuf,
    /// True when this call wrote the copy; false when an identical copy was already there.
    pub copied: bool,
    /// How many mutation declarations were appended to `corrections.md`.
    pub corrections_added: usize,
    /// How many successful mutations were appended to `patterns.jsonl`.
    pub patterns_added: usize,
}

/// One line of `patterns.jsonl`: a mutation that was followed by a success.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct Pattern<'a> {
    id: &'a str,
    ts: String,
    task: &'a str,
    code: &'a str,
    failed_on: &'a str,
    switching_to: &'a str,
    rationale: &'a str,
    outcome: &'static str,
    evidence: &'a str,
}

/// The archive's directory under the store's root. A dot directory: the store lists
/// every other directory as a workspace, and the archive is not one.
pub const ARCHIVE_DIR: &str = ".self-improving";

/// The archive root of the store at `store_root`: `{store_root}/.self-improving`.
pub fn archive_root_in(store_root: &Path) -> PathBuf {
    store_root.join(ARCHIVE_DIR)
}

/// The default archive root read from the process environment:
/// [`archive_root_in`] the store at `$GOLDFISH_HOME`, which defaults to `~/.goldfish`. For a
/// binary; a library passes the store's root to [`archive_root_in`].
pub fn default_archive_root_from_env() -> Result<PathBuf> {
    archive_root_from(
        std::env::var_os(goldfish_core::fs::GOLDFISH_HOME_ENV),
        std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")),
    )
}

fn archive_root_from(goldfish_home: Option<OsString>, home: Option<OsString>) -> Result<PathBuf> {
    goldfish_core::fs::goldfish_home_from(goldfish_home, home)
        .map(|base| archive_root_in(&base))
        .ok_or_else(|| {
            Error::new(
                ErrorKind::NoHome,
                "cannot find the archive root: neither GOLDFISH_HOME nor HOME is set",
            )
        })
}

/// A task name as a file-name stem: `auth/machine-token-flow` → `auth-machine-token-flow`.
fn file_stem(task: &str) -> String {
    let mut out = String::with_capacity(task.len());
    for c in task.chars() {
        let keep = c.is_alphanumeric() || c == '_' || c == '.' || c == '-';
        if keep {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches(['-', '.']).to_string();
    if out.is_empty() {
        "journal".to_string()
    } else {
        out
    }
}

/// A stable id for a mutation: task, session start and its ordinal in the session.
fn mutation_id(task: &str, m: &MutationRecord) -> String {
    let session = m.session_started.map_or_else(
        || "no-session".to_string(),
        |t| t.format("%Y-%m-%dT%H:%MZ").to_string(),
    );
    format!("{task}@{session}#{}", m.ordinal)
}

impl Journal {
    /// Archives the journal on task completion, into `archive_root` (usually
    /// [`archive_root_in`] the store):
    ///
    /// - copies it to `{root}/journals/{task}-{YYYY-MM-DD}.md` (`-2`, `-3`, … when that name
    ///   is taken; an earlier archive is never overwritten);
    /// - appends every mutation declaration to `{root}/corrections.md`;
    /// - appends one JSON line per mutation followed by a success of its new approach to
    ///   `{root}/patterns.jsonl`.
    ///
    /// Idempotent: an identical copy, or a declaration already archived (by its id), is not
    /// written again. The journal itself is never modified. Archive files are private (0600,
    /// directories 0700). A root that cannot be written is an
    /// [`ErrorKind::ArchiveNotWritable`] error.
    pub fn archive(&self, archive_root: &Path) -> Result<ArchiveReport> {
        let text = read_utf8_opt(self.path())?.ok_or_else(|| Error::not_booted(self.path()))?;
        let status = Status::from_text(&text);
        let task = self.task_for(&status);
        let now = self.now();
        let fail = |e: FsError| Error::archive(archive_root, e);
        let private = WriteOptions::private();
        let journals = archive_root.join("journals");
        // One archiver at a time per root, so two cannot pick the same free name.
        let _lock = lock_exclusive(&journals, &private).map_err(fail)?;
        create_dir_all(&journals, private.dir_mode).map_err(fail)?;
        let (journal_copy, copied) =
            copy_journal(&journals, &file_stem(&task), &text, &now, &private).map_err(fail)?;
        let corrections_added = append_corrections(archive_root, &task, &status, &now, &private)
            .map_err(|e| e.into_archive(archive_root))?;
        let patterns_added = append_patterns(archive_root, &task, &status, &now, &private)
            .map_err(|e| e.into_archive(archive_root))?;
        Ok(ArchiveReport {
            journal_copy,
            copied,
            corrections_added,
            patterns_added,
        })
    }
}

/// Copies the journal unless an identical copy of this task is already archived.
fn copy_journal(
    journals: &Path,
    stem: &str,
    text: &str,
    now: &DateTime<Utc>,
    options: &WriteOptions,
) -> Result<(PathBuf, bool), FsError> {
    let entries =
        std::fs::read_dir(journals).map_err(|e| FsError::new(FsOp::ListDir, journals, e))?;
    let prefix = format!("{stem}-");
    let mut earlier: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(&prefix) && name.ends_with(".md") && !is_temp_file_name(&name)
        })
        .map(|e| e.path())
        .collect();
    earlier.sort();
    for path in earlier {
        if read_utf8_opt(&path)?.as_deref() == Some(text) {
            return Ok((path, false));
        }
    }
    let date = now.format("%Y-%m-%d");
    let mut path = journals.join(format!("{stem}-{date}.md"));
    let mut n = 2;
    while path.exists() {
        path = journals.join(format!("{stem}-{date}-{n}.md"));
        n += 1;
    }
    write_atomic(&path, text.as_bytes(), options)?;
    Ok((path, true))
}

/// The marker that identifies an archived declaration in `corrections.md`.
fn id_marker(id: &str) -> String {
    format!("<!-- id: {id} -->")
}

fn append_corrections(
    root: &Path,
    task: &str,
    status: &Status,
    now: &DateTime<Utc>,
    options: &WriteOptions,
) -> Result<usize> {
    if status.mutations.is_empty() {
        return Ok(0);
    }
    update_locked(&root.join("corrections.md"), options, |current| {
        let mut text = current.unwrap_or("").to_string();
        let existing: HashSet<&str> = current
            .unwrap_or("")
            .lines()
            .filter_map(|l| l.trim().strip_prefix("<!-- id: ")?.strip_suffix(" -->"))
            .collect();
        let mut added = 0;
        for m in &status.mutations {
            let id = mutation_id(task, m);
            if existing.contains(id.as_str()) {
                continue;
            }
            if text.is_empty() {
                text.push_str("# Corrections\n\nMutation declarations from archived journals.\n");
            }
            if !text.ends_with('\n') {
                text.push('\n');
            }
            let date = m.session_started.unwrap_or(*now).format("%Y-%m-%d");
            let mutation = &m.mutation;
            let outcome = match &m.outcome {
                Some(t) => format!("worked: {t}"),
                None => "no success recorded".to_string(),
            };
            text.push_str(&format!(
                "\n## {date} — {task} — {}\n{}\n- What went wrong: failed {}x on: {}\n\
                 - New approach: {}\n- Rationale: {}\n- Outcome: {outcome}\n",
                mutation.code,
                id_marker(&id),
                mutation.failed_count.unwrap_or(0),
                mutation.failed_on.as_deref().unwrap_or("(not stated)"),
                mutation.switching_to.as_deref().unwrap_or("(not stated)"),
                mutation.rationale.as_deref().unwrap_or("(not stated)"),
            ));
            added += 1;
        }
        Ok(if added == 0 {
            Update::Keep(0)
        } else {
            Update::Write(text, added)
        })
    })
}

fn append_patterns(
    root: &Path,
    task: &str,
    status: &Status,
    now: &DateTime<Utc>,
    options: &WriteOptions,
) -> Result<usize> {
    if status.mutations.iter().all(|m| m.outcome.is_none()) {
        return Ok(0);
    }
    update_locked(&root.join("patterns.jsonl"), options, |current| {
        let existing: HashSet<String> = current
            .unwrap_or("")
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v.get("id")?.as_str().map(str::to_string))
            .collect();
        let mut text = current.unwrap_or("").to_string();
        let mut added = 0;
        for m in &status.mutations {
            let Some(evidence) = m.outcome.as_deref() else {
                continue;
            };
            let id = mutation_id(task, m);
            if existing.contains(&id) {
                continue;
            }
            let mutation = &m.mutation;
            let pattern = Pattern {
                id: &id,
                ts: format_utc(&m.session_started.unwrap_or(*now)),
                task,
                code: mutation.code.code(),
                failed_on: mutation.failed_on.as_deref().unwrap_or(""),
                switching_to: mutation.switching_to.as_deref().unwrap_or(""),
                rationale: mutation.rationale.as_deref().unwrap_or(""),
                outcome: "success",
                evidence,
            };
            let line = serde_json::to_string(&pattern).map_err(|e| {
                Error::invalid(format!("cannot encode the pattern {id:?} as JSON: {e}"))
            })?;
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&line);
            text.push('\n');
            added += 1;
        }
        Ok(if added == 0 {
            Update::Keep(0)
        } else {
            Update::Write(text, added)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_root_resolution() {
        let cases: [(Option<&str>, Option<&str>, Option<&str>); 5] = [
            (Some("/g"), Some("/h"), Some("/g/.self-improving")),
            (None, Some("/h"), Some("/h/.goldfish/.self-improving")),
            (Some(""), Some("/h"), Some("/h/.goldfish/.self-improving")),
            (None, None, None),
            (Some(""), Some(""), None),
        ];
        for (gh, home, want) in cases {
            let got = archive_root_from(gh.map(OsString::from), home.map(OsString::from));
            match want {
                Some(w) => assert_eq!(got.unwrap(), PathBuf::from(w)),
                None => assert_eq!(got.unwrap_err().kind(), ErrorKind::NoHome),
            }
        }
    }

    #[test]
    fn file_stems() {
        let cases = [
            ("auth/machine-token-flow", "auth-machine-token-flow"),
            ("../../etc/passwd", "etc-passwd"),
            ("a  b", "a-b"),
            ("", "journal"),
            ("..", "journal"),
            ("fix_42.v2", "fix_42.v2"),
        ];
        for (task, want) in cases {
            assert_eq!(file_stem(task), want, "{task:?}");
        }
    }
}
