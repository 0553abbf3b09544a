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

/// A save's reply names what it closely resembles (a decision as `may supersede`), and a
/// repeat of it moments later writes nothing and says `duplicate_of`, in text and `--json`.
#[test]
fn a_save_names_what_it_resembles_and_a_repeat_its_first() -> TestResult {
    let env = Env::new()?;
    let first = env.json(&[
        "checkpoint",
        "cli: switch argument parsing from clap to lexopt\nSmaller binary, faster builds.",
        "--type",
        "decision",
        "--tags",
        "cli,deps",
    ])?;
    let first_id = first["id"].as_str().ok_or("id")?.to_string();
    assert_eq!(first["duplicate_of"], serde_json::Value::Null);
    assert_eq!(first["resembles"], serde_json::json!([]));
    env.ok(&["checkpoint", "Wrote the release notes for 0.9"])?;
    let reversal = [
        "checkpoint",
        "cli: go back from lexopt to clap for argument parsing\nOur own help output costs more.",
        "--type",
        "decision",
        "--tags",
        "cli,deps",
    ];
    let text = env.ok(&reversal)?;
    assert!(text.starts_with("Checkpoint saved: "), "{text}");
    assert!(
        text.contains(&format!(
            "may supersede: {first_id} \"cli: switch argument parsing"
        )),
        "{text}"
    );
    assert!(!text.contains("release notes"), "{text}");
    let again = env.json(&reversal)?;
    let second_id = again["id"].as_str().ok_or("id")?;
    assert_ne!(second_id, first_id);
    assert_eq!(again["duplicate_of"].as_str(), Some(second_id), "{again}");
    let text = env.ok(&reversal)?;
    assert!(
        text.starts_with("Checkpoint already saved (nothing written): ")
            && text.contains(&format!("duplicate_of: {second_id}")),
        "{text}"
    );
    // A plain checkpoint that resembles is listed, not offered to supersede.
    let json = env.json(&[
        "checkpoint",
        "Switched argument parsing back to clap from lexopt",
    ])?;
    let listed = json["resembles"].as_array().ok_or("resembles")?;
    assert!(!listed.is_empty(), "{json}");
    assert!(listed.len() <= 3);
    assert_eq!(listed[0]["by"], "words");
    assert!(listed.iter().all(|r| r["id"] != json["id"]));
    assert_eq!(
        env.json(&["recall", "--limit", "100"])?["checkpoints"]
            .as_array()
            .map(Vec::len),
        Some(4)
    );
    Ok(())
}
