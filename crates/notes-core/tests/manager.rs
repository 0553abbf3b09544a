//! NotesManager: init, update, write, clock injection and file permissions.

use std::fs;

use notes_core::{Notes, NotesManager, Stage};

use crate::{TestResult, clock_at, read_fixture};

#[test]
fn init_then_updates_reproduce_the_seed_examples() -> TestResult {
    let dir = tempfile::tempdir()?;
    let clock = clock_at("2024-01-15T10:00:00Z");
    let manager = NotesManager::with_clock(clock.clone());
    manager.init_notes(
        dir.path(),
        "ENG-123",
        Stage::Build,
        "Implement user authentication based on scope plan",
    )?;
    manager.update_notes(dir.path(), |n| {
        for step in ["Create auth module", "Add middleware", "Write tests"] {
            n.add_pending(step);
        }
        n.set_context("Starting BUILD stage. Following scope plan.");
    })?;
    let path = NotesManager::path(dir.path());
    assert_eq!(path, dir.path().join(".goblin/GOBLIN_NOTES.md"));
    let want = read_fixture("seed_initial.md")?.replace("10:00:00Z", "10:00:00.000Z");
    assert_eq!(fs::read_to_string(&path)?, want);

    clock.set(goldfish_core::time::parse_utc("2024-01-15T10:30:00Z")?);
    manager.update_notes(dir.path(), |n| {
        n.set_objective("Implement JWT-based user authentication");
        n.progress.clear();
        n.add_completed_step("Created auth module with token validation");
        n.add_completed_step("Added authentication middleware");
        n.add_completed_step("Implemented login endpoint");
        n.add_in_progress("Adding password reset flow");
        n.add_pending("Write unit tests");
        n.add_decision(
            "JWT over sessions",
            "Stateless authentication for horizontal scaling",
        );
        n.add_decision("24-hour expiration", "Balance security and UX");
        n.add_decision("Refresh tokens", "Deferred to v2");
        n.add_file_changed("src/auth/jwt.py", "JWT token handling");
        n.add_file_changed("src/auth/middleware.py", "Auth middleware");
        n.add_file_changed("src/routes/auth.py", "Login/logout endpoints");
        n.set_context(
            "Core auth flow is complete. Login/logout working. Need to:\n\
             1. Implement password reset (email flow)\n\
             2. Add unit tests for token validation\n\
             3. Integration tests for auth middleware",
        );
    })?;
    let want = read_fixture("seed_build.md")?.replace("10:30:00Z", "10:30:00.000Z");
    assert_eq!(fs::read_to_string(&path)?, want);
    Ok(())
}

#[test]
fn init_on_existing_notes_keeps_history() -> TestResult {
    let dir = tempfile::tempdir()?;
    NotesManager::init(dir.path(), "ENG-9", Stage::Scope, "Plan")?;
    NotesManager::update(dir.path(), |n| n.add_decision("Use Rust", "Speed"))?;
    let notes = NotesManager::init(dir.path(), "ENG-9", Stage::Build, "Build it")?;
    assert_eq!(notes.stage, Stage::Build);
    assert_eq!(notes.current_objective, "Build it");
    assert_eq!(notes.decisions.len(), 1);
    assert_eq!(NotesManager::read(dir.path())?, notes);
    Ok(())
}

#[test]
fn write_stamps_time_and_applies_limits() -> TestResult {
    let dir = tempfile::tempdir()?;
    let manager = NotesManager::with_clock(clock_at("2025-02-03T04:05:06.789Z"));
    let mut notes = Notes::new("ENG-3", Stage::Test, "Limits", chrono::DateTime::UNIX_EPOCH);
    for i in 0..7 {
        notes.decisions.push(notes_core::Decision {
            decision: format!("d{i}"),
            reason: String::new(),
        });
    }
    manager.write_notes(dir.path(), &notes)?;
    let back = NotesManager::read(dir.path())?;
    assert_eq!(
        goldfish_core::time::format_utc(&back.last_updated),
        "2025-02-03T04:05:06.789Z"
    );
    assert_eq!(back.decisions.len(), Notes::MAX_DECISIONS);
    assert_eq!(back.context, "Earlier decisions: d0; d1");
    assert_eq!(
        notes.decisions.len(),
        7,
        "the caller's value is not changed"
    );
    Ok(())
}

#[test]
fn update_returns_the_closure_value() -> TestResult {
    let dir = tempfile::tempdir()?;
    NotesManager::init(dir.path(), "ENG-4", Stage::Review, "Review")?;
    let stage = NotesManager::update(dir.path(), |n| {
        n.set_stage(Stage::Test);
        n.stage
    })?;
    assert_eq!(stage, Stage::Test);
    assert_eq!(NotesManager::read(dir.path())?.stage, Stage::Test);
    Ok(())
}

#[cfg(unix)]
#[test]
fn files_follow_the_umask_and_keep_their_mode() -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir()?;
    NotesManager::init(dir.path(), "ENG-5", Stage::Build, "Modes")?;
    let path = NotesManager::path(dir.path());
    // A file made by std in the same directory gets exactly the umask's mode.
    let reference = dir.path().join(".goblin/reference");
    fs::write(&reference, "x")?;
    let mode = |p: &std::path::Path| -> std::io::Result<u32> {
        Ok(fs::metadata(p)?.permissions().mode() & 0o777)
    };
    assert_eq!(mode(&path)?, mode(&reference)?);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640))?;
    NotesManager::update(dir.path(), |n| n.set_stage(Stage::Review))?;
    assert_eq!(mode(&path)?, 0o640, "a replaced file keeps its mode");
    Ok(())
}
