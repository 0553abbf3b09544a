//! Sync a goldfish store across machines through git, with a merge driver that merges
//! checkpoints, plans and logs by meaning and never loses an entry.
//!
//! git is the distributed engine: [`sync`] drives the `git` executable (commit, fetch, merge,
//! push) and never reimplements it. What makes it safe is the merge driver
//! ([`run_merge_driver`], registered as `merge=goldfish` for store files): day files merge
//! as the union of their entries by id, plans per frontmatter key and by three-way body merge,
//! `.active-plan` to the newer choice, `JOURNAL.md` and `GOBLIN_NOTES.md` as the union of what
//! both sides appended. A file it cannot parse falls back to git's conflict markers, and sync
//! then merges nothing, names the file, and leaves the store as it was.
//!
//! # Example
//!
//! The merge itself is a pure function over the three versions of a file:
//!
//! ```
//! use goldfish_sync::{MergeOutcome, merge_file};
//!
//! # fn main() -> Result<(), goldfish_sync::Unmergeable> {
//! let base = "# Checkpoints for 2025-10-13\n";
//! let ours = "# Checkpoints for 2025-10-13\n\n## 09:30 - Ours\n<!-- id: a at: 2025-10-13T09:30:00.000Z -->\n";
//! let theirs = "# Checkpoints for 2025-10-13\n\n## 08:00 - Theirs\n<!-- id: b at: 2025-10-13T08:00:00.000Z -->\n";
//! let merged = merge_file(
//!     "work/checkpoints/2025-10-13.md",
//!     base.as_bytes(),
//!     ours.as_bytes(),
//!     theirs.as_bytes(),
//!     &|_| None,
//! )?;
//! let text = String::from_utf8(merged.text).expect("day files are UTF-8");
//! assert!(text.find("Theirs") < text.find("Ours")); // both kept, in time order
//! assert_eq!(merged.outcome, MergeOutcome::Clean);
//! # Ok(())
//! # }
//! ```
//!
//! Syncing a store (`goldfish sync init --remote URL`, then `goldfish sync`):
//!
//! ```no_run
//! use std::path::Path;
//!
//! # fn main() -> Result<(), goldfish_sync::Error> {
//! let home = Path::new("/home/me/.goldfish");
//! let goldfish = Path::new("/usr/local/bin/goldfish"); // runs `goldfish merge-driver …`
//! goldfish_sync::init(home, Some("git@example.com:me/memory.git"), goldfish)?;
//! let report = goldfish_sync::sync(home, &goldfish_sync::SyncOptions::default())?;
//! for plan in &report.plan_conflicts {
//!     eprintln!("{}: both versions kept, pick one", plan.display());
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # What is synced, and what never is
//!
//! Day files, plans, `.active-plan` and any other file of the store are committed. Lock files
//! (`.*.lock`), temporary files of atomic writes (`.*.tmp`) and caches (`.index/`, `.cache/`)
//! are ignored: they are per machine and rebuilt.
//!
//! # Guarantees
//!
//! - **No entry lost**: a day-file entry added on any side survives every merge; an entry
//!   edited differently on both sides is kept once, and the other version is preserved as an
//!   entry of its own tagged `merge-conflict` ([`merge_day_file`]).
//! - **Always readable**: every merged day file and plan is read back with the store's parser
//!   before it is written; what cannot be merged by meaning is a conflict, and [`sync`]
//!   merges nothing rather than leave markers in the store.
//! - **Concurrent saves are safe**: sync holds the store's lock of every file a merge writes
//!   (see [`sync`]).
//! - **Failures change nothing**: every error of [`sync`] leaves the store's files as they were.
//!
//! # Crate features
//!
//! None: everything is always available. The `git` executable must be on `PATH` at run time.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod driver;
mod error;
mod git;
mod merge;
mod repo;
mod sync;

pub use driver::{MERGE_THEIRS_ENV, run_merge_driver};
pub use error::{Error, ErrorKind, Result};
pub use merge::{
    FileKind, MERGE_CONFLICT_KEY, MERGE_CONFLICT_TAG, MergeOutcome, Merged, PLAN_CONFLICT_BEGIN,
    PLAN_CONFLICT_END, PLAN_CONFLICT_THEIRS, Unmergeable, classify, has_merge_conflict,
    has_merge_conflict_text, merge_active_plan, merge_append_only, merge_day_file, merge_file,
    merge_plan,
};
pub use repo::repository_with_memory;
pub use sync::{
    DRIVER_NAME, IN_REPO_DIR, InitReport, SyncOptions, SyncReport, SyncStatus, driver_command,
    driver_configured, fix_driver_config, init, init_in_repo, status, sync,
};

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
