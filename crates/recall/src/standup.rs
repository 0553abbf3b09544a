//! Standup: one view of recent work across every workspace.

use chrono::{DateTime, Utc};
use goldfish_store::{Checkpoint, MemoryType, Store};

use crate::error::Error;
use crate::inplace::InPlace;
use crate::newest;
use crate::result::SkippedFile;
use crate::supersession::supersession_of;
use crate::window::TimeWindow;

/// What [`standup_with`] reports on.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StandupOptions {
    /// The last this many days. Default 1.
    pub days: u32,
    /// How many of each workspace's most recent checkpoints to list. Default 5.
    pub recent: usize,
    /// The current time; `None` uses the store's clock ([`Store::now`]).
    pub now: Option<DateTime<Utc>>,
    /// The directory whose Goldfish project (`.memories/`) is read in place; `None` reads
    /// only the projects of the store's `registry.json` (never the process's directory: the
    /// binary passes it here).
    pub cwd: Option<std::path::PathBuf>,
    /// Also read Goldfish 5–8 projects in place (default true); see
    /// [`RecallOptions::goldfish_memories`](crate::RecallOptions::goldfish_memories).
    pub goldfish_memories: bool,
    /// Learn which checkpoints are superseded from the recall index (default true; see
    /// [`RecallOptions::use_index`](crate::RecallOptions::use_index)); `false` reads every
    /// day file for it.
    pub use_index: bool,
}

impl Default for StandupOptions {
    fn default() -> Self {
        StandupOptions {
            days: 1,
            recent: 5,
            now: None,
            cwd: None,
            goldfish_memories: true,
            use_index: true,
        }
    }
}

/// Progress of a plan: its checked and open `- [ ]` boxes, as [`Plan::progress`] counts them.
///
/// [`Plan::progress`]: goldfish_store::Plan::progress
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct PlanProgress {
    /// The plan's id.
    pub id: String,
    /// The plan's title.
    pub title: String,
    /// Checked boxes (`- [x]`).
    pub done: usize,
    /// Open boxes (`- [ ]`).
    pub open: usize,
}

/// One workspace's part of a standup.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct WorkspaceStandup {
    /// The workspace.
    pub workspace: String,
    /// Checkpoints in the window that are current work: a checkpoint that a later one
    /// supersedes is not counted here (nor listed below) but in
    /// [`superseded`](Self::superseded).
    pub checkpoints: usize,
    /// Checkpoints in the window that another supersedes (counted apart).
    pub superseded: usize,
    /// The most recent of them, newest first.
    pub recent: Vec<Checkpoint>,
    /// When the newest one was saved.
    pub last_activity: DateTime<Utc>,
    /// The active plan's progress, if the workspace has an active plan.
    pub plan: Option<PlanProgress>,
    /// The decisions of the window, newest first (at most `recent`): shown apart, since
    /// they are what a team most needs to hear about.
    pub decisions: Vec<Checkpoint>,
    /// The incidents of the window, newest first (at most `recent`).
    pub incidents: Vec<Checkpoint>,
}

/// A standup: every workspace with activity in the window, most recently active first.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Standup {
    /// The window reported on.
    pub window: TimeWindow,
    /// Workspaces with at least one checkpoint in the window.
    pub workspaces: Vec<WorkspaceStandup>,
    /// Workspaces without activity (omitted from [`workspaces`](Self::workspaces)).
    pub quiet: usize,
    /// Files that could not be read and were skipped.
    pub skipped: Vec<SkippedFile>,
}

/// A standup of the last `days` days by the system clock; see [`standup_with`].
pub fn standup(store: &Store, days: u32) -> Result<Standup, Error> {
    standup_with(
        store,
        &StandupOptions {
            days,
            ..StandupOptions::default()
        },
    )
}

/// A standup across every workspace of `store`: per workspace with activity in the window,
/// the checkpoint count, the most recent titles and the active plan's progress.
// Long: one workspace after another, each read, counted and summarised in order.
pub fn standup_with(store: &Store, opts: &StandupOptions) -> Result<Standup, Error> {
    let now = opts.now.unwrap_or_else(|| store.now());
    let window = TimeWindow {
        from: crate::window::days_before(now, opts.days)?,
        to: now,
    };
    let in_place = if opts.goldfish_memories {
        InPlace::read(store, opts.cwd.as_deref())
    } else {
        InPlace::default()
    };
    let mut names = store.list_workspaces()?;
    names.extend(in_place.workspaces().cloned());
    names.sort();
    names.dedup();
    let (mut checkpoints, mut skipped) = newest::all(store, &names, window)?;
    // A checkpoint a later one replaced is not current work: counted apart, never listed.
    let known = supersession_of(store, opts.use_index, &names, None, true, &mut Vec::new())?;
    let superseded = |c: &Checkpoint| {
        names
            .iter()
            .position(|n| *n == c.workspace)
            .is_some_and(|i| known.links[i].is_superseded(&c.id))
    };
    for ws in &names {
        in_place.add_checkpoints(ws, window, &mut checkpoints);
    }
    skipped.extend(in_place.skipped.iter().cloned());
    let mut workspaces = Vec::new();
    for name in &names {
        let mut mine: Vec<&Checkpoint> = checkpoints
            .iter()
            .filter(|c| &c.workspace == name)
            .collect();
        let Some(last) = mine.iter().map(|c| c.timestamp).max() else {
            continue;
        };
        let before = mine.len();
        mine.retain(|c| !superseded(c));
        let replaced = before - mine.len();
        mine.sort_by_key(|c| std::cmp::Reverse(c.timestamp));
        let plan = match store.active_plan(name) {
            Ok(plan) => plan.or_else(|| in_place.active_plan(name)).map(|p| {
                let progress = p.progress();
                PlanProgress {
                    id: p.id,
                    title: p.title,
                    done: progress.done,
                    open: progress.open,
                }
            }),
            Err(e) => {
                skipped.push(SkippedFile {
                    path: e
                        .path()
                        .map(std::path::Path::to_path_buf)
                        .unwrap_or_default(),
                    line: e.line(),
                    message: e.message().to_string(),
                });
                None
            }
        };
        let of_type = |t: MemoryType| -> Vec<Checkpoint> {
            mine.iter()
                .filter(|c| c.memory_type == t)
                .take(opts.recent)
                .map(|c| (*c).clone())
                .collect()
        };
        let decisions = of_type(MemoryType::Decision);
        let incidents = of_type(MemoryType::Incident);
        workspaces.push(WorkspaceStandup {
            decisions,
            incidents,
            workspace: name.clone(),
            checkpoints: mine.len(),
            superseded: replaced,
            recent: mine.into_iter().take(opts.recent).cloned().collect(),
            last_activity: last,
            plan,
        });
    }
    workspaces.sort_by(|a, b| {
        b.last_activity
            .cmp(&a.last_activity)
            .then(a.workspace.cmp(&b.workspace))
    });
    let quiet = names.len() - workspaces.len();
    Ok(Standup {
        window,
        workspaces,
        quiet,
        skipped,
    })
}
