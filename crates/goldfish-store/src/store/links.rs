//! Supersession links added after the fact: a checkpoint already stored gains ids in its
//! `- **Supersedes**:` bullet (what `goldfish tidy --apply` does for a chain of decisions on
//! one subject that nobody linked at save time).

use std::path::Path;

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use goldfish_core::fs::{Update, WriteOptions, update_locked};

use super::handle::{Store, with_path_if_missing};
use super::workspaces::writable_workspace;
use crate::checkpoint::Checkpoint;
use crate::dayfile::{format_checkpoint, parse_day_file};
use crate::days;
use crate::error::{Error, ErrorKind};

/// The bullet that says when an entry was last changed after its save: a sync's merge keeps
/// the later edit when both machines changed the same entry.
pub const EDITED_KEY: &str = "Edited";

impl Store {
    /// Adds `older` to the `Supersedes` bullet of checkpoint `id` of `workspace` (those it
    /// does not name yet, in the order given), and sets its `- **Edited**:` bullet to now, so
    /// that a sync's merge prefers this version over an unchanged one elsewhere. Returns the
    /// ids added (empty when it named them all already: nothing is written).
    ///
    /// The entry is rewritten in place under its day file's lock (with the file's line
    /// endings); every other byte of the file stays as it was, and the file is read back
    /// before it is written: if any other entry would change, nothing is written and it is an
    /// error. An entry whose text is not what goldfish writes (edited by hand, or an older
    /// format) is not rewritten: an error ([`Error::is_parse`], naming the file). Errors
    /// also: no checkpoint `id` in the workspace ([`Error::is_not_found`]), an id that is
    /// `id` itself or holds a comma or a line break ([`Error::is_invalid_input`]).
    pub fn add_supersedes(
        &self,
        workspace: &str,
        id: &str,
        older: &[String],
    ) -> Result<Vec<String>, Error> {
        let ws = writable_workspace(workspace)?;
        for o in older {
            if o == id || o.trim().is_empty() || o.contains([',', '\n', '\r']) || o.trim() != o {
                return Err(Error::invalid(format!(
                    "cannot record {o:?} as superseded by {id:?}: not another checkpoint's id"
                )));
            }
        }
        let not_found = || {
            Error::new(
                ErrorKind::NotFound,
                format!("no checkpoint with id {id:?} in workspace {ws:?}"),
            )
        };
        let found = self.find_checkpoint_in(&ws, id)?.ok_or_else(not_found)?;
        let day = found.timestamp.date_naive();
        let now = self.now();
        for dir in self.workspace_dirs(&ws) {
            let path = days::day_file_in(&dir, day);
            if let Some(added) = link_in_file(&path, &ws, day, id, older, now)? {
                if !added.is_empty() {
                    self.invalidate_workspaces();
                }
                return Ok(added);
            }
        }
        Err(not_found())
    }
}

/// Adds the links in the day file at `path`; `None` when the file does not hold `id`.
fn link_in_file(
    path: &Path,
    workspace: &str,
    day: NaiveDate,
    id: &str,
    older: &[String],
    now: DateTime<Utc>,
) -> Result<Option<Vec<String>>, Error> {
    if !path.exists() {
        return Ok(None);
    }
    update_locked(path, &WriteOptions::private(), |current| {
        let Some(text) = current else {
            return Ok::<_, Error>(Update::Keep(None));
        };
        let parsed = parse_day_file(text, workspace, day);
        let Some(k) = parsed.checkpoints.iter().position(|c| c.id == id) else {
            return Ok(Update::Keep(None));
        };
        let mut changed: Checkpoint = parsed.checkpoints[k].clone();
        let added: Vec<String> = older
            .iter()
            .filter(|o| !changed.supersedes.contains(o))
            .fold(Vec::new(), |mut acc, o| {
                if !acc.contains(o) {
                    acc.push(o.clone());
                }
                acc
            });
        if added.is_empty() {
            return Ok(Update::Keep(Some(added)));
        }
        changed.supersedes.extend(added.iter().cloned());
        changed.extra.insert(
            EDITED_KEY.to_string(),
            now.to_rfc3339_opts(SecondsFormat::Millis, true),
        );
        // The block is the entry's text and the blank lines after it: the new entry takes the
        // text's place, the blank lines stay.
        // Only an entry written as the store writes it is rewritten: anything else in its text
        // (a hand edit, an older format's comment) would not survive the formatter.
        let block = &text[parsed.starts[k]..parsed.ends[k]];
        let trailing = block.len() - block.trim_end_matches(['\n', '\r']).len();
        let kept_tail = &block[block.len() - trailing..];
        let crlf = block.contains("\r\n");
        let as_written = |c: &Checkpoint| {
            let mut e = format_checkpoint(c);
            while e.ends_with('\n') {
                e.pop();
            }
            if crlf { e.replace('\n', "\r\n") } else { e }
        };
        if as_written(&parsed.checkpoints[k]) != block[..block.len() - trailing] {
            return Err(Error::new(
                ErrorKind::Parse,
                format!(
                    "the entry {id:?} is not written as goldfish writes entries (edited by hand, or an older format): nothing was written; add `- **Supersedes**: …` to it by hand"
                ),
            )
            .with_path(path));
        }
        let entry = as_written(&changed);
        let mut out = String::with_capacity(text.len() + 64);
        out.push_str(&text[..parsed.starts[k]]);
        out.push_str(&entry);
        out.push_str(match (kept_tail.is_empty(), crlf) {
            (false, _) => kept_tail,
            (true, true) => "\r\n",
            (true, false) => "\n",
        });
        out.push_str(&text[parsed.ends[k]..]);
        let back = parse_day_file(&out, workspace, day);
        let mut expected = parsed.checkpoints.clone();
        expected[k] = changed;
        if back.checkpoints != expected || back.problems.len() != parsed.problems.len() {
            return Err(Error::new(
                ErrorKind::Parse,
                format!(
                    "adding the supersession link to {id:?} would change other entries of this day file; nothing was written (add `- **Supersedes**: …` by hand)"
                ),
            )
            .with_path(path));
        }
        Ok(Update::Write(out, Some(added)))
    })
    .map_err(|e| with_path_if_missing(e, path))
}
