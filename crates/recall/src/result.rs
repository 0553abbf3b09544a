//! What a recall answers: [`RecallResult`] and its parts ([`RecallHit`], [`Links`],
//! [`WorkspaceCount`], [`SkippedFile`], [`StoreState`]), and what [`checkpoints_per_day`](crate::checkpoints_per_day)
//! counts ([`DayCounts`]). A leaf: the types only, with the little they do on themselves.
//!
//! [`checkpoints_per_day`]: crate::checkpoints_per_day

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use goldfish_store::{Checkpoint, Freshness, FreshnessFilter, Link, Plan, Supersession};

use crate::explain::Explanation;
use crate::options::Scope;
use crate::window::TimeWindow;

/// The supersession links of one checkpoint: both ways, each with the other end's id and
/// title.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Links {
    /// The earlier checkpoints this one replaces, in its `Supersedes` bullet's order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<Link>,
    /// The later checkpoints that replace this one, oldest first (shown only when it is
    /// recalled anyway: [`RecallOptions::include_superseded`](crate::RecallOptions::include_superseded), or by id).
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

/// What [`recall`](fn@crate::recall) found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct RecallResult {
    /// What was recalled: [`Scope::Named`] with the one workspace's name, or [`Scope::All`]
    /// (never [`Scope::Current`]: the current workspace is resolved to its name).
    pub scope: Scope,
    /// The window that was read.
    pub window: TimeWindow,
    /// The time the recall was made at ([`RecallOptions::now`](crate::RecallOptions::now), else the store's clock): what
    /// each checkpoint's age is counted from.
    pub now: DateTime<Utc>,
    /// The search text, if any.
    pub search: Option<String>,
    /// The other phrasings searched with it ([`RecallOptions::also_search`](crate::RecallOptions::also_search)), whose
    /// rankings were fused with its own; empty for one phrasing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_searched: Vec<String>,
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
    /// The limit asked for ([`RecallOptions::limit`](crate::RecallOptions::limit)); 0 asked for the active plan only.
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

/// What a recall shows: the hits, the total before the limit, per-workspace counts and the
/// skipped files.
pub(crate) type Shown = (Vec<RecallHit>, usize, Vec<WorkspaceCount>, Vec<SkippedFile>);

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
    /// With [`RecallOptions::explain`](crate::RecallOptions::explain) and a search: why it matched and how its score was
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

/// What [`checkpoints_per_day`](crate::checkpoints_per_day) counted.
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
