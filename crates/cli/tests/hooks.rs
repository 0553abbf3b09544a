//! `goldfish hook prompt|file|pre-compact` and `goldfish stats` as real processes, fed each
//! client's documented hook input on stdin, over the hooks' evaluation store
//! (`crates/session/tests/fixtures/hook_store.jsonl`).

use serde_json::{Value, json};

use crate::util::{Env, Out, TestResult, contains_all};

const STORE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../session/tests/fixtures/hook_store.jsonl"
);

/// A store holding the evaluation memories (workspace `shop`), imported by the binary.
fn shop() -> Result<Env, Box<dyn std::error::Error>> {
    let env = Env::new()?;
    env.ok(&["import", "jsonl", STORE])?;
    Ok(env)
}

/// Runs `goldfish --workspace shop hook …` with `input` on stdin; it must exit 0.
fn hook(env: &Env, args: &[&str], input: &Value) -> Result<Out, Box<dyn std::error::Error>> {
    let mut all = vec!["--workspace", "shop", "hook"];
    all.extend_from_slice(args);
    let out = env.run_stdin(&all, &input.to_string())?;
    out.success(&all)?;
    Ok(out)
}

fn claude_prompt(session: &str, cwd: &std::path::Path, prompt: &str) -> Value {
    json!({
        "session_id": session,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    })
}

#[test]
fn each_client_gets_the_matching_memory_in_its_shape() -> TestResult {
    let env = shop()?;
    let cwd = env.cwd.path();
    let prompt = "The stripe webhook signature verification fails";
    for client in ["claude", "codex"] {
        let out = hook(
            &env,
            &["prompt", "--client", client],
            &claude_prompt(&format!("{client}-1"), cwd, prompt),
        )?;
        let v: Value = serde_json::from_str(&out.stdout())?;
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
        let text = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .ok_or("no additionalContext")?;
        contains_all(
            text,
            &[
                goldfish_store::frame::MEMORY_NOTICE,
                "<memory id=\"shop-10\" age=\"",
                "Stripe webhook signature",
                "goldfish show",
            ],
        )?;
    }
    let cursor = json!({
        "conversation_id": "cursor-1", "generation_id": "g1",
        "hook_event_name": "beforeSubmitPrompt", "workspace_roots": [cwd],
        "prompt": prompt, "attachments": [],
    });
    let out = hook(&env, &["prompt", "--client", "cursor"], &cursor)?;
    let v: Value = serde_json::from_str(&out.stdout())?;
    assert_eq!(v["continue"], true);
    contains_all(
        v["additional_context"].as_str().ok_or("context")?,
        &["shop-10"],
    )?;
    // The same prompt again in a session that was given it: nothing.
    let again = hook(
        &env,
        &["prompt", "--client", "claude"],
        &claude_prompt("claude-1", cwd, prompt),
    )?;
    assert_eq!(again.stdout(), "");
    Ok(())
}

#[test]
fn a_prompt_never_fails() -> TestResult {
    let env = shop()?;
    // Not JSON, a store that is a file, and an empty input: exit 0, nothing on stdout.
    let garbage = hook(
        &env,
        &["prompt", "--client", "claude"],
        &json!("not an object"),
    )?;
    assert_eq!(garbage.stdout(), "");
    contains_all(
        &garbage.stderr(),
        &[
            "goldfish hook: prompt: nothing injected",
            "not a JSON object",
        ],
    )?;
    let file = env.home().join("not-a-dir");
    std::fs::write(&file, "x")?;
    let mut cmd = env.cmd(&["hook", "prompt", "--client", "codex"]);
    cmd.env("GOLDFISH_HOME", &file);
    let out = Out(cmd.output()?);
    out.success(&["hook", "prompt"])?;
    assert_eq!(out.stdout(), "");
    assert_eq!(out.stderr().lines().count(), 1, "{}", out.stderr());
    let empty = env
        .cmd(&["hook", "prompt", "--client", "claude"])
        .output()?;
    assert!(empty.status.success() && empty.stdout.is_empty());
    Ok(())
}

#[test]
fn a_file_read_surfaces_its_incident_once_per_session() -> TestResult {
    let env = shop()?;
    let cwd = env.cwd.path();
    let read = |session: &str| {
        json!({
            "session_id": session, "cwd": cwd, "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": cwd.join("src/email/worker.rs")},
            "tool_response": {"type": "text", "file": {"filePath": "src/email/worker.rs", "content": "fn main() {}"}},
        })
    };
    let out = hook(&env, &["file", "--client", "claude"], &read("f-1"))?;
    let v: Value = serde_json::from_str(&out.stdout())?;
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    let text = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .ok_or("context")?;
    contains_all(
        text,
        &[
            "`src/email/worker.rs`",
            "\n[incident] Order confirmation emails went out twice\n",
            "<memory id=\"shop-13\" age=\"",
        ],
    )?;
    let again = hook(&env, &["file", "--client", "claude"], &read("f-1"))?;
    assert_eq!(again.stdout(), "", "the same file twice in a session");
    // Codex: an apply_patch naming the file; Cursor: afterFileEdit.
    let patch = json!({
        "session_id": "codex-f", "cwd": cwd, "hook_event_name": "PostToolUse",
        "tool_name": "apply_patch",
        "tool_input": {"command": ["apply_patch", "*** Begin Patch\n*** Update File: src/inventory/stock.rs\n@@\n-a\n+b\n*** End Patch\n"]},
    });
    let out = hook(&env, &["file", "--client", "codex"], &patch)?;
    let v: Value = serde_json::from_str(&out.stdout())?;
    contains_all(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .ok_or("context")?,
        &["shop-18", "shop-17"],
    )?;
    let cursor = json!({
        "conversation_id": "cursor-f", "generation_id": "g", "hook_event_name": "afterFileEdit",
        "workspace_roots": [cwd], "file_path": cwd.join("scripts/backup.sh"),
        "edits": [{"old_string": "a", "new_string": "b"}],
    });
    let out = hook(&env, &["file", "--client", "cursor"], &cursor)?;
    let v: Value = serde_json::from_str(&out.stdout())?;
    contains_all(
        v["additional_context"].as_str().ok_or("context")?,
        &["backup silently stopped"],
    )?;
    Ok(())
}

#[test]
fn pre_compact_asks_to_checkpoint_and_lists_what_was_saved() -> TestResult {
    let env = shop()?;
    let cwd = env.cwd.path();
    let mut save = env.cmd(&["checkpoint", "Wired the refund endpoint"]);
    save.env("GOLDFISH_WORKSPACE", "shop");
    Out(save.output()?).success(&["checkpoint"])?;
    let input = json!({
        "session_id": "pc-1", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
        "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": null,
    });
    // Claude Code reads a PreCompact hook's stdout as instructions for the compaction.
    let out = hook(&env, &["pre-compact", "--client", "claude"], &input)?;
    contains_all(
        &out.stdout(),
        &[
            "about to be compacted",
            "`checkpoint` tool",
            "Wired the refund endpoint",
        ],
    )?;
    let cursor = json!({"conversation_id": "pc-2", "hook_event_name": "preCompact", "workspace_roots": [cwd]});
    let out = hook(&env, &["pre-compact", "--client", "cursor"], &cursor)?;
    let v: Value = serde_json::from_str(&out.stdout())?;
    contains_all(
        v["user_message"].as_str().ok_or("user_message")?,
        &["Wired the refund endpoint"],
    )?;
    Ok(())
}

#[test]
fn one_budget_caps_the_session_and_stats_shows_it() -> TestResult {
    let env = shop()?;
    let cwd = env.cwd.path();
    std::fs::write(
        env.home().join("settings.json"),
        "{\"hooks\": {\"session_budget\": 700}}\n",
    )?;
    let start = json!({"session_id": "b-1", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"});
    let out = hook(&env, &["--json", "session-start"], &start)?;
    let v: Value =
        serde_json::from_str(&out.stdout()).map_err(|e| format!("{e}: {}", out.stdout()))?;
    let first = v["chars"].as_u64().ok_or("chars")?;
    assert!(first > 0 && first <= 700, "{v}");
    assert_eq!(v["session_budget"], 700);
    let mut total = first;
    for prompt in [
        "Why do we keep sessions in Redis instead of Postgres?",
        "customers got the order confirmation email twice",
        "CI fails with a stale sqlx-data.json",
        "carrier shipping rates are slow, should we cache them?",
    ] {
        let out = hook(
            &env,
            &["--json", "prompt"],
            &claude_prompt("b-1", cwd, prompt),
        )?;
        let v: Value = serde_json::from_str(&out.stdout())?;
        assert_eq!(
            v["chars"].as_u64(),
            v["text"].as_str().map(|t| t.chars().count() as u64)
        );
        total += v["chars"].as_u64().ok_or("chars")?;
        assert_eq!(v["session_chars"].as_u64(), Some(total), "{v}");
    }
    assert!(total <= 700, "{total}");
    let stats = env.json(&["stats"])?;
    let session = &stats["sessions"][0];
    assert_eq!(session["session"], "b-1");
    assert_eq!(session["chars"].as_u64(), Some(total));
    assert_eq!(session["hooks"][0]["hook"], "session-start");
    contains_all(
        &env.ok(&["stats"])?,
        &["b-1 [shop]", "session-start 1×", "session budget 700"],
    )?;
    // A bad setting is named, and the hook still never fails.
    std::fs::write(
        env.home().join("settings.json"),
        "{\"hooks\": {\"session_budget\": -1}}",
    )?;
    let out = hook(&env, &["prompt"], &claude_prompt("b-2", cwd, "why redis"))?;
    assert_eq!(out.stdout(), "");
    contains_all(&out.stderr(), &["settings.json", "session_budget"])?;
    Ok(())
}

/// A scripted 20-prompt session over the evaluation store: which prompts injected what,
/// and the characters in all. Nothing is injected twice, and chit-chat is silent.
#[test]
fn a_scripted_session_of_twenty_prompts() -> TestResult {
    let env = shop()?;
    let cwd = env.cwd.path();
    let script = [
        (
            "Why do we keep sessions in Redis instead of Postgres?",
            true,
        ),
        ("thanks", false),
        (
            "The payment gateway timed out again, could customers get charged twice?",
            true,
        ),
        ("run the tests again", false),
        ("add a retry to the gateway call when it times out", true),
        ("ok", false),
        ("uploading a 10 MB product photo fails with 413", true),
        ("looks good, commit it", false),
        ("The stripe webhook signature verification fails", true),
        ("can you fix the error?", false),
        (
            "stock went negative again when two people bought the last item",
            true,
        ),
        ("try again", false),
        (
            "the price filter in search returns nothing, any idea?",
            true,
        ),
        ("continue", false),
        ("is the nightly database backup still running?", true),
        ("great work, now update the docs", false),
        (
            "Why do we keep sessions in Redis instead of Postgres?",
            false,
        ),
        ("yes please do that", false),
        ("search still shows products we deleted", true),
        ("run the test suite and tell me what fails", false),
    ];
    let mut seen: Vec<String> = Vec::new();
    let mut total = 0;
    let mut report = String::new();
    for (i, (prompt, injects)) in script.iter().enumerate() {
        let out = hook(
            &env,
            &["--json", "prompt"],
            &claude_prompt("script", cwd, prompt),
        )?;
        let v: Value = serde_json::from_str(&out.stdout())?;
        let ids: Vec<String> = v["ids"]
            .as_array()
            .ok_or("ids")?
            .iter()
            .filter_map(|x| x.as_str().map(String::from))
            .collect();
        let chars = v["chars"].as_u64().ok_or("chars")?;
        report.push_str(&format!(
            "{:>2}. {prompt:?} → {ids:?} {chars} chars\n",
            i + 1
        ));
        assert_eq!(
            !ids.is_empty(),
            *injects,
            "prompt {}: {prompt:?} → {ids:?}",
            i + 1
        );
        for id in &ids {
            assert!(!seen.contains(id), "{id} injected twice");
            seen.push(id.clone());
        }
        total += chars;
    }
    report.push_str(&format!(
        "total {total} characters, {} memories\n",
        seen.len()
    ));
    println!("{report}");
    assert!(total <= 6_000, "{report}");
    Ok(())
}

/// A hook never fails its client: a `GOLDFISH_WORKSPACE` or `--workspace` that is not a
/// workspace (refused by the argument parser, exit 2 for any other command) makes every hook
/// exit 0 with nothing on stdout and the reason on stderr.
#[test]
fn a_bad_workspace_setting_never_fails_a_hook() -> TestResult {
    let env = shop()?;
    let input = claude_prompt("s-bad", env.cwd.path(), "stripe webhook signature");
    for event in ["prompt", "file", "pre-compact", "session-start"] {
        for args in [
            vec!["hook", event],
            vec!["--workspace", "../escape", "hook", event],
        ] {
            let out = env
                .cmd(&args)
                .env("GOLDFISH_WORKSPACE", "../escape")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut child| {
                    use std::io::Write as _;
                    if let Some(mut stdin) = child.stdin.take() {
                        // The hook may refuse the workspace and exit before it reads its input.
                        match stdin.write_all(input.to_string().as_bytes()) {
                            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                            other => other?,
                        }
                    }
                    child.wait_with_output()
                })?;
            assert_eq!(out.status.code(), Some(0), "{args:?} must exit 0");
            assert!(
                out.stdout.is_empty(),
                "{args:?} printed {:?}",
                String::from_utf8_lossy(&out.stdout)
            );
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("goldfish hook:"),
                "{args:?} says why on stderr"
            );
        }
    }
    // Any other command still refuses it as a usage error.
    let out = env
        .cmd(&["recall"])
        .env("GOLDFISH_WORKSPACE", "../escape")
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    Ok(())
}
