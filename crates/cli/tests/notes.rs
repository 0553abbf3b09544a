//! `goldfish notes …`.

use crate::util::{Env, TestResult, contains_all};

#[test]
fn every_subcommand() -> TestResult {
    let env = Env::new()?;
    env.fails(&["notes", "show"], 1, "goldfish notes init")?;
    env.ok(&[
        "notes",
        "init",
        "ENG-123",
        "--objective",
        "Implement auth",
        "--stage",
        "build",
    ])?;
    env.ok(&["notes", "objective", "Implement auth, then tests"])?;
    env.ok(&["notes", "step", "Created auth module"])?;
    env.ok(&[
        "notes",
        "step",
        "Wiring middleware",
        "--status",
        "in-progress",
    ])?;
    env.ok(&[
        "notes",
        "decision",
        "Using JWT",
        "--reason",
        "Stateless auth",
    ])?;
    env.ok(&["notes", "file", "src/auth.rs", "--note", "new module"])?;
    env.ok(&["notes", "stage", "REVIEW"])?;
    env.fails(&["notes", "stage", "SHIP"], 1, "unknown stage")?;
    env.fails(
        &["notes", "step", "x", "--status", "someday"],
        1,
        "unknown step status",
    )?;

    let text = std::fs::read_to_string(env.cwd.path().join(".goblin").join("GOBLIN_NOTES.md"))?;
    contains_all(
        &text,
        &[
            "Issue: ENG-123",
            "Stage: REVIEW",
            "Implement auth, then tests",
            "Created auth module",
            "Using JWT: Stateless auth",
            "`src/auth.rs`",
        ],
    )?;
    let v = env.json(&["notes", "show"])?;
    assert_eq!(v["stage"], "REVIEW");
    assert_eq!(v["completed"], serde_json::json!(["Created auth module"]));
    assert_eq!(v["in_progress"], serde_json::json!(["Wiring middleware"]));
    contains_all(&env.ok(&["notes", "show"])?, &["# GOBLIN_NOTES"])?;
    Ok(())
}
