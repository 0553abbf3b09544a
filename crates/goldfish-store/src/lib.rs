//! Durable, human-readable agent memory: workspaces, daily markdown checkpoints, plans with
//! YAML frontmatter and git context, safe under concurrent writers.
//!
//! (Being filled in by the goldfish-store issue.)
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod checkpoint;

pub use checkpoint::Checkpoint;
