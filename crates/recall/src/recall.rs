//! Recall over a store: read the window's day files, search or sort, cap, attach the plan.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use goldfish_store::{Checkpoint, Plan, Store, resolve_workspace};

use crate::engine::{Query, SearchOptions, search};
use crate::error::Error;
use crate::window::TimeWindow;

/// What to recall; see [`recall`]. Every field has a sensible default.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RecallOptions {
    /// A workspace name, `"current"` (resolved from `$GOLDFISH_WORKSPACE` or [`cwd`]) or
    /// `"all"`. Default `"current"`.
    ///
    /// [`cwd`]: RecallOptions::cwd
    pub workspace: String,
    /// The last this many days (a rolling window ending now) when neither `since` nor
    /// `from` is given. Default 2.
    pub days: u32,
    /// Start of the window: `30m`, `6h`, `3d`, `1w`, a date or an RFC 3339 timestamp.
    pub since: Option<String>,
    /// Start of the window: a date (its UTC start) or a timestamp. Wins over `since`.
    pub from: Option<String>,
    /// End of the window: a date (the end of that UTC day) or a timestamp. Default now.
    pub to: Option<String>,
    /// Free text to search for; the results are then ranked by relevance instead of time.
    pub search: Option<String>,
    /// At most this many checkpoints in all. 0 returns only the active plan. Default 10.
    pub limit: usize,
    /// Whether the formatted output shows whole descriptions and file lists (the default
    /// is a summary: titles and tags).
    pub full: bool,
    /// The current time; `None` uses the store's clock ([`Store::now`]). Set it for
    /// reproducible results.
    pub now: Option<DateTime<Utc>>,
    /// The directory `"current"` is resolved from; `None` uses the process's.
    pub cwd: Option<PathBuf>,
}

impl Default for RecallOptions {
    fn default() -> Self {
        RecallOptions {
            workspace: "current".to_string(),
            days: 2,
            since: None,
            from: None,
            to: None,
            search: None,
            limit: 10,
            full: false,
            now: None,
            cwd: None,
        }
    }
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

/// What [`recall`] found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct RecallResult {
    /// The workspace recalled, or `"all"`.
    pub scope: String,
    /// The window that was read.
    pub window: TimeWindow,
    /// The search text, if any.
    pub search: Option<String>,
    /// The checkpoints: by relevance with a search, else newest first; at most `limit`.
    pub checkpoints: Vec<Checkpoint>,
    /// How many checkpoints matched before the limit.
    pub total: usize,
    /// Per workspace with at least one match: matched and shown counts, in name order.
    pub workspaces: Vec<WorkspaceCount>,
    /// The active plan of a single workspace (never a completed or archived one).
    pub active_plan: Option<Plan>,
    /// Files or entries that could not be read and were skipped.
    pub skipped: Vec<SkippedFile>,
    /// Whether the full view was asked for (see [`RecallOptions::full`]).
    pub full: bool,
}

/// Recalls checkpoints from `store` as `opts` asks.
///
/// Reads only the day files the window touches; with `workspace = "all"` the workspaces are
/// read in parallel. A corrupt file or entry is skipped and listed in
/// [`RecallResult::skipped`], never fatal. Errors: an option that cannot be parsed
/// ([`Error::is_invalid_argument`], naming it), or a store that cannot be listed.
pub fn recall(store: &Store, opts: &RecallOptions) -> Result<RecallResult, Error> {
    let now = opts.now.unwrap_or_else(|| store.now());
    let window = TimeWindow::resolve(
        now,
        opts.days,
        opts.since.as_deref(),
        opts.from.as_deref(),
        opts.to.as_deref(),
    )?;
    let all = opts.workspace.trim().eq_ignore_ascii_case("all");
    let workspaces = if all {
        store.list_workspaces()?
    } else {
        vec![resolve_scope(&opts.workspace, opts.cwd.as_deref())?]
    };
    let (mut checkpoints, mut skipped) = read_all(store, &workspaces, window)?;

    let query = opts
        .search
        .as_deref()
        .map(Query::parse)
        .filter(|q| !q.is_empty());
    let ordered: Vec<Checkpoint> = match &query {
        Some(q) => {
            let hits = search(q, &checkpoints, &SearchOptions::default());
            let mut slots: Vec<Option<Checkpoint>> = checkpoints.into_iter().map(Some).collect();
            hits.iter()
                .filter_map(|h| slots.get_mut(h.index).and_then(Option::take))
                .collect()
        }
        None => {
            // Newest first; equal timestamps keep a stable, workspace-then-file order.
            checkpoints.sort_by_key(|c| std::cmp::Reverse(c.timestamp));
            checkpoints
        }
    };

    let total = ordered.len();
    let shown: Vec<Checkpoint> = ordered.iter().take(opts.limit).cloned().collect();
    let mut counts: Vec<WorkspaceCount> = Vec::new();
    for ws in &workspaces {
        let matched = ordered.iter().filter(|c| &c.workspace == ws).count();
        if matched > 0 {
            let shown = shown.iter().filter(|c| &c.workspace == ws).count();
            counts.push(WorkspaceCount {
                workspace: ws.clone(),
                matched,
                shown,
            });
        }
    }

    let active_plan = if all {
        None
    } else {
        match store.active_plan(&workspaces[0]) {
            Ok(plan) => plan,
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

    Ok(RecallResult {
        scope: if all {
            "all".to_string()
        } else {
            workspaces[0].clone()
        },
        window,
        search: opts.search.clone().filter(|s| !s.trim().is_empty()),
        checkpoints: shown,
        total,
        workspaces: counts,
        active_plan,
        skipped,
        full: opts.full,
    })
}

/// Resolves a workspace option: a name (validated) or `current`.
pub(crate) fn resolve_scope(workspace: &str, cwd: Option<&Path>) -> Result<String, Error> {
    let name = workspace.trim();
    let explicit = (!name.is_empty() && !name.eq_ignore_ascii_case("current")).then_some(name);
    let cwd = match cwd {
        Some(c) => c.to_path_buf(),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    resolve_workspace(explicit, &cwd).map_err(Error::from)
}

/// Reads the window of every workspace, in parallel when there are several, and returns the
/// checkpoints in workspace order (each workspace oldest first) and the skipped files.
pub(crate) fn read_all(
    store: &Store,
    workspaces: &[String],
    window: TimeWindow,
) -> Result<(Vec<Checkpoint>, Vec<SkippedFile>), Error> {
    let read = |ws: &String| store.checkpoints_between(ws, window.from, window.to);
    let ranges = if workspaces.len() <= 1 {
        workspaces.iter().map(read).collect::<Vec<_>>()
    } else {
        let threads = std::thread::available_parallelism()
            .map_or(4, |n| n.get())
            .clamp(1, 8);
        let threads = threads.min(workspaces.len());
        let mut results: Vec<Option<Result<_, _>>> = Vec::new();
        results.resize_with(workspaces.len(), || None);
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let read = &read;
                    scope.spawn(move || {
                        let mine: Vec<(usize, _)> = workspaces
                            .iter()
                            .enumerate()
                            .skip(t)
                            .step_by(threads)
                            .map(|(i, ws)| (i, read(ws)))
                            .collect();
                        mine
                    })
                })
                .collect();
            for h in handles {
                // A panicking reader thread is a bug in the store; surface it as a panic here.
                for (i, r) in h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)) {
                    results[i] = Some(r);
                }
            }
        });
        results.into_iter().flatten().collect()
    };
    let mut checkpoints = Vec::new();
    let mut skipped = Vec::new();
    for range in ranges {
        let range = range?;
        checkpoints.extend(range.checkpoints);
        skipped.extend(range.skipped.into_iter().map(SkippedFile::from));
    }
    Ok((checkpoints, skipped))
}
