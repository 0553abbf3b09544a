//! The mutation protocol and the lifecycle calls' refusals.

use std::fs;

use goldfish_journal::{Approach, ErrorKind, Journal, LogKind, MutationCode};

use crate::util::{TestResult, clock, journal};

fn streaks(j: &Journal) -> TestResult<Vec<(String, u32, bool)>> {
    Ok(j.status()?
        .streaks
        .into_iter()
        .map(|s| (s.approach, s.failures, s.mutation_required))
        .collect())
}

#[test]
fn third_failure_requires_a_mutation_before_the_fourth_attempt() -> TestResult {
    let dir = tempfile::tempdir()?;
    let j = journal(dir.path(), "t", &clock(2026, 1, 2, 3, 4))?;
    j.boot("intent", "alpha", "start")?;
    for n in 1..=3u32 {
        let streak = j.fail("alpha", &format!("failure {n}"))?;
        assert_eq!((streak.failures, streak.mutation_required), (n, n == 3));
    }
    let before = fs::read(j.path())?;
    let err = j.fail("alpha", "fourth").unwrap_err();
    assert!(err.is_mutation_required());
    assert_eq!(err.approach(), Some("alpha"));
    assert_eq!(err.path(), Some(j.path()));
    assert_eq!(err.line(), Some(8));
    let msg = err.to_string();
    for needle in [
        "\"alpha\"",
        "3 times",
        "M1 (Fallback)",
        "M5 (Reduce Scope)",
        "M8 (Read)",
        "declare a mutation",
    ] {
        assert!(msg.contains(needle), "{msg} lacks {needle}");
    }
    // Every kind of attempt on the approach is refused, and a refusal writes nothing.
    assert!(
        j.fail(Approach::Current, "fourth")
            .unwrap_err()
            .is_mutation_required()
    );
    assert!(
        j.succeed("ALPHA", "it works")
            .unwrap_err()
            .is_mutation_required()
    );
    assert!(
        j.boot("again", "alpha", "retry")
            .unwrap_err()
            .is_mutation_required()
    );
    assert_eq!(fs::read(j.path())?, before);
    // Other work goes on: entries and other approaches.
    j.log(LogKind::Finding, "alpha cannot work with the SDK")?;
    j.fail("beta", "also failed")?;
    assert!(
        j.status()?
            .streak("alpha")
            .is_some_and(|s| s.mutation_required)
    );

    let record = j.mutate(
        MutationCode::Switch,
        "alpha",
        "gamma",
        "alpha is a dead end",
    )?;
    assert_eq!(record.mutation.failed_count, Some(3));
    assert_eq!(record.ordinal, 1);
    let status = j.status()?;
    assert_eq!(status.mutations, vec![record]);
    assert_eq!(status.current_approach.as_deref(), Some("gamma"));
    assert_eq!(streaks(&j)?, [("beta".to_string(), 1, false)]);
    // After the declaration the approach may be tried again, from zero.
    assert_eq!(j.fail("alpha", "one more time")?.failures, 1);
    Ok(())
}

#[test]
fn failures_of_different_approaches_do_not_add_up() -> TestResult {
    let dir = tempfile::tempdir()?;
    let j = journal(dir.path(), "t", &clock(2026, 1, 2, 3, 4))?;
    j.boot("i", "alpha", "")?;
    for approach in ["alpha", "beta", "alpha", "beta", "gamma"] {
        j.fail(approach, "no")?;
    }
    assert_eq!(
        streaks(&j)?,
        [
            ("alpha".to_string(), 2, false),
            ("beta".to_string(), 2, false),
            ("gamma".to_string(), 1, false)
        ]
    );
    assert!(j.fail("alpha", "third")?.mutation_required);
    assert_eq!(j.fail("beta", "third of beta")?.failures, 3);
    assert!(j.fail("gamma", "second of gamma").is_ok());
    assert!(
        j.fail("beta", "fourth of beta")
            .unwrap_err()
            .is_mutation_required()
    );
    Ok(())
}

#[test]
fn success_resets_the_streak() -> TestResult {
    let dir = tempfile::tempdir()?;
    let j = journal(dir.path(), "t", &clock(2026, 1, 2, 3, 4))?;
    j.boot("i", "alpha", "")?;
    j.fail(Approach::Current, "1")?;
    j.fail(Approach::Current, "2")?;
    j.succeed(Approach::Current, "worked once")?;
    j.fail(Approach::Current, "3")?;
    let streak = j.fail(Approach::Current, "4")?;
    assert_eq!((streak.failures, streak.mutation_required), (2, false));
    // A success of another approach does not reset this one.
    j.succeed("beta", "beta works")?;
    assert!(j.fail(Approach::Current, "5")?.mutation_required);
    Ok(())
}

#[test]
fn mutate_picks_the_one_required_approach_and_checks_its_arguments() -> TestResult {
    let dir = tempfile::tempdir()?;
    let j = journal(dir.path(), "t", &clock(2026, 1, 2, 3, 4))?;
    j.boot("i", "alpha", "")?;
    for _ in 0..3 {
        j.fail("beta", "no")?;
    }
    let cases: [(&str, ErrorKind); 4] = [
        ("beta", ErrorKind::InvalidInput),
        ("BETA ", ErrorKind::InvalidInput),
        ("new [x]", ErrorKind::InvalidInput),
        ("", ErrorKind::InvalidInput),
    ];
    for (to, kind) in cases {
        let err = j
            .mutate(MutationCode::Ask, Approach::Current, to, "why")
            .unwrap_err();
        assert_eq!(err.kind(), kind, "{to:?}: {err}");
    }
    assert!(
        j.mutate(MutationCode::Ask, "beta", "delta", "a\nb")
            .unwrap_err()
            .is_invalid_input()
    );
    let record = j.mutate(
        MutationCode::Ask,
        Approach::Current,
        "delta",
        "ask the SDK team",
    )?;
    assert_eq!(record.mutation.failed_on.as_deref(), Some("beta"));
    let text = fs::read_to_string(j.path())?;
    assert!(text.ends_with(
        "\n\n## MUTATION: M7 (Ask)\nFailed 3x on: beta\nSwitching to: delta\nRationale: ask the SDK team\n"
    ), "{text}");
    Ok(())
}

#[test]
fn entries_of_more_than_two_lines_are_refused() -> TestResult {
    let dir = tempfile::tempdir()?;
    let j = journal(dir.path(), "t", &clock(2026, 1, 2, 3, 4))?;
    j.boot("i", "a", "s")?;
    let before = fs::read(j.path())?;
    let err = j.log(LogKind::Note, "one\ntwo\nthree").unwrap_err();
    assert!(err.is_entry_too_long());
    assert!(err.to_string().contains("3 lines"), "{err}");
    assert!(j.fail("a", "x\ny\nz").unwrap_err().is_entry_too_long());
    assert!(j.log(LogKind::Note, "   ").unwrap_err().is_invalid_input());
    assert_eq!(fs::read(j.path())?, before, "refusals write nothing");
    let line = j.log(
        LogKind::Decision,
        "session token, not JWT\nfor SSR compatibility",
    )?;
    let text = fs::read_to_string(j.path())?;
    assert!(text.ends_with("\nDecision: session token, not JWT\n  for SSR compatibility\n"));
    assert_eq!(
        text.lines().nth(line - 1),
        Some("Decision: session token, not JWT")
    );
    assert_eq!(
        j.status()?.last_decision.as_deref(),
        Some("session token, not JWT\nfor SSR compatibility")
    );
    Ok(())
}

#[test]
fn nothing_works_before_boot_and_open_needs_a_directory() -> TestResult {
    let dir = tempfile::tempdir()?;
    let j = Journal::open(dir.path())?;
    assert!(j.log(LogKind::Note, "x").unwrap_err().is_not_booted());
    assert!(j.fail("a", "x").unwrap_err().is_not_booted());
    assert!(j.status().unwrap_err().is_not_booted());
    assert!(j.handover().unwrap_err().is_not_booted());
    assert!(!j.exists());
    let file = dir.path().join("file");
    fs::write(&file, "x")?;
    assert_eq!(
        Journal::open(&file).unwrap_err().kind(),
        ErrorKind::NotADirectory
    );
    assert_eq!(
        Journal::open(dir.path().join("missing"))
            .unwrap_err()
            .kind(),
        ErrorKind::NotADirectory
    );
    // Without an approach in force, a failure must name one.
    let j = journal(dir.path(), "t", &clock(2026, 1, 2, 3, 4))?;
    j.boot("i", "", "")?;
    assert!(
        j.fail(Approach::Current, "x")
            .unwrap_err()
            .is_invalid_input()
    );
    Ok(())
}

#[test]
fn state_is_derived_from_hand_edits_too() -> TestResult {
    let dir = tempfile::tempdir()?;
    let j = journal(dir.path(), "t", &clock(2026, 1, 2, 3, 4))?;
    j.boot("i", "alpha", "s")?;
    j.fail("alpha", "1")?;
    // A person appends two failures by hand, in the original plain form, without a final newline.
    let mut text = fs::read_to_string(j.path())?;
    text.push_str("some prose a person wrote\n❌ Failed: 2\n❌ Failed: 3");
    fs::write(j.path(), &text)?;
    assert!(
        j.status()?
            .streak("alpha")
            .is_some_and(|s| s.failures == 3 && s.mutation_required)
    );
    assert!(j.fail("alpha", "4").unwrap_err().is_mutation_required());
    // The writer completes the unterminated line and keeps the prose.
    j.mutate(
        MutationCode::Read,
        Approach::Current,
        "beta",
        "read the SDK source first",
    )?;
    let after = fs::read_to_string(j.path())?;
    assert!(after.starts_with(&text));
    assert!(
        after[text.len()..].starts_with("\n\n## MUTATION: M8 (Read)\n"),
        "{after}"
    );
    Ok(())
}

#[test]
fn boot_creates_then_appends_sessions() -> TestResult {
    let dir = tempfile::tempdir()?;
    let c = clock(2026, 5, 6, 7, 8);
    let j = journal(dir.path(), "my task", &c)?;
    let first = j.boot("intent one", "alpha", "first")?;
    assert_eq!(first.line, 2);
    j.log(LogKind::Note, "n")?;
    c.advance(chrono::TimeDelta::minutes(90));
    let second = j.boot("", "", "")?;
    assert_eq!(second.line, 8);
    assert_eq!(
        fs::read_to_string(j.path())?,
        "# JOURNAL — my task\n## 2026-05-06 07:08 — first\nIntent: intent one\nApproach: alpha\n\n\
         Note: n\n\n## 2026-05-06 08:38\n"
    );
    let status = j.status()?;
    assert_eq!(status.sessions, 2);
    assert_eq!(status.session, Some(second));
    assert_eq!(
        status.current_approach.as_deref(),
        Some("alpha"),
        "the approach carries over"
    );
    assert!(j.boot("a\nb", "x", "t").unwrap_err().is_invalid_input());
    Ok(())
}
