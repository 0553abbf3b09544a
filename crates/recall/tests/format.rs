//! Golden files: the markdown an agent reads, byte for byte.
//!
//! Set `GOLDFISH_BLESS=1` to rewrite the fixtures after an intended change.

use goldfish_recall::{
    FormatOptions, RecallOptions, StandupOptions, format_recall, format_standup, recall,
    standup_with,
};
use goldfish_store::PlanInput;

use crate::util::{TestResult, TestStore, t};

fn golden(name: &str, actual: &str) -> TestResult {
    // Every hit ends with its id, whose last part is random: the fixture says `id: ID`.
    let actual = ids_as_placeholders(actual);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    if std::env::var_os("GOLDFISH_BLESS").is_some() {
        std::fs::write(&path, &actual)?;
    }
    let expected = std::fs::read_to_string(&path)?;
    assert_eq!(
        actual, expected,
        "{name} differs; GOLDFISH_BLESS=1 rewrites it"
    );
    Ok(())
}

/// `actual` with the token after each `id: ` replaced by `ID`.
fn ids_as_placeholders(actual: &str) -> String {
    let mut out = String::new();
    let mut rest = actual;
    while let Some(at) = rest.find("id: ") {
        out.push_str(&rest[..at + 4]);
        rest = &rest[at + 4..];
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '·')
            .unwrap_or(rest.len());
        out.push_str("ID");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn store() -> Result<TestStore, Box<dyn std::error::Error>> {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    s.save_at(
        "2025-10-13T09:00:00Z",
        "api",
        "Fixed auth bug\nTokens expired after 30 min; now 60.",
        &["bug-fix", "auth"],
    )?;
    s.save_at(
        "2025-10-13T09:30:00Z",
        "api",
        "Added OAuth2 support",
        &["feature", "auth"],
    )?;
    s.save_at(
        "2025-10-13T10:15:00Z",
        "api",
        "Refactored database queries",
        &["refactor", "database"],
    )?;
    s.save_at(
        "2025-10-13T11:00:00Z",
        "web",
        "Dark mode for the settings page",
        &["ui"],
    )?;
    let mut plan = PlanInput::new(
        "Auth redesign",
        "## Progress\n- [x] JWT refresh\n- [ ] OAuth2\n- [ ] Sessions\n",
    );
    plan.workspace = Some("api".into());
    plan.activate = true;
    s.store.save_plan(plan)?;
    Ok(s)
}

fn opts(ws: &str) -> RecallOptions {
    let mut o = RecallOptions::default();
    o.workspace = ws.into();
    o.now = Some(t("2025-10-13T12:00:00Z"));
    o
}

#[test]
fn recall_summary_golden() -> TestResult {
    let s = store()?;
    let mut o = opts("api");
    o.limit = 2;
    golden(
        "recall_summary.md",
        &format_recall(&recall(&s.store, &o)?, &FormatOptions::default()),
    )
}

#[test]
fn recall_full_search_golden() -> TestResult {
    let s = store()?;
    let mut o = opts("api");
    o.search = Some("authentcation".into());
    let mut f = FormatOptions::default();
    f.full = true;
    golden(
        "recall_full_search.md",
        &format_recall(&recall(&s.store, &o)?, &f),
    )
}

#[test]
fn recall_all_tight_budget_golden() -> TestResult {
    let s = store()?;
    let o = opts("all");
    let mut f = FormatOptions::default();
    f.max_chars = 420;
    let text = format_recall(&recall(&s.store, &o)?, &f);
    assert!(text.chars().count() <= 420);
    golden("recall_all_budget.md", &text)
}

#[test]
fn standup_golden() -> TestResult {
    let s = store()?;
    let mut o = StandupOptions::default();
    o.now = Some(t("2025-10-13T12:00:00Z"));
    golden(
        "standup.md",
        &format_standup(&standup_with(&s.store, &o)?, &FormatOptions::default()),
    )
}

#[test]
fn the_full_view_says_who_saved_a_checkpoint() -> TestResult {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    let mut input = goldfish_store::CheckpointInput::new("Saved through a client");
    input.workspace = Some("api".into());
    input.actor.harness = Some("claude-code 2.1.197".into());
    input.actor.model = Some("claude-opus-4".into());
    input.actor.user = Some("dev".into());
    s.store.save_checkpoint(input)?;
    s.save_at("2025-10-13T09:30:00Z", "api", "Saved by nobody known", &[])?;
    let result = recall(&s.store, &opts("api"))?;
    let mut f = FormatOptions::default();
    f.full = true;
    let full = format_recall(&result, &f);
    let line = "  saved by: harness=claude-code 2.1.197 model=claude-opus-4 user=dev\n";
    assert_eq!(full.matches(line).count(), 1, "{full}");
    assert_eq!(full.matches("saved by:").count(), 1, "{full}");
    // The summary view stays one line per checkpoint.
    let summary = format_recall(&result, &FormatOptions::default());
    assert!(!summary.contains("saved by"), "{summary}");
    Ok(())
}
