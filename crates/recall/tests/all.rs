//! The one integration-test binary of goldfish-recall.

mod architecture;
mod baseline;
mod eval;
mod eval_sets;
mod format;
mod forms;
mod hybrid;
mod index;
mod locomo;
mod nl_eval;
mod props;
mod resemble_eval;
mod seed;
mod semantic;
mod store;
mod tidy;
mod tuning;
mod util;
