//! The lifecycle API over one worktree's `JOURNAL.md`: the only place that writes it.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use goldfish_core::fs::{FsError, FsOp, Update, WriteOptions, read_utf8_opt, update_locked};
use goldfish_core::time::{SharedClock, system_clock};
use goldfish_redact::Redactor;

use crate::error::{Error, ErrorKind, Result};
use crate::format::{
    Document, EntryKind, LogKind, Mutation, Session, format_entry, format_mutation, format_session,
    format_title, plain_success_is_unambiguous,
};
use crate::handover::{Handover, HandoverOptions, scan_reader};
use crate::mutation::MutationCode;
use crate::status::{LastLine, MutationRecord, Status, StatusBuilder, Streak, approach_key};

/// The journal's file name in a worktree.
pub const JOURNAL_FILE: &str = "JOURNAL.md";

/// Which approach an attempt or a mutation concerns.
///
/// `&str` converts to [`Approach::Named`] and `Option<&str>` to `Named` or `Current`, so
/// `journal.fail("full token swap", "…")` and `journal.fail(None, "…")` both work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Approach<'a> {
    /// The approach in force: the last `Approach:` or `Switching to:` line of the journal,
    /// read under the lock. For [`Journal::mutate`], the one approach that requires a
    /// mutation when there is exactly one.
    #[default]
    Current,
    /// This approach (compared ignoring case and repeated spaces).
    Named(&'a str),
}

impl<'a> From<&'a str> for Approach<'a> {
    fn from(name: &'a str) -> Self {
        Approach::Named(name)
    }
}

impl<'a> From<&'a String> for Approach<'a> {
    fn from(name: &'a String) -> Self {
        Approach::Named(name)
    }
}

impl<'a> From<Option<&'a str>> for Approach<'a> {
    fn from(name: Option<&'a str>) -> Self {
        name.map_or(Approach::Current, Approach::Named)
    }
}

/// One worktree's `JOURNAL.md`, shared by every agent working there.
///
/// Every write is a read–modify–atomic-replace under an exclusive lock on the sidecar
/// `.JOURNAL.md.lock` ([`goldfish_core::fs::update_locked`]): any number of threads and
/// processes may write at once, no entry is lost or interleaved, and the mutation-protocol
/// check and the append happen under the same lock. Nothing is cached: every call reads the
/// file, so hand edits and other agents' entries are always seen.
#[derive(Debug, Clone)]
pub struct Journal {
    worktree: PathBuf,
    path: PathBuf,
    task: Option<String>,
    clock: SharedClock,
    /// The redactor every block is passed through before it is written; `None` is
    /// [`Redactor::everything`].
    redactor: Option<Arc<Redactor>>,
}

/// How a new block is separated from the text before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    /// A session header or mutation declaration: a blank line before it unless the file
    /// is empty or ends with a title or a blank line.
    Header,
    /// An entry: a blank line before it only right after a header block.
    Entry,
}

/// The file as the writer sees it under the lock.
struct Scan<'a> {
    text: &'a str,
    redactor: &'a Redactor,
    status: Status,
    last: LastLine,
    ends_with_newline: bool,
}

impl<'a> Scan<'a> {
    fn new(text: &'a str, redactor: &'a Redactor) -> Self {
        let mut builder = StatusBuilder::default();
        for raw in text.split_inclusive('\n') {
            builder.push(raw);
        }
        let (last, ends_with_newline) = (builder.last, builder.ends_with_newline);
        Scan {
            text,
            redactor,
            status: builder.finish(),
            last,
            ends_with_newline,
        }
    }

    /// The text with `block` appended, and the 1-based line the block starts on.
    ///
    /// Every write of the journal goes through here, so this is where secrets are replaced
    /// (`[REDACTED:<kind>]` is one line, so the block's line count is unchanged but for a
    /// private span over several lines, which becomes one). Text between `<private>` and
    /// `</private>` is dropped there too; an open tag never closed drops the rest of its line
    /// ([`Redactor::redact_document`]), not the lines of the block after it. Only the new
    /// block is redacted: what is already in the file is left as it is.
    fn append(&self, block: &str, kind: Block) -> (String, usize) {
        let block = &*self.redactor.redact_document(block).text;
        let mut out = String::with_capacity(self.text.len() + block.len() + 2);
        out.push_str(self.text);
        if !self.text.is_empty() && !self.ends_with_newline {
            out.push('\n');
        }
        let mut line = self.status.lines + 1;
        let blank = match kind {
            Block::Header => !matches!(
                self.last,
                LastLine::None | LastLine::Title | LastLine::Blank
            ),
            Block::Entry => self.last == LastLine::Header,
        };
        if blank {
            out.push('\n');
            line += 1;
        }
        out.push_str(block);
        (out, line)
    }

    /// Refuses an attempt on an approach that requires a mutation.
    fn check_allowed(&self, approach: &str, path: &Path) -> Result<()> {
        match self.status.streak(approach) {
            Some(s) if s.mutation_required => {
                Err(Error::mutation_required(&s.approach, s.failures, s.line)
                    .with_path(path)
                    .at_line(s.line))
            }
            _ => Ok(()),
        }
    }

    /// True when `approach` is the approach in force, so the plain form names it.
    fn is_current(&self, approach: &str) -> bool {
        self.status.current_approach.as_deref().map(approach_key) == Some(approach_key(approach))
    }

    fn resolve(&self, approach: Approach<'_>) -> Result<String> {
        match approach {
            Approach::Named(name) => Ok(approach_name("approach", name)?.to_string()),
            Approach::Current => self.status.current_approach.clone().ok_or_else(|| {
                Error::invalid(
                    "no approach is in force (no `Approach:` or `Switching to:` line yet): \
                     name the approach",
                )
            }),
        }
    }
}

impl Journal {
    /// The journal of `worktree` (`{worktree}/JOURNAL.md`). The file need not exist yet;
    /// the directory must.
    pub fn open(worktree: impl AsRef<Path>) -> Result<Journal> {
        let worktree = worktree.as_ref();
        match std::fs::metadata(worktree) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(Error::new(
                    ErrorKind::NotADirectory,
                    "the worktree is not a directory: pass the directory that should hold \
                     JOURNAL.md",
                )
                .with_path(worktree));
            }
            Err(e) => {
                let message = format!("cannot open the worktree ({e}): pass an existing directory");
                return Err(Error::new(ErrorKind::NotADirectory, message)
                    .with_path(worktree)
                    .with_source(FsError::new(FsOp::Read, worktree, e)));
            }
        }
        Ok(Journal {
            worktree: worktree.to_path_buf(),
            path: worktree.join(JOURNAL_FILE),
            task: None,
            clock: system_clock(),
            redactor: None,
        })
    }

    /// Uses `clock` for session timestamps and archive dates (tests use a
    /// [`ManualClock`](goldfish_core::time::ManualClock)).
    pub fn with_clock(mut self, clock: SharedClock) -> Self {
        self.clock = clock;
        self
    }

    /// Redacts what this journal writes with `redactor` (built from a store's setting, say)
    /// instead of [`Redactor::everything`], the default: a worktree has no setting of its own,
    /// so every kind of secret is replaced unless the caller passes a redactor that leaves
    /// some out.
    pub fn with_redactor(mut self, redactor: Arc<Redactor>) -> Self {
        self.redactor = Some(redactor);
        self
    }

    fn redactor(&self) -> &Redactor {
        match &self.redactor {
            Some(r) => r,
            None => Redactor::everything(),
        }
    }

    /// The task named in the title of a journal this creates (`# JOURNAL — {task}`), and in
    /// archive names when the journal has no title. Default: the worktree directory's name.
    pub fn with_task(mut self, task: impl Into<String>) -> Self {
        self.task = Some(task.into());
        self
    }

    /// The worktree.
    pub fn worktree(&self) -> &Path {
        &self.worktree
    }

    /// `{worktree}/JOURNAL.md`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// True when the journal file exists.
    pub fn exists(&self) -> bool {
        self.path.is_file()
    }

    /// The task: the journal's title, else [`with_task`](Self::with_task), else the
    /// worktree directory's name.
    pub(crate) fn task_for(&self, status: &Status) -> String {
        if let Some(task) = status.task.as_deref().filter(|t| !t.is_empty()) {
            return task.to_string();
        }
        self.default_task()
    }

    fn default_task(&self) -> String {
        if let Some(task) = &self.task {
            return task.clone();
        }
        std::fs::canonicalize(&self.worktree)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "task".to_string())
    }

    pub(crate) fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// Reads and parses the whole journal.
    pub fn read(&self) -> Result<Document> {
        let text = read_utf8_opt(&self.path)?.ok_or_else(|| Error::not_booted(&self.path))?;
        Ok(Document::parse(&text))
    }

    /// Starts a session: creates the journal with its title, or appends a session header
    /// `## YYYY-MM-DD HH:MM — {title}` (UTC) with `Intent:` and `Approach:` lines.
    ///
    /// An empty `intent`, `approach` or `title` leaves that part out; without an `Approach:`
    /// line the approach in force carries over. Refused when `approach` requires a mutation.
    /// Read the [hand-over](Self::handover) first when resuming.
    pub fn boot(&self, intent: &str, approach: &str, title: &str) -> Result<Session> {
        let intent = optional_line("intent", intent)?;
        let approach = match approach.trim() {
            "" => "",
            a => approach_name("approach", a)?,
        };
        let title = optional_line("title", title)?;
        let started = to_minute(self.now());
        let task = self.default_task();
        let task = one_line("task", &task)
            .map_err(|e| e.with_path(&self.path))?
            .to_string();
        let path = self.path.clone();
        update_locked(&self.path, &WriteOptions::umask(), |current| {
            let text = current.unwrap_or("");
            let scan = Scan::new(text, self.redactor());
            if !approach.is_empty() {
                scan.check_allowed(approach, &path)?;
            }
            let mut block = String::new();
            if text.trim().is_empty() {
                block.push_str(&format_title(&task));
            }
            block.push_str(&format_session(&started, title, intent, approach));
            let (new_text, mut line) = scan.append(&block, Block::Header);
            if text.trim().is_empty() {
                line += 1;
            }
            let session = Session {
                started,
                title: title.to_string(),
                intent: (!intent.is_empty()).then(|| intent.to_string()),
                approach: (!approach.is_empty()).then(|| approach.to_string()),
                line,
            };
            Ok(Update::Write(new_text, session))
        })
    }

    /// Appends an entry of one or two lines (a second line is written indented). Entries of
    /// three or more lines are refused: the protocol wants facts, not prose.
    pub fn log(&self, kind: LogKind, text: &str) -> Result<usize> {
        let lines = entry_lines(text).map_err(|e| e.with_path(&self.path))?;
        let block = format_entry(kind.entry_kind(), None, &lines);
        self.append_existing(
            |scan| Ok(scan.append(&block, Block::Entry)),
            |_, line| Ok(line),
        )
    }

    /// Records a failed attempt of `approach` (one or two lines). The third failure in a row
    /// of one approach makes a mutation mandatory: the returned streak says so, and any further
    /// attempt on that approach is refused until [`mutate`](Self::mutate) declares one.
    ///
    /// Written as `❌ Failed: {what}` when `approach` is the approach in force, else as
    /// `❌ Failed [{approach}]: {what}`.
    pub fn fail<'a>(&self, approach: impl Into<Approach<'a>>, what: &str) -> Result<Streak> {
        let approach = approach.into();
        let lines = entry_lines(what).map_err(|e| e.with_path(&self.path))?;
        let path = self.path.clone();
        self.append_existing(
            |scan| {
                let approach = scan.resolve(approach).map_err(|e| e.with_path(&path))?;
                scan.check_allowed(&approach, &path)?;
                let named = (!scan.is_current(&approach)).then_some(approach.as_str());
                Ok(scan.append(
                    &format_entry(EntryKind::Failed, named, &lines),
                    Block::Entry,
                ))
            },
            |scan, line| {
                let approach = scan.resolve(approach)?;
                let spelled = if scan.is_current(&approach) {
                    scan.status
                        .current_approach
                        .clone()
                        .unwrap_or(approach.clone())
                } else {
                    approach.clone()
                };
                let failures = scan.status.streak(&approach).map_or(0, |s| s.failures) + 1;
                Ok(Streak {
                    approach: spelled,
                    failures,
                    last_failure: lines[0].to_string(),
                    line,
                    mutation_required: failures >= crate::MUTATION_THRESHOLD,
                })
            },
        )
    }

    /// Records that `approach` works (one or two lines); ends its failure streak. Refused
    /// while the approach requires a mutation.
    ///
    /// Written as `✅ {what}` when `approach` is the approach in force, else as
    /// `✅ Worked [{approach}]: {what}`.
    pub fn succeed<'a>(&self, approach: impl Into<Approach<'a>>, what: &str) -> Result<usize> {
        let approach = approach.into();
        let lines = entry_lines(what).map_err(|e| e.with_path(&self.path))?;
        let path = self.path.clone();
        self.append_existing(
            |scan| {
                let approach = scan.resolve(approach).map_err(|e| e.with_path(&path))?;
                scan.check_allowed(&approach, &path)?;
                let plain = scan.is_current(&approach) && plain_success_is_unambiguous(lines[0]);
                let named = (!plain).then_some(approach.as_str());
                Ok(scan.append(
                    &format_entry(EntryKind::Working, named, &lines),
                    Block::Entry,
                ))
            },
            |_, line| Ok(line),
        )
    }

    /// Declares a mutation: `## MUTATION: {code}` with `Failed Nx on:`, `Switching to:` and
    /// `Rationale:`. The streak of `failed_on` ends and `switching_to` becomes the approach in
    /// force. `switching_to` must differ from `failed_on` and must not itself require a
    /// mutation.
    pub fn mutate<'a>(
        &self,
        code: MutationCode,
        failed_on: impl Into<Approach<'a>>,
        switching_to: &str,
        rationale: &str,
    ) -> Result<MutationRecord> {
        let failed_on = failed_on.into();
        let to =
            approach_name("switching_to", switching_to).map_err(|e| e.with_path(&self.path))?;
        let rationale = one_line("rationale", rationale).map_err(|e| e.with_path(&self.path))?;
        let path = self.path.clone();
        let resolve = move |scan: &Scan<'_>| -> Result<String> {
            if failed_on != Approach::Current {
                return scan.resolve(failed_on);
            }
            let required: Vec<_> = scan.status.mutation_required().collect();
            match required.as_slice() {
                [one] => Ok(one.approach.clone()),
                [] => scan.resolve(Approach::Current),
                many => Err(Error::invalid(format!(
                    "several approaches require a mutation ({}): name the one this declaration \
                     leaves",
                    many.iter()
                        .map(|s| format!("{:?}", s.approach))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
            }
        };
        self.append_existing(
            |scan| {
                let from = resolve(scan).map_err(|e| e.with_path(&path))?;
                if approach_key(&from) == approach_key(to) {
                    return Err(Error::invalid(format!(
                        "a mutation must switch to a different approach than {from:?}"
                    ))
                    .with_path(&path));
                }
                scan.check_allowed(to, &path)?;
                let failures = scan.status.streak(&from).map_or(0, |s| s.failures);
                let block = format_mutation(code, failures, &from, to, rationale);
                Ok(scan.append(&block, Block::Header))
            },
            |scan, line| {
                let from = resolve(scan)?;
                let session = scan.status.session.as_ref();
                let since = session.map_or(0, |s| s.line);
                Ok(MutationRecord {
                    mutation: Mutation {
                        code,
                        failed_count: Some(scan.status.streak(&from).map_or(0, |s| s.failures)),
                        failed_on: Some(from),
                        switching_to: Some(to.to_string()),
                        rationale: Some(rationale.to_string()),
                    },
                    line,
                    session_started: session.map(|s| s.started),
                    ordinal: 1 + scan
                        .status
                        .mutations
                        .iter()
                        .filter(|m| m.line > since)
                        .count(),
                    outcome: None,
                })
            },
        )
    }

    /// The status derived from the whole file, read in one streaming pass.
    pub fn status(&self) -> Result<Status> {
        let file = self.open_file()?;
        let (status, _) = scan_reader(BufReader::new(file), &self.path, 0)?;
        Ok(status)
    }

    /// The hand-over view: the last 50 lines and the derived status, as one text
    /// ([`Handover`]'s `Display`). Reads the file once.
    pub fn handover(&self) -> Result<Handover> {
        self.handover_with(&HandoverOptions::default())
    }

    /// [`handover`](Self::handover) with options (how many lines of tail).
    pub fn handover_with(&self, options: &HandoverOptions) -> Result<Handover> {
        let file = self.open_file()?;
        let (status, tail) = scan_reader(BufReader::new(file), &self.path, options.lines)?;
        Ok(Handover::new(tail, status))
    }

    fn open_file(&self) -> Result<File> {
        File::open(&self.path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::not_booted(&self.path)
            } else {
                Error::from(FsError::new(FsOp::Read, &self.path, e))
            }
        })
    }

    /// Appends to an existing journal under its lock: `plan` decides the new text (or
    /// refuses), `value` builds the result from the scan before the write and the block's line.
    fn append_existing<T>(
        &self,
        plan: impl FnOnce(&Scan<'_>) -> Result<(String, usize)>,
        value: impl FnOnce(&Scan<'_>, usize) -> Result<T>,
    ) -> Result<T> {
        let path = self.path.clone();
        update_locked(&self.path, &WriteOptions::umask(), |current| {
            let text = current.ok_or_else(|| Error::not_booted(&path))?;
            let scan = Scan::new(text, self.redactor());
            let (new_text, line) = plan(&scan)?;
            let value = value(&scan, line)?;
            Ok(Update::Write(new_text, value))
        })
    }
}

/// `t` without seconds: what a session header keeps.
fn to_minute(t: DateTime<Utc>) -> DateTime<Utc> {
    let secs = t.timestamp();
    DateTime::from_timestamp(secs - secs.rem_euclid(60), 0).unwrap_or(t)
}

/// A required one-line value, trimmed.
pub(crate) fn one_line<'a>(what: &str, value: &'a str) -> Result<&'a str> {
    let value = optional_line(what, value)?;
    if value.is_empty() {
        return Err(Error::invalid(format!(
            "the {what} is empty: say it in a few words"
        )));
    }
    Ok(value)
}

/// An optional one-line value, trimmed (empty when absent).
fn optional_line<'a>(what: &str, value: &'a str) -> Result<&'a str> {
    let value = value.trim();
    if value.contains(['\n', '\r']) {
        return Err(Error::invalid(format!(
            "the {what} must fit on one line: {value:?}"
        )));
    }
    Ok(value)
}

/// An approach name: one line, no brackets (they delimit it in `❌ Failed [approach]:`).
fn approach_name<'a>(what: &str, value: &'a str) -> Result<&'a str> {
    let value = one_line(what, value)?;
    if value.contains(['[', ']']) {
        return Err(Error::invalid(format!(
            "the {what} {value:?} contains a bracket: approach names are written as \
             `[approach]`, so leave brackets out"
        )));
    }
    Ok(value)
}

/// The one or two trimmed lines of an entry.
fn entry_lines(text: &str) -> Result<Vec<&str>> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Error::invalid(
            "the entry is empty: say what happened in a line or two",
        ));
    }
    let lines: Vec<&str> = text.split('\n').map(str::trim).collect();
    if lines.len() > 2 {
        return Err(Error::too_long(lines.len()));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_lines_table() {
        let ok: [(&str, &[&str]); 4] = [
            ("one", &["one"]),
            ("  one  \n", &["one"]),
            ("one\r\ntwo\r\n", &["one", "two"]),
            ("one\n   two", &["one", "two"]),
        ];
        for (input, want) in ok {
            assert_eq!(entry_lines(input).unwrap(), want, "{input:?}");
        }
        assert!(entry_lines("a\nb\nc").unwrap_err().is_entry_too_long());
        assert!(entry_lines("a\n\nb").unwrap_err().is_entry_too_long());
        assert!(entry_lines(" \n ").unwrap_err().is_invalid_input());
    }

    #[test]
    fn names_and_lines_are_validated() {
        assert_eq!(
            approach_name("approach", "  full swap ").unwrap(),
            "full swap"
        );
        assert!(
            approach_name("approach", "a [b]")
                .unwrap_err()
                .is_invalid_input()
        );
        assert!(
            approach_name("approach", "")
                .unwrap_err()
                .is_invalid_input()
        );
        assert!(
            one_line("rationale", "a\nb")
                .unwrap_err()
                .is_invalid_input()
        );
        assert_eq!(optional_line("title", "  ").unwrap(), "");
    }

    #[test]
    fn separators() {
        let cases = [
            ("", Block::Header, "X\n", 1),
            ("# JOURNAL — t\n", Block::Header, "# JOURNAL — t\nX\n", 2),
            ("✅ a\n", Block::Header, "✅ a\n\nX\n", 3),
            ("✅ a", Block::Header, "✅ a\n\nX\n", 3),
            ("✅ a\n\n", Block::Header, "✅ a\n\nX\n", 3),
            (
                "## 2026-01-01 00:00\nApproach: a\n",
                Block::Entry,
                "## 2026-01-01 00:00\nApproach: a\n\nX\n",
                4,
            ),
            ("✅ a\n", Block::Entry, "✅ a\nX\n", 2),
            ("hand text", Block::Entry, "hand text\nX\n", 2),
        ];
        for (text, kind, want, line) in cases {
            assert_eq!(
                Scan::new(text, Redactor::everything()).append("X\n", kind),
                (want.to_string(), line),
                "{text:?}"
            );
        }
    }
}
