//! Golden files: the Cognitive Journals examples parse to the expected values and format back byte for
//! byte; the writer produces them exactly.

use chrono::{TimeZone, Utc};
use goldfish_journal::{Approach, Document, EntryKind, ItemKind, LogKind, MutationCode, Status};

use crate::util::{TestResult, clock, fixture, journal};

fn kinds(doc: &Document) -> Vec<ItemKind> {
    doc.items().iter().map(|i| i.kind().clone()).collect()
}

/// Builds the expected item kinds from a compact description, through the public parser of
/// single lines, so the test states values rather than re-implementing the format.
fn entry(kind: EntryKind, approach: Option<&str>, text: &str) -> ItemKind {
    let line = match (kind, approach) {
        (EntryKind::Failed, Some(a)) => format!("❌ Failed [{a}]: {text}\n"),
        (EntryKind::Failed, None) => format!("❌ Failed: {text}\n"),
        (EntryKind::Working, Some(a)) => format!("✅ Worked [{a}]: {text}\n"),
        (EntryKind::Working, None) => format!("✅ {text}\n"),
        (EntryKind::Lesson, _) => format!("→ {text}\n"),
        (EntryKind::State, _) => format!("Current state: {text}\n"),
        _ => format!("Decision: {text}\n"),
    };
    let doc = Document::parse(&line);
    let ItemKind::Entry(e) = doc.items()[0].kind().clone() else {
        panic!("not an entry: {line}")
    };
    assert_eq!(
        (e.kind, e.approach.as_deref(), e.text.as_str()),
        (kind, approach, text)
    );
    ItemKind::Entry(e)
}

#[test]
fn seed_example_parses_to_expected_values_and_back() -> TestResult {
    let text = fixture("seed-auth.md")?;
    let doc = Document::parse(&text);
    assert_eq!(doc.format(), text, "byte for byte");
    assert_eq!(doc.to_string(), text);
    assert_eq!(doc.task(), Some("auth/machine-token-flow"));

    let items = kinds(&doc);
    assert_eq!(items.len(), 10, "{items:#?}");
    assert_eq!(
        items[0],
        ItemKind::Title {
            task: "auth/machine-token-flow".into()
        }
    );
    let ItemKind::Session(first) = &items[1] else {
        panic!("{:?}", items[1])
    };
    assert_eq!(
        first.started,
        Utc.with_ymd_and_hms(2026, 3, 17, 14, 30, 0).unwrap()
    );
    assert_eq!(first.title, "attempted direct token swap");
    assert_eq!(
        first.intent.as_deref(),
        Some("replace JWT with machine token in all API routes")
    );
    assert_eq!(
        first.approach.as_deref(),
        Some("update middleware to accept both formats")
    );
    assert_eq!(first.line, 2);
    assert_eq!(items[2], ItemKind::Blank);
    assert_eq!(
        items[3],
        entry(
            EntryKind::Failed,
            None,
            "Convex client rejects dual-format tokens at SDK level"
        )
    );
    assert_eq!(
        items[4],
        entry(
            EntryKind::Lesson,
            None,
            "Cannot swap at middleware layer, must use session token wrapper"
        )
    );
    assert_eq!(items[5], ItemKind::Blank);
    let ItemKind::Session(second) = &items[6] else {
        panic!("{:?}", items[6])
    };
    assert_eq!(
        second.started,
        Utc.with_ymd_and_hms(2026, 3, 17, 15, 45, 0).unwrap()
    );
    assert_eq!(second.title, "pivot to session wrapper");
    assert_eq!(
        second.approach.as_deref(),
        Some("create token adapter in lib/auth")
    );
    assert_eq!(second.line, 9);
    assert_eq!(
        items[8],
        entry(
            EntryKind::Working,
            None,
            "Working on 3/7 routes, blocked on /api/graphql (different auth path)"
        )
    );
    assert_eq!(
        items[9],
        entry(
            EntryKind::State,
            None,
            "lib/auth/machine-adapter.ts created, needs /api/graphql fix"
        )
    );

    let status = doc.status();
    assert_eq!(status, Status::from_text(&text));
    assert_eq!(status.task.as_deref(), Some("auth/machine-token-flow"));
    assert_eq!(status.sessions, 2);
    assert_eq!(status.session.as_ref(), Some(second));
    assert_eq!(
        status.current_approach.as_deref(),
        Some("create token adapter in lib/auth")
    );
    // The first approach failed once and was left: its streak stays open, below the threshold.
    let streaks: Vec<_> = status
        .streaks
        .iter()
        .map(|s| (s.approach.as_str(), s.failures))
        .collect();
    assert_eq!(streaks, [("update middleware to accept both formats", 1)]);
    assert_eq!(status.mutation_required().count(), 0);
    assert!(status.mutations.is_empty());
    assert_eq!(
        status.current_state.as_deref(),
        Some("lib/auth/machine-adapter.ts created, needs /api/graphql fix")
    );
    assert_eq!((status.entries, status.lines), (4, 14));
    Ok(())
}

#[test]
fn seed_mutation_example_parses_and_formats_back() -> TestResult {
    let text = fixture("seed-mutation.md")?;
    let doc = Document::parse(&text);
    assert_eq!(doc.format(), text);
    let items = kinds(&doc);
    assert_eq!(items.len(), 1, "one block: {items:#?}");
    let ItemKind::Mutation(m) = &items[0] else {
        panic!("{:?}", items[0])
    };
    assert_eq!(m.code, MutationCode::ReduceScope);
    assert_eq!(m.failed_count, Some(3));
    assert_eq!(
        m.failed_on.as_deref(),
        Some("full token swap across all routes")
    );
    assert_eq!(
        m.switching_to.as_deref(),
        Some("middleware hook only, scoped to /api")
    );
    assert_eq!(
        m.rationale.as_deref(),
        Some("scope too broad to verify in isolation")
    );

    let status = doc.status();
    assert_eq!(status.mutations.len(), 1);
    assert_eq!(&status.mutations[0].mutation, m);
    assert_eq!(status.mutations[0].line, 1);
    assert_eq!(
        status.current_approach.as_deref(),
        Some("middleware hook only, scoped to /api")
    );
    Ok(())
}

#[test]
fn writer_reproduces_the_seed_example_exactly() -> TestResult {
    let dir = tempfile::tempdir()?;
    let clock = clock(2026, 3, 17, 14, 30);
    let j = journal(dir.path(), "auth/machine-token-flow", &clock)?;
    j.boot(
        "replace JWT with machine token in all API routes",
        "update middleware to accept both formats",
        "attempted direct token swap",
    )?;
    j.fail(
        Approach::Current,
        "Convex client rejects dual-format tokens at SDK level",
    )?;
    j.log(
        LogKind::Lesson,
        "Cannot swap at middleware layer, must use session token wrapper",
    )?;
    clock.set(Utc.with_ymd_and_hms(2026, 3, 17, 15, 45, 27).unwrap());
    j.boot(
        "wrap machine token in session context",
        "create token adapter in lib/auth",
        "pivot to session wrapper",
    )?;
    j.succeed(
        "create token adapter in lib/auth",
        "Working on 3/7 routes, blocked on /api/graphql (different auth path)",
    )?;
    j.log(
        LogKind::State,
        "lib/auth/machine-adapter.ts created, needs /api/graphql fix",
    )?;
    assert_eq!(std::fs::read_to_string(j.path())?, fixture("seed-auth.md")?);
    Ok(())
}

/// The whole protocol through the API, against a reviewed golden file: named approaches in
/// brackets, a two-line entry, the refusal leaving no trace, a mutation and its success.
#[test]
fn writer_protocol_golden() -> TestResult {
    let dir = tempfile::tempdir()?;
    let clock = clock(2026, 3, 18, 9, 0);
    let j = journal(dir.path(), "auth-overhaul", &clock)?;
    j.boot("migrate to Pattern B", "full token swap", "")?;
    j.log(LogKind::Decision, "use useConvexMutation")?;
    j.fail("full token swap", "SDK rejects dual-format tokens")?;
    j.fail("session wrapper", "wrapper loses the request scope")?;
    j.log(
        LogKind::Finding,
        "need auth middleware hook\nsee lib/auth/hook.ts:42",
    )?;
    j.fail("Full  Token Swap", "Convex client not scoped")?;
    let third = j.fail(Approach::Current, "reverted: still not scoped")?;
    assert!(third.mutation_required);
    assert!(
        j.fail(Approach::Current, "one more try")
            .unwrap_err()
            .is_mutation_required()
    );
    j.mutate(
        MutationCode::ReduceScope,
        Approach::Current,
        "middleware hook only",
        "scope too broad to verify in isolation",
    )?;
    j.succeed("middleware hook only", "hook works on /api/users")?;
    j.succeed("session wrapper", "wrapper works once the hook runs first")?;
    j.log(LogKind::State, "hook merged; /api/graphql next")?;
    let text = std::fs::read_to_string(j.path())?;
    if std::env::var_os("GOLDFISH_UPDATE_GOLDEN").is_some() {
        std::fs::write(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/protocol.md"),
            &text,
        )?;
    }
    assert_eq!(text, fixture("protocol.md")?);
    let doc = Document::parse(&text);
    assert_eq!(doc.format(), text);
    let status = j.status()?;
    assert_eq!(status, doc.status());
    assert!(status.streaks.is_empty(), "{:?}", status.streaks);
    assert_eq!(
        status.mutations[0].outcome.as_deref(),
        Some("hook works on /api/users")
    );
    assert_eq!(status.mutations[0].mutation.failed_count, Some(3));
    assert_eq!(
        status.mutations[0].mutation.failed_on.as_deref(),
        Some("full token swap")
    );
    assert_eq!(
        status.current_state.as_deref(),
        Some("hook merged; /api/graphql next")
    );
    Ok(())
}
