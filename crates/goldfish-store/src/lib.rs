//! Durable, human-readable agent memory: workspaces, daily markdown checkpoints, plans with
//! YAML frontmatter and git context, safe under any number of concurrent writers.
//!
//! # Example
//!
//! ```
//! use goldfish_store::{CheckpointInput, PlanInput, Store};
//!
//! # fn main() -> Result<(), goldfish_store::Error> {
//! # let dir = tempfile::tempdir().expect("temp dir");
//! let store = Store::open(dir.path())?;
//!
//! let mut input = CheckpointInput::new("Fixed the auth timeout\nRefresh tokens now last 60 min.");
//! input.tags = vec!["bug-fix".into(), "auth".into()];
//! input.workspace = Some("goldfish".into());
//! let saved = store.save_checkpoint(input)?;
//!
//! let today = store.checkpoints_for_day("goldfish", saved.timestamp.date_naive())?;
//! assert_eq!(today, vec![saved]);
//!
//! let mut plan = PlanInput::new("Auth redesign", "- [ ] OAuth2\n");
//! plan.workspace = Some("goldfish".into());
//! plan.activate = true;
//! store.save_plan(plan)?;
//! assert_eq!(store.active_plan("goldfish")?.map(|p| p.id).as_deref(), Some("auth-redesign"));
//! assert_eq!(store.list_workspaces()?, ["goldfish"]);
//! # Ok(())
//! # }
//! ```
//!
//! # Store layout
//!
//! ```text
//! $GOLDFISH_HOME (default ~/.goldfish)
//!   {workspace}/checkpoints/YYYY-MM-DD.md    one file per UTC day, entries in time order
//!   {workspace}/plans/{id}.md                YAML frontmatter + markdown body
//!   {workspace}/.active-plan                 the active plan's id, nothing else
//! ```
//!
//! Workspace names are `[a-z0-9-]+` ([`normalize_workspace`]); a git worktree resolves to its
//! main repository's name ([`detect_workspace`]), without spawning a process.
//!
//! A workspace can also be kept in a project's repository, under `{repo}/.goldfish/`
//! ([`IN_REPO_DIR`]), laid out the same way: [`Store::with_repo_memory`] finds it from any
//! directory of the work tree, and [`Store::with_workspace_root`] says where it is. Its writes
//! go there; its reads take in the home store's copy too.
//!
//! # Day file format
//!
//! A day file keeps the shape people read, and adds one HTML comment per entry (invisible
//! when rendered) that carries what the header cannot: the id and the full timestamp.
//!
//! ```text
//! # Checkpoints for 2025-10-13
//!
//! ## 09:30 - Fixed authentication timeout bug
//! <!-- id: 20251013T093012345Z-3fa9c1 at: 2025-10-13T09:30:12.345Z -->
//! Implemented JWT refresh tokens.
//! \## This line starts with "##" in the description
//!
//! - **Tags**: bug-fix, auth
//! - **Branch**: feature/jwt-refresh
//! - **Commit**: a1b2c3d
//! - **Files**: src/auth/jwt.ts, src/auth/refresh.ts
//! - **More files**: 12
//! - **Type**: decision
//! - **Decision**: Rotate refresh tokens on every use
//! - **Alternatives**: Sliding expiry; Short-lived tokens\; no refresh
//! - **Confidence**: 4
//! - **Topic**: auth-token-rotation
//! - **Supersedes**: 20251012T080000000Z-aaaaaa
//! - **Harness**: claude-code 2.1.197
//! - **User**: dev
//! - **Git user**: Dev Eloper
//! - **Git email**: dev@example.com
//! ```
//!
//! - The header holds `HH:MM` (UTC) and the description's first line; the following lines
//!   are the rest of the description, verbatim, except that a line starting with `#`, `\`
//!   or `- **`, and blank lines at the very end of the description, get a leading `\` (a
//!   markdown escape, so the rendered text still reads right). So no description line can be
//!   mistaken for a header or a bullet, and multi-line descriptions round-trip exactly.
//! - `<!-- id: … at: … -->`: the id (characters outside `[A-Za-z0-9-_.:+@#/~=]` as `%XX`)
//!   and the UTC timestamp to the millisecond. When present, `at` is the entry's time.
//! - Bullets after a blank line: `Tags` and `Files` are `", "`-separated lists in which `\,`,
//!   `\\`, `\n` and `\r` stand for a comma, a backslash and line breaks; `Branch` and
//!   `Commit` use the same escapes; `More files` counts files beyond the 30 listed.
//! - Typed memories add bullets after those: `Type` (`decision`, `incident` or `learning`;
//!   absent for a plain checkpoint), then `Context`, `Decision`, `Alternatives`, `Impact`,
//!   `Evidence`, `Symbols`, `Next`, `Confidence` (1–5) and `Unknowns`, each only when given.
//!   Lists are `"; "`-separated with `\;` for a semicolon inside an item; all use the escapes
//!   above, so an item may hold line breaks or start with `- `. A `Type` or `Confidence`
//!   whose value the field cannot hold (`Type: bogus`) is kept in [`Checkpoint::extra`].
//! - Supersession follows, on any kind of memory: `Topic` (a short key, same escapes) and
//!   `Supersedes`, the ids of the earlier checkpoints of the workspace this one replaces,
//!   `", "`-separated, each escaped as on the id line (so none holds a comma or a space). A
//!   `Supersedes` bullet with an empty item or a broken `%` escape is kept as written in
//!   [`Checkpoint::extra`]. Files without these bullets read as before. Which checkpoints
//!   are superseded is derived from every entry's bullet ([`Store::supersession`]); a save
//!   checks that each id exists in its workspace, and a save with a topic supersedes the
//!   newest memory of that topic that nothing supersedes yet.
//! - Who saved it ([`Actor`]) follows, one bullet per field that is known: `Harness`,
//!   `Model`, `Session`, `User`, `Git user`, `Git email`, `Host` (the machine's name, recorded
//!   since memory is framed with its origin: older entries have none and read as before),
//!   with the same escapes. A v4 `Session` bullet is read as the actor's session.
//! - Any other `- **Key**: value` bullet is kept in [`Checkpoint::extra`], written last.
//! - Entries are separated by a blank line and kept in time order.
//!
//! Files written by Goldfish v4 read too: entries without the id comment (their `HH:MM`
//! gives the time, the file name the date), no blank line between entries, the
//! `<!-- summary: … charCount: N -->` block after long descriptions, and unescaped
//! `", "`-separated lists. v4 wrote descriptions verbatim, so inside its entries only a
//! `## HH:MM - title` line starts the next entry (a `## heading` is description), and only
//! the final run of `- **Key**:` bullets is metadata (a bullet-like line followed by more text
//! is description). Such entries get a stable id derived from the workspace,
//! timestamp and content (`v4-20251013T0930-1a2b3c4d`), the same on every read and unique
//! within the workspace.
//!
//! Parsing is lenient ([`parse_day_file`]): a block that is not an entry, an entry whose id
//! line is broken, text after the bullets and invalid UTF-8 are reported by line, and every
//! other entry is still returned. [`parse_checkpoint_file`] is the strict form. A file in
//! `checkpoints/` named like a day file whose date does not exist (`2025-02-30.md`) is
//! reported by [`Store::checkpoints_between`]; other names (lock and temp files) are not
//! day files and are ignored.
//!
//! # Plan file format
//!
//! YAML frontmatter (`id, title, status, created, updated, tags`, other keys kept), a blank
//! line, then the content byte for byte, as Goldfish v4 wrote and read it: a `# Title` heading
//! that the content opens with is part of the content. See [`parse_plan`].
//!
//! # Guarantees
//!
//! - **Atomic**: every file is replaced through a temporary file, `fsync` and rename
//!   (`goldfish_core::fs`), so readers (which never lock) see the old or the new file, never a
//!   torn one, even when a writer is killed. Temp files a killed writer leaves are never read
//!   as data and are removed by the next write in their directory.
//! - **Durable**: a save returns after the file and its directory are fsynced.
//! - **Concurrent**: saves to one day file (or plan) serialise on an exclusive lock on a
//!   sidecar `.{name}.lock` file, and each re-reads the file under the lock, so any number of
//!   threads and processes can save at once without losing or duplicating an entry.
//! - **Private**: new directories are 0700, new files 0600.
//! - **Never destructive**: a save only inserts its entry; existing bytes, even garbage or
//!   invalid UTF-8, are kept. A plan whose file cannot be parsed is never overwritten.
//!
//! # Crate features
//!
//! None: everything is always available.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod actor;
mod age;
mod checkpoint;
mod dayfile;
mod days;
mod error;
mod find;
pub mod frame;
mod freshness;
mod git;
mod hook_settings;
mod memory;
mod plan;
mod plan_action;
mod redaction;
mod returns;
mod skipped;
mod store;
mod supersede;
mod tombstone;
mod workspace;

/// The `chrono` this crate's API uses (`DateTime<Utc>`, `NaiveDate`), re-exported so that
/// callers need not match its version.
pub use chrono;

pub use actor::{Actor, MAX_ACTOR_VALUE_CHARS};
pub use age::age_text;
pub use checkpoint::Checkpoint;
pub use dayfile::{
    ParsedDay, Problem, format_checkpoint, format_day_file, format_day_header,
    parse_checkpoint_file, parse_day_bytes, parse_day_file,
};
pub use days::{
    CHECKPOINTS_DIR, DayFile, DayFileName, NOT_A_DATE, checkpoints_dir, day_file_in, day_file_name,
    day_file_workspace, list_day_files,
};
pub use error::{Error, ErrorKind};
pub use freshness::{
    FRESHNESS_MARGIN_DAYS, FRESHNESS_MAX_COMMITS, FileFreshness, Freshness, FreshnessFilter,
    GitLog, freshness_log_args,
};
pub use git::{
    FRESHNESS_MAX_BYTES, FRESHNESS_TIMEOUT, GitContext, GitIdentity, MAX_FILES,
    checkpoint_freshness, git_context, git_freshness, git_identity, parse_identity,
    parse_porcelain_v2,
};
/// The clock types the `with_clock` constructors take (an injectable clock; [`ManualClock`]
/// for tests and replays), re-exported from goldfish-core.
pub use goldfish_core::time::{Clock, ManualClock, SharedClock, SystemClock, system_clock};
/// The redaction library the store runs before every write, re-exported so that callers
/// name the same `Kind` and `Redactor`.
pub use goldfish_redact;
pub use hook_settings::hook_session_budget;
pub use memory::{
    MAX_CONFIDENCE, MIN_CONFIDENCE, MemoryType, Structured, parse_confidence, validate_confidence,
};
pub use plan::{
    ChecklistItem, ChecklistRef, Plan, PlanStatus, Progress, checklist, format_plan, parse_plan,
};
pub use plan_action::{PlanAction, PlanOutcome};
pub use redaction::{Redaction, SETTINGS_FILE, Saved, redaction_config, redaction_summary};
pub use returns::{RETURNS_DIR, Returns, ReturnsProblem, format_returns, parse_returns};
pub use skipped::Skipped;
pub use store::{
    CheckpointInput, CheckpointRange, DUPLICATE_WINDOW, EDITED_KEY, ForgetReport, ForgottenMemory,
    HOME_ENV, IN_REPO_DIR, Imported, KindCount, PlanInput, PlanList, PlanUpdate, RedactStored,
    RedactedFile, Store, StoredFile, StoredFileKind, find_repo_memory, note_returned,
    recent_workspaces, validate_plan_id,
};
pub use supersede::{Link, MAX_TOPIC_CHARS, Supersession, SupersessionFacts};
pub use tombstone::{
    Forgotten, TOMBSTONE_FILE, Tombstone, TombstoneProblem, format_tombstone,
    format_tombstone_header, is_tombstone_id, parse_tombstones,
};
pub use workspace::{
    DEFAULT_WORKSPACE, RESERVED_WORKSPACE_NAMES, WORKSPACE_ENV, WorkspaceCandidate,
    WorkspaceChoice, WorkspaceQuery, WorkspaceSelector, WorkspaceSource, check_writable_workspace,
    choose_workspace, detect_workspace, find_project, normalize_workspace, resolve_workspace,
    resolve_workspace_from_env, validate_workspace,
};

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
