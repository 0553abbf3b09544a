//! The store on disk: a directory of workspaces, each with day files, plans and an active plan.
//!
//! One [`Store`] type ([`handle`]), its operations one concern per module: where workspaces
//! live ([`workspaces`]), checkpoints ([`checkpoints`]), plans ([`plans`]), imports
//! ([`imports`]) and the supersession links read from the day files ([`supersession`]).

mod checkpoints;
mod handle;
mod imports;
mod plans;
mod supersession;
mod workspaces;

pub use checkpoints::{CheckpointInput, CheckpointRange, DUPLICATE_WINDOW};
pub use handle::{HOME_ENV, Store};
pub use imports::Imported;
pub use plans::{PlanInput, PlanList, PlanUpdate, validate_plan_id};
pub use workspaces::{IN_REPO_DIR, find_repo_memory, recent_workspaces};
