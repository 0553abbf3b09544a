//! `goldfish checkpoint`.

use std::process::Command;

use crate::util::{Env, TestResult, contains_all};

#[test]
fn saves_single_and_multi_line_and_stdin() -> TestResult {
    let env = Env::new()?;
    let out = env.ok(&[
        "checkpoint",
        "Fixed the login timeout",
        "--tags",
        "bug-fix,auth",
    ])?;
    contains_all(
        &out,
        &[
            "Checkpoint saved: Fixed the login timeout",
            "workspace test",
        ],
    )?;

    let multi =
        "Refactored recall\nIt now reads only the day files in its window.\n\n- a list line";
    let v = env.json(&["checkpoint", multi, "-t", "refactor"])?;
    assert_eq!(v["description"], multi);
    assert_eq!(v["tags"], serde_json::json!(["refactor"]));
    assert_eq!(v["workspace"], "test");
    assert!(v["id"].as_str().is_some_and(|s| !s.is_empty()), "{v}");
    assert!(
        v["timestamp"].as_str().is_some_and(|s| s.ends_with('Z')),
        "{v}"
    );

    let out = env.run_stdin(&["--json", "checkpoint", "-"], "From stdin\nsecond line\n")?;
    out.success(&["checkpoint", "-"])?;
    let v: serde_json::Value = serde_json::from_str(&out.stdout())?;
    assert_eq!(v["description"], "From stdin\nsecond line");

    let all = env.json(&["recall", "--limit", "10"])?;
    let descriptions: Vec<&str> = all["checkpoints"]
        .as_array()
        .ok_or("no checkpoints")?
        .iter()
        .filter_map(|c| c["description"].as_str())
        .collect();
    assert_eq!(
        descriptions,
        ["From stdin\nsecond line", multi, "Fixed the login timeout"]
    );
    Ok(())
}

#[test]
fn workspace_flag_and_env() -> TestResult {
    let env = Env::new()?;
    env.ok(&["checkpoint", "in other", "--workspace", "Other Project"])?;
    env.ok(&["-w", "scope-pkg", "checkpoint", "in scoped"])?;
    // A scoped package name is a name, normalised like Goldfish v4's `@coa/goldfish-mcp`.
    env.ok(&["-w", "@scope/pkg", "checkpoint", "x"])?;
    // A bad `--workspace` is a usage error, found while the command line is parsed.
    env.fails(&["-w", "a/b", "checkpoint", "x"], 2, "contains `/`")?;
    let v = env.json(&["recall", "--workspace", "all"])?;
    let names: Vec<&str> = v["workspaces"]
        .as_array()
        .ok_or("no workspaces")?
        .iter()
        .filter_map(|w| w["workspace"].as_str())
        .collect();
    assert_eq!(names, ["other-project", "scope-pkg"]);
    Ok(())
}

#[test]
fn captures_git_context_of_the_cwd() -> TestResult {
    let env = Env::new()?;
    let git = |args: &[&str]| -> TestResult {
        let out = Command::new("git")
            .args(args)
            .current_dir(env.cwd.path())
            .output()?;
        if !out.status.success() {
            return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
        }
        Ok(())
    };
    git(&["init", "-q", "-b", "feature-x"])?;
    git(&[
        "-c",
        "user.email=t@example.com",
        "-c",
        "user.name=t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "first",
    ])?;
    std::fs::write(env.cwd.path().join("changed.rs"), "fn main() {}\n")?;
    // The repository's own workspace (detected from the directory): its git context.
    let out = env
        .cmd(&["--json", "checkpoint", "with git"])
        .env_remove("GOLDFISH_WORKSPACE")
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(v["branch"], "feature-x", "{v}");
    assert!(v["commit"].as_str().is_some_and(|c| c.len() >= 7), "{v}");
    assert_eq!(v["files"], serde_json::json!(["changed.rs"]), "{v}");
    // Filed under another workspace (`-w other`, or GOLDFISH_WORKSPACE): none of this
    // repository's branch, commit or files.
    for args in [
        &["--json", "-w", "other", "checkpoint", "elsewhere"][..],
        &["--json", "checkpoint", "under GOLDFISH_WORKSPACE=test"][..],
    ] {
        let v = env.json(&args[1..])?;
        assert_ne!(v["workspace"], v["branch"], "{v}");
        assert_eq!(
            (&v["branch"], &v["commit"]),
            (&serde_json::Value::Null, &serde_json::Value::Null),
            "{v}"
        );
        assert_eq!(v["files"], serde_json::json!([]), "{v}");
    }
    Ok(())
}

#[test]
fn empty_description_is_refused() -> TestResult {
    let env = Env::new()?;
    env.fails(&["checkpoint", "   "], 1, "description")?;
    env.fails(&["checkpoint"], 2, "DESCRIPTION")?;
    let out = env.run_stdin(&["checkpoint", "-"], "\n\n")?;
    assert_eq!(out.0.status.code(), Some(1), "{}", out.stderr());
    Ok(())
}
