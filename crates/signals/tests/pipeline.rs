//! The pure state machine: every transition of the table, every invalid one, the retry limit.

use goldfish_signals::{BuildComplete, Pipeline, Signal, SignalKind, Stage, next_stage};

use crate::util::{TestResult, utc};

use SignalKind as K;
use Stage as P;

/// A pipeline at `stage`, reached by the shortest path from SCOPE.
fn at(stage: Stage) -> Pipeline {
    let t = utc("2024-01-15T10:00:00Z");
    let mut p = Pipeline::new(3, t);
    let path: &[SignalKind] = match stage {
        P::Scope => &[],
        P::Build => &[K::ScopeComplete],
        P::Review => &[K::ScopeComplete, K::BuildComplete],
        P::Test => &[K::ScopeComplete, K::BuildComplete, K::ReviewApproved],
        P::Done => &[
            K::ScopeComplete,
            K::BuildComplete,
            K::ReviewApproved,
            K::TestPassed,
        ],
        P::Failed | P::Cancelled => &[],
    };
    for &kind in path {
        p.apply(Signal::empty(kind), t)
            .expect("path follows the table");
    }
    match stage {
        P::Failed => {
            for kind in [K::ScopeComplete, K::BuildComplete] {
                p.apply(Signal::empty(kind), t).expect("forward");
            }
            for _ in 0..4 {
                for kind in [K::ReviewChangesRequested, K::BuildComplete] {
                    let _ = p.apply(Signal::empty(kind), t);
                }
            }
        }
        P::Cancelled => {
            p.cancel("test", t).expect("cancel a running pipeline");
        }
        _ => {}
    }
    assert_eq!(p.stage(), stage);
    p
}

const TABLE: [(Stage, SignalKind, Stage, bool); 6] = [
    (P::Scope, K::ScopeComplete, P::Build, false),
    (P::Build, K::BuildComplete, P::Review, false),
    (P::Review, K::ReviewApproved, P::Test, false),
    (P::Review, K::ReviewChangesRequested, P::Build, true),
    (P::Test, K::TestPassed, P::Done, false),
    (P::Test, K::TestFailed, P::Review, true),
];

#[test]
fn every_valid_transition() -> TestResult {
    let t = utc("2024-01-15T12:00:00Z");
    for (from, kind, to, retry) in TABLE {
        assert_eq!(next_stage(from, kind), Some((to, retry)));
        let mut p = at(from);
        let before = p.history().len();
        let mut body = BuildComplete::default();
        body.commits = Some(5);
        let signal = if kind == K::BuildComplete {
            Signal::from(body)
        } else {
            Signal::empty(kind)
        };
        let transition = p.apply(signal.clone(), t)?;
        assert_eq!(
            (transition.from, transition.to, transition.retry),
            (from, to, retry)
        );
        assert_eq!(p.stage(), to);
        assert_eq!(p.retries(), u32::from(retry));
        assert_eq!(transition.retries, p.retries());
        assert_eq!(p.history().len(), before + 1);
        let last = p.history().last().expect("recorded");
        assert_eq!(last, &transition);
        assert_eq!(
            (last.at, last.signal.as_ref()),
            (t, Some(&signal)),
            "time and body kept"
        );
        assert_eq!(p.updated_at(), t);
        assert_eq!(p.reason().is_some(), to == P::Done);
    }
    Ok(())
}

#[test]
fn every_invalid_transition_is_an_error_and_changes_nothing() {
    let mut checked = 0;
    for stage in Stage::ALL {
        for kind in SignalKind::ALL {
            if TABLE
                .iter()
                .any(|&(from, k, _, _)| from == stage && k == kind)
            {
                continue;
            }
            let mut p = at(stage);
            let before = p.clone();
            let err = p
                .apply(Signal::empty(kind), utc("2030-01-01T00:00:00Z"))
                .expect_err("does not fit");
            if stage.is_terminal() {
                assert!(err.is_finished(), "{stage} {kind}: {err}");
            } else {
                assert!(err.is_unexpected_signal(), "{stage} {kind}: {err}");
                let msg = err.to_string();
                assert!(
                    msg.contains(kind.file_name()) && msg.contains(stage.as_str()),
                    "{msg}"
                );
            }
            assert_eq!(p, before, "{stage} {kind}: nothing changed");
            assert!(p.check(kind).is_err());
            checked += 1;
        }
    }
    assert_eq!(checked, 7 * 6 - TABLE.len());
}

#[test]
fn review_build_loop_fails_at_the_fourth_return() -> TestResult {
    let t = utc("2024-01-15T12:00:00Z");
    let mut p = at(P::Review);
    for round in 1..=3 {
        let back = p.apply(Signal::empty(K::ReviewChangesRequested), t)?;
        assert_eq!((back.to, p.retries()), (P::Build, round));
        p.apply(Signal::empty(K::BuildComplete), t)?;
        assert_eq!(p.stage(), P::Review);
    }
    let fourth = p.apply(Signal::empty(K::ReviewChangesRequested), t)?;
    assert_eq!(
        (fourth.from, fourth.to, fourth.retry),
        (P::Review, P::Failed, true)
    );
    assert_eq!(p.stage(), P::Failed);
    assert_eq!(p.retries(), 3, "retries never exceed the limit");
    assert!(
        p.reason().is_some_and(|r| r.contains("retry limit")),
        "{:?}",
        p.reason()
    );
    assert_eq!(p.history().len(), 2 + 3 * 2 + 1);
    assert!(
        p.apply(Signal::empty(K::BuildComplete), t).is_err(),
        "FAILED is final"
    );
    Ok(())
}

#[test]
fn retries_count_both_kinds_of_return() -> TestResult {
    let t = utc("2024-01-15T12:00:00Z");
    // (max_retries, returns before the failing one)
    for max in [0, 1, 2, 3, 5] {
        let mut p = Pipeline::new(max, t);
        for kind in [K::ScopeComplete, K::BuildComplete, K::ReviewApproved] {
            p.apply(Signal::empty(kind), t)?;
        }
        let mut returns = 0;
        while !p.is_terminal() {
            // Alternate test-failed (TEST → REVIEW) and changes-requested (REVIEW → BUILD).
            let kind = match p.stage() {
                P::Test => K::TestFailed,
                P::Review if returns % 2 == 1 => K::ReviewChangesRequested,
                P::Review => K::ReviewApproved,
                P::Build => K::BuildComplete,
                other => return Err(format!("unexpected stage {other}").into()),
            };
            let tr = p.apply(Signal::empty(kind), t)?;
            if tr.retry && tr.to != P::Failed {
                returns += 1;
            }
        }
        assert_eq!(
            (p.stage(), returns, p.retries()),
            (P::Failed, max, max),
            "max {max}"
        );
    }
    Ok(())
}

#[test]
fn cancel_records_why_and_is_final() -> TestResult {
    let t = utc("2024-01-15T12:00:00Z");
    let mut p = at(P::Test);
    let tr = p.cancel("operator stopped it", t)?;
    assert_eq!(
        (tr.from, tr.to, tr.signal.is_none()),
        (P::Test, P::Cancelled, true)
    );
    assert_eq!(p.reason(), Some("cancelled: operator stopped it"));
    assert!(
        p.cancel("again", t)
            .expect_err("already ended")
            .is_finished()
    );
    let done = at(P::Done);
    assert_eq!(done.reason(), Some("all stages complete (test-passed)"));
    Ok(())
}

#[test]
fn state_json_round_trips_with_bodies() -> TestResult {
    let t = utc("2024-01-15T12:00:00.123Z");
    let mut p = at(P::Build);
    let mut body = BuildComplete::default();
    body.commits = Some(5);
    body.extra.insert("later".into(), serde_json::json!([1]));
    p.apply(Signal::from(body), t)?;
    let text = p.to_json();
    assert!(text.contains("\"stage\": \"REVIEW\"") && text.contains("2024-01-15T12:00:00.123Z"));
    assert_eq!(Pipeline::from_json(&text)?, p);
    Ok(())
}
