//! The [`Store`] handle: its root, clock and redactor, opening, and the plumbing every
//! operation shares. The operations are in the sibling modules, one per concern.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use goldfish_core::time::{SharedClock, now_millis, system_clock};

use crate::error::Error;
use crate::redaction::StoreRedactor;

/// Environment variable naming the store's root directory.
pub const HOME_ENV: &str = goldfish_core::fs::GOLDFISH_HOME_ENV;

/// The goldfish store: `{root}/{workspace}/checkpoints/YYYY-MM-DD.md`,
/// `{root}/{workspace}/plans/{id}.md` and `{root}/{workspace}/.active-plan`.
///
/// Cheap to clone (the clones share one workspace-list cache), `Send` and `Sync`. Any number of
/// threads and processes may use one store at once.
#[derive(Debug, Clone)]
pub struct Store {
    pub(super) inner: Arc<Inner>,
}

#[derive(Debug)]
pub(super) struct Inner {
    pub(super) root: PathBuf,
    /// Workspaces kept elsewhere (in a repository): workspace → the directory holding
    /// `{workspace}/`. Their writes go there; their reads also take in the home store's copy.
    pub(super) elsewhere: BTreeMap<String, PathBuf>,
    pub(super) clock: SharedClock,
    /// The workspace list, with the root directory's modification time when it was read.
    pub(super) workspaces: Mutex<Option<(Option<SystemTime>, Vec<String>)>>,
    /// The redactor of the store's setting, read at the first save (a broken setting is an
    /// error of that save, not of opening the store, so reading memory still works).
    pub(super) redactor: OnceLock<StoreRedactor>,
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
}

/// `e`, naming `path` when it names no file yet.
pub(super) fn with_path_if_missing(e: Error, path: &Path) -> Error {
    if e.path().is_none() {
        e.with_path(path)
    } else {
        e
    }
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
}
