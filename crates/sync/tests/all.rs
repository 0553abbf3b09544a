//! The crate's one integration-test binary.

mod errors;
mod forget;
mod in_repo;
pub(crate) mod merge;
mod private;
mod sync;
mod team;
mod util;
