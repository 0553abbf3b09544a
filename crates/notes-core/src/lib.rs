//! Lossless markdown sections, atomic and locked file writes, UTC time helpers and the
//! `GOBLIN_NOTES.md` format for agent hand-off notes.
//!
//! This is the foundation of the goldfish workspace: the other crates build their file formats
//! on its section model ([`Document`]) and write every file through its [`fs`] module.
//!
//! - [`Document`]: split markdown into frontmatter, preamble and `#`..`######` sections by
//!   byte range, and edit it by splicing the original text. Joining the parts gives back the
//!   input byte for byte, whatever it is.
//! - [`fs`]: atomic replace (temp file, fsync, rename, fsync of the directory) and locked
//!   read–modify–write on a sidecar lock file; the only module that does I/O.
//! - [`time`]: RFC 3339 UTC timestamps with milliseconds and an injectable [`time::Clock`].
//! - [`Notes`] and [`NotesManager`]: `{worktree}/.goblin/GOBLIN_NOTES.md`, parsed and
//!   formatted losslessly, with the original format's limits (5 completed steps, 10 files, 5 decisions;
//!   older entries are folded into the context, never dropped).
//!
//! # Example
//!
//! ```
//! use notes_core::{Document, NotesManager, Stage};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let worktree = tempfile::tempdir()?;
//! NotesManager::init(worktree.path(), "ENG-123", Stage::Build, "Implement JWT auth")?;
//! // Any number of agents may do this at once; every update lands.
//! NotesManager::update(worktree.path(), |notes| {
//!     notes.add_completed_step("Created auth module");
//!     notes.add_decision("JWT over sessions", "Stateless authentication");
//!     notes.add_file_changed("src/auth/jwt.py", "JWT token handling");
//! })?;
//!
//! let text = std::fs::read_to_string(NotesManager::path(worktree.path()))?;
//! let doc = Document::parse(&text);
//! let decisions = doc.find("Key Decisions").ok_or("no Key Decisions section")?;
//! assert_eq!(
//!     doc.section_body(decisions),
//!     "- JWT over sessions: Stateless authentication\n"
//! );
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

mod error;
pub mod fs;
mod manager;
mod notes;
mod section;
mod stage;
pub mod time;

pub use error::{Error, ErrorKind};
pub use manager::NotesManager;
pub use notes::{Decision, FileChange, Notes, ParseWarning, Step, StepStatus};
pub use section::{Document, Section};
pub use stage::{ParseStageError, Stage};
