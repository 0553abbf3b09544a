//! The CLI's side of each operation: turn clap arguments into the library's options, call the
//! one library function for it, and render a [`Report`](crate::output::Report).

mod agent;
mod hook;
mod index;
mod journal;
mod memory;
pub(crate) mod model;
mod notes;
mod plan;
mod redact;
mod serve;
mod signal;
mod sync;
mod tidy;
mod transfer;

pub(crate) use agent::{doctor, setup};
pub(crate) use hook::{hook, stats};
pub(crate) use index::run as index;
pub(crate) use journal::run as journal;
pub(crate) use memory::{checkpoint, forget, recall, show, standup};
pub(crate) use model::{model_dir, run as model};
pub(crate) use notes::run as notes;
pub(crate) use plan::run as plan;
pub(crate) use redact::run as redact;
pub(crate) use serve::run as serve;
pub(crate) use signal::{pipeline, signal};
pub(crate) use sync::{init, merge_driver, sync};
pub(crate) use tidy::run as tidy;
pub(crate) use transfer::{export, import};
