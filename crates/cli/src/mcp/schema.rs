//! The MCP tools' JSON Schemas, made portable: schemars writes `Option<T>` as
//! `"type": ["T", "null"]` (or an `anyOf` with `{"type": "null"}`) and integers with formats
//! such as `uint32`, which some function-calling backends reject. Every tool's input and
//! output schema goes through [`portable`]: an optional field is simply not required, a
//! number's range is said with `minimum`, and only the formats JSON Schema defines remain.

use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::Value;

/// The formats JSON Schema 2020-12 defines (validation vocabulary).
const STANDARD_FORMATS: [&str; 17] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "regex",
];

/// The schema of `T`'s arguments, made portable.
pub(crate) fn input<T: schemars::JsonSchema + 'static>() -> Arc<JsonObject> {
    let schema = rmcp::handler::server::common::schema_for_input::<T>()
        .expect("the tool argument types derive an object schema");
    Arc::new(portable((*schema).clone()))
}

/// The schema of what `T` serialises to, made portable.
pub(crate) fn output<T: schemars::JsonSchema + 'static>() -> Arc<JsonObject> {
    let schema = rmcp::handler::server::common::schema_for_output::<T>();
    Arc::new(portable((*schema).clone()))
}

/// `schema` without type arrays, `null` alternatives or non-standard formats.
pub(crate) fn portable(schema: JsonObject) -> JsonObject {
    let mut value = Value::Object(schema);
    clean(&mut value);
    match value {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    }
}

fn clean(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(clean),
        Value::Object(o) => {
            // "type": ["string", "null"] → "type": "string".
            if let Some(Value::Array(types)) = o.get("type") {
                let kept: Vec<Value> = types
                    .iter()
                    .filter(|t| t.as_str() != Some("null"))
                    .cloned()
                    .collect();
                let single = match kept.as_slice() {
                    [one] => one.clone(),
                    _ => Value::Array(kept),
                };
                o.insert("type".into(), single);
            }
            // anyOf/oneOf [X, {"type": "null"}] → X.
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(alts)) = o.get(key) {
                    let kept: Vec<Value> = alts
                        .iter()
                        .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
                        .cloned()
                        .collect();
                    if kept.len() == 1 {
                        o.remove(key);
                        if let Some(Value::Object(inner)) = kept.into_iter().next() {
                            for (k, v) in inner {
                                o.entry(k).or_insert(v);
                            }
                        }
                    } else if kept.len() != alts.len() {
                        o.insert(key.into(), Value::Array(kept));
                    }
                }
            }
            if let Some(format) = o.get("format").and_then(Value::as_str)
                && !STANDARD_FORMATS.contains(&format)
            {
                o.remove("format");
            }
            if o.get("default").is_some_and(Value::is_null) {
                o.remove("default");
            }
            o.remove("nullable");
            for v in o.values_mut() {
                clean(v);
            }
        }
        _ => {}
    }
}

/// Every place in `schema` that still has a type array, a `null` type or a non-standard
/// format, as JSON pointers (for the tests).
#[cfg(test)]
pub(crate) fn problems(schema: &Value, at: &str, out: &mut Vec<String>) {
    match schema {
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                problems(v, &format!("{at}/{i}"), out);
            }
        }
        Value::Object(o) => {
            match o.get("type") {
                Some(Value::Array(_)) => out.push(format!("{at}: type array")),
                Some(Value::String(t)) if t == "null" => out.push(format!("{at}: null type")),
                _ => {}
            }
            if let Some(f) = o.get("format").and_then(Value::as_str)
                && !STANDARD_FORMATS.contains(&f)
            {
                out.push(format!("{at}: format {f}"));
            }
            if o.contains_key("nullable") {
                out.push(format!("{at}: nullable"));
            }
            for (k, v) in o {
                problems(v, &format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_arrays_null_alternatives_and_odd_formats_go() {
        let Value::Object(schema) = serde_json::json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
                "c": {"anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}], "default": null},
                "d": {"type": "string", "format": "date-time"}
            }
        }) else {
            unreachable!()
        };
        let out = Value::Object(portable(schema));
        let mut found = Vec::new();
        problems(&out, "", &mut found);
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(out["properties"]["a"]["type"], "string");
        assert_eq!(out["properties"]["b"]["minimum"], 0);
        assert_eq!(out["properties"]["c"]["$ref"], "#/$defs/X");
        assert_eq!(out["properties"]["d"]["format"], "date-time");
    }
}
