//! Properties of the pure editing functions over generated configs.

use goldfish_setup::{Client, Server, register, registration, unregister};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// JSON values with the characters that trouble a scanner: quotes, backslashes, braces.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-z{}\\[\\]\",:\\\\ é]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z\"{}]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A config: other top-level keys, and an `mcpServers` with at least one other server.
fn config() -> impl Strategy<Value = String> {
    (
        prop::collection::btree_map("[a-z]{1,6}", json_value(), 0..4),
        prop::collection::btree_map("[a-z]{1,6}", json_value(), 1..4),
        any::<bool>(),
    )
        .prop_map(|(top, servers, pretty)| {
            let mut map: Map<String, Value> = top.into_iter().collect();
            map.insert(
                "mcpServers".to_owned(),
                Value::Object(servers.into_iter().collect()),
            );
            let value = Value::Object(map);
            if pretty {
                serde_json::to_string_pretty(&value).expect("a value serialises")
            } else {
                serde_json::to_string(&value).expect("a value serialises")
            }
        })
}

proptest! {
    #[test]
    fn json_register_is_reversible_and_idempotent(text in config()) {
        for client in [Client::Claude, Client::Cursor] {
            let added = register(client, &text, &Server::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let parsed: Value = serde_json::from_str(&added).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let before: Value = serde_json::from_str(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(
                parsed["mcpServers"]["goldfish"].clone(),
                serde_json::json!({"command": "goldfish", "args": ["mcp"]})
            );
            // Everything else is the same value.
            let mut without = parsed.clone();
            if let Some(servers) = without["mcpServers"].as_object_mut() {
                servers.remove("goldfish");
            }
            prop_assert_eq!(&without, &before);
            prop_assert_eq!(register(client, &added, &Server::default()).ok(), Some(added.clone()));
            prop_assert_eq!(unregister(client, &added).ok(), Some(text.clone()));
        }
    }

    #[test]
    fn any_text_is_answered_without_panicking(text in "\\PC{0,80}") {
        for client in Client::ALL {
            let _ = register(client, &text, &Server::default());
            let _ = unregister(client, &text);
            let _ = registration(client, &text);
        }
    }

    #[test]
    fn broken_json_is_refused_with_a_line(text in config(), cut in 1usize..40) {
        let end = text.len().saturating_sub(cut);
        let Some(prefix) = text.get(..end) else { return Ok(()) };
        if serde_json::from_str::<Value>(prefix).is_err() && !prefix.trim().is_empty() {
            let err = register(Client::Cursor, prefix, &Server::default());
            prop_assert!(matches!(&err, Err(e) if e.line().is_some()), "{:?}", err);
        }
    }
}
