//! `goldfish mcp`'s notifications against the real binary: log messages after
//! `logging/setLevel`, and `notifications/resources/updated` for subscribed resources when
//! another `goldfish` process changes the store.
//!
//! Lock-step as in `mcp_conformance`, with no waiting for silence. The server sends its
//! notifications in the order it decides on them, from one queue, so "not sent" is shown by
//! what comes first: a message that should not have gone out would arrive before the one
//! that follows it. Resource updates are decided in batches of file-system events, in URI
//! order within a batch, so the resource that must stay silent is named before the one
//! that proves the batch was handled (`alpha` before `beta`).

use serde_json::{Value, json};

use crate::mcp_conformance::{Error, Server, initialize};
use crate::util::{Env, TestResult};

/// Reads lines until `done` holds for one; returns every line read, that one last.
fn read_until(server: &Server, done: impl Fn(&Value) -> bool) -> Result<Vec<Value>, Error> {
    let mut seen = Vec::new();
    loop {
        let line = server.next()?;
        let stop = done(&line);
        seen.push(line);
        if stop {
            return Ok(seen);
        }
    }
}

/// The `notifications/message` among `lines`.
fn messages(lines: &[Value]) -> Vec<&Value> {
    lines
        .iter()
        .filter(|l| l["method"] == "notifications/message")
        .collect()
}

/// The reply to request `id` among `lines`.
fn reply<'a>(lines: &'a [Value], id: &str) -> Result<&'a Value, Error> {
    lines
        .iter()
        .find(|l| l["id"] == json!(id))
        .ok_or_else(|| format!("no reply to {id} in {lines:?}").into())
}

/// A `notifications/message` and the reply to `id`, in whichever order they come.
fn message_and_reply(server: &Server, id: &str) -> Result<Vec<Value>, Error> {
    let mut lines = read_until(server, |l| {
        l["method"] == "notifications/message" || l["id"] == json!(id)
    })?;
    let first_was_reply = lines.last().is_some_and(|l| l["id"] == json!(id));
    lines.extend(read_until(server, |l| {
        if first_was_reply {
            l["method"] == "notifications/message"
        } else {
            l["id"] == json!(id)
        }
    })?);
    Ok(lines)
}

/// A bad notification: the reader drops it and logs a warning ("ignored a message").
const BAD_NOTIFICATION: &str =
    r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}"#;

fn set_level(id: &str, level: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "logging/setLevel", "params": {"level": level}})
        .to_string()
}

#[test]
fn log_messages_go_out_at_and_above_the_level_set_and_none_before() -> TestResult {
    let env = Env::new()?;
    let mut server = Server::start(&env, &[], &[])?;
    let init = server.exchange(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"notify","version":"1"}}}"#,
    )?;
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["logging"], json!({}), "{init}");
    assert_eq!(caps["resources"]["subscribe"], json!(true), "{init}");
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)?;

    // No level set: the warning goes to stderr only.
    server.expect_silence(BAD_NOTIFICATION, "p1")?;
    let message = server.expect_error(&set_level("l0", "loud"), -32602, &json!("l0"))?;
    assert!(
        message.contains("loud") && message.contains("logging/setLevel"),
        "{message}"
    );
    let ok = server.exchange(&set_level("l1", "error"))?;
    assert_eq!(ok["result"], json!({}), "{ok}");
    // Warnings, below `error`: not sent.
    server.expect_silence(BAD_NOTIFICATION, "p2")?;
    server.expect_error("{not json", -32700, &Value::Null)?;
    // A tool's error is logged at `error`: the first message the client gets, so none of the
    // warnings before it went out.
    server.send(
        r#"{"jsonrpc":"2.0","id":"t1","method":"tools/call","params":{"name":"plan","arguments":{"action":"explode"}}}"#,
    )?;
    let lines = message_and_reply(&server, "t1")?;
    assert_eq!(reply(&lines, "t1")?["result"]["isError"], true, "{lines:?}");
    let got = messages(&lines);
    assert_eq!(got.len(), 1, "{lines:?}");
    let params = &got[0]["params"];
    assert_eq!(params["level"], "error", "{params}");
    assert_eq!(params["logger"], "goldfish", "{params}");
    let data = params["data"].as_str().unwrap_or_default();
    assert!(
        data.contains("tool error") && data.contains("explode"),
        "{data}"
    );

    // At `debug`, the reader's warning goes out too.
    let ok = server.exchange(&set_level("l2", "debug"))?;
    assert_eq!(ok["result"], json!({}), "{ok}");
    server.send(BAD_NOTIFICATION)?;
    server.send(r#"{"jsonrpc":"2.0","id":"p3","method":"ping"}"#)?;
    let lines = message_and_reply(&server, "p3")?;
    let got = messages(&lines);
    assert_eq!(got.len(), 1, "{lines:?}");
    assert_eq!(got[0]["params"]["level"], "warning", "{lines:?}");
    let data = got[0]["params"]["data"].as_str().unwrap_or_default();
    assert!(data.contains("ignored a message"), "{data}");

    // stderr keeps every line, those sent and those not.
    let (ok, stderr) = server.finish()?;
    assert!(ok, "{stderr}");
    assert_eq!(
        stderr.matches("goldfish mcp: ignored a message").count(),
        3,
        "{stderr}"
    );
    assert!(
        stderr.contains("goldfish mcp: rejected a message"),
        "{stderr}"
    );
    Ok(())
}

/// Runs `goldfish args…` in workspace `ws` of `env`'s store: another process than the server.
fn goldfish(env: &Env, ws: &str, args: &[&str]) -> TestResult {
    let out = env.cmd(args).env("GOLDFISH_WORKSPACE", ws).output()?;
    if !out.status.success() {
        return Err(format!(
            "goldfish {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(())
}

fn request(id: &str, method: &str, uri: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"uri": uri}}).to_string()
}

/// Reads until the first `notifications/resources/updated` whose URI is not in `skip`
/// (updates of a change already seen may come again: one change is several file events)
/// and returns its URI.
fn next_update(server: &Server, skip: &[&str]) -> Result<String, Error> {
    let lines = read_until(server, |l| {
        l["method"] == "notifications/resources/updated"
            && !skip.iter().any(|s| l["params"]["uri"] == json!(s))
    })?;
    let last = lines.last().ok_or("no line")?;
    for line in &lines[..lines.len() - 1] {
        if line["method"] != "notifications/resources/updated" {
            return Err(format!("unexpected line before the update: {line}").into());
        }
    }
    Ok(last["params"]["uri"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}

/// Sends request `line` and returns its reply, passing over updates of `skip`.
fn exchange_past_updates(server: &mut Server, line: &str, id: &str) -> Result<Value, Error> {
    server.send(line)?;
    let lines = read_until(server, |l| l["id"] == json!(id))?;
    for l in &lines[..lines.len() - 1] {
        if l["method"] != "notifications/resources/updated" {
            return Err(format!("unexpected line before the reply to {id}: {l}").into());
        }
    }
    lines.last().cloned().ok_or_else(|| "no line".into())
}

#[test]
fn subscribed_resources_are_told_of_changes_made_by_another_process() -> TestResult {
    let env = Env::new()?;
    // The store exists before the server starts (the server watches an existing store), with
    // both workspaces and beta's plan in it: their directories are watched from the start.
    goldfish(&env, "alpha", &["checkpoint", "Alpha's first step"])?;
    goldfish(&env, "beta", &["checkpoint", "Beta's first step"])?;
    goldfish(
        &env,
        "beta",
        &["plan", "save", "--id", "launch", "--title", "Launch"],
    )?;
    let mut server = Server::start(&env, &[], &[("GOLDFISH_WORKSPACE", "alpha")])?;
    initialize(&mut server)?;

    // A URI goldfish sends no update for is accepted (the client is warned, when it asked
    // for messages); one whose workspace cannot be a workspace is refused, naming it.
    for (id, uri) in [
        ("s0", "goldfish://alpha/plans/launch"),
        ("s1", "https://example.com/x"),
    ] {
        let ok = server.exchange(&request(id, "resources/subscribe", uri))?;
        assert_eq!(ok["result"], json!({}), "{ok}");
    }
    let message = server.expect_error(
        &request("s2", "resources/subscribe", "goldfish://../checkpoints"),
        -32602,
        &json!("s2"),
    )?;
    assert!(
        message.contains("goldfish://../checkpoints") && message.contains("cannot subscribe"),
        "{message}"
    );
    for (id, uri) in [
        ("s3", "goldfish://alpha/checkpoints"),
        ("s4", "goldfish://beta/plan"),
    ] {
        let ok = server.exchange(&request(id, "resources/subscribe", uri))?;
        assert_eq!(ok["result"], json!({}), "{ok}");
    }

    // Reading a resource changes nothing: the first update is the plan changed after it.
    let read = server.exchange(&request(
        "r1",
        "resources/read",
        "goldfish://alpha/checkpoints",
    ))?;
    assert!(read.to_string().contains("Alpha's first step"), "{read}");
    goldfish(
        &env,
        "beta",
        &["plan", "update", "launch", "--content", "- [ ] ship"],
    )?;
    assert_eq!(next_update(&server, &[])?, "goldfish://beta/plan");

    goldfish(&env, "alpha", &["checkpoint", "Alpha's second step"])?;
    assert_eq!(
        next_update(&server, &["goldfish://beta/plan"])?,
        "goldfish://alpha/checkpoints"
    );
    let read = exchange_past_updates(
        &mut server,
        &request("r2", "resources/read", "goldfish://alpha/checkpoints"),
        "r2",
    )?;
    assert!(read.to_string().contains("Alpha's second step"), "{read}");

    // Unsubscribed: a change of alpha is not told; beta's checkpoints, subscribed now and
    // changed after it, are.
    let ok = exchange_past_updates(
        &mut server,
        &request(
            "u1",
            "resources/unsubscribe",
            "goldfish://alpha/checkpoints",
        ),
        "u1",
    )?;
    assert_eq!(ok["result"], json!({}), "{ok}");
    let ok = exchange_past_updates(
        &mut server,
        &request("s5", "resources/subscribe", "goldfish://beta/checkpoints"),
        "s5",
    )?;
    assert_eq!(ok["result"], json!({}), "{ok}");
    // An update decided before the unsubscription may still be on its way; a log message
    // queued now comes after every one of them.
    let ok = exchange_past_updates(&mut server, &set_level("l1", "warning"), "l1")?;
    assert_eq!(ok["result"], json!({}), "{ok}");
    server.send(BAD_NOTIFICATION)?;
    let lines = read_until(&server, |l| l["method"] == "notifications/message")?;
    assert!(
        lines[..lines.len() - 1]
            .iter()
            .all(|l| l["method"] == "notifications/resources/updated"),
        "{lines:?}"
    );
    goldfish(&env, "alpha", &["checkpoint", "Alpha's third step"])?;
    goldfish(&env, "beta", &["checkpoint", "Beta's second step"])?;
    assert_eq!(
        next_update(&server, &["goldfish://beta/plan"])?,
        "goldfish://beta/checkpoints"
    );
    // More updates of the same change may follow; the server is stopped as it is.
    drop(server);
    Ok(())
}
