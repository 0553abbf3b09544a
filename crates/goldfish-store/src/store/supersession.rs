//! Reading a workspace's supersession links from its day files; the rule of who replaces
//! whom is [`crate::supersede`]'s.

use std::collections::HashSet;
use std::path::PathBuf;

use chrono::NaiveDate;

use super::handle::Store;
use crate::dayfile::parse_day_bytes;
use crate::days;
use crate::error::Error;
use crate::supersede::{Supersession, SupersessionFacts};
use crate::workspace::validate_workspace;

/// The bytes that mark a day file with a link or a topic: only such files are parsed.
const MARKERS: [&[u8]; 2] = [b"**Supersedes**:", b"**Topic**:"];

impl Store {
    /// The supersession links of `workspace`, from all of its day files (in every place it
    /// is kept), by the rule of [`Supersession::from_facts`].
    ///
    /// Reads every day file: only those holding a `Supersedes` or `Topic` bullet are parsed,
    /// then, when some entry names others, the files holding those ids' text are parsed for
    /// their titles. A recall with its index does not call this: the index keeps the same
    /// facts. Unreadable files and entries are passed over, as
    /// [`checkpoints_between`](Self::checkpoints_between) passes them over.
    ///
    /// Errors: a bad workspace name ([`Error::is_invalid_input`]).
    pub fn supersession(&self, workspace: &str) -> Result<Supersession, Error> {
        let workspace = validate_workspace(workspace)?;
        // Reading order: directory, then date.
        let mut files: Vec<(NaiveDate, PathBuf)> = Vec::new();
        for dir in self.workspace_dirs(&workspace) {
            let mut here = Vec::new();
            days::list_day_files(&days::checkpoints_dir(&dir), |f| {
                here.push((f.date, f.path()));
            });
            here.sort();
            files.extend(here);
        }
        // (file, place in it) → facts, so that both passes merge in reading order.
        let mut facts: std::collections::BTreeMap<(usize, usize), SupersessionFacts> =
            std::collections::BTreeMap::new();
        let mut targets: HashSet<String> = HashSet::new();
        for (fi, (date, path)) in files.iter().enumerate() {
            let Ok(bytes) = std::fs::read(path) else {
                continue;
            };
            if !MARKERS
                .iter()
                .any(|m| memchr::memmem::find(&bytes, m).is_some())
            {
                continue;
            }
            for (ordinal, c) in parse_day_bytes(&bytes, &workspace, *date)
                .checkpoints
                .iter()
                .enumerate()
            {
                let f = SupersessionFacts::of(c);
                if f.says_something() {
                    targets.extend(f.supersedes.iter().cloned());
                    facts.insert((fi, ordinal), f);
                }
            }
        }
        // Every entry carrying a named id, for the titles (the first in reading order).
        if !targets.is_empty() {
            let finders: Vec<memchr::memmem::Finder<'_>> = targets
                .iter()
                .map(|id| memchr::memmem::Finder::new(id.as_bytes()))
                .collect();
            for (fi, (date, path)) in files.iter().enumerate() {
                let Ok(bytes) = std::fs::read(path) else {
                    continue;
                };
                if !finders.iter().any(|f| f.find(&bytes).is_some()) {
                    continue;
                }
                for (ordinal, c) in parse_day_bytes(&bytes, &workspace, *date)
                    .checkpoints
                    .iter()
                    .enumerate()
                {
                    if targets.contains(&c.id) {
                        facts
                            .entry((fi, ordinal))
                            .or_insert_with(|| SupersessionFacts::of(c));
                    }
                }
            }
        }
        Ok(Supersession::from_facts(facts.values()))
    }
}
