//! What every command needs: where the store is and which workspace was asked for.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use goldfish_store::{Store, WorkspaceSelector};

use crate::cli::WorkspaceArg;

/// The global options, resolved once.
#[derive(Debug, Clone)]
pub(crate) struct Context {
    /// The store's root (`--home`, `GOLDFISH_HOME`, or `~/.goldfish`).
    pub(crate) home: PathBuf,
    /// The workspace asked for (`--workspace`, `GOLDFISH_WORKSPACE`), if any.
    pub(crate) workspace: Option<WorkspaceSelector>,
    /// The directory goldfish was started in.
    pub(crate) cwd: PathBuf,
    /// `--json`: the report is one JSON document on stdout (progress lines go to stderr).
    pub(crate) json: bool,
    /// The recall indexes a long-lived process (the MCP server) keeps between calls; one-shot commands leave it empty and read the index files.
    pub(crate) recall_cache: std::sync::Arc<goldfish_recall::RecallCache>,
    /// `cwd` is the root the MCP client named, not the server's own directory.
    pub(crate) cwd_is_client_root: bool,
    /// The user's home directory (`HOME`, else `USERPROFILE`): never a project.
    pub(crate) user_home: Option<PathBuf>,
    /// The semantic channel's model, loaded at the first search that needs it and kept for
    /// the process (the MCP server's every call); `None` inside when no model is installed or
    /// it cannot be loaded.
    pub(crate) semantic:
        std::sync::Arc<std::sync::OnceLock<Option<goldfish_recall::SemanticChannel>>>,
}

/// The environment variable that names the workspace (also read by clap for `--workspace`).
const WORKSPACE_ENV_NAME: &str = "GOLDFISH_WORKSPACE";

impl Context {
    /// Resolves the home directory and the current directory.
    pub(crate) fn new(
        home: Option<PathBuf>,
        workspace: Option<WorkspaceArg>,
    ) -> anyhow::Result<Self> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let home = match home.filter(|h| !h.as_os_str().is_empty()) {
            Some(h) if h.is_relative() => cwd.join(h),
            Some(h) => h,
            None => goldfish_core::fs::goldfish_home_from_env()
                .context("cannot find the home directory: set GOLDFISH_HOME or pass --home DIR")?,
        };
        // An exported-but-empty GOLDFISH_WORKSPACE means "not set"; an explicitly empty
        // `--workspace ''` is a mistake (probably an unset shell variable) and must not
        // silently fall back to the detected workspace.
        let env_blank = std::env::var(WORKSPACE_ENV_NAME).is_ok_and(|v| v.trim().is_empty());
        let workspace = match workspace {
            Some(WorkspaceArg(None)) if !env_blank => anyhow::bail!(
                "`--workspace` is empty; give a name such as `my-project`, or leave it out to use the workspace of the current directory"
            ),
            Some(WorkspaceArg(w)) => w,
            None => None,
        };
        Ok(Context {
            home,
            workspace,
            cwd,
            json: false,
            recall_cache: std::sync::Arc::default(),
            cwd_is_client_root: false,
            semantic: std::sync::Arc::default(),
            user_home: std::env::var_os("HOME")
                .or_else(|| std::env::var_os("USERPROFILE"))
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
        })
    }

    /// The semantic channel for a search, when a model is installed (`goldfish model
    /// install`): one per process, its model loaded by the first search that ranks by meaning.
    /// A model that cannot be loaded is said in that search's notes, and recall stays lexical.
    pub(crate) fn semantic(&self) -> Option<goldfish_recall::SemanticChannel> {
        self.semantic
            .get_or_init(crate::commands::model::load_installed)
            .clone()
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
        let store = Store::open(&self.home).map_err(|e| {
            // The store's error says what is wrong with the directory; how to choose another
            // is this binary's business.
            anyhow::Error::new(e)
                .context("the store cannot be opened (choose another with GOLDFISH_HOME or --home)")
        })?;
        Ok(store.with_repo_memory(&self.cwd))
    }

    /// The selector of one call: `explicit` (an argument of one call, parsed by the store's
    /// rules; blank or `current` means none), else `--workspace` / `GOLDFISH_WORKSPACE`, else
    /// [`WorkspaceSelector::Current`].
    pub(crate) fn selector(&self, explicit: Option<&str>) -> anyhow::Result<WorkspaceSelector> {
        let explicit = match explicit.map(str::trim).filter(|w| !w.is_empty()) {
            Some(w) => w.parse::<WorkspaceSelector>()?,
            None => WorkspaceSelector::Current,
        };
        Ok(match explicit {
            WorkspaceSelector::Current => self.workspace.clone().unwrap_or_default(),
            other => other,
        })
    }

    /// How the workspace of one call is chosen: [`Context::selector`]'s, a name or a
    /// project's absolute path; else the project around the current directory (or the
    /// client's root). `all` is refused: it names no single workspace. See
    /// [`goldfish_store::choose_workspace`].
    pub(crate) fn choose_workspace(
        &self,
        explicit: Option<&str>,
    ) -> anyhow::Result<goldfish_store::WorkspaceChoice> {
        let selector = self.selector(explicit)?;
        let mut query = goldfish_store::WorkspaceQuery::default();
        query.given = selector.single()?.map(str::to_string);
        query.dir = self.cwd.clone();
        query.dir_is_client_root = self.cwd_is_client_root;
        query.user_home = self.user_home.clone();
        Ok(goldfish_store::choose_workspace(&query)?)
    }

    /// The workspace to read from: [`Context::choose_workspace`]'s, a guess included.
    pub(crate) fn workspace(&self, explicit: Option<&str>) -> anyhow::Result<String> {
        Ok(self.choose_workspace(explicit)?.name)
    }

    /// The workspaces a recall reads: every one for `all` (the argument, else `--workspace`),
    /// else the one [`Context::choose_workspace`] chooses, with the note to show when that
    /// was only a guess.
    pub(crate) fn recall_scope(
        &self,
        explicit: Option<&str>,
    ) -> anyhow::Result<(goldfish_recall::Scope, Option<String>)> {
        if self.selector(explicit)?.is_all() {
            return Ok((goldfish_recall::Scope::All, None));
        }
        let (name, note) = self.workspace_for(explicit, false)?;
        Ok((goldfish_recall::Scope::Named(name), note))
    }

    /// The workspace of an operation that writes ([`Context::workspace_to_write`]) or reads
    /// (a guess allowed), with the note a read shows when its workspace was only guessed.
    pub(crate) fn workspace_for(
        &self,
        explicit: Option<&str>,
        writes: bool,
    ) -> anyhow::Result<(String, Option<String>)> {
        if writes {
            return Ok((self.workspace_to_write(explicit)?, None));
        }
        let choice = self.choose_workspace(explicit)?;
        let note = choice.guess_note();
        Ok((choice.name, note))
    }

    /// The workspace to write to: [`Context::choose_workspace`]'s, refused when it is only a
    /// guess, with the store's recent workspaces and Goldfish's registered projects as
    /// candidates.
    pub(crate) fn workspace_to_write(&self, explicit: Option<&str>) -> anyhow::Result<String> {
        let choice = self.choose_workspace(explicit)?;
        if !matches!(choice.source, goldfish_store::WorkspaceSource::Guess(_)) {
            return Ok(choice.name);
        }
        Ok(choice.for_writing(&self.workspace_candidates())?)
    }

    /// The store's most recent workspaces, then the projects of Goldfish's `registry.json`
    /// beside them; what cannot be read is left out (this only feeds an error message).
    fn workspace_candidates(&self) -> Vec<goldfish_store::WorkspaceCandidate> {
        let mut out = self
            .open_store()
            .ok()
            .and_then(|store| goldfish_store::recent_workspaces(&store, CANDIDATES).ok())
            .unwrap_or_default();
        let registry = self.home.join("registry.json");
        if let Ok(registry) = goldfish_import::read_registry(&registry) {
            for project in registry.projects {
                let name = goldfish_store::detect_workspace(&project.path);
                match out.iter_mut().find(|c| c.name == name) {
                    Some(known) => known.path = Some(project.path),
                    None => {
                        let mut candidate = goldfish_store::WorkspaceCandidate::new(name);
                        candidate.path = Some(project.path);
                        out.push(candidate);
                    }
                }
            }
        }
        out
    }
}

/// How many of the store's workspaces a refused save lists.
const CANDIDATES: usize = 8;
