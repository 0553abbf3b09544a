//! Typo-tolerant, relevance-ranked recall over goldfish checkpoints, across workspaces, with
//! output sized for an agent's context.
//!
//! Three layers, pure at the core:
//!
//! - [`search`]: a search engine over checkpoints in memory. A query may be keywords, a
//!   question in plain words ("how did we stop the login page from timing out?") or a typo'd
//!   word. It tolerates typos (`migratoin` → migration), partial words in both directions
//!   (`auth` ↔ authentication), case and accents, knows common software synonyms and
//!   abbreviations (`db` ~ database, `login` ~ auth), ranks by relevance (BM25F, the title
//!   above the body) with ties broken by recency, and can explain each hit
//!   ([`Explanation`]).
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
//! assert_eq!(result.hits[0].checkpoint.title(), "Fixed auth bug");
//!
//! let text = format_recall(&result, &FormatOptions::default());
//! assert!(text.contains("Fixed auth bug") && !text.contains("database"));
//! # Ok(())
//! # }
//! ```
//!
//! # How search works
//!
//! This is the one description of the pipeline; each step names the module that owns it.
//! [`search`] runs steps 1–5 over checkpoints in memory. [`recall()`] with a search runs them
//! through the persistent index (step 0) instead of reading every day file; without a
//! search (a time window) it reads only the window's day files, with no index.
//!
//! 0. **The index** (`index`; the markdown files stay the only truth, the index is a cache
//!    that can be deleted at any time): one file per workspace, `{store}/.index/{ws}.gfi`
//!    (`.index/` is ignored by sync), so that a save re-indexes only its workspace and a
//!    search of one workspace opens one file. It holds per day file what identifies its
//!    content (length, mtime in ns, inode; a content hash for a file changed within two
//!    seconds of the build), per entry its timestamp, place and field lengths, and the
//!    vocabulary — every token of the five fields, typed text included, tokenized by the
//!    same code as step 3 — with postings `(entry, field, count)`. Each recall lists the
//!    day files and rebuilds a workspace's index when anything differs, so a checkpoint
//!    saved a millisecond earlier by another process is found; an index that is truncated,
//!    garbage, of another version or fails a checksum is rebuilt with a note in
//!    [`RecallResult::notes`]; one that cannot be written (a read-only store) is used from
//!    memory for this call, with a note. It is written by atomic replace and read with
//!    positioned reads of the sections needed (the entries' table, the vocabulary, the
//!    postings of matched terms). Each vocabulary term is classified against the query as
//!    the pass classifies a token (step 3); the postings of the matched ones, restricted
//!    to the window, give the same document frequencies, field lengths and `(term, field)`
//!    counts as the pass, and step 4 scores them with the same code: the same hits and
//!    scores, bit for bit (tests compare both ways over the evaluation sets and random
//!    stores). Only the checkpoints shown are parsed again from their day files. Searches
//!    with a [`Filter`], or over workspaces with Goldfish 5–8 projects read in place, read
//!    the files. [`RecallOptions::use_index`] `= false` (which [`RecallOptions::from_env`] sets for `$GOLDFISH_NO_INDEX=1`) bypasses
//!    the index; a long-lived process keeps the indexes' headers and file tables with a [`RecallCache`]
//!    ([`recall_with`]), refreshed by the same listing check.
//!
//! 1. **The query** (`query`, word lists in `src/lexicon.txt`): free text is folded (case,
//!    accents, camelCase parts) into words; English stop words and the framing of a question
//!    ("how did we", "what did we decide about", "is there") are dropped, then duplicates,
//!    and at most [`Query::MAX_TERMS`] words are kept. A query with nothing left has nothing
//!    to search for ([`Query::try_parse`] says so with [`ErrorKind::NothingToSearch`]). Each
//!    word also searches for its synonyms and abbreviations from the lexicon, as weaker
//!    matches ([`SearchOptions::synonym_weight`]) of that word.
//! 2. **What counts as a match** (`similarity`, the single owner of the rules and their
//!    thresholds): the same word; the same stem (a light English stemmer: plurals, `-ing`,
//!    `-ed`, `-tion`; or Snowball English, `rust-stemmers`, for stems of four bytes or more:
//!    inspired ~ inspiration, hikes ~ hiking); a partial word either way; a term's stem that begins the word with the
//!    rest a slip of an ending ("migratoin" finds "migrated"); a bounded Damerau (OSA) edit
//!    distance, one edit from four bytes and two from eight. Each has a similarity below 1;
//!    a synonym matches only itself and words of its stem.
//! 3. **The pass** (`pass`, `scan`, `lanes`, `planes`, `prefilter`): one pass over the checkpoints, each
//!    scanned as one text of its five fields (title — the description's first line —, body,
//!    tags, branch, files). The scanner finds tokens 64 bytes at a time (SIMD compares: AVX2
//!    where the processor has it, found at run time, otherwise SSE2 or NEON through `wide`),
//!    and counts every token towards its field's length. Before any token is looked up, a
//!    filter derived from the query (first bytes of short words, pieces of long ones) is
//!    tested on the whole window and drops most tokens; each remaining *distinct* token is
//!    classified once (a per-call memo keeps the verdict): a cheap necessary condition per
//!    word (first bytes, length, letters added or missing), then the rules of step 2. The
//!    prefilters are derived from those rules, and property tests check that they never
//!    reject a match. Only matched terms get document frequencies; each document keeps only
//!    its matched `(term, field)` occurrences and its field lengths.
//! 4. **Scoring** (`score`, one function for the pass and the index): per query word, the best BM25F score among the terms it matched
//!    (its own forms, typos and partial words, and its synonyms; at most 64, the most
//!    similar), scaled by the similarity. Fields weigh title 3, body 2, tags 1, branch 0.5,
//!    files 0.3 ([`FieldWeights`]). The sum is multiplied by the document's *coverage*, the
//!    share of the query's weight (IDF) it matched; a word found only approximately and only
//!    in file paths (`locking` in `Cargo.lock`) adds score but no coverage, and a word found
//!    nowhere still counts, at half weight. Every document with a score is returned, best
//!    first: the order and the caller's limit give precision. A coverage floor relative to
//!    the best-covering document ([`SearchOptions::min_coverage`]) and a score cut-off
//!    relative to the best ([`SearchOptions::relative_cutoff`]) can be set, but are off by
//!    default: measured, they dropped answers that ranked in the top 10. Ties go to the
//!    newer checkpoint, then to input order; ties among expansions go to the smaller term
//!    text, so that nothing depends on the order terms were found in (lengths are summed
//!    as integers for the same reason).
//! 5. **Explanations** (`explain`): with [`SearchOptions::explain`], each [`Hit`] says per
//!    query word which term it matched, in which fields, how ([`MatchKind`]) and what it
//!    added, and [`format_explanation`] renders that for people. Off, nothing is spent on it.
//!
//! A test-only `reference` engine (a vocabulary of every token, each word compared with all
//! of it) pins the fast path: on random corpora and on the evaluation set, the hits and their
//! scores are equal bit for bit. To change a matching rule, edit `similarity` and its tests;
//! the property tests then say whether a prefilter must change too.
//!
//! The defaults were chosen on two evaluation sets in `tests/fixtures/`: 400 checkpoints
//! with 59 keyword queries (typos, partial words, tags, files), and 1,974 checkpoints with
//! 195 natural-language queries (questions, paraphrases, long conversational ones), written
//! and judged before any engine ran on them, and on LoCoMo's first five conversations.
//! MRR@10: keywords 0.991 (plain BM25 0.868); questions 0.958 (0.905), paraphrases 0.513
//! (0.370), conversational 0.988 (0.922), all natural-language 0.819 (0.732), with no query
//! left without an answer; recall@10 and MRR@10 at least BM25 with Snowball stems on every
//! set (the table is in the crate's README).
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
//! # Supersession
//!
//! A checkpoint may replace earlier ones (its `Supersedes` bullet, written by a save with
//! `supersedes` ids or a `topic`; see goldfish-store). [`recall()`] shows the newest of a
//! chain and hides what it replaced, unless [`RecallOptions::include_superseded`]; every
//! shown checkpoint carries its links both ways, with ids and titles, in
//! [`RecallHit::links`] (and [`links_of`] gives them for one checkpoint, for `show`).
//!
//! Who is superseded is derived from **every** entry of each recalled workspace, not only
//! the window's, so a checkpoint of last week replaced today is hidden from a recall of last
//! week. One rule decides it, goldfish-store's
//! [`Supersession::from_facts`](goldfish_store::Supersession::from_facts), fed from one of
//! two places: the recall index, which keeps per workspace the supersession facts (id,
//! title, time, topic, superseded ids) of every entry with a `Supersedes` or `Topic` bullet
//! and of every entry such a bullet names, refreshed with the rest of the index; or, without
//! the index ([`RecallOptions::use_index`] off), every day file
//! ([`Store::supersession`](goldfish_store::Store::supersession)). With the index, every
//! recall (with a search or not) checks the indexes of its workspaces fresh, as a search
//! does; a workspace without a single bullet costs nothing more (its empty section is not
//! even read). The hidden ones are left out before the search, the ranking and the limit,
//! as a filter is — through the index by their entry numbers, reading the files by their
//! ids — so the answer is the same bit for bit either way (tested over random stores).
//!
//! # Memory
//!
//! Through the index, a search holds one workspace's entries' table and vocabulary at a
//! time, the postings of the matched terms, and per matching entry its field lengths and
//! matched occurrences: proportional to what matches and to the vocabulary, never a copy
//! of every checkpoint. Reading the files instead, a search allocates a memo proportional to the distinct words it looks up (those that pass
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
//! One module has `unsafe` (`lanes`): on x86-64 a search asks the processor whether it has
//! AVX2 (with BMI1, BMI2, LZCNT and POPCNT) and, if so, runs its pass compiled for those
//! features, which takes 20–23 % less time. The window classifier is written once, over a
//! small vector trait with one implementation per instruction set; the AVX2 one's
//! operations, and the three calls into code compiled for AVX2 (the pass, and the two
//! functions that classify a window), are the crate's only `unsafe` blocks, each reached only
//! through a value that the run-time check creates. Both ways give the same results, bit for
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
mod explain;
mod fields;
mod filter;
mod forget;
mod format;
mod from_files;
pub mod fusion;
mod hit;
pub mod index;
mod inplace;
mod lanes;
mod lexicon;
mod matches;
mod newest;
mod options;
mod pass;
mod phrasings;
mod planes;
mod prefilter;
mod prepare;
mod query;
mod recall;
#[cfg(test)]
mod reference;
mod resemble;
mod result;
mod scan;
mod score;
mod search_options;
pub mod semantic;
mod similarity;
mod standup;
mod supersession;
mod table;
mod text;
mod tidy;
mod window;

/// The `chrono` this crate's API uses (`DateTime<Utc>`, `NaiveDate`), re-exported so that
/// callers need not depend on it or match its version.
pub use chrono;
pub use engine::search;
pub use error::{Error, ErrorKind};
pub use explain::{Explanation, MatchKind, TermMatch, WordExplanation, format_explanation};
pub use fields::Field;
pub use filter::Filter;
pub use forget::{forget, forget_plan};
pub use format::{
    FormatOptions, format_checkpoint, format_checkpoint_framed, format_checkpoint_linked,
    format_recall, format_recall_counted, format_standup, plan_excerpt,
};
/// The store types this crate's API takes and returns ([`recall`] takes a [`Store`], a
/// [`Filter`] names a [`MemoryType`], a result holds [`Checkpoint`]s and a [`Plan`]),
/// re-exported so that a program using only recall needs no direct goldfish-store dependency.
pub use goldfish_store::{
    self, ChecklistItem, Checkpoint, MemoryType, Plan, PlanStatus, Store, Structured,
    WorkspaceSelector,
};
pub use hit::Hit;
pub use index::{
    INDEX_DIR, IndexState, IndexStatus, IndexVerify, NO_INDEX_ENV, RecallCache, VectorReport,
    WorkspaceIndex, WorkspaceVerify, embed_vectors, index_rebuild, index_status, index_verify,
    read_index_bytes,
};
pub use options::{RecallOptions, Scope};
pub use phrasings::{MAX_PHRASINGS, PHRASINGS_RRF_K, fuse_phrasings};
pub use query::Query;
pub use recall::{checkpoints_per_day, recall, recall_with};
pub use resemble::{
    MAX_RESEMBLANCES, MEANING_THRESHOLD, RESEMBLANCE_DAYS, Resemblance, ResembleBy,
    WORDS_THRESHOLD, resemblances, word_similarity,
};
pub use result::{
    DayCounts, Links, RecallHit, RecallResult, SkippedFile, StoreState, WorkspaceCount,
};
pub use search_options::{FieldWeights, SearchOptions};
pub use semantic::{Embedder, LazyEmbedder, SemanticChannel, SemanticOptions, read_vector_bytes};
pub use standup::{PlanProgress, Standup, StandupOptions, WorkspaceStandup, standup, standup_with};
pub use supersession::{links_of, links_of_saved};
pub use tidy::{
    ChainLink, DuplicateCluster, EXACT_COPY_WINDOW, Linked, NEAR_DUPLICATE_WORDS, TidyApplied,
    TidyMemory, TidyOptions, TidyReport, UnlinkedChain, Unreturned, apply_tidy, note_returned,
    tidy,
};
pub use window::{Bound, MAX_DAYS, TimeWindow, parse_bound, parse_since};

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
