//! What every command needs: where the store is and which workspace was asked for.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use goldfish_store::Store;

/// The global options, resolved once.
#[derive(Debug, Clone)]
pub(crate) struct Context {
    /// The store's root (`--home`, `GOLDFISH_HOME`, or `~/.goldfish`).
    pub(crate) home: PathBuf,
    /// The workspace asked for (`--workspace`, `GOLDFISH_WORKSPACE`), if any.
    pub(crate) workspace: Option<String>,
    /// The directory goldfish was started in.
    pub(crate) cwd: PathBuf,
    /// `--json`: the report is one JSON document on stdout (progress lines go to stderr).
    pub(crate) json: bool,
    /// The recall indexes a long-lived process (the MCP server) keeps between calls; one-shot commands leave it empty and read the index files.
    pub(crate) recall_cache: std::sync::Arc<goldfish_recall::RecallCache>,
}

/// The environment variable that names the workspace (also read by clap for `--workspace`).
const WORKSPACE_ENV_NAME: &str = "GOLDFISH_WORKSPACE";

impl Context {
    /// Resolves the home directory and the current directory.
    pub(crate) fn new(home: Option<PathBuf>, workspace: Option<String>) -> anyhow::Result<Self> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let home = match home.filter(|h| !h.as_os_str().is_empty()) {
            Some(h) if h.is_relative() => cwd.join(h),
            Some(h) => h,
            None => notes_core::fs::goldfish_home()
                .context("cannot find the home directory: set GOLDFISH_HOME or pass --home DIR")?,
        };
        // An exported-but-empty GOLDFISH_WORKSPACE means "not set"; an explicitly empty
        // `--workspace ''` is a mistake (probably an unset shell variable) and must not
        // silently fall back to the detected workspace.
        let env_blank = std::env::var(WORKSPACE_ENV_NAME).is_ok_and(|v| v.trim().is_empty());
        let workspace = match workspace.map(|w| w.trim().to_string()) {
            Some(w) if w.is_empty() && !env_blank => anyhow::bail!(
                "`--workspace` is empty; give a name such as `my-project`, or leave it out to use the workspace of the current directory"
            ),
            Some(w) if w.is_empty() => None,
            other => other,
        };
        Ok(Context {
            home,
            workspace,
            cwd,
            json: false,
            recall_cache: std::sync::Arc::default(),
        })
    }

    /// A worktree option, or the current directory.
    pub(crate) fn worktree(&self, worktree: Option<&Path>) -> PathBuf {
        match worktree {
            Some(w) if w.is_relative() => self.cwd.join(w),
            Some(w) => w.to_path_buf(),
            None => self.cwd.clone(),
        }
    }

    /// The store at `--home` / `GOLDFISH_HOME` / `~/.goldfish`, with the memory kept in the
    /// repository around the current directory (`{repo}/.goldfish/`) when it has some.
    pub(crate) fn open_store(&self) -> anyhow::Result<Store> {
        Ok(Store::open(&self.home)?.with_repo_memory(&self.cwd))
    }

    /// The workspace: `explicit` (an argument of one call; blank or `current` means none),
    /// else `--workspace` / `GOLDFISH_WORKSPACE`, else detected from the current directory.
    /// Validated and normalised by the store.
    pub(crate) fn workspace(&self, explicit: Option<&str>) -> anyhow::Result<String> {
        let explicit = explicit
            .map(str::trim)
            .filter(|w| !w.is_empty() && !w.eq_ignore_ascii_case("current"));
        let given = explicit.or(self.workspace.as_deref());
        Ok(goldfish_store::resolve_workspace(given, &self.cwd)?)
    }
}
