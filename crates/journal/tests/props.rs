//! Property tests: lifecycle calls against a model of the protocol, and parse → format on
//! arbitrary journals.

use std::collections::BTreeMap;

use goldfish_journal::{
    Approach, Document, ErrorKind, Handover, HandoverOptions, Journal, LogKind, MutationCode,
    Status,
};
use proptest::prelude::*;

use crate::util::clock;

/// Spellings of three approaches: the model compares them as the journal does.
const APPROACHES: [&str; 5] = ["alpha", "beta", "Gamma  ray", "ALPHA", "gamma ray"];

fn key(approach: &str) -> String {
    approach
        .split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Debug, Clone)]
enum Op {
    Boot(Option<usize>),
    Log(LogKind, Vec<String>),
    Fail(Option<usize>, String),
    Succeed(Option<usize>, String),
    Mutate(Option<usize>, usize, usize),
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9 ]{0,12}",
        Just("Worked [x]: looks like a named success".to_string()),
        Just("Failed [y]: looks like a named failure".to_string()),
        Just("## 2026-01-01 10:00 — not a header".to_string()),
        Just("Intent: not an intent".to_string()),
        Just("❌ nested marker".to_string()),
        Just("  padded  ".to_string()),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let approach = prop::option::weighted(0.7, 0..APPROACHES.len());
    let kind = prop::sample::select(LogKind::ALL.to_vec());
    prop_oneof![
        1 => approach.clone().prop_map(Op::Boot),
        2 => (kind, prop::collection::vec(text(), 1..=3)).prop_map(|(k, t)| Op::Log(k, t)),
        5 => (approach.clone(), text()).prop_map(|(a, t)| Op::Fail(a, t)),
        2 => (approach.clone(), text()).prop_map(|(a, t)| Op::Succeed(a, t)),
        2 => (approach, 0..APPROACHES.len(), 0..8usize).prop_map(|(f, t, c)| Op::Mutate(f, t, c)),
    ]
}

/// What the protocol says the journal's status must be.
#[derive(Debug, Default)]
struct Model {
    booted: bool,
    current: Option<String>,
    streaks: BTreeMap<String, u32>,
    sessions: usize,
    mutations: usize,
    entries: usize,
    state: Option<String>,
}

impl Model {
    fn blocked(&self, approach: &str) -> bool {
        self.streaks.get(&key(approach)).is_some_and(|n| *n >= 3)
    }

    fn resolve(&self, approach: Option<usize>) -> Result<String, ErrorKind> {
        match approach {
            Some(i) => Ok(APPROACHES[i].to_string()),
            None => self.current.clone().ok_or(ErrorKind::InvalidInput),
        }
    }

    /// Applies `op`; the error kind the journal must give when it refuses.
    fn apply(&mut self, op: &Op) -> Result<(), ErrorKind> {
        // Input is checked before the file is read.
        if let Op::Log(_, lines) = op
            && lines.len() > 2
        {
            return Err(ErrorKind::EntryTooLong);
        }
        if !self.booted && !matches!(op, Op::Boot(_)) {
            return Err(ErrorKind::NotBooted);
        }
        match op {
            Op::Boot(a) => {
                if let Some(i) = a {
                    if self.blocked(APPROACHES[*i]) {
                        return Err(ErrorKind::MutationRequired);
                    }
                    self.current = Some(APPROACHES[*i].to_string());
                }
                self.booted = true;
                self.sessions += 1;
            }
            Op::Log(kind, lines) => {
                if lines.len() > 2 {
                    return Err(ErrorKind::EntryTooLong);
                }
                self.entries += 1;
                if *kind == LogKind::State {
                    let trimmed: Vec<_> = lines.iter().map(|l| l.trim()).collect();
                    self.state = Some(trimmed.join("\n"));
                }
            }
            Op::Fail(a, _) => {
                let approach = self.resolve(*a)?;
                if self.blocked(&approach) {
                    return Err(ErrorKind::MutationRequired);
                }
                *self.streaks.entry(key(&approach)).or_default() += 1;
                self.entries += 1;
            }
            Op::Succeed(a, _) => {
                let approach = self.resolve(*a)?;
                if self.blocked(&approach) {
                    return Err(ErrorKind::MutationRequired);
                }
                self.streaks.remove(&key(&approach));
                self.entries += 1;
            }
            Op::Mutate(from, to, _) => {
                let from = match from {
                    Some(i) => APPROACHES[*i].to_string(),
                    None => {
                        let required: Vec<_> =
                            self.streaks.iter().filter(|(_, n)| **n >= 3).collect();
                        match required.as_slice() {
                            [(k, _)] => (*k).clone(),
                            [] => self.resolve(None)?,
                            _ => return Err(ErrorKind::InvalidInput),
                        }
                    }
                };
                let to = APPROACHES[*to];
                if key(&from) == key(to) {
                    return Err(ErrorKind::InvalidInput);
                }
                if self.blocked(to) {
                    return Err(ErrorKind::MutationRequired);
                }
                self.streaks.remove(&key(&from));
                self.current = Some(to.to_string());
                self.mutations += 1;
            }
        }
        Ok(())
    }
}

fn run(j: &Journal, op: &Op) -> Result<(), ErrorKind> {
    let result = match op {
        Op::Boot(a) => j
            .boot("intent", a.map_or("", |i| APPROACHES[i]), "session")
            .map(|_| ()),
        Op::Log(kind, lines) => j.log(*kind, &lines.join("\n")).map(|_| ()),
        Op::Fail(a, t) => j.fail(a.map(|i| APPROACHES[i]), t).map(|_| ()),
        Op::Succeed(a, t) => j.succeed(a.map(|i| APPROACHES[i]), t).map(|_| ()),
        Op::Mutate(from, to, code) => {
            let from: Approach<'_> = from.map(|i| APPROACHES[i]).into();
            j.mutate(MutationCode::ALL[*code], from, APPROACHES[*to], "rationale")
                .map(|_| ())
        }
    };
    result.map_err(|e| e.kind())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any sequence of lifecycle calls: each call succeeds or is refused exactly as the
    /// protocol says, and the file always parses back to the modelled status.
    #[test]
    fn lifecycle_calls_parse_back_to_the_same_status(ops in prop::collection::vec(op(), 1..24)) {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::open(dir.path()).unwrap().with_task("prop").with_clock(clock(2026, 1, 1, 9, 0));
        let mut model = Model::default();
        for op in &ops {
            let want = model.apply(op);
            prop_assert_eq!(run(&j, op), want, "{:?}", op);
        }
        if !model.booted {
            return Ok(());
        }
        let text = std::fs::read_to_string(j.path()).unwrap();
        let doc = Document::parse(&text);
        prop_assert_eq!(doc.format(), text.clone());
        let status = j.status().unwrap();
        prop_assert_eq!(&status, &doc.status());
        prop_assert_eq!(&status, &Status::from_text(&text));
        let streaks: BTreeMap<String, u32> =
            status.streaks.iter().map(|s| (key(&s.approach), s.failures)).collect();
        prop_assert_eq!(&streaks, &model.streaks, "{}", text);
        for s in &status.streaks {
            prop_assert_eq!(s.mutation_required, s.failures >= 3);
        }
        prop_assert_eq!(status.current_approach.as_deref().map(key), model.current.as_deref().map(key));
        prop_assert_eq!(status.sessions, model.sessions);
        prop_assert_eq!(status.mutations.len(), model.mutations);
        prop_assert_eq!(status.entries, model.entries);
        prop_assert_eq!(&status.current_state, &model.state);
    }

    /// Arbitrary journals made of the format's lines, hand-written noise and odd line endings
    /// format back byte for byte, and every reader derives the same status.
    #[test]
    fn arbitrary_journals_round_trip(
        lines in prop::collection::vec((line(), prop::sample::select(vec!["\n", "\r\n", "\n", ""])), 0..40)
    ) {
        let text: String = lines.iter().map(|(l, end)| format!("{l}{end}")).collect();
        let doc = Document::parse(&text);
        prop_assert_eq!(doc.format(), text.clone());
        prop_assert_eq!(Document::parse(&doc.format()), doc.clone());
        let status = Status::from_text(&text);
        prop_assert_eq!(&doc.status(), &status);
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::open(dir.path()).unwrap();
        std::fs::write(j.path(), &text).unwrap();
        if !text.is_empty() {
            let h = j.handover().unwrap();
            prop_assert_eq!(&h.status, &status);
            prop_assert_eq!(h, Handover::from_text(&text, &HandoverOptions::default()));
        }
    }
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("# JOURNAL — task".to_string()),
        Just("## 2026-03-17 14:30 — title".to_string()),
        Just("## 2026-03-17 14:30".to_string()),
        Just("Intent: i".to_string()),
        Just("Approach: a".to_string()),
        Just("Approach: b".to_string()),
        Just("## MUTATION: M5 (Reduce Scope)".to_string()),
        Just("Failed 3x on: a".to_string()),
        Just("Switching to: b".to_string()),
        Just("Rationale: r".to_string()),
        Just("❌ Failed: x".to_string()),
        Just("❌ Failed [b]: x".to_string()),
        Just("✅ fine".to_string()),
        Just("✅ Worked [a]: fine".to_string()),
        Just("→ lesson".to_string()),
        Just("Current state: s".to_string()),
        Just("Decision: d".to_string()),
        Just("  continued".to_string()),
        Just(String::new()),
        ".{0,20}",
    ]
}
