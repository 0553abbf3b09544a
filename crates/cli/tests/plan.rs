//! `goldfish plan …`.

use crate::util::{Env, TestResult, contains_all};

#[test]
fn lifecycle() -> TestResult {
    let env = Env::new()?;
    let v = env.json(&[
        "plan",
        "save",
        "--title",
        "Auth System",
        "--content",
        "## Goals\n- [ ] OAuth2",
        "--tags",
        "backend",
    ])?;
    assert_eq!(v["id"], "auth-system");
    assert_eq!(v["status"], "active");
    env.ok(&[
        "plan",
        "save",
        "--id",
        "second",
        "--title",
        "Second plan",
        "--activate",
        "false",
    ])?;

    let text = env.ok(&["plan", "get"])?;
    contains_all(&text, &["Auth System", "## Goals", "active plan"])?;
    let text = env.ok(&["plan", "list"])?;
    contains_all(&text, &["`auth-system`", "`second`", "← active"])?;

    env.ok(&["plan", "activate", "second"])?;
    assert_eq!(env.json(&["plan", "get"])?["id"], "second");

    let out = env.run_stdin(
        &["--json", "plan", "update", "second", "--content", "-"],
        "- [x] done\n- [ ] open\n",
    )?;
    out.success(&["plan", "update"])?;
    let v: serde_json::Value = serde_json::from_str(&out.stdout())?;
    assert_eq!(v["content"], "- [x] done\n- [ ] open");
    assert_eq!(v["progress"], serde_json::json!({"done": 1, "open": 1}));

    assert_eq!(
        env.json(&["plan", "complete", "second"])?["status"],
        "completed"
    );
    env.fails(&["plan", "get"], 1, "no active plan")?;
    assert_eq!(
        env.json(&["plan", "archive", "auth-system"])?["status"],
        "archived"
    );
    let list = env.json(&["plan", "list"])?;
    assert_eq!(list["plans"].as_array().map(Vec::len), Some(2));
    assert!(list["active"].is_null());
    Ok(())
}

#[test]
fn errors() -> TestResult {
    let env = Env::new()?;
    env.fails(&["plan", "get", "nope"], 1, "no plan \"nope\"")?;
    env.fails(&["plan", "activate", "nope"], 1, "nope")?;
    env.fails(&["plan", "complete", "../x"], 1, "plan id")?;
    env.fails(
        &["plan", "save", "--title", "x", "--status", "paused"],
        1,
        "unknown plan status",
    )?;
    env.ok(&["plan", "save", "--title", "x"])?;
    env.fails(&["plan", "update", "x"], 1, "nothing to update")?;
    env.fails(&["plan", "save"], 2, "--title")?;
    Ok(())
}
