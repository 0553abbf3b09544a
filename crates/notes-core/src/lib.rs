//! Lossless markdown sections, atomic and locked file writes, UTC time helpers and the
//! `GOBLIN_NOTES.md` format for agent hand-off notes.
//!
//! This is the foundation of the goldfish workspace: the other crates build their file formats
//! on its section model and write every file through its [`fs`] module.
//!
//! # Example
//!
//! ```
//! use notes_core::fs::{update_locked, Update, WriteOptions, FsError};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let log = dir.path().join("log.md");
//! // Many threads or processes may do this at once; no line is lost.
//! update_locked::<_, FsError>(&log, &WriteOptions::private(), |current| {
//!     let mut text = current.unwrap_or("# Log\n").to_string();
//!     text.push_str("- saved\n");
//!     Ok(Update::Write(text, ()))
//! })?;
//! assert_eq!(std::fs::read_to_string(&log)?, "# Log\n- saved\n");
//! # Ok(())
//! # }
//! ```
//!
//! # Crate features
//!
//! None: everything is always available.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod fs;
mod stage;
pub mod time;

pub use stage::{ParseStageError, Stage};
