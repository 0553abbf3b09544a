//! Drill-down: recall lists each hit's id, `goldfish show ID` and the `recall` tool's `id`
//! open the whole record.

use serde_json::json;

use crate::mcp_replies::{call_tools, text};
use crate::util::{Env, TestResult, contains_all};

/// Saves a decision with a long body in workspace `test` and a checkpoint in `other`;
/// returns their ids.
fn seed(env: &Env) -> Result<(String, String), Box<dyn std::error::Error>> {
    let body = "We compared three options for the session store.\nRedis won on latency.";
    let decision = env.json(&[
        "checkpoint",
        &format!("Chose Redis for sessions\n{body}"),
        "--type",
        "decision",
        "--decision",
        "Redis with a 30-minute TTL",
        "--tags",
        "sessions",
    ])?;
    let mut other = env.cmd(&["--json", "checkpoint", "Tuned the nightly export"]);
    other.env("GOLDFISH_WORKSPACE", "other");
    let out = other.output()?;
    let other: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    Ok((
        decision["id"].as_str().ok_or("id")?.to_string(),
        other["id"].as_str().ok_or("id")?.to_string(),
    ))
}

#[test]
fn recall_lists_ids_and_show_opens_the_whole_record() -> TestResult {
    let env = Env::new()?;
    let (id, other_id) = seed(&env)?;
    let listed = env.ok(&["recall", "--search", "redis"])?;
    contains_all(&listed, &[&format!("id: {id}"), "Chose Redis for sessions"])?;
    assert!(
        !listed.contains("Redis won on latency"),
        "compact view: {listed}"
    );

    let shown = env.ok(&["show", &id])?;
    contains_all(
        &shown,
        &[
            "Chose Redis for sessions",
            "Redis won on latency",
            "decision: Redis with a 30-minute TTL",
            &format!("id: {id}"),
        ],
    )?;
    let v = env.json(&["show", &id])?;
    assert_eq!(v["id"], id.as_str());
    assert_eq!(v["type"], "decision");
    assert!(
        v["description"]
            .as_str()
            .is_some_and(|d| d.ends_with("latency.")),
        "{v}"
    );

    // Not in the current workspace: found in the other one.
    let v = env.json(&["show", &other_id])?;
    assert_eq!(v["workspace"], "other");
    env.fails(
        &["show", "20200101T000000000Z-nope"],
        1,
        "no checkpoint has the id",
    )
}

#[test]
fn the_recall_tool_opens_a_record_by_id() -> TestResult {
    let env = Env::new()?;
    let (id, _) = seed(&env)?;
    let results = call_tools(
        &env,
        &[
            ("recall", json!({"search": "redis"})),
            ("recall", json!({"id": id})),
            ("recall", json!({"id": "nope"})),
        ],
    )?;
    contains_all(&text(&results[0]), &[&format!("id: {id}")])?;
    assert!(!text(&results[0]).contains("Redis won on latency"));
    let full = &results[1];
    contains_all(
        &text(full),
        &["Redis won on latency", "Redis with a 30-minute TTL"],
    )?;
    let cp = &full["structuredContent"]["checkpoints"][0];
    assert_eq!(cp["id"], id.as_str());
    assert!(
        cp["body"].as_str().is_some_and(|b| b.contains("Redis won")),
        "{full}"
    );
    assert_eq!(results[2]["isError"], true, "{}", results[2]);
    contains_all(&text(&results[2]), &["no checkpoint has the id `nope`"])
}
