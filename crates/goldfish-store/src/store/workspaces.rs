//! Where a workspace lives: the home store or a repository's `.goldfish/`, its directories,
//! the store's list of workspaces, and which workspace a save goes to.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chrono::NaiveDate;
use goldfish_core::fs::FsError;

use super::handle::{Inner, Store};
use crate::days::{self, DayFileName};
use crate::error::Error;
use crate::workspace::{
    WorkspaceCandidate, check_writable_workspace, detect_workspace, resolve_workspace, slugify,
    validate_workspace,
};

/// The directory, at the top of a repository's work tree, that holds the memory kept in the
/// repository: `{repo}/.goldfish/{workspace}/…`, laid out like the home store.
pub const IN_REPO_DIR: &str = ".goldfish";

impl Store {
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

    /// Forgets the cached workspace list: a write may have added a workspace.
    pub(super) fn invalidate_workspaces(&self) {
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

    /// The workspace a save goes to: `explicit`, else that of `dir` (the checkpoint's own
    /// git directory); neither given is an error, never the process's directory.
    pub(super) fn workspace_of(
        &self,
        explicit: Option<&str>,
        dir: Option<&Path>,
    ) -> Result<String, Error> {
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
}

/// A workspace name to write to: validated, normalised, and not a reserved word.
pub(super) fn writable_workspace(name: &str) -> Result<String, Error> {
    let workspace = validate_workspace(name)?;
    check_writable_workspace(&workspace)?;
    Ok(workspace)
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

/// The store's workspaces as candidates for
/// [`WorkspaceChoice::for_writing`](crate::WorkspaceChoice::for_writing), most recently
/// saved first (by their newest day file; those without one last, by name), at most `limit`.
pub fn recent_workspaces(store: &Store, limit: usize) -> Result<Vec<WorkspaceCandidate>, Error> {
    let mut out: Vec<WorkspaceCandidate> = store
        .list_workspaces()?
        .into_iter()
        .map(|name| {
            let last_saved = store
                .workspace_dir(&name)
                .ok()
                .and_then(|dir| std::fs::read_dir(days::checkpoints_dir(&dir)).ok())
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(
                    |e| match DayFileName::parse(&e.file_name().to_string_lossy()) {
                        DayFileName::Date(day) => Some(day),
                        _ => None,
                    },
                )
                .max();
            WorkspaceCandidate {
                name,
                last_saved,
                path: None,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.last_saved
            .cmp(&a.last_saved)
            .then_with(|| a.name.cmp(&b.name))
    });
    out.truncate(limit);
    Ok(out)
}
