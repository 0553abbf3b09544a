//! The `GOBLIN_NOTES.md` format: a [`Notes`] value, its parser and its formatter.
//!
//! ```text
//! # GOBLIN_NOTES
//! Issue: ENG-123
//! Stage: BUILD
//! Last Updated: 2024-01-15T10:30:00Z
//! ## Current Objective
//! Implement JWT-based user authentication
//! ## Progress Log
//! - [x] Completed: Created auth module with token validation
//! - [ ] In Progress: Adding password reset flow
//! - [ ] Pending: Write unit tests
//! ## Key Decisions
//! - JWT over sessions: Stateless authentication for horizontal scaling
//! ## Files Changed
//! - `src/auth/jwt.py` - JWT token handling
//! ## Context for Next Session
//! Core auth flow is complete.
//! ```
//!
//!
//! See [`Notes`] for what is kept and how values are escaped.

use std::fmt;

use chrono::{DateTime, Utc};

use crate::error::Error;
use crate::stage::Stage;
use goldfish_core::Document;
use goldfish_core::time::{format_utc, parse_utc};

/// The placeholder written in an empty list section.
const NONE_YET: &str = "(None yet)";

/// Progress log entry state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StepStatus {
    /// `- [x] Completed: …`
    Completed,
    /// `- [ ] In Progress: …`
    InProgress,
    /// `- [ ] Pending: …`
    Pending,
}

/// One line of the progress log.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Step {
    /// Done, being done, or to do.
    pub status: StepStatus,
    /// What the step is.
    pub text: String,
}

impl Step {
    /// A step with `status` and `text`.
    pub fn new(status: StepStatus, text: impl Into<String>) -> Self {
        Step {
            status,
            text: text.into(),
        }
    }
}

/// A key decision and why it was made: `- {decision}: {reason}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Decision {
    /// What was decided.
    pub decision: String,
    /// Why (may be empty).
    pub reason: String,
}

/// A changed file: ``- `{path}` - {description}``.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileChange {
    /// The file's path, as the agent wrote it (normally relative to the worktree).
    pub path: String,
    /// What changed (may be empty).
    pub description: String,
}

/// Something [`Notes::parse`] read leniently (a duplicate, a missing part); the file still
/// parsed and nothing was dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseWarning {
    /// The 1-based line concerned.
    pub line: usize,
    /// What was unusual and how it was handled.
    pub message: String,
}

impl fmt::Display for ParseWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// The contents of a `GOBLIN_NOTES.md` file.
///
/// The public fields are the data; the value also remembers the layout of the text it was
/// parsed from (unknown lines and sections, blank lines, the exact `Last Updated` text) so
/// [`format`](Notes::format) writes them back. Equality compares the data and the kept
/// unknown text, not blank-line layout.
///
/// # Losslessness
///
/// Parsing keeps everything it does not understand, in place: lines before the title, unknown
/// header lines (`Owner: ada`), sections added by hand (`## Blockers`), repeated sections, and
/// lines inside a known list section that are not entries (those are written after the
/// entries). Blank lines around a section's content are kept; the original `Last Updated` text
/// is kept while the value is unchanged. A file written by [`Notes::format`] parses back to
/// an equal value, and formatting is idempotent.
///
/// # Escaping
///
/// Values may hold any text. Single-line values (the issue, steps, decisions, reasons, paths,
/// descriptions) escape `\` as `\\`, a line feed as `\n` and a carriage return as `\r`; a
/// decision escapes `: ` as `\: ` so the first unescaped `: ` separates it from its reason;
/// a path is written in a code span with enough backticks (padded with a space when it starts
/// or ends with a backtick or a space, or is empty). Multi-line values (the objective and the
/// context) are written line by line; a line whose first non-blank character could start a
/// markdown block that would hide or invent a section (`#`, `=`, `` ` ``, `~`, `<`, a line of
/// only `-`) or that starts with `\`, and a blank first or last line, gets a `\` inserted
/// after its indentation, which parsing removes. Text without such lines is written as is, so
/// ordinary notes read exactly as the original format's examples show them.
///
/// # Example
///
/// ```
/// use notes_core::{Notes, Stage};
///
/// # fn main() -> Result<(), notes_core::Error> {
/// let now = goldfish_core::time::parse_utc("2024-01-15T10:00:00Z").expect("valid time");
/// let mut notes = Notes::new("ENG-123", Stage::Build, "Implement auth", now);
/// notes.add_completed_step("Created auth module");
/// notes.add_decision("Using JWT", "Stateless auth");
/// notes.add_file_changed("src/auth.py", "JWT handling");
/// let text = notes.format();
/// assert!(text.contains("- Using JWT: Stateless auth\n"));
/// assert_eq!(Notes::parse(&text)?, notes);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Notes {
    /// `Issue:` — the issue id, such as `ENG-123`.
    pub issue: String,
    /// `Stage:` — the pipeline stage.
    pub stage: Stage,
    /// `Last Updated:` — when the notes were last written.
    pub last_updated: DateTime<Utc>,
    /// `## Current Objective` — free text.
    pub current_objective: String,
    /// `## Progress Log` — steps in file order.
    pub progress: Vec<Step>,
    /// `## Key Decisions`, oldest first.
    pub decisions: Vec<Decision>,
    /// `## Files Changed`, oldest first.
    pub files_changed: Vec<FileChange>,
    /// `## Context for Next Session` — free text; entries pushed past a limit are summarised here.
    pub context: String,
    layout: Layout,
}

#[derive(Debug, Clone)]
struct Layout {
    blocks: Vec<Block>,
    /// The `Last Updated` text as read, and its value: written back while the value is unchanged.
    last_updated_raw: Option<(String, DateTime<Utc>)>,
    warnings: Vec<ParseWarning>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Title,
    Issue,
    Stage,
    LastUpdated,
    Objective,
    Progress,
    Decisions,
    Files,
    Context,
}

impl Slot {
    const ALL: [Slot; 9] = [
        Slot::Title,
        Slot::Issue,
        Slot::Stage,
        Slot::LastUpdated,
        Slot::Objective,
        Slot::Progress,
        Slot::Decisions,
        Slot::Files,
        Slot::Context,
    ];

    fn heading(self) -> &'static str {
        match self {
            Slot::Title => "GOBLIN_NOTES",
            Slot::Issue => "Issue",
            Slot::Stage => "Stage",
            Slot::LastUpdated => "Last Updated",
            Slot::Objective => "Current Objective",
            Slot::Progress => "Progress Log",
            Slot::Decisions => "Key Decisions",
            Slot::Files => "Files Changed",
            Slot::Context => "Context for Next Session",
        }
    }

    fn is_section(self) -> bool {
        self >= Slot::Objective
    }

    fn is_list(self) -> bool {
        matches!(self, Slot::Progress | Slot::Decisions | Slot::Files)
    }

    fn section_for(heading: &str) -> Option<Slot> {
        Slot::ALL
            .into_iter()
            .find(|s| s.is_section() && s.heading().eq_ignore_ascii_case(heading))
    }

    fn header_for(key: &str) -> Option<Slot> {
        [Slot::Issue, Slot::Stage, Slot::LastUpdated]
            .into_iter()
            .find(|s| s.heading().eq_ignore_ascii_case(key.trim()))
    }
}

#[derive(Debug, Clone)]
enum Block {
    /// Text kept verbatim: preamble, unknown header lines, hand-added or repeated sections.
    Raw(String),
    /// A kept section whose heading is setext (`Title` over `---`): written after a blank
    /// line unless one precedes it, so it cannot become the continuation of a paragraph.
    SetextRaw(String),
    /// The `# GOBLIN_NOTES` line as read.
    Title(String),
    /// `Issue:`, `Stage:` or `Last Updated:`, written from the fields.
    Header(Slot),
    /// A known section: heading as read, body written from the fields.
    Section(SectionLayout),
}

#[derive(Debug, Clone)]
struct Extra {
    /// The formatted entry line this followed and which occurrence of that line it was
    /// (entries may repeat); `None` before the first entry.
    anchor: Option<(String, usize)>,
    /// The lines, verbatim.
    raw: String,
    /// A `(None yet)` line: written only while the list is empty.
    placeholder: bool,
}

#[derive(Debug, Clone)]
struct SectionLayout {
    slot: Slot,
    heading: String,
    /// Blank lines between the heading and the content.
    lead: String,
    /// Blank lines after the content.
    trail: String,
    /// Lines in a list section that are not entries, with the formatted entry line they
    /// followed (`None`: before the first entry). Written after that entry while it exists,
    /// otherwise after the entries.
    extras: Vec<Extra>,
    /// Write `(None yet)` when the list is empty.
    placeholder: bool,
}

impl SectionLayout {
    fn canonical(slot: Slot) -> Self {
        SectionLayout {
            slot,
            heading: format!("## {}\n", slot.heading()),
            lead: String::new(),
            trail: String::new(),
            extras: Vec::new(),
            placeholder: true,
        }
    }
}

impl Layout {
    fn canonical() -> Self {
        let blocks = Slot::ALL
            .into_iter()
            .map(|slot| match slot {
                Slot::Title => Block::Title("# GOBLIN_NOTES\n".to_string()),
                s if s.is_section() => Block::Section(SectionLayout::canonical(s)),
                s => Block::Header(s),
            })
            .collect();
        Layout {
            blocks,
            last_updated_raw: None,
            warnings: Vec::new(),
        }
    }
}

impl PartialEq for Notes {
    fn eq(&self, other: &Self) -> bool {
        self.issue == other.issue
            && self.stage == other.stage
            && self.last_updated == other.last_updated
            && self.current_objective == other.current_objective
            && self.progress == other.progress
            && self.decisions == other.decisions
            && self.files_changed == other.files_changed
            && self.context == other.context
            && self.kept_text().eq(other.kept_text())
    }
}

impl Eq for Notes {}

impl Notes {
    /// Entries kept in the progress log's completed steps; older ones are folded into context.
    pub const MAX_COMPLETED: usize = 5;
    /// Entries kept in Files Changed.
    pub const MAX_FILES: usize = 10;
    /// Entries kept in Key Decisions.
    pub const MAX_DECISIONS: usize = 5;

    /// New notes in the original layout, with empty lists and context.
    pub fn new(
        issue: impl Into<String>,
        stage: Stage,
        objective: impl Into<String>,
        last_updated: DateTime<Utc>,
    ) -> Self {
        Notes {
            issue: issue.into(),
            stage,
            last_updated,
            current_objective: objective.into(),
            progress: Vec::new(),
            decisions: Vec::new(),
            files_changed: Vec::new(),
            context: String::new(),
            layout: Layout::canonical(),
        }
    }

    /// Sets the current objective.
    pub fn set_objective(&mut self, objective: impl Into<String>) {
        self.current_objective = objective.into();
    }

    /// Sets the stage.
    pub fn set_stage(&mut self, stage: Stage) {
        self.stage = stage;
    }

    /// Sets the context for the next session (replacing any folded summaries in it).
    pub fn set_context(&mut self, context: impl Into<String>) {
        self.context = context.into();
    }

    /// Sets Last Updated.
    pub fn touch(&mut self, now: DateTime<Utc>) {
        self.last_updated = now;
    }

    /// Records a completed step. An in-progress or pending step with the same text is removed
    /// (it is now done). The step goes after the last completed one; beyond
    /// [`MAX_COMPLETED`](Self::MAX_COMPLETED) the oldest are folded into the context.
    pub fn add_completed_step(&mut self, step: impl Into<String>) {
        let text = step.into();
        self.progress
            .retain(|s| s.status == StepStatus::Completed || s.text != text);
        let at = self
            .progress
            .iter()
            .rposition(|s| s.status == StepStatus::Completed)
            .map_or(0, |i| i + 1);
        self.progress
            .insert(at, Step::new(StepStatus::Completed, text));
        self.enforce_limits();
    }

    /// Records the step being worked on now. A pending step with the same text is removed.
    /// Goes after the completed and other in-progress steps.
    pub fn add_in_progress(&mut self, step: impl Into<String>) {
        let text = step.into();
        self.progress
            .retain(|s| s.status != StepStatus::Pending || s.text != text);
        let at = self
            .progress
            .iter()
            .rposition(|s| s.status != StepStatus::Pending)
            .map_or(0, |i| i + 1);
        self.progress
            .insert(at, Step::new(StepStatus::InProgress, text));
    }

    /// Records a step still to do, at the end of the log.
    pub fn add_pending(&mut self, step: impl Into<String>) {
        self.progress.push(Step::new(StepStatus::Pending, step));
    }

    /// The completed steps, in order.
    pub fn completed_steps(&self) -> impl Iterator<Item = &str> + '_ {
        self.steps_with(StepStatus::Completed)
    }

    /// The in-progress steps, in order.
    pub fn in_progress_steps(&self) -> impl Iterator<Item = &str> + '_ {
        self.steps_with(StepStatus::InProgress)
    }

    /// The pending steps, in order.
    pub fn pending_steps(&self) -> impl Iterator<Item = &str> + '_ {
        self.steps_with(StepStatus::Pending)
    }

    fn steps_with(&self, status: StepStatus) -> impl Iterator<Item = &str> + '_ {
        self.progress
            .iter()
            .filter(move |s| s.status == status)
            .map(|s| s.text.as_str())
    }

    /// Records a key decision and its reason. Beyond [`MAX_DECISIONS`](Self::MAX_DECISIONS)
    /// the oldest are folded into the context.
    pub fn add_decision(&mut self, decision: impl Into<String>, reason: impl Into<String>) {
        self.decisions.push(Decision {
            decision: decision.into(),
            reason: reason.into(),
        });
        self.enforce_limits();
    }

    /// Records a changed file. A path already listed is moved to the end with the new
    /// description. Beyond [`MAX_FILES`](Self::MAX_FILES) the oldest are folded into the context.
    pub fn add_file_changed(&mut self, path: impl Into<String>, description: impl Into<String>) {
        let path = path.into();
        self.files_changed.retain(|f| f.path != path);
        self.files_changed.push(FileChange {
            path,
            description: description.into(),
        });
        self.enforce_limits();
    }

    /// Folds entries past the limits into the context as summary lines (`Earlier decisions:
    /// a (why); b (why)`), oldest first, appending to an existing summary line of the same
    /// kind. Returns how many entries were folded. Nothing is dropped.
    pub fn enforce_limits(&mut self) -> usize {
        let mut folded = 0;
        let completed = self.completed_steps().count();
        if completed > Self::MAX_COMPLETED {
            let mut excess = completed - Self::MAX_COMPLETED;
            let mut old = Vec::new();
            self.progress.retain(|s| {
                if excess > 0 && s.status == StepStatus::Completed {
                    excess -= 1;
                    old.push(one_line(&s.text));
                    false
                } else {
                    true
                }
            });
            folded += old.len();
            self.fold("Earlier completed steps: ", &old);
        }
        if self.decisions.len() > Self::MAX_DECISIONS {
            let excess = self.decisions.len() - Self::MAX_DECISIONS;
            let old: Vec<String> = self
                .decisions
                .drain(..excess)
                .map(|d| with_reason(&d.decision, &d.reason))
                .collect();
            folded += old.len();
            self.fold("Earlier decisions: ", &old);
        }
        if self.files_changed.len() > Self::MAX_FILES {
            let excess = self.files_changed.len() - Self::MAX_FILES;
            let old: Vec<String> = self
                .files_changed
                .drain(..excess)
                .map(|f| with_reason(&f.path, &f.description))
                .collect();
            folded += old.len();
            self.fold("Earlier files changed: ", &old);
        }
        folded
    }

    fn fold(&mut self, prefix: &str, items: &[String]) {
        if items.is_empty() {
            return;
        }
        let joined = items.join("; ");
        // Append to the last existing summary line of this kind, if any.
        let mut offset = 0;
        let mut found = None;
        for line in self.context.split_inclusive('\n') {
            if line.starts_with(prefix) {
                found = Some(offset + line.trim_end_matches(['\n', '\r']).len());
            }
            offset += line.len();
        }
        match found {
            Some(end) => self.context.insert_str(end, &format!("; {joined}")),
            None => {
                if !self.context.is_empty() && !self.context.ends_with('\n') {
                    self.context.push('\n');
                }
                self.context.push_str(prefix);
                self.context.push_str(&joined);
            }
        }
    }

    /// Problems [`parse`](Self::parse) worked around (duplicates, missing parts).
    pub fn warnings(&self) -> &[ParseWarning] {
        &self.layout.warnings
    }

    /// The text kept verbatim because it was not understood (unknown header lines,
    /// hand-added sections, non-entry lines in list sections), in file order.
    pub fn kept_text(&self) -> impl Iterator<Item = &str> + '_ {
        self.layout.blocks.iter().flat_map(|b| {
            let (raw, extras) = match b {
                Block::Raw(t) | Block::SetextRaw(t) => (Some(t.as_str()), &[][..]),
                Block::Section(s) => (None, &s.extras[..]),
                _ => (None, &[][..]),
            };
            let extras = extras
                .iter()
                .filter(|e| !e.placeholder)
                .map(|e| e.raw.as_str());
            raw.into_iter().chain(extras).filter(|t| !is_blank(t))
        })
    }

    /// Adds the verbatim text of `other` (from the file on disk) that `self` lacks: header
    /// lines go at the end of the header area, sections at the end. Used by writes so that a
    /// value built from scratch never erases what a person added to the file.
    pub(crate) fn keep_unknown_from(&mut self, other: &Notes) {
        let mut mine: Vec<String> = self.kept_text().map(str::to_string).collect();
        let mut header_at = self
            .layout
            .blocks
            .iter()
            .position(|b| matches!(b, Block::Section(_)))
            .unwrap_or(self.layout.blocks.len());
        let mut in_header = true;
        for block in &other.layout.blocks {
            let text = match block {
                Block::Section(_) => {
                    in_header = false;
                    continue;
                }
                Block::Raw(t) | Block::SetextRaw(t) => t,
                _ => continue,
            };
            if is_blank(text) || mine.iter().any(|m| m == text) {
                continue;
            }
            mine.push(text.clone());
            if in_header {
                self.layout
                    .blocks
                    .insert(header_at, Block::Raw(text.clone()));
                header_at += 1;
            } else {
                self.layout.blocks.push(Block::Raw(text.clone()));
            }
        }
    }

    /// Formats the notes and checks that the text parses back to an equal value: what every
    /// write uses, so a file is never written in a form that would read back differently.
    /// The error names the first line where the two differ.
    pub fn format_checked(&self) -> Result<String, Error> {
        let text = self.format();
        match Notes::parse(&text) {
            Ok(back) if back == *self => Ok(text),
            Ok(back) => {
                let theirs = back.format();
                let line = 1 + text
                    .lines()
                    .zip(theirs.lines())
                    .take_while(|(a, b)| a == b)
                    .count();
                Err(Error::parse(
                    line,
                    "these notes would not read back as written (kept hand-written text \
                     interferes with the entries); nothing was written: tidy the file by hand",
                ))
            }
            Err(e) => Err(e),
        }
    }

    /// Formats the notes as `GOBLIN_NOTES.md` text (see [escaping](Notes#escaping)).
    pub fn format(&self) -> String {
        let mut out = String::with_capacity(1024);
        for block in &self.layout.blocks {
            if !out.is_empty() && !out.ends_with(['\n', '\r']) {
                out.push('\n');
            }
            match block {
                Block::Raw(t) | Block::Title(t) => out.push_str(t),
                Block::SetextRaw(t) => {
                    if !out.is_empty() && !ends_with_blank_line(&out) {
                        out.push('\n');
                    }
                    out.push_str(t);
                }
                Block::Header(slot) => self.format_header(*slot, &mut out),
                Block::Section(s) => self.format_section(s, &mut out),
            }
        }
        out
    }

    fn format_header(&self, slot: Slot, out: &mut String) {
        out.push_str(slot.heading());
        out.push_str(": ");
        match slot {
            Slot::Issue => escape_line(&self.issue, false, out),
            Slot::Stage => out.push_str(self.stage.as_str()),
            _ => match &self.layout.last_updated_raw {
                Some((raw, value)) if *value == self.last_updated => out.push_str(raw),
                _ => out.push_str(&format_utc(&self.last_updated)),
            },
        }
        out.push('\n');
    }

    fn format_section(&self, s: &SectionLayout, out: &mut String) {
        out.push_str(&s.heading);
        out.push_str(&s.lead);
        match s.slot {
            Slot::Objective => encode_text(&self.current_objective, out),
            Slot::Context => encode_text(&self.context, out),
            _ => {
                self.format_entries(s, out);
            }
        }
        out.push_str(&s.trail);
    }

    fn format_entries(&self, s: &SectionLayout, out: &mut String) {
        let lines: Vec<String> = match s.slot {
            Slot::Progress => self
                .progress
                .iter()
                .map(|e| entry_line(e, format_step))
                .collect(),
            Slot::Decisions => self
                .decisions
                .iter()
                .map(|e| entry_line(e, format_decision))
                .collect(),
            _ => self
                .files_changed
                .iter()
                .map(|e| entry_line(e, format_file))
                .collect(),
        };
        let has_placeholder = s.extras.iter().any(|e| e.placeholder);
        if lines.is_empty() && s.placeholder && !has_placeholder {
            out.push_str(NONE_YET);
            out.push('\n');
        }
        // Extras keep their relative order: one is written after its entry once all extras
        // before it are written; those whose entry is gone go with the next one or at the end.
        let mut next = 0;
        let flush_to = |end: usize, next: &mut usize, out: &mut String| {
            while *next < end {
                let e = &s.extras[*next];
                if !e.placeholder || lines.is_empty() {
                    out.push_str(&e.raw);
                }
                *next += 1;
            }
        };
        let leading = s.extras.iter().take_while(|e| e.anchor.is_none()).count();
        flush_to(leading, &mut next, out);
        let mut seen: Vec<&str> = Vec::with_capacity(lines.len());
        for line in &lines {
            let occurrence = seen.iter().filter(|l| **l == line.as_str()).count();
            seen.push(line);
            out.push_str(line);
            out.push('\n');
            let attached = s.extras[next..]
                .iter()
                .position(|e| {
                    e.anchor
                        .as_ref()
                        .is_some_and(|(l, n)| l == line && *n == occurrence)
                })
                .map(|i| i + next);
            if let Some(mut i) = attached {
                while s
                    .extras
                    .get(i + 1)
                    .is_some_and(|e| e.anchor == s.extras[i].anchor)
                {
                    i += 1;
                }
                flush_to(i + 1, &mut next, out);
            }
        }
        flush_to(s.extras.len(), &mut next, out);
    }

    /// Parses `GOBLIN_NOTES.md` text.
    ///
    /// Reading is lenient: missing headers or sections get defaults (empty text, stage SCOPE,
    /// Last Updated at the Unix epoch) and are added when formatting; a repeated header or
    /// section is kept verbatim as unknown text; see [`warnings`](Self::warnings). It fails,
    /// naming the line, only when a `Stage:` or `Last Updated:` value cannot be understood or
    /// when the text has nothing of a notes file at all.
    pub fn parse(text: &str) -> Result<Notes, Error> {
        Parser::new(text).run()
    }
}

impl fmt::Display for Notes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.format())
    }
}

impl std::str::FromStr for Notes {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Notes::parse(s)
    }
}

fn entry_line<E>(entry: &E, format: fn(&E, &mut String)) -> String {
    let mut line = String::with_capacity(64);
    format(entry, &mut line);
    line
}

fn format_step(step: &Step, out: &mut String) {
    out.push_str(match step.status {
        StepStatus::Completed => "- [x] Completed: ",
        StepStatus::InProgress => "- [ ] In Progress: ",
        StepStatus::Pending => "- [ ] Pending: ",
    });
    escape_line(&step.text, false, out);
}

fn format_decision(d: &Decision, out: &mut String) {
    out.push_str("- ");
    escape_line(&d.decision, true, out);
    if !d.reason.is_empty() {
        out.push_str(": ");
        escape_line(&d.reason, false, out);
    }
}

fn format_file(f: &FileChange, out: &mut String) {
    out.push_str("- ");
    code_span(&f.path, out);
    if !f.description.is_empty() {
        out.push_str(" - ");
        escape_line(&f.description, false, out);
    }
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

fn with_reason(what: &str, why: &str) -> String {
    if why.is_empty() {
        one_line(what)
    } else {
        format!("{} ({})", one_line(what), one_line(why))
    }
}

struct Parser<'a> {
    text: &'a str,
    notes: Notes,
    seen: Vec<Slot>,
    /// Check that added headers and sections read back (off for that check itself).
    verify: bool,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        let mut notes = Notes::new("", Stage::Scope, "", DateTime::<Utc>::UNIX_EPOCH);
        notes.layout.blocks.clear();
        Parser {
            text,
            notes,
            seen: Vec::new(),
            verify: true,
        }
    }

    fn line_of(&self, offset: usize) -> usize {
        1 + self.text.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    fn warn(&mut self, offset: usize, message: String) {
        let line = self.line_of(offset);
        self.notes
            .layout
            .warnings
            .push(ParseWarning { line, message });
    }

    fn push_raw(&mut self, text: &str) {
        if let Some(t) = terminated_line(text) {
            self.notes.layout.blocks.push(Block::Raw(t));
        }
    }

    fn push_raw_section(&mut self, doc: &Document, i: usize) {
        let setext = strip_eol(doc.section_heading(i)).contains(['\n', '\r']);
        if let Some(t) = terminated_line(doc.section_text(i)) {
            self.notes.layout.blocks.push(if setext {
                Block::SetextRaw(t)
            } else {
                Block::Raw(t)
            });
        }
    }

    fn run(mut self) -> Result<Notes, Error> {
        let doc = Document::parse(self.text);
        if let Some(fm) = doc.frontmatter_range() {
            self.push_raw(&self.text[fm]);
        }
        let pre = doc.preamble_range();
        self.header_lines(pre.start, &self.text[pre.clone()])?;
        for (i, sec) in doc.sections().iter().enumerate() {
            let start = sec.heading_range.start;
            let known = if i == 0 && sec.level == 1 {
                Some(Slot::Title)
            } else if sec.level == 2 {
                Slot::section_for(&sec.heading)
            } else {
                None
            };
            match known {
                Some(slot) if self.seen.contains(&slot) => {
                    self.warn(
                        start,
                        format!("repeated section {:?} kept as is", sec.heading),
                    );
                    self.push_raw_section(&doc, i);
                }
                Some(Slot::Title) => {
                    self.seen.push(Slot::Title);
                    let mut heading = doc.section_heading(i).to_string();
                    if !heading.ends_with(['\n', '\r']) {
                        heading.push('\n');
                    }
                    self.notes.layout.blocks.push(Block::Title(heading));
                    self.header_lines(sec.body_range.start, doc.section_body(i))?;
                }
                Some(slot) => {
                    self.seen.push(slot);
                    self.section(slot, doc.section_heading(i), doc.section_body(i));
                }
                None => self.push_raw_section(&doc, i),
            }
        }
        if self.seen.is_empty() {
            return Err(Error::parse(
                1,
                "not a GOBLIN_NOTES file: no `# GOBLIN_NOTES` title, `Issue:`/`Stage:` line or \
                 known section; restore it from a backup or create the notes anew",
            ));
        }
        if self.insert_missing() && self.verify {
            // Text added after damaged markdown (an unclosed code fence, say) could be
            // swallowed by it; refuse rather than write something that reads back differently.
            let formatted = self.notes.format();
            let again = Parser {
                text: &formatted,
                notes: Parser::new("").notes,
                seen: Vec::new(),
                verify: false,
            }
            .run();
            if again.ok().as_ref() != Some(&self.notes) {
                let line = self.line_of(self.text.len());
                return Err(Error::parse(
                    line,
                    "the file looks truncated or damaged and its missing sections cannot be \
                     added safely; restore them by hand (the file was left untouched)",
                ));
            }
        }
        Ok(self.notes)
    }

    /// Header lines (`Issue:`, `Stage:`, `Last Updated:`) and anything else, kept in place.
    fn header_lines(&mut self, base: usize, body: &str) -> Result<(), Error> {
        let mut offset = base;
        for line in split_lines(body) {
            let at = offset;
            offset += line.len();
            let content = strip_eol(line);
            let slot = content
                .split_once(':')
                .and_then(|(key, _)| Slot::header_for(key));
            let Some(slot) = slot else {
                self.push_raw(line);
                continue;
            };
            if self.seen.contains(&slot) {
                self.warn(
                    at,
                    format!("repeated `{}:` line kept as is", slot.heading()),
                );
                self.push_raw(line);
                continue;
            }
            let value = content.split_once(':').map_or("", |(_, v)| v);
            let value = value.strip_prefix(' ').unwrap_or(value);
            match slot {
                Slot::Issue => self.notes.issue = unescape(value),
                Slot::Stage => {
                    self.notes.stage = value.parse().map_err(|e| {
                        Error::parse(
                            self.line_of(at),
                            format!("{e}; fix the `Stage:` line (the file was left untouched)"),
                        )
                    })?;
                }
                _ => {
                    let t = parse_utc(value).map_err(|e| {
                        Error::parse(
                            self.line_of(at),
                            format!(
                                "{e}; fix the `Last Updated:` line (the file was left untouched)"
                            ),
                        )
                    })?;
                    self.notes.last_updated = t;
                    self.notes.layout.last_updated_raw = Some((value.trim().to_string(), t));
                }
            }
            self.seen.push(slot);
            self.notes.layout.blocks.push(Block::Header(slot));
        }
        Ok(())
    }

    fn section(&mut self, slot: Slot, heading: &str, body: &str) {
        let mut heading = heading.to_string();
        if !heading.ends_with(['\n', '\r']) {
            heading.push('\n');
        }
        let lines: Vec<&str> = split_lines(body).collect();
        let first = lines
            .iter()
            .position(|l| !is_blank(l))
            .unwrap_or(lines.len());
        let last = lines
            .iter()
            .rposition(|l| !is_blank(l))
            .map_or(first, |i| i + 1);
        let (lead, trail) = if first == lines.len() {
            (String::new(), lines.concat())
        } else {
            (lines[..first].concat(), lines[last..].concat())
        };
        let content = &lines[first..last];
        let mut layout = SectionLayout {
            slot,
            heading,
            lead,
            trail,
            extras: Vec::new(),
            placeholder: false,
        };
        let mut anchor: Option<(String, usize)> = None;
        let mut seen: Vec<String> = Vec::new();
        match slot {
            Slot::Objective | Slot::Context => {
                let mut joined = content.concat();
                strip_one_eol(&mut joined);
                let text = decode_text(&joined);
                if slot == Slot::Objective {
                    self.notes.current_objective = text;
                } else {
                    self.notes.context = text;
                }
            }
            _ => {
                for line in content {
                    let c = strip_eol(line);
                    let entry = if is_blank(c) || c.trim() == NONE_YET {
                        None
                    } else {
                        match slot {
                            Slot::Progress => parse_step(c).map(|e| {
                                let line = entry_line(&e, format_step);
                                self.notes.progress.push(e);
                                line
                            }),
                            Slot::Decisions => parse_decision(c).map(|e| {
                                let line = entry_line(&e, format_decision);
                                self.notes.decisions.push(e);
                                line
                            }),
                            _ => parse_file(c).map(|e| {
                                let line = entry_line(&e, format_file);
                                self.notes.files_changed.push(e);
                                line
                            }),
                        }
                    };
                    if let Some(line) = entry {
                        let occurrence = seen.iter().filter(|l| **l == line).count();
                        seen.push(line.clone());
                        anchor = Some((line, occurrence));
                        continue;
                    }
                    let mut raw = line.to_string();
                    if !raw.ends_with(['\n', '\r']) {
                        raw.push('\n');
                    }
                    let placeholder = c.trim() == NONE_YET;
                    match layout.extras.last_mut() {
                        Some(e) if e.anchor == anchor && !placeholder && !e.placeholder => {
                            e.raw.push_str(&raw);
                        }
                        _ => layout.extras.push(Extra {
                            anchor: anchor.clone(),
                            raw,
                            placeholder,
                        }),
                    }
                }
            }
        }
        debug_assert!(slot.is_list() || layout.extras.is_empty());
        self.notes.layout.blocks.push(Block::Section(layout));
    }

    /// Adds the headers and sections the text lacked, at their usual place.
    fn insert_missing(&mut self) -> bool {
        let mut inserted = false;
        let blocks = &mut self.notes.layout.blocks;
        let slot_of = |b: &Block| match b {
            Block::Title(_) => Some(Slot::Title),
            Block::Header(s) => Some(*s),
            Block::Section(s) => Some(s.slot),
            Block::Raw(_) | Block::SetextRaw(_) => None,
        };
        for slot in Slot::ALL {
            if slot == Slot::Title || self.seen.contains(&slot) {
                continue;
            }
            let after = blocks
                .iter()
                .rposition(|b| slot_of(b).is_some_and(|s| s < slot));
            let at = match after {
                // A new section goes after the raw lines that follow its predecessor (they
                // belong to the header area or are hand-added sections); a header goes
                // right after the previous header.
                Some(i) if slot.is_section() => {
                    let mut j = i + 1;
                    while matches!(blocks.get(j), Some(Block::Raw(_) | Block::SetextRaw(_))) {
                        j += 1;
                    }
                    j
                }
                Some(i) => i + 1,
                None => blocks
                    .iter()
                    .position(|b| slot_of(b).is_some_and(|s| s > slot))
                    .unwrap_or(blocks.len()),
            };
            let block = if slot.is_section() {
                Block::Section(SectionLayout::canonical(slot))
            } else {
                Block::Header(slot)
            };
            blocks.insert(at, block);
            // Keep header lines from running into a raw line after them (`---` would turn
            // them into a setext heading).
            if !slot.is_section()
                && matches!(blocks.get(at + 1), Some(Block::Raw(t)) if !is_blank(t))
            {
                blocks.insert(at + 1, Block::Raw("\n".to_string()));
            }
            inserted = true;
            self.notes.layout.warnings.push(ParseWarning {
                line: 1,
                message: format!("no `{}` found; it will be added", slot.heading()),
            });
        }
        inserted
    }
}

/// Lines with their endings (`\n`, `\r\n` or a lone `\r`, as markdown counts them).
fn split_lines(text: &str) -> impl Iterator<Item = &str> + '_ {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let mut i = start;
        while i < bytes.len() && bytes[i] != b'\n' && bytes[i] != b'\r' {
            i += 1;
        }
        if i < bytes.len() {
            i += if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
        }
        let line = &text[start..i];
        start = i;
        Some(line)
    })
}

fn terminated_line(text: &str) -> Option<String> {
    if text.is_empty() {
        return None;
    }
    let mut t = text.to_string();
    if !t.ends_with(['\n', '\r']) {
        t.push('\n');
    }
    Some(t)
}

/// True when the last line of `out` (which ends with a line ending) is blank.
fn ends_with_blank_line(out: &str) -> bool {
    let body = strip_eol(out);
    if body.len() == out.len() {
        return false;
    }
    let last_start = body.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    is_blank(&body[last_start..])
}

fn strip_eol(line: &str) -> &str {
    line.strip_suffix("\r\n")
        .or_else(|| line.strip_suffix('\n'))
        .or_else(|| line.strip_suffix('\r'))
        .unwrap_or(line)
}

fn strip_one_eol(s: &mut String) {
    let len = strip_eol(s).len();
    s.truncate(len);
}

fn is_blank(line: &str) -> bool {
    line.chars().all(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
}

/// Escapes a single-line value: `\` `\n` `\r`, and `: ` too when `colon` is set.
fn escape_line(s: &str, colon: bool, out: &mut String) {
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            ':' if colon && chars.peek() == Some(&' ') => out.push_str("\\:"),
            c => out.push(c),
        }
    }
}

/// Undoes [`escape_line`]; an unknown escape such as `\p` is kept as written.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(':') => out.push(':'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Splits `s` at its first unescaped `: `.
fn split_unescaped_colon(s: &str) -> Option<(&str, &str)> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b':' if bytes.get(i + 1) == Some(&b' ') => return Some((&s[..i], &s[i + 2..])),
            _ => i += 1,
        }
    }
    None
}

fn list_item(line: &str) -> Option<&str> {
    line.strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .or(match line {
            "-" | "*" => Some(""),
            _ => None,
        })
}

fn strip_label<'s>(s: &'s str, label: &str) -> Option<&'s str> {
    let head = s.get(..label.len())?;
    if !head.eq_ignore_ascii_case(label) {
        return None;
    }
    let rest = &s[label.len()..];
    Some(rest.strip_prefix(' ').unwrap_or(rest))
}

fn parse_step(line: &str) -> Option<Step> {
    let item = list_item(line)?;
    let (done, rest) = if let Some(r) = item.strip_prefix("[x]").or(item.strip_prefix("[X]")) {
        (true, r)
    } else {
        (false, item.strip_prefix("[ ]")?)
    };
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    let (status, text) = if done {
        (
            StepStatus::Completed,
            strip_label(rest, "Completed:").unwrap_or(rest),
        )
    } else if let Some(t) = strip_label(rest, "In Progress:") {
        (StepStatus::InProgress, t)
    } else {
        (
            StepStatus::Pending,
            strip_label(rest, "Pending:").unwrap_or(rest),
        )
    };
    Some(Step::new(status, unescape(text)))
}

fn parse_decision(line: &str) -> Option<Decision> {
    let item = list_item(line)?;
    let (decision, reason) = split_unescaped_colon(item).unwrap_or((item, ""));
    Some(Decision {
        decision: unescape(decision),
        reason: unescape(reason),
    })
}

fn parse_file(line: &str) -> Option<FileChange> {
    let item = list_item(line)?;
    let (path, rest) = match item.find(|c| c != '`') {
        Some(n) if n > 0 => {
            let after = &item[n..];
            let close = find_backtick_run(after, n)?;
            let mut path = &after[..close];
            if path.len() >= 2 && path.starts_with(' ') && path.ends_with(' ') {
                path = &path[1..path.len() - 1];
            }
            (unescape(path), &after[close + n..])
        }
        _ => {
            // Lenient: a path without backticks.
            let (p, d) = item.split_once(" - ").unwrap_or((item, ""));
            return Some(FileChange {
                path: unescape(p.trim()),
                description: unescape(d),
            });
        }
    };
    let description = rest.strip_prefix(" - ").unwrap_or_else(|| {
        rest.trim_start_matches([' ', '-', '—', '–', ':'])
            .trim_start()
    });
    Some(FileChange {
        path,
        description: unescape(description),
    })
}

/// Byte index of the first run of exactly `n` backticks in `s`.
fn find_backtick_run(s: &str, n: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let start = i;
            while i < bytes.len() && bytes[i] == b'`' {
                i += 1;
            }
            if i - start == n {
                return Some(start);
            }
        } else {
            i += 1;
        }
    }
    None
}

fn code_span(path: &str, out: &mut String) {
    let mut escaped = String::with_capacity(path.len());
    escape_line(path, false, &mut escaped);
    let mut longest = 0;
    let mut run = 0;
    for c in escaped.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad =
        escaped.is_empty() || escaped.starts_with(['`', ' ']) || escaped.ends_with(['`', ' ']);
    out.push_str(&fence);
    if pad {
        out.push(' ');
    }
    out.push_str(&escaped);
    if pad {
        out.push(' ');
    }
    out.push_str(&fence);
}

/// True when a free-text line needs a `\` after its indentation (see [`Notes`], Escaping).
fn needs_escape(rest: &str, at_edge: bool) -> bool {
    if rest.is_empty() {
        return at_edge;
    }
    rest.starts_with(['#', '=', '`', '~', '<', '\\'])
        || (rest.starts_with('-') && rest.chars().all(|c| matches!(c, '-' | ' ' | '\t')))
}

/// Writes multi-line text followed by a line ending (nothing at all for empty text).
fn encode_text(text: &str, out: &mut String) {
    if text.is_empty() {
        return;
    }
    let lines: Vec<&str> = split_lines(text).collect();
    // A text ending in a line break has an empty last line after it.
    let trailing_empty = text.ends_with(['\n', '\r']);
    let count = lines.len() + usize::from(trailing_empty);
    for (i, line) in lines.iter().enumerate() {
        let content = strip_eol(line);
        let eol = &line[content.len()..];
        let rest = content.trim_start_matches([' ', '\t']);
        let indent = &content[..content.len() - rest.len()];
        out.push_str(indent);
        if needs_escape(rest, i == 0 || i + 1 == count) {
            out.push('\\');
        }
        out.push_str(rest);
        out.push_str(eol);
    }
    if trailing_empty {
        out.push('\\');
    }
    out.push('\n');
}

/// Undoes [`encode_text`] (after the final line ending was removed).
fn decode_text(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    for line in split_lines(encoded) {
        let rest = line.trim_start_matches([' ', '\t']);
        let indent = &line[..line.len() - rest.len()];
        out.push_str(indent);
        out.push_str(rest.strip_prefix('\\').unwrap_or(rest));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t0() -> DateTime<Utc> {
        parse_utc("2024-01-15T10:00:00Z").expect("valid")
    }

    #[test]
    fn single_line_escapes_round_trip() {
        let cases = [
            "",
            "plain",
            "a\\b",
            "line\nbreak",
            "cr\rhere",
            "a: b",
            "\\n literal",
            "x:",
        ];
        for s in cases {
            let mut e = String::new();
            escape_line(s, false, &mut e);
            assert!(!e.contains(['\n', '\r']), "{s:?}");
            assert_eq!(unescape(&e), s, "{s:?}");
        }
        assert_eq!(unescape("C:\\path"), "C:\\path", "unknown escapes are kept");
    }

    #[test]
    fn free_text_escapes_round_trip() {
        let cases = [
            ("plain\ntext", "plain\ntext\n"),
            ("# not a heading", "\\# not a heading\n"),
            ("a\n---", "a\n\\---\n"),
            ("- list item", "- list item\n"),
            ("```\ncode", "\\```\ncode\n"),
            ("\nlead", "\\\nlead\n"),
            ("trail\n", "trail\n\\\n"),
            ("  \\x", "  \\\\x\n"),
            ("a\rb", "a\rb\n"),
            ("", ""),
        ];
        for (text, want) in cases {
            let mut out = String::new();
            encode_text(text, &mut out);
            assert_eq!(out, want, "{text:?}");
            let mut back = out.clone();
            strip_one_eol(&mut back);
            assert_eq!(decode_text(&back), text, "{text:?}");
        }
    }

    #[test]
    fn entries_parse_leniently() {
        let steps = [
            ("- [x] Completed: a", Some((StepStatus::Completed, "a"))),
            (
                "- [X] done thing",
                Some((StepStatus::Completed, "done thing")),
            ),
            ("- [ ] In progress: b", Some((StepStatus::InProgress, "b"))),
            ("- [ ] Pending: c", Some((StepStatus::Pending, "c"))),
            ("- [ ] d", Some((StepStatus::Pending, "d"))),
            ("- [x] Completed:", Some((StepStatus::Completed, ""))),
            ("plain line", None),
        ];
        for (line, want) in steps {
            let got = parse_step(line);
            assert_eq!(
                got.as_ref().map(|s| (s.status, s.text.as_str())),
                want,
                "{line}"
            );
        }
        let files = [
            ("- `src/a.rs` - A", ("src/a.rs", "A")),
            ("- ``a`b`` - x", ("a`b", "x")),
            ("- `` `a `` - x", ("`a", "x")),
            ("- `  ` - empty", ("", "empty")),
            ("- `p`", ("p", "")),
            ("- `p`: colon", ("p", "colon")),
            ("- src/b.rs - no ticks", ("src/b.rs", "no ticks")),
        ];
        for (line, (path, desc)) in files {
            let f = parse_file(line).expect("an entry");
            assert_eq!(
                (f.path.as_str(), f.description.as_str()),
                (path, desc),
                "{line}"
            );
        }
        let d = parse_decision("- a\\: b: c: d").expect("an entry");
        assert_eq!((d.decision.as_str(), d.reason.as_str()), ("a: b", "c: d"));
    }

    #[test]
    fn limits_fold_into_context() {
        let mut n = Notes::new("X-1", Stage::Build, "obj", t0());
        n.set_context("Keep this.");
        for i in 0..7 {
            n.add_decision(format!("d{i}"), format!("r{i}"));
            n.add_completed_step(format!("s{i}"));
        }
        for i in 0..12 {
            n.add_file_changed(format!("f{i}.rs"), "");
        }
        assert_eq!(n.decisions.len(), 5);
        assert_eq!(n.completed_steps().count(), 5);
        assert_eq!(n.files_changed.len(), 10);
        assert_eq!(
            n.context,
            "Keep this.\nEarlier decisions: d0 (r0); d1 (r1)\nEarlier completed steps: s0; s1\n\
             Earlier files changed: f0.rs; f1.rs"
        );
        assert_eq!(n.enforce_limits(), 0);
    }

    #[test]
    fn completing_a_step_moves_it() {
        let mut n = Notes::new("X-1", Stage::Build, "obj", t0());
        n.add_pending("write tests");
        n.add_in_progress("write code");
        n.add_completed_step("write code");
        n.add_in_progress("write tests");
        let got: Vec<_> = n
            .progress
            .iter()
            .map(|s| (s.status, s.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (StepStatus::Completed, "write code"),
                (StepStatus::InProgress, "write tests")
            ]
        );
    }

    #[test]
    fn parse_errors_name_the_line() {
        let cases = [
            ("# GOBLIN_NOTES\nIssue: A\nStage: SHIP\n", 3, "SHIP"),
            (
                "# GOBLIN_NOTES\nIssue: A\nStage: BUILD\nLast Updated: 2024-01-1",
                4,
                "Last Updated",
            ),
            ("", 1, "not a GOBLIN_NOTES"),
            ("just some text\n", 1, "not a GOBLIN_NOTES"),
        ];
        for (text, line, msg) in cases {
            let e = Notes::parse(text).expect_err(text);
            assert_eq!(e.line(), Some(line), "{text:?}");
            assert!(e.to_string().contains(msg), "{e}");
        }
    }

    #[test]
    fn canonical_new_notes() {
        let n = Notes::new("ENG-1", Stage::Scope, "Plan", t0());
        assert_eq!(
            n.format(),
            "# GOBLIN_NOTES\nIssue: ENG-1\nStage: SCOPE\nLast Updated: 2024-01-15T10:00:00.000Z\n\
             ## Current Objective\nPlan\n## Progress Log\n(None yet)\n## Key Decisions\n\
             (None yet)\n## Files Changed\n(None yet)\n## Context for Next Session\n"
        );
    }
}
