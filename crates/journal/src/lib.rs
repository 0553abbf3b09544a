//! `JOURNAL.md` for coding agents: one append-only journal per worktree, with failure streaks,
//! the mutation protocol, a hand-over view and an archive.
//!
//! A journal is a plain markdown file in the worktree root, shared by every agent that works
//! there. Agents [boot](Journal::boot) a session, [log](Journal::log) decisions and findings,
//! record [failed](Journal::fail) and [working](Journal::succeed) attempts, and after three
//! failures of one approach must [declare a mutation](Journal::mutate) before trying it again.
//! A receiving agent reads the [hand-over](Journal::handover) first; on completion the journal
//! is [archived](Journal::archive). Everything — the failure streaks, whether a mutation is
//! required — is [derived from the file](Status), never stored beside it.
//!
//! # Example
//!
//! ```
//! use goldfish_journal::{Journal, LogKind, MutationCode};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let worktree = tempfile::tempdir()?;
//! let journal = Journal::open(worktree.path())?.with_task("auth/machine-token-flow");
//! journal.boot("replace JWT with machine token", "full token swap", "direct swap")?;
//! journal.log(LogKind::Decision, "session token, not JWT, for SSR compatibility")?;
//! for what in ["SDK rejects dual tokens", "scope lost", "still rejected"] {
//!     journal.fail("full token swap", what)?;
//! }
//! // The fourth attempt is refused until a mutation is declared.
//! let refused = journal.fail("full token swap", "once more").unwrap_err();
//! assert!(refused.is_mutation_required());
//!
//! journal.mutate(
//!     MutationCode::ReduceScope,
//!     "full token swap",
//!     "middleware hook only",
//!     "scope too broad to verify in isolation",
//! )?;
//! journal.succeed("middleware hook only", "3/7 routes work")?;
//!
//! let status = journal.status()?;
//! assert!(status.streaks.is_empty());
//! assert_eq!(status.mutations[0].outcome.as_deref(), Some("3/7 routes work"));
//! let handover = journal.handover()?.to_string();
//! assert!(handover.contains("## MUTATION: M5 (Reduce Scope)"));
//! # Ok(())
//! # }
//! ```
//!
//! # The format
//!
//! ```text
//! # JOURNAL — auth/machine-token-flow
//! ## 2026-03-17 14:30 — attempted direct token swap
//! Intent: replace JWT with machine token in all API routes
//! Approach: update middleware to accept both formats
//!
//! ❌ Failed: Convex client rejects dual-format tokens at SDK level
//! ❌ Failed [token adapter]: adapter loses the session scope
//! → Cannot swap at middleware layer, must use session token wrapper
//!
//! ## MUTATION: M5 (Reduce Scope)
//! Failed 3x on: update middleware to accept both formats
//! Switching to: middleware hook only, scoped to /api
//! Rationale: scope too broad to verify in isolation
//!
//! ✅ Working on 3/7 routes, blocked on /api/graphql
//!   (the second line of a two-line entry is indented)
//! Current state: lib/auth/machine-adapter.ts created, needs /api/graphql fix
//! ```
//!
//! - Session headers are `## YYYY-MM-DD HH:MM — title` in UTC, followed directly by
//!   `Intent:` and `Approach:` lines.
//! - Entries: `Decision:`, `Found:` (or `Finding:`), `❌ Failed:`, `✅`, `→`,
//!   `Current state:`, `Note:`; one line, plus at most one indented continuation line.
//! - **Which approach a failure or success belongs to**: `❌ Failed [approach]: what` and
//!   `✅ Worked [approach]: what` name it; the original plain forms `❌ Failed: what` and
//!   `✅ what` belong to the *approach in force*: the last `Approach:` line or, after a
//!   mutation, its `Switching to:` line. The writer uses the plain form whenever the approach
//!   is the one in force, so journals read like the original format's. Approaches are compared ignoring
//!   case and repeated spaces.
//! - A **streak** is the failures of one approach since its last success or mutation;
//!   failures of other approaches in between neither add to it nor break it. At
//!   [`MUTATION_THRESHOLD`] (3) failures a mutation is required: [`Journal::fail`],
//!   [`Journal::succeed`] and [`Journal::boot`] refuse that approach until [`Journal::mutate`]
//!   names it in `Failed 3x on:`. A hand-written declaration whose `Failed … on:` contains
//!   the approach's words also ends its streak, and one without that line ends every streak
//!   that required it.
//! - Anything else — other headings, bullets, prose — is kept as free text, byte for byte
//!   ([`Document`] is lossless).
//!
//! # Guarantees
//!
//! - **Concurrency**: every write is a read–modify–atomic-replace of `JOURNAL.md` under an
//!   exclusive lock on the sidecar `.JOURNAL.md.lock` (add it to `.gitignore`). Any number
//!   of agents (threads or processes) may write at once: no entry is lost or interleaved, and
//!   the protocol check and the append happen under one lock, so two agents cannot both slip
//!   a fourth attempt past it.
//! - **Atomicity and durability**: the journal is replaced by write-temp, fsync, rename,
//!   fsync-directory; readers take no lock and see the old or the new file, never a mix.
//!   `JOURNAL.md` follows the umask; archive files are private (0600, directories 0700).
//! - **Hand-over cost**: [`Journal::handover`] reads the file exactly once, streaming: the
//!   status is derived line by line and the tail kept in a 50-line ring.
//! - Bad input never panics: an entry of three lines, a line break in a one-line field or
//!   brackets in an approach name are refused with an [`Error`] saying what to do.
//!
//! # Crate features
//!
//! None: everything is always available.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod archive;
mod error;
mod format;
mod handover;
mod journal;
mod mutation;
mod status;

pub use archive::{ARCHIVE_DIR, ArchiveReport, archive_root_in, default_archive_root_from_env};
/// The `chrono` this crate's API uses (`DateTime<Utc>`, `NaiveDate`), re-exported so that
/// callers need not depend on it or match its version.
pub use chrono;
pub use error::{Error, ErrorKind, Result};
pub use format::{Document, Entry, EntryKind, Item, ItemKind, LogKind, Mutation, Session};
/// The clock types the `with_clock` constructors take (an injectable clock; [`ManualClock`]
/// for tests and replays), re-exported from goldfish-core.
pub use goldfish_core::time::{Clock, ManualClock, SharedClock, SystemClock, system_clock};
/// The redaction library every write runs ([`Redactor`] for `with_redactor`), re-exported
/// so that callers need no direct dependency on it.
pub use goldfish_redact::{self, Redactor};
pub use handover::{HANDOVER_LINES, Handover, HandoverOptions};
pub use journal::{Approach, JOURNAL_FILE, Journal};
pub use mutation::MutationCode;
pub use status::{MUTATION_THRESHOLD, MutationRecord, Status, Streak};

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
