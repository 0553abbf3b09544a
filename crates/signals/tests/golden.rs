//! Golden tests: the protocol's JSON examples parse to the expected values, format byte for byte
//! as `fixtures/formatted/`, and format back to an equivalent JSON document.

use goldfish_signals::{
    BuildComplete, ReviewApproved, ReviewChangesRequested, ReviewIssue, ScopeComplete, Signal,
    SignalKind, TestFailed, TestPassed,
};
use serde_json::{Value, json};

use crate::util::{TestResult, fixture_dir, utc};

fn strings(items: &[&str]) -> Option<Vec<String>> {
    Some(items.iter().map(|s| s.to_string()).collect())
}

/// (fixture name, kind, expected value).
fn cases() -> Vec<(&'static str, SignalKind, Signal)> {
    let mut scope = ScopeComplete::default();
    scope.completed_at = Some(utc("2024-01-15T10:30:00Z"));
    scope.scope_result_hash = Some("abc123".into());

    let mut build = BuildComplete::default();
    build.completed_at = Some(utc("2024-01-15T11:00:00Z"));
    build.commits = Some(5);
    build.files_changed = Some(8);
    build.lines_added = Some(200);
    build.lines_removed = Some(50);

    let mut short = BuildComplete::default();
    short.commits = Some(5);

    let mut approved = ReviewApproved::default();
    approved.completed_at = Some(utc("2024-01-15T11:30:00Z"));
    approved.critical_issues = Some(0);
    approved.informational_issues = Some(2);
    approved.auto_fixes = Some(1);

    let mut issue = ReviewIssue::default();
    issue.issue_type = Some("critical".into());
    issue.category = Some("sql_injection".into());
    issue.file = Some("db.py".into());
    issue.line = Some(45);
    issue.fixed = Some(false);
    issue.description = Some("String interpolation in query".into());
    let mut changes = ReviewChangesRequested::default();
    changes.completed_at = Some(utc("2024-01-15T11:30:00Z"));
    changes.issues = Some(vec![issue]);
    changes.summary = Some("2 critical issues require fixes".into());

    let mut extra_issue = ReviewIssue::default();
    extra_issue.issue_type = Some("informational".into());
    extra_issue.file = Some("api.rs".into());
    extra_issue.line = Some(7);
    extra_issue.fixed = Some(true);
    extra_issue
        .extra
        .insert("suggested_patch".into(), json!("--- a/api.rs"));
    let mut extra = ReviewChangesRequested::default();
    extra.completed_at = Some(utc("2024-01-15T11:30:00Z"));
    extra.issues = Some(vec![extra_issue]);
    extra.summary = Some("1 issue, already fixed".into());
    extra
        .extra
        .insert("reviewer".into(), json!({"model": "x", "version": 2}));

    let mut passed = TestPassed::default();
    passed.completed_at = Some(utc("2024-01-15T12:00:00Z"));
    passed.qa_steps_total = Some(5);
    passed.qa_steps_passed = Some(5);
    passed.bugs_found = Some(2);
    passed.bugs_fixed = Some(2);
    passed.screenshots = strings(&["01-initial.png", "02-action.png", "03-result.png"]);

    let mut failed = TestFailed::default();
    failed.completed_at = Some(utc("2024-01-15T12:00:00Z"));
    failed.failing_steps = strings(&["QA-2", "QA-5"]);
    failed.reason = Some("Error handling not working".into());
    failed.attempts = Some(1);
    failed.screenshots = strings(&["01-initial.png", "02-error.png"]);

    vec![
        (
            "scope-complete",
            SignalKind::ScopeComplete,
            Signal::from(scope),
        ),
        (
            "build-complete",
            SignalKind::BuildComplete,
            Signal::from(build),
        ),
        (
            "build-complete.short",
            SignalKind::BuildComplete,
            Signal::from(short),
        ),
        (
            "review-approved",
            SignalKind::ReviewApproved,
            Signal::from(approved),
        ),
        (
            "review-changes-requested",
            SignalKind::ReviewChangesRequested,
            Signal::from(changes),
        ),
        (
            "review-changes-requested.extra",
            SignalKind::ReviewChangesRequested,
            Signal::from(extra),
        ),
        ("test-passed", SignalKind::TestPassed, Signal::from(passed)),
        ("test-failed", SignalKind::TestFailed, Signal::from(failed)),
    ]
}

#[test]
fn seed_examples_parse_format_and_round_trip() -> TestResult {
    let bless = std::env::var_os("GOLDFISH_BLESS").is_some();
    for (name, kind, expected) in cases() {
        let seed = std::fs::read_to_string(fixture_dir().join(format!("seed/{name}.json")))?;
        let parsed = Signal::parse(kind, &seed)?;
        assert_eq!(parsed, expected, "{name}: parsed value");

        let formatted = parsed.to_json();
        let golden_path = fixture_dir().join(format!("formatted/{name}.json"));
        if bless {
            std::fs::write(&golden_path, &formatted)?;
        }
        assert_eq!(
            formatted,
            std::fs::read_to_string(&golden_path)?,
            "{name}: golden bytes"
        );

        // An equivalent document: the same JSON value as the example's.
        let original: Value = serde_json::from_str(&seed)?;
        let again: Value = serde_json::from_str(&formatted)?;
        assert_eq!(again, original, "{name}: equivalent document");
        assert_eq!(
            Signal::parse(kind, &formatted)?,
            parsed,
            "{name}: parse after format"
        );
    }
    Ok(())
}

#[test]
fn every_kind_has_a_seed_example() {
    let names: Vec<&str> = cases().iter().map(|(name, _, _)| *name).collect();
    for kind in SignalKind::ALL {
        assert!(
            names.contains(&kind.file_name()),
            "no example fixture for {kind}"
        );
    }
}

#[test]
fn empty_files_are_signals_without_body() -> TestResult {
    for kind in SignalKind::ALL {
        for text in ["", "\n", "  \r\n"] {
            let signal = Signal::parse(kind, text)?;
            assert_eq!(signal, Signal::empty(kind));
            assert_eq!(signal.to_json(), "");
            assert_eq!(signal.completed_at(), None);
        }
    }
    Ok(())
}
