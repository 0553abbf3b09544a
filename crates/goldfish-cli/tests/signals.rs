//! `goldfish signal …` and `goldfish pipeline …`.

use crate::util::{Env, TestResult, contains_all};

#[test]
fn emit_list_clear() -> TestResult {
    let env = Env::new()?;
    let goblin = env.cwd.path().join(".goblin");
    env.ok(&["signal", "emit", "scope-complete"])?;
    assert_eq!(std::fs::read_to_string(goblin.join("scope-complete"))?, "");
    env.ok(&[
        "signal",
        "emit",
        "build-complete",
        "--json",
        "{\"commits\": 3}",
    ])?;
    let body: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(goblin.join("build-complete"))?)?;
    assert_eq!(body["commits"], 3);
    env.ok(&[
        "signal",
        "emit",
        "test-failed",
        "-f",
        "reason=flaky login",
        "-f",
        "attempts=2",
    ])?;
    let body: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(goblin.join("test-failed"))?)?;
    assert_eq!(
        (body["reason"].as_str(), body["attempts"].as_u64()),
        (Some("flaky login"), Some(2))
    );
    assert!(
        body["completed_at"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );
    let out = env.run_stdin(
        &["signal", "emit", "review-approved", "--json", "-"],
        "{\"critical_issues\": 0}",
    )?;
    out.success(&["signal", "emit", "--json", "-"])?;

    let list = env.json(&["signal", "list"])?;
    let kinds: Vec<&str> = list["signals"]
        .as_array()
        .ok_or("signals")?
        .iter()
        .filter_map(|s| s["kind"].as_str())
        .collect();
    assert_eq!(
        kinds,
        [
            "scope-complete",
            "build-complete",
            "review-approved",
            "test-failed"
        ]
    );

    std::fs::write(goblin.join("test-passed"), "{half")?;
    contains_all(&env.ok(&["signal", "list"])?, &["test-passed INVALID"])?;

    let v = env.json(&["signal", "clear", "test-failed"])?;
    assert_eq!(v["removed"], serde_json::json!(["test-failed"]));
    env.ok(&["signal", "clear"])?;
    assert_eq!(
        env.json(&["signal", "list"])?["signals"],
        serde_json::json!([])
    );
    Ok(())
}

#[test]
fn pipeline_start_status_watch_cancel() -> TestResult {
    let env = Env::new()?;
    env.fails(&["pipeline", "status"], 1, "no pipeline")?;
    env.fails(&["pipeline", "cancel"], 1, "no pipeline")?;
    contains_all(&env.ok(&["pipeline", "start"])?, &["Stage: SCOPE"])?;
    env.fails(&["pipeline", "start"], 1, "SCOPE")?;

    env.ok(&["signal", "emit", "scope-complete", "--json", "{}"])?;
    assert_eq!(env.json(&["pipeline", "status"])?["stage"], "BUILD");
    env.ok(&["signal", "emit", "build-complete", "-f", "commits=1"])?;
    // Watch with a timeout stops at REVIEW (exit 3: not finished).
    let out = env.run(&[
        "pipeline",
        "watch",
        "--interval",
        "0.05",
        "--timeout",
        "0.5",
    ])?;
    assert_eq!(out.0.status.code(), Some(3), "{}", out.stderr());
    contains_all(&out.stdout(), &["Stage: REVIEW"])?;

    env.ok(&["signal", "emit", "review-approved", "--json", "{}"])?;
    assert_eq!(env.json(&["pipeline", "status"])?["stage"], "TEST");
    // A stage's signal may also arrive before the runner reaches the stage (it is kept and
    // acted on); here it is emitted once TEST is current, the common case.
    env.ok(&["signal", "emit", "test-passed", "--json", "{}"])?;
    let out = env.run(&[
        "--json",
        "pipeline",
        "watch",
        "--interval",
        "0.05",
        "--timeout",
        "10",
    ])?;
    out.success(&["pipeline", "watch"])?;
    let v: serde_json::Value = serde_json::from_str(&out.stdout())?;
    assert_eq!(v["stage"], "DONE", "{v}");

    env.ok(&["pipeline", "start"])?;
    let v = env.json(&["pipeline", "cancel"])?;
    assert_eq!(v["stage"], "CANCELLED");
    env.fails(&["pipeline", "cancel"], 1, "already ended")?;
    Ok(())
}
