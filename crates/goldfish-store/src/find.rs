//! Finding one checkpoint by its id, for `goldfish show` and the `recall` tool's `id`.

use chrono::{DateTime, NaiveDate, Utc};

use crate::checkpoint::Checkpoint;
use crate::error::Error;
use crate::store::Store;
use crate::workspace::validate_workspace;

impl Store {
    /// The checkpoint whose id is `id`: looked for in `preferred` first (the caller's
    /// workspace), then in every other workspace of the store, in name order; `None` when no
    /// workspace holds it.
    ///
    /// An id made by goldfish begins with its UTC time (`20251013T093012345Z-3fa9c1`), so
    /// that day's file is read first; an id of another shape (an imported one), or one not
    /// found there, is looked for in every day file of the workspace. Unreadable day files
    /// and entries are passed over as [`checkpoints_between`](Self::checkpoints_between)
    /// passes them over.
    ///
    /// Errors: a bad workspace name ([`Error::is_invalid_input`]) or a store that cannot be
    /// listed.
    pub fn find_checkpoint(
        &self,
        preferred: Option<&str>,
        id: &str,
    ) -> Result<Option<Checkpoint>, Error> {
        let id = id.trim();
        if id.is_empty() {
            return Ok(None);
        }
        let mut order: Vec<String> = preferred.map(str::to_string).into_iter().collect();
        for ws in self.list_workspaces()? {
            if !order.contains(&ws) {
                order.push(ws);
            }
        }
        for ws in &order {
            if let Some(found) = self.find_checkpoint_in(ws, id)? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    /// The checkpoint of one (validated) workspace whose id is `id`: the day of the id's
    /// date first, then every day file.
    pub(crate) fn find_checkpoint_in(
        &self,
        workspace: &str,
        id: &str,
    ) -> Result<Option<Checkpoint>, Error> {
        let id = id.trim();
        if id.is_empty() {
            return Ok(None);
        }
        if let Some(date) = id_date(id)
            && let Some(found) = self
                .checkpoints_for_day(workspace, date)?
                .into_iter()
                .find(|c| c.id == id)
        {
            return Ok(Some(found));
        }
        let all = self.checkpoints_between(
            workspace,
            DateTime::<Utc>::MIN_UTC,
            DateTime::<Utc>::MAX_UTC,
        )?;
        Ok(all.checkpoints.into_iter().find(|c| c.id == id))
    }

    /// The checkpoint of `workspace` whose id is `id`, if any (see
    /// [`find_checkpoint`](Self::find_checkpoint), which looks in every workspace).
    pub fn find_in_workspace(
        &self,
        workspace: &str,
        id: &str,
    ) -> Result<Option<Checkpoint>, Error> {
        let workspace = validate_workspace(workspace)?;
        self.find_checkpoint_in(&workspace, id)
    }
}

/// The UTC date an id made by goldfish begins with (`20251013T…`).
pub(crate) fn id_date(id: &str) -> Option<NaiveDate> {
    let digits = id.get(..8)?;
    if id.as_bytes().get(8) != Some(&b'T') {
        return None;
    }
    NaiveDate::parse_from_str(digits, "%Y%m%d").ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::CheckpointInput;

    #[test]
    fn finds_by_id_in_the_preferred_workspace_then_the_others() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(dir.path()).expect("store");
        let mut saved = Vec::new();
        for ws in ["alpha", "beta"] {
            let mut input = CheckpointInput::new(format!("Saved in {ws}\nbody of {ws}"));
            input.workspace = Some(ws.into());
            saved.push(store.save_checkpoint(input).expect("save"));
        }
        let beta = &saved[1];
        let found = store
            .find_checkpoint(Some("alpha"), &beta.id)
            .expect("find");
        assert_eq!(found.as_ref().map(|c| c.workspace.as_str()), Some("beta"));
        assert_eq!(
            found.map(|c| c.description),
            Some("Saved in beta\nbody of beta".into())
        );
        assert_eq!(
            store
                .find_checkpoint(Some("alpha"), "20250101T000000000Z-none")
                .expect("find"),
            None
        );
        assert_eq!(store.find_checkpoint(None, "  ").expect("find"), None);
    }

    #[test]
    fn an_imported_id_is_found_in_any_day_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(dir.path()).expect("store");
        let t = chrono::TimeZone::with_ymd_and_hms(&Utc, 2024, 3, 9, 8, 0, 0)
            .single()
            .expect("a valid time");
        let c = Checkpoint::new("tusk-42", t, "gamma", "Imported from elsewhere");
        store.import_checkpoint(&c).expect("import");
        let found = store.find_checkpoint(None, "tusk-42").expect("find");
        assert_eq!(
            found.map(|c| c.title().to_string()),
            Some("Imported from elsewhere".into())
        );
    }

    #[test]
    fn an_id_names_its_day() {
        assert_eq!(
            id_date("20251013T093012345Z-3fa9c1"),
            NaiveDate::from_ymd_opt(2025, 10, 13)
        );
        assert_eq!(id_date("tusk-42"), None);
        assert_eq!(id_date("20251399T0"), None);
    }
}
