//! The hand-over view on small and large journals.

use goldfish_journal::{Handover, HandoverOptions, Journal, LogKind, Status};

use crate::util::{TestResult, clock, journal};

/// A journal of exactly `lines` lines with an open failure streak near the end.
fn big_journal(lines: usize) -> String {
    let mut text = String::from(
        "# JOURNAL — big\n## 2026-01-01 10:00 — long session\nIntent: stress\nApproach: alpha\n\n",
    );
    let mut n = 5;
    while n < lines - 2 {
        text.push_str(&format!("Decision: decision number {n}\n"));
        n += 1;
    }
    text.push_str("❌ Failed: late failure\nCurrent state: nearly done\n");
    text
}

#[test]
fn ten_thousand_lines_give_exactly_the_last_fifty_and_the_status() -> TestResult {
    let dir = tempfile::tempdir()?;
    let text = big_journal(10_000);
    let j = Journal::open(dir.path())?;
    std::fs::write(j.path(), &text)?;

    let h = j.handover()?;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 10_000);
    assert_eq!(h.tail, lines[10_000 - 50..].concat());
    assert_eq!((h.first_line, h.tail_lines), (9_951, 50));
    assert_eq!(h.status, Status::from_text(&text));
    assert_eq!(h.status.lines, 10_000);
    assert_eq!(h.status.streak("alpha").map(|s| s.failures), Some(1));
    assert_eq!(h.status.current_state.as_deref(), Some("nearly done"));
    assert_eq!(h, Handover::from_text(&text, &HandoverOptions::default()));

    let shown = h.to_string();
    assert!(
        shown.contains("last 50 of 10000 lines (from line 9951)"),
        "{shown}"
    );
    assert!(shown.contains(&h.tail));
    assert!(shown.contains("Current state: nearly done"));
    assert!(shown.contains("\"alpha\" failed 1x"));
    assert!(
        !shown.contains("decision number 9947\n"),
        "nothing before the tail"
    );
    Ok(())
}

#[test]
fn short_journal_is_shown_whole_with_a_required_mutation() -> TestResult {
    let dir = tempfile::tempdir()?;
    let j = journal(dir.path(), "short", &clock(2026, 2, 3, 4, 5))?;
    j.boot("i", "alpha", "s")?;
    for n in 0..3 {
        j.fail("alpha", &format!("failure {n}"))?;
    }
    j.log(LogKind::State, "stuck on alpha")?;
    let text = std::fs::read_to_string(j.path())?;
    let h = j.handover()?;
    assert_eq!(h.tail, text);
    assert_eq!(h.first_line, 1);
    let shown = h.to_string();
    assert!(
        shown.contains("Mutation required: YES for \"alpha\""),
        "{shown}"
    );
    assert!(shown.contains("M5 (Reduce Scope)"), "{shown}");
    let mut options = HandoverOptions::default();
    options.lines = 2;
    let few = j.handover_with(&options)?;
    assert_eq!(
        few.tail,
        "❌ Failed: failure 2\nCurrent state: stuck on alpha\n"
    );
    Ok(())
}

#[test]
fn invalid_utf8_is_reported_with_its_line() -> TestResult {
    let dir = tempfile::tempdir()?;
    let j = Journal::open(dir.path())?;
    std::fs::write(j.path(), b"# JOURNAL \xe2\x80\x94 t\nok\n\xff bad\n")?;
    let err = j.handover().unwrap_err();
    assert!(err.is_io());
    assert_eq!(err.line(), Some(3));
    assert!(err.to_string().contains("JOURNAL.md"), "{err}");
    let err = j.log(LogKind::Note, "x").unwrap_err();
    assert!(err.to_string().contains("line 3"), "{err}");
    Ok(())
}
