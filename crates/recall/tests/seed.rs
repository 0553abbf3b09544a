//! Goldfish v4's own recall tests (from its fuse.js days), translated test by test.

use goldfish_core::time::format_utc;
use goldfish_recall::{RecallOptions, recall};
use goldfish_store::PlanInput;

use crate::util::{TestResult, TestStore, t};

/// Those tests' `beforeEach`: three checkpoints in workspace `test` on 2025-10-13.
fn seeded() -> Result<TestStore, Box<dyn std::error::Error>> {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    s.save_at(
        "2025-10-13T09:00:00Z",
        "test",
        "Fixed auth bug",
        &["bug-fix", "auth"],
    )?;
    s.save_at(
        "2025-10-13T09:05:00Z",
        "test",
        "Added OAuth2 support",
        &["feature", "auth"],
    )?;
    s.save_at(
        "2025-10-13T09:10:00Z",
        "test",
        "Refactored database queries",
        &["refactor", "database"],
    )?;
    s.clock.set(t("2025-10-13T10:00:00Z"));
    Ok(s)
}

fn opts(s: &TestStore) -> RecallOptions {
    let mut o = RecallOptions::default();
    o.workspace = "test".into();
    o.now = Some(s.now());
    o
}

#[test]
fn returns_checkpoints_from_last_n_days() -> TestResult {
    let s = seeded()?;
    let mut o = opts(&s);
    o.days = Some(7);
    let r = recall(&s.store, &o)?;
    assert_eq!(r.hits.len(), 3);
    // Without a search: newest first.
    assert_eq!(r.hits[0].checkpoint.title(), "Refactored database queries");
    assert_eq!(r.hits[2].checkpoint.title(), "Fixed auth bug");
    Ok(())
}

#[test]
fn searches_with_fuzzy_matching() -> TestResult {
    let s = seeded()?;
    let mut o = opts(&s);
    o.search = Some("authentication".into());
    let r = recall(&s.store, &o)?;
    assert!(!r.hits.is_empty());
    assert!(r.hits[0].checkpoint.description.contains("auth"));
    // Relevance, not time: the best match is first although it is the oldest.
    assert_eq!(r.hits[0].checkpoint.title(), "Fixed auth bug");
    assert!(
        r.checkpoints()
            .all(|c| c.title() != "Refactored database queries")
    );
    Ok(())
}

#[test]
fn aggregates_across_all_workspaces() -> TestResult {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    s.save_at("2025-10-13T09:00:00Z", "project-a", "Work A", &[])?;
    s.save_at("2025-10-13T09:01:00Z", "project-b", "Work B", &[])?;
    let mut o = RecallOptions::default();
    o.workspace = "all".into();
    o.days = Some(1);
    o.now = Some(t("2025-10-13T10:00:00Z"));
    let r = recall(&s.store, &o)?;
    assert_eq!(r.workspaces.len(), 2);
    assert_eq!(r.scope, goldfish_recall::Scope::All);
    assert_eq!(r.hits.len(), 2);
    assert!(r.active_plan.is_none());
    Ok(())
}

#[test]
fn includes_active_plan_in_recall_results() -> TestResult {
    let s = seeded()?;
    let mut plan = PlanInput::new("Test", "- [x] one\n- [ ] two\n");
    plan.id = Some("test-plan".into());
    plan.workspace = Some("test".into());
    plan.activate = true;
    s.store.save_plan(plan)?;
    let r = recall(&s.store, &opts(&s))?;
    assert_eq!(
        r.active_plan.as_ref().map(|p| p.id.as_str()),
        Some("test-plan")
    );

    // A completed plan is not active any more and is left out.
    s.store.complete_plan("test", "test-plan")?;
    assert!(recall(&s.store, &opts(&s))?.active_plan.is_none());
    Ok(())
}

#[test]
fn handles_date_edge_cases_correctly() -> TestResult {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    for at in [
        "2025-10-12T23:59:59.999Z",
        "2025-10-13T00:00:00.000Z",
        "2025-10-13T12:00:00.000Z",
        "2025-10-13T23:59:59.500Z",
        "2025-10-14T00:00:00.000Z",
    ] {
        s.save_at(at, "test", &format!("at {at}"), &[])?;
    }
    let want = [
        "2025-10-13T23:59:59.500Z",
        "2025-10-13T12:00:00.000Z",
        "2025-10-13T00:00:00.000Z",
    ];
    for (from, to) in [
        ("2025-10-13T00:00:00Z", "2025-10-13T23:59:59Z"),
        ("2025-10-13", "2025-10-13"),
        ("2025-10-13T05:30:00+05:30", "2025-10-14T05:29:59.999+05:30"),
    ] {
        let mut o = opts(&s);
        o.from = Some(from.into());
        o.to = Some(to.into());
        o.now = Some(t("2025-11-01T00:00:00Z"));
        let r = recall(&s.store, &o)?;
        let got: Vec<String> = r.checkpoints().map(|c| format_utc(&c.timestamp)).collect();
        assert!(
            got.iter().all(|ts| ts.starts_with("2025-10-13")),
            "{from}..{to}: {got:?}"
        );
        assert_eq!(got, want, "{from}..{to}");
    }
    Ok(())
}
