//! Recall over a store: read the window's day files, search or sort, cap, attach the plan.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use goldfish_store::{
    Checkpoint, Freshness, FreshnessFilter, Link, MemoryType, Plan, Store, Supersession,
    resolve_workspace,
};

use crate::engine::{Query, search};
use crate::error::Error;
use crate::explain::Explanation;
use crate::index::{self, RecallCache};
use crate::inplace::InPlace;
use crate::options::SearchOptions;
use crate::semantic::{Caches, SemanticChannel};
use crate::window::TimeWindow;

/// Which workspaces a recall reads: the store's [`WorkspaceSelector`](goldfish_store::WorkspaceSelector)
/// (`current`, a name or a project's path, or `all`), parsed with
/// [`str::parse`] or, for a literal, `opts.workspace = "api".into()`.
pub use goldfish_store::WorkspaceSelector as Scope;

/// What to recall; see [`recall`]. Every field has a sensible default.
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
    /// With a search, explain each shown checkpoint's score in its
    /// [`RecallHit::explanation`]: which query words matched which terms, in which
    /// fields, how, and the score's parts. Default false (no cost when off).
    pub explain: bool,
    /// At most this many checkpoints in all. 0 returns only the active plan. Default 10.
    pub limit: usize,
    /// The current time; `None` uses the store's clock ([`Store::now`]). Set it for
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

/// Which checkpoints a recall keeps; every part is optional and all given parts must match.
///
/// Matching ignores case. `files` matches a checkpoint that touched a file equal to the
/// pattern, under it (`src/auth/` or `src/auth` → `src/auth/jwt.rs`) or ending with it
/// (`jwt.rs`, `auth/jwt.rs`). `symbol` matches a symbol equal to it or ending with it after
/// `::` or `.` (`rotate` → `TokenStore::rotate`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Filter {
    /// Only this kind of memory.
    pub memory_type: Option<MemoryType>,
    /// Only checkpoints carrying every one of these tags.
    pub tags: Vec<String>,
    /// Only checkpoints that touched a file matching this path (see above).
    pub file: Option<String>,
    /// Only checkpoints naming this symbol (see above).
    pub symbol: Option<String>,
    /// `(workspace, id)` of the checkpoints a recall hides because another supersedes them:
    /// set by [`recall`] itself, never by its caller.
    hidden: HashSet<(String, String)>,
}

impl Filter {
    /// Also leaves out the checkpoints that `links` (one per workspace, in the order of
    /// `workspaces`) say another supersedes.
    pub(crate) fn hide_superseded(&mut self, workspaces: &[String], links: &[Supersession]) {
        for (ws, s) in workspaces.iter().zip(links) {
            self.hidden
                .extend(s.superseded_ids().map(|id| (ws.clone(), id.to_string())));
        }
    }

    /// True when no part is given: every checkpoint matches.
    pub fn is_empty(&self) -> bool {
        self.memory_type.is_none()
            && self.tags.iter().all(|t| t.trim().is_empty())
            && self.file.as_deref().is_none_or(|f| f.trim().is_empty())
            && self.symbol.as_deref().is_none_or(|s| s.trim().is_empty())
            && self.hidden.is_empty()
    }

    /// True when `checkpoint` matches every given part.
    pub fn matches(&self, checkpoint: &Checkpoint) -> bool {
        if !self.hidden.is_empty()
            && self
                .hidden
                .contains(&(checkpoint.workspace.clone(), checkpoint.id.clone()))
        {
            return false;
        }
        if self
            .memory_type
            .is_some_and(|t| t != checkpoint.memory_type)
        {
            return false;
        }
        let tags_ok = self
            .tags
            .iter()
            .map(|t| t.trim())
            .filter(|t| !t.is_empty())
            .all(|want| checkpoint.tags.iter().any(|t| t.eq_ignore_ascii_case(want)));
        if !tags_ok {
            return false;
        }
        if let Some(pattern) = self
            .file
            .as_deref()
            .map(str::trim)
            .filter(|f| !f.is_empty())
            && !checkpoint.files.iter().any(|f| file_matches(f, pattern))
        {
            return false;
        }
        if let Some(symbol) = self
            .symbol
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            && !checkpoint
                .structured
                .symbols
                .iter()
                .any(|s| symbol_matches(s, symbol))
        {
            return false;
        }
        true
    }
}

/// A path matches a pattern equal to it, a directory above it, or a suffix of it that starts
/// at a path component. Separators `\` count as `/`; a leading `./` is ignored; case is
/// ignored.
fn file_matches(path: &str, pattern: &str) -> bool {
    let norm = |s: &str| {
        let s = s.replace('\\', "/").to_lowercase();
        s.strip_prefix("./").map(str::to_string).unwrap_or(s)
    };
    let path = norm(path);
    let pattern = norm(pattern);
    let dir = pattern.trim_end_matches('/');
    if dir.is_empty() {
        return false;
    }
    if path == dir || path.starts_with(&format!("{dir}/")) {
        return true;
    }
    // A suffix starting at a component: `jwt.rs` or `auth/jwt.rs` in `src/auth/jwt.rs`, and
    // a directory inside: `auth/` in `src/auth/jwt.rs`.
    let inner = format!("/{dir}");
    path.ends_with(&inner) || path.contains(&format!("{inner}/"))
}

/// A symbol matches a name equal to it or ending with `::name` or `.name`, ignoring case.
fn symbol_matches(symbol: &str, wanted: &str) -> bool {
    let symbol = symbol.to_lowercase();
    let wanted = wanted.to_lowercase();
    symbol == wanted
        || symbol.ends_with(&format!("::{wanted}"))
        || symbol.ends_with(&format!(".{wanted}"))
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
            use_index: !std::env::var_os(index::NO_INDEX_ENV)
                .is_some_and(|v| !v.is_empty() && v != "0"),
            ..RecallOptions::default()
        }
    }
}

/// The supersession links of one checkpoint: both ways, each with the other end's id and
/// title.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Links {
    /// The earlier checkpoints this one replaces, in its `Supersedes` bullet's order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<Link>,
    /// The later checkpoints that replace this one, oldest first (shown only when it is
    /// recalled anyway: [`RecallOptions::include_superseded`], or by id).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub superseded_by: Vec<Link>,
}

impl Links {
    /// The links of `checkpoint` in its workspace's `supersession`.
    pub fn of(supersession: &Supersession, checkpoint: &Checkpoint) -> Links {
        Links {
            supersedes: supersession.supersedes(checkpoint),
            superseded_by: supersession.superseded_by(&checkpoint.id).to_vec(),
        }
    }

    /// True when the checkpoint has no link either way.
    pub fn is_empty(&self) -> bool {
        self.supersedes.is_empty() && self.superseded_by.is_empty()
    }
}

/// The supersession links of one checkpoint of `store`, for a view of that checkpoint
/// alone: `goldfish show`, the `recall` tool's `id`, the web view's checkpoint page. Read as
/// a recall reads them: from its workspace's index (checked fresh against the day files,
/// rebuilt when they changed) when `opts.use_index`, else from every day file of the
/// workspace; `opts`' other fields are not used. What a person should know (an index
/// rebuilt or not written) is added to `notes`.
///
/// Errors: the checkpoint's workspace name is invalid.
pub fn links_of(
    store: &Store,
    opts: &RecallOptions,
    checkpoint: &Checkpoint,
    notes: &mut Vec<String>,
) -> Result<Links, Error> {
    let workspaces = [goldfish_store::validate_workspace(&checkpoint.workspace)?];
    let known = supersession_of(store, opts.use_index, &workspaces, None, true, notes)?;
    Ok(Links::of(&known.links[0], checkpoint))
}

/// The links of a checkpoint just saved, for the save's reply: what it supersedes, each
/// title read from the day of its id (the save checked that each exists); nothing can
/// supersede it yet. Reads no day file when it supersedes nothing, and never the index
/// (a save writes none).
///
/// Errors: the checkpoint's workspace name is invalid.
pub fn links_of_saved(store: &Store, saved: &Checkpoint) -> Result<Links, Error> {
    let mut supersedes = Vec::with_capacity(saved.supersedes.len());
    for id in &saved.supersedes {
        let title = store
            .find_in_workspace(&saved.workspace, id)?
            .map(|c| c.title().to_string())
            .unwrap_or_default();
        supersedes.push(Link::new(id.clone(), title));
    }
    Ok(Links {
        supersedes,
        superseded_by: Vec::new(),
    })
}

/// How many checkpoints of one workspace matched and how many are in the result.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct WorkspaceCount {
    /// The workspace.
    pub workspace: String,
    /// Checkpoints in the window (matching the search, if any).
    pub matched: usize,
    /// Of those, how many made it into [`RecallResult::checkpoints`] under the limit.
    pub shown: usize,
}

/// A file, or part of one, that could not be read. Recall skips it and carries on.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct SkippedFile {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line, when the problem is at one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for SkippedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl From<goldfish_store::Skipped> for SkippedFile {
    fn from(s: goldfish_store::Skipped) -> Self {
        SkippedFile {
            path: s.path,
            line: s.line,
            message: s.message,
        }
    }
}

/// What a recall found in the store as a whole: lets an empty answer say why it is empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum StoreState {
    /// The store's directory does not exist yet (nothing was ever saved there).
    Missing,
    /// The directory exists but holds no workspace.
    Empty,
    /// At least one workspace exists.
    Populated,
}

/// What [`recall`] found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct RecallResult {
    /// What was recalled: [`Scope::Named`] with the one workspace's name, or [`Scope::All`]
    /// (never [`Scope::Current`]: the current workspace is resolved to its name).
    pub scope: Scope,
    /// The window that was read.
    pub window: TimeWindow,
    /// The time the recall was made at ([`RecallOptions::now`], else the store's clock): what
    /// each checkpoint's age is counted from.
    pub now: DateTime<Utc>,
    /// The search text, if any.
    pub search: Option<String>,
    /// What ranked the answer, with a search: `["lexical"]`, or `["lexical", "semantic"]`
    /// when the semantic channel took part. Empty without a search.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub channels: Vec<&'static str>,
    /// The checkpoints found, each with its score and explanation: by relevance with a
    /// search, else newest first; at most `limit`.
    pub hits: Vec<RecallHit>,
    /// How many checkpoints matched before the limit.
    pub total: usize,
    /// Per workspace with at least one match: matched and shown counts, in name order.
    pub workspaces: Vec<WorkspaceCount>,
    /// The active plan of a single workspace (never a completed or archived one).
    pub active_plan: Option<Plan>,
    /// Files or entries that could not be read and were skipped.
    pub skipped: Vec<SkippedFile>,
    /// The limit asked for ([`RecallOptions::limit`]); 0 asked for the active plan only.
    pub limit: usize,
    /// The store's root directory.
    pub store_root: PathBuf,
    /// Whether the store holds anything at all.
    pub store: StoreState,
    /// What a person should know about how the answer was found, one line each (a recall
    /// index that was unusable and rebuilt, or that could not be written); the binary
    /// prints them on stderr.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl RecallResult {
    /// Records `claims` (one per hit, in order; see [`goldfish_store::git_freshness`]) in
    /// each hit's [`RecallHit::freshness`], keeps the hits `filter` keeps, then the first
    /// `limit` of them. With a filter other than [`FreshnessFilter::Any`],
    /// [`total`](RecallResult::total) and the workspaces' counts become those of the hits
    /// kept among those checked.
    pub fn set_freshness(
        &mut self,
        claims: Vec<Option<Freshness>>,
        filter: FreshnessFilter,
        limit: usize,
    ) {
        let mut claims = claims.into_iter();
        let mut hits: Vec<RecallHit> = std::mem::take(&mut self.hits)
            .into_iter()
            .filter_map(|mut hit| {
                hit.freshness = claims.next().flatten();
                filter.keeps(hit.freshness.as_ref()).then_some(hit)
            })
            .collect();
        let count = |hits: &[RecallHit], workspace: &str| {
            hits.iter()
                .filter(|h| h.checkpoint.workspace == workspace)
                .count()
        };
        if filter != FreshnessFilter::Any {
            self.total = hits.len();
            for w in &mut self.workspaces {
                w.matched = count(&hits, &w.workspace);
            }
            self.workspaces.retain(|w| w.matched > 0);
        }
        hits.truncate(limit);
        for w in &mut self.workspaces {
            w.shown = count(&hits, &w.workspace);
        }
        self.hits = hits;
    }
}

impl RecallResult {
    /// The checkpoints of [`hits`](Self::hits), in their order.
    pub fn checkpoints(&self) -> impl ExactSizeIterator<Item = &Checkpoint> {
        self.hits.iter().map(|h| &h.checkpoint)
    }
}

/// One checkpoint a recall found, with how it ranked.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct RecallHit {
    /// The checkpoint.
    pub checkpoint: Checkpoint,
    /// With a search, its relevance score (greater than zero; comparable only within one
    /// recall); `None` without a search (the checkpoints are then newest first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
    /// With [`RecallOptions::explain`] and a search: why it matched and how its score was
    /// made. `None` otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<Explanation>,
    /// What it supersedes and what supersedes it (see the crate documentation,
    /// "Supersession"); empty when it has no link either way.
    #[serde(skip_serializing_if = "Links::is_empty")]
    pub links: Links,
    /// Whether the files the checkpoint names changed in git since its commit; `None`: no
    /// claim either way. Recall itself runs no git: [`RecallResult::set_freshness`] fills it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Freshness>,
}

impl RecallHit {
    /// A checkpoint recalled without a search: no score, no explanation.
    pub(crate) fn unranked(checkpoint: Checkpoint) -> RecallHit {
        RecallHit {
            checkpoint,
            score: None,
            explanation: None,
            links: Links::default(),
            freshness: None,
        }
    }
}

/// What a recall knows of its workspaces' supersession, in the order of the workspaces.
pub(crate) struct Known {
    /// Each workspace's links.
    pub(crate) links: Vec<Supersession>,
    /// With the fresh indexes: each workspace's index and the entries it hides. `None`:
    /// recall reads the day files.
    indexed: Option<Vec<(index::WsIndex, Vec<u32>)>>,
}

/// The supersession of `workspaces`: from their indexes (checked fresh, rebuilt when the
/// day files changed) when `use_index` ([`RecallOptions::use_index`]), else — or when an
/// index cannot say — from every day file ([`Store::supersession`]). The same rule either
/// way ([`Supersession::from_facts`]). Without `build`, only indexes that are current
/// already are used, never built.
pub(crate) fn supersession_of(
    store: &Store,
    use_index: bool,
    workspaces: &[String],
    cache: Option<&RecallCache>,
    build: bool,
    notes: &mut Vec<String>,
) -> Result<Known, Error> {
    // Without `build`, the indexes are used only when they are current: building one holds
    // a workspace's whole index in memory, which a long-lived process must not pay for a
    // timeline (its memory would grow with the store); the day files are then read one at a
    // time instead, and the next search builds the index.
    let indexes = match use_index {
        false => None,
        true if !build => index::current_all(store, workspaces, cache),
        true => Some(index::fresh_all(store, workspaces, cache, notes)),
    };
    if let Some(indexes) = indexes {
        let known: Result<Vec<index::Indexed>, index::Fallback> =
            indexes.iter().map(index::supersession).collect();
        match known {
            Ok(known) => {
                let mut links = Vec::with_capacity(known.len());
                let mut indexed = Vec::with_capacity(known.len());
                for (ix, k) in indexes.into_iter().zip(known) {
                    links.push(k.links);
                    indexed.push((ix, k.hidden));
                }
                return Ok(Known {
                    links,
                    indexed: Some(indexed),
                });
            }
            Err(why) => notes.push(format!(
                "recall index not used ({}); answered from the day files",
                why.0
            )),
        }
    }
    let links = workspaces
        .iter()
        .map(|ws| store.supersession(ws))
        .collect::<Result<_, _>>()?;
    Ok(Known {
        links,
        indexed: None,
    })
}

/// Recalls checkpoints from `store` as `opts` asks.
///
/// Reads only the day files the window touches; with [`Scope::All`] the workspaces are
/// read in parallel. A corrupt file or entry is skipped and listed in
/// [`RecallResult::skipped`], never fatal. Errors: an option that cannot be parsed, or two
/// of `days`, `since` and `from` given together ([`Error::is_invalid_argument`], naming
/// them), or a store that cannot be listed.
pub fn recall(store: &Store, opts: &RecallOptions) -> Result<RecallResult, Error> {
    recall_inner(store, opts, None)
}

/// [`recall`] for a long-lived process: the index of each workspace searched is kept in
/// `cache` between calls and refreshed by the same check of the day files (so never
/// stale), instead of being read from its file every time.
pub fn recall_with(
    store: &Store,
    opts: &RecallOptions,
    cache: &RecallCache,
) -> Result<RecallResult, Error> {
    recall_inner(store, opts, Some(cache))
}

fn recall_inner(
    store: &Store,
    opts: &RecallOptions,
    cache: Option<&RecallCache>,
) -> Result<RecallResult, Error> {
    let Prepared {
        now,
        state,
        in_place,
        window,
        workspaces,
        all,
    } = prepare(store, opts)?;
    let mut notes = Vec::new();
    // A blank search is no search; text without a single content word is an error that says
    // so, never a silent "nothing matched".
    let query = match opts.search.as_deref().filter(|s| !s.trim().is_empty()) {
        Some(text) => Some(Query::try_parse(text)?),
        None => None,
    };
    let search_opts = SearchOptions {
        explain: opts.explain,
        ..SearchOptions::default()
    };
    // The semantic channel, with a search of enough words and a model: the query embedded
    // once, beside the lexical search. A model that fails leaves the search lexical, with a
    // note.
    let mut caches = match (&query, &opts.semantic) {
        (Some(q), Some(channel)) if channel.options.applies_to(q) => {
            let text = opts.search.as_deref().unwrap_or_default();
            Some(Caches::new(store.root(), channel, text, &workspaces))
        }
        _ => None,
    };
    // Who is superseded comes from every entry of each workspace, not the window's: a
    // checkpoint of last week replaced today is hidden from a recall of last week. The
    // index keeps what that takes; without it, every day file is read.
    let Known { links, indexed } = supersession_of(
        store,
        opts.use_index,
        &workspaces,
        cache,
        opts.search.as_deref().is_some_and(|s| !s.trim().is_empty()),
        &mut notes,
    )?;
    // The options as the day files are read: the caller's, with the superseded checkpoints
    // filtered out.
    let mut effective = opts.clone();
    if !opts.include_superseded {
        effective.filter.hide_superseded(&workspaces, &links);
    }
    // The index answers a search without filters over the store's own files; Goldfish 5–8
    // projects in the searched workspaces and filters are read from the files.
    let answered = match (&query, indexed) {
        (Some(q), Some(indexed))
            if opts.filter.is_empty()
                && !workspaces.iter().any(|ws| in_place.has_checkpoints(ws)) =>
        {
            let (indexes, hidden): (Vec<_>, Vec<_>) = indexed.into_iter().unzip();
            let hidden = if opts.include_superseded {
                Vec::new()
            } else {
                hidden
            };
            index::search(
                indexes,
                &hidden,
                window,
                q,
                &search_opts,
                opts.limit,
                caches.as_mut(),
                &mut notes,
            )
            .map_err(|why| {
                notes.push(format!(
                    "recall index not used ({}); answered from the day files",
                    why.0
                ));
            })
            .ok()
        }
        _ => None,
    };
    let (mut hits, total, counts, mut skipped) = match answered {
        Some(answer) => {
            let mut skipped = answer.skipped;
            skipped.extend(in_place.skipped.iter().cloned());
            let counts = answer
                .counts
                .into_iter()
                .map(|(workspace, matched, shown)| WorkspaceCount {
                    workspace,
                    matched,
                    shown,
                })
                .collect();
            (answer.shown, answer.total, counts, skipped)
        }
        None => read_and_search(
            store,
            &effective,
            &workspaces,
            window,
            &in_place,
            query.as_ref(),
            &search_opts,
            caches.as_mut(),
            &mut notes,
        )?,
    };
    // What ranked: the semantic channel when its query was embedded.
    let semantic = caches.as_mut().is_some_and(|c| c.ranked(&mut notes));
    let channels = match (&query, semantic) {
        (None, _) => Vec::new(),
        (Some(_), true) => vec!["lexical", "semantic"],
        (Some(_), false) => vec!["lexical"],
    };
    if let Some(c) = caches {
        c.save(&mut notes);
    }

    let active_plan = if all {
        None
    } else {
        match store.active_plan(&workspaces[0]) {
            Ok(plan) => plan.or_else(|| in_place.active_plan(&workspaces[0])),
            // A broken plan file must not hide the checkpoints: report it and go on.
            Err(e) if e.is_parse() || e.path().is_some() => {
                skipped.push(SkippedFile {
                    path: e.path().map(Path::to_path_buf).unwrap_or_default(),
                    line: e.line(),
                    message: e.message().to_string(),
                });
                None
            }
            Err(e) => return Err(e.into()),
        }
    };

    if !links.iter().all(Supersession::is_empty) {
        for hit in &mut hits {
            if let Some(i) = workspaces
                .iter()
                .position(|ws| *ws == hit.checkpoint.workspace)
            {
                hit.links = Links::of(&links[i], &hit.checkpoint);
            }
        }
    }
    Ok(RecallResult {
        scope: if all {
            Scope::All
        } else {
            Scope::Named(workspaces[0].clone())
        },
        window,
        now,
        search: opts.search.clone().filter(|s| !s.trim().is_empty()),
        channels,
        hits,
        total,
        workspaces: counts,
        active_plan,
        skipped,
        limit: opts.limit,
        store_root: store.root().to_path_buf(),
        store: state,
        notes,
    })
}

/// What every recall settles before reading: the store's state, the Goldfish 5–8 projects
/// read in place, the window and the workspaces.
struct Prepared {
    now: DateTime<Utc>,
    state: StoreState,
    in_place: InPlace,
    window: TimeWindow,
    workspaces: Vec<String>,
    all: bool,
}

fn prepare(store: &Store, opts: &RecallOptions) -> Result<Prepared, Error> {
    check_window_options(opts)?;
    // Listing the root first makes an unreadable store an error, not an empty answer.
    let known = store.list_workspaces()?;
    let state = if known.is_empty() {
        if store.root().exists() {
            StoreState::Empty
        } else {
            StoreState::Missing
        }
    } else {
        StoreState::Populated
    };
    let in_place = if opts.goldfish_memories {
        InPlace::read(store, opts.cwd.as_deref())
    } else {
        InPlace::default()
    };
    let state = if state != StoreState::Populated && in_place.workspaces().next().is_some() {
        StoreState::Populated
    } else {
        state
    };
    let now = opts.now.unwrap_or_else(|| store.now());
    let window = TimeWindow::resolve(
        now,
        opts.days.unwrap_or(DEFAULT_DAYS),
        opts.since.as_deref(),
        opts.from.as_deref(),
        opts.to.as_deref(),
    )?;
    let workspaces = match &opts.workspace {
        Scope::All => {
            let mut all = known;
            all.extend(in_place.workspaces().cloned());
            all.sort();
            all.dedup();
            all
        }
        Scope::Current => vec![resolve_scope(None, opts.cwd.as_deref())?],
        Scope::Named(name) => vec![resolve_scope(Some(name), opts.cwd.as_deref())?],
    };
    Ok(Prepared {
        now,
        state,
        in_place,
        window,
        workspaces,
        all: opts.workspace == Scope::All,
    })
}

/// How many checkpoints each workspace holds per UTC day of the window that `opts` describes
/// (its scope, window, filter and [`include_superseded`](RecallOptions::include_superseded):
/// a superseded checkpoint is not counted unless asked, as recall does not show it; its
/// search and limit are not used), as the activity chart of the web view shows them. Reads
/// one day file at a time: memory does not grow with the window.
pub fn checkpoints_per_day(store: &Store, opts: &RecallOptions) -> Result<DayCounts, Error> {
    let p = prepare(store, opts)?;
    let mut filter = opts.filter.clone();
    if !opts.include_superseded {
        let known = supersession_of(
            store,
            opts.use_index,
            &p.workspaces,
            None,
            // Counting reads every day file of the window anyway: no index is built for it.
            false,
            &mut Vec::new(),
        )?;
        filter.hide_superseded(&p.workspaces, &known.links);
    }
    let (days, skipped) =
        crate::newest::per_day(store, &p.workspaces, p.window, &p.in_place, &filter)?;
    Ok(DayCounts {
        window: p.window,
        days,
        skipped,
    })
}

/// What [`checkpoints_per_day`] counted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct DayCounts {
    /// The window that was read.
    pub window: TimeWindow,
    /// UTC day → workspace → checkpoints; days and workspaces in order, empty days left out.
    pub days:
        std::collections::BTreeMap<chrono::NaiveDate, std::collections::BTreeMap<String, usize>>,
    /// Files or entries that could not be read and were skipped.
    pub skipped: Vec<SkippedFile>,
}

/// What a recall shows: the hits, the total before the limit, per-workspace counts and the
/// skipped files.
type Shown = (Vec<RecallHit>, usize, Vec<WorkspaceCount>, Vec<SkippedFile>);

/// Recall without the index: without a search, the newest checkpoints read one day file at a
/// time; with one, the window's day files read, filtered and searched.
#[allow(clippy::too_many_arguments)]
fn read_and_search(
    store: &Store,
    opts: &RecallOptions,
    workspaces: &[String],
    window: TimeWindow,
    in_place: &InPlace,
    query: Option<&Query>,
    search_opts: &SearchOptions,
    caches: Option<&mut Caches<'_>>,
    notes: &mut Vec<String>,
) -> Result<Shown, Error> {
    let Some(q) = query else {
        let (shown, total, counts, skipped) = crate::newest::newest(
            store,
            workspaces,
            window,
            in_place,
            &opts.filter,
            opts.limit,
        )?;
        let hits = shown.into_iter().map(RecallHit::unranked).collect();
        return Ok((hits, total, counts, skipped));
    };
    let (mut checkpoints, mut skipped) = read_all(store, workspaces, window)?;
    for ws in workspaces {
        in_place.add_checkpoints(ws, window, &mut checkpoints);
    }
    skipped.extend(in_place.skipped.iter().cloned());
    if !opts.filter.is_empty() {
        checkpoints.retain(|c| opts.filter.matches(c));
    }
    let mut found = search(q, &checkpoints, search_opts);
    if let Some(caches) = caches {
        let entries: Vec<crate::semantic::Entry<'_>> = checkpoints
            .iter()
            .map(|c| crate::semantic::Entry {
                workspace: &c.workspace,
                key: crate::semantic::text_key(&crate::semantic::embedding_text(c)),
            })
            .collect();
        found = crate::semantic::rerank(
            found,
            &entries,
            caches,
            search_opts.explain,
            |i| checkpoints.get(i).map(crate::semantic::embedding_text),
            notes,
        );
    }
    let mut slots: Vec<Option<Checkpoint>> = checkpoints.into_iter().map(Some).collect();
    let mut ordered: Vec<RecallHit> = Vec::with_capacity(found.len());
    for hit in found {
        if let Some(checkpoint) = slots.get_mut(hit.index).and_then(Option::take) {
            ordered.push(RecallHit {
                checkpoint,
                score: Some(hit.score),
                explanation: hit.explain.map(|e| *e),
                links: Links::default(),
                freshness: None,
            });
        }
    }
    let total = ordered.len();
    let matched_in = |ws: &String| {
        ordered
            .iter()
            .filter(|h| &h.checkpoint.workspace == ws)
            .count()
    };
    let matched: Vec<usize> = workspaces.iter().map(matched_in).collect();
    ordered.truncate(opts.limit);
    let shown = ordered;
    let mut counts: Vec<WorkspaceCount> = Vec::new();
    for (ws, matched) in workspaces.iter().zip(matched) {
        if matched > 0 {
            let shown = shown
                .iter()
                .filter(|h| &h.checkpoint.workspace == ws)
                .count();
            counts.push(WorkspaceCount {
                workspace: ws.clone(),
                matched,
                shown,
            });
        }
    }
    Ok((shown, total, counts, skipped))
}

/// The window length when no start is given, in days.
const DEFAULT_DAYS: u32 = 2;

/// `days`, `since` and `from` each set the start of the window: two of them together are a
/// contradiction, not something to settle silently.
fn check_window_options(opts: &RecallOptions) -> Result<(), Error> {
    let given = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.trim().is_empty());
    let set: Vec<&str> = [
        ("days", opts.days.is_some()),
        ("since", given(&opts.since)),
        ("from", given(&opts.from)),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    if let [first, second, ..] = set[..] {
        return Err(Error::argument(
            second,
            format!(
                "`{first}` and `{second}` both set the start of the window; give only one of them"
            ),
        ));
    }
    Ok(())
}

/// Resolves a workspace: a name (validated), or the workspace of `cwd` when `None`; with
/// neither, an error (the process's directory is the binary's to pass, never read here).
pub(crate) fn resolve_scope(explicit: Option<&str>, cwd: Option<&Path>) -> Result<String, Error> {
    match (explicit, cwd) {
        (None, None) => Err(Error::argument(
            "cwd",
            "the current workspace needs a directory to detect it from: set `cwd` or name the \
             workspace",
        )),
        (explicit, cwd) => resolve_workspace(explicit.map(str::trim), cwd.unwrap_or(Path::new("")))
            .map_err(Error::from),
    }
}

/// Every checkpoint of `workspaces` within `window`, workspace by workspace (each oldest
/// first), and what could not be read; the workspaces are read in parallel.
pub(crate) fn read_all(
    store: &Store,
    workspaces: &[String],
    window: TimeWindow,
) -> Result<(Vec<Checkpoint>, Vec<SkippedFile>), Error> {
    crate::newest::all(store, workspaces, window)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_patterns() {
        let cases: [(&str, &str, bool); 14] = [
            ("src/auth/jwt.rs", "src/auth/", true),
            ("src/auth/jwt.rs", "src/auth", true),
            ("src/auth/jwt.rs", "src/auth/jwt.rs", true),
            ("src/auth/jwt.rs", "./src/auth/jwt.rs", true),
            ("src/auth/jwt.rs", "jwt.rs", true),
            ("src/auth/jwt.rs", "auth/jwt.rs", true),
            ("src/auth/jwt.rs", "auth/", true),
            ("src/auth/jwt.rs", "SRC/Auth", true),
            ("src\\auth\\jwt.rs", "src/auth", true),
            ("src/auth/jwt.rs", "wt.rs", false),
            ("src/authn/jwt.rs", "src/auth", false),
            ("src/auth/jwt.rs", "src/au", false),
            ("src/auth/jwt.rs", "/", false),
            ("src/auth/jwt.rs", "lib", false),
        ];
        for (path, pattern, want) in cases {
            assert_eq!(file_matches(path, pattern), want, "{path} ~ {pattern}");
        }
    }

    #[test]
    fn symbol_patterns() {
        assert!(symbol_matches("TokenStore::rotate", "rotate"));
        assert!(symbol_matches("TokenStore::rotate", "tokenstore::ROTATE"));
        assert!(symbol_matches("auth.detectReuse", "detectreuse"));
        assert!(!symbol_matches("TokenStore::rotate_all", "rotate"));
        assert!(!symbol_matches("rotate", "TokenStore::rotate"));
    }
}
