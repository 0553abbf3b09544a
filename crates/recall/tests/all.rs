//! The one integration-test binary of goldfish-recall.

mod eval;
mod format;
mod index;
mod nl_eval;
mod props;
mod seed;
mod store;
mod util;
