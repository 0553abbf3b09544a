//! Whole `goldfish mcp` sessions over raw JSON-RPC lines to the real binary: what a normal
//! session writes to stderr (nothing: clients log each line of it as an error), a store that
//! cannot be read, and both protocol eras (2025-11-25 with `initialize`, 2026-07-28 stateless
//! with `_meta` on every request and `server/discover`).

use serde_json::{Value, json};

use crate::mcp_conformance::{Error, Server, check_error, initialize, round_trip};
use crate::util::{Env, TestResult};

/// A request line; `params` gets the 2026-07-28 per-request `_meta` when `meta` is given.
fn request(id: &str, method: &str, mut params: Value, meta: Option<&Value>) -> String {
    if let (Some(meta), Some(object)) = (meta, params.as_object_mut()) {
        object.insert("_meta".into(), meta.clone());
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// A `tools/call` line.
fn call(id: &str, tool: &str, arguments: Value, meta: Option<&Value>) -> String {
    request(
        id,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
        meta,
    )
}

/// The reply to `line`, which must be a result for `id`; returns the result.
fn result_of(server: &mut Server, line: &str, id: &str) -> Result<Value, Error> {
    let reply = server.exchange(line)?;
    if reply["id"] != json!(id) || reply.get("result").is_none() {
        return Err(format!("want a result for {id}, got {reply}").into());
    }
    Ok(reply["result"].clone())
}

/// The text of a tool result's first content block.
fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn a_normal_session_writes_nothing_to_stderr_and_verbose_says_what_happened() -> TestResult {
    let env = Env::new()?;
    let mut server = Server::start(&env, &[], &[])?;
    initialize(&mut server)?;
    for (id, method) in [
        ("p", "prompts/list"),
        ("r", "resources/list"),
        ("t", "resources/templates/list"),
    ] {
        result_of(&mut server, &request(id, method, json!({}), None), id)?;
    }
    round_trip(&mut server, "quietfish")?;
    let saved = result_of(
        &mut server,
        &call(
            "plan",
            "plan",
            json!({"action": "save", "title": "Quiet", "content": "- [ ] one"}),
            None,
        ),
        "plan",
    )?;
    assert_ne!(saved["isError"], json!(true), "{saved}");
    let resources = result_of(
        &mut server,
        &request("r2", "resources/list", json!({}), None),
        "r2",
    )?;
    let uri = resources["resources"][0]["uri"]
        .as_str()
        .ok_or_else(|| format!("no resources: {resources}"))?
        .to_string();
    result_of(
        &mut server,
        &request("read", "resources/read", json!({"uri": uri}), None),
        "read",
    )?;
    let (success, stderr) = server.finish()?;
    assert!(success, "goldfish mcp failed; stderr: {stderr}");
    assert_eq!(stderr, "", "a normal session wrote to stderr");

    // `-v` adds the lifecycle lines and the tool errors the client was sent anyway.
    let mut server = Server::start(&env, &["-v"], &[])?;
    initialize(&mut server)?;
    let bad = result_of(
        &mut server,
        &call("bad", "checkpoint", json!({"description": 5}), None),
        "bad",
    )?;
    assert_eq!(bad["isError"], json!(true), "{bad}");
    let (success, stderr) = server.finish()?;
    assert!(success, "goldfish mcp -v failed; stderr: {stderr}");
    for needle in [
        "goldfish mcp: serving on stdio",
        "goldfish mcp: tool error: invalid arguments for `checkpoint`",
        "goldfish mcp: stopped",
    ] {
        assert!(stderr.contains(needle), "{needle} not in: {stderr}");
    }
    Ok(())
}

#[test]
fn a_store_that_is_a_file_lists_nothing_and_the_tools_and_doctor_say_why() -> TestResult {
    let env = Env::new()?;
    let file = env.home().join("not-a-store");
    std::fs::write(&file, "a file, not a directory\n")?;
    let file_text = file.to_string_lossy().into_owned();
    let mut server = Server::start(&env, &[], &[("GOLDFISH_HOME", &file_text)])?;
    initialize(&mut server)?;
    // Listing answers with a result (clients retry an error, holding the session up).
    let listed = result_of(
        &mut server,
        &request("list", "resources/list", json!({}), None),
        "list",
    )?;
    assert_eq!(listed["resources"], json!([]), "{listed}");
    // The tools say what is wrong and how to fix it.
    for (id, tool, arguments) in [
        ("recall", "recall", json!({})),
        ("save", "checkpoint", json!({"description": "lost?"})),
    ] {
        let result = result_of(&mut server, &call(id, tool, arguments, None), id)?;
        assert_eq!(result["isError"], json!(true), "{result}");
        for needle in [file_text.as_str(), "must be a directory", "GOLDFISH_HOME"] {
            assert!(text(&result).contains(needle), "{needle} not in {result}");
        }
    }
    let (success, stderr) = server.finish()?;
    assert!(success, "goldfish mcp failed; stderr: {stderr}");
    assert_eq!(stderr, "", "the tools already told the client");

    let doctor = env.cmd(&["doctor"]).env("GOLDFISH_HOME", &file).output()?;
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert!(!doctor.status.success(), "{report}");
    let store_lines: Vec<&str> = report
        .lines()
        .filter(|l| l.starts_with("[FAIL]") && l.contains(&file_text))
        .collect();
    assert_eq!(
        store_lines.len(),
        1,
        "doctor reports the store once:\n{report}"
    );
    assert!(
        store_lines[0].starts_with("[FAIL] store:"),
        "{}",
        store_lines[0]
    );
    Ok(())
}

/// The names of the tools in a `tools/list` result, sorted.
fn tool_names(result: &Value) -> Vec<String> {
    let mut names: Vec<String> = result["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    names.sort_unstable();
    names
}

#[test]
fn both_protocol_eras_are_served() -> TestResult {
    let env = Env::new()?;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "stateless", "version": "1"},
    });

    // 2026-07-28: no `initialize`; `server/discover`, then requests that each carry `_meta`.
    let mut server = Server::start(&env, &[], &[])?;
    let discovered = result_of(
        &mut server,
        &request("d", "server/discover", json!({}), Some(&meta)),
        "d",
    )?;
    let versions = &discovered["supportedVersions"];
    for version in ["2025-11-25", "2026-07-28"] {
        assert!(
            versions
                .as_array()
                .is_some_and(|v| v.contains(&json!(version))),
            "{version} not in {discovered}"
        );
    }
    for capability in ["tools", "prompts", "resources"] {
        assert!(
            discovered["capabilities"].get(capability).is_some(),
            "{discovered}"
        );
    }
    assert_eq!(
        discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("goldfish"),
        "{discovered}"
    );
    let tools = result_of(
        &mut server,
        &request("l", "tools/list", json!({}), Some(&meta)),
        "l",
    )?;
    assert_eq!(
        tool_names(&tools),
        ["checkpoint", "forget", "plan", "recall"]
    );
    let saved = result_of(
        &mut server,
        &call(
            "s",
            "checkpoint",
            json!({"description": "stateless axolotl"}),
            Some(&meta),
        ),
        "s",
    )?;
    assert_eq!(saved["isError"], json!(false), "{saved}");
    let recalled = result_of(
        &mut server,
        &call("r", "recall", json!({"search": "axolotl"}), Some(&meta)),
        "r",
    )?;
    assert!(text(&recalled).contains("stateless axolotl"), "{recalled}");
    let listed = result_of(
        &mut server,
        &request("res", "resources/list", json!({}), Some(&meta)),
        "res",
    )?;
    assert!(
        listed["resources"]
            .as_array()
            .is_some_and(|r| !r.is_empty()),
        "{listed}"
    );
    // In this era a request without its `_meta` is refused, with its id.
    let refused = server.exchange(&request("bare", "tools/list", json!({}), None))?;
    check_error(&refused, -32602, &json!("bare"))?;
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("io.modelcontextprotocol/protocolVersion"),
        "{message}"
    );
    let (success, stderr) = server.finish()?;
    assert!(success, "goldfish mcp failed; stderr: {stderr}");
    assert_eq!(stderr, "");

    // 2025-11-25: a client that speaks both probes with `server/discover` first, then falls
    // back to `initialize`; the server answers both and serves the session.
    let mut server = Server::start(&env, &[], &[])?;
    result_of(
        &mut server,
        &request("probe", "server/discover", json!({}), Some(&meta)),
        "probe",
    )?;
    let initialized = result_of(
        &mut server,
        &request(
            "init",
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "legacy", "version": "1"}}),
            None,
        ),
        "init",
    )?;
    assert_eq!(initialized["protocolVersion"], json!("2025-11-25"));
    assert_eq!(initialized["serverInfo"]["name"], json!("goldfish"));
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)?;
    round_trip(&mut server, "handshake")?;
    let recalled = result_of(
        &mut server,
        &call("old", "recall", json!({"search": "axolotl"}), None),
        "old",
    )?;
    assert!(
        text(&recalled).contains("stateless axolotl"),
        "one store for both eras: {recalled}"
    );
    let (success, stderr) = server.finish()?;
    assert!(success, "goldfish mcp failed; stderr: {stderr}");
    assert_eq!(stderr, "");
    Ok(())
}

#[test]
fn a_stateless_client_refused_a_version_can_cancel_and_retry() -> TestResult {
    let env = Env::new()?;
    let mut server = Server::start(&env, &[], &[])?;
    let meta = |version: &str| {
        json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        })
    };
    // A version the server does not speak: refused with the versions it does.
    let refused = server.exchange(&request(
        "new",
        "tools/list",
        json!({}),
        Some(&meta("2099-01-01")),
    ))?;
    check_error(&refused, -32022, &json!("new"))?;
    assert!(
        refused["error"]["data"]["supported"]
            .as_array()
            .is_some_and(|v| v.contains(&json!("2026-07-28"))),
        "{refused}"
    );
    // Cancelling the refused request is a notification before any session: ignored (it
    // used to stop the server), never answered.
    server.expect_silence(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"new"}}"#,
        "after-cancel",
    )?;
    let tools = result_of(
        &mut server,
        &request("retry", "tools/list", json!({}), Some(&meta("2026-07-28"))),
        "retry",
    )?;
    assert_eq!(
        tool_names(&tools),
        ["checkpoint", "forget", "plan", "recall"]
    );
    let (success, stderr) = server.finish()?;
    assert!(success, "goldfish mcp failed; stderr: {stderr}");
    Ok(())
}
