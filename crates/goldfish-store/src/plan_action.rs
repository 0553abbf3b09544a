//! One entry point for every plan operation, so that the CLI's `plan` subcommands and the MCP
//! server's `plan` tool do exactly the same thing: each only turns its arguments into a
//! [`PlanAction`] and renders the [`PlanOutcome`].

use crate::error::Error;
use crate::plan::Plan;
use crate::redaction::Redaction;
use crate::skipped::Skipped;
use crate::store::{PlanInput, PlanList, PlanUpdate, Store};

/// A plan operation; run it with [`Store::plan_action`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PlanAction {
    /// Save a new plan, or replace one (see [`Store::save_plan`]). The input's workspace is
    /// replaced by the workspace given to [`Store::plan_action`].
    Save(PlanInput),
    /// Show the plan with this id, or the active plan when `None`.
    Get(Option<String>),
    /// List the workspace's plans.
    List,
    /// Make a plan the active one.
    Activate(String),
    /// Change a plan; an update that changes nothing is refused.
    Update(String, PlanUpdate),
    /// Mark a plan completed.
    Complete(String),
    /// Mark a plan archived.
    Archive(String),
}

impl PlanAction {
    /// True for the actions that write (all but [`PlanAction::Get`] and [`PlanAction::List`]):
    /// they need a workspace that was not guessed (see
    /// [`WorkspaceChoice::for_writing`](crate::WorkspaceChoice::for_writing)).
    pub fn writes(&self) -> bool {
        !matches!(self, PlanAction::Get(_) | PlanAction::List)
    }
}

/// What [`Store::plan_action`] did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PlanOutcome {
    /// The plan acted on (as it is now) and whether it is the workspace's active plan.
    Plan {
        /// The plan.
        plan: Plan,
        /// True when it is the workspace's active plan.
        active: bool,
        /// The secrets a save or update replaced in it (empty for the other actions).
        redacted: Vec<Redaction>,
    },
    /// The workspace's plans.
    List {
        /// The workspace.
        workspace: String,
        /// The plans that could be read, and the files that could not.
        list: PlanList,
        /// The id of the active plan, when there is one that can be read.
        active: Option<String>,
    },
}

impl Store {
    /// Runs one plan operation in `workspace` (validated; `../x` is refused).
    ///
    /// # Errors
    ///
    /// Those of the [`Store`] method the action maps to, and: [`Get(None)`](PlanAction::Get)
    /// in a workspace without an active plan, or an [`Update`](PlanAction::Update) that changes
    /// nothing ([`Error::is_invalid_input`] for both, saying what to give instead). An active
    /// plan whose file cannot be read does not stop [`List`](PlanAction::List): it is reported
    /// in the list's `skipped`.
    pub fn plan_action(&self, workspace: &str, action: PlanAction) -> Result<PlanOutcome, Error> {
        let workspace = crate::workspace::validate_workspace(workspace)?;
        let mut redacted = Vec::new();
        let plan = match action {
            PlanAction::Save(mut input) => {
                input.workspace = Some(workspace.clone());
                let saved = self.save_plan_reported(input)?;
                redacted = saved.redacted;
                saved.value
            }
            PlanAction::Get(Some(id)) if !id.trim().is_empty() => self.get_plan(&workspace, &id)?,
            PlanAction::Get(_) => self.active_plan(&workspace)?.ok_or_else(|| {
                Error::invalid(format!(
                    "workspace `{workspace}` has no active plan; give a plan id (list the plans to see them) or save a plan"
                ))
            })?,
            PlanAction::List => {
                let mut list = self.list_plans(&workspace)?;
                let active = match self.active_plan(&workspace) {
                    Ok(plan) => plan.map(|p| p.id),
                    Err(e) => {
                        let path = e.path().map(std::path::Path::to_path_buf).unwrap_or_default();
                        // The plan file itself is usually listed already as unreadable.
                        if !list.skipped.iter().any(|s| s.path == path) {
                            list.skipped.push(Skipped {
                                path,
                                line: e.line(),
                                message: e.message().to_string(),
                            });
                        }
                        None
                    }
                };
                return Ok(PlanOutcome::List {
                    workspace,
                    list,
                    active,
                });
            }
            PlanAction::Activate(id) => self.activate_plan(&workspace, &id)?,
            PlanAction::Update(id, update) => {
                if update == PlanUpdate::default() {
                    return Err(Error::invalid(
                        "nothing to update: give a new title, content, status or tags",
                    ));
                }
                let saved = self.update_plan_reported(&workspace, &id, update)?;
                redacted = saved.redacted;
                saved.value
            }
            PlanAction::Complete(id) => self.complete_plan(&workspace, &id)?,
            PlanAction::Archive(id) => self.archive_plan(&workspace, &id)?,
        };
        let active = self
            .active_plan(&workspace)
            .ok()
            .flatten()
            .is_some_and(|p| p.id == plan.id);
        Ok(PlanOutcome::Plan {
            plan,
            active,
            redacted,
        })
    }
}
