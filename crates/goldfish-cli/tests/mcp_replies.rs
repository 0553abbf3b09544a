//! What the MCP tools answer, over raw JSON-RPC lines on stdio: replies stay small whatever
//! was saved, and the tools validate their options as the CLI does.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::util::{Env, TestResult};

/// Starts `goldfish mcp`, initialises, sends `calls` as `tools/call` requests (ids 10, 11, …)
/// and returns each call's result, in order. Reading stops at the last id, so no timing is
/// involved; the process is killed if it is still running afterwards.
pub(crate) fn call_tools(
    env: &Env,
    calls: &[(&str, Value)],
) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    call_tools_in(env.cmd(&["mcp"]), calls)
}

/// [`call_tools`] with the server started by `server` (a `goldfish mcp` command with its own
/// environment and directory).
pub(crate) fn call_tools_in(
    mut server: std::process::Command,
    calls: &[(&str, Value)],
) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    let mut child = server
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = vec![
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    ];
    for (i, (name, args)) in calls.iter().enumerate() {
        lines.push(json!({"jsonrpc":"2.0","id":10 + i,"method":"tools/call","params":{"name":name,"arguments":args}}));
    }
    // Written from another thread while this one reads, so that neither pipe can fill up
    // and stall the other; stdin is handed back and kept open until the replies are read
    // (closing it ends the session).
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
            results[(id - 10) as usize] = v["result"].clone();
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

pub(crate) fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn checkpoint_reply_echoes_a_bounded_title() -> TestResult {
    let env = Env::new()?;
    let huge = "x".repeat(1 << 20);
    let results = call_tools(&env, &[("checkpoint", json!({"description": huge}))])?;
    let reply = text(&results[0]);
    assert_eq!(
        results[0]["isError"],
        json!(false),
        "{}",
        &reply[..reply.len().min(300)]
    );
    assert!(
        reply.starts_with("Checkpoint saved: xxx"),
        "{}",
        &reply[..reply.len().min(300)]
    );
    assert!(
        reply.len() < 1000,
        "a {}-byte reply to a 1 MB description",
        reply.len()
    );
    assert!(reply.contains('…'));
    // The whole description was saved all the same.
    let v = env.json(&["recall", "--full"])?;
    assert_eq!(
        v["checkpoints"][0]["description"].as_str().map(str::len),
        Some(1 << 20)
    );
    Ok(())
}

#[test]
fn recall_tool_refuses_two_window_starts() -> TestResult {
    let env = Env::new()?;
    let results = call_tools(
        &env,
        &[
            ("recall", json!({"days": 3, "since": "1h"})),
            ("recall", json!({"since": "1h", "from": "2025-01-01"})),
            ("recall", json!({"days": 3})),
        ],
    )?;
    for (r, (a, b)) in results.iter().zip([("days", "since"), ("since", "from")]) {
        let t = text(r);
        assert_eq!(r["isError"], json!(true), "{t}");
        assert!(
            t.contains(&format!("`{a}`")) && t.contains(&format!("`{b}`")),
            "{t}"
        );
    }
    assert_eq!(results[2]["isError"], json!(false), "{}", text(&results[2]));
    Ok(())
}

/// Started in a repository with memory kept in `.goldfish/`, the MCP server saves there and
/// reads it together with the home store.
#[test]
fn tools_use_the_memory_kept_in_the_repository() -> TestResult {
    let env = Env::new()?;
    env.ok(&["checkpoint", "Saved in the home store first"])?;
    let git = |args: &[&str]| -> TestResult {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(env.cwd.path())
            .args(["-c", "user.name=test", "-c", "user.email=test@localhost"])
            .args(args)
            .output()?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
        }
        Ok(())
    };
    git(&["init", "-q", "-b", "main"])?;
    git(&["commit", "-q", "--allow-empty", "-m", "first"])?;
    env.ok(&["init", "--in-repo"])?;
    let results = call_tools(
        &env,
        &[
            (
                "checkpoint",
                json!({"description": "Saved through MCP in the repo"}),
            ),
            (
                "plan",
                json!({"action": "save", "title": "Repo plan", "content": "- [ ] a\n"}),
            ),
            ("recall", json!({"limit": 10})),
            ("recall", json!({"workspace": "all"})),
        ],
    )?;
    for r in &results {
        assert_eq!(r["isError"], json!(false), "{}", text(r));
    }
    let day_files = std::fs::read_dir(env.cwd.path().join(".goldfish/test/checkpoints"))?
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .count();
    assert_eq!(day_files, 1, "the MCP checkpoint went to the repository");
    assert!(
        env.cwd
            .path()
            .join(".goldfish/test/plans/repo-plan.md")
            .exists()
    );
    assert!(!env.home().join("test/plans").exists());
    for r in &results[2..] {
        let reply = text(r);
        assert!(
            reply.contains("Saved through MCP in the repo")
                && reply.contains("Saved in the home store first"),
            "{reply}"
        );
    }
    assert!(
        text(&results[2]).contains("Repo plan"),
        "{}",
        text(&results[2])
    );
    Ok(())
}
