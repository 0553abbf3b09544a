//! The status derived from a journal's text: sessions, failure streaks, mutations, state.

use std::collections::HashMap;
use std::fmt;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::format::{
    Classifier, Document, EntryKind, LineKind, Mutation, Session, format_stamp, strip_eol,
};
use crate::mutation::MutationCode;

/// Consecutive failures of one approach that make a mutation declaration mandatory.
pub const MUTATION_THRESHOLD: u32 = 3;

/// The consecutive failures of one approach (no success and no mutation since).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Streak {
    /// The approach, as last written.
    pub approach: String,
    /// How many failures in a row.
    pub failures: u32,
    /// The text of the last failure.
    pub last_failure: String,
    /// The 1-based line of the last failure.
    pub line: usize,
    /// True when `failures` reached [`MUTATION_THRESHOLD`]: the approach may not be tried
    /// again before a mutation is declared.
    pub mutation_required: bool,
}

/// A mutation declaration as seen by the status: where it is and whether it worked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct MutationRecord {
    /// The declaration.
    #[serde(flatten)]
    pub mutation: Mutation,
    /// The 1-based line of its `## MUTATION:` header.
    pub line: usize,
    /// The start of the session it was declared in, when there is one.
    pub session_started: Option<DateTime<Utc>>,
    /// Its ordinal within that session (1 for the first), for stable ids.
    pub ordinal: usize,
    /// The text of the first success of the new approach after it, when there is one.
    pub outcome: Option<String>,
}

/// Everything derived from a journal: read from the whole file every time, never stored
/// elsewhere, so every agent sharing a worktree sees the same status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Status {
    /// The task named by the title.
    pub task: Option<String>,
    /// How many session headers.
    pub sessions: usize,
    /// The last session.
    pub session: Option<Session>,
    /// The approach in force: the last `Approach:` or `Switching to:` line. Plain failures
    /// and successes (without `[approach]`) belong to it.
    pub current_approach: Option<String>,
    /// Open failure streaks, in the order their approaches first failed.
    pub streaks: Vec<Streak>,
    /// Every mutation declared, in file order.
    pub mutations: Vec<MutationRecord>,
    /// The last decision (with its continuation line).
    pub last_decision: Option<String>,
    /// The last `Current state:` (with its continuation line).
    pub current_state: Option<String>,
    /// How many entries of any kind.
    pub entries: usize,
    /// How many lines the file has.
    pub lines: usize,
}

impl Status {
    /// Derives the status of a journal's text.
    pub fn from_text(text: &str) -> Status {
        let mut builder = StatusBuilder::default();
        for raw in text.split_inclusive('\n') {
            builder.push(raw);
        }
        builder.finish()
    }

    /// The open streak of `approach` (compared ignoring case and repeated spaces).
    pub fn streak(&self, approach: &str) -> Option<&Streak> {
        let key = approach_key(approach);
        self.streaks
            .iter()
            .find(|s| approach_key(&s.approach) == key)
    }

    /// The streaks that require a mutation before their approach is tried again.
    pub fn mutation_required(&self) -> impl Iterator<Item = &Streak> {
        self.streaks.iter().filter(|s| s.mutation_required)
    }
}

/// How many declarations the summary lists (the JSON status has them all).
const SHOWN_MUTATIONS: usize = 5;

/// The key approaches are compared by: lowercase, whitespace collapsed.
pub(crate) fn approach_key(approach: &str) -> String {
    let mut key = String::with_capacity(approach.len());
    for word in approach.split_whitespace() {
        if !key.is_empty() {
            key.push(' ');
        }
        key.extend(word.chars().flat_map(char::to_lowercase));
    }
    key
}

/// What the last line was, for the writer's choice of separators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum LastLine {
    /// The file is empty.
    #[default]
    None,
    /// A title.
    Title,
    /// A session or mutation header or one of its field lines.
    Header,
    /// An entry or continuation line.
    Entry,
    /// A blank line.
    Blank,
    /// Free text.
    Text,
}

/// Derives a [`Status`] from lines fed one by one, so a file can be read in one streaming pass.
#[derive(Debug, Default)]
pub(crate) struct StatusBuilder {
    status: Status,
    classifier: Classifier,
    /// Index in `status.mutations` of a declaration whose lines are still being read.
    open_mutation: Option<usize>,
    last_entry: Option<EntryKind>,
    session_mutations: usize,
    /// Open streaks with their approach keys (moved into `status.streaks` by `finish`).
    streaks: Vec<(String, Streak)>,
    /// The key of `status.current_approach`.
    current_key: String,
    /// Declarations still waiting for a success, by the key of their new approach.
    pending: HashMap<String, Vec<usize>>,
    pub(crate) last: LastLine,
    pub(crate) ends_with_newline: bool,
}

impl StatusBuilder {
    /// Feeds one line, with its line ending when it has one.
    pub(crate) fn push(&mut self, raw: &str) {
        self.status.lines += 1;
        self.ends_with_newline = raw.ends_with('\n');
        let kind = self.classifier.classify(strip_eol(raw));
        let in_mutation = matches!(
            kind,
            LineKind::FailedOn { .. } | LineKind::SwitchingTo(_) | LineKind::Rationale(_)
        );
        if !in_mutation {
            self.close_mutation();
        }
        self.last = match kind {
            LineKind::Title(_) => LastLine::Title,
            LineKind::Entry { .. } | LineKind::Continuation(_) => LastLine::Entry,
            LineKind::Blank => LastLine::Blank,
            LineKind::Text(_) => LastLine::Text,
            _ => LastLine::Header,
        };
        if !matches!(kind, LineKind::Continuation(_)) {
            self.last_entry = None;
        }
        let status = &mut self.status;
        match kind {
            LineKind::Title(task) => {
                if status.task.is_none() {
                    status.task = Some(task.to_string());
                }
            }
            LineKind::SessionHeader { started, title } => {
                status.sessions += 1;
                self.session_mutations = 0;
                status.session = Some(Session {
                    started,
                    title: title.to_string(),
                    intent: None,
                    approach: None,
                    line: status.lines,
                });
            }
            LineKind::Intent(v) => {
                if let Some(s) = status.session.as_mut() {
                    s.intent = Some(v.to_string());
                }
            }
            LineKind::Approach(v) => {
                if let Some(s) = status.session.as_mut() {
                    s.approach = Some(v.to_string());
                }
                status.current_approach = Some(v.to_string());
                self.current_key = approach_key(v);
            }
            LineKind::MutationHeader(code) => self.open(code),
            LineKind::FailedOn { count, what } => {
                if let Some(m) = self.open_mutation_mut() {
                    m.failed_count = count;
                    m.failed_on = Some(what.to_string());
                }
            }
            LineKind::SwitchingTo(v) => {
                if let Some(m) = self.open_mutation_mut() {
                    m.switching_to = Some(v.to_string());
                }
            }
            LineKind::Rationale(v) => {
                if let Some(m) = self.open_mutation_mut() {
                    m.rationale = Some(v.to_string());
                }
            }
            LineKind::Entry {
                kind,
                approach,
                text,
            } => {
                status.entries += 1;
                self.last_entry = Some(kind);
                let line = status.lines;
                match kind {
                    EntryKind::Failed => self.failed(approach, text, line),
                    EntryKind::Working => self.worked(approach, text),
                    EntryKind::Decision => status.last_decision = Some(text.to_string()),
                    EntryKind::State => status.current_state = Some(text.to_string()),
                    _ => {}
                }
            }
            LineKind::Continuation(v) => {
                let target = match self.last_entry {
                    Some(EntryKind::Decision) => status.last_decision.as_mut(),
                    Some(EntryKind::State) => status.current_state.as_mut(),
                    _ => None,
                };
                if let Some(t) = target {
                    t.push('\n');
                    t.push_str(v);
                }
            }
            LineKind::Blank | LineKind::Text(_) => {}
        }
    }

    /// The status of every line fed so far.
    pub(crate) fn finish(mut self) -> Status {
        self.close_mutation();
        self.status.streaks = self.streaks.into_iter().map(|(_, s)| s).collect();
        self.status
    }

    fn open(&mut self, code: MutationCode) {
        self.session_mutations += 1;
        let status = &mut self.status;
        status.mutations.push(MutationRecord {
            mutation: Mutation {
                code,
                failed_count: None,
                failed_on: None,
                switching_to: None,
                rationale: None,
            },
            line: status.lines,
            session_started: status.session.as_ref().map(|s| s.started),
            ordinal: self.session_mutations,
            outcome: None,
        });
        self.open_mutation = Some(status.mutations.len() - 1);
    }

    fn open_mutation_mut(&mut self) -> Option<&mut Mutation> {
        let i = self.open_mutation?;
        self.status.mutations.get_mut(i).map(|m| &mut m.mutation)
    }

    /// Applies a declaration once all its lines are read: the streak it names ends, and its
    /// new approach is in force.
    fn close_mutation(&mut self) {
        let Some(i) = self.open_mutation.take() else {
            return;
        };
        let Some(record) = self.status.mutations.get(i) else {
            return;
        };
        let failed_on = record.mutation.failed_on.as_deref().map(approach_key);
        let switching_to = record.mutation.switching_to.clone();
        let streaks = &mut self.streaks;
        match failed_on {
            Some(key) if streaks.iter().any(|(k, _)| *k == key) => {
                streaks.retain(|(k, _)| *k != key);
            }
            // A hand-written declaration may describe the approach in more words
            // ("full token swap across all routes" for "full token swap").
            Some(key) if streaks.iter().any(|(k, _)| contains_key(&key, k)) => {
                streaks.retain(|(k, _)| !contains_key(&key, k));
            }
            // A declaration that names no approach answers the ones that required it.
            None => streaks.retain(|(_, s)| !s.mutation_required),
            Some(_) => {}
        }
        if let Some(to) = switching_to {
            self.current_key = approach_key(&to);
            self.pending
                .entry(self.current_key.clone())
                .or_default()
                .push(i);
            self.status.current_approach = Some(to);
        }
    }

    /// The approach an entry belongs to, and its key.
    fn attribute(&self, approach: Option<&str>) -> (String, String) {
        match approach {
            Some(a) => (a.to_string(), approach_key(a)),
            None => (
                self.status.current_approach.clone().unwrap_or_default(),
                self.current_key.clone(),
            ),
        }
    }

    fn failed(&mut self, approach: Option<&str>, text: &str, line: usize) {
        let (approach, key) = self.attribute(approach);
        let streaks = &mut self.streaks;
        let i = match streaks.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                let streak = Streak {
                    approach: String::new(),
                    failures: 0,
                    last_failure: String::new(),
                    line,
                    mutation_required: false,
                };
                streaks.push((key, streak));
                streaks.len() - 1
            }
        };
        let streak = &mut streaks[i].1;
        streak.approach = approach;
        streak.failures = streak.failures.saturating_add(1);
        streak.last_failure = text.to_string();
        streak.line = line;
        streak.mutation_required = streak.failures >= MUTATION_THRESHOLD;
    }

    fn worked(&mut self, approach: Option<&str>, text: &str) {
        let (_, key) = self.attribute(approach);
        self.streaks.retain(|(k, _)| *k != key);
        for i in self.pending.remove(&key).unwrap_or_default() {
            if let Some(m) = self.status.mutations.get_mut(i) {
                m.outcome = Some(text.to_string());
            }
        }
    }
}

/// True when the approach key `inner` appears in `key` as whole words.
fn contains_key(key: &str, inner: &str) -> bool {
    !inner.is_empty() && format!(" {key} ").contains(&format!(" {inner} "))
}

impl Document {
    /// The status derived from the whole document (the same as [`Status::from_text`]).
    pub fn status(&self) -> Status {
        Status::from_text(&self.format())
    }
}

impl fmt::Display for Status {
    /// A short human summary, the second half of the hand-over view.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Task: {}", self.task.as_deref().unwrap_or("(no title)"))?;
        match &self.session {
            Some(s) => {
                let title = if s.title.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", s.title)
                };
                writeln!(
                    f,
                    "Last session: {}{title} (line {}, {} session{} in all)",
                    format_stamp(&s.started),
                    s.line,
                    self.sessions,
                    if self.sessions == 1 { "" } else { "s" }
                )?;
                if let Some(intent) = &s.intent {
                    writeln!(f, "  Intent: {intent}")?;
                }
            }
            None => writeln!(f, "Last session: none")?,
        }
        writeln!(
            f,
            "Current approach: {}",
            self.current_approach.as_deref().unwrap_or("(none)")
        )?;
        if self.streaks.is_empty() {
            writeln!(f, "Failure streaks: none")?;
        } else {
            writeln!(f, "Failure streaks:")?;
            for s in &self.streaks {
                writeln!(
                    f,
                    "  {:?} failed {}x in a row (last at line {}: {})",
                    s.approach, s.failures, s.line, s.last_failure
                )?;
            }
        }
        let required: Vec<_> = self.mutation_required().collect();
        if required.is_empty() {
            writeln!(f, "Mutation required: no")?;
        } else {
            let codes = MutationCode::ALL
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            for s in required {
                writeln!(
                    f,
                    "Mutation required: YES for {:?}: do not try it again; declare one of {codes}",
                    s.approach
                )?;
            }
        }
        if self.mutations.is_empty() {
            writeln!(f, "Mutations declared: none")?;
        } else {
            let shown = self.mutations.len().min(SHOWN_MUTATIONS);
            let earlier = self.mutations.len() - shown;
            if earlier == 0 {
                writeln!(f, "Mutations declared: {}", self.mutations.len())?;
            } else {
                writeln!(
                    f,
                    "Mutations declared: {} (the last {shown} shown)",
                    self.mutations.len()
                )?;
            }
            for m in &self.mutations[earlier..] {
                let outcome = match &m.outcome {
                    Some(text) => format!("worked: {text}"),
                    None => "no success yet".to_string(),
                };
                writeln!(
                    f,
                    "  line {}: {} {:?} → {:?} ({outcome})",
                    m.line,
                    m.mutation.code,
                    m.mutation.failed_on.as_deref().unwrap_or("?"),
                    m.mutation.switching_to.as_deref().unwrap_or("?"),
                )?;
            }
        }
        writeln!(
            f,
            "Last decision: {}",
            self.last_decision.as_deref().unwrap_or("(none)")
        )?;
        writeln!(
            f,
            "Current state: {}",
            self.current_state.as_deref().unwrap_or("(none)")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn streaks(text: &str) -> Vec<(String, u32, bool)> {
        Status::from_text(text)
            .streaks
            .into_iter()
            .map(|s| (s.approach, s.failures, s.mutation_required))
            .collect()
    }

    #[test]
    fn streaks_per_approach() {
        let head = "## 2026-01-01 10:00 — s\nIntent: i\nApproach: a\n\n";
        type Want = Vec<(&'static str, u32, bool)>;
        let cases: Vec<(String, Want)> = vec![
            (
                format!("{head}❌ Failed: 1\n❌ Failed: 2\n"),
                vec![("a", 2, false)],
            ),
            (
                format!("{head}❌ Failed: 1\n❌ Failed [A]: 2\n❌ x\n"),
                vec![("a", 3, true)],
            ),
            (
                format!("{head}❌ Failed: 1\n❌ Failed [b]: 1\n❌ Failed: 2\n"),
                vec![("a", 2, false), ("b", 1, false)],
            ),
            (
                format!("{head}❌ Failed: 1\n❌ Failed: 2\n✅ ok\n❌ Failed: 3\n"),
                vec![("a", 1, false)],
            ),
            (
                format!("{head}❌ Failed: 1\n✅ Worked [b]: ok\n"),
                vec![("a", 1, false)],
            ),
            (
                format!(
                    "{head}❌ Failed: 1\n❌ Failed: 2\n❌ Failed: 3\n\n## MUTATION: M5\n\
                     Failed 3x on: a\nSwitching to: b\nRationale: r\n\n❌ Failed: 4\n"
                ),
                vec![("b", 1, false)],
            ),
            (
                format!(
                    "{head}❌ Failed: 1\n❌ Failed: 2\n❌ Failed: 3\n## MUTATION: M1\n\
                     Failed 3x on: a across all routes\n"
                ),
                vec![],
            ),
            (
                format!("{head}❌ Failed: 1\n❌ Failed: 2\n❌ Failed: 3\n## MUTATION: M1\n"),
                vec![],
            ),
            (
                format!(
                    "{head}❌ Failed: 1\n❌ Failed: 2\n❌ Failed: 3\n## MUTATION: M1\nFailed 3x on: zzz\n"
                ),
                vec![("a", 3, true)],
            ),
        ];
        for (text, want) in cases {
            let want: Vec<_> = want
                .into_iter()
                .map(|(a, n, r)| (a.to_string(), n, r))
                .collect();
            assert_eq!(streaks(&text), want, "{text}");
        }
    }

    #[test]
    fn mutation_outcome_is_the_first_success_of_the_new_approach() {
        let text = "## MUTATION: M5 (Reduce Scope)\nFailed 3x on: a\nSwitching to: b\n\
                    Rationale: r\n\n✅ Worked [c]: other\n✅ first\n✅ second\n";
        let status = Status::from_text(text);
        assert_eq!(status.mutations.len(), 1);
        assert_eq!(status.mutations[0].outcome.as_deref(), Some("first"));
        assert_eq!(status.current_approach.as_deref(), Some("b"));
    }

    #[test]
    fn state_and_decision_keep_their_continuation() {
        let status =
            Status::from_text("Decision: d\n  because\nCurrent state: s\n  next: x\n→ l\n  more\n");
        assert_eq!(status.last_decision.as_deref(), Some("d\nbecause"));
        assert_eq!(status.current_state.as_deref(), Some("s\nnext: x"));
        assert_eq!(status.entries, 3);
        assert_eq!(status.lines, 6);
    }

    #[test]
    fn approach_keys() {
        assert_eq!(approach_key("  Full   Token\tSwap "), "full token swap");
        assert!(contains_key(
            "full token swap across routes",
            "full token swap"
        ));
        assert!(!contains_key("full token swapping", "full token swap"));
    }
}
