//! The crate's one integration-test binary.

mod archive;
mod concurrency;
mod golden;
mod handover;
mod props;
mod protocol;
mod util;
