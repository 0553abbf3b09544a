//! Imports: checkpoints and plans written exactly as given (from another store, a v4 store or
//! a sync), idempotently: what is already there is not written twice, and an id taken by
//! different content gets a derived id instead of being dropped.

use std::collections::{HashMap, HashSet};

use chrono::NaiveDate;
use goldfish_core::fs::{Update, WriteOptions, update_locked};

use super::checkpoints::insert_entry;
use super::handle::{Store, with_path_if_missing};
use super::plans::validate_plan_id;
use super::workspaces::writable_workspace;
use crate::checkpoint::Checkpoint;
use crate::dayfile::{
    Fnv64, clean_tags, format_checkpoint, format_day_header, is_valid_extra_key, parse_day_file,
};
use crate::error::Error;
use crate::plan::{Plan, format_plan};
use crate::redaction::{Redaction, Saved, redact_checkpoint, redact_json};

/// What [`Store::import_checkpoint`] did with one checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Imported {
    /// Added under its own id.
    Added,
    /// Already there with the same content (under its id, or under the id derived for it
    /// earlier): nothing written.
    Present,
    /// Its id was taken by an entry with different content: added under this derived id.
    AddedAs(String),
    /// A tombstone of its workspace names it (it was forgotten on purpose): not written.
    /// [`Store::unforget`] takes the tombstone back first for an import meant to restore it.
    Forgotten,
}

impl Imported {
    /// Whether this import wrote the checkpoint.
    pub fn added(&self) -> bool {
        !matches!(self, Imported::Present | Imported::Forgotten)
    }
}

impl Store {
    /// Adds `checkpoint` exactly as given (its id, timestamp and every field) to its
    /// workspace, unless an entry with the same id and the same content is already in its day
    /// file: then nothing is written ([`Imported::Present`]). An entry with the same id and
    /// different content is never dropped: it is added under a derived id,
    /// `{id}-dup-{hash}` with a hash of its content ([`Imported::AddedAs`]), so importing it
    /// again finds it there. This is how imports stay idempotent: an entry imported twice
    /// keeps one copy, and other writers' entries are kept (the day file is re-read under its
    /// lock, as by [`save_checkpoint`](Self::save_checkpoint)).
    ///
    /// Errors: an empty id, a blank description, a tag with a line break (or blank, repeated
    /// or padded), a bad workspace name or confidence ([`Error::is_invalid_input`]); a day
    /// file that cannot be read or written, named in the message (a day file holding invalid
    /// UTF-8 is left alone).
    ///
    /// A checkpoint whose id a tombstone of its workspace names is not written
    /// ([`Imported::Forgotten`]): an import never brings back a forgotten memory.
    pub fn import_checkpoint(&self, checkpoint: &Checkpoint) -> Result<Imported, Error> {
        self.import_checkpoints(std::slice::from_ref(checkpoint))
            .pop()
            .unwrap_or(Ok(Imported::Present))
    }

    /// [`import_checkpoint`](Self::import_checkpoint) for many checkpoints: those of one day
    /// file are written in one locked update (one rewrite and fsync per day file, not per
    /// entry). Returns one result per checkpoint, in order: a refused checkpoint does not
    /// stop the others. An entry given twice with the same content is added once; with
    /// different content, the later one is added under a derived id.
    pub fn import_checkpoints(&self, checkpoints: &[Checkpoint]) -> Vec<Result<Imported, Error>> {
        self.import_checkpoints_reported(checkpoints)
            .into_iter()
            .map(|r| r.map(|saved| saved.value))
            .collect()
    }

    /// [`import_checkpoints`](Self::import_checkpoints), also saying which secrets each
    /// checkpoint had replaced by `[REDACTED:<kind>]`. An import is a write like a save:
    /// every checkpoint goes through the same redaction step before anything is compared or
    /// written, so a secret in any field (description, typed fields, tags, files, branch,
    /// commit, extra bullets) never reaches the day file.
    pub fn import_checkpoints_reported(
        &self,
        checkpoints: &[Checkpoint],
    ) -> Vec<Result<Saved<Imported>, Error>> {
        let redactor = match self.redactor() {
            Ok(r) => r,
            Err(e) => {
                let message = e.to_string();
                return checkpoints
                    .iter()
                    .map(|_| Err(Error::invalid(message.clone())))
                    .collect();
            }
        };
        let mut results: Vec<Option<Result<Saved<Imported>, Error>>> = Vec::new();
        results.resize_with(checkpoints.len(), || None);
        // Valid entries grouped by day file, in their given order.
        let mut groups: Vec<((String, NaiveDate), Vec<usize>)> = Vec::new();
        for (i, checkpoint) in checkpoints.iter().enumerate() {
            match check_import(checkpoint) {
                Ok(workspace) => {
                    let key = (workspace, checkpoint.timestamp.date_naive());
                    match groups.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, list)) => list.push(i),
                        None => groups.push((key, vec![i])),
                    }
                }
                Err(e) => results[i] = Some(Err(e)),
            }
        }
        let mut forgotten: HashMap<String, Result<HashSet<String>, String>> = HashMap::new();
        for ((workspace, date), mut indices) in groups {
            let gone = forgotten
                .entry(workspace.clone())
                .or_insert_with(|| self.forgotten_ids(&workspace).map_err(|e| e.to_string()));
            match gone {
                Ok(gone) => indices.retain(|&i| {
                    let forgotten = gone.contains(&checkpoints[i].id);
                    if forgotten {
                        results[i] = Some(Ok(Saved::new(Imported::Forgotten, Vec::new())));
                    }
                    !forgotten
                }),
                Err(message) => {
                    for &i in &indices {
                        results[i] = Some(Err(Error::invalid(message.clone())));
                    }
                    continue;
                }
            }
            if indices.is_empty() {
                continue;
            }
            let path = match self.day_file_path(&workspace, date) {
                Ok(p) => p,
                Err(e) => {
                    for &i in &indices {
                        results[i] = Some(Err(Error::invalid(e.to_string())));
                    }
                    continue;
                }
            };
            let (entries, redacted): (Vec<Checkpoint>, Vec<Vec<Redaction>>) = indices
                .iter()
                .map(|&i| {
                    let mut entry = checkpoints[i].clone();
                    entry.workspace = workspace.clone();
                    entry.timestamp = goldfish_core::time::truncate_millis(entry.timestamp);
                    let redacted = redact_checkpoint(redactor, &mut entry);
                    (entry, redacted)
                })
                .unzip();
            let outcome = update_locked(&path, &WriteOptions::private(), |current| {
                let (text, added) =
                    merge_imports(current.unwrap_or(""), &workspace, date, &entries);
                Ok::<_, Error>(match text {
                    Some(text) => Update::Write(text, added),
                    None => Update::Keep(added),
                })
            })
            .map_err(|e| with_path_if_missing(e, &path));
            match outcome {
                Ok(added) => {
                    for ((&i, a), r) in indices.iter().zip(added).zip(redacted) {
                        results[i] = Some(Ok(Saved::new(a, r)));
                    }
                }
                Err(e) => {
                    let message = e.to_string();
                    for &i in &indices {
                        results[i] = Some(Err(Error::invalid(message.clone())));
                    }
                }
            }
        }
        self.invalidate_workspaces();
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Ok(Saved::new(Imported::Present, Vec::new()))))
            .collect()
    }

    /// Writes `plan` exactly as given (timestamps, status, tags, content, unknown keys)
    /// unless its workspace already has a plan with its id and the same text: then nothing
    /// is written ([`Imported::Present`]). A plan whose id is taken by a plan with different
    /// text is written under `{id}-dup-{hash}`, a hash of its text ([`Imported::AddedAs`]),
    /// never dropped. With `activate`, it becomes the active plan when the workspace has
    /// none. A plan a tombstone names is not written ([`Imported::Forgotten`]).
    pub fn import_plan(&self, plan: &Plan, activate: bool) -> Result<Imported, Error> {
        self.import_plan_reported(plan, activate)
            .map(|saved| saved.value)
    }

    /// [`import_plan`](Self::import_plan), also saying which secrets the plan had replaced
    /// by `[REDACTED:<kind>]`: its title, content, tags and unknown frontmatter keys go
    /// through the same redaction step as a plan saved by [`save_plan`](Self::save_plan).
    pub fn import_plan_reported(
        &self,
        plan: &Plan,
        activate: bool,
    ) -> Result<Saved<Imported>, Error> {
        let workspace = writable_workspace(&plan.workspace)?;
        let id = validate_plan_id(&plan.id)?;
        if id != plan.id {
            return Err(Error::invalid(format!(
                "plan id {:?} is not a plan id; use {id:?}",
                plan.id
            )));
        }
        if plan.title.contains(['\n', '\r']) {
            return Err(Error::invalid(format!(
                "plan {id}: the title must be one line"
            )));
        }
        clean_tags(&plan.tags)?;
        if self.forgotten_ids(&workspace)?.contains(&id) {
            return Ok(Saved::new(Imported::Forgotten, Vec::new()));
        }
        let mut plan = plan.clone();
        plan.workspace = workspace.clone();
        let mut redacted = self.redact_plan_texts(
            Some(&mut plan.title),
            Some(&mut plan.content),
            Some(&mut plan.tags),
        )?;
        // Frontmatter keys goldfish does not know come from the source as they were.
        let redactor = self.redactor()?;
        for (key, value) in &mut plan.extra {
            redact_json(redactor, key, value, &mut redacted);
        }
        let text = format_plan(&plan);
        let write = |id: &str| {
            let path = self.plan_path(&workspace, id);
            update_locked(&path, &WriteOptions::private(), |current| match current {
                Some(current) => Ok::<_, Error>(Update::Keep(Some(current == text))),
                None => Ok(Update::Write(text.clone(), None)),
            })
            .map_err(|e| with_path_if_missing(e, &path))
        };
        let imported = match write(&id)? {
            None => Imported::Added,
            Some(true) => Imported::Present,
            Some(false) => {
                let mut hasher = Fnv64::new();
                hasher.write(text.as_bytes());
                let derived = format!("{id}-dup-{:08x}", hasher.finish() as u32);
                plan.id = derived.clone();
                let text = format_plan(&plan);
                let path = self.plan_path(&workspace, &derived);
                let written =
                    update_locked(&path, &WriteOptions::private(), |current| match current {
                        Some(current) if current == text => Ok::<_, Error>(Update::Keep(false)),
                        Some(_) => Err(Error::invalid(format!(
                            "plan {id} has different content from the plan already there, \
                             and so has its derived id {derived}"
                        ))),
                        None => Ok(Update::Write(text.clone(), true)),
                    })
                    .map_err(|e| with_path_if_missing(e, &path))?;
                if written {
                    Imported::AddedAs(derived)
                } else {
                    Imported::Present
                }
            }
        };
        if imported == Imported::Added
            && activate
            && self.active_plan(&workspace).ok().flatten().is_none()
        {
            self.write_active(&workspace, &id)?;
        }
        self.invalidate_workspaces();
        Ok(Saved::new(imported, redacted))
    }
}

/// What [`Store::import_checkpoint`] refuses; returns the validated workspace.
fn check_import(checkpoint: &Checkpoint) -> Result<String, Error> {
    if checkpoint.id.trim().is_empty() {
        return Err(Error::invalid("an imported checkpoint needs an id"));
    }
    if checkpoint.description.trim().is_empty() {
        return Err(Error::invalid(format!(
            "checkpoint {} has no description",
            checkpoint.id
        )));
    }
    if clean_tags(&checkpoint.tags)? != checkpoint.tags {
        return Err(Error::invalid(format!(
            "checkpoint {} has blank, repeated or padded tags",
            checkpoint.id
        )));
    }
    if let Some(key) = checkpoint.extra.keys().find(|k| !is_valid_extra_key(k)) {
        return Err(Error::invalid(format!(
            "checkpoint {} has the extra bullet {key:?}, which a day file cannot hold (a \
             reserved key such as \"Tags\", or a line break); rename it",
            checkpoint.id
        )));
    }
    checkpoint.structured.validate()?;
    writable_workspace(&checkpoint.workspace)
}

/// Decides where an imported `entry` goes among the entries `held` (by id) of its day file:
/// its own id when free, nowhere when an entry with that id holds the same content, else
/// `{id}-dup-{hash}` (the hash of its formatted content, so a second import of it finds it).
/// An entry to write is pushed onto `new` and into `held`.
fn place_import(
    entry: &Checkpoint,
    held: &mut HashMap<String, Checkpoint>,
    new: &mut Vec<Checkpoint>,
) -> Imported {
    let Some(there) = held.get(&entry.id) else {
        held.insert(entry.id.clone(), entry.clone());
        new.push(entry.clone());
        return Imported::Added;
    };
    if there == entry {
        return Imported::Present;
    }
    let mut hasher = Fnv64::new();
    hasher.write(format_checkpoint(entry).as_bytes());
    let id = format!("{}-dup-{:08x}", entry.id, hasher.finish() as u32);
    let mut renamed = entry.clone();
    renamed.id = id.clone();
    if held.get(&id).is_some_and(|c| *c == renamed) {
        return Imported::Present;
    }
    held.insert(id.clone(), renamed.clone());
    new.push(renamed);
    Imported::AddedAs(id)
}

/// The day file's text with the imported `entries` placed (see [`place_import`]), and what
/// became of each; `None` for the text when nothing is new.
fn merge_imports(
    current: &str,
    workspace: &str,
    date: NaiveDate,
    entries: &[Checkpoint],
) -> (Option<String>, Vec<Imported>) {
    let mut text = current.to_string();
    let mut parsed = parse_day_file(&text, workspace, date);
    let mut held: HashMap<String, Checkpoint> = parsed
        .checkpoints
        .iter()
        .map(|c| (c.id.clone(), c.clone()))
        .collect();
    let mut new: Vec<Checkpoint> = Vec::new();
    let added: Vec<Imported> = entries
        .iter()
        .map(|e| place_import(e, &mut held, &mut new))
        .collect();
    new.sort_by_key(|e| e.timestamp);
    let last = parsed.checkpoints.iter().map(|c| c.timestamp).max();
    if new
        .first()
        .is_some_and(|first| last.is_none_or(|l| l <= first.timestamp))
    {
        // The usual case, entries later than all others: appended in one go, as
        // `insert_entry` would place them one by one.
        if text.trim().is_empty() {
            text = format_day_header(date);
        } else if !text.ends_with('\n') {
            text.push('\n');
        }
        for entry in &new {
            if !text.ends_with("\n\n") {
                text.push('\n');
            }
            text.push_str(&format_checkpoint(entry));
        }
    } else {
        for entry in &new {
            text = insert_entry(&text, date, &parsed, entry);
            parsed = parse_day_file(&text, workspace, date);
        }
    }
    (if new.is_empty() { None } else { Some(text) }, added)
}
