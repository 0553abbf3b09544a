//! `goldfish tidy` through the real binary: the dry run writes nothing, `--apply` forgets
//! exact copies and adds supersession links and says so, `--json`; every path that returns
//! memories (CLI recall, MCP recall, the hooks) records them for it; and recall's several
//! phrasings (`--search` repeated, the MCP tool's `queries`), which share its fixtures.

use serde_json::{Value, json};

use crate::mcp_replies::call_tools;
use crate::util::{Env, TestResult, contains_all};

/// Every file under `dir` with its bytes, by path.
fn files(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out: Vec<_> = crate::forget::walkdir(dir)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect();
    out.sort();
    out
}

/// A checkpoint of `memory_type` at `at` (RFC 3339), written as the store writes it.
fn entry(id: &str, at: &str, memory_type: &str, text: &str) -> goldfish_store::Checkpoint {
    let ts = chrono::DateTime::parse_from_rfc3339(at)
        .expect("time")
        .with_timezone(&chrono::Utc);
    let mut c = goldfish_store::Checkpoint::new(id, ts, "test", text);
    c.memory_type = memory_type.parse().expect("type");
    c
}

/// The record of returns of workspace `test`.
fn returned(env: &Env) -> String {
    std::fs::read_to_string(
        env.home()
            .join(goldfish_store::RETURNS_DIR)
            .join("test.txt"),
    )
    .unwrap_or_default()
}

#[test]
fn a_dry_run_changes_nothing_and_apply_says_what_it_did() -> TestResult {
    let env = Env::new()?;
    let now = chrono::Utc::now();
    let at = |days: i64, hours: i64| {
        (now - chrono::TimeDelta::days(days) + chrono::TimeDelta::hours(hours)).to_rfc3339()
    };
    crate::util::write_day_files(
        env.home(),
        &[
            entry(
                "t-1",
                &at(5, 0),
                "checkpoint",
                "Handed off: the importer is half done",
            ),
            entry(
                "t-2",
                &at(5, 2),
                "checkpoint",
                "Handed off: the importer is half done",
            ),
            entry(
                "t-3",
                &at(4, 0),
                "decision",
                "Use Postgres 14 for the orders database",
            ),
            entry(
                "t-4",
                &at(3, 0),
                "decision",
                "Upgrade the orders database to Postgres 16",
            ),
            entry(
                "t-5",
                &at(2, 0),
                "decision",
                "Chose Redis for the session cache",
            ),
        ],
    )?;
    let before = files(env.home());
    let dry = env.ok(&["tidy"])?;
    contains_all(
        &dry,
        &[
            "Tidy: workspace `test` (5 checkpoints)",
            "Near-duplicates: 1 cluster",
            "exact copy t-2",
            "not linked: 1 chain",
            "newest  t-4",
            "older   t-3",
            "Dry run: nothing changed",
            "would forget 1 exact copy and add 1 supersession link",
        ],
    )?;
    assert_eq!(files(env.home()), before, "a dry run writes nothing");
    env.ok(&["tidy", "--dry-run"])?;
    assert_eq!(files(env.home()), before);

    let v = env.json(&["tidy", "--apply"])?;
    let applied = &v["workspaces"][0]["applied"];
    assert_eq!(applied["forgotten"]["forgotten"][0]["id"], "t-2", "{v}");
    assert_eq!(
        applied["linked"][0],
        json!({"id": "t-4", "supersedes": ["t-3"]})
    );
    // The copy is gone (a tombstone names it), the link is in t-4's entry.
    let days = files(&env.home().join("test"));
    let text: String = days
        .iter()
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .collect();
    assert!(!text.contains("id: t-2 "), "{text}");
    assert!(text.contains("- **Supersedes**: t-3"), "{text}");
    assert!(text.contains("checkpoint t-2 of"), "the tombstone: {text}");
    // Recall hides the superseded decision and shows the link.
    let recall = env.ok(&["recall", "--search", "postgres orders", "--days", "30"])?;
    contains_all(&recall, &["t-4", "supersedes: t-3"])?;
    // Nothing left to apply.
    contains_all(&env.ok(&["tidy", "--apply"])?, &["Nothing to apply."])?;
    Ok(())
}

#[test]
fn apply_refuses_a_guessed_workspace_and_json_reports_each_workspace() -> TestResult {
    let env = Env::new()?;
    env.ok(&["checkpoint", "Something to keep"])?;
    // `-w all`: one report per workspace.
    let v = env.json(&["--workspace", "all", "tidy"])?;
    assert_eq!(v["apply"], false);
    assert_eq!(v["workspaces"][0]["report"]["workspace"], "test", "{v}");
    assert_eq!(v["workspaces"][0]["report"]["checkpoints"], 1);
    assert!(v["workspaces"][0]["applied"].is_null());
    // Outside any project and with no workspace set, `--apply` does not guess.
    let out = env
        .cmd(&["tidy", "--apply"])
        .env_remove("GOLDFISH_WORKSPACE")
        .output()?;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    env.fails(&["tidy", "--apply", "--dry-run"], 2, "cannot be used with")?;
    env.fails(
        &["tidy", "--unreturned-for", "100000000"],
        2,
        "--unreturned-for",
    )?;
    Ok(())
}

#[test]
fn recall_the_mcp_recall_tool_and_the_hooks_record_what_they_return() -> TestResult {
    let env = Env::new()?;
    let hour_ago = (chrono::Utc::now() - chrono::TimeDelta::hours(1)).to_rfc3339();
    let mut incident = entry(
        "r-3",
        &hour_ago,
        "incident",
        "Lemur service crashed when the pool was exhausted",
    );
    incident.files = vec!["src/pool.rs".into()];
    crate::util::write_day_files(
        env.home(),
        &[
            entry(
                "r-1",
                &hour_ago,
                "checkpoint",
                "Zebra crossing rules for the router",
            ),
            entry(
                "r-2",
                &hour_ago,
                "checkpoint",
                "Quokka mascot chosen for the docs",
            ),
            incident,
        ],
    )?;
    let (a, b, c) = ("r-1", "r-2", "r-3");
    assert_eq!(returned(&env), "", "saving returns nothing");

    env.ok(&["recall", "--search", "zebra"])?;
    let record = returned(&env);
    assert!(record.contains(a) && !record.contains(b), "{record}");
    assert!(record.contains("\nsince 20"), "{record}");

    call_tools(&env, &[("recall", json!({"search": "quokka mascot"}))])?;
    let record = returned(&env);
    assert!(record.contains(b), "the MCP recall tool records: {record}");

    // The file hook injects the incident that names the file.
    let input = json!({
        "session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": env.cwd.path(),
        "hook_event_name": "PostToolUse", "tool_name": "Read",
        "tool_input": {"file_path": "src/pool.rs"},
        "tool_response": {"type": "text", "file": {"filePath": "src/pool.rs", "content": "fn main() {}"}},
    });
    let out = env.run_stdin(&["hook", "file", "--client", "claude"], &input.to_string())?;
    out.success(&["hook", "file"])?;
    let injected: Value = serde_json::from_str(&out.stdout())?;
    assert!(injected.to_string().contains(c), "{injected}");
    assert!(
        returned(&env).contains(c),
        "the hook records: {}",
        returned(&env)
    );
    Ok(())
}

#[test]
fn several_phrasings_through_the_cli_and_the_mcp_tool() -> TestResult {
    let env = Env::new()?;
    let hour_ago = (chrono::Utc::now() - chrono::TimeDelta::hours(1)).to_rfc3339();
    crate::util::write_day_files(
        env.home(),
        &[
            entry(
                "p-1",
                &hour_ago,
                "checkpoint",
                "Fixed the TZif parser panic on truncated zoneinfo files",
            ),
            entry(
                "p-2",
                &hour_ago,
                "checkpoint",
                "Switched the retry policy to jittered backoff",
            ),
        ],
    )?;
    let v = env.json(&["recall", "-s", "zoneinfo panic", "-s", "jittered backoff"])?;
    assert_eq!(crate::util::ids(&v), ["p-1", "p-2"], "{v}");
    assert_eq!(v["also_searched"], json!(["jittered backoff"]));
    contains_all(
        &env.ok(&["recall", "-s", "zoneinfo panic", "-s", "jittered backoff"])?,
        &[
            "Search: \"zoneinfo panic\" + \"jittered backoff\"",
            "p-1",
            "p-2",
        ],
    )?;
    env.fails(
        &[
            "recall", "-s", "a b", "-s", "c d", "-s", "e f", "-s", "g h", "-s", "i j",
        ],
        1,
        "at most 4",
    )?;

    let replies = call_tools(
        &env,
        &[
            (
                "recall",
                json!({"search": "zoneinfo panic", "queries": ["jittered backoff"]}),
            ),
            ("recall", json!({"queries": ["jittered backoff"]})),
        ],
    )?;
    for reply in &replies {
        let s = reply["structuredContent"].to_string();
        assert!(s.contains("p-2"), "{reply}");
    }
    let first = &replies[0]["structuredContent"];
    assert_eq!(first["queries"], json!(["jittered backoff"]), "{first}");
    assert!(first.to_string().contains("p-1"));
    Ok(())
}
