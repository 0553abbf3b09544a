//! Fuzz target: the MCP server's stdio line classifier (`goldfish mcp` decides with it what
//! each line of stdin is) never panics on any line. An error it answers is a JSON-RPC 2.0
//! error with one of its three codes, and the id it carries is the one the line sent; a
//! notification (a string `method`, no `id`) is never answered; a message it passes to the
//! server, written back as a line, is passed again, the same.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

// The binary's own module, compiled here as it is (it has no library to link against).
#[allow(dead_code)]
#[path = "../../crates/cli/src/mcp/stdio.rs"]
mod mcp_stdio;

use mcp_stdio::{Verdict, classify};

fuzz_target!(|data: &[u8]| {
    let unmarked = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let parsed: Option<Value> = serde_json::from_slice(unmarked).ok();
    let notification = parsed
        .as_ref()
        .and_then(Value::as_object)
        .is_some_and(|o| !o.contains_key("id") && o.get("method").is_some_and(Value::is_string));
    match classify(data) {
        Verdict::Skip => assert!(unmarked.trim_ascii().is_empty(), "a line with text skipped"),
        Verdict::Drop(reason) => assert!(!reason.is_empty()),
        Verdict::Reply(reply) => {
            assert!(!notification, "a notification was answered");
            let reply = serde_json::to_value(&reply).expect("a reply serialises");
            assert_eq!(reply["jsonrpc"], "2.0");
            let code = reply["error"]["code"].as_i64().expect("a numeric code");
            assert!([-32700, -32600, -32602].contains(&code), "code {code}");
            let id = &reply["id"];
            assert!(id.is_null() || id.is_string() || id.is_number(), "id {id}");
            if !id.is_null() {
                let sent = parsed.as_ref().and_then(|v| v.get("id"));
                assert_eq!(sent, Some(id), "the id answered is the one sent");
            }
        }
        Verdict::Pass(message) => {
            let line = serde_json::to_vec(&message).expect("a message serialises");
            match classify(&line) {
                Verdict::Pass(again) => assert_eq!(
                    serde_json::to_value(&again).ok(),
                    serde_json::to_value(&message).ok(),
                    "a passed message written back passes the same"
                ),
                other => panic!("a passed message written back is {other:?}"),
            }
        }
    }
});
