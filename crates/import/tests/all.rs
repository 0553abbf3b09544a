//! The integration tests of goldfish-import: one binary, one module per area.

mod goldfish_v7;
mod import;
mod malformed;
mod tusk;
mod unchanged;
mod utf8;

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The result type of every test.
pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// `tests/fixtures/{name}`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Copies a directory tree (hidden files included) into `to`.
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Reads a JSON file.
pub fn read_json(path: &Path) -> Result<Value, Box<dyn std::error::Error>> {
    Ok(serde_json::from_str(&std::fs::read_to_string(path)?)?)
}

/// Two JSON values are equal; numbers compare by value (`1` equals `1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Compares two JSON objects field by field and appends one line per difference to
/// `diffs`: a field only one side has, or a field whose values differ.
pub fn diff_fields(what: &str, want: &Value, got: &Value, diffs: &mut Vec<String>) {
    let (Some(w), Some(g)) = (want.as_object(), got.as_object()) else {
        diffs.push(format!("{what}: not objects: want {want}, got {got}"));
        return;
    };
    let mut keys: Vec<&String> = w.keys().chain(g.keys()).collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        match (w.get(k), g.get(k)) {
            (Some(a), Some(b)) if same(a, b) => {}
            (a, b) => diffs.push(format!(
                "{what}.{k}: manifest {} / read {}",
                a.map_or("(absent)".to_string(), Value::to_string),
                b.map_or("(absent)".to_string(), Value::to_string)
            )),
        }
    }
}

/// Fails with every difference, one per line.
pub fn assert_no_diffs(diffs: &[String]) {
    assert!(
        diffs.is_empty(),
        "{} difference(s) from the manifest:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

/// An instant as the original programs print it: `2026-05-04T09:14:07.250Z`.
pub fn iso(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}
