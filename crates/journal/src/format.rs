//! The `JOURNAL.md` format: a line classifier, the lossless document model and the formatters
//! of new blocks.
//!
//! The format is line based. Every line is classified in the context of the line before it
//! (an `Intent:` line only counts right after a session header, a `Rationale:` line only inside
//! a mutation declaration, an indented line only right after an entry); anything else is free
//! text. A [`Document`] keeps every line's exact bytes, so formatting it gives back the input
//! byte for byte, whatever a person wrote by hand.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use serde::Serialize;

use crate::error::Error;
use crate::mutation::MutationCode;

/// The kind of a journal entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum EntryKind {
    /// `Decision: …`
    Decision,
    /// `Found: …` (also read: `Finding: …`)
    Finding,
    /// `❌ Failed: …` or `❌ Failed [approach]: …`
    Failed,
    /// `✅ …` or `✅ Worked [approach]: …`
    Working,
    /// `→ …`
    Lesson,
    /// `Current state: …`
    State,
    /// `Note: …`
    Note,
}

impl EntryKind {
    /// The lowercase name: `decision`, `finding`, `failed`, `working`, `lesson`, `state`, `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Decision => "decision",
            EntryKind::Finding => "finding",
            EntryKind::Failed => "failed",
            EntryKind::Working => "working",
            EntryKind::Lesson => "lesson",
            EntryKind::State => "state",
            EntryKind::Note => "note",
        }
    }
}

impl fmt::Display for EntryKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kinds of entry [`Journal::log`](crate::Journal::log) writes. Failures and successes
/// go through [`Journal::fail`](crate::Journal::fail) and
/// [`Journal::succeed`](crate::Journal::succeed), which apply the mutation protocol.
///
/// [`FromStr`] accepts `decision`, `finding` (or `found`), `lesson`, `state`, `note`, in any
/// case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LogKind {
    /// A decision that changes direction: `Decision: …`.
    Decision,
    /// An unexpected finding: `Found: …`.
    Finding,
    /// A lesson drawn from what happened: `→ …`.
    Lesson,
    /// Where the work stands: `Current state: …`.
    State,
    /// Anything else worth keeping: `Note: …`.
    Note,
}

impl LogKind {
    /// All kinds, in the order of the CLI's help.
    pub const ALL: [LogKind; 5] = [
        LogKind::Decision,
        LogKind::Finding,
        LogKind::Lesson,
        LogKind::State,
        LogKind::Note,
    ];

    /// The entry kind this writes.
    pub fn entry_kind(self) -> EntryKind {
        match self {
            LogKind::Decision => EntryKind::Decision,
            LogKind::Finding => EntryKind::Finding,
            LogKind::Lesson => EntryKind::Lesson,
            LogKind::State => EntryKind::State,
            LogKind::Note => EntryKind::Note,
        }
    }
}

impl fmt::Display for LogKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.entry_kind().as_str())
    }
}

impl FromStr for LogKind {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "decision" => Ok(LogKind::Decision),
            "finding" | "found" => Ok(LogKind::Finding),
            "lesson" => Ok(LogKind::Lesson),
            "state" => Ok(LogKind::State),
            "note" => Ok(LogKind::Note),
            "failed" | "fail" | "working" | "ok" => Err(Error::invalid(format!(
                "{s:?} is not logged directly: record it as a failure or a success of an \
                 approach, which track failure streaks"
            ))),
            _ => Err(Error::invalid(format!(
                "unknown entry kind {s:?}: use decision, finding, lesson, state or note"
            ))),
        }
    }
}

/// A session header with its `Intent:` and `Approach:` lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Session {
    /// When the session started (`## YYYY-MM-DD HH:MM`, read as UTC).
    pub started: DateTime<Utc>,
    /// The title after the dash; empty when there is none.
    pub title: String,
    /// The `Intent:` line, when present.
    pub intent: Option<String>,
    /// The `Approach:` line, when present.
    pub approach: Option<String>,
    /// The 1-based line of the header.
    pub line: usize,
}

/// A mutation declaration: `## MUTATION: M5 (Reduce Scope)` and its three lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Mutation {
    /// The strategy.
    pub code: MutationCode,
    /// N in `Failed Nx on:`, when given.
    pub failed_count: Option<u32>,
    /// What failed (`Failed 3x on: …`): the approach the declaration leaves.
    pub failed_on: Option<String>,
    /// The new approach (`Switching to: …`).
    pub switching_to: Option<String>,
    /// Why (`Rationale: …`).
    pub rationale: Option<String>,
}

/// One entry: its kind, the approach it names, its text and any continuation lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Entry {
    /// What kind of entry.
    pub kind: EntryKind,
    /// The approach named in brackets (`❌ Failed [approach]: …`, `✅ Worked [approach]: …`);
    /// `None` for the plain forms, which belong to the approach in force.
    pub approach: Option<String>,
    /// The text of the first line, without its marker.
    pub text: String,
    /// The indented lines that follow (the protocol allows one).
    pub continuation: Vec<String>,
}

/// What one [`Item`] of a [`Document`] is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum ItemKind {
    /// `# JOURNAL — {task}`.
    Title {
        /// The task's name.
        task: String,
    },
    /// A session header and its `Intent:` / `Approach:` lines.
    Session(Session),
    /// A mutation declaration and its lines.
    Mutation(Mutation),
    /// An entry and its continuation lines.
    Entry(Entry),
    /// An empty or whitespace-only line.
    Blank,
    /// Any other line, kept as written (hand-written text, other headings).
    Text(String),
}

/// One block of a [`Document`]: its kind, its exact text and its first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    line: usize,
    raw: String,
    kind: ItemKind,
}

impl Item {
    /// What the block is.
    pub fn kind(&self) -> &ItemKind {
        &self.kind
    }

    /// The block's exact text, line endings included.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// The 1-based line the block starts on.
    pub fn line(&self) -> usize {
        self.line
    }
}

/// A parsed `JOURNAL.md`, lossless: [`Document::format`] gives back the parsed text byte for
/// byte.
///
/// ```
/// use goldfish_journal::{Document, ItemKind};
///
/// let text = "# JOURNAL — demo\n❌ Failed: it broke\nhand-written line\n";
/// let doc = Document::parse(text);
/// assert_eq!(doc.task(), Some("demo"));
/// assert!(matches!(doc.items()[2].kind(), ItemKind::Text(t) if t == "hand-written line"));
/// assert_eq!(doc.format(), text);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Document {
    items: Vec<Item>,
}

impl Document {
    /// Parses a journal. Never fails: lines that match no form are kept as free text.
    pub fn parse(text: &str) -> Document {
        let mut items: Vec<Item> = Vec::new();
        let mut classifier = Classifier::default();
        for (i, raw) in text.split_inclusive('\n').enumerate() {
            let line_no = i + 1;
            let kind = classifier.classify(strip_eol(raw));
            // Lines that continue the block before them; the classifier only yields these
            // right after such a block, but a mismatch falls through to free text rather
            // than panicking.
            if let Some(last) = items.last_mut()
                && attach(&mut last.kind, &kind)
            {
                last.raw.push_str(raw);
                continue;
            }
            let kind = match kind {
                LineKind::Title(task) => ItemKind::Title {
                    task: task.to_string(),
                },
                LineKind::SessionHeader { started, title } => ItemKind::Session(Session {
                    started,
                    title: title.to_string(),
                    intent: None,
                    approach: None,
                    line: line_no,
                }),
                LineKind::MutationHeader(code) => ItemKind::Mutation(Mutation {
                    code,
                    failed_count: None,
                    failed_on: None,
                    switching_to: None,
                    rationale: None,
                }),
                LineKind::Entry {
                    kind,
                    approach,
                    text,
                } => ItemKind::Entry(Entry {
                    kind,
                    approach: approach.map(str::to_string),
                    text: text.to_string(),
                    continuation: Vec::new(),
                }),
                LineKind::Blank => ItemKind::Blank,
                LineKind::Intent(_)
                | LineKind::Approach(_)
                | LineKind::FailedOn { .. }
                | LineKind::SwitchingTo(_)
                | LineKind::Rationale(_)
                | LineKind::Continuation(_)
                | LineKind::Text(_) => ItemKind::Text(strip_eol(raw).to_string()),
            };
            items.push(Item {
                line: line_no,
                raw: raw.to_string(),
                kind,
            });
        }
        Document { items }
    }

    /// The blocks, in file order.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// The task named by the first `# JOURNAL — {task}` line.
    pub fn task(&self) -> Option<&str> {
        self.items.iter().find_map(|i| match &i.kind {
            ItemKind::Title { task } => Some(task.as_str()),
            _ => None,
        })
    }

    /// The document's text: exactly the parsed input.
    pub fn format(&self) -> String {
        self.items.iter().map(|i| i.raw.as_str()).collect()
    }
}

impl fmt::Display for Document {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.items.iter().try_for_each(|i| f.write_str(&i.raw))
    }
}

/// Adds a field or continuation line to the block it belongs to; false when it does not
/// belong to `block`.
fn attach(block: &mut ItemKind, line: &LineKind<'_>) -> bool {
    match (block, line) {
        (ItemKind::Session(s), LineKind::Intent(v)) => s.intent = Some(v.to_string()),
        (ItemKind::Session(s), LineKind::Approach(v)) => s.approach = Some(v.to_string()),
        (ItemKind::Mutation(m), LineKind::FailedOn { count, what }) => {
            m.failed_count = *count;
            m.failed_on = Some(what.to_string());
        }
        (ItemKind::Mutation(m), LineKind::SwitchingTo(v)) => m.switching_to = Some(v.to_string()),
        (ItemKind::Mutation(m), LineKind::Rationale(v)) => m.rationale = Some(v.to_string()),
        (ItemKind::Entry(e), LineKind::Continuation(v)) => e.continuation.push(v.to_string()),
        _ => return false,
    }
    true
}

/// A line without its `\n` or `\r\n`.
pub(crate) fn strip_eol(raw: &str) -> &str {
    match raw.strip_suffix('\n') {
        Some(line) => line.strip_suffix('\r').unwrap_or(line),
        None => raw,
    }
}

/// What one line is, in the context of the lines before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineKind<'a> {
    Title(&'a str),
    SessionHeader {
        started: DateTime<Utc>,
        title: &'a str,
    },
    Intent(&'a str),
    Approach(&'a str),
    MutationHeader(MutationCode),
    FailedOn {
        count: Option<u32>,
        what: &'a str,
    },
    SwitchingTo(&'a str),
    Rationale(&'a str),
    Entry {
        kind: EntryKind,
        approach: Option<&'a str>,
        text: &'a str,
    },
    Continuation(&'a str),
    Blank,
    Text(&'a str),
}

/// The block a line may continue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Context {
    #[default]
    Top,
    Session {
        intent: bool,
        approach: bool,
    },
    Mutation {
        failed: bool,
        switching: bool,
        rationale: bool,
    },
    Entry,
}

/// Classifies lines one by one; shared by the document parser and the streaming status pass so
/// both always agree.
#[derive(Debug, Default)]
pub(crate) struct Classifier {
    context: Context,
}

impl Classifier {
    /// Classifies `line` (without its line ending) and moves the context on.
    pub(crate) fn classify<'a>(&mut self, line: &'a str) -> LineKind<'a> {
        let kind = self.kind_of(line);
        self.context = match (&kind, self.context) {
            (LineKind::SessionHeader { .. }, _) => Context::Session {
                intent: false,
                approach: false,
            },
            (LineKind::Intent(_), Context::Session { approach, .. }) => Context::Session {
                intent: true,
                approach,
            },
            (LineKind::Approach(_), Context::Session { intent, .. }) => Context::Session {
                intent,
                approach: true,
            },
            (LineKind::MutationHeader(_), _) => Context::Mutation {
                failed: false,
                switching: false,
                rationale: false,
            },
            (
                LineKind::FailedOn { .. },
                Context::Mutation {
                    switching,
                    rationale,
                    ..
                },
            ) => Context::Mutation {
                failed: true,
                switching,
                rationale,
            },
            (
                LineKind::SwitchingTo(_),
                Context::Mutation {
                    failed, rationale, ..
                },
            ) => Context::Mutation {
                failed,
                switching: true,
                rationale,
            },
            (
                LineKind::Rationale(_),
                Context::Mutation {
                    failed, switching, ..
                },
            ) => Context::Mutation {
                failed,
                switching,
                rationale: true,
            },
            (LineKind::Entry { .. } | LineKind::Continuation(_), _) => Context::Entry,
            _ => Context::Top,
        };
        kind
    }

    fn kind_of<'a>(&self, line: &'a str) -> LineKind<'a> {
        if line.trim().is_empty() {
            return LineKind::Blank;
        }
        match self.context {
            Context::Session { intent, approach } => {
                if !intent && let Some(v) = field(line, "Intent:") {
                    return LineKind::Intent(v);
                }
                if !approach && let Some(v) = field(line, "Approach:") {
                    return LineKind::Approach(v);
                }
            }
            Context::Mutation {
                failed,
                switching,
                rationale,
            } => {
                if !failed && let Some(kind) = failed_on(line) {
                    return kind;
                }
                if !switching && let Some(v) = field(line, "Switching to:") {
                    return LineKind::SwitchingTo(v);
                }
                if !rationale && let Some(v) = field(line, "Rationale:") {
                    return LineKind::Rationale(v);
                }
            }
            Context::Entry => {
                if line.starts_with([' ', '\t']) {
                    return LineKind::Continuation(line.trim());
                }
            }
            Context::Top => {}
        }
        classify_line(line)
    }
}

/// `prefix` at the start of `line`, and the trimmed rest.
fn field<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    line.strip_prefix(prefix).map(str::trim)
}

/// `Failed 3x on: …` (or `Failed on: …`).
fn failed_on(line: &str) -> Option<LineKind<'_>> {
    let rest = line.strip_prefix("Failed ")?;
    if let Some(what) = rest.strip_prefix("on:") {
        return Some(LineKind::FailedOn {
            count: None,
            what: what.trim(),
        });
    }
    let digits_end = rest.find(|c: char| !c.is_ascii_digit())?;
    let count = rest[..digits_end].parse().ok()?;
    let what = rest[digits_end..].strip_prefix("x on:")?;
    Some(LineKind::FailedOn {
        count: Some(count),
        what: what.trim(),
    })
}

/// The rest of a title or header after an optional ` — ` (or `-`, `–`) separator.
fn after_separator(rest: &str) -> &str {
    let rest = rest.trim();
    match rest.strip_prefix(['—', '–', '-']) {
        Some(r) => r.trim(),
        None => rest,
    }
}

/// Classifies a line that continues no block.
fn classify_line(line: &str) -> LineKind<'_> {
    if let Some(rest) = line.strip_prefix("##") {
        return heading(rest.trim_start()).unwrap_or(LineKind::Text(line));
    }
    if let Some(rest) = line.strip_prefix("# JOURNAL") {
        if rest.is_empty() || rest.starts_with(char::is_whitespace) {
            return LineKind::Title(after_separator(rest));
        }
        return LineKind::Text(line);
    }
    if let Some(rest) = line.strip_prefix('❌') {
        let rest = rest.trim();
        if let Some(after) = rest.strip_prefix("Failed") {
            if let Some((approach, text)) = bracketed(after.strip_prefix(' ')) {
                return entry(EntryKind::Failed, Some(approach), text);
            }
            if let Some(text) = after.strip_prefix(':') {
                return entry(EntryKind::Failed, None, text.trim());
            }
        }
        return entry(EntryKind::Failed, None, rest);
    }
    if let Some(rest) = line.strip_prefix('✅') {
        let rest = rest.trim();
        if let Some((approach, text)) = bracketed(rest.strip_prefix("Worked ")) {
            return entry(EntryKind::Working, Some(approach), text);
        }
        return entry(EntryKind::Working, None, rest);
    }
    if let Some(rest) = line.strip_prefix('→') {
        return entry(EntryKind::Lesson, None, rest.trim());
    }
    let prefixed = [
        ("Current state:", EntryKind::State),
        ("Decision:", EntryKind::Decision),
        ("Found:", EntryKind::Finding),
        ("Finding:", EntryKind::Finding),
        ("Note:", EntryKind::Note),
    ];
    for (prefix, kind) in prefixed {
        if let Some(text) = field(line, prefix) {
            return entry(kind, None, text);
        }
    }
    LineKind::Text(line)
}

fn entry<'a>(kind: EntryKind, approach: Option<&'a str>, text: &'a str) -> LineKind<'a> {
    LineKind::Entry {
        kind,
        approach,
        text,
    }
}

/// `[approach]: text` → (approach, text); the approach must be non-empty.
fn bracketed(s: Option<&str>) -> Option<(&str, &str)> {
    let (approach, text) = s?.strip_prefix('[')?.split_once("]:")?;
    let approach = approach.trim();
    (!approach.is_empty() && !approach.contains('[')).then_some((approach, text.trim()))
}

/// A `##` heading: a mutation declaration or a session header; `None` for any other heading.
fn heading(rest: &str) -> Option<LineKind<'_>> {
    if rest
        .get(..9)
        .is_some_and(|p| p.eq_ignore_ascii_case("MUTATION:"))
    {
        let spec = rest[9..].trim();
        let token = spec
            .split(|c: char| c.is_whitespace() || c == '(')
            .next()
            .unwrap_or("");
        let code = MutationCode::from_code(token).or_else(|| spec.parse().ok())?;
        return Some(LineKind::MutationHeader(code));
    }
    let stamp = rest.get(..16)?;
    let started = parse_stamp(stamp)?;
    let after = &rest[16..];
    if !(after.is_empty() || after.starts_with(char::is_whitespace)) {
        return None;
    }
    Some(LineKind::SessionHeader {
        started,
        title: after_separator(after),
    })
}

/// `YYYY-MM-DD HH:MM`, exactly, as UTC.
fn parse_stamp(s: &str) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(r)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        part.iter().try_fold(0u32, |n, d| {
            n.checked_mul(10)?.checked_add(u32::from(d - b'0'))
        })
    };
    if b.len() != 16 || b[4] != b'-' || b[7] != b'-' || b[10] != b' ' || b[13] != b':' {
        return None;
    }
    let year = i32::try_from(digits(0..4)?).ok()?;
    let date = NaiveDate::from_ymd_opt(year, digits(5..7)?, digits(8..10)?)?;
    let time = NaiveTime::from_hms_opt(digits(11..13)?, digits(14..16)?, 0)?;
    Some(date.and_time(time).and_utc())
}

/// `YYYY-MM-DD HH:MM` of `t` (UTC).
pub(crate) fn format_stamp(t: &DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M").to_string()
}

/// `# JOURNAL — {task}\n`.
pub(crate) fn format_title(task: &str) -> String {
    format!("# JOURNAL — {task}\n")
}

/// A session header with its `Intent:` / `Approach:` lines (omitted when empty).
pub(crate) fn format_session(
    started: &DateTime<Utc>,
    title: &str,
    intent: &str,
    approach: &str,
) -> String {
    let mut out = format!("## {}", format_stamp(started));
    if !title.is_empty() {
        out.push_str(" — ");
        out.push_str(title);
    }
    out.push('\n');
    if !intent.is_empty() {
        out.push_str(&format!("Intent: {intent}\n"));
    }
    if !approach.is_empty() {
        out.push_str(&format!("Approach: {approach}\n"));
    }
    out
}

/// A mutation declaration.
pub(crate) fn format_mutation(
    code: MutationCode,
    failures: u32,
    failed_on: &str,
    switching_to: &str,
    rationale: &str,
) -> String {
    format!(
        "## MUTATION: {code}\nFailed {failures}x on: {failed_on}\nSwitching to: {switching_to}\n\
         Rationale: {rationale}\n"
    )
}

/// An entry of one or two lines. `approach` is written in brackets for failures and
/// successes when given; `None` writes the plain form (the approach in force).
pub(crate) fn format_entry(kind: EntryKind, approach: Option<&str>, lines: &[&str]) -> String {
    let first = lines.first().copied().unwrap_or("");
    let mut out = match (kind, approach) {
        (EntryKind::Failed, Some(a)) => format!("❌ Failed [{a}]: {first}"),
        (EntryKind::Failed, None) => format!("❌ Failed: {first}"),
        (EntryKind::Working, Some(a)) => format!("✅ Worked [{a}]: {first}"),
        (EntryKind::Working, None) => format!("✅ {first}"),
        (EntryKind::Lesson, _) => format!("→ {first}"),
        (EntryKind::State, _) => format!("Current state: {first}"),
        (EntryKind::Decision, _) => format!("Decision: {first}"),
        (EntryKind::Finding, _) => format!("Found: {first}"),
        (EntryKind::Note, _) => format!("Note: {first}"),
    };
    out.push('\n');
    for more in lines.iter().skip(1) {
        out.push_str("  ");
        out.push_str(more);
        out.push('\n');
    }
    out
}

/// True when the plain `✅ {text}` form would read back as the same text with no approach.
pub(crate) fn plain_success_is_unambiguous(text: &str) -> bool {
    bracketed(text.strip_prefix("Worked ")).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> LineKind<'_> {
        Classifier::default().classify(line)
    }

    #[test]
    fn classifies_lines_out_of_context() {
        let stamp = parse_stamp("2026-03-17 14:30").unwrap();
        let cases = [
            ("# JOURNAL — auth/flow", LineKind::Title("auth/flow")),
            ("# JOURNAL - x", LineKind::Title("x")),
            ("# JOURNALING", LineKind::Text("# JOURNALING")),
            (
                "## 2026-03-17 14:30 — pivot — again",
                LineKind::SessionHeader {
                    started: stamp,
                    title: "pivot — again",
                },
            ),
            (
                "## 2026-03-17 14:30",
                LineKind::SessionHeader {
                    started: stamp,
                    title: "",
                },
            ),
            (
                "## 2026-02-30 14:30 — bad date",
                LineKind::Text("## 2026-02-30 14:30 — bad date"),
            ),
            (
                "## 2026-03-17 14:305",
                LineKind::Text("## 2026-03-17 14:305"),
            ),
            ("## Notes", LineKind::Text("## Notes")),
            (
                "## MUTATION: M5 (Reduce Scope)",
                LineKind::MutationHeader(MutationCode::ReduceScope),
            ),
            (
                "## mutation: m2",
                LineKind::MutationHeader(MutationCode::Extreme),
            ),
            (
                "## MUTATION: Invert",
                LineKind::MutationHeader(MutationCode::Invert),
            ),
            ("## MUTATION: M9", LineKind::Text("## MUTATION: M9")),
            ("❌ Failed: x y", entry(EntryKind::Failed, None, "x y")),
            (
                "❌ Failed [full swap]: x",
                entry(EntryKind::Failed, Some("full swap"), "x"),
            ),
            (
                "❌ Failed []: x",
                entry(EntryKind::Failed, None, "Failed []: x"),
            ),
            ("❌ broke", entry(EntryKind::Failed, None, "broke")),
            (
                "✅ Working on 3/7",
                entry(EntryKind::Working, None, "Working on 3/7"),
            ),
            (
                "✅ Worked [a b]: fine",
                entry(EntryKind::Working, Some("a b"), "fine"),
            ),
            ("→ lesson", entry(EntryKind::Lesson, None, "lesson")),
            ("Current state: s", entry(EntryKind::State, None, "s")),
            ("Decision: d", entry(EntryKind::Decision, None, "d")),
            ("Found: f", entry(EntryKind::Finding, None, "f")),
            ("Finding: f", entry(EntryKind::Finding, None, "f")),
            ("Note: n", entry(EntryKind::Note, None, "n")),
            (
                "Intent: out of place",
                LineKind::Text("Intent: out of place"),
            ),
            (
                "Rationale: out of place",
                LineKind::Text("Rationale: out of place"),
            ),
            ("  indented", LineKind::Text("  indented")),
            ("   ", LineKind::Blank),
            (
                "· Tried direct token swap — FAILED",
                LineKind::Text("· Tried direct token swap — FAILED"),
            ),
        ];
        for (line, want) in cases {
            assert_eq!(one(line), want, "{line:?}");
        }
    }

    #[test]
    fn context_decides_fields_and_continuations() {
        let mut c = Classifier::default();
        let lines = [
            (
                "## MUTATION: M1",
                LineKind::MutationHeader(MutationCode::Fallback),
            ),
            (
                "Failed 3x on: a",
                LineKind::FailedOn {
                    count: Some(3),
                    what: "a",
                },
            ),
            ("Failed 3x on: again", LineKind::Text("Failed 3x on: again")),
            ("Decision: d", entry(EntryKind::Decision, None, "d")),
            ("  more", LineKind::Continuation("more")),
            ("\tmore", LineKind::Continuation("more")),
            (
                "## 2026-01-01 00:00",
                LineKind::SessionHeader {
                    started: parse_stamp("2026-01-01 00:00").unwrap(),
                    title: "",
                },
            ),
            ("Approach: b", LineKind::Approach("b")),
            ("Intent: i", LineKind::Intent("i")),
            ("Approach: c", LineKind::Text("Approach: c")),
        ];
        for (line, want) in lines {
            assert_eq!(c.classify(line), want, "{line:?}");
        }
    }

    #[test]
    fn formatted_blocks_parse_back() {
        let t = parse_stamp("2026-03-17 14:30").unwrap();
        let text = format!(
            "{}{}\n{}{}{}",
            format_title("t"),
            format_session(&t, "title", "i", "a"),
            format_entry(EntryKind::Failed, Some("x"), &["what", "more"]),
            format_mutation(MutationCode::Ask, 3, "x", "y", "z"),
            format_entry(EntryKind::Working, None, &["ok"]),
        );
        let doc = Document::parse(&text);
        assert_eq!(doc.format(), text);
        let kinds: Vec<_> = doc.items().iter().map(|i| i.kind().clone()).collect();
        assert_eq!(
            kinds,
            vec![
                ItemKind::Title { task: "t".into() },
                ItemKind::Session(Session {
                    started: t,
                    title: "title".into(),
                    intent: Some("i".into()),
                    approach: Some("a".into()),
                    line: 2,
                }),
                ItemKind::Blank,
                ItemKind::Entry(Entry {
                    kind: EntryKind::Failed,
                    approach: Some("x".into()),
                    text: "what".into(),
                    continuation: vec!["more".into()],
                }),
                ItemKind::Mutation(Mutation {
                    code: MutationCode::Ask,
                    failed_count: Some(3),
                    failed_on: Some("x".into()),
                    switching_to: Some("y".into()),
                    rationale: Some("z".into()),
                }),
                ItemKind::Entry(Entry {
                    kind: EntryKind::Working,
                    approach: None,
                    text: "ok".into(),
                    continuation: vec![],
                }),
            ]
        );
    }

    #[test]
    fn line_endings_and_missing_final_newline_are_kept() {
        for text in [
            "a\r\nb\r\n",
            "no newline",
            "x\n\n\n",
            "",
            "\r",
            "Decision: d\r\n  more\r\n",
        ] {
            assert_eq!(Document::parse(text).format(), text, "{text:?}");
        }
        let doc = Document::parse("Decision: d\r\n  more\r\n");
        assert_eq!(doc.items().len(), 1);
    }

    #[test]
    fn log_kinds_parse() {
        for kind in LogKind::ALL {
            assert_eq!(kind.to_string().parse::<LogKind>().unwrap(), kind);
        }
        assert_eq!("Found".parse::<LogKind>().unwrap(), LogKind::Finding);
        assert!(
            "failed"
                .parse::<LogKind>()
                .unwrap_err()
                .to_string()
                .contains("fail")
        );
        assert!("bogus".parse::<LogKind>().unwrap_err().is_invalid_input());
    }

    #[test]
    fn plain_success_ambiguity() {
        assert!(plain_success_is_unambiguous("Working on 3/7"));
        assert!(!plain_success_is_unambiguous("Worked [x]: y"));
    }
}
