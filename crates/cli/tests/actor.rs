//! Who saved a checkpoint: recorded by the real binary from the MCP client's `clientInfo`,
//! the `GOLDFISH_*` environment, the OS user and git's configuration, never from a tool's
//! arguments; shown by `recall --full` and the MCP recall tool.

use std::process::Command;

use serde_json::{Value, json};

use crate::mcp_replies::call_tools_with;
use crate::util::{Env, TestResult};

/// A command of `env` whose actor environment is fixed: `USER=dev`, `GOLDFISH_HOST=devbox`,
/// no other user variable,
/// no `GOLDFISH_HARNESS`/`MODEL`/`SESSION` unless `vars` sets them, and git reading only the
/// repository's own configuration (an empty global file, no system file).
fn command(env: &Env, args: &[&str], vars: &[(&str, &str)]) -> Result<Command, std::io::Error> {
    let global = env.home().join("empty.gitconfig");
    std::fs::write(&global, "")?;
    let mut c = env.cmd(args);
    c.env("USER", "dev")
        .env("GOLDFISH_HOST", "devbox")
        .env_remove("USERNAME")
        .env_remove("LOGNAME")
        .env_remove("GOLDFISH_HARNESS")
        .env_remove("GOLDFISH_MODEL")
        .env_remove("GOLDFISH_SESSION")
        .env("GIT_CONFIG_GLOBAL", &global)
        .env("GIT_CONFIG_NOSYSTEM", "1");
    for (k, v) in vars {
        c.env(k, v);
    }
    Ok(c)
}

/// Runs git in `dir`; fails the test when git fails.
fn git(dir: &std::path::Path, args: &[&str]) -> TestResult {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output()?;
    if !out.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(())
}

/// `goldfish mcp` (its client introduces itself as `raw` version `0`) in `env` with `vars`:
/// each call's result.
fn mcp(
    env: &Env,
    vars: &[(&str, &str)],
    calls: &[(&str, Value)],
) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    call_tools_with(command(env, &["mcp"], vars)?, calls)
}

/// Every day file of workspace `test`, concatenated.
fn day_files(env: &Env) -> Result<String, Box<dyn std::error::Error>> {
    let mut text = String::new();
    for entry in std::fs::read_dir(env.home().join("test").join("checkpoints"))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "md") {
            text.push_str(&std::fs::read_to_string(path)?);
        }
    }
    Ok(text)
}

#[test]
fn mcp_saves_record_the_client_the_environment_and_the_git_user() -> TestResult {
    let env = Env::new()?;
    git(env.cwd.path(), &["init", "-q"])?;
    git(env.cwd.path(), &["config", "user.name", "Dev Eloper"])?;
    git(env.cwd.path(), &["config", "user.email", "dev@example.com"])?;
    let vars = [
        ("GOLDFISH_MODEL", "claude-opus-4"),
        ("GOLDFISH_SESSION", "s-1"),
    ];
    let replies = mcp(
        &env,
        &vars,
        &[
            (
                "checkpoint",
                json!({"description": "Saved through a client"}),
            ),
            // An agent cannot say who it is: the tool has no such parameter.
            (
                "checkpoint",
                json!({"description": "Claims another actor", "actor": {"harness": "forged"}}),
            ),
            ("recall", json!({"full": true})),
        ],
    )?;
    assert_eq!(replies[0]["isError"], false, "{}", replies[0]);
    assert_eq!(replies[1]["isError"], true, "{}", replies[1]);
    let refused = replies[1]["content"][0]["text"].to_string();
    assert!(refused.contains("actor"), "{refused}");

    let text = day_files(&env)?;
    for bullet in [
        "- **Harness**: raw 0\n",
        "- **Model**: claude-opus-4\n",
        "- **Session**: s-1\n",
        "- **User**: dev\n",
        "- **Git user**: Dev Eloper\n",
        "- **Git email**: dev@example.com\n",
        "- **Host**: devbox\n",
    ] {
        assert_eq!(text.matches(bullet).count(), 1, "{bullet}\n{text}");
    }
    assert!(!text.contains("forged"), "{text}");

    let saved_by = "saved by: harness=raw 0 model=claude-opus-4 session=s-1 \
                    user=dev git_user=Dev Eloper git_email=dev@example.com host=devbox";
    let recalled = replies[2]["content"][0]["text"].to_string();
    assert!(recalled.contains(saved_by), "{recalled}");
    let structured = &replies[2]["structuredContent"]["checkpoints"][0]["actor"];
    assert_eq!(
        structured.as_str(),
        saved_by.strip_prefix("saved by: "),
        "{structured}"
    );
    let out = command(&env, &["recall", "--full"], &[])?.output()?;
    let cli = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && cli.contains(saved_by), "{cli}");
    Ok(())
}

#[test]
fn the_environment_names_the_harness_over_the_client_and_for_the_cli() -> TestResult {
    let env = Env::new()?;
    // Outside any repository, with no git user configured: no git fields, nothing invented.
    let replies = mcp(
        &env,
        &[("GOLDFISH_HARNESS", "codex")],
        &[("checkpoint", json!({"description": "Saved over MCP"}))],
    )?;
    assert_eq!(replies[0]["isError"], false, "{}", replies[0]);
    let out = command(
        &env,
        &["--json", "checkpoint", "Saved from the command line"],
        &[("GOLDFISH_HARNESS", "my-script")],
    )?
    .output()?;
    assert!(out.status.success(), "{out:?}");
    let json: Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(
        json["actor"],
        json!({"harness": "my-script", "user": "dev", "host": "devbox"}),
        "{json}"
    );
    let text = day_files(&env)?;
    assert!(text.contains("- **Harness**: codex\n"), "{text}");
    assert!(!text.contains("raw 0"), "{text}");
    assert!(!text.contains("- **Git "), "{text}");
    // Without GOLDFISH_HARNESS the CLI names no harness: it cannot know who ran it.
    let out = command(&env, &["--json", "checkpoint", "Plain"], &[])?.output()?;
    let json: Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(
        json["actor"],
        json!({"user": "dev", "host": "devbox"}),
        "{json}"
    );
    Ok(())
}
