//! What a recall is asked: [`RecallOptions`], and the [`Scope`] of workspaces it reads. A
//! leaf: the types only, with their defaults.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use crate::filter::Filter;
use crate::semantic::SemanticChannel;

/// Which workspaces a recall reads: the store's [`WorkspaceSelector`](goldfish_store::WorkspaceSelector)
/// (`current`, a name or a project's path, or `all`), parsed with
/// [`str::parse`] or, for a literal, `opts.workspace = "api".into()`.
pub use goldfish_store::WorkspaceSelector as Scope;

/// What to recall; see [`recall`](fn@crate::recall). Every field has a sensible default.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RecallOptions {
    /// Which workspaces to read; default [`Scope::Current`].
    pub workspace: Scope,
    /// The last this many days (a rolling window ending at `to`); `None` means 2 when
    /// neither `since` nor `from` is given. At most one of `days`, `since` and `from` may be
    /// given: they all set the start of the window.
    pub days: Option<u32>,
    /// Start of the window: `30m`, `6h`, `3d`, `1w`, a date or an RFC 3339 timestamp.
    pub since: Option<String>,
    /// Start of the window: a date (its UTC start) or a timestamp.
    pub from: Option<String>,
    /// End of the window: a date (the end of that UTC day) or a timestamp. Default now.
    pub to: Option<String>,
    /// Free text to search for — keywords, a question in plain words, a typo'd word; the
    /// results are then ranked by relevance instead of time. Text with no content word at
    /// all (only stop words or punctuation) is an error of kind
    /// [`ErrorKind::NothingToSearch`](crate::ErrorKind::NothingToSearch), not an empty answer.
    pub search: Option<String>,
    /// Other phrasings of the same need as `search` (a few keywords, a question in other
    /// words): each is searched as `search` is, and the rankings are fused by reciprocal rank
    /// (see [`fuse_phrasings`](crate::fuse_phrasings)). At most
    /// [`MAX_PHRASINGS`](crate::MAX_PHRASINGS) with `search`; given without a search, or too
    /// many, is an error of kind [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument). Default none.
    pub also_search: Vec<String>,
    /// With a search, explain each shown checkpoint's score in its
    /// [`RecallHit::explanation`](crate::RecallHit::explanation): which query words matched which terms, in which
    /// fields, how, and the score's parts. Default false (no cost when off).
    pub explain: bool,
    /// At most this many checkpoints in all. 0 returns only the active plan. Default 10.
    pub limit: usize,
    /// The current time; `None` uses the store's clock ([`Store::now`](crate::Store::now)). Set it for
    /// reproducible results.
    pub now: Option<DateTime<Utc>>,
    /// The directory [`Scope::Current`] is resolved from and whose Goldfish 5–8 project is
    /// read in place. `None` (the default) reads no directory: [`Scope::Current`] is then an
    /// error of kind [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument), and
    /// only `registry.json`'s projects are read in place. [`RecallOptions::from_env`] sets
    /// it to the process's directory.
    pub cwd: Option<PathBuf>,
    /// Filters applied before the search and the limit: only checkpoints matching all of
    /// them are recalled.
    pub filter: Filter,
    /// Also read Goldfish 5–8 projects in place (default true): those listed in
    /// `registry.json` at the store's root and the one around `cwd`, each as the workspace
    /// goldfish detects for its directory, its active brief as the active plan. Nothing is
    /// written to them.
    pub goldfish_memories: bool,
    /// Search through the persistent index beside the day files (default true; see the
    /// crate's "How search works"): the same hits and scores as reading the files, without
    /// reading them all. `false` reads the day files; [`RecallOptions::from_env`] sets it
    /// `false` when `$GOLDFISH_NO_INDEX` is set (to anything but empty or `0`).
    pub use_index: bool,
    /// Recall by meaning too: with a search, the semantic channel's ranking (nearest
    /// sentence embeddings, see [`crate::semantic`]) is fused with the lexical one. `None`
    /// (the default): lexical only, no model.
    pub semantic: Option<SemanticChannel>,
    /// Also recall checkpoints that a later one supersedes (default false: only the newest
    /// of a chain is recalled; see the crate documentation, "Supersession").
    pub include_superseded: bool,
}

impl Default for RecallOptions {
    fn default() -> Self {
        RecallOptions {
            workspace: Scope::Current,
            days: None,
            since: None,
            from: None,
            to: None,
            search: None,
            also_search: Vec::new(),
            explain: false,
            limit: 10,
            now: None,
            cwd: None,
            filter: Filter::default(),
            goldfish_memories: true,
            use_index: true,
            semantic: None,
            include_superseded: false,
        }
    }
}

impl RecallOptions {
    /// The defaults with what the process says: [`cwd`](Self::cwd) is the process's current
    /// directory (when it can be read), and `$GOLDFISH_NO_INDEX` (set to anything but empty
    /// or `0`) turns [`use_index`](Self::use_index) off. For a binary; a library sets the
    /// fields it means.
    pub fn from_env() -> RecallOptions {
        RecallOptions {
            cwd: std::env::current_dir().ok(),
            use_index: !std::env::var_os(NO_INDEX_ENV).is_some_and(|v| !v.is_empty() && v != "0"),
            ..RecallOptions::default()
        }
    }
}

/// Set to `1` (or any value but `0`), recall reads the day files and never the index.
pub const NO_INDEX_ENV: &str = "GOLDFISH_NO_INDEX";
