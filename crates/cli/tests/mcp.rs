//! `goldfish mcp` driven by a real MCP client that is not ours: the official `mcp` Python
//! package from PyPI, pinned, installed once into a venv under the target directory.
//!
//! Needs `python3` with the `venv` module and access to PyPI the first time (CI installs
//! `python3-venv` in `.ci/run`). A missing python3 fails the test with a message saying what
//! to install: this test is an acceptance criterion and must not silently pass.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{Env, TestResult, bin};

/// The pinned client version. mcp 2.x is the SDK's current major (snake_case attributes).
const MCP_VERSION: &str = "2.3.0";
/// The pinned JSON Schema validator the client checks `structuredContent` with.
const JSONSCHEMA_VERSION: &str = "4.26.0";

/// Creates the venv once (reusing it if present); a lock file serialises parallel test
/// processes so two never install into the same directory at once.
pub(crate) fn python_with_mcp() -> Result<PathBuf, Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(root)?;
    let venv = root.join("mcp-venv");
    let python = venv.join("bin").join("python");
    let ready = venv.join(format!(
        ".goldfish-ready-mcp-{MCP_VERSION}-jsonschema-{JSONSCHEMA_VERSION}"
    ));
    let lock = File::create(root.join("mcp-venv.lock"))?;
    lock.lock()?;
    if ready.exists() && python.exists() {
        return Ok(python);
    }
    let python3 = std::env::var("PYTHON3").unwrap_or_else(|_| "python3".to_string());
    let version = Command::new(&python3)
        .arg("--version")
        .output()
        .map_err(|e| {
            format!(
                "the MCP client test needs python3 (with the venv module) to install the official \
             `mcp` client from PyPI, but `{python3} --version` failed: {e}. Install python3 and \
             python3-venv (apt-get install python3 python3-venv) or set PYTHON3."
            )
        })?;
    if !version.status.success() {
        return Err(format!(
            "`{python3} --version` failed: {}",
            String::from_utf8_lossy(&version.stderr)
        )
        .into());
    }
    if venv.exists() {
        std::fs::remove_dir_all(&venv)?;
    }
    run(
        Command::new(&python3).args(["-m", "venv"]).arg(&venv),
        "create the venv (is python3-venv installed?)",
    )?;
    run(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .arg(format!("mcp=={MCP_VERSION}"))
            .arg(format!("jsonschema=={JSONSCHEMA_VERSION}")),
        "pip install the mcp client from PyPI",
    )?;
    File::create(&ready)?;
    Ok(python)
}

/// Runs `cmd`, failing with `what` and its output when it fails.
pub(crate) fn run(cmd: &mut Command, what: &str) -> TestResult {
    let out = cmd.output().map_err(|e| format!("cannot {what}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "cannot {what}: {:?} exited with {:?}\n{}\n{}",
        cmd,
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
    .into())
}

#[test]
fn python_sdk_client_drives_the_server() -> TestResult {
    let python = python_with_mcp()?;
    let env = Env::new()?;
    let root = env.cwd.path().join("rooted-project");
    std::fs::create_dir(&root)?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("mcp_client.py");
    let out = Command::new(python)
        .arg(&script)
        .arg(bin())
        .arg(env.home())
        .arg(&root)
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || !stdout.contains("ALL OK") {
        return Err(format!(
            "the Python MCP client failed ({:?}):\n{stdout}\n{stderr}",
            out.status.code()
        )
        .into());
    }
    Ok(())
}

#[test]
fn stdout_carries_only_the_protocol() -> TestResult {
    // A raw JSON-RPC exchange: every stdout line must be a JSON-RPC message, logs go to stderr.
    use std::io::Write as _;
    let env = Env::new()?;
    let mut child = env
        .cmd(&["mcp"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let messages = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"plan","arguments":{"action":"explode"}}}"#,
    ];
    for m in messages {
        writeln!(stdin, "{m}")?;
    }
    stdin.flush()?;
    // Give the server time to answer before closing stdin, which ends the session.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        use std::io::BufRead as _;
        let mut lines = Vec::new();
        for line in std::io::BufReader::new(&mut stdout).lines() {
            let Ok(line) = line else { break };
            let done = line.contains("\"id\":3");
            lines.push(line);
            if done {
                break;
            }
        }
        lines
    });
    while !reader.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    drop(stdin);
    let lines = reader.join().map_err(|_| "reader panicked")?;
    let status = child.wait()?;
    assert!(status.success(), "server exit: {status:?}");
    assert_eq!(lines.len(), 3, "{lines:?}");
    for line in &lines {
        let v: serde_json::Value = serde_json::from_str(line)?;
        assert_eq!(v["jsonrpc"], "2.0", "{line}");
    }
    let tools = &serde_json::from_str::<serde_json::Value>(&lines[1])?["result"]["tools"];
    assert_eq!(tools.as_array().map(Vec::len), Some(4), "{tools}");
    let call: serde_json::Value = serde_json::from_str(&lines[2])?;
    assert_eq!(call["result"]["isError"], true, "{call}");
    Ok(())
}
