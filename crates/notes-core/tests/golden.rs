//! The original format's examples and a hand-edited file: parse to the expected values, format back byte
//! for byte.

use notes_core::{Decision, FileChange, Notes, NotesManager, Stage, Step, StepStatus};

use crate::{TestResult, clock_at, fixture, read_fixture};

fn steps(list: &[(StepStatus, &str)]) -> Vec<Step> {
    list.iter().map(|(s, t)| Step::new(*s, *t)).collect()
}

fn decisions(list: &[(&str, &str)]) -> Vec<Decision> {
    list.iter()
        .map(|(d, r)| Decision {
            decision: d.to_string(),
            reason: r.to_string(),
        })
        .collect()
}

fn files(list: &[(&str, &str)]) -> Vec<FileChange> {
    list.iter()
        .map(|(p, d)| FileChange {
            path: p.to_string(),
            description: d.to_string(),
        })
        .collect()
}

#[test]
fn seed_build_example() -> TestResult {
    let text = read_fixture("seed_build.md")?;
    let notes = Notes::parse(&text)?;
    assert_eq!(notes.issue, "ENG-123");
    assert_eq!(notes.stage, Stage::Build);
    assert_eq!(
        notes.last_updated,
        goldfish_core::time::parse_utc("2024-01-15T10:30:00Z")?
    );
    assert_eq!(
        notes.current_objective,
        "Implement JWT-based user authentication"
    );
    use StepStatus::*;
    assert_eq!(
        notes.progress,
        steps(&[
            (Completed, "Created auth module with token validation"),
            (Completed, "Added authentication middleware"),
            (Completed, "Implemented login endpoint"),
            (InProgress, "Adding password reset flow"),
            (Pending, "Write unit tests"),
        ])
    );
    assert_eq!(
        notes.decisions,
        decisions(&[
            (
                "JWT over sessions",
                "Stateless authentication for horizontal scaling"
            ),
            ("24-hour expiration", "Balance security and UX"),
            ("Refresh tokens", "Deferred to v2"),
        ])
    );
    assert_eq!(
        notes.files_changed,
        files(&[
            ("src/auth/jwt.py", "JWT token handling"),
            ("src/auth/middleware.py", "Auth middleware"),
            ("src/routes/auth.py", "Login/logout endpoints"),
        ])
    );
    assert_eq!(
        notes.context,
        "Core auth flow is complete. Login/logout working. Need to:\n\
         1. Implement password reset (email flow)\n\
         2. Add unit tests for token validation\n\
         3. Integration tests for auth middleware"
    );
    assert!(notes.warnings().is_empty(), "{:?}", notes.warnings());
    assert_eq!(notes.kept_text().count(), 0);
    assert_eq!(notes.format(), text);
    Ok(())
}

#[test]
fn seed_initial_example() -> TestResult {
    let text = read_fixture("seed_initial.md")?;
    let notes = Notes::parse(&text)?;
    let mut want = Notes::new(
        "ENG-123",
        Stage::Build,
        "Implement user authentication based on scope plan",
        goldfish_core::time::parse_utc("2024-01-15T10:00:00Z")?,
    );
    for step in ["Create auth module", "Add middleware", "Write tests"] {
        want.add_pending(step);
    }
    want.set_context("Starting BUILD stage. Following scope plan.");
    assert_eq!(notes, want);
    assert_eq!(notes.format(), text);
    // Built from scratch, only the timestamp's spelling differs (we always write millis).
    assert_eq!(want.format(), text.replace("10:00:00Z", "10:00:00.000Z"));
    Ok(())
}

#[test]
fn hand_edited_file_round_trips_and_keeps_additions() -> TestResult {
    let text = read_fixture("hand_edited.md")?;
    let notes = Notes::parse(&text)?;
    assert_eq!(
        notes.format(),
        text,
        "unchanged notes format back byte for byte"
    );
    assert_eq!(notes.issue, "ENG-456");
    assert_eq!(
        notes.current_objective,
        "Review the `billing` refactor.\nKeep invoices idempotent."
    );
    assert_eq!(notes.context, "Reviewer should focus on `retry.rs`.");
    let kept: Vec<&str> = notes.kept_text().collect();
    assert_eq!(kept.len(), 4, "{kept:#?}");
    assert!(kept[0].starts_with("Owner: ada"));
    assert!(kept[1].starts_with("  (continuation"));
    assert!(kept[2].starts_with("## Blockers\n"));
    assert!(kept[3].starts_with("### Open questions"));

    // An update through the manager: everything a person added stays where it was.
    let dir = tempfile::tempdir()?;
    let path = NotesManager::path(dir.path());
    std::fs::create_dir_all(path.parent().ok_or("no parent")?)?;
    std::fs::write(&path, &text)?;
    let manager = NotesManager::with_clock(clock_at("2024-03-01T10:00:00.250Z"));
    manager.update_notes(dir.path(), |n| {
        n.add_completed_step("Review retry logic");
        n.add_decision("Keep legacy endpoint", "Two clients still call it");
        n.add_file_changed("src/billing/retry.rs", "Backoff capped at 30 s");
    })?;
    let got = std::fs::read_to_string(&path)?;
    if std::env::var_os("GOLDFISH_NOTES_BLESS").is_some() {
        // Regenerate after an intended format change, then review the diff.
        std::fs::write(fixture("hand_edited.updated.md"), &got)?;
    }
    let want = read_fixture("hand_edited.updated.md")?;
    assert_eq!(
        got,
        want,
        "golden: {}",
        fixture("hand_edited.updated.md").display()
    );
    Ok(())
}
