//! Forgetting: a checkpoint or plan taken out of the store on purpose, with a tombstone
//! (id, time, who; never the text) that keeps it out on every machine and every import.
//!
//! Order of writes: the tombstone first, then the files. A process killed between the two
//! leaves a tombstone whose memory is still in its file; the next forget or
//! [`Store::apply_tombstones`] (every sync runs it) finishes the job, and nothing can bring
//! the memory back meanwhile.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use goldfish_core::fs::{Update, WriteOptions, lock_exclusive, read_utf8_opt, update_locked};

use super::handle::{Store, with_path_if_missing};
use super::plans::validate_plan_id;
use super::workspaces::writable_workspace;
use crate::checkpoint::Checkpoint;
use crate::dayfile::{format_day_header, parse_day_file};
use crate::days;
use crate::error::{Error, ErrorKind};
use crate::tombstone::{
    Forgotten, TOMBSTONE_FILE, Tombstone, format_tombstone, format_tombstone_header,
    is_tombstone_id, parse_tombstones,
};
use crate::workspace::validate_workspace;

/// The key of a preserved merge version (`- **Merge conflict**: ID`): forgetting `ID` also
/// forgets the versions preserved beside it.
const MERGE_CONFLICT_KEY: &str = "Merge conflict";

/// One memory a forget took out (or, in a dry run, would take out).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ForgottenMemory {
    /// Its workspace.
    pub workspace: String,
    /// What it was (`kind`, `id`, `day`), and the tombstone's time (`at`) and author
    /// (`by`); flat in JSON.
    #[serde(flatten)]
    pub tombstone: Tombstone,
    /// Its title as it was stored (the checkpoint's first line, the plan's title), for the
    /// person who asked; never written to the tombstone.
    pub title: String,
    /// The files it was removed from (or would be).
    pub files: Vec<PathBuf>,
}

/// What [`Store::forget_checkpoints`] and [`Store::forget_plan`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ForgetReport {
    /// Nothing was written: this is what would go.
    pub dry_run: bool,
    /// The memories forgotten now (or that would be).
    pub forgotten: Vec<ForgottenMemory>,
    /// Ids asked for that were already forgotten (a tombstone names them; nothing to do).
    pub already_forgotten: Vec<String>,
}

impl Store {
    /// Forgets the checkpoints `ids`: each leaves its day file (rewritten atomically under
    /// its lock; the day file stays, with its header, when it was the last entry), and a
    /// tombstone naming it (id, day, time, `by`; never its text) is added to its workspace's
    /// [`TOMBSTONE_FILE`], so that sync removes it on every machine and imports skip it.
    /// Versions of it preserved by a sync merge (`{id}.merge-conflict`) go with it.
    ///
    /// Each id is looked for in `workspace` first, then in every workspace (as
    /// [`find_checkpoint`](Self::find_checkpoint)). Every id is resolved before anything is
    /// written: an unknown id is an error ([`Error::is_not_found`]) and nothing is forgotten.
    /// An id a tombstone already names is listed in
    /// [`already_forgotten`](ForgetReport::already_forgotten). With `dry_run`, nothing is
    /// written and the report says what would go.
    ///
    /// Forgetting removes the text from the store's files; the search index and the vectors
    /// are caches that the recall crate refreshes. Git history of a synced store still holds
    /// the text (see the crate documentation, "Forgetting").
    pub fn forget_checkpoints(
        &self,
        ids: &[String],
        workspace: Option<&str>,
        by: &str,
        dry_run: bool,
    ) -> Result<ForgetReport, Error> {
        let preferred = workspace.map(validate_workspace).transpose()?;
        let mut report = ForgetReport {
            dry_run,
            ..ForgetReport::default()
        };
        let mut found: Vec<(String, Checkpoint)> = Vec::new();
        for id in ids.iter().map(|i| i.trim()) {
            if id.is_empty() || found.iter().any(|(_, c)| c.id == id) {
                continue;
            }
            if let Some(c) = self.find_checkpoint(preferred.as_deref(), id)? {
                if !is_tombstone_id(&c.id) {
                    return Err(Error::invalid(format!(
                        "checkpoint id {id:?} holds a space or a comma and cannot be forgotten by id; remove it from its day file by hand"
                    )));
                }
                found.push((c.workspace.clone(), c));
            } else if self.is_forgotten_anywhere(preferred.as_deref(), id)? {
                report.already_forgotten.push(id.to_string());
            } else {
                return Err(Error::new(
                    ErrorKind::NotFound,
                    format!(
                        "no checkpoint with id {id:?} in the store; nothing was forgotten (`goldfish recall` shows ids)"
                    ),
                ));
            }
        }
        let at = self.now();
        let mut by_workspace: BTreeMap<String, Vec<ForgottenMemory>> = BTreeMap::new();
        for (ws, c) in found {
            writable_workspace(&ws)?;
            let day = c.timestamp.date_naive();
            let files = self
                .workspace_dirs(&ws)
                .into_iter()
                .map(|dir| days::day_file_in(&dir, day))
                .filter(|p| p.exists())
                .collect();
            by_workspace
                .entry(ws.clone())
                .or_default()
                .push(ForgottenMemory {
                    workspace: ws,
                    tombstone: Tombstone::new(
                        Forgotten::Checkpoint {
                            id: c.id.clone(),
                            day,
                        },
                        at,
                        by,
                    ),
                    title: c.title().to_string(),
                    files,
                });
        }
        for (ws, memories) in by_workspace {
            if !dry_run {
                let stones: Vec<&Tombstone> = memories.iter().map(|m| &m.tombstone).collect();
                self.add_tombstones(&ws, &stones)?;
                self.remove_forgotten(&ws, &stones)?;
            }
            report.forgotten.extend(memories);
        }
        if !dry_run {
            self.invalidate_workspaces();
        }
        Ok(report)
    }

    /// Forgets (deletes) plan `id` of `workspace`: its file is removed, from every directory
    /// of the workspace, and a tombstone is added as by
    /// [`forget_checkpoints`](Self::forget_checkpoints). A workspace whose active plan it was
    /// has no active plan after it. Errors: an unknown plan ([`Error::is_not_found`]), a bad
    /// id or workspace ([`Error::is_invalid_input`]).
    pub fn forget_plan(
        &self,
        workspace: &str,
        id: &str,
        by: &str,
        dry_run: bool,
    ) -> Result<ForgetReport, Error> {
        let ws = writable_workspace(workspace)?;
        let id = validate_plan_id(id)?;
        let mut report = ForgetReport {
            dry_run,
            ..ForgetReport::default()
        };
        let plan = match self.get_plan(&ws, &id) {
            Ok(plan) => plan,
            Err(e) if e.is_not_found() && self.is_forgotten(&ws, &id)? => {
                report.already_forgotten.push(id);
                return Ok(report);
            }
            Err(e) => return Err(e),
        };
        let files = self
            .plan_files(&ws, &id)
            .into_iter()
            .filter(|p| p.exists())
            .collect();
        let memory = ForgottenMemory {
            workspace: ws.clone(),
            tombstone: Tombstone::new(Forgotten::Plan { id }, self.now(), by),
            title: plan.title,
            files,
        };
        if !dry_run {
            self.add_tombstones(&ws, &[&memory.tombstone])?;
            self.remove_forgotten(&ws, &[&memory.tombstone])?;
        }
        report.forgotten.push(memory);
        Ok(report)
    }

    /// The tombstones of `workspace`, from every directory it is kept in, in file order.
    /// Errors: a tombstone file that cannot be read, or a line of it that is not a tombstone
    /// ([`Error::is_parse`], naming the file and line).
    pub fn tombstones(&self, workspace: &str) -> Result<Vec<Tombstone>, Error> {
        let ws = validate_workspace(workspace)?;
        let mut out = Vec::new();
        for dir in self.workspace_dirs(&ws) {
            let path = dir.join(TOMBSTONE_FILE);
            let Some(text) = read_utf8_opt(&path).map_err(Error::from)? else {
                continue;
            };
            let stones = parse_tombstones(&text)
                .map_err(|p| Error::parse(Some(p.line), p.message).with_path(&path))?;
            out.extend(stones);
        }
        Ok(out)
    }

    /// The ids `workspace`'s tombstones name (checkpoints and plans alike).
    pub fn forgotten_ids(&self, workspace: &str) -> Result<HashSet<String>, Error> {
        Ok(self
            .tombstones(workspace)?
            .into_iter()
            .map(|t| t.what.id().to_string())
            .collect())
    }

    /// Removes, in every workspace, what a tombstone names and a file still holds (an entry a
    /// sync brought back from a machine that had not heard of the forget yet, a forget cut
    /// short). Returns the workspace and tombstone of each that removed something.
    /// Idempotent.
    pub fn apply_tombstones(&self) -> Result<Vec<(String, Tombstone)>, Error> {
        let mut applied = Vec::new();
        for ws in self.list_workspaces()? {
            let stones = self.tombstones(&ws)?;
            if stones.is_empty() {
                continue;
            }
            let refs: Vec<&Tombstone> = stones.iter().collect();
            let removed = self.remove_forgotten(&ws, &refs)?;
            applied.extend(removed.into_iter().map(|t| (ws.clone(), t.clone())));
        }
        if !applied.is_empty() {
            self.invalidate_workspaces();
        }
        Ok(applied)
    }

    /// Takes back the tombstones of `ids` in `workspace` (an import that was asked to bring
    /// forgotten memories back). Returns how many lines were removed.
    pub fn unforget(&self, workspace: &str, ids: &[String]) -> Result<usize, Error> {
        let ws = writable_workspace(workspace)?;
        let ids: HashSet<&str> = ids.iter().map(String::as_str).collect();
        let mut removed = 0;
        for dir in self.workspace_dirs(&ws) {
            let path = dir.join(TOMBSTONE_FILE);
            if !path.exists() {
                continue;
            }
            removed += update_locked(&path, &WriteOptions::private(), |current| {
                let text = current.unwrap_or("");
                let stones = parse_tombstones(text)
                    .map_err(|p| Error::parse(Some(p.line), p.message).with_path(&path))?;
                let mut dropped = 0;
                let mut out = String::with_capacity(text.len());
                let mut stones = stones.into_iter();
                for line in text.split_inclusive('\n') {
                    if line.starts_with("- ") {
                        let t = stones.next();
                        if t.is_some_and(|t| ids.contains(t.what.id())) {
                            dropped += 1;
                            continue;
                        }
                    }
                    out.push_str(line);
                }
                Ok::<_, Error>(if dropped == 0 {
                    Update::Keep(0)
                } else {
                    Update::Write(out, dropped)
                })
            })
            .map_err(|e| with_path_if_missing(e, &path))?;
        }
        Ok(removed)
    }

    fn is_forgotten(&self, workspace: &str, id: &str) -> Result<bool, Error> {
        Ok(self
            .tombstones(workspace)?
            .iter()
            .any(|t| t.what.id() == id))
    }

    fn is_forgotten_anywhere(&self, preferred: Option<&str>, id: &str) -> Result<bool, Error> {
        if let Some(ws) = preferred
            && self.is_forgotten(ws, id)?
        {
            return Ok(true);
        }
        for ws in self.list_workspaces()? {
            if self.is_forgotten(&ws, id)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn plan_files(&self, workspace: &str, id: &str) -> Vec<PathBuf> {
        self.workspace_dirs(workspace)
            .into_iter()
            .map(|dir| dir.join("plans").join(format!("{id}.md")))
            .collect()
    }

    /// Appends the tombstones not already in the workspace's file (creating it with its
    /// header), under its lock.
    fn add_tombstones(&self, workspace: &str, stones: &[&Tombstone]) -> Result<(), Error> {
        let path = self.workspace_dir(workspace)?.join(TOMBSTONE_FILE);
        update_locked(&path, &WriteOptions::private(), |current| {
            let mut text = match current {
                Some(t) if !t.trim().is_empty() => t.to_string(),
                _ => format_tombstone_header(workspace),
            };
            let known: HashSet<Forgotten> = parse_tombstones(&text)
                .map_err(|p| Error::parse(Some(p.line), p.message).with_path(&path))?
                .into_iter()
                .map(|t| t.what)
                .collect();
            let new: Vec<&&Tombstone> =
                stones.iter().filter(|t| !known.contains(&t.what)).collect();
            if new.is_empty() {
                return Ok::<_, Error>(Update::Keep(()));
            }
            if !text.ends_with('\n') {
                text.push('\n');
            }
            for t in new {
                text.push_str(&format_tombstone(t));
            }
            Ok(Update::Write(text, ()))
        })
        .map_err(|e| with_path_if_missing(e, &path))
    }

    /// Removes what `stones` name from the workspace's files; returns those that removed
    /// something.
    fn remove_forgotten<'a>(
        &self,
        workspace: &str,
        stones: &[&'a Tombstone],
    ) -> Result<Vec<&'a Tombstone>, Error> {
        let mut by_day: BTreeMap<chrono::NaiveDate, BTreeSet<&str>> = BTreeMap::new();
        let mut plans: Vec<&'a Tombstone> = Vec::new();
        for t in stones {
            match &t.what {
                Forgotten::Checkpoint { id, day } => {
                    by_day.entry(*day).or_default().insert(id.as_str());
                }
                Forgotten::Plan { .. } => plans.push(t),
            }
        }
        let mut hit: HashSet<&str> = HashSet::new();
        let dirs = self.workspace_dirs(workspace);
        for (day, ids) in &by_day {
            for dir in &dirs {
                let path = days::day_file_in(dir, *day);
                for id in remove_entries(&path, workspace, *day, ids)? {
                    if let Some(known) = ids.get(id.as_str()) {
                        hit.insert(known);
                    }
                }
            }
        }
        for t in plans {
            let id = t.what.id();
            if validate_plan_id(id).is_err() {
                continue;
            }
            for path in self.plan_files(workspace, id) {
                if remove_file_locked(&path)? {
                    hit.insert(id);
                }
            }
        }
        Ok(stones
            .iter()
            .copied()
            .filter(|t| hit.contains(t.what.id()))
            .collect())
    }
}

/// Removes from the day file at `path` the entries whose id is in `ids`, or that preserve a
/// merge version of one; returns the removed ids. The rest of the file is kept byte for byte;
/// a file left with no entry keeps its header. The result is read back before it is written:
/// if any other entry or unreadable block would change, nothing is written and it is an error.
fn remove_entries(
    path: &Path,
    workspace: &str,
    day: chrono::NaiveDate,
    ids: &BTreeSet<&str>,
) -> Result<Vec<String>, Error> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    update_locked(path, &WriteOptions::private(), |current| {
        let Some(text) = current else {
            return Ok::<_, Error>(Update::Keep(Vec::new()));
        };
        let parsed = parse_day_file(text, workspace, day);
        let goes = |c: &Checkpoint| {
            ids.contains(c.id.as_str())
                || c.extra
                    .get(MERGE_CONFLICT_KEY)
                    .is_some_and(|of| ids.contains(of.trim()))
        };
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        let mut removed = Vec::new();
        for (k, c) in parsed.checkpoints.iter().enumerate() {
            if goes(c) {
                out.push_str(&text[at..parsed.starts[k]]);
                at = parsed.ends[k];
                removed.push(c.id.clone());
            }
        }
        if removed.is_empty() {
            return Ok(Update::Keep(removed));
        }
        let last_removed = at == text.len();
        out.push_str(&text[at..]);
        // The blank line that separated a removed last entry from the one before it.
        while last_removed && out.ends_with("\n\n") {
            out.pop();
        }
        if out.trim().is_empty() {
            out = format_day_header(day);
        }
        let back = parse_day_file(&out, workspace, day);
        let kept: Vec<&Checkpoint> = parsed.checkpoints.iter().filter(|c| !goes(c)).collect();
        let back_refs: Vec<&Checkpoint> = back.checkpoints.iter().collect();
        if back_refs != kept || back.problems.len() != parsed.problems.len() {
            return Err(Error::new(
                ErrorKind::Parse,
                "removing the forgotten entries would change other entries of this day file; nothing was written (remove them by hand)",
            )
            .with_path(path));
        }
        Ok(Update::Write(out, removed))
    })
    .map_err(|e| with_path_if_missing(e, path))
}

/// Removes `path` under its lock; false when it was not there.
fn remove_file_locked(path: &Path) -> Result<bool, Error> {
    if !path.exists() {
        return Ok(false);
    }
    let _lock = lock_exclusive(path, &WriteOptions::private())?;
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::new(ErrorKind::Io, format!("cannot remove it: {e}")).with_path(path)),
    }
}
