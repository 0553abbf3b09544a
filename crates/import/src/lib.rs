//! Readers for the stores people already have — Goldfish 5–8 project `.memories/`
//! directories and their registry (from `goldfish-memories`, re-exported here), Tusk's SQLite
//! `journal.db`, a Goldfish v4 store — and the import of them into a goldfish store, plus JSON
//! Lines export ([`export_jsonl`]) and import.
//!
//! Importing is two steps: a source is mapped to a [`Batch`] ([`memories_batch`],
//! [`tusk_batch`], [`v4_batch`], [`jsonl_batch`]; nothing written), then [`apply`] writes it,
//! idempotently (ids derived from the origin), and checks by counts that the store holds it.
//!
//! Each reader returns every record with every field its source holds, and a list of
//! problems: a file or row that cannot be read is reported with its path and line (or table
//! and rowid) and skipped, and the rest is read. Nothing here ever writes to a source: the
//! Goldfish files are only read, and a Tusk database is read from a temporary copy (see
//! [`read_tusk`]).
//!
//! # Example
//!
//! ```
//! use goldfish_import::{read_memories, MemoryType};
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
//!
//! # Crate features
//!
//! None: everything is always available. SQLite is compiled in (`rusqlite`'s `bundled`),
//! so reading a Tusk journal needs no system library.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod import;
mod jsonl;
mod tusk;

/// The `chrono` this crate's API uses (`DateTime<Utc>`, `NaiveDate`), re-exported so that
/// callers need not depend on it or match its version.
pub use chrono;
pub use goldfish_memories::{
    Batch, Brief, Error, ErrorKind, GitInfo, InPlaceProject, MemoriesDir, MemoryRecord, ParseError,
    PlanItem, RegisteredProject, Registry, Unmapped, in_place_projects, memories_batch,
    parse_brief_file, parse_memory_file, parse_registry, read_memories, read_registered,
    read_registry, read_text,
};
pub use goldfish_store::{MemoryType, PlanStatus, Redaction, Structured};
pub use import::{
    ImportOptions, ImportReport, RedactedRecord, WorkspaceImport, apply, tusk_batch, v4_batch,
};
pub use jsonl::{
    CheckpointRecord, PlanRecord, Record, export_jsonl, export_schema, jsonl_batch, parse_jsonl,
};
pub use tusk::{
    ProgressNote, SubTask, TuskCheckpoint, TuskJournal, TuskPlan, TuskWorkspace,
    parse_progress_notes, read_tusk,
};

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
