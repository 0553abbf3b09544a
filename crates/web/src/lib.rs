//! `goldfish serve`: a local, read-only web view of a goldfish store.
//!
//! People who run agents want to look, not read raw files: what happened across all projects
//! this week, where each plan stands, what a journal says went wrong, what a pipeline is
//! waiting for. This crate renders that as HTML on the server, with no JavaScript and every
//! asset embedded in the binary.
//!
//! # Pages
//!
//! | path | what |
//! |---|---|
//! | `/` | **timeline**: checkpoints of every workspace, newest first, grouped by day; filters `ws`, `days`, `tags`, and `q`, a search ranked by the recall engine (the same ranking as `goldfish recall --search`, with `--explain`'s reasons folded under each hit); `page` for the next 50 |
//! | `/activity` | checkpoints per day per workspace over the last `weeks` (default 8), as an inline SVG chart |
//! | `/w/{workspace}` | a workspace: its plans with progress bars ([`goldfish_store::Plan::progress`]), the active plan, recent checkpoints |
//! | `/w/{workspace}/tidy` | what may need tidying ([`goldfish_recall::tidy`]): near-duplicate clusters, decisions on one subject that no link joins, memories nobody is shown; read only |
//! | `/w/{workspace}/plans/{id}` | one plan, its markdown rendered |
//! | `/w/{workspace}/checkpoints/{id}` | one checkpoint, its markdown rendered |
//! | `/journals` | the store's archived journals, `corrections.md`, `patterns.jsonl`, and the worktrees given with [`App::with_worktree`] |
//! | `/journals/{file}` | one archived journal |
//! | `/worktrees/{n}` | a worktree: its `JOURNAL.md` hand-over, `GOBLIN_NOTES.md` and pipeline state |
//!
//! # Safe by default
//!
//! - **Read-only.** Nothing here writes the memory: every page reads the store when it is
//!   requested (a store that changes while serving shows the change on reload), and any
//!   method other than `GET` and `HEAD` is answered `405`. The one file written is a cache:
//!   the timeline and searches go through recall, which builds or refreshes the recall
//!   index (`.index/{workspace}.gfi`, never synced) as `goldfish recall` does.
//! - **Bounded.** [`Limits`]: a header timeout (slow and idle clients are cut off), a bound
//!   on open connections, and on pages rendered at once (memory under many clients).
//!   Two `Host` headers are a `400`; an absolute-form target must name the server too.
//! - **Local.** [`Server::bind`] takes any address, but the binary binds `127.0.0.1` unless
//!   told otherwise, and a request whose `Host` header is not one of the server's own names
//!   ([`App::allowed_hosts`]) is answered `403` — a web page elsewhere cannot reach the
//!   server through DNS rebinding. No CORS header is ever sent, so other origins cannot read
//!   the answers.
//! - **Stored text is text.** Descriptions, plans and journals are markdown rendered with
//!   raw HTML escaped, and links kept only for `http`, `https`, `mailto` and relative targets
//!   (`javascript:` and the like become `#`). Pages carry a content security policy that
//!   allows no script at all.
//! - **Problems are shown, not fatal.** A file that cannot be read is listed on the page
//!   that needed it; the rest of the page renders.
//!
//! # Layers
//!
//! Each page is a pure function of an [`App`] and the request's parameters that returns a
//! [`Page`] (status and HTML): [`timeline`], [`activity`], [`workspace`], [`plan`],
//! [`checkpoint`], [`journals`], [`archived_journal`], [`worktree`]. They are tested without
//! a socket. [`router`] puts them behind axum with the host and method checks; [`Server`]
//! binds and runs it.
//!
//! ```
//! use goldfish_store::{CheckpointInput, Store};
//! use goldfish_web::{App, TimelineQuery, timeline};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let mut input = CheckpointInput::new("Fixed <b>auth</b> timeout");
//! input.workspace = Some("demo".into());
//! Store::open(dir.path())?.save_checkpoint(input)?;
//!
//! let page = timeline(&App::new(dir.path()), &TimelineQuery::default());
//! assert_eq!(page.status, 200);
//! assert!(page.html.contains("Fixed &lt;b&gt;auth&lt;/b&gt; timeout"));
//! # Ok(())
//! # }
//! ```

mod activity;
mod detail;
mod html;
mod journals;
mod markdown;
mod server;
mod tidy;
mod timeline;
mod workspace;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

pub use activity::{ActivityQuery, activity};
/// The `chrono` this crate's API uses (`DateTime<Utc>`, `NaiveDate`), re-exported so that
/// callers need not depend on it or match its version.
pub use chrono;
pub use detail::{checkpoint, plan};
pub use journals::{archived_journal, journals, worktree};
pub use markdown::{markdown_to_html, safe_url};
pub use server::{Limits, Server, router};
pub use tidy::tidy;
pub use timeline::{PAGE_SIZE, TimelineQuery, timeline};
pub use workspace::workspace;

/// What the server shows: the store's root, the worktrees given on the command line, and the
/// names a request may use in its `Host` header. Cheap to clone; every page opens the store
/// afresh, and the recall indexes it keeps between requests (as the MCP server does) are
/// checked against the day files at every search, so nothing here goes stale.
#[derive(Debug, Clone)]
pub struct App {
    store_root: PathBuf,
    worktrees: Vec<PathBuf>,
    allowed_hosts: Vec<String>,
    now: Option<DateTime<Utc>>,
    cwd: Option<PathBuf>,
    recall_cache: std::sync::Arc<goldfish_recall::RecallCache>,
    semantic: Option<std::sync::Arc<LazySemantic>>,
    repository: Option<(String, PathBuf)>,
}

/// The semantic channel's model, loaded by the first search that needs it.
struct LazySemantic {
    load: Box<dyn Fn() -> Option<goldfish_recall::SemanticChannel> + Send + Sync>,
    channel: std::sync::OnceLock<Option<goldfish_recall::SemanticChannel>>,
}

impl std::fmt::Debug for LazySemantic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazySemantic")
            .field("channel", &self.channel.get())
            .finish_non_exhaustive()
    }
}

impl App {
    /// A view of the store at `store_root` (nothing is created there).
    pub fn new(store_root: impl Into<PathBuf>) -> App {
        App {
            store_root: store_root.into(),
            worktrees: Vec::new(),
            allowed_hosts: Vec::new(),
            now: None,
            cwd: None,
            recall_cache: std::sync::Arc::default(),
            semantic: None,
            repository: None,
        }
    }

    /// Ranks the view's searches by meaning too (see `goldfish_recall::semantic`): `load`
    /// gives the channel (`None`: no model) and is called once, by the first search, so a
    /// view that is never searched loads no model. By default searches are lexical.
    pub fn with_semantic(
        mut self,
        load: impl Fn() -> Option<goldfish_recall::SemanticChannel> + Send + Sync + 'static,
    ) -> App {
        self.semantic = Some(std::sync::Arc::new(LazySemantic {
            load: Box::new(load),
            channel: std::sync::OnceLock::new(),
        }));
        self
    }

    /// Also shows this worktree's `JOURNAL.md`, `GOBLIN_NOTES.md` and pipeline state.
    pub fn with_worktree(mut self, dir: impl Into<PathBuf>) -> App {
        self.worktrees.push(dir.into());
        self
    }

    /// Also accepts requests whose `Host` header is `host` (a name with its port, as a
    /// browser sends it: `example.lan:7373`). [`Server::bind`] adds the bound address, and
    /// `localhost:PORT` when it is a loopback address.
    pub fn with_allowed_host(mut self, host: impl Into<String>) -> App {
        self.allowed_hosts.push(host.into());
        self
    }

    /// Uses `now` as the current time for "the last N days" and the activity chart (for
    /// reproducible pages); by default the store's clock.
    pub fn with_now(mut self, now: DateTime<Utc>) -> App {
        self.now = Some(now);
        self
    }

    /// The directory the server was started in: the memory kept in its repository
    /// (`{repo}/.goldfish/`) is shown with the store's, and recall's "current project"
    /// lookups (Goldfish 5–8 projects read in place) start there, as for the CLI. By default
    /// neither: only the store, and the process's directory for recall.
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> App {
        self.cwd = Some(cwd.into());
        self
    }

    /// The git repository, `dir`, that `workspace`'s checkpoints were saved in: each of its
    /// checkpoints listed that names files and a commit says whether those files changed
    /// since (one `git log` per page, see [`goldfish_store::git_freshness`]). By default no
    /// such claim is made and no git runs.
    pub fn with_repository(mut self, workspace: impl Into<String>, dir: impl Into<PathBuf>) -> App {
        self.repository = Some((workspace.into(), dir.into()));
        self
    }

    /// What git says of the files of each of `hits` (those of
    /// [`App::with_repository`]'s workspace) since its commit, by checkpoint id.
    fn freshness(
        &self,
        hits: &[goldfish_recall::RecallHit],
    ) -> std::collections::HashMap<String, goldfish_store::Freshness> {
        let Some((workspace, dir)) = &self.repository else {
            return std::collections::HashMap::new();
        };
        let checkpoints = hits.iter().map(|h| &h.checkpoint);
        checkpoints
            .clone()
            .zip(goldfish_store::checkpoint_freshness(
                dir,
                workspace,
                checkpoints,
                goldfish_store::FRESHNESS_TIMEOUT,
            ))
            .filter_map(|(c, claim)| Some((c.id.clone(), claim?)))
            .collect()
    }

    /// The store's root directory.
    pub fn store_root(&self) -> &Path {
        &self.store_root
    }

    /// The worktrees shown on `/journals` and `/worktrees/{n}`, in the order given.
    pub fn worktrees(&self) -> &[PathBuf] {
        &self.worktrees
    }

    /// The `Host` header values accepted (compared without regard to case).
    pub fn allowed_hosts(&self) -> &[String] {
        &self.allowed_hosts
    }

    /// Opens the store (every page does, so a changed store shows on reload), with the
    /// memory kept in the repository around [`App::with_cwd`]'s directory, as every command
    /// of the CLI opens it.
    /// A recall through the indexes this server keeps between requests.
    fn recall(
        &self,
        store: &goldfish_store::Store,
        opts: &goldfish_recall::RecallOptions,
    ) -> Result<goldfish_recall::RecallResult, goldfish_recall::Error> {
        if let (Some(_), Some(lazy)) = (&opts.search, &self.semantic) {
            let mut opts = opts.clone();
            opts.semantic = lazy.channel.get_or_init(|| (lazy.load)()).clone();
            return goldfish_recall::recall_with(store, &opts, &self.recall_cache);
        }
        goldfish_recall::recall_with(store, opts, &self.recall_cache)
    }

    fn store(&self) -> Result<goldfish_store::Store, goldfish_store::Error> {
        let store = goldfish_store::Store::open(&self.store_root)?;
        Ok(match &self.cwd {
            Some(cwd) => store.with_repo_memory(cwd),
            None => store,
        })
    }

    /// The current time: [`App::with_now`]'s, else the store's clock.
    fn now(&self, store: &goldfish_store::Store) -> DateTime<Utc> {
        self.now.unwrap_or_else(|| store.now())
    }
}

/// A rendered page: its HTTP status and a whole HTML document.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Page {
    /// 200, or 404 when what the path names does not exist.
    pub status: u16,
    /// The HTML document.
    pub html: String,
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The address could not be bound (in use, not permitted, not local).
    #[error("cannot listen on {addr}: {message}")]
    Bind {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// What went wrong, in words, with what to do about it.
        message: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The server's runtime or connection loop failed.
    #[error("the web server stopped: {0}")]
    Io(#[from] std::io::Error),
}

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
