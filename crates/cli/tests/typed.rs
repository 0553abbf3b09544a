//! Typed memories and recall filters, through `goldfish checkpoint`/`recall`/`standup` and
//! the MCP tools.

use serde_json::json;

use crate::mcp_replies::{call_tools, text};
use crate::util::{Env, TestResult, contains_all};

#[test]
fn checkpoint_flags_save_every_typed_field() -> TestResult {
    let env = Env::new()?;
    let long = env.cwd.path().join("long.md");
    std::fs::write(&long, "Body line one\nBody; with - dashes\n")?;
    let v = env.json(&[
        "checkpoint",
        "Chose refresh-token rotation",
        "--from-file",
        long.to_str().ok_or("path")?,
        "--type",
        "decision",
        "--context",
        "Tokens were reusable\nfor 30 days",
        "--decision",
        "Rotate on every use",
        "--alternative",
        "Sliding expiry; shorter",
        "--alternative",
        "- do nothing",
        "--impact",
        "Clients must store the new token",
        "--evidence",
        "RFC 6819 §5.2.2.3",
        "--symbol",
        "TokenStore::rotate",
        "--next",
        "Ship it",
        "--confidence",
        "4",
        "--unknown",
        "Mobile clients?",
        "-t",
        "auth",
    ])?;
    assert_eq!(
        v["description"],
        "Chose refresh-token rotation\nBody line one\nBody; with - dashes"
    );
    assert_eq!(v["type"], "decision");
    assert_eq!(v["context"], "Tokens were reusable\nfor 30 days");
    assert_eq!(
        v["alternatives"],
        json!(["Sliding expiry; shorter", "- do nothing"])
    );
    assert_eq!(v["confidence"], 4);
    assert_eq!(v["symbols"], json!(["TokenStore::rotate"]));

    // Saved as ordinary bullets a person (or Goldfish v4) reads; read back whole.
    let day = std::fs::read_dir(env.home().join("test/checkpoints"))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .ok_or("no day file")?;
    let file = std::fs::read_to_string(day)?;
    contains_all(
        &file,
        &[
            "- **Type**: decision\n",
            "- **Context**: Tokens were reusable\\nfor 30 days\n",
            "- **Alternatives**: Sliding expiry\\; shorter; - do nothing\n",
            "- **Confidence**: 4\n",
        ],
    )?;
    let r = env.json(&["recall", "--full"])?;
    let c = &r["checkpoints"][0];
    for key in [
        "type",
        "context",
        "decision",
        "alternatives",
        "impact",
        "evidence",
        "symbols",
        "next",
        "confidence",
        "unknowns",
    ] {
        assert_eq!(c[key], v[key], "{key}");
    }
    let text = env.ok(&["recall", "--full"])?;
    contains_all(
        &text,
        &[
            "[decision] Chose refresh-token rotation",
            "  decision: Rotate on every use",
            "  context: Tokens were reusable / for 30 days",
        ],
    )?;
    Ok(())
}

#[test]
fn bad_typed_flags_are_usage_errors_naming_the_flag() -> TestResult {
    let env = Env::new()?;
    env.fails(&["checkpoint", "x", "--type", "bogus"], 2, "--type")?;
    env.fails(
        &["checkpoint", "x", "--type", "bogus"],
        2,
        "unknown memory type",
    )?;
    env.fails(&["checkpoint", "x", "--confidence", "7"], 2, "--confidence")?;
    env.fails(
        &["checkpoint", "x", "--confidence", "7"],
        2,
        "confidence 7 is out of range",
    )?;
    env.fails(
        &["checkpoint", "x", "--confidence", "high"],
        2,
        "not a whole number",
    )?;
    env.fails(&["recall", "--type", "note"], 2, "--type")?;
    env.fails(&["checkpoint"], 2, "DESCRIPTION")?;
    env.fails(
        &["checkpoint", "--from-file", "/nonexistent/x.md"],
        1,
        "/nonexistent/x.md",
    )?;
    // Nothing was saved by any of them.
    let r = env.json(&["recall"])?;
    assert_eq!(r["checkpoints"], json!([]));
    Ok(())
}

#[test]
fn recall_filters_and_standup_sections() -> TestResult {
    let env = Env::new()?;
    env.ok(&[
        "checkpoint",
        "Picked Postgres",
        "--type",
        "decision",
        "--decision",
        "Postgres over SQLite",
        "-t",
        "db,arch",
        "--symbol",
        "Pool::connect",
    ])?;
    env.ok(&[
        "checkpoint",
        "Pool exhausted",
        "--type",
        "incident",
        "--impact",
        "API down 5 min",
        "-t",
        "db",
    ])?;
    env.ok(&["checkpoint", "Wrote docs", "-t", "docs"])?;
    let titles = |args: &[&str]| -> Result<Vec<String>, Box<dyn std::error::Error>> {
        let mut all = vec!["recall"];
        all.extend_from_slice(args);
        let v = env.json(&all)?;
        Ok(v["checkpoints"]
            .as_array()
            .ok_or("no checkpoints")?
            .iter()
            .map(|c| c["description"].as_str().unwrap_or("").to_string())
            .collect())
    };
    assert_eq!(titles(&["--type", "decision"])?, ["Picked Postgres"]);
    assert_eq!(
        titles(&["--tag", "db"])?,
        ["Pool exhausted", "Picked Postgres"]
    );
    assert_eq!(
        titles(&["--tag", "db", "--tag", "arch"])?,
        ["Picked Postgres"]
    );
    assert_eq!(titles(&["--symbol", "connect"])?, ["Picked Postgres"]);
    assert_eq!(
        titles(&["--tag", "db", "--search", "api down"])?,
        ["Pool exhausted"]
    );
    assert_eq!(
        titles(&["--type", "learning", "--days", "7"])?,
        Vec::<String>::new()
    );
    // No checkpoint here has files (the cwd is no git repository).
    assert_eq!(titles(&["--file", "src/"])?, Vec::<String>::new());

    let s = env.ok(&["standup"])?;
    contains_all(
        &s,
        &[
            "Decisions:\n",
            "Picked Postgres — Postgres over SQLite",
            "Incidents:\n",
            "Pool exhausted — API down 5 min",
        ],
    )?;
    Ok(())
}

#[test]
fn mcp_tools_take_typed_fields_and_filters() -> TestResult {
    let env = Env::new()?;
    let results = call_tools(
        &env,
        &[
            (
                "checkpoint",
                json!({"description": "Cache incident", "type": "incident", "impact": "Stale prices",
                       "evidence": ["p99 2s", "log: cache miss, then stale"], "confidence": 3, "tags": ["cache"]}),
            ),
            ("checkpoint", json!({"description": "x", "type": "bogus"})),
            ("checkpoint", json!({"description": "x", "confidence": 7})),
            ("checkpoint", json!({"description": "Plain one"})),
            ("recall", json!({"type": "incident", "full": true})),
            ("recall", json!({"tags": ["cache"], "search": "stale"})),
            ("recall", json!({"type": "nope"})),
        ],
    )?;
    assert_ne!(results[0]["isError"], true, "{}", results[0]);
    assert_eq!(results[1]["isError"], true);
    contains_all(&text(&results[1]), &["`type`", "bogus"])?;
    assert_eq!(results[2]["isError"], true);
    contains_all(&text(&results[2]), &["`confidence`", "confidence 7"])?;
    let only = text(&results[4]);
    contains_all(
        &only,
        &[
            "[incident] Cache incident",
            "impact: Stale prices",
            "evidence: p99 2s; log: cache miss, then stale",
        ],
    )?;
    assert!(!only.contains("Plain one"), "{only}");
    contains_all(&text(&results[5]), &["Cache incident"])?;
    assert_eq!(results[6]["isError"], true);
    contains_all(&text(&results[6]), &["`type`", "nope"])?;
    // Refused calls saved nothing.
    let r = env.json(&["recall"])?;
    assert_eq!(r["checkpoints"].as_array().map(Vec::len), Some(2));
    Ok(())
}
