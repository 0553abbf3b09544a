//! Reading and updating the record of returns ([`crate::returns`]) of a store.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use goldfish_core::fs::{Update, WriteOptions, read_utf8_opt, update_locked};

use super::handle::{Store, with_path_if_missing};
use crate::error::Error;
use crate::returns::{RETURNS_DIR, Returns, format_returns, parse_returns};
use crate::workspace::validate_workspace;

/// The record of `workspace` in the store at `root`.
fn record_path(root: &Path, workspace: &str) -> PathBuf {
    root.join(RETURNS_DIR).join(format!("{workspace}.txt"))
}

fn options() -> WriteOptions {
    // A record of what was shown, not memory: losing the last write to a power cut is
    // harmless, and a recall or a hook must stay fast.
    let mut o = WriteOptions::private();
    o.durable = false;
    o
}

/// Records that a recall or a hook returned the memories `ids` of `workspace` on `day`, in
/// the store at `root` (for a caller that holds no [`Store`], such as a hook). Writes only
/// when something changes: a memory returned again the same day costs one read. A record
/// that cannot be read as one begins again from `day` (it is a cache).
///
/// Errors: a bad workspace name, or the record cannot be read or written.
pub fn note_returned(
    root: &Path,
    workspace: &str,
    ids: &[String],
    day: NaiveDate,
) -> Result<(), Error> {
    let workspace = validate_workspace(workspace)?;
    if ids.is_empty() {
        return Ok(());
    }
    let path = record_path(root, &workspace);
    let read = |text: Option<&str>| {
        text.and_then(|t| parse_returns(t).ok())
            .unwrap_or_else(|| Returns::beginning(day))
    };
    // Most returns repeat a memory already returned today: no lock, no write.
    if read_utf8_opt(&path)
        .ok()
        .flatten()
        .is_some_and(|t| read(Some(&t)).has_all(ids, day))
    {
        return Ok(());
    }
    update_locked(&path, &options(), |current| {
        let mut record = read(current);
        Ok::<_, Error>(if record.note(ids, day) {
            Update::Write(format_returns(&record), ())
        } else {
            Update::Keep(())
        })
    })
    .map_err(|e| with_path_if_missing(e, &path))
}

impl Store {
    /// [`note_returned`] for this store, on the store's clock's day.
    pub fn note_returned(&self, workspace: &str, ids: &[String]) -> Result<(), Error> {
        note_returned(self.root(), workspace, ids, self.now().date_naive())
    }

    /// The record of returns of `workspace` (empty, with no `since`, when there is none).
    ///
    /// Errors: a bad workspace name; the record cannot be read, or a line of it is not one
    /// ([`Error::is_parse`], naming the file and line).
    pub fn returned(&self, workspace: &str) -> Result<Returns, Error> {
        let workspace = validate_workspace(workspace)?;
        let path = record_path(self.root(), &workspace);
        let Some(text) = read_utf8_opt(&path).map_err(Error::from)? else {
            return Ok(Returns::default());
        };
        parse_returns(&text).map_err(|p| Error::parse(Some(p.line), p.message).with_path(&path))
    }
}
