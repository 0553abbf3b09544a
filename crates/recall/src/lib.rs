//! Typo-tolerant, relevance-ranked recall over goldfish checkpoints, across workspaces, with
//! output sized for an agent's context.
//!
//! Three layers, pure at the core:
//!
//! - [`search`]: a search engine over checkpoints in memory. It tolerates typos
//!   (`migratoin` → migration), partial words in both directions (`auth` ↔ authentication),
//!   case and accents, ranks by relevance (BM25F over fuzzily expanded words, field weights,
//!   query coverage, closeness of the match) with ties broken by recency, and returns nothing
//!   rather than noise when nothing is close.
//! - [`recall()`] and [`standup()`]: read a [`goldfish_store::Store`] — only the day files the
//!   window needs, workspaces in parallel — and assemble a [`RecallResult`] or [`Standup`].
//!   Corrupt files are skipped and reported, never fatal.
//! - [`format_recall`] and [`format_standup`]: compact markdown within a character budget.
//!
//! # Example
//!
//! ```
//! use goldfish_recall::{format_recall, recall, FormatOptions, RecallOptions};
//! use goldfish_store::{CheckpointInput, Store};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let store = Store::open(dir.path())?;
//! for (text, tag) in [("Fixed auth bug", "auth"), ("Refactored database queries", "database")] {
//!     let mut input = CheckpointInput::new(text);
//!     input.tags = vec![tag.into()];
//!     input.workspace = Some("demo".into());
//!     store.save_checkpoint(input)?;
//! }
//!
//! let mut opts = RecallOptions::default();
//! opts.workspace = "demo".into();
//! opts.search = Some("authentication".into());
//! let result = recall(&store, &opts)?;
//! assert_eq!(result.checkpoints[0].title(), "Fixed auth bug");
//!
//! let text = format_recall(&result, &FormatOptions::default());
//! assert!(text.contains("Fixed auth bug") && !text.contains("database"));
//! # Ok(())
//! # }
//! ```
//!
//! # How search works
//!
//! Each call searches the checkpoints it is given (recall searches a freshly read set; nothing
//! is cached across calls) in one pass: a scanner finds every field's tokens 64 bytes at a
//! time (SIMD compares: AVX2 where the processor has it, found at run time, otherwise SSE2 or
//! NEON through `wide`; case, accents and camelCase folded exactly as documented), every
//! token counts towards its field's length, and each *distinct* token is classified once, on its first sighting — a cheap necessary condition for matching a query
//! word (first bytes, length, letters added or missing), then a comparison with the query:
//! exact, same stem, prefix either way, a term's stem that begins the query word (a slip in
//! its ending: "migratoin" finds "migrated"), or a bounded Damerau edit distance, each with a
//! similarity below 1. Only documents that matched something are scored, with BM25F over those
//! expansions (fields weighted description 2, tags 1, branch 0.5, files 0.3), multiplied by
//! the square of the share of the query they cover; documents covering less than half of it,
//! or scoring under a fifth of the best, are dropped. The choices were made by measurement on
//! the evaluation set in `tests/fixtures/` (400 real checkpoints, 59 queries): MRR 0.982,
//! success@1 0.964, success@5 1.0, against 0.900 for plain BM25 and 0.457 for the fuse.js
//! matcher of Goldfish v4.
//!
//! A typed memory's type and structured fields (decision, alternatives, impact, symbols, …)
//! are searched as part of its description, with the description's weight: [`recall()`]
//! appends them for the search and removes them before returning. [`Filter`] (type, tags,
//! file, symbol) narrows the checkpoints before the search and the limit.
//!
//! # Goldfish 5–8 projects, read in place
//!
//! [`recall()`] and [`standup_with`] also read the Goldfish 5–8 projects they can find —
//! those listed in `registry.json` at the store's root (Goldfish's registry, when both use
//! `~/.goldfish`) and the project around the current directory — through `goldfish-import`:
//! each project's `.memories/` checkpoints are those of the workspace goldfish detects for its
//! directory (every field: type, structured fields, git worktree and actor as bullets), its
//! active brief is the workspace's active plan when goldfish has none, and an entry both
//! imported and read in place counts once. They are never written to.
//! [`RecallOptions::goldfish_memories`] turns this off.
//!
//! # Memory
//!
//! A search allocates a memo proportional to the distinct words it looks up (those that pass
//! the query's filter; under a megabyte for 10,000 checkpoints). No data is kept between
//! calls, but each thread keeps the allocations of its last search for the next one (up to
//! 16 MiB; larger ones are freed), so a long-lived process does not map and fault in fresh
//! pages for every query.
//!
//! # Time
//!
//! Every instant is UTC. "The last N days" is the rolling window ending now; a date-only
//! `from` is the start of that UTC day and a date-only `to` its end; a `to` timestamp without
//! fractional seconds includes its whole second. The `TZ` environment variable changes
//! nothing. "Now" is the store's clock ([`goldfish_store::Store::now`]) unless
//! [`RecallOptions::now`] is given.
//!
//! # Unsafe code
//!
//! One module has `unsafe`: on x86-64 a search asks the processor whether it has AVX2 (with
//! BMI1, BMI2, LZCNT and POPCNT) and, if so, runs its pass compiled for those features, which
//! takes 20–23 % less time. Three calls into code compiled for AVX2 (the pass, and the two
//! functions that classify a window) are the crate's only `unsafe` blocks, each made through
//! a value that only that run-time check creates. Both ways give the same results, bit for
//! bit; the tests check each that the test machine has.
//!
//! # Crate features
//!
//! None: everything is always available.
#![deny(missing_docs)]
#![deny(unsafe_code)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod ahead;
mod engine;
mod error;
mod format;
mod inplace;
mod lanes;
mod recall;
mod scan;
mod standup;
mod table;
mod text;
mod window;

pub use engine::{FieldWeights, Hit, Query, SearchOptions, search};
pub use error::{Error, ErrorKind};
pub use format::{FormatOptions, format_recall, format_standup};
pub use recall::{
    Filter, RecallOptions, RecallResult, Scope, SkippedFile, StoreState, WorkspaceCount, recall,
};
pub use standup::{PlanProgress, Standup, StandupOptions, WorkspaceStandup, standup, standup_with};
pub use window::{Bound, TimeWindow, parse_bound, parse_since};
