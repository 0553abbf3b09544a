//! Today's redaction over the files already stored: for a user who turned a kind back on,
//! found a leak, or wrapped text in `<private>` tags by hand ([`Store::redact_stored`]).

use std::fs;
use std::path::{Path, PathBuf};

use goldfish_core::fs::{
    Update, WriteOptions, is_lock_file_name, is_temp_file_name, read_utf8_opt, update_locked,
};
use goldfish_redact::{Kind, Redactor};
use serde::Serialize;

use super::Store;
use crate::dayfile::parse_day_file;
use crate::days::{DayFileName, checkpoints_dir, list_day_files};
use crate::error::Error;
use crate::plan::parse_plan;

/// What a stored file is: it says how the file is checked after redaction and which
/// permissions a rewrite keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum StoredFileKind {
    /// A day file of checkpoints (`{workspace}/checkpoints/YYYY-MM-DD.md`).
    DayFile,
    /// A plan (`{workspace}/plans/{id}.md`).
    Plan,
    /// A worktree's `.goblin/GOBLIN_NOTES.md`.
    Notes,
    /// A worktree's `JOURNAL.md`.
    Journal,
}

impl StoredFileKind {
    /// The kebab-case name: `day-file`, `plan`, `notes`, `journal`.
    pub fn name(self) -> &'static str {
        match self {
            StoredFileKind::DayFile => "day-file",
            StoredFileKind::Plan => "plan",
            StoredFileKind::Notes => "notes",
            StoredFileKind::Journal => "journal",
        }
    }
}

/// A file for [`Store::redact_stored`] to go over besides the store's own (a worktree's notes
/// and journal, which the store does not know of).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredFile {
    /// Its path.
    pub path: PathBuf,
    /// What it is.
    pub kind: StoredFileKind,
}

impl StoredFile {
    /// The file at `path`, of `kind`.
    pub fn new(path: impl Into<PathBuf>, kind: StoredFileKind) -> StoredFile {
        StoredFile {
            path: path.into(),
            kind,
        }
    }
}

/// How many of one kind a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KindCount {
    /// The kind of secret, or of private span.
    pub kind: Kind,
    /// How many.
    pub count: usize,
}

/// One file that held something to redact, or could not be redacted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RedactedFile {
    /// Its path.
    pub path: PathBuf,
    /// What it is.
    pub kind: StoredFileKind,
    /// What it holds to redact, by kind in the order of [`Kind::ALL`] (never the text).
    pub found: Vec<KindCount>,
    /// Whether it was rewritten by this run.
    pub rewritten: bool,
    /// Why it was left as it is although something was found, or could not be read.
    pub error: Option<String>,
}

/// What [`Store::redact_stored`] found and did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RedactStored {
    /// Whether files were rewritten (`apply`), or only looked at.
    pub applied: bool,
    /// How many files were read.
    pub scanned: usize,
    /// The files that hold something to redact or could not be read, in path order; the
    /// others are clean.
    pub files: Vec<RedactedFile>,
    /// The workspaces with a day file rewritten: their recall index is stale.
    pub workspaces_changed: Vec<String>,
}

impl RedactStored {
    /// How many files were rewritten.
    pub fn rewritten(&self) -> usize {
        self.files.iter().filter(|f| f.rewritten).count()
    }

    /// Whether some file could not be read or redacted.
    pub fn has_errors(&self) -> bool {
        self.files.iter().any(|f| f.error.is_some())
    }
}

impl Store {
    /// The store's files that hold user text: every day file and plan of every workspace
    /// (in the home store and in any directory kept elsewhere), in path order, each with its
    /// workspace.
    pub fn stored_files(&self) -> Result<Vec<(String, StoredFile)>, Error> {
        let mut out = Vec::new();
        for workspace in self.list_workspaces()? {
            for dir in self.workspace_dirs(&workspace) {
                // A directory that cannot be listed is left out here and shows in the
                // commands that read it; there is nothing to redact in what cannot be read.
                let _ = list_day_files(&checkpoints_dir(&dir), |day| {
                    out.push((
                        workspace.clone(),
                        StoredFile::new(day.path(), StoredFileKind::DayFile),
                    ));
                });
                for path in plan_files(&dir.join("plans")) {
                    out.push((
                        workspace.clone(),
                        StoredFile::new(path, StoredFileKind::Plan),
                    ));
                }
            }
        }
        out.sort_by(|a, b| a.1.path.cmp(&b.1.path));
        out.dedup_by(|a, b| a.1.path == b.1.path);
        Ok(out)
    }

    /// Runs today's redaction — the store's setting, private spans included — over every
    /// file of [`stored_files`](Self::stored_files) and over `also` (a worktree's notes and
    /// journal), and reports per file what it holds, by kind, never the text.
    ///
    /// With `apply`, each file that holds something is rewritten: under its lock (the one
    /// every writer of that file takes), atomically, with its permissions kept. A day file
    /// or plan that would no longer read back the same (fewer checkpoints, a plan that no
    /// longer parses) is left as it is and reported with an error. A file is redacted as a
    /// document ([`Redactor::redact_document`]): an open `<private>` tag never closed drops
    /// the rest of its line. Running it again finds nothing: redaction is idempotent.
    ///
    /// Without `apply` nothing is written and no lock is taken. A file that cannot be read
    /// is reported with its error; the run goes on. The error is the store's setting not
    /// parsing, or the store's directory not being listable.
    pub fn redact_stored(&self, also: &[StoredFile], apply: bool) -> Result<RedactStored, Error> {
        let redactor = self.redactor()?;
        let mut files: Vec<(Option<String>, StoredFile)> = self
            .stored_files()?
            .into_iter()
            .map(|(workspace, file)| (Some(workspace), file))
            .collect();
        files.extend(
            also.iter()
                .filter(|f| f.path.exists())
                .map(|f| (None, f.clone())),
        );
        let mut report = RedactStored {
            applied: apply,
            scanned: 0,
            files: Vec::new(),
            workspaces_changed: Vec::new(),
        };
        for (workspace, file) in files {
            let Some(outcome) = redact_file(redactor, &file, apply) else {
                // Removed since it was listed.
                continue;
            };
            report.scanned += 1;
            if outcome.rewritten
                && file.kind == StoredFileKind::DayFile
                && let Some(workspace) = workspace
                && !report.workspaces_changed.contains(&workspace)
            {
                report.workspaces_changed.push(workspace);
            }
            if !outcome.found.is_empty() || outcome.error.is_some() {
                report.files.push(outcome);
            }
        }
        report.files.sort_by(|a, b| a.path.cmp(&b.path));
        report.workspaces_changed.sort();
        Ok(report)
    }
}

/// The plan files of a `plans/` directory (none when it does not exist or cannot be listed).
fn plan_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let plain = !name.starts_with('.')
                && !is_temp_file_name(&name)
                && !is_lock_file_name(&name)
                && name.ends_with(".md");
            plain.then(|| entry.path())
        })
        .collect()
}

/// What one file holds, rewritten with `apply`; `None` when it no longer exists.
fn redact_file(redactor: &Redactor, file: &StoredFile, apply: bool) -> Option<RedactedFile> {
    let mut out = RedactedFile {
        path: file.path.clone(),
        kind: file.kind,
        found: Vec::new(),
        rewritten: false,
        error: None,
    };
    // The new text of a file that holds something (and the counts), or why not to write it.
    let plan = |text: &str| -> (Vec<KindCount>, Result<Option<String>, String>) {
        let redacted = redactor.redact_document(text);
        let counts = counts(&redacted.findings);
        if redacted.findings.is_empty() {
            return (counts, Ok(None));
        }
        let new = redacted.into_text();
        let checked = reads_back(file, text, &new).map(|()| Some(new));
        (counts, checked)
    };
    if !apply {
        match read_utf8_opt(&file.path) {
            Ok(None) => return None,
            Ok(Some(text)) => {
                let (found, checked) = plan(&text);
                out.found = found;
                out.error = checked.err();
            }
            Err(e) => out.error = Some(e.to_string()),
        }
        return Some(out);
    }
    let options = match file.kind {
        StoredFileKind::DayFile | StoredFileKind::Plan => WriteOptions::private(),
        StoredFileKind::Notes | StoredFileKind::Journal => WriteOptions::umask(),
    };
    let result = update_locked(&file.path, &options, |current| {
        let Some(text) = current else {
            return Ok::<_, Error>(Update::Keep(None));
        };
        let (found, checked) = plan(text);
        Ok(match checked {
            Ok(Some(new)) => Update::Write(new, Some((found, None))),
            Ok(None) => Update::Keep(Some((found, None))),
            Err(why) => Update::Keep(Some((found, Some(why)))),
        })
    });
    match result {
        Ok(None) => return None,
        Ok(Some((found, error))) => {
            out.rewritten = !found.is_empty() && error.is_none();
            out.found = found;
            out.error = error;
        }
        Err(e) => out.error = Some(e.to_string()),
    }
    Some(out)
}

/// The findings counted by kind, in the order of [`Kind::ALL`].
fn counts(findings: &[goldfish_redact::Finding]) -> Vec<KindCount> {
    Kind::ALL
        .iter()
        .filter_map(|&kind| {
            let count = findings.iter().filter(|f| f.kind == kind).count();
            (count > 0).then_some(KindCount { kind, count })
        })
        .collect()
}

/// Whether the redacted text of a day file or plan still reads back as the same entries: a
/// replacement inside a line the parser depends on (a header, the frontmatter) must not
/// lose a checkpoint or a plan. The notes and the journal are written whole by their own
/// crates, which redact them the same way on every write.
fn reads_back(file: &StoredFile, old: &str, new: &str) -> Result<(), String> {
    let refuse = |what: &str| {
        Err(format!(
            "left as it was: redacted, it would {what}; edit the file by hand (the finding is \
             counted above)"
        ))
    };
    match file.kind {
        StoredFileKind::DayFile => {
            let name = file.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let DayFileName::Date(date) = DayFileName::parse(name) else {
                return Ok(());
            };
            let before = parse_day_file(old, "", date);
            let after = parse_day_file(new, "", date);
            let ids = |day: &crate::ParsedDay| {
                day.checkpoints
                    .iter()
                    .map(|c| c.id.clone())
                    .collect::<Vec<_>>()
            };
            if ids(&after) != ids(&before) || after.problems.len() > before.problems.len() {
                return refuse("no longer read back the same checkpoints");
            }
            Ok(())
        }
        StoredFileKind::Plan => {
            let id = file.path.file_stem().and_then(|n| n.to_str()).unwrap_or("");
            if parse_plan(old, "", id).is_ok() && parse_plan(new, "", id).is_err() {
                return refuse("no longer parse as a plan");
            }
            Ok(())
        }
        StoredFileKind::Notes | StoredFileKind::Journal => Ok(()),
    }
}
