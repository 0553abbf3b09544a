//! Plans: saving, reading, listing and updating them, and the workspace's active plan.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use goldfish_core::fs::{
    FsError, Update, WriteOptions, is_lock_file_name, is_temp_file_name, read_utf8_opt,
    update_locked,
};

use super::handle::{Store, with_path_if_missing};
use super::workspaces::writable_workspace;
use crate::dayfile::clean_tags;
use crate::error::{Error, ErrorKind};
use crate::plan::{Plan, PlanStatus, format_plan, parse_plan};
use crate::redaction::{Redaction, Saved, redact_field};
use crate::skipped::Skipped;
use crate::workspace::{reject_escapes, slugify, validate_workspace};

/// What to save as a plan; see [`Store::save_plan`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PlanInput {
    /// The id; `None` derives it from the title (`"Auth System"` → `auth-system`).
    pub id: Option<String>,
    /// The title (one line); empty uses the id.
    pub title: String,
    /// The markdown body, stored and returned exactly.
    pub content: String,
    /// The status; `None` keeps an existing plan's status, and is `active` for a new one.
    pub status: Option<PlanStatus>,
    /// Tags; none may contain a comma or a line break.
    pub tags: Vec<String>,
    /// The workspace; `None` resolves it like
    /// [`CheckpointInput::workspace`](crate::CheckpointInput::workspace).
    pub workspace: Option<String>,
    /// Make this the workspace's active plan.
    pub activate: bool,
}

impl PlanInput {
    /// An input with this title and content (its id derived from the title).
    pub fn new(title: impl Into<String>, content: impl Into<String>) -> Self {
        PlanInput {
            title: title.into(),
            content: content.into(),
            ..PlanInput::default()
        }
    }
}

/// Changes to a plan; `None` leaves a field as it is. See [`Store::update_plan`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PlanUpdate {
    /// A new title.
    pub title: Option<String>,
    /// A new body.
    pub content: Option<String>,
    /// A new status.
    pub status: Option<PlanStatus>,
    /// New tags (replacing the old ones).
    pub tags: Option<Vec<String>>,
}

impl PlanUpdate {
    /// An update that changes only the status.
    pub fn with_status(status: PlanStatus) -> Self {
        PlanUpdate {
            status: Some(status),
            ..PlanUpdate::default()
        }
    }
}

/// The plans of a workspace and the plan files that could not be read.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct PlanList {
    /// Readable plans, most recently updated first.
    pub plans: Vec<Plan>,
    /// Plan files whose frontmatter is broken, with path and line.
    pub skipped: Vec<Skipped>,
    /// The id of the workspace's active plan, when it is one of [`plans`](Self::plans) and
    /// its status is `active` (the same rule as [`Store::active_plan`]). A broken active plan
    /// file is not an error here: it is in [`skipped`](Self::skipped), and this is `None`.
    pub active: Option<String>,
}

impl Store {
    /// The file of plan `id`, where it is written.
    pub(super) fn plan_path(&self, workspace: &str, id: &str) -> PathBuf {
        self.workspace_root(workspace)
            .join(workspace)
            .join("plans")
            .join(format!("{id}.md"))
    }

    fn active_path(&self, workspace: &str) -> PathBuf {
        self.workspace_root(workspace)
            .join(workspace)
            .join(".active-plan")
    }

    /// For a workspace kept elsewhere whose plan `id` is not there yet, the home store's
    /// copy of the plan (the text a save or an update starts from).
    fn home_copy(&self, workspace: &str, file: &Path) -> Result<Option<String>, Error> {
        if !self.inner.elsewhere.contains_key(workspace) || file.exists() {
            return Ok(None);
        }
        let Ok(rel) = file.strip_prefix(self.workspace_root(workspace)) else {
            return Ok(None);
        };
        Ok(read_utf8_opt(&self.inner.root.join(rel))?)
    }

    /// The text of the workspace's `.active-plan`: the one written elsewhere, else the home
    /// store's.
    fn read_active(&self, workspace: &str) -> Result<Option<String>, Error> {
        let path = self.active_path(workspace);
        match read_utf8_opt(&path)? {
            Some(text) => Ok(Some(text)),
            None => self.home_copy(workspace, &path),
        }
    }

    /// Saves a plan (creating it, or replacing an existing plan's title, content and tags
    /// while keeping its `created` time and unknown frontmatter keys) and returns it.
    ///
    /// The id is the given one, slugified, or the title's slug. With `activate`, the plan
    /// becomes the workspace's active plan.
    ///
    /// Secrets in the title, content and tags are replaced by `[REDACTED:<kind>]` before
    /// anything is derived from them (the id) or written; see
    /// [`save_plan_reported`](Self::save_plan_reported) to learn what was replaced.
    pub fn save_plan(&self, input: PlanInput) -> Result<Plan, Error> {
        self.save_plan_reported(input).map(|saved| saved.value)
    }

    /// [`save_plan`](Self::save_plan), also returning the secrets it replaced.
    pub fn save_plan_reported(&self, mut input: PlanInput) -> Result<Saved<Plan>, Error> {
        let redacted = self.redact_plan_texts(
            Some(&mut input.title),
            Some(&mut input.content),
            Some(&mut input.tags),
        )?;
        let workspace = self.workspace_of(input.workspace.as_deref(), None)?;
        let title = input.title.trim().to_string();
        check_plan_title(&title)?;
        let id = match &input.id {
            Some(id) => validate_plan_id(id)?,
            None if !title.is_empty() => {
                let slug = slugify(&title);
                if slug.is_empty() {
                    return Err(Error::invalid(format!(
                        "cannot make a plan id from the title {title:?}; give an id such as `auth-system`"
                    )));
                }
                slug
            }
            None => return Err(Error::invalid("a plan needs a title or an id")),
        };
        let tags = clean_tags(&input.tags)?;
        let now = self.now();
        let path = self.plan_path(&workspace, &id);
        let home_copy = self.home_copy(&workspace, &path)?;
        let plan = update_locked(&path, &WriteOptions::private(), |current| {
            let current = current.or(home_copy.as_deref());
            let title = if title.is_empty() {
                id.clone()
            } else {
                title.clone()
            };
            let mut plan = Plan::new(
                id.clone(),
                title,
                input.content.clone(),
                workspace.clone(),
                now,
            );
            plan.tags = tags.clone();
            if let Some(text) = current {
                // Never overwrite a plan we cannot read: the person must fix it first.
                let old = parse_plan(text, &workspace, &id).map_err(|e| e.with_path(&path))?;
                // An id derived from the title replaces only the plan of that same title:
                // "Fix: auth bug" must not silently overwrite "fix auth bug". Replacing a
                // plan on purpose takes its explicit id.
                if input.id.is_none() && old.title != plan.title {
                    return Err(Error::invalid(format!(
                        "plan `{id}` already exists with the title {:?}; give this plan another title or an explicit id, or pass id `{id}` to replace it",
                        old.title
                    )));
                }
                plan.created = old.created;
                plan.extra = old.extra;
                plan.status = old.status;
            }
            if let Some(status) = input.status {
                plan.status = status;
            }
            Ok::<_, Error>(Update::Write(format_plan(&plan), plan))
        })
        .map_err(|e| with_path_if_missing(e, &path))?;
        self.invalidate_workspaces();
        if input.activate {
            self.write_active(&workspace, &plan.id)?;
        } else if plan.status != PlanStatus::Active {
            self.clear_active_if(&workspace, &plan.id)?;
        }
        Ok(Saved::new(plan, redacted))
    }

    /// Replaces the secrets in the texts of a plan about to be written: the one step every
    /// plan save and update runs before it derives or writes anything.
    pub(super) fn redact_plan_texts(
        &self,
        title: Option<&mut String>,
        content: Option<&mut String>,
        tags: Option<&mut Vec<String>>,
    ) -> Result<Vec<Redaction>, Error> {
        let redactor = self.redactor()?;
        let mut out = Vec::new();
        if let Some(title) = title {
            redact_field(redactor, "title", title, &mut out);
        }
        if let Some(content) = content {
            redact_field(redactor, "content", content, &mut out);
        }
        for tag in tags.into_iter().flatten() {
            redact_field(redactor, "tags", tag, &mut out);
        }
        Ok(out)
    }

    /// The plan `id` of `workspace`. A missing plan is an error with
    /// [`Error::is_not_found`] that names the id.
    pub fn get_plan(&self, workspace: &str, id: &str) -> Result<Plan, Error> {
        let workspace = validate_workspace(workspace)?;
        let id = validate_plan_id(id)?;
        for dir in self.workspace_dirs(&workspace) {
            let path = dir.join("plans").join(format!("{id}.md"));
            if let Some(text) = read_utf8_opt(&path)? {
                return parse_plan(&text, &workspace, &id).map_err(|e| e.with_path(&path));
            }
        }
        Err(plan_not_found(&workspace, &id).with_path(self.plan_path(&workspace, &id)))
    }

    /// Every plan of `workspace`, most recently updated first; plans whose file cannot be
    /// read are reported in [`PlanList::skipped`] with path and line.
    pub fn list_plans(&self, workspace: &str) -> Result<PlanList, Error> {
        let workspace = validate_workspace(workspace)?;
        let mut list = PlanList::default();
        let mut seen = HashSet::new();
        for dir in self.workspace_dirs(&workspace) {
            list_plans_in(&dir.join("plans"), &workspace, &mut list, &mut seen)?;
        }
        list.plans
            .sort_by(|a, b| b.updated.cmp(&a.updated).then_with(|| a.id.cmp(&b.id)));
        list.skipped.sort_by(|a, b| a.path.cmp(&b.path));
        let active_id = match read_utf8_opt(&self.active_path(&workspace)) {
            Ok(text) => text.map(|t| t.trim().to_string()),
            Err(e) => {
                list.skipped.push(Skipped {
                    path: e.path().to_path_buf(),
                    line: e.line(),
                    message: format!("cannot read the active plan's id: {}", e.io_error()),
                });
                None
            }
        };
        list.active = active_id.filter(|id| {
            list.plans
                .iter()
                .any(|p| p.id == *id && p.status == PlanStatus::Active)
        });
        Ok(list)
    }
}

/// Adds the plans of one `plans/` directory to `list`, leaving out ids already `seen` (a
/// plan kept elsewhere hides the home store's copy).
fn list_plans_in(
    dir: &Path,
    workspace: &str,
    list: &mut PlanList,
    seen: &mut HashSet<String>,
) -> Result<(), Error> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(FsError::new(goldfish_core::fs::FsOp::ListDir, dir, e).into()),
    };
    let mut here = Vec::new();
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if is_temp_file_name(&name) || is_lock_file_name(&name) || name.starts_with('.') {
            continue;
        }
        let Some(id) = name.strip_suffix(".md") else {
            continue;
        };
        if seen.contains(id) {
            continue;
        }
        here.push(id.to_string());
        let path = entry.path();
        let result = read_utf8_opt(&path)
            .map_err(Error::from)
            .and_then(|text| match text {
                Some(text) => parse_plan(&text, workspace, id),
                None => Err(plan_not_found(workspace, id)),
            });
        match result {
            Ok(plan) => list.plans.push(plan),
            // Removed between listing and reading: not a problem.
            Err(e) if e.is_not_found() => {}
            Err(e) => list.skipped.push(Skipped {
                path,
                line: e.line(),
                message: e.message().to_string(),
            }),
        }
    }
    seen.extend(here);
    Ok(())
}

impl Store {
    /// Changes a plan's title, content, status or tags and returns it; `updated` becomes now.
    /// Completing or archiving the active plan clears the workspace's active plan.
    ///
    /// Secrets in a new title, content or tags are replaced like [`Store::save_plan`] does;
    /// see [`update_plan_reported`](Self::update_plan_reported) to learn what was replaced.
    pub fn update_plan(
        &self,
        workspace: &str,
        id: &str,
        update: PlanUpdate,
    ) -> Result<Plan, Error> {
        self.update_plan_reported(workspace, id, update)
            .map(|saved| saved.value)
    }

    /// [`update_plan`](Self::update_plan), also returning the secrets it replaced.
    pub fn update_plan_reported(
        &self,
        workspace: &str,
        id: &str,
        mut update: PlanUpdate,
    ) -> Result<Saved<Plan>, Error> {
        let redacted = self.redact_plan_texts(
            update.title.as_mut(),
            update.content.as_mut(),
            update.tags.as_mut(),
        )?;
        let workspace = writable_workspace(workspace)?;
        let id = validate_plan_id(id)?;
        if let Some(title) = &update.title {
            check_plan_title(title)?;
        }
        let tags = update.tags.as_deref().map(clean_tags).transpose()?;
        let (plan, ()) = self.update_plan_locked(&workspace, &id, |plan| {
            if let Some(title) = &update.title {
                plan.title = title.trim().to_string();
            }
            if let Some(content) = &update.content {
                plan.content = content.clone();
            }
            if let Some(status) = update.status {
                plan.status = status;
            }
            if let Some(tags) = &tags {
                plan.tags = tags.clone();
            }
            Ok(())
        })?;
        Ok(Saved::new(plan, redacted))
    }

    /// Reads plan `id`, lets `change` edit it, and writes it back, all under the plan's lock:
    /// no other save or update of the plan can come between the read and the write (a
    /// read-modify-write without hand-editing markdown). `updated` becomes now; the plan's id,
    /// workspace and `created` stay as they were whatever `change` does; secrets in the title,
    /// content and tags are replaced like [`Store::save_plan`] does. When `change` returns an
    /// error nothing is written and that error is returned. Completing or archiving the
    /// workspace's active plan clears it as the active plan.
    ///
    /// ```
    /// use goldfish_store::{PlanInput, PlanStatus, Store};
    /// let dir = tempfile::tempdir()?;
    /// let store = Store::open(dir.path())?;
    /// let mut input = PlanInput::new("Auth", "- [ ] JWT\n- [ ] OAuth2\n");
    /// input.workspace = Some("api".into());
    /// store.save_plan(input)?;
    /// let plan = store.update_plan_with("api", "auth", |plan| {
    ///     plan.check("JWT")?;
    ///     if plan.progress().open == 0 {
    ///         plan.status = PlanStatus::Completed;
    ///     }
    ///     Ok(())
    /// })?;
    /// assert_eq!((plan.progress().done, plan.status), (1, PlanStatus::Active));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn update_plan_with(
        &self,
        workspace: &str,
        id: &str,
        change: impl FnOnce(&mut Plan) -> Result<(), Error>,
    ) -> Result<Plan, Error> {
        self.update_plan_with_reported(workspace, id, change)
            .map(|saved| saved.value)
    }

    /// [`update_plan_with`](Self::update_plan_with), also returning the secrets it replaced.
    pub fn update_plan_with_reported(
        &self,
        workspace: &str,
        id: &str,
        change: impl FnOnce(&mut Plan) -> Result<(), Error>,
    ) -> Result<Saved<Plan>, Error> {
        let workspace = writable_workspace(workspace)?;
        let id = validate_plan_id(id)?;
        let redactor = self.redactor()?;
        let plan = self.update_plan_locked(&workspace, &id, |plan| {
            change(plan)?;
            let mut out = Vec::new();
            redact_field(redactor, "title", &mut plan.title, &mut out);
            redact_field(redactor, "content", &mut plan.content, &mut out);
            for tag in &mut plan.tags {
                redact_field(redactor, "tags", tag, &mut out);
            }
            plan.title = plan.title.trim().to_string();
            check_plan_title(&plan.title)?;
            plan.tags = clean_tags(&plan.tags)?;
            Ok(out)
        });
        let (plan, redacted) = plan?;
        Ok(Saved::new(plan, redacted))
    }

    /// The one read-modify-write of a plan file, under its lock: `change` edits the parsed
    /// plan (its id, workspace and `created` are put back afterwards), `updated` becomes now.
    fn update_plan_locked<T>(
        &self,
        workspace: &str,
        id: &str,
        change: impl FnOnce(&mut Plan) -> Result<T, Error>,
    ) -> Result<(Plan, T), Error> {
        let now = self.now();
        let path = self.plan_path(workspace, id);
        let home_copy = self.home_copy(workspace, &path)?;
        if !path.exists() && home_copy.is_none() {
            return Err(plan_not_found(workspace, id).with_path(&path));
        }
        let (plan, value) = update_locked(&path, &WriteOptions::private(), |current| {
            let Some(text) = current.or(home_copy.as_deref()) else {
                return Err(plan_not_found(workspace, id).with_path(&path));
            };
            let plan = parse_plan(text, workspace, id).map_err(|e| e.with_path(&path))?;
            let mut changed = plan.clone();
            let value = change(&mut changed)?;
            changed.id = plan.id;
            changed.workspace = plan.workspace;
            changed.created = plan.created;
            changed.updated = now;
            Ok(Update::Write(format_plan(&changed), (changed, value)))
        })
        .map_err(|e| with_path_if_missing(e, &path))?;
        if plan.status != PlanStatus::Active {
            self.clear_active_if(workspace, &plan.id)?;
        }
        Ok((plan, value))
    }

    /// Makes plan `id` the workspace's active plan (re-opening it if it was completed or
    /// archived) and returns it.
    pub fn activate_plan(&self, workspace: &str, id: &str) -> Result<Plan, Error> {
        writable_workspace(workspace)?;
        let plan = self.get_plan(workspace, id)?;
        let plan = if plan.status == PlanStatus::Active {
            plan
        } else {
            self.update_plan(workspace, id, PlanUpdate::with_status(PlanStatus::Active))?
        };
        self.write_active(&plan.workspace, &plan.id)?;
        Ok(plan)
    }

    /// The workspace's active plan — the one plan chosen as its focus by
    /// [`activate_plan`](Self::activate_plan) or a save with [`PlanInput::activate`], not
    /// every plan whose status is [`PlanStatus::Active`] (see [`PlanStatus`] for an example):
    /// `None` when none was chosen, when it no longer exists, or when it is not `active` any
    /// more.
    pub fn active_plan(&self, workspace: &str) -> Result<Option<Plan>, Error> {
        let workspace = validate_workspace(workspace)?;
        let Some(text) = self.read_active(&workspace)? else {
            return Ok(None);
        };
        let id = text.trim();
        if id.is_empty() || validate_plan_id(id).is_err() {
            return Ok(None);
        }
        match self.get_plan(&workspace, id) {
            Ok(plan) if plan.status == PlanStatus::Active => Ok(Some(plan)),
            Ok(_) => Ok(None),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Marks plan `id` completed (clearing it as the active plan) and returns it.
    pub fn complete_plan(&self, workspace: &str, id: &str) -> Result<Plan, Error> {
        self.update_plan(
            workspace,
            id,
            PlanUpdate::with_status(PlanStatus::Completed),
        )
    }

    /// Marks plan `id` archived (clearing it as the active plan) and returns it.
    pub fn archive_plan(&self, workspace: &str, id: &str) -> Result<Plan, Error> {
        self.update_plan(workspace, id, PlanUpdate::with_status(PlanStatus::Archived))
    }

    /// Makes `id` the workspace's active plan.
    pub(super) fn write_active(&self, workspace: &str, id: &str) -> Result<(), Error> {
        let path = self.active_path(workspace);
        update_locked(&path, &WriteOptions::private(), |_| {
            Ok::<_, Error>(Update::Write(format!("{id}\n"), ()))
        })
    }

    fn clear_active_if(&self, workspace: &str, id: &str) -> Result<(), Error> {
        let path = self.active_path(workspace);
        let home_copy = self.home_copy(workspace, &path)?;
        if !path.exists() && home_copy.is_none() {
            return Ok(());
        }
        // For a workspace kept elsewhere that still uses the home store's choice, an empty
        // `.active-plan` written elsewhere clears it (the home store is left as it is).
        update_locked(&path, &WriteOptions::private(), |current| {
            Ok::<_, Error>(match current.or(home_copy.as_deref()) {
                Some(text) if text.trim() == id => Update::Write(String::new(), ()),
                _ => Update::Keep(()),
            })
        })
    }
}

/// Refuses a plan title of more than one line.
fn check_plan_title(title: &str) -> Result<(), Error> {
    if title.contains(['\n', '\r']) {
        return Err(Error::invalid(
            "a plan title must be one line; put the rest in its content",
        ));
    }
    Ok(())
}

/// Validates an explicit plan id and returns its slug: `..`, `/`, `\`, NUL and ids with no
/// letters or digits are refused.
pub fn validate_plan_id(id: &str) -> Result<String, Error> {
    reject_escapes("plan id", id)?;
    let slug = slugify(id);
    if slug.is_empty() {
        return Err(Error::invalid(format!(
            "plan id {id:?} has no letters or digits; use an id such as `auth-system`"
        )));
    }
    Ok(slug)
}

fn plan_not_found(workspace: &str, id: &str) -> Error {
    Error::new(
        ErrorKind::NotFound,
        format!(
            "no plan {id:?} in workspace {workspace:?}; list the workspace's plans to find its id"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_ids() {
        assert_eq!(validate_plan_id("Auth System").unwrap(), "auth-system");
        assert_eq!(
            validate_plan_id("Über café rewrite").unwrap(),
            "uber-cafe-rewrite"
        );
        for bad in ["..", "a/b", "a\\b", "x\0", "", "***"] {
            assert!(
                validate_plan_id(bad).unwrap_err().is_invalid_input(),
                "{bad:?}"
            );
        }
    }
}
