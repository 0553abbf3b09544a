//! The store on disk: a directory of workspaces, each with day files, plans and an active plan.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use chrono::{DateTime, NaiveDate, Utc};
use goldfish_core::fs::{
    FsError, Update, WriteOptions, is_lock_file_name, is_temp_file_name, lock_exclusive,
    read_utf8_opt, update_locked, write_atomic,
};
use goldfish_core::time::{SharedClock, now_millis, system_clock};

use crate::actor::Actor;
use crate::checkpoint::Checkpoint;
use crate::dayfile::{
    Fnv64, ParsedDay, clean_tags, format_checkpoint, format_day_header, is_valid_extra_key,
    parse_day_bytes, parse_day_file,
};
use crate::days;
use crate::error::{Error, ErrorKind};
use crate::git::{GitIdentity, context_and_identity};
use crate::memory::{MemoryType, Structured};
use crate::plan::{Plan, PlanStatus, format_plan, parse_plan};
use crate::redaction::{
    Redaction, Saved, StoreRedactor, redact_checkpoint, redact_field, redact_json,
};
use crate::workspace::{
    check_writable_workspace, detect_workspace, reject_escapes, resolve_workspace, slugify,
    validate_workspace,
};

/// Environment variable naming the store's root directory.
pub const HOME_ENV: &str = goldfish_core::fs::GOLDFISH_HOME_ENV;

/// The directory, at the top of a repository's work tree, that holds the memory kept in the
/// repository: `{repo}/.goldfish/{workspace}/…`, laid out like the home store.
pub const IN_REPO_DIR: &str = ".goldfish";

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

/// Refuses a plan title of more than one line.
fn check_plan_title(title: &str) -> Result<(), Error> {
    if title.contains(['\n', '\r']) {
        return Err(Error::invalid(
            "a plan title must be one line; put the rest in its content",
        ));
    }
    Ok(())
}

/// A workspace name to write to: validated, normalised, and not a reserved word.
fn writable_workspace(name: &str) -> Result<String, Error> {
    let workspace = validate_workspace(name)?;
    check_writable_workspace(&workspace)?;
    Ok(workspace)
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

/// Something [`Store::checkpoints_between`] or [`Store::list_plans`] could not read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skipped {
    /// The file concerned.
    pub path: PathBuf,
    /// The 1-based line, when the problem is at one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
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
    /// The workspace; `None` resolves it like [`CheckpointInput::workspace`].
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

/// The goldfish store: `{root}/{workspace}/checkpoints/YYYY-MM-DD.md`,
/// `{root}/{workspace}/plans/{id}.md` and `{root}/{workspace}/.active-plan`.
///
/// Cheap to clone (the clones share one workspace-list cache), `Send` and `Sync`. Any number of
/// threads and processes may use one store at once.
#[derive(Debug, Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    root: PathBuf,
    /// Workspaces kept elsewhere (in a repository): workspace → the directory holding
    /// `{workspace}/`. Their writes go there; their reads also take in the home store's copy.
    elsewhere: BTreeMap<String, PathBuf>,
    clock: SharedClock,
    /// The workspace list, with the root directory's modification time when it was read.
    workspaces: Mutex<Option<(Option<SystemTime>, Vec<String>)>>,
    /// The redactor of the store's setting, read at the first save (a broken setting is an
    /// error of that save, not of opening the store, so reading memory still works).
    redactor: OnceLock<StoreRedactor>,
}

impl Store {
    /// A store rooted at `root`. Does not create anything: the first save does, with
    /// directories 0700 and files 0600. Fails only when `root` exists and is not a directory.
    pub fn open(root: impl Into<PathBuf>) -> Result<Store, Error> {
        let root = root.into();
        if let Ok(meta) = fs::metadata(&root)
            && !meta.is_dir()
        {
            return Err(Error::invalid(
                "the goldfish store must be a directory, but this is a file",
            )
            .with_path(root));
        }
        Ok(Store {
            inner: Arc::new(Inner {
                root,
                elsewhere: BTreeMap::new(),
                clock: system_clock(),
                workspaces: Mutex::new(None),
                redactor: OnceLock::new(),
            }),
        })
    }

    /// The store at `$GOLDFISH_HOME`, else `~/.goldfish` (from `$HOME`): reads the process
    /// environment, for a binary; a library opens the directory it is given with
    /// [`open`](Self::open).
    pub fn from_env() -> Result<Store, Error> {
        let root = goldfish_core::fs::goldfish_home_from_env().ok_or_else(|| {
            Error::invalid("cannot find the goldfish store: neither GOLDFISH_HOME nor HOME is set")
        })?;
        Store::open(root)
    }

    /// The same store with another clock (for tests and tools that replay history).
    pub fn with_clock(self, clock: SharedClock) -> Store {
        Store {
            inner: Arc::new(Inner {
                root: self.inner.root.clone(),
                elsewhere: self.inner.elsewhere.clone(),
                clock,
                workspaces: Mutex::new(None),
                redactor: self.inner.redactor.clone(),
            }),
        }
    }

    /// The store's root directory.
    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    /// The current time by the store's clock (see [`Store::with_clock`]), truncated to
    /// milliseconds: what a checkpoint saved now would record. Readers such as recall use it
    /// for "the last N days" so that a test clock moves every window consistently.
    pub fn now(&self) -> DateTime<Utc> {
        now_millis(self.inner.clock.as_ref())
    }

    /// The same store, with the memory kept in the repository around `dir` (when it has
    /// one): if the top of the repository's work tree (the nearest directory above `dir`
    /// holding `.git`) has a [`IN_REPO_DIR`] directory, the repository's workspace (as
    /// [`detect_workspace`] names it) and every workspace directory under `.goldfish/` are
    /// kept there (see [`Store::with_workspace_root`]). Without one, the store is unchanged.
    /// Spawns no process: a few `stat`s and one directory listing.
    pub fn with_repo_memory(self, dir: &Path) -> Store {
        let Some(memory) = find_repo_memory(dir) else {
            return self;
        };
        // A home store that is itself `{repo}/.goldfish` (a home directory under git) is
        // not memory kept elsewhere.
        if let (Ok(a), Ok(b)) = (fs::canonicalize(&memory), fs::canonicalize(self.root()))
            && a == b
        {
            return self;
        }
        let mut names = vec![detect_workspace(dir)];
        if let Ok(entries) = fs::read_dir(&memory) {
            names.extend(
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter(|name| slugify(name) == *name && !name.is_empty()),
            );
        }
        let mut store = self;
        for name in names {
            store = match store.clone().with_workspace_root(&name, &memory) {
                Ok(s) => s,
                Err(_) => store,
            };
        }
        store
    }

    /// The same store, with `workspace` kept under `root` instead of the home store:
    /// checkpoints are saved to `{root}/{workspace}/checkpoints/`, plans and the active plan
    /// to `{root}/{workspace}/`. Reads take in both places: the checkpoints of both (the
    /// home store's from before the workspace moved stay visible), the plans of both (the
    /// one under `root` wins for an id in both; changing a plan found only in the home store
    /// writes it under `root`), and the active plan set under `root`, else the home
    /// store's. [`list_workspaces`](Self::list_workspaces) includes the workspace once its
    /// directory exists.
    pub fn with_workspace_root(
        self,
        workspace: &str,
        root: impl Into<PathBuf>,
    ) -> Result<Store, Error> {
        let workspace = validate_workspace(workspace)?;
        let mut elsewhere = self.inner.elsewhere.clone();
        elsewhere.insert(workspace, root.into());
        Ok(Store {
            inner: Arc::new(Inner {
                root: self.inner.root.clone(),
                elsewhere,
                clock: self.inner.clock.clone(),
                workspaces: Mutex::new(None),
                redactor: self.inner.redactor.clone(),
            }),
        })
    }

    /// The directory under which `workspace`'s own directory is written: the root given to
    /// [`with_workspace_root`](Self::with_workspace_root) for it, else the store's root.
    pub fn workspace_root(&self, workspace: &str) -> &Path {
        self.inner
            .elsewhere
            .get(workspace)
            .map_or(self.root(), PathBuf::as_path)
    }

    /// The workspaces kept outside the store's root, with the directory holding each.
    pub fn workspaces_elsewhere(&self) -> impl Iterator<Item = (&str, &Path)> {
        self.inner
            .elsewhere
            .iter()
            .map(|(name, root)| (name.as_str(), root.as_path()))
    }

    /// The workspace's directories, in the order the store reads them (the one written
    /// first): `[elsewhere, home]` for a workspace kept elsewhere
    /// ([`with_workspace_root`](Self::with_workspace_root)), `[home]` otherwise. The name is
    /// not checked: give a workspace's name (from [`list_workspaces`](Self::list_workspaces)
    /// or [`validate_workspace`](crate::validate_workspace)). Their day files are in
    /// [`checkpoints_dir`](crate::checkpoints_dir) of each.
    pub fn workspace_dirs(&self, workspace: &str) -> Vec<PathBuf> {
        let home = self.inner.root.join(workspace);
        match self.inner.elsewhere.get(workspace) {
            Some(root) => vec![root.join(workspace), home],
            None => vec![home],
        }
    }

    /// The directory of a (validated) workspace: where it is written (see
    /// [`with_workspace_root`](Self::with_workspace_root)).
    pub fn workspace_dir(&self, workspace: &str) -> Result<PathBuf, Error> {
        let workspace = validate_workspace(workspace)?;
        Ok(self.workspace_root(&workspace).join(workspace))
    }

    /// The day file of `workspace` for `date` (it may not exist).
    pub fn day_file_path(&self, workspace: &str, date: NaiveDate) -> Result<PathBuf, Error> {
        Ok(days::day_file_in(&self.workspace_dir(workspace)?, date))
    }

    fn invalidate_workspaces(&self) {
        *self
            .inner
            .workspaces
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The workspaces in the store, sorted, with those kept elsewhere whose directory exists.
    /// Cached: the store's list is read again only when this process has written since, or
    /// the root directory changed (a workspace was added).
    pub fn list_workspaces(&self) -> Result<Vec<String>, Error> {
        let mut list = self.list_home_workspaces()?;
        let mut added = false;
        for (name, root) in &self.inner.elsewhere {
            if !list.contains(name) && root.join(name).is_dir() {
                list.push(name.clone());
                added = true;
            }
        }
        if added {
            list.sort();
        }
        Ok(list)
    }

    fn list_home_workspaces(&self) -> Result<Vec<String>, Error> {
        let mtime = fs::metadata(&self.inner.root)
            .and_then(|m| m.modified())
            .ok();
        let mut cache = self
            .inner
            .workspaces
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some((cached_mtime, list)) = cache.as_ref()
            && *cached_mtime == mtime
            && mtime.is_some()
        {
            return Ok(list.clone());
        }
        let entries = match fs::read_dir(&self.inner.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(
                    FsError::new(goldfish_core::fs::FsOp::ListDir, &self.inner.root, e).into(),
                );
            }
        };
        let mut list: Vec<String> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| slugify(name) == *name && !name.is_empty())
            .collect();
        list.sort();
        *cache = Some((mtime, list.clone()));
        Ok(list)
    }

    // ----- checkpoints -------------------------------------------------------------------

    /// Saves a checkpoint and returns it as stored (with its id and timestamp).
    ///
    /// The entry goes into the day file of its UTC date, in time order, under the day file's
    /// lock; the file is replaced atomically and fsynced. Git context is captured first (one
    /// `git status` spawn, outside the lock) when `git_dir` is given and belongs to the
    /// checkpoint's workspace (see [`CheckpointInput::git_dir`]).
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
        let path = self.day_file_path(&workspace, date)?;
        let options = WriteOptions::private();
        let result = update_locked(&path, &options, |current| {
            let text = current.unwrap_or("");
            let parsed = parse_day_file(text, &workspace, date);
            checkpoint.id = unique_id(&timestamp, &parsed);
            let new_text = insert_entry(text, date, &parsed, &checkpoint);
            Ok::<_, Error>(Update::Write(new_text, checkpoint.clone()))
        });
        let saved = match result {
            Err(e) if e.kind() == ErrorKind::Parse => {
                // The day file holds invalid UTF-8: append to its bytes as they are, so the
                // save succeeds and nothing already there is touched.
                self.append_to_invalid_utf8(&path, &options, &workspace, date, checkpoint)?
            }
            other => other.map_err(|e| with_path_if_missing(e, &path))?,
        };
        self.invalidate_workspaces();
        Ok(Saved::new(saved, redacted))
    }

    /// The redactor every save of this store runs, built from the store's setting
    /// (`{root}/settings.json`, see [`SETTINGS_FILE`](crate::SETTINGS_FILE)) the first time it
    /// is needed and kept for the store's life. Every kind is on unless the setting names it;
    /// [`Redactor::disabled`](goldfish_redact::Redactor::disabled) says which are off.
    ///
    /// Errors: the setting cannot be read or parsed ([`Error::is_parse`], naming the file and
    /// line, and the valid kinds when a name is not one).
    pub fn redactor(&self) -> Result<&goldfish_redact::Redactor, Error> {
        if let Some(r) = self.inner.redactor.get() {
            return Ok(r.get());
        }
        let loaded = StoreRedactor::load(&self.inner.root)?;
        Ok(self.inner.redactor.get_or_init(|| loaded).get())
    }

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
        for ((workspace, date), indices) in groups {
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
                let mut text = current.unwrap_or("").to_string();
                let mut parsed = parse_day_file(&text, &workspace, date);
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
                        parsed = parse_day_file(&text, &workspace, date);
                    }
                }
                if !new.is_empty() {
                    Ok::<_, Error>(Update::Write(text, added))
                } else {
                    Ok(Update::Keep(added))
                }
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
    /// none.
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

    fn append_to_invalid_utf8(
        &self,
        path: &Path,
        options: &WriteOptions,
        workspace: &str,
        date: NaiveDate,
        mut checkpoint: Checkpoint,
    ) -> Result<Checkpoint, Error> {
        let _lock = lock_exclusive(path, options)?;
        let mut bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) => return Err(FsError::new(goldfish_core::fs::FsOp::Read, path, e).into()),
        };
        let parsed = parse_day_bytes(&bytes, workspace, date);
        checkpoint.id = unique_id(&checkpoint.timestamp, &parsed);
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        if !bytes.is_empty() && !bytes.ends_with(b"\n\n") {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(format_checkpoint(&checkpoint).as_bytes());
        write_atomic(path, &bytes, options)?;
        Ok(checkpoint)
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

    /// The workspace a save goes to: `explicit`, else that of `dir` (the checkpoint's own
    /// git directory); neither given is an error, never the process's directory.
    fn workspace_of(&self, explicit: Option<&str>, dir: Option<&Path>) -> Result<String, Error> {
        let workspace = match (explicit, dir) {
            (Some(name), _) => resolve_workspace(Some(name), dir.unwrap_or(Path::new("/")))?,
            (None, Some(dir)) => resolve_workspace(None, dir)?,
            (None, None) => {
                return Err(Error::invalid(
                    "no workspace to save to: the checkpoint names no workspace and no directory \
                     to detect it from (set its `workspace` or `git_dir`)",
                ));
            }
        };
        check_writable_workspace(&workspace)?;
        Ok(workspace)
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

    // ----- plans -------------------------------------------------------------------------

    fn plan_path(&self, workspace: &str, id: &str) -> PathBuf {
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
    fn redact_plan_texts(
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

    fn write_active(&self, workspace: &str, id: &str) -> Result<(), Error> {
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

fn with_path_if_missing(e: Error, path: &Path) -> Error {
    if e.path().is_none() {
        e.with_path(path)
    } else {
        e
    }
}

/// Keeps the first checkpoint of each id (the same entry read from two places).
fn dedup_by_id(checkpoints: &mut Vec<Checkpoint>) {
    let mut seen = HashSet::new();
    checkpoints.retain(|c| seen.insert(c.id.clone()));
}

/// The [`IN_REPO_DIR`] directory at the top of the repository work tree around `dir` (the
/// nearest directory above it holding `.git`, a directory or a worktree's file), when there
/// is one. Spawns no process.
pub fn find_repo_memory(dir: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let top = absolute
        .ancestors()
        .find(|d| fs::symlink_metadata(d.join(".git")).is_ok())?;
    let memory = top.join(IN_REPO_DIR);
    memory.is_dir().then_some(memory)
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
fn insert_entry(text: &str, date: NaiveDate, day: &ParsedDay, checkpoint: &Checkpoint) -> String {
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
}

impl Imported {
    /// Whether this import wrote the checkpoint.
    pub fn added(&self) -> bool {
        !matches!(self, Imported::Present)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_is_send_sync_and_cheap_to_clone() {
        fn assert_send_sync<T: Send + Sync + Clone>() {}
        assert_send_sync::<Store>();
        let store = Store::open("/nonexistent-goldfish").expect("opening does no I/O");
        assert!(Arc::ptr_eq(&store.inner, &store.clone().inner));
    }

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
        let cps = crate::parse_checkpoint_file(&text, "ws", date).unwrap();
        let hours: Vec<_> = cps.iter().map(|c| c.title().to_string()).collect();
        assert_eq!(hours, ["at 8", "at 9", "at 10", "at 11", "at 12"], "{text}");
    }
}
