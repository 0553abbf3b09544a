//! The shipped JSON Schemas: valid JSON, exactly the structs' fields, and they agree with the
//! Rust parser on the protocol's examples and on bad bodies (checked by a small hand validator, so
//! no schema-validator dependency is needed).

use std::collections::BTreeSet;
use std::path::PathBuf;

use goldfish_signals::{
    BuildComplete, ReviewApproved, ReviewChangesRequested, ReviewIssue, ScopeComplete, Signal,
    SignalKind, TestFailed, TestPassed,
};
use serde_json::{Value, json};

use crate::util::{TestResult, fixture_dir, utc};

fn schema_path(kind: SignalKind) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("schemas/{kind}.schema.json"))
}

fn schema(kind: SignalKind) -> Result<Value, Box<dyn std::error::Error>> {
    Ok(serde_json::from_str(&std::fs::read_to_string(
        schema_path(kind),
    )?)?)
}

/// The JSON keys of a body with every field set: the struct's fields as the file spells them.
fn struct_fields(kind: SignalKind) -> BTreeSet<String> {
    let t = Some(utc("2024-01-15T10:30:00Z"));
    let n = Some(1);
    let strings = Some(vec!["a".to_string()]);
    let signal = match kind {
        SignalKind::ScopeComplete => {
            let mut b = ScopeComplete::default();
            (b.completed_at, b.scope_result_hash) = (t, Some("h".into()));
            Signal::from(b)
        }
        SignalKind::BuildComplete => {
            let mut b = BuildComplete::default();
            (
                b.completed_at,
                b.commits,
                b.files_changed,
                b.lines_added,
                b.lines_removed,
            ) = (t, n, n, n, n);
            Signal::from(b)
        }
        SignalKind::ReviewApproved => {
            let mut b = ReviewApproved::default();
            (
                b.completed_at,
                b.critical_issues,
                b.informational_issues,
                b.auto_fixes,
            ) = (t, n, n, n);
            Signal::from(b)
        }
        SignalKind::ReviewChangesRequested => {
            let mut b = ReviewChangesRequested::default();
            (b.completed_at, b.issues, b.summary) = (t, Some(vec![]), Some("s".into()));
            Signal::from(b)
        }
        SignalKind::TestPassed => {
            let mut b = TestPassed::default();
            (
                b.completed_at,
                b.qa_steps_total,
                b.qa_steps_passed,
                b.bugs_found,
                b.bugs_fixed,
            ) = (t, n, n, n, n);
            b.screenshots = strings;
            Signal::from(b)
        }
        SignalKind::TestFailed => {
            let mut b = TestFailed::default();
            (
                b.completed_at,
                b.failing_steps,
                b.reason,
                b.attempts,
                b.screenshots,
            ) = (t, strings.clone(), Some("r".into()), n, strings);
            Signal::from(b)
        }
    };
    keys(&signal.to_value().unwrap_or_default())
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// A small JSON Schema checker for the keywords our schemas use.
fn validate(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    let fail = |why: &str| Err(format!("{at}: {why}"));
    if let Some(ty) = schema.get("type").and_then(Value::as_str) {
        let ok = match ty {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "boolean" => value.is_boolean(),
            other => return fail(&format!("schema uses unsupported type {other}")),
        };
        if !ok {
            return fail(&format!("expected {ty}, found {value}"));
        }
    }
    if let Some(min) = schema.get("minimum").and_then(Value::as_i64)
        && value.as_i64().is_some_and(|v| v < min)
    {
        return fail(&format!("{value} is below the minimum {min}"));
    }
    if schema.get("format").and_then(Value::as_str) == Some("date-time")
        && let Some(text) = value.as_str()
        && goldfish_core::time::parse_utc(text).is_err()
    {
        return fail(&format!("{text:?} is not a date-time"));
    }
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if value.get(name).is_none() {
                return fail(&format!("missing required {name}"));
            }
        }
    }
    if let (Some(props), Some(object)) = (
        schema.get("properties").and_then(Value::as_object),
        value.as_object(),
    ) {
        for (name, sub) in props {
            if let Some(field) = object.get(name) {
                validate(sub, field, &format!("{at}.{name}"))?;
            }
        }
        if schema.get("additionalProperties") == Some(&Value::Bool(false))
            && let Some(extra) = object.keys().find(|k| !props.contains_key(*k))
        {
            return fail(&format!("unknown field {extra}"));
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (i, item) in array.iter().enumerate() {
            validate(items, item, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

#[test]
fn schemas_are_json_and_list_exactly_the_fields() -> TestResult {
    for kind in SignalKind::ALL {
        let text = std::fs::read_to_string(schema_path(kind))?;
        assert_eq!(
            kind.json_schema(),
            text,
            "{kind}: json_schema() is the shipped file"
        );
        let schema = schema(kind)?;
        assert_eq!(schema["title"], json!(kind.file_name()));
        assert_eq!(schema["type"], json!("object"));
        assert_eq!(
            schema["additionalProperties"],
            json!(true),
            "{kind}: unknown fields allowed"
        );
        let listed = keys(&schema["properties"]);
        assert_eq!(
            listed,
            struct_fields(kind),
            "{kind}: schema properties vs struct fields"
        );
        for (name, prop) in schema["properties"].as_object().into_iter().flatten() {
            assert!(
                prop["description"].is_string(),
                "{kind}.{name} has a description"
            );
        }
    }
    let mut issue = ReviewIssue::default();
    (
        issue.issue_type,
        issue.category,
        issue.file,
        issue.line,
        issue.fixed,
        issue.description,
    ) = (
        Some("t".into()),
        Some("c".into()),
        Some("f".into()),
        Some(1),
        Some(true),
        Some("d".into()),
    );
    let issue_schema =
        &schema(SignalKind::ReviewChangesRequested)?["properties"]["issues"]["items"];
    assert_eq!(
        keys(&issue_schema["properties"]),
        keys(&serde_json::to_value(&issue)?)
    );
    Ok(())
}

#[test]
fn seed_examples_validate_against_their_schemas() -> TestResult {
    for kind in SignalKind::ALL {
        for name in [
            kind.file_name().to_string(),
            format!("{kind}.short"),
            format!("{kind}.extra"),
        ] {
            let path = fixture_dir().join(format!("seed/{name}.json"));
            if !path.exists() {
                continue;
            }
            let example: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
            validate(&schema(kind)?, &example, &name)?;
        }
    }
    Ok(())
}

#[test]
fn schema_and_parser_agree_on_bad_bodies() -> TestResult {
    let cases = [
        (SignalKind::BuildComplete, json!({"commits": 5}), true),
        (SignalKind::BuildComplete, json!({}), true),
        (SignalKind::BuildComplete, json!({"commits": -1}), false),
        (SignalKind::BuildComplete, json!({"commits": "5"}), false),
        (SignalKind::BuildComplete, json!([1]), false),
        (
            SignalKind::ScopeComplete,
            json!({"completed_at": "yesterday"}),
            false,
        ),
        (
            SignalKind::ScopeComplete,
            json!({"completed_at": "2024-01-15T10:30:00+01:00"}),
            true,
        ),
        (
            SignalKind::ReviewChangesRequested,
            json!({"issues": [{"line": "x"}]}),
            false,
        ),
        (
            SignalKind::ReviewChangesRequested,
            json!({"issues": [{"fixed": 1}]}),
            false,
        ),
        (
            SignalKind::TestFailed,
            json!({"failing_steps": "QA-2"}),
            false,
        ),
        (
            SignalKind::TestPassed,
            json!({"screenshots": ["a.png"], "later_field": null}),
            true,
        ),
    ];
    for (kind, body, valid) in cases {
        let by_schema = validate(&schema(kind)?, &body, "body").is_ok();
        let by_parser = Signal::parse(kind, &body.to_string()).is_ok();
        assert_eq!((by_schema, by_parser), (valid, valid), "{kind} {body}");
    }
    Ok(())
}
