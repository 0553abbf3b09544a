//! Supersession through the real binary: `--supersedes`, `--topic`, recall hiding what was
//! replaced unless `--include-superseded`, the link shown both ways (text, `--json`, `show`),
//! the index and the day files agreeing, and the MCP tools' parameters.

use serde_json::Value;

use crate::util::{Env, TestResult, ids};

/// Saves a checkpoint with `args` after the description; returns its id.
fn save(env: &Env, description: &str, args: &[&str]) -> Result<String, Box<dyn std::error::Error>> {
    let mut all = vec!["checkpoint", description];
    all.extend_from_slice(args);
    let v = env.json(&all)?;
    Ok(v["id"].as_str().ok_or("an id")?.to_string())
}

#[test]
fn an_unknown_id_is_an_error_naming_it_and_nothing_is_saved() -> TestResult {
    let env = Env::new()?;
    let first = save(&env, "First take on caching", &[])?;
    env.fails(
        &[
            "checkpoint",
            "Second take",
            "--supersedes",
            &format!("{first},no-such-id"),
        ],
        1,
        "\"no-such-id\"",
    )?;
    let v = env.json(&["recall"])?;
    assert_eq!(ids(&v), [first], "{v}");
    Ok(())
}

#[test]
fn recall_shows_the_newest_and_hides_what_it_replaced() -> TestResult {
    let env = Env::new()?;
    let old = save(&env, "Cache entries live one hour", &["--type", "decision"])?;
    let other = save(&env, "Unrelated progress on the cache", &[])?;
    let new = save(
        &env,
        "Cache entries live ten minutes",
        &["--type", "decision", "--supersedes", &old],
    )?;
    // Text: the new one says what it replaced, id and title; the old one is hidden.
    let text = env.ok(&["recall"])?;
    assert!(
        text.contains(&format!(
            "supersedes: {old} \"Cache entries live one hour\""
        )),
        "{text}"
    );
    assert!(!text.contains("Cache entries live one hour —"), "{text}");
    // The same with a search, through the index and through the day files.
    for no_index in ["0", "1"] {
        let out = env
            .cmd(&["--json", "recall", "-s", "cache entries live"])
            .env("GOLDFISH_NO_INDEX", no_index)
            .output()?;
        let v: Value = serde_json::from_slice(&out.stdout)?;
        assert_eq!(ids(&v), [new.clone(), other.clone()], "{v}");
        assert_eq!(v["checkpoints"][0]["supersedes"][0]["id"], old.as_str());
        assert_eq!(
            v["checkpoints"][0]["supersedes"][0]["title"],
            "Cache entries live one hour"
        );
        assert_eq!(v["total"], 2);
    }
    // --include-superseded shows it, saying what superseded it.
    let v = env.json(&["recall", "--include-superseded"])?;
    assert_eq!(ids(&v), [new.clone(), other, old.clone()], "{v}");
    assert_eq!(v["checkpoints"][2]["superseded_by"][0]["id"], new.as_str());
    assert_eq!(
        v["checkpoints"][2]["superseded_by"][0]["title"],
        "Cache entries live ten minutes"
    );
    let text = env.ok(&["recall", "--include-superseded"])?;
    assert!(
        text.contains(&format!(
            "superseded by: {new} \"Cache entries live ten minutes\""
        )),
        "{text}"
    );
    // `show` of the old one says what replaced it.
    let text = env.ok(&["show", &old])?;
    assert!(text.contains(&format!("superseded by: {new}")), "{text}");
    let v = env.json(&["show", &old])?;
    assert_eq!(v["superseded_by"][0]["id"], new.as_str());
    Ok(())
}

#[test]
fn a_topic_replaces_the_current_memory_of_that_topic() -> TestResult {
    let env = Env::new()?;
    let a = save(
        &env,
        "Deploys on Fridays are fine",
        &["--type", "decision", "--topic", "deploy-days"],
    )?;
    let b = save(
        &env,
        "No deploys on Fridays",
        &["--type", "decision", "--topic", "Deploy-Days"],
    )?;
    let v = env.json(&["show", &b])?;
    assert_eq!(v["supersedes"][0]["id"], a.as_str(), "{v}");
    assert_eq!(v["topic"], "Deploy-Days");
    let v = env.json(&["recall"])?;
    assert_eq!(ids(&v), std::slice::from_ref(&b), "{v}");
    // The day file says it, as ordinary bullets.
    let day = std::fs::read_dir(env.home().join("test/checkpoints"))?
        .filter_map(Result::ok)
        .find(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .ok_or("a day file")?;
    let text = std::fs::read_to_string(day.path())?;
    assert!(
        text.contains(&format!(
            "- **Topic**: Deploy-Days\n- **Supersedes**: {a}\n"
        )),
        "{text}"
    );
    Ok(())
}

#[test]
fn the_superseding_checkpoint_may_lie_outside_the_window() -> TestResult {
    let env = Env::new()?;
    // An old checkpoint (written as a day file three weeks back) replaced today.
    let old_day = goldfish_store::chrono::Utc::now() - goldfish_store::chrono::Duration::days(21);
    let mut c = goldfish_store::Checkpoint::new(
        "imported-old-1",
        old_day,
        "test",
        "Queue runs on RabbitMQ",
    );
    c.memory_type = goldfish_store::MemoryType::Decision;
    crate::util::write_day_files(env.home(), &[c])?;
    let new = save(
        &env,
        "Queue runs on NATS",
        &["--supersedes", "imported-old-1"],
    )?;
    // A window that holds only the old one: it is hidden all the same.
    let from = (old_day - goldfish_store::chrono::Duration::days(1))
        .format("%Y-%m-%d")
        .to_string();
    let to = (old_day + goldfish_store::chrono::Duration::days(1))
        .format("%Y-%m-%d")
        .to_string();
    for no_index in ["0", "1"] {
        for search in [None, Some("queue")] {
            let mut args = vec!["--json", "recall", "--from", &from, "--to", &to];
            if let Some(s) = search {
                args.extend(["-s", s]);
            }
            let out = env.cmd(&args).env("GOLDFISH_NO_INDEX", no_index).output()?;
            let v: Value = serde_json::from_slice(&out.stdout)?;
            assert_eq!(ids(&v), Vec::<String>::new(), "{v}");
            args.push("--include-superseded");
            let out = env.cmd(&args).env("GOLDFISH_NO_INDEX", no_index).output()?;
            let v: Value = serde_json::from_slice(&out.stdout)?;
            assert_eq!(ids(&v), ["imported-old-1"], "{v}");
            assert_eq!(v["checkpoints"][0]["superseded_by"][0]["id"], new.as_str());
        }
    }
    Ok(())
}

#[test]
fn the_mcp_tools_take_supersedes_topic_and_include_superseded() -> TestResult {
    use crate::mcp_replies::{call_tools, text};
    use serde_json::json;
    let env = Env::new()?;
    let old = save(
        &env,
        "Logs go to files",
        &["--type", "decision", "--topic", "logging"],
    )?;
    let other = save(&env, "Metrics go to statsd", &[])?;
    let r = call_tools(
        &env,
        &[
            (
                "checkpoint",
                json!({"description": "Logs go to journald", "type": "decision", "topic": "logging",
                       "supersedes": [other.clone()], "workspace": "test"}),
            ),
            (
                "checkpoint",
                json!({"description": "x", "supersedes": "missing-id", "workspace": "test"}),
            ),
            ("recall", json!({"workspace": "test"})),
            (
                "recall",
                json!({"workspace": "test", "include_superseded": true}),
            ),
            ("recall", json!({"id": old.clone()})),
        ],
    )?;
    let saved = &r[0]["structuredContent"];
    let new = saved["id"].as_str().ok_or("an id")?.to_string();
    let replaced: Vec<&str> = saved["supersedes"]
        .as_array()
        .ok_or("supersedes")?
        .iter()
        .filter_map(|l| l["id"].as_str())
        .collect();
    assert_eq!(replaced, [other.as_str(), old.as_str()], "{saved}");
    assert!(text(&r[0]).contains("Supersedes"), "{}", text(&r[0]));
    assert_eq!(r[1]["isError"], true, "{}", r[1]);
    assert!(text(&r[1]).contains("\"missing-id\""), "{}", text(&r[1]));
    let shown = &r[2]["structuredContent"]["checkpoints"];
    assert_eq!(shown.as_array().map(Vec::len), Some(1), "{shown}");
    assert_eq!(shown[0]["id"], new.as_str());
    assert_eq!(shown[0]["supersedes"][1]["title"], "Logs go to files");
    let all = &r[3]["structuredContent"]["checkpoints"];
    assert_eq!(all.as_array().map(Vec::len), Some(3), "{all}");
    let by_id = &r[4]["structuredContent"]["checkpoints"][0];
    assert_eq!(by_id["superseded_by"][0]["id"], new.as_str(), "{by_id}");
    assert!(text(&r[4]).contains("superseded by"), "{}", text(&r[4]));
    Ok(())
}

#[test]
fn export_and_import_keep_the_links() -> TestResult {
    let env = Env::new()?;
    let old = save(
        &env,
        "Retries back off linearly",
        &["--type", "decision", "--topic", "retries"],
    )?;
    let new = save(
        &env,
        "Retries back off exponentially",
        &["--type", "decision", "--topic", "retries"],
    )?;
    let first = env.ok(&["-w", "all", "export"])?;
    assert!(
        first.contains(&format!("\"supersedes\":[\"{old}\"]")),
        "{first}"
    );
    assert!(first.contains("\"topic\":\"retries\""), "{first}");
    let file = env.cwd.path().join("all.jsonl");
    std::fs::write(&file, &first)?;
    let other = Env::new()?;
    other.ok(&["import", "jsonl", file.to_str().ok_or("path")?])?;
    assert_eq!(other.ok(&["-w", "all", "export"])?, first);
    let v = other.json(&["recall", "--days", "7"])?;
    assert_eq!(ids(&v), [new], "{v}");
    Ok(())
}
