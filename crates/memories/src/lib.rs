//! Readers for Goldfish 5–8 project memories: a project's `.memories/` directory (a markdown
//! file with YAML frontmatter per checkpoint, `briefs/` for plans) and the `registry.json`
//! that lists projects, mapped to goldfish checkpoints and plans. Nothing here ever writes to
//! them.
//!
//! Two users: `goldfish-import` writes what these readers map into a goldfish store, and
//! `goldfish-recall` shows the projects in place beside the store's own workspaces
//! ([`in_place_projects`], [`memories_batch`]). This crate compiles no C: the importer of
//! Tusk's SQLite journals lives in `goldfish-import`, which re-exports everything here.
//!
//! Each reader returns every record with every field its source holds, and a list of
//! problems: a file that cannot be read is reported with its path and line and skipped, and
//! the rest is read.
//!
//! # Example
//!
//! ```
//! use goldfish_memories::{read_memories, MemoryType};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let project = tempfile::tempdir()?;
//! let day = project.path().join(".memories/2026-05-04");
//! std::fs::create_dir_all(&day)?;
//! std::fs::write(
//!     day.join("114231_9dfe.md"),
//!     "---\nid: checkpoint_9dfe0001\ntimestamp: 2026-05-04T11:42:31.000Z\ntags:\n  - auth\n\
//!      type: decision\ndecision: Rotate refresh tokens on every use\nconfidence: 4\n---\n\n\
//!      Chose rotation over long-lived tokens.\n",
//! )?;
//!
//! let read = read_memories(project.path())?;
//! assert!(read.problems.is_empty());
//! let memory = &read.checkpoints[0];
//! assert_eq!(memory.memory_type, Some(MemoryType::Decision));
//! assert_eq!(memory.structured.confidence, Some(4));
//! assert_eq!(memory.description, "Chose rotation over long-lived tokens.");
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod batch;
mod error;
mod memories;
mod registry;
mod yaml;

pub use batch::{
    Batch, InPlaceProject, PlanItem, clean_tags, in_place_projects, memories_batch, one_line,
};
/// The `chrono` this crate's API uses (`DateTime<Utc>`, `NaiveDate`), re-exported so that
/// callers need not depend on it or match its version.
pub use chrono;
pub use error::{Error, ErrorKind};
pub use goldfish_store::{MemoryType, PlanStatus, Structured};
pub use memories::{
    Brief, GitInfo, MemoriesDir, MemoryRecord, ParseError, Unmapped, parse_brief_file,
    parse_memory_file, read_memories, read_text,
};
pub use registry::{RegisteredProject, Registry, parse_registry, read_registered, read_registry};

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
