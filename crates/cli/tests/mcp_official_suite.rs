//! `goldfish mcp` against the official MCP conformance suite (`@modelcontextprotocol/conformance`
//! from npm, pinned), scenario by scenario.
//!
//! The suite speaks only the streamable HTTP transport and runs on Node 22 or later, so the
//! test installs, once, under the target directory: the suite, and Node 22 from npm's `node`
//! package (the machine's own Node may be older). A small bridge (`mcp_http_bridge.py`, Python
//! standard library) puts `goldfish mcp` behind HTTP: one server process per session, each
//! POSTed message a line on its stdin. Needs npm and python3; a missing one fails the test
//! with what to install: it is an acceptance criterion and must not silently pass.
//!
//! Scenarios run: the ones goldfish passes as it is, plus the logging and subscription ones.
//! The suite's other scenarios call its own fixture tools, prompts and resources
//! (`test_simple_text`, `test://static-text`, …), which a server that is not the suite's
//! fixture does not have; `tools-call-with-logging` is one (it calls the fixture tool
//! `test_tool_with_logging`), so it is not run.
//!
//! `resources-subscribe` and `resources-unsubscribe` subscribe to the fixture URI
//! `test://watched-resource`: goldfish accepts a subscription to a URI it sends no update for
//! (the protocol lets a client subscribe to what does not exist yet) and warns the client
//! that none will come, so both pass. Subscriptions to goldfish's own URIs, and the updates,
//! are tested in `mcp_notify`.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::util::{Env, TestResult, bin, npm_install};

/// The pinned suite.
const SUITE_VERSION: &str = "0.1.16";
/// The pinned Node the suite runs on (it needs 22 or later).
const NODE_VERSION: &str = "22.23.3";

/// Scenarios goldfish passes.
const PASSING: &[&str] = &[
    "server-initialize",
    "ping",
    "completion-complete",
    "tools-list",
    "resources-list",
    "prompts-list",
    "logging-set-level",
    "resources-subscribe",
    "resources-unsubscribe",
];

/// The bridge, killed when the test ends however it ends.
struct Bridge(Child);

impl Drop for Bridge {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the bridge in front of `goldfish mcp` in `env` and returns it with its URL.
fn bridge(env: &Env) -> Result<(Bridge, String), Box<dyn std::error::Error>> {
    let python3 = std::env::var("PYTHON3").unwrap_or_else(|_| "python3".to_string());
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("mcp_http_bridge.py");
    let mut child = Command::new(&python3)
        .arg(script)
        .arg(bin())
        .arg("mcp")
        .current_dir(env.cwd.path())
        .env("GOLDFISH_HOME", env.home())
        .env("GOLDFISH_WORKSPACE", "conformance")
        .env("GOLDFISH_MODEL_DIR", env.home().join("models"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "the conformance suite test needs python3 for its HTTP bridge, but `{python3}` \
                 did not start: {e}. Install python3 or set PYTHON3."
            )
        })?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let bridge = Bridge(child);
    // The first line says the port: the bridge listens before it prints it.
    let mut first = String::new();
    BufReader::new(stdout).read_line(&mut first)?;
    let port = first
        .trim()
        .strip_prefix("PORT ")
        .ok_or_else(|| format!("the bridge said {first:?}, not its port"))?;
    Ok((bridge, format!("http://127.0.0.1:{port}/mcp")))
}

/// Runs one scenario; returns whether the suite passed it, and its output.
fn scenario(
    node: &Path,
    suite: &Path,
    url: &str,
    name: &str,
) -> Result<(bool, String), Box<dyn std::error::Error>> {
    let out = Command::new(node)
        .arg(suite)
        .args(["server", "--url", url, "--scenario", name])
        .output()?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok((out.status.success(), text))
}

/// The suite's entry point and Node 22, installed once.
fn installed() -> Result<(PathBuf, PathBuf), Box<dyn std::error::Error>> {
    let node = npm_install(
        "the conformance suite test",
        "node22",
        "node",
        NODE_VERSION,
        "node",
    )?;
    let suite = npm_install(
        "the conformance suite test",
        "mcp-conformance",
        "@modelcontextprotocol/conformance",
        SUITE_VERSION,
        "conformance",
    )?;
    Ok((node, suite))
}

#[test]
fn official_conformance_suite_scenarios() -> TestResult {
    let (node, suite) = installed()?;
    let env = Env::new()?;
    let (_bridge, url) = bridge(&env)?;
    let mut failed = Vec::new();
    for name in PASSING {
        let (passed, text) = scenario(&node, &suite, &url, name)?;
        if !passed {
            failed.push(format!("{name} failed:\n{text}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
    Ok(())
}
