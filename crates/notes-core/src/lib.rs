//! `GOBLIN_NOTES.md`, the agent hand-off notes of a worktree, and the pipeline [`Stage`].
//!
//! - [`Notes`] and [`NotesManager`]: `{worktree}/.goblin/GOBLIN_NOTES.md`, parsed and
//!   formatted losslessly, with the original format's limits (5 completed steps, 10 files, 5
//!   decisions; older entries are folded into the context, never dropped). Every write is a
//!   locked read–modify–write with secrets redacted.
//! - [`Stage`]: SCOPE → BUILD → REVIEW → TEST → DONE, FAILED or CANCELLED: the notes'
//!   `Stage:` line and the signal pipeline's stage are this one type.
//!
//! Built on goldfish-core (sections, atomic files, time), which it re-exports.
//!
//! # Example
//!
//! ```
//! use notes_core::{NotesManager, Stage};
//! use notes_core::goldfish_core::Document;
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
mod manager;
mod notes;
mod stage;

/// The foundation crate this one is built on (sections, atomic files, time), re-exported so
/// that the types of this crate's signatures (`FsError`, `Clock`) need no second dependency.
pub use goldfish_core;

/// The `chrono` this crate's API uses (`DateTime<Utc>`, `NaiveDate`), re-exported so that
/// callers need not depend on it or match its version.
pub use chrono;
pub use error::{Error, ErrorKind};
/// The clock types the `with_clock` constructors take (an injectable clock; [`ManualClock`]
/// for tests and replays), re-exported from goldfish-core.
pub use goldfish_core::time::{Clock, ManualClock, SharedClock, SystemClock, system_clock};
/// The redaction library every write runs ([`Redactor`] for `with_redactor`), re-exported
/// so that callers need no direct dependency on it.
pub use goldfish_redact::{self, Redactor};
pub use manager::NotesManager;
pub use notes::{Decision, FileChange, Notes, ParseWarning, Step, StepStatus};
pub use stage::{ParseStageError, Stage};

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
