//! The crate's one integration-test binary.

mod dir;
mod golden;
mod pipeline;
mod props;
mod runner;
mod schemas;
mod util;
