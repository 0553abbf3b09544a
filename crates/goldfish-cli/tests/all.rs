//! Integration tests: they drive the real `goldfish` binary in temporary homes.

mod util;

mod checkpoint;
mod concurrency;
mod errors;
mod faults;
mod journal;
mod mcp;
mod notes;
mod plan;
mod recall;
mod signals;
