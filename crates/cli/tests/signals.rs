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
        "--body",
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
        &["signal", "emit", "review-approved", "--body", "-"],
        "{\"critical_issues\": 0}",
    )?;
    out.success(&["signal", "emit", "--body", "-"])?;

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

    env.ok(&["signal", "emit", "scope-complete", "--body", "{}"])?;
    assert_eq!(env.json(&["pipeline", "status"])?["stage"], "SCOPE");
    assert_eq!(env.json(&["pipeline", "advance"])?["stage"], "BUILD");
    env.ok(&["signal", "emit", "build-complete", "-f", "commits=1"])?;
    // Watch with a timeout stops at REVIEW (exit 5: --timeout passed first).
    let out = env.run(&[
        "pipeline",
        "watch",
        "--interval",
        "0.05",
        "--timeout",
        "0.5",
    ])?;
    assert_eq!(out.0.status.code(), Some(5), "{}", out.stderr());
    contains_all(
        &out.stdout(),
        &["BUILD → REVIEW (build-complete)", "Stage: REVIEW"],
    )?;

    env.ok(&["signal", "emit", "review-approved", "--body", "{}"])?;
    assert_eq!(env.json(&["pipeline", "advance"])?["stage"], "TEST");
    // A stage's signal may also arrive before the runner reaches the stage (it is kept and
    // acted on); here it is emitted once TEST is current, the common case.
    env.ok(&["signal", "emit", "test-passed", "--body", "{}"])?;
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

#[test]
fn status_only_reads_and_advance_applies() -> TestResult {
    let env = Env::new()?;
    env.ok(&["pipeline", "start"])?;
    env.ok(&["signal", "emit", "scope-complete"])?;
    env.ok(&["pipeline", "advance"])?;
    env.ok(&["signal", "emit", "build-complete", "-f", "commits=2"])?;
    let goblin = env.cwd.path().join(".goblin");
    let snapshot = || -> Result<Vec<(String, Vec<u8>)>, std::io::Error> {
        let mut files = Vec::new();
        for e in std::fs::read_dir(&goblin)? {
            let e = e?;
            files.push((
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path())?,
            ));
        }
        files.sort();
        Ok(files)
    };
    let before = snapshot()?;
    for _ in 0..3 {
        let text = env.ok(&["pipeline", "status"])?;
        contains_all(
            &text,
            &["Stage: BUILD", "Present, not applied yet: build-complete"],
        )?;
        assert!(!text.contains("Waiting for: build-complete"), "{text}");
        let v = env.json(&["pipeline", "status"])?;
        assert_eq!(v["stage"], "BUILD");
        assert_eq!(v["pending"][0]["kind"], "build-complete", "{v}");
    }
    assert_eq!(snapshot()?, before, "`pipeline status` changed .goblin/");

    let text = env.ok(&["pipeline", "advance"])?;
    contains_all(
        &text,
        &["Applied: BUILD → REVIEW", "Stage: REVIEW", "Waiting for:"],
    )?;
    contains_all(&env.ok(&["pipeline", "advance"])?, &["No signal to apply."])?;
    Ok(())
}

#[test]
fn watch_prints_events_and_has_distinct_exit_codes() -> TestResult {
    let env = Env::new()?;
    // DONE: every signal is there before the watch starts; each transition is printed.
    env.ok(&["pipeline", "start"])?;
    for kind in [
        "scope-complete",
        "build-complete",
        "review-approved",
        "test-passed",
    ] {
        env.ok(&["signal", "emit", kind, "--body", "{}"])?;
    }
    let args = ["pipeline", "watch", "--interval", "0.05", "--timeout", "60"];
    let out = env.run(&args)?;
    assert_eq!(out.0.status.code(), Some(0), "{}", out.stderr());
    contains_all(
        &out.stdout(),
        &[
            "Watching",
            "SCOPE → BUILD (scope-complete)",
            "BUILD → REVIEW (build-complete)",
            "REVIEW → TEST (review-approved)",
            "TEST → DONE (test-passed)",
            "Stage: DONE",
        ],
    )?;

    // CANCELLED: 4.
    env.ok(&["pipeline", "start"])?;
    std::fs::write(env.cwd.path().join(".goblin").join("cancel"), "enough\n")?;
    let out = env.run(&args)?;
    assert_eq!(out.0.status.code(), Some(4), "{}", out.stderr());
    contains_all(&out.stdout(), &["→ CANCELLED", "enough"])?;

    // FAILED: 3. Three returns to BUILD use up the retries; the fourth, seen by the watch,
    // ends the pipeline.
    env.ok(&["pipeline", "start"])?;
    let step = |kind: &str, want: &str| -> TestResult {
        env.ok(&["signal", "emit", kind, "--body", "{}"])?;
        let v = env.json(&["pipeline", "advance"])?;
        assert_eq!(v["stage"], want, "after {kind}: {v}");
        Ok(())
    };
    step("scope-complete", "BUILD")?;
    for _ in 0..3 {
        step("build-complete", "REVIEW")?;
        step("review-changes-requested", "BUILD")?;
    }
    step("build-complete", "REVIEW")?;
    env.ok(&["signal", "emit", "review-changes-requested", "--body", "{}"])?;
    let out = env.run(&args)?;
    assert_eq!(
        out.0.status.code(),
        Some(3),
        "{}\n{}",
        out.stdout(),
        out.stderr()
    );
    contains_all(&out.stdout(), &["REVIEW → FAILED", "Stage: FAILED"])?;

    // An error (no pipeline): 1; a usage error: 2.
    let other = Env::new()?;
    other.fails(&args, 1, "no pipeline")?;
    other.fails(
        &["pipeline", "watch", "--interval", "soon"],
        2,
        "--interval",
    )?;
    let help = other.ok(&["pipeline", "watch", "--help"])?;
    contains_all(&help, &["0 DONE", "3 FAILED", "4 CANCELLED", "5 --timeout"])?;
    Ok(())
}

#[test]
fn emit_body_flags_are_unambiguous() -> TestResult {
    let env = Env::new()?;
    let goblin = env.cwd.path().join(".goblin");
    // --body JSON.
    env.ok(&[
        "signal",
        "emit",
        "build-complete",
        "--body",
        "{\"commits\": 4}",
    ])?;
    let body: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(goblin.join("build-complete"))?)?;
    assert_eq!(body["commits"], 4);
    assert!(
        body["completed_at"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z'))
    );
    // --body-file PATH.
    let file = env.cwd.path().join("body.json");
    std::fs::write(&file, "{\"reason\": \"flaky\"}")?;
    env.ok(&["signal", "emit", "test-failed", "--body-file", "body.json"])?;
    let body: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(goblin.join("test-failed"))?)?;
    assert_eq!(body["reason"], "flaky");
    // --json is only the output flag: a bare one prints JSON and writes an empty signal...
    let v = env.json(&["signal", "emit", "scope-complete"])?;
    assert_eq!(v["kind"], "scope-complete");
    assert_eq!(std::fs::read_to_string(goblin.join("scope-complete"))?, "");
    // ...and `--json BODY` is a usage error, not a body.
    let out = env.run(&["signal", "emit", "review-approved", "--json", "{}"])?;
    assert_eq!(out.0.status.code(), Some(2), "{}", out.stderr());
    assert!(!goblin.join("review-approved").exists());
    // Two bodies at once are refused.
    let out = env.run(&[
        "signal",
        "emit",
        "test-passed",
        "--body",
        "{}",
        "--body-file",
        "body.json",
    ])?;
    assert_eq!(out.0.status.code(), Some(2), "{}", out.stderr());
    Ok(())
}
