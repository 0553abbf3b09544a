//! Property tests: any sequence of signals (and cancels) keeps the machine valid.

use goldfish_signals::{Pipeline, Signal, SignalKind, Stage, next_stage};
use proptest::prelude::*;

use crate::util::utc;

#[derive(Debug, Clone)]
enum Op {
    Signal(SignalKind),
    Cancel,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        20 => (0..SignalKind::ALL.len()).prop_map(|i| Op::Signal(SignalKind::ALL[i])),
        1 => Just(Op::Cancel),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_sequence_keeps_a_valid_state(max in 0u32..5, ops in prop::collection::vec(op(), 0..80)) {
        let t = utc("2024-01-15T10:00:00Z");
        let mut p = Pipeline::new(max, t);
        // A reference model: (stage, retries).
        let mut model = (Stage::Scope, 0u32);
        for op in ops {
            let before = p.clone();
            let result = match op {
                Op::Signal(kind) => p.apply(Signal::empty(kind), t),
                Op::Cancel => p.cancel("prop", t),
            };
            let expected = match op {
                _ if model.0.is_terminal() => None,
                Op::Cancel => Some((Stage::Cancelled, model.1)),
                Op::Signal(kind) => next_stage(model.0, kind).map(|(to, retry)| {
                    match (retry, model.1 >= max) {
                        (true, true) => (Stage::Failed, model.1),
                        (true, false) => (to, model.1 + 1),
                        (false, _) => (to, model.1),
                    }
                }),
            };
            match (result, expected) {
                (Ok(tr), Some(next)) => {
                    prop_assert_eq!((tr.to, tr.retries), next);
                    prop_assert_eq!(p.history().last(), Some(&tr));
                    model = next;
                }
                (Err(_), None) => prop_assert_eq!(&p, &before, "an error changes nothing"),
                (got, want) => prop_assert!(false, "got {:?}, model wanted {:?}", got, want),
            }
            prop_assert_eq!((p.stage(), p.retries()), model);
            prop_assert!(p.retries() <= p.max_retries());
            prop_assert_eq!(p.reason().is_some(), p.is_terminal());
            let counted = p.history().iter().filter(|t| t.retry && t.to != Stage::Failed);
            prop_assert_eq!(counted.count() as u32, p.retries());
        }
        prop_assert_eq!(Pipeline::from_json(&p.to_json()).ok(), Some(p));
    }

    #[test]
    fn any_text_parses_or_errors_and_formats_stably(text in "\\PC{0,64}", k in 0..6usize) {
        let kind = SignalKind::ALL[k];
        if let Ok(signal) = Signal::parse(kind, &text) {
            let formatted = signal.to_json();
            let again = Signal::parse(kind, &formatted);
            prop_assert_eq!(again.as_ref().ok(), Some(&signal));
            prop_assert_eq!(again.map(|s| s.to_json()).ok(), Some(formatted));
        }
    }
}
