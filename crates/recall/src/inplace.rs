//! Goldfish 5–8 projects read in place: their `.memories/` checkpoints and briefs shown as a
//! workspace's checkpoints and plans, merged with the store's own. Never written to.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use goldfish_memories::{PlanItem, in_place_projects, memories_batch};
use goldfish_store::{Checkpoint, Plan, PlanStatus, Store};

use crate::result::SkippedFile;
use crate::window::TimeWindow;

/// What the in-place projects hold, by workspace.
#[derive(Debug, Default)]
pub(crate) struct InPlace {
    /// Each workspace's checkpoints (all of them; filter by window with [`InPlace::take`]).
    pub(crate) checkpoints: BTreeMap<String, Vec<Checkpoint>>,
    /// Each workspace's plans, with whether the source marked them active.
    pub(crate) plans: BTreeMap<String, Vec<PlanItem>>,
    /// Files that could not be read.
    pub(crate) skipped: Vec<SkippedFile>,
}

impl InPlace {
    /// Reads the projects of `{store root}/registry.json` and the one around `cwd`, if given.
    pub(crate) fn read(store: &Store, cwd: Option<&Path>) -> InPlace {
        let mut out = InPlace::default();
        let (projects, problems) = in_place_projects(&store.root().join("registry.json"), cwd);
        out.skipped.extend(problems.iter().map(skipped));
        for project in projects {
            match memories_batch(&project.path) {
                Ok(batch) => {
                    out.skipped.extend(batch.problems.iter().map(skipped));
                    out.checkpoints
                        .entry(project.workspace.clone())
                        .or_default()
                        .extend(batch.checkpoints);
                    out.plans
                        .entry(project.workspace)
                        .or_default()
                        .extend(batch.plans);
                }
                Err(e) => out.skipped.push(skipped(&e)),
            }
        }
        out
    }

    /// True when `workspace` has checkpoints read in place.
    pub(crate) fn has_checkpoints(&self, workspace: &str) -> bool {
        self.checkpoints
            .get(workspace)
            .is_some_and(|c| !c.is_empty())
    }

    /// The workspaces that have anything.
    pub(crate) fn workspaces(&self) -> impl Iterator<Item = &String> {
        self.checkpoints.keys().chain(self.plans.keys())
    }

    /// Adds this workspace's in-place checkpoints within `window` to `into`, leaving out ids
    /// already there (a project both imported and read in place counts once).
    pub(crate) fn add_checkpoints(
        &self,
        workspace: &str,
        window: TimeWindow,
        into: &mut Vec<Checkpoint>,
    ) {
        let Some(list) = self.checkpoints.get(workspace) else {
            return;
        };
        let have: HashSet<(String, String)> = into
            .iter()
            .map(|c| (c.workspace.clone(), c.id.clone()))
            .collect();
        into.extend(
            list.iter()
                .filter(|c| c.timestamp >= window.from && c.timestamp <= window.to)
                .filter(|c| !have.contains(&(c.workspace.clone(), c.id.clone())))
                .cloned(),
        );
    }

    /// The active brief of a workspace as a plan (only one whose status is active).
    pub(crate) fn active_plan(&self, workspace: &str) -> Option<Plan> {
        self.plans
            .get(workspace)?
            .iter()
            .find(|p| p.active && p.plan.status == PlanStatus::Active)
            .map(|p| p.plan.clone())
    }
}

fn skipped(e: &goldfish_memories::Error) -> SkippedFile {
    let mut message = e.message().to_string();
    if let Some((table, rowid)) = e.row() {
        message = format!("table {table}, rowid {rowid}: {message}");
    }
    SkippedFile {
        path: e.path().to_path_buf(),
        line: e.line(),
        message,
    }
}
