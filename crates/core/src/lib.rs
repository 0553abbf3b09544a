//! The foundation of the goldfish crates: lossless markdown sections, atomic and locked file
//! writes, UTC time with an injectable clock, stored text made inert for a terminal.
//!
//! It knows no file format of its own and depends on no other goldfish crate: the store, the
//! notes, the journal, the signals and the rest build their formats on its section model
//! ([`Document`]) and write every file through its [`fs`] module.
//!
//! - [`Document`]: split markdown into frontmatter, preamble and `#`..`######` sections by
//!   byte range, and edit it by splicing the original text. Joining the parts gives back the
//!   input byte for byte, whatever it is.
//! - [`fs`]: atomic replace (temp file, fsync, rename, fsync of the directory) and locked
//!   read–modify–write on a sidecar lock file; the only module that does I/O.
//! - [`time`]: RFC 3339 UTC timestamps with milliseconds and an injectable [`time::Clock`].
//! - [`inert`]: stored text made safe to print on a terminal, its control characters (but
//!   `\n` and `\t`) and bidi controls shown escaped (`\x1b`, `\u{202e}`); see [`terminal`].
//!
//! # Example
//!
//! ```
//! use goldfish_core::Document;
//! use goldfish_core::fs::{WriteOptions, read_utf8, write_atomic};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("notes.md");
//! write_atomic(&path, b"# Title\n\n## Todo\n- one\n", &WriteOptions::default())?;
//!
//! let mut doc = Document::parse(&read_utf8(&path)?);
//! let todo = doc.find("Todo").ok_or("no Todo section")?;
//! doc.replace_section_body(todo, "- one\n- two\n");
//! write_atomic(&path, doc.as_str().as_bytes(), &WriteOptions::default())?;
//! assert_eq!(read_utf8(&path)?, "# Title\n\n## Todo\n- one\n- two\n");
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
mod section;
pub mod terminal;
pub mod time;

/// The `chrono` this crate's API uses (`DateTime<Utc>`, `NaiveDate`), re-exported so that
/// callers need not depend on it or match its version.
pub use chrono;
pub use section::{Document, Section};
pub use terminal::inert;

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
