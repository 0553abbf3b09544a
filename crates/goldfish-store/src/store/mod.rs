//! The store on disk: a directory of workspaces, each with day files, plans and an active plan.
//!
//! One [`Store`] type ([`handle`]), its operations one concern per module: where workspaces
//! live ([`workspaces`]), checkpoints ([`checkpoints`]), forgetting ([`forget`]), plans
//! ([`plans`]), imports ([`imports`]), the supersession links read from the day files
//! ([`supersession`]) and those added after a save ([`links`]), the record of returns
//! ([`returns`]) and today's redaction over the files already stored ([`reredact`]).

mod checkpoints;
mod forget;
mod handle;
mod imports;
mod links;
mod plans;
mod reredact;
mod returns;
mod supersession;
mod workspaces;

pub use checkpoints::{CheckpointInput, CheckpointRange, DUPLICATE_WINDOW};
pub use forget::{ForgetReport, ForgottenMemory};
pub use handle::{HOME_ENV, Store};
pub use imports::Imported;
pub use links::EDITED_KEY;
pub use plans::{PlanInput, PlanList, PlanUpdate, validate_plan_id};
pub use reredact::{KindCount, RedactStored, RedactedFile, StoredFile, StoredFileKind};
pub use returns::note_returned;
pub use workspaces::{IN_REPO_DIR, find_repo_memory, recent_workspaces};
