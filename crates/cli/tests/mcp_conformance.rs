//! `goldfish mcp` against JSON-RPC 2.0, byte for byte: raw lines written to the real
//! binary's stdin, replies read line by line from its stdout.
//!
//! Every exchange is lock-step (send a line, read its reply) on a server that answers bad
//! input from its reader before it reads the next line, so the order of replies is fixed.
//! "No reply" is shown without waiting for silence: a `ping` follows, and the next line must
//! be the ping's reply. Deadlines only guard against a hang.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

use crate::util::{Env, TestResult};

/// How long a reply may take before the test calls the server hung (a guard, not a timing).
const HANG_GUARD: Duration = Duration::from_secs(120);

pub(crate) type Error = Box<dyn std::error::Error>;

/// A running `goldfish mcp`: stdin for writing, stdout lines arriving on a channel from a
/// reader thread (so a large write can never deadlock against unread replies), stderr
/// collected by another thread.
pub(crate) struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: Option<thread::JoinHandle<String>>,
}

impl Server {
    /// Starts `goldfish mcp` with `args` after `mcp` and the extra environment `vars`.
    pub(crate) fn start(env: &Env, args: &[&str], vars: &[(&str, &str)]) -> Result<Server, Error> {
        let mut all = vec!["mcp"];
        all.extend_from_slice(args);
        let mut cmd = env.cmd(&all);
        cmd.env_remove("GOLDFISH_MCP_MAX_MESSAGE_BYTES");
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut stderr = child.stderr.take().ok_or("no stderr")?;
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Ok(Server {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: Some(stderr),
        })
    }

    /// Writes `line` and a newline.
    pub(crate) fn send(&mut self, line: &str) -> TestResult {
        let stdin = self.stdin.as_mut().ok_or("stdin already closed")?;
        stdin.write_all(line.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()?;
        Ok(())
    }

    /// The next line on stdout, parsed.
    pub(crate) fn next(&self) -> Result<Value, Error> {
        let line = self
            .lines
            .recv_timeout(HANG_GUARD)
            .map_err(|e| format!("no reply from goldfish mcp ({e})"))?;
        serde_json::from_str(&line).map_err(|e| format!("reply is not JSON ({e}): {line}").into())
    }

    /// Sends `line` and returns its reply.
    pub(crate) fn exchange(&mut self, line: &str) -> Result<Value, Error> {
        self.send(line)?;
        self.next()
    }

    /// Sends `line` and requires a JSON-RPC error with `code` and `id`; returns the message.
    pub(crate) fn expect_error(
        &mut self,
        line: &str,
        code: i64,
        id: &Value,
    ) -> Result<String, Error> {
        let reply = self.exchange(line)?;
        check_error(&reply, code, id).map_err(|e| format!("after {line}: {e}"))?;
        Ok(reply["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string())
    }

    /// Sends `line`, which must get no reply: the next line must answer the `ping` sent after.
    pub(crate) fn expect_silence(&mut self, line: &str, ping_id: &str) -> TestResult {
        self.send(line)?;
        let reply = self.exchange(&format!(
            r#"{{"jsonrpc":"2.0","id":"{ping_id}","method":"ping"}}"#
        ))?;
        if reply["id"] != json!(ping_id) || reply["result"] != json!({}) {
            return Err(format!("{line} was answered: {reply}").into());
        }
        Ok(())
    }

    /// Closes stdin, waits for the server to exit and returns its exit success and stderr.
    pub(crate) fn finish(mut self) -> Result<(bool, String), Error> {
        drop(self.stdin.take());
        // The reader thread ends (and the channel disconnects) when the server closes stdout.
        match self.lines.recv_timeout(HANG_GUARD) {
            Ok(line) => return Err(format!("unexpected output at exit: {line}").into()),
            Err(mpsc::RecvTimeoutError::Disconnected) => {}
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err("goldfish mcp did not exit when stdin closed".into());
            }
        }
        let status = self.child.wait()?;
        let stderr = self
            .stderr
            .take()
            .ok_or("stderr taken")?
            .join()
            .map_err(|_| "stderr thread panicked")?;
        Ok((status.success(), stderr))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A failed test must not leave a server behind; after `finish` it has already exited.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Checks that `reply` is a JSON-RPC 2.0 error response with `code` and `id`.
pub(crate) fn check_error(reply: &Value, code: i64, id: &Value) -> TestResult {
    let object = reply.as_object().ok_or("reply is not an object")?;
    if reply["jsonrpc"] != json!("2.0")
        || !object.contains_key("id")
        || reply["id"] != *id
        || reply["error"]["code"] != json!(code)
        || !reply["error"]["message"].is_string()
        || object.contains_key("result")
    {
        return Err(format!("want error {code} with id {id}, got {reply}").into());
    }
    Ok(())
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"conformance","version":"1"}}}"#;

/// Initialises the session and checks the answer.
pub(crate) fn initialize(server: &mut Server) -> TestResult {
    let reply = server.exchange(INITIALIZE)?;
    if reply["id"] != json!(0) || reply["result"]["serverInfo"]["name"] != json!("goldfish") {
        return Err(format!("bad initialize reply: {reply}").into());
    }
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
}

/// tools/list then a checkpoint and a recall that finds it: the server is serving.
pub(crate) fn round_trip(server: &mut Server, marker: &str) -> TestResult {
    let tools = server.exchange(r#"{"jsonrpc":"2.0","id":"list","method":"tools/list"}"#)?;
    let mut names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .ok_or_else(|| format!("no tools in {tools}"))?
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort_unstable();
    if names != ["checkpoint", "forget", "plan", "recall"] {
        return Err(format!("tools/list: {tools}").into());
    }
    let call = |id: &str, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}})
        .to_string()
    };
    let saved = server.exchange(&call(
        "save",
        "checkpoint",
        json!({ "description": format!("{marker} survived the bad lines") }),
    ))?;
    if saved["id"] != json!("save") || saved["result"]["isError"] == json!(true) {
        return Err(format!("checkpoint: {saved}").into());
    }
    let recalled = server.exchange(&call("recall", "recall", json!({ "search": marker })))?;
    let text = recalled["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    if recalled["id"] != json!("recall") || !text.contains(marker) {
        return Err(format!("recall does not show the checkpoint: {recalled}").into());
    }
    Ok(())
}

#[test]
fn malformed_messages_get_json_rpc_errors_and_the_server_keeps_serving() -> TestResult {
    let env = Env::new()?;
    let mut server = Server::start(&env, &[], &[])?;
    let null = Value::Null;

    // A notification before `initialize` is a client error, but it must not end the session.
    server.expect_silence(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "p0",
    )?;
    // Before initialisation: the framing answers these itself.
    let message = server.expect_error("{not json", -32700, &null)?;
    assert!(message.contains("Parse error"), "{message}");
    server.expect_error("\u{feff}{\"jsonrpc\": \"2.0\", \"id\": 1", -32700, &null)?;
    let message = server.expect_error(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}"#,
        -32602,
        &json!(1),
    )?;
    assert!(message.contains("must be an object"), "{message}");
    server.expect_error(
        r#"{"jsonrpc":"2.0","id":"init-2","method":"initialize","params":"x"}"#,
        -32602,
        &json!("init-2"),
    )?;
    server.expect_error("42", -32600, &null)?;
    server.expect_error(r#""x""#, -32600, &null)?;
    server.expect_error("{}", -32600, &null)?;
    let message = server.expect_error(
        r#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#,
        -32600,
        &null,
    )?;
    assert!(message.contains("batch"), "{message}");
    server.expect_error(
        r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
        -32600,
        &null,
    )?;
    server.expect_error(
        r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#,
        -32600,
        &json!(5),
    )?;
    // Notifications are never answered, even when malformed; blank lines are skipped.
    server.expect_silence(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}"#,
        "p1",
    )?;
    server.expect_silence("   ", "p2")?;

    // A normal session after the bad lines.
    initialize(&mut server)?;
    // rmcp answers an unknown method itself, with the id.
    server.expect_error(
        r#"{"jsonrpc":"2.0","id":6,"method":"no/such/method","params":{}}"#,
        -32601,
        &json!(6),
    )?;
    // A known method whose params do not fit is an invalid-params error, not "not found".
    server.expect_error(
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":7}}"#,
        -32602,
        &json!(7),
    )?;
    server.expect_error(
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call"}"#,
        -32602,
        &json!(8),
    )?;
    server.expect_error("not json either", -32700, &null)?;
    server.expect_silence(
        r#"{"jsonrpc":"2.0","method":"notifications/nonsense"}"#,
        "p3",
    )?;
    round_trip(&mut server, "zebracorn")?;

    let (success, stderr) = server.finish()?;
    assert!(success, "goldfish mcp failed; stderr: {stderr}");
    assert!(stderr.contains("Parse error"), "{stderr}");
    Ok(())
}

#[test]
fn a_message_over_the_default_limit_is_answered_skipped_and_logged() -> TestResult {
    const MIB: usize = 1024 * 1024;
    let env = Env::new()?;
    let mut server = Server::start(&env, &[], &[])?;
    let mut stdin = server.stdin.take().ok_or("no stdin")?;
    // 17 MiB that start like a real request, then the newline, then a valid request. One
    // thread writes while this one reads, so neither pipe can fill up against the other.
    let writer = thread::spawn(move || -> std::io::Result<ChildStdin> {
        stdin.write_all(br#"{"jsonrpc":"2.0","id":"big-1","method":"ping","params":{"pad":""#)?;
        let chunk = vec![b'x'; MIB];
        for _ in 0..17 {
            stdin.write_all(&chunk)?;
        }
        stdin.write_all(b"\"}}\n")?;
        stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":\"after\",\"method\":\"ping\"}\n")?;
        stdin.flush()?;
        Ok(stdin)
    });
    let rejected = server.next()?;
    let after = server.next()?;
    server.stdin = Some(writer.join().map_err(|_| "writer thread panicked")??);

    // The id is read from the head of the message, so the client's request is answered.
    check_error(&rejected, -32600, &json!("big-1"))?;
    let message = rejected["error"]["message"].as_str().unwrap_or_default();
    for needle in [
        "16777216 bytes",
        "--max-message-bytes",
        "GOLDFISH_MCP_MAX_MESSAGE_BYTES",
    ] {
        assert!(message.contains(needle), "{needle} not in {message}");
    }
    assert_eq!(
        rejected["error"]["data"]["maxMessageBytes"],
        json!(16 * MIB)
    );
    assert_eq!(
        after,
        json!({"jsonrpc": "2.0", "id": "after", "result": {}})
    );

    initialize(&mut server)?;
    round_trip(&mut server, "bigline")?;
    let (success, stderr) = server.finish()?;
    assert!(success, "goldfish mcp failed; stderr: {stderr}");
    assert!(
        stderr.contains("exceeds the limit of 16777216 bytes"),
        "no log line on stderr: {stderr}"
    );
    Ok(())
}

/// A ping request of exactly `bytes` bytes (its id padded), and that id.
fn ping_of(bytes: usize) -> (String, String) {
    let frame = r#"{"jsonrpc":"2.0","id":"","method":"ping"}"#.len();
    let id = "i".repeat(bytes - frame);
    (
        format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping"}}"#),
        id,
    )
}

#[test]
fn the_limit_is_a_setting_the_flag_winning_over_the_environment() -> TestResult {
    let env = Env::new()?;
    let (fits, fits_id) = ping_of(1000);
    let (over, over_id) = ping_of(1001);
    let over_id = json!(over_id);

    // The flag wins over the environment variable: 1000 bytes pass, 1001 do not.
    let mut server = Server::start(
        &env,
        &["--max-message-bytes", "1000"],
        &[("GOLDFISH_MCP_MAX_MESSAGE_BYTES", "10")],
    )?;
    assert_eq!(
        server.exchange(&fits)?,
        json!({"jsonrpc": "2.0", "id": fits_id, "result": {}})
    );
    let message = server.expect_error(&over, -32600, &over_id)?;
    assert!(
        message.contains("1001 bytes exceeds the limit of 1000 bytes"),
        "{message}"
    );
    initialize(&mut server)?;
    let (success, stderr) = server.finish()?;
    assert!(success, "goldfish mcp failed; stderr: {stderr}");

    // The environment variable alone.
    let mut server = Server::start(&env, &[], &[("GOLDFISH_MCP_MAX_MESSAGE_BYTES", "1000")])?;
    server.expect_error(&over, -32600, &over_id)?;
    // An id after a long member is past the head: the error carries a null id.
    let late_id = format!(
        r#"{{"jsonrpc":"2.0","method":"ping","params":{{"pad":"{}"}},"id":"late"}}"#,
        "x".repeat(5000)
    );
    server.expect_error(&late_id, -32600, &Value::Null)?;
    assert_eq!(server.exchange(&fits)?["id"], json!(fits_id));
    initialize(&mut server)?;
    let (success, stderr) = server.finish()?;
    assert!(success, "goldfish mcp failed; stderr: {stderr}");

    // Documented in --help; zero and non-numbers are usage errors.
    let help = env.ok(&["mcp", "--help"])?;
    for needle in [
        "--max-message-bytes",
        "GOLDFISH_MCP_MAX_MESSAGE_BYTES",
        "16777216",
    ] {
        assert!(help.contains(needle), "{needle} not in --help:\n{help}");
    }
    env.fails(
        &["mcp", "--max-message-bytes", "0"],
        2,
        "--max-message-bytes",
    )?;
    env.fails(
        &["mcp", "--max-message-bytes", "lots"],
        2,
        "--max-message-bytes",
    )?;
    Ok(())
}
