//! The crate's one integration-test binary.

mod errors;
mod in_repo;
mod merge;
mod sync;
mod util;
