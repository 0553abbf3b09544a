//! Checkpoints: saving one into its day file, and reading a day or a window of days.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use chrono::{DateTime, NaiveDate, Utc};
use goldfish_core::fs::{
    FsError, Update, WriteOptions, lock_exclusive, update_locked, write_atomic,
};

use super::handle::{Store, with_path_if_missing};
use crate::actor::Actor;
use crate::checkpoint::Checkpoint;
use crate::dayfile::{
    Fnv64, ParsedDay, clean_tags, format_checkpoint, format_day_header, parse_day_bytes,
    parse_day_file,
};
use crate::days;
use crate::error::{Error, ErrorKind};
use crate::git::{GitIdentity, context_and_identity};
use crate::memory::{MemoryType, Structured};
use crate::redaction::{Saved, redact_checkpoint};
use crate::skipped::Skipped;
use crate::workspace::{detect_workspace, validate_workspace};

/// What to save as a checkpoint; see [`Store::save_checkpoint`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckpointInput {
    /// What was done; may span many lines (the first is the title). Must not be blank.
    pub description: String,
    /// Tags; none may contain a comma or a line break. Trimmed; empty and repeated ones dropped.
    pub tags: Vec<String>,
    /// The workspace; `None` resolves it from [`git_dir`](Self::git_dir) (see
    /// [`resolve_workspace`](crate::resolve_workspace)); with neither given the save is an
    /// error of kind [`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput). The store
    /// never reads `$GOLDFISH_WORKSPACE` or the process's directory: a binary that honours
    /// them passes their values here.
    pub workspace: Option<String>,
    /// The directory the checkpoint is saved from (the caller's current directory), whose
    /// git context (branch, commit, changed files) to record; `None` records none.
    ///
    /// The context is recorded only when this directory belongs to the checkpoint's
    /// workspace ([`detect_workspace`](crate::detect_workspace) of it is the target
    /// workspace): a checkpoint filed under another workspace (`-w other`) must not carry
    /// this repository's branch and files. Callers pass their directory unconditionally; the
    /// store decides.
    pub git_dir: Option<PathBuf>,
    /// What kind of moment this is; default [`MemoryType::Checkpoint`].
    pub memory_type: MemoryType,
    /// The structured fields of a typed memory. Text is kept as given; list items are
    /// trimmed and empty ones dropped; `confidence` must be 1 to 5.
    pub structured: Structured,
    /// Who asks for the save, as the caller observed it (client, model, session, OS user) —
    /// never what an agent wrote. The store adds the git user and e-mail of `git_dir` to the
    /// fields left unset, and records every value cleaned ([`Actor::cleaned`]).
    pub actor: Actor,
    /// A short key naming what the memory is about (one line, at most
    /// [`MAX_TOPIC_CHARS`](crate::MAX_TOPIC_CHARS) characters, trimmed; blank is none). The
    /// newest earlier checkpoint of the workspace with the same topic (ignoring case) that
    /// nothing supersedes yet is added to [`supersedes`](Self::supersedes).
    pub topic: Option<String>,
    /// Ids of earlier checkpoints of the same workspace that this one replaces. Each must
    /// exist there: an unknown id is an error naming it, and nothing is saved.
    pub supersedes: Vec<String>,
}

impl CheckpointInput {
    /// An input with this description and nothing else.
    pub fn new(description: impl Into<String>) -> Self {
        CheckpointInput {
            description: description.into(),
            ..CheckpointInput::default()
        }
    }
}

/// Checkpoints read from a range of day files, oldest first, and what could not be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckpointRange {
    /// The checkpoints, oldest first (entries with equal timestamps keep their file order).
    pub checkpoints: Vec<Checkpoint>,
    /// Unreadable files, garbage blocks and invalid UTF-8, by path and line.
    pub skipped: Vec<Skipped>,
}

impl Store {
    /// Saves a checkpoint and returns it as stored (with its id and timestamp).
    ///
    /// The entry goes into the day file of its UTC date, in time order, under the day file's
    /// lock; the file is replaced atomically and fsynced. Git context is captured first (one
    /// `git status` spawn, outside the lock) when `git_dir` is given and belongs to the
    /// checkpoint's workspace (see [`CheckpointInput::git_dir`]).
    ///
    /// A save is idempotent: when the day file already holds the same checkpoint (same
    /// description, type, typed fields, topic and tags, superseding every id this one names)
    /// saved within [`DUPLICATE_WINDOW`] by the store's clock, that entry is returned and
    /// nothing is written ([`Saved::duplicate_of`] says so). The check is made under the day
    /// file's lock on the file as it is then, so any number of identical saves at once make
    /// one entry.
    ///
    /// Secrets are never written: every text field (description, tags, and the git branch
    /// and files) has its recognisable secrets replaced by `[REDACTED:<kind>]` first, by the
    /// store's [redactor](Self::redactor). The returned checkpoint is the one written; use
    /// [`save_checkpoint_reported`](Self::save_checkpoint_reported) to learn what was replaced.
    ///
    /// Errors: a blank description, a tag with a comma or line break, a bad workspace name
    /// ([`Error::is_invalid_input`]); a read-only store ([`Error::is_permission_denied`],
    /// at once, without waiting on a lock); a broken `settings.json` ([`Error::is_parse`],
    /// naming the file and line).
    pub fn save_checkpoint(&self, input: CheckpointInput) -> Result<Checkpoint, Error> {
        self.save_checkpoint_reported(input)
            .map(|saved| saved.value)
    }

    /// [`save_checkpoint`](Self::save_checkpoint), also returning the secrets it replaced
    /// (field and kind, never the secret), for the caller to report.
    pub fn save_checkpoint_reported(
        &self,
        input: CheckpointInput,
    ) -> Result<Saved<Checkpoint>, Error> {
        let redactor = self.redactor()?;
        if input.description.trim().is_empty() {
            return Err(Error::invalid(
                "a checkpoint needs a description: say what was done, decided or found",
            ));
        }
        let tags = clean_tags(&input.tags)?;
        input.structured.validate()?;
        let structured = clean_structured(input.structured);
        let topic = crate::supersede::clean_topic(input.topic.as_deref())?;
        let workspace = self.workspace_of(input.workspace.as_deref(), input.git_dir.as_deref())?;
        let supersedes = self.superseded_ids(&workspace, &input.supersedes, topic.as_deref())?;
        // The git user is the person saving, wherever the checkpoint is filed; the branch and
        // files only when the directory belongs to the workspace. One git process each, run
        // at the same time.
        let (git, identity) = match input.git_dir.as_deref() {
            Some(dir) => context_and_identity(dir, detect_workspace(dir) == workspace),
            None => (None, GitIdentity::default()),
        };
        let from_git = Actor {
            git_user: identity.name,
            git_email: identity.email,
            ..Actor::default()
        };
        let timestamp = self.now();
        // The ids the caller named, cleaned as `superseded_ids` cleaned them: a repeat must
        // already supersede each of them (the topic's current memory may be the repeat itself).
        let named: Vec<String> = input
            .supersedes
            .iter()
            .map(|i| i.trim())
            .filter(|i| !i.is_empty())
            .map(str::to_string)
            .collect();
        let mut checkpoint = Checkpoint::new("", timestamp, workspace.clone(), input.description);
        checkpoint.tags = tags;
        checkpoint.memory_type = input.memory_type;
        checkpoint.structured = structured;
        checkpoint.topic = topic;
        checkpoint.supersedes = supersedes;
        checkpoint.actor = input.actor.or(from_git).cleaned();
        if let Some(git) = git {
            checkpoint.branch = git.branch;
            checkpoint.commit = git.commit;
            checkpoint.files = git.files;
            checkpoint.files_omitted = git.files_omitted;
        }
        // The one point where a checkpoint's secrets are replaced: it is complete, and
        // nothing of it has been written.
        let redacted = redact_checkpoint(redactor, &mut checkpoint);
        let date = timestamp.date_naive();
        // A repeat saved before midnight is in yesterday's file, whose lock this save does
        // not take: every save of this moment writes today's file, so two of them still
        // meet under today's lock, and yesterday's entries no longer change.
        if let Some(yesterday) = date.pred_opt()
            && (timestamp - DUPLICATE_WINDOW).date_naive() == yesterday
            && let Some(earlier) = self
                .read_day(&workspace, yesterday)?
                .checkpoints
                .into_iter()
                .find(|c| is_repeat(c, &checkpoint, &named))
        {
            return Ok(Saved::duplicate(earlier, redacted));
        }
        let path = self.day_file_path(&workspace, date)?;
        let options = WriteOptions::private();
        let result = update_locked(&path, &options, |current| {
            let text = current.unwrap_or("");
            let parsed = parse_day_file(text, &workspace, date);
            // Under the lock, on the file as it is now: of any number of identical saves at
            // once, the first writes and every later one finds its entry.
            if let Some(earlier) = parsed
                .checkpoints
                .iter()
                .find(|c| is_repeat(c, &checkpoint, &named))
            {
                return Ok::<_, Error>(Update::Keep((earlier.clone(), true)));
            }
            checkpoint.id = unique_id(&timestamp, &parsed);
            let new_text = insert_entry(text, date, &parsed, &checkpoint);
            Ok(Update::Write(new_text, (checkpoint.clone(), false)))
        });
        let (saved, repeat) = match result {
            Err(e) if e.kind() == ErrorKind::Parse => {
                // The day file holds invalid UTF-8: append to its bytes as they are, so the
                // save succeeds and nothing already there is touched.
                self.append_to_invalid_utf8(&path, &options, &workspace, date, checkpoint, &named)?
            }
            other => other.map_err(|e| with_path_if_missing(e, &path))?,
        };
        if repeat {
            return Ok(Saved::duplicate(saved, redacted));
        }
        self.invalidate_workspaces();
        Ok(Saved::new(saved, redacted))
    }

    fn append_to_invalid_utf8(
        &self,
        path: &Path,
        options: &WriteOptions,
        workspace: &str,
        date: NaiveDate,
        mut checkpoint: Checkpoint,
        named: &[String],
    ) -> Result<(Checkpoint, bool), Error> {
        let _lock = lock_exclusive(path, options)?;
        let mut bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) => return Err(FsError::new(goldfish_core::fs::FsOp::Read, path, e).into()),
        };
        let parsed = parse_day_bytes(&bytes, workspace, date);
        if let Some(earlier) = parsed
            .checkpoints
            .iter()
            .find(|c| is_repeat(c, &checkpoint, named))
        {
            return Ok((earlier.clone(), true));
        }
        checkpoint.id = unique_id(&checkpoint.timestamp, &parsed);
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        if !bytes.is_empty() && !bytes.ends_with(b"\n\n") {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(format_checkpoint(&checkpoint).as_bytes());
        write_atomic(path, &bytes, options)?;
        Ok((checkpoint, false))
    }

    /// What a new checkpoint of `workspace` supersedes: the ids given (trimmed, blank and
    /// repeated ones dropped, each checked to exist in the workspace) and, with a topic, the
    /// current memory of that topic.
    fn superseded_ids(
        &self,
        workspace: &str,
        given: &[String],
        topic: Option<&str>,
    ) -> Result<Vec<String>, Error> {
        let mut ids: Vec<String> = Vec::with_capacity(given.len() + 1);
        for id in given.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
            if ids.iter().any(|known| known == id) {
                continue;
            }
            if self.find_checkpoint_in(workspace, id)?.is_none() {
                return Err(Error::new(
                    ErrorKind::NotFound,
                    format!(
                        "no checkpoint with id {id:?} in workspace {workspace:?} to supersede; \
                         nothing was saved (`goldfish recall -w {workspace}` lists the ids)"
                    ),
                ));
            }
            ids.push(id.to_string());
        }
        if let Some(topic) = topic
            && let Some(current) = self.supersession(workspace)?.current_for_topic(topic)
            && !ids.iter().any(|known| known == current)
        {
            ids.push(current.to_string());
        }
        Ok(ids)
    }

    /// The checkpoints of one UTC day, in file order. Unreadable entries are left out; use
    /// [`read_day`](Self::read_day) to see them.
    pub fn checkpoints_for_day(
        &self,
        workspace: &str,
        date: NaiveDate,
    ) -> Result<Vec<Checkpoint>, Error> {
        Ok(self.read_day(workspace, date)?.checkpoints)
    }

    /// One day file: its checkpoints in file order and what could not be read.
    pub fn read_day(&self, workspace: &str, date: NaiveDate) -> Result<CheckpointRange, Error> {
        let workspace = validate_workspace(workspace)?;
        let mut range = CheckpointRange::default();
        let dirs = self.workspace_dirs(&workspace);
        for dir in &dirs {
            let path = days::day_file_in(dir, date);
            read_day_into(&path, &workspace, date, &mut range);
        }
        if dirs.len() > 1 {
            dedup_by_id(&mut range.checkpoints);
            range.checkpoints.sort_by_key(|c| c.timestamp);
        }
        Ok(range)
    }

    /// The checkpoints with `from <= timestamp <= to`, oldest first. Reads only the day files
    /// whose date lies in the window. A day file that cannot be read, a garbage block and
    /// invalid UTF-8 are reported in [`CheckpointRange::skipped`]; the rest is returned.
    ///
    /// Holds the whole window in memory: to look at a long window without that, use
    /// [`for_each_day_between`](Self::for_each_day_between).
    pub fn checkpoints_between(
        &self,
        workspace: &str,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<CheckpointRange, Error> {
        let mut range = CheckpointRange::default();
        self.for_each_day_between(workspace, from, to, |day| {
            range.checkpoints.extend(day.checkpoints);
            range.skipped.extend(day.skipped);
        })?;
        // Day files hold the entries of their UTC date, so this only reorders an entry that
        // was moved to another day's file by hand.
        range.checkpoints.sort_by_key(|c| c.timestamp);
        Ok(range)
    }

    /// The checkpoints with `from <= timestamp <= to`, one day file at a time: `visit` is
    /// called once for the problems found while listing (files named like a day file whose
    /// name is not a real date, an unlistable directory), when there are any, then once per
    /// day file of the window, oldest day first, with that day's checkpoints (oldest first)
    /// and problems. Memory stays that of one day file, whatever the window's length.
    ///
    /// A workspace kept in a repository ([`with_workspace_root`](Self::with_workspace_root))
    /// is read from both places, each entry once.
    pub fn for_each_day_between(
        &self,
        workspace: &str,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        mut visit: impl FnMut(CheckpointRange),
    ) -> Result<(), Error> {
        let workspace = validate_workspace(workspace)?;
        if from > to {
            return Ok(());
        }
        let (first, last) = (from.date_naive(), to.date_naive());
        let dirs: Vec<PathBuf> = self
            .workspace_dirs(&workspace)
            .into_iter()
            .map(|d| days::checkpoints_dir(&d))
            .collect();
        let mut listing = CheckpointRange::default();
        let mut dates = Vec::new();
        for dir in &dirs {
            list_day_files(dir, first, last, &mut dates, &mut listing.skipped);
        }
        if !listing.skipped.is_empty() {
            visit(listing);
        }
        dates.sort();
        dates.dedup();
        for date in dates {
            let mut day = CheckpointRange::default();
            for dir in &dirs {
                read_day_into(
                    &dir.join(days::day_file_name(date)),
                    &workspace,
                    date,
                    &mut day,
                );
            }
            if dirs.len() > 1 {
                dedup_by_id(&mut day.checkpoints);
            }
            day.checkpoints
                .retain(|c| c.timestamp >= from && c.timestamp <= to);
            day.checkpoints.sort_by_key(|c| c.timestamp);
            visit(day);
        }
        Ok(())
    }
}

/// How close in time an identical save is the same save: a call retried after a timeout,
/// an agent that saves what it saved a moment ago, several agents saving one hand-off at
/// once. Further apart, the same words are a new moment and get their own entry.
pub const DUPLICATE_WINDOW: chrono::TimeDelta = chrono::TimeDelta::minutes(10);

/// Whether `earlier` (an entry of the day file of `new`'s workspace) is the save `new` again:
/// within [`DUPLICATE_WINDOW`] of it, with the same description, type, typed fields, topic
/// and tags (in any order), and already superseding every id the new save `named`. Git
/// context and who saves are not compared: the same words from another branch or agent
/// moments later are the same memory.
fn is_repeat(earlier: &Checkpoint, new: &Checkpoint, named: &[String]) -> bool {
    (new.timestamp - earlier.timestamp).abs() <= DUPLICATE_WINDOW
        && earlier.says_the_same_as(new)
        && named.iter().all(|id| earlier.supersedes.contains(id))
}

/// Trims list items and drops empty ones; a blank text field counts as not given.
fn clean_structured(mut s: Structured) -> Structured {
    for list in [
        &mut s.alternatives,
        &mut s.evidence,
        &mut s.symbols,
        &mut s.unknowns,
    ] {
        *list = list
            .iter()
            .map(|i| i.trim())
            .filter(|i| !i.is_empty())
            .map(str::to_string)
            .collect();
    }
    for text in [&mut s.context, &mut s.decision, &mut s.impact, &mut s.next] {
        if text.as_deref().is_some_and(|t| t.trim().is_empty()) {
            *text = None;
        }
    }
    s
}

/// Keeps the first checkpoint of each id (the same entry read from two places).
fn dedup_by_id(checkpoints: &mut Vec<Checkpoint>) {
    let mut seen = HashSet::new();
    checkpoints.retain(|c| seen.insert(c.id.clone()));
}

/// The dates of the day files in `dir` (a workspace's `checkpoints/`) from `first` to `last`,
/// added to `dates`; the listing's problems added to `skipped`.
fn list_day_files(
    dir: &Path,
    first: NaiveDate,
    last: NaiveDate,
    dates: &mut Vec<NaiveDate>,
    skipped: &mut Vec<Skipped>,
) {
    let problems = days::list_day_files(dir, |f| {
        if f.date >= first && f.date <= last {
            dates.push(f.date);
        }
    });
    skipped.extend(problems);
}

/// Reads one day file into `range`: checkpoints appended, problems reported as skipped.
fn read_day_into(path: &Path, workspace: &str, date: NaiveDate, range: &mut CheckpointRange) {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return,
        Err(e) => {
            range.skipped.push(Skipped {
                path: path.to_path_buf(),
                line: None,
                message: format!("cannot read this day file: {e}"),
            });
            return;
        }
    };
    let parsed = parse_day_bytes(&bytes, workspace, date);
    range.checkpoints.extend(parsed.checkpoints);
    range
        .skipped
        .extend(parsed.problems.into_iter().map(|p| Skipped {
            path: path.to_path_buf(),
            line: Some(p.line),
            message: p.message,
        }));
}

/// A new id: the timestamp to the millisecond plus 6 hex digits, unique in the day file
/// (and so in the workspace, as ids of other days start with another date).
fn unique_id(timestamp: &DateTime<Utc>, day: &ParsedDay) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let existing: HashSet<&str> = day.checkpoints.iter().map(|c| c.id.as_str()).collect();
    let stamp = timestamp.format("%Y%m%dT%H%M%S%3fZ").to_string();
    loop {
        let mut hasher = Fnv64::new();
        hasher.write(&std::process::id().to_le_bytes());
        hasher.write(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        hasher.write(&nanos.to_le_bytes());
        hasher.write(format!("{:?}", std::thread::current().id()).as_bytes());
        let id = format!("{stamp}-{:06x}", hasher.finish() & 0x00ff_ffff);
        if !existing.contains(id.as_str()) {
            return id;
        }
    }
}

/// The day file's text with `checkpoint` inserted in time order: before the first entry that
/// is later than it, else at the end. Everything already in the file is kept byte for byte.
pub(super) fn insert_entry(
    text: &str,
    date: NaiveDate,
    day: &ParsedDay,
    checkpoint: &Checkpoint,
) -> String {
    let entry = format_checkpoint(checkpoint);
    let later = day
        .checkpoints
        .iter()
        .position(|c| c.timestamp > checkpoint.timestamp);
    if let Some(k) = later {
        let at = day.starts[k];
        let mut out = String::with_capacity(text.len() + entry.len() + 1);
        out.push_str(&text[..at]);
        out.push_str(&entry);
        out.push('\n');
        out.push_str(&text[at..]);
        return out;
    }
    let mut out = String::with_capacity(text.len() + entry.len() + 64);
    if text.trim().is_empty() {
        out.push_str(&format_day_header(date));
    } else {
        out.push_str(text);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    if !out.ends_with("\n\n") {
        out.push('\n');
    }
    out.push_str(&entry);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_keeps_time_order() {
        use chrono::TimeZone;
        let date = NaiveDate::from_ymd_opt(2025, 10, 13).unwrap();
        let at = |h| Utc.with_ymd_and_hms(2025, 10, 13, h, 0, 0).unwrap();
        let mut text = String::new();
        for (i, h) in [9, 11, 10, 8, 12].into_iter().enumerate() {
            let day = parse_day_file(&text, "ws", date);
            let cp = Checkpoint::new(format!("id{i}"), at(h), "ws", format!("at {h}"));
            text = insert_entry(&text, date, &day, &cp);
        }
        let cps = crate::dayfile::parse_checkpoint_file(&text, "ws", date).unwrap();
        let hours: Vec<_> = cps.iter().map(|c| c.title().to_string()).collect();
        assert_eq!(hours, ["at 8", "at 9", "at 10", "at 11", "at 12"], "{text}");
    }
}
