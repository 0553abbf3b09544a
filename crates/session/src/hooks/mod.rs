//! Memory that arrives when it matters: what `goldfish hook prompt`, `hook file` and
//! `hook pre-compact` inject into an agent's session, and the one budget that caps
//! everything injected into a session, `hook session-start` included.
//!
//! - [`prompt_context`]: the checkpoints that clearly match a prompt (see
//!   [`Confidence`]: the threshold was chosen on an evaluation set of prompts that should
//!   find a memory and chit-chat that must find none), each at most once per session.
//! - [`file_context`]: the decisions, incidents and learnings that name a file the agent
//!   read or changed (or its directory), once per session per file.
//! - [`pre_compact`]: before the context is compacted, the instruction to checkpoint what it
//!   holds, with the titles already saved this session.
//! - [`session_budget_left`] and [`record_injection`]: the session's budget
//!   ([`DEFAULT_SESSION_BUDGET`] characters unless the store's settings say otherwise) and
//!   its bookkeeping, for the session-start hook.
//!
//! What a session was given lives in the store's cache directory ([`Ledger`]), so each hook
//! process knows what the ones before it injected; a capped log of every injection feeds
//! `goldfish stats`.

mod compact;
mod file;
mod input;
mod ledger;
mod prompt;

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use goldfish_store::Checkpoint;
use goldfish_store::frame::{self, Here};
use serde::{Deserialize, Serialize};

pub use compact::pre_compact;
pub use file::file_context;
pub use input::{HookInput, InputError};
pub use ledger::{
    Grant, HOOKS_DIR, HookTotal, Ledger, LogEntry, MAX_LOG_BYTES, MAX_REMEMBERED, MAX_SESSIONS,
    SessionState, SessionSummary, summarize,
};
pub use prompt::{Confidence, MIN_COVERAGE, MIN_STRENGTH, prompt_context, prompt_terms};

use crate::Error;

/// What a session may be given in all, in characters, unless the store's settings say
/// otherwise (`{"hooks": {"session_budget": N}}` in `settings.json`).
pub const DEFAULT_SESSION_BUDGET: usize = 6_000;

/// How long a hook lets its one `git log` run before it gives up the freshness claims
/// ([`HookOptions::freshness_timeout`]): a hook's whole process has 15 ms.
pub const DEFAULT_FRESHNESS_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(10);

/// The default budget of one prompt's injection.
pub const DEFAULT_PROMPT_BUDGET: usize = 800;

/// The default budget of one file's injection.
pub const DEFAULT_FILE_BUDGET: usize = 800;

/// The default budget of the pre-compaction instruction.
pub const DEFAULT_COMPACT_BUDGET: usize = 1_200;

/// Which hook injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum HookKind {
    /// `goldfish hook session-start`.
    SessionStart,
    /// `goldfish hook prompt`.
    Prompt,
    /// `goldfish hook file`.
    File,
    /// `goldfish hook pre-compact`.
    PreCompact,
}

impl HookKind {
    /// Its name, as the command and the log spell it.
    pub fn name(self) -> &'static str {
        match self {
            HookKind::SessionStart => "session-start",
            HookKind::Prompt => "prompt",
            HookKind::File => "file",
            HookKind::PreCompact => "pre-compact",
        }
    }
}

/// Where a hook runs and how much it may inject.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HookOptions {
    /// The store's root directory.
    pub home: PathBuf,
    /// The directory the agent works in (relative file paths are relative to it).
    pub cwd: PathBuf,
    /// The workspace searched.
    pub workspace: String,
    /// The client's session id; without one nothing is remembered between calls (so
    /// nothing is kept from repeating) and only [`budget`](Self::budget) applies.
    pub session: Option<String>,
    /// At most this many characters in this injection.
    pub budget: usize,
    /// At most this many characters in the whole session.
    pub session_budget: usize,
    /// The current time; `None` uses the store's clock.
    pub now: Option<DateTime<Utc>>,
    /// The git repository the workspace's checkpoints were saved in, when known: each
    /// injected checkpoint that names files and a commit then says whether those files
    /// changed since (one `git log` per hook, see [`goldfish_store::git_freshness`]).
    /// `None` makes no such claim and runs no git.
    pub repository: Option<PathBuf>,
    /// How long the freshness `git log` may run before it is stopped and no claim is made;
    /// default [`DEFAULT_FRESHNESS_TIMEOUT`], zero runs no git.
    pub freshness_timeout: std::time::Duration,
    /// When set, the freshness `git log` must also end by this instant (the binary sets it
    /// from its own start, so that git never takes a hook past its time budget); passed, no
    /// git runs. Default `None`.
    pub freshness_deadline: Option<std::time::Instant>,
    /// This machine and user: an injected checkpoint saved elsewhere says where it came from
    /// ([`frame::origin`]). Default: nothing known, so only imports say it.
    pub here: Here,
}

impl HookOptions {
    /// Options for `workspace` in the store at `home`, with `budget` for this injection and
    /// the [`DEFAULT_SESSION_BUDGET`].
    pub fn new(
        home: impl Into<PathBuf>,
        cwd: impl Into<PathBuf>,
        workspace: impl Into<String>,
        budget: usize,
    ) -> Self {
        HookOptions {
            home: home.into(),
            cwd: cwd.into(),
            workspace: workspace.into(),
            session: None,
            budget,
            session_budget: DEFAULT_SESSION_BUDGET,
            now: None,
            repository: None,
            freshness_timeout: DEFAULT_FRESHNESS_TIMEOUT,
            freshness_deadline: None,
            here: Here::default(),
        }
    }
}

/// What one hook injected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Injection {
    /// Which hook.
    pub hook: HookKind,
    /// The text for the agent; empty when nothing is injected.
    pub text: String,
    /// Its size in characters (Unicode scalar values).
    pub chars: usize,
    /// The checkpoints it carries, in order.
    pub ids: Vec<String>,
    /// Matches left out because the budget (this injection's or the session's) had no room.
    pub left_out: usize,
    /// Matches left out because this session was already given them.
    pub repeated: usize,
    /// Characters injected into the session so far, this injection included.
    pub session_chars: usize,
    /// The session's budget.
    pub session_budget: usize,
}

impl Injection {
    fn empty(hook: HookKind, state: &SessionState, session_budget: usize) -> Self {
        Injection {
            hook,
            text: String::new(),
            chars: 0,
            ids: Vec::new(),
            left_out: 0,
            repeated: 0,
            session_chars: state.chars,
            session_budget,
        }
    }
}

/// The session's state (empty without a session id).
fn state_of(opts: &HookOptions) -> Result<SessionState, Error> {
    match opts.session.as_deref() {
        Some(s) => Ok(Ledger::new(&opts.home).session(s)?),
        None => Ok(SessionState::default()),
    }
}

/// What this injection may use: its own budget, within what the session has left.
fn room(opts: &HookOptions, state: &SessionState) -> usize {
    opts.budget
        .min(opts.session_budget.saturating_sub(state.chars))
}

/// How many characters `session` may still be given.
pub fn session_budget_left(opts: &HookOptions) -> Result<usize, Error> {
    let state = state_of(opts)?;
    Ok(room(opts, &state))
}

/// Records that `hook` injected `text` (carrying the checkpoints `ids`, looking at `files`)
/// into the session of `opts`, and returns the [`Injection`]. The session-start hook calls
/// it with what it rendered within [`session_budget_left`].
pub fn record_injection(
    opts: &HookOptions,
    hook: HookKind,
    text: String,
    ids: Vec<String>,
    files: &[String],
) -> Result<Injection, Error> {
    let chars = text.chars().count();
    let grant = ledger::Grant::new(ids.clone(), files.to_vec(), chars);
    let ((), state) = update(opts, |_| ((), grant))?;
    log(opts, hook, chars, &ids)?;
    Ok(Injection {
        hook,
        text,
        chars,
        ids,
        left_out: 0,
        repeated: 0,
        session_chars: state.chars,
        session_budget: opts.session_budget,
    })
}

/// [`Ledger::update`] for the session of `opts`.
fn update<T>(
    opts: &HookOptions,
    decide: impl FnOnce(&SessionState) -> (T, ledger::Grant),
) -> Result<(T, SessionState), Error> {
    let now = opts.now.unwrap_or_else(Utc::now);
    let session = opts.session.as_deref().unwrap_or("");
    Ok(Ledger::new(&opts.home).update(session, now, decide)?)
}

/// Appends one injection to the log, and records its checkpoints in the store's record of
/// returns (for `goldfish tidy`).
fn log(opts: &HookOptions, hook: HookKind, chars: usize, ids: &[String]) -> Result<(), Error> {
    let at = opts.now.unwrap_or_else(Utc::now);
    // A cache for `goldfish tidy`: an injection stands without it (a hook never fails for it).
    let _ = goldfish_store::note_returned(&opts.home, &opts.workspace, ids, at.date_naive());
    let entry = LogEntry {
        at,
        session: opts.session.clone().unwrap_or_default(),
        workspace: opts.workspace.clone(),
        hook,
        chars,
        ids: ids.to_vec(),
    };
    Ok(Ledger::new(&opts.home).append(&entry)?)
}

/// Injects `head`, the sentence [`frame::MEMORY_NOTICE`] and those of the `entries` (id,
/// framed text) that the session was not given yet and that fit the room it has left, and records it with the `files` looked at: all
/// decided under the session's lock, so hooks of one session running at once never give
/// the same checkpoint twice. Returns `none` (this hook's empty injection) when there is no
/// entry and no file to remember.
fn inject(
    opts: &HookOptions,
    mut none: Injection,
    head: &str,
    entries: &[(String, String)],
    files: &[String],
) -> Result<Injection, Error> {
    if entries.is_empty() && files.is_empty() {
        return Ok(none);
    }
    let ((text, ids, left_out, repeated), state) = update(opts, |state| {
        let fresh: Vec<(String, String)> = entries
            .iter()
            .filter(|(id, _)| !state.injected.contains(id))
            .cloned()
            .collect();
        let repeated = entries.len() - fresh.len();
        let head = format!("{head}{}\n", frame::MEMORY_NOTICE);
        let (text, ids, left_out) = fill(&head, &fresh, room(opts, state));
        let grant = ledger::Grant::new(ids.clone(), files.to_vec(), text.chars().count());
        ((text, ids, left_out, repeated), grant)
    })?;
    let chars = text.chars().count();
    log(opts, none.hook, chars, &ids)?;
    none.text = text;
    none.chars = chars;
    none.ids = ids;
    none.left_out = left_out;
    none.repeated = repeated;
    none.session_chars = state.chars;
    Ok(none)
}

/// Appends each entry that fits `room` characters after `head`, whole (a framed memory is
/// never cut open); returns the text (empty when no entry fits), the ids shown and how many
/// did not fit.
/// Stored text reaches the text with its control characters shown escaped
/// ([`goldfish_core::inert`]; [`cut`] already escaped the titles and details, so this pass
/// changes nothing then), measured as shown.
fn fill(head: &str, entries: &[(String, String)], room: usize) -> (String, Vec<String>, usize) {
    let head = goldfish_core::inert(head);
    let mut text = head.to_string();
    let mut used = head.chars().count();
    let mut ids = Vec::new();
    let mut left_out = 0;
    for (id, entry) in entries {
        let entry = goldfish_core::inert(entry);
        let n = entry.chars().count();
        if used + n <= room {
            text.push_str(&entry);
            used += n;
            ids.push(id.clone());
        } else {
            left_out += 1;
        }
    }
    if ids.is_empty() {
        (String::new(), ids, left_out)
    } else {
        (text, ids, left_out)
    }
}

/// Each checkpoint as an entry (id, text) of [`inject`], saying whether its files changed since
/// its commit when [`HookOptions::repository`] is known: one git process for those the session
/// was not given yet (`state`), none when it was given them all.
fn entries_of(
    opts: &HookOptions,
    state: &SessionState,
    checkpoints: &[&Checkpoint],
    now: DateTime<Utc>,
) -> Vec<(String, String)> {
    let claims = match &opts.repository {
        // A checkpoint already given is never injected again: no claim needed for it.
        Some(dir) => goldfish_store::checkpoint_freshness(
            dir,
            &opts.workspace,
            checkpoints
                .iter()
                .filter(|c| !state.injected.contains(&c.id))
                .copied(),
            opts.freshness_deadline
                .map_or(opts.freshness_timeout, |deadline| {
                    opts.freshness_timeout
                        .min(deadline.saturating_duration_since(std::time::Instant::now()))
                }),
        ),
        None => Vec::new(),
    };
    let mut claims = claims.into_iter();
    let claims: Vec<Option<goldfish_store::Freshness>> = checkpoints
        .iter()
        .map(|c| {
            if state.injected.contains(&c.id) {
                None
            } else {
                claims.next().flatten()
            }
        })
        .collect();
    checkpoints
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let claim = claims.get(i).and_then(Option::as_ref);
            (c.id.clone(), entry_line(c, now, claim, &opts.here))
        })
        .collect()
}

/// One checkpoint as a hook shows it, framed as data ([`frame::framed_block`]):
/// `<memory id="…" age="…" git="…" from="…">` (its age at `now`, not its date: what a
/// reader weighs, in fewer characters; `git`, what git
/// says of its files since its commit, when `fresh` says anything; `from` when it was saved
/// elsewhere, [`frame::origin`]), then a line with its type and title, then its decision or
/// impact (else its body's first line) cut to one line, then `</memory>`.
fn entry_line(
    c: &Checkpoint,
    now: DateTime<Utc>,
    fresh: Option<&goldfish_store::Freshness>,
    here: &Here,
) -> String {
    const DETAIL: usize = 180;
    let badge = if c.memory_type == goldfish_store::MemoryType::Checkpoint {
        String::new()
    } else {
        format!("[{}] ", c.memory_type)
    };
    let mut attrs = vec![
        ("id", c.id.clone()),
        ("age", goldfish_store::age_text(now, c.timestamp)),
    ];
    if let Some(f) = fresh {
        attrs.push(("git", f.text()));
    }
    if let Some(from) = frame::origin(c, here) {
        attrs.push(("from", from));
    }
    let mut s = format!("{badge}{}\n", cut(c.title(), DETAIL));
    let detail = c
        .structured
        .decision
        .as_deref()
        .map(|d| ("decision", d))
        .or(c.structured.impact.as_deref().map(|i| ("impact", i)))
        .or_else(|| {
            c.description
                .lines()
                .skip(1)
                .find(|l| !l.trim().is_empty())
                .map(|l| ("", l))
        });
    if let Some((label, text)) = detail {
        let text = text.lines().collect::<Vec<_>>().join(" / ");
        if label.is_empty() {
            s.push_str(&format!("{}\n", cut(text.trim(), DETAIL)));
        } else {
            s.push_str(&format!("{label}: {}\n", cut(text.trim(), DETAIL)));
        }
    }
    frame::framed_block(&attrs, &s)
}

/// `text` with its control characters shown escaped ([`goldfish_core::inert`]), cut to `max`
/// characters with `…`: escaped first, so that what is shown stays within `max`.
fn cut(text: &str, max: usize) -> String {
    let text = goldfish_core::inert(text);
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// Where a hook recalls from: the whole history of one workspace.
fn recall_options(opts: &HookOptions) -> goldfish_recall::RecallOptions {
    let mut o = goldfish_recall::RecallOptions::default();
    o.workspace = goldfish_recall::Scope::Named(opts.workspace.clone());
    o.from = Some("1970-01-01".into());
    o.cwd = Some(opts.cwd.clone());
    o.now = opts.now;
    o
}
