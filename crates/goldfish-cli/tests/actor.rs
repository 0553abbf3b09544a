//! Who saved a checkpoint: recorded by the real binary from the MCP client's `clientInfo`,
//! the `GOLDFISH_*` environment, the OS user and git's configuration, never from a tool's
//! arguments; shown by `recall --full` and the MCP recall tool.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::util::{Env, TestResult};

/// A command of `env` whose actor environment is fixed: `USER=dev`, no other user variable,
/// no `GOLDFISH_HARNESS`/`MODEL`/`SESSION` unless `vars` sets them, and git reading only the
/// repository's own configuration (an empty global file, no system file).
fn command(env: &Env, args: &[&str], vars: &[(&str, &str)]) -> Result<Command, std::io::Error> {
    let global = env.home().join("empty.gitconfig");
    std::fs::write(&global, "")?;
    let mut c = env.cmd(args);
    c.env("USER", "dev")
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

/// `goldfish mcp` introduced as `client` (name, version): initialises, sends `calls` as
/// `tools/call` requests (ids 10, 11, …) and returns each whole response, in order. Reading
/// stops at the last id, so no timing is involved.
fn mcp(
    env: &Env,
    client: (&str, &str),
    vars: &[(&str, &str)],
    calls: &[(&str, Value)],
) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    let mut child = command(env, &["mcp"], vars)?
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = vec![
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":client.0,"version":client.1}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    ];
    for (i, (name, args)) in calls.iter().enumerate() {
        lines.push(json!({"jsonrpc":"2.0","id":10 + i,"method":"tools/call","params":{"name":name,"arguments":args}}));
    }
    // Written from another thread while this one reads, so that neither pipe can fill up;
    // stdin is handed back and kept open until the replies are read.
    let writer = std::thread::spawn(move || -> std::io::Result<std::process::ChildStdin> {
        for l in lines {
            writeln!(stdin, "{l}")?;
        }
        stdin.flush()?;
        Ok(stdin)
    });
    let last = 10 + calls.len() as u64 - 1;
    let mut results = vec![Value::Null; calls.len()];
    for line in BufReader::new(stdout).lines() {
        let v: Value = serde_json::from_str(&line?)?;
        if let Some(id) = v["id"].as_u64()
            && id >= 10
        {
            results[(id - 10) as usize] = v;
            if id == last {
                break;
            }
        }
    }
    let stdin = writer.join().map_err(|_| "writer panicked")??;
    drop(stdin);
    let _ = child.kill();
    child.wait()?;
    Ok(results)
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
        ("claude-code", "2.1.197"),
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
    assert_eq!(replies[0]["result"]["isError"], false, "{}", replies[0]);
    assert_eq!(replies[1]["result"]["isError"], true, "{}", replies[1]);
    let refused = replies[1]["result"]["content"][0]["text"].to_string();
    assert!(refused.contains("actor"), "{refused}");

    let text = day_files(&env)?;
    for bullet in [
        "- **Harness**: claude-code 2.1.197\n",
        "- **Model**: claude-opus-4\n",
        "- **Session**: s-1\n",
        "- **User**: dev\n",
        "- **Git user**: Dev Eloper\n",
        "- **Git email**: dev@example.com\n",
    ] {
        assert_eq!(text.matches(bullet).count(), 1, "{bullet}\n{text}");
    }
    assert!(!text.contains("forged"), "{text}");

    let saved_by = "saved by: harness=claude-code 2.1.197 model=claude-opus-4 session=s-1 \
                    user=dev git_user=Dev Eloper git_email=dev@example.com";
    let recalled = replies[2]["result"]["content"][0]["text"].to_string();
    assert!(recalled.contains(saved_by), "{recalled}");
    let structured = &replies[2]["result"]["structuredContent"]["checkpoints"][0]["actor"];
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
        ("raw", "0"),
        &[("GOLDFISH_HARNESS", "codex")],
        &[("checkpoint", json!({"description": "Saved over MCP"}))],
    )?;
    assert_eq!(replies[0]["result"]["isError"], false, "{}", replies[0]);
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
        json!({"harness": "my-script", "user": "dev"}),
        "{json}"
    );
    let text = day_files(&env)?;
    assert!(text.contains("- **Harness**: codex\n"), "{text}");
    assert!(!text.contains("raw 0"), "{text}");
    assert!(!text.contains("- **Git "), "{text}");
    // Without GOLDFISH_HARNESS the CLI names no harness: it cannot know who ran it.
    let out = command(&env, &["--json", "checkpoint", "Plain"], &[])?.output()?;
    let json: Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(json["actor"], json!({"user": "dev"}), "{json}");
    Ok(())
}
