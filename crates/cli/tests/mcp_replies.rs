//! What the MCP tools answer, over raw JSON-RPC lines on stdio: replies stay small whatever
//! was saved, and the tools validate their options as the CLI does.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::Stdio;

use serde_json::{Value, json};

use crate::util::{Env, TestResult};

/// Starts `goldfish mcp`, initialises, sends `calls` as `tools/call` requests (ids 10, 11, …)
/// and returns each call's result, in order. Reading stops at the last id, so no timing is
/// involved; the process is killed if it is still running afterwards.
pub(crate) fn call_tools(
    env: &Env,
    calls: &[(&str, Value)],
) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    call_tools_in(env, env.cwd.path(), calls)
}

/// [`call_tools`] with the server started in `dir`.
pub(crate) fn call_tools_in(
    env: &Env,
    dir: &std::path::Path,
    calls: &[(&str, Value)],
) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    call_tools_with(server_in(env, dir), calls)
}

/// `goldfish mcp` in `env`, started in `dir`.
fn server_in(env: &Env, dir: &std::path::Path) -> std::process::Command {
    let mut server = env.cmd(&["mcp"]);
    server.current_dir(dir);
    server
}

/// [`call_tools`] with the server started by `server` (a `goldfish mcp` command with its own
/// environment and directory).
pub(crate) fn call_tools_with(
    server: std::process::Command,
    calls: &[(&str, Value)],
) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    let requests: Vec<(&str, Value)> = calls
        .iter()
        .map(|(name, args)| ("tools/call", json!({"name": name, "arguments": args})))
        .collect();
    requests_with(server, &requests)
}

/// Starts `goldfish mcp` in `dir`, initialises, sends each `(method, params)` request (ids
/// 10, 11, …) and returns each result, in order (see [`call_tools`]).
pub(crate) fn requests_in(
    env: &Env,
    dir: &std::path::Path,
    calls: &[(&str, Value)],
) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    requests_with(server_in(env, dir), calls)
}

/// [`requests_in`] with the server started by `server`.
fn requests_with(
    mut server: std::process::Command,
    calls: &[(&str, Value)],
) -> Result<Vec<Value>, Box<dyn std::error::Error>> {
    let mut child = server
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = vec![
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    ];
    for (i, (method, params)) in calls.iter().enumerate() {
        lines.push(json!({"jsonrpc":"2.0","id":10 + i,"method":method,"params":params}));
    }
    // Written from another thread while this one reads, so that neither pipe can fill up
    // and stall the other; stdin is handed back and kept open until the replies are read
    // (closing it ends the session).
    let writer = std::thread::spawn(move || -> std::io::Result<std::process::ChildStdin> {
        for l in lines {
            writeln!(stdin, "{l}")?;
        }
        stdin.flush()?;
        Ok(stdin)
    });
    let last = 10 + calls.len() as u64 - 1;
    let mut results = vec![Value::Null; calls.len()];
    for line in BufReader::new(stdout).lines() {
        let v: Value = serde_json::from_str(&line?)?;
        if let Some(id) = v["id"].as_u64()
            && id >= 10
        {
            results[(id - 10) as usize] = v["result"].clone();
            if id == last {
                break;
            }
        }
    }
    let stdin = writer.join().map_err(|_| "writer panicked")??;
    drop(stdin);
    let _ = child.kill();
    child.wait()?;
    Ok(results)
}

/// Runs git in `dir` with a test identity, requiring success.
fn git_in(dir: &std::path::Path, args: &[&str]) -> TestResult {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=test", "-c", "user.email=test@localhost"])
        .args(args)
        .output()?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
    }
    Ok(())
}

pub(crate) fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn checkpoint_reply_echoes_a_bounded_title() -> TestResult {
    let env = Env::new()?;
    let huge = "x".repeat(1 << 20);
    let results = call_tools(&env, &[("checkpoint", json!({"description": huge}))])?;
    let reply = text(&results[0]);
    assert_eq!(
        results[0]["isError"],
        json!(false),
        "{}",
        &reply[..reply.len().min(300)]
    );
    assert!(
        reply.starts_with("Checkpoint saved: xxx"),
        "{}",
        &reply[..reply.len().min(300)]
    );
    assert!(
        reply.len() < 1000,
        "a {}-byte reply to a 1 MB description",
        reply.len()
    );
    assert!(reply.contains('…'));
    // The whole description was saved all the same.
    let v = env.json(&["recall", "--full"])?;
    assert_eq!(
        v["checkpoints"][0]["description"].as_str().map(str::len),
        Some(1 << 20)
    );
    Ok(())
}

/// The `checkpoint` tool names what a save resembles and a repeat's first save, in the text
/// and the structured content alike.
#[test]
fn checkpoint_reply_names_resemblances_and_duplicates() -> TestResult {
    let env = Env::new()?;
    let decision = json!({
        "description": "cli: switch argument parsing from clap to lexopt",
        "type": "decision",
        "tags": ["cli", "deps"],
    });
    let reversal = json!({
        "description": "cli: go back from lexopt to clap for argument parsing",
        "type": "decision",
        "tags": ["cli", "deps"],
    });
    let results = call_tools(
        &env,
        &[
            ("checkpoint", decision),
            ("checkpoint", reversal.clone()),
            ("checkpoint", reversal),
        ],
    )?;
    let first = results[0]["structuredContent"]["id"].as_str().ok_or("id")?;
    let second = &results[1]["structuredContent"];
    let reply = text(&results[1]);
    assert!(
        reply.contains(&format!("may supersede: {first} ")),
        "{reply}"
    );
    assert!(reply.contains("`supersedes`"), "{reply}");
    assert_eq!(
        second["resembles"][0]["id"].as_str(),
        Some(first),
        "{second}"
    );
    assert_eq!(second["resembles"][0]["may_supersede"], json!(true));
    assert_eq!(second["resembles"][0]["by"], json!("words"));
    assert!(second.get("duplicate_of").is_none(), "{second}");
    let third = &results[2]["structuredContent"];
    assert_eq!(third["duplicate_of"], second["id"], "{third}");
    assert_eq!(third["id"], second["id"]);
    assert!(text(&results[2]).contains("duplicate_of: "));
    for r in &results {
        let missing = missing_facts(&text(r), &r["structuredContent"]);
        assert!(missing.is_empty(), "{missing:?} in {}", text(r));
    }
    Ok(())
}

#[test]
fn recall_tool_refuses_two_window_starts() -> TestResult {
    let env = Env::new()?;
    let results = call_tools(
        &env,
        &[
            ("recall", json!({"days": 3, "since": "1h"})),
            ("recall", json!({"since": "1h", "from": "2025-01-01"})),
            ("recall", json!({"days": 3})),
        ],
    )?;
    for (r, (a, b)) in results.iter().zip([("days", "since"), ("since", "from")]) {
        let t = text(r);
        assert_eq!(r["isError"], json!(true), "{t}");
        assert!(
            t.contains(&format!("`{a}`")) && t.contains(&format!("`{b}`")),
            "{t}"
        );
    }
    assert_eq!(results[2]["isError"], json!(false), "{}", text(&results[2]));
    Ok(())
}

/// Started in a repository with memory kept in `.goldfish/`, the MCP server saves there and
/// reads it together with the home store.
#[test]
fn tools_use_the_memory_kept_in_the_repository() -> TestResult {
    let env = Env::new()?;
    env.ok(&["checkpoint", "Saved in the home store first"])?;
    let git = |args: &[&str]| git_in(env.cwd.path(), args);
    git(&["init", "-q", "-b", "main"])?;
    git(&["commit", "-q", "--allow-empty", "-m", "first"])?;
    env.ok(&["init", "--in-repo"])?;
    let results = call_tools(
        &env,
        &[
            (
                "checkpoint",
                json!({"description": "Saved through MCP in the repo"}),
            ),
            (
                "plan",
                json!({"action": "save", "title": "Repo plan", "content": "- [ ] a\n"}),
            ),
            ("recall", json!({"limit": 10})),
            ("recall", json!({"workspace": "all"})),
        ],
    )?;
    for r in &results {
        assert_eq!(r["isError"], json!(false), "{}", text(r));
    }
    let day_files = std::fs::read_dir(env.cwd.path().join(".goldfish/test/checkpoints"))?
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .count();
    assert_eq!(day_files, 1, "the MCP checkpoint went to the repository");
    assert!(
        env.cwd
            .path()
            .join(".goldfish/test/plans/repo-plan.md")
            .exists()
    );
    assert!(!env.home().join("test/plans").exists());
    for r in &results[2..] {
        let reply = text(r);
        assert!(
            reply.contains("Saved through MCP in the repo")
                && reply.contains("Saved in the home store first"),
            "{reply}"
        );
    }
    assert!(
        text(&results[2]).contains("Repo plan"),
        "{}",
        text(&results[2])
    );
    Ok(())
}

/// Every string, number and key of a structured reply, lowercased: what an agent that reads
/// only `structuredContent` can see.
fn facts(v: &Value, words: &mut Vec<String>, numbers: &mut Vec<f64>) {
    match v {
        Value::String(s) => words.push(s.to_lowercase()),
        Value::Number(n) => {
            numbers.push(n.as_f64().unwrap_or(f64::NAN));
            words.push(n.to_string());
        }
        Value::Array(items) => items.iter().for_each(|i| facts(i, words, numbers)),
        Value::Object(o) => {
            for (k, v) in o {
                words.push(k.to_lowercase());
                facts(v, words, numbers);
            }
        }
        _ => {}
    }
}

/// The renderers' own words: the text's wording around the facts, not facts.
const TEMPLATE: &[&str] = &[
    "recall",
    "utc",
    "search",
    "match",
    "matches",
    "active",
    "plan",
    "done",
    "checkpoints",
    "checkpoint",
    "more",
    "not",
    "shown",
    "over",
    "the",
    "character",
    "budget",
    "saved",
    "by",
    "in",
    "is",
    "now",
    "of",
    "marked",
    "plans",
    "no",
    "file",
    "files",
    "sim",
    "covered",
    "updated",
    "with",
    "progress",
    "s",
    "x",
    "n",
    "and",
    "this",
    "a",
    "to",
    "for",
    "it",
    "←",
    "=",
    "×",
    "+",
    "-",
    // The checkpoint reply's hint under a "may supersede" line (the schema of
    // `may_supersede` says the same).
    "if",
    "replaces",
    "one",
    "them",
    "save",
    "again",
    "supersedes",
    // A repeat's reply (its `duplicate_of` says it all).
    "already",
    "nothing",
    "written",
    "same",
    "moments",
    "ago",
];

/// The words and numbers of `text` that `structured` does not carry: a word counts as
/// carried when some string or key contains it (case-insensitively), a number when some
/// number equals it as shown (two decimals).
fn missing_facts(text: &str, structured: &Value) -> Vec<String> {
    // The framing is the server's wording, not a fact: the sentence and the delimiters go,
    // the attributes' values (id, age, kind) stay.
    let text = text
        .replace(goldfish_store::frame::MEMORY_NOTICE, " ")
        .replace(goldfish_store::frame::CLOSE_TAG, " ")
        .replace("<memory", " ")
        .replace("kind=\"", " \"")
        .replace("id=\"", " \"")
        .replace("age=\"", " \"");
    let text = text.as_str();
    let (mut words, mut numbers) = (Vec::new(), Vec::new());
    facts(structured, &mut words, &mut numbers);
    let is_sep = |c: char| c.is_whitespace() || "*`()[],;:\"'·—→>/{}!?#-".contains(c) || c == '…';
    let mut missing = Vec::new();
    for raw in text.split(is_sep) {
        let token = raw
            .trim_matches(|c: char| c == '.' || c == '_')
            .to_lowercase();
        if token.is_empty() || TEMPLATE.contains(&token.as_str()) {
            continue;
        }
        if let Ok(x) = token.parse::<f64>()
            && numbers.iter().any(|n| (n - x).abs() < 0.006)
        {
            continue;
        }
        if !words.iter().any(|w| w.contains(&token)) && !missing.contains(&token) {
            missing.push(token);
        }
    }
    missing
}

/// An agent that reads only `structuredContent` (as Claude Code gives it to the model)
/// learns everything the text says, for every tool and action: bodies with `full`, the
/// commit, typed fields, the search and why each hit matched, plans with their checklist,
/// what was left out and why. Each reply's structured content stays within the text's
/// character budget.
#[test]
fn structured_content_carries_every_fact_of_the_text() -> TestResult {
    let env = Env::new()?;
    // A repository named as the workspace, so that checkpoints record its git context.
    let repo = env.cwd.path().join("test");
    std::fs::create_dir(&repo)?;
    let git = |args: &[&str]| git_in(&repo, args);
    git(&["init", "-q", "-b", "trunk"])?;
    std::fs::write(repo.join("quokka.rs"), "fn main() {}\n")?;
    git(&["add", "quokka.rs"])?;
    git(&["commit", "-q", "-m", "first"])?;
    std::fs::write(repo.join("quokka.rs"), "fn main() { }\n")?;
    let plan = "Goals: ship the wombat exporter\n\n- [x] parse marsupial files\n- [ ] write the numbat index\n  * [X] nested kangaroo step\n";
    let calls: Vec<(&str, Value)> = vec![
        (
            "checkpoint",
            json!({"description": "Tuned the quokka cache\nThe axolotl eviction was too eager.\n\nRaised it to 300 entries.", "tags": ["perf", "cache"]}),
        ),
        (
            "checkpoint",
            json!({"description": "Chose platypus storage", "type": "decision", "context": "Needed durable echidna queues", "decision": "Use platypusdb", "alternatives": ["dingodb", "koaladb"], "confidence": 4, "next": "Benchmark bilby loads"}),
        ),
        (
            "plan",
            json!({"action": "save", "title": "Wombat exporter", "content": plan, "tags": ["export"]}),
        ),
        (
            "plan",
            json!({"action": "save", "title": "Second tasmanian plan", "content": "- [ ] one\n", "activate": false}),
        ),
        ("recall", json!({})),
        ("recall", json!({"full": true})),
        (
            "recall",
            json!({"search": "axolotl eviction", "explain": true, "full": true}),
        ),
        ("recall", json!({"search": "zzzunmatched"})),
        ("recall", json!({"workspace": "all", "full": true})),
        ("recall", json!({"limit": 1})),
        ("recall", json!({"limit": 0})),
        ("recall", json!({"type": "decision", "full": true})),
        ("plan", json!({"action": "get"})),
        ("plan", json!({"action": "list"})),
        (
            "plan",
            json!({"action": "update", "id": "wombat-exporter", "content": format!("{plan}- [x] added later\n")}),
        ),
        (
            "plan",
            json!({"action": "activate", "id": "second-tasmanian-plan"}),
        ),
        ("plan", json!({"action": "get", "id": "wombat-exporter"})),
        (
            "plan",
            json!({"action": "complete", "id": "wombat-exporter"}),
        ),
        (
            "plan",
            json!({"action": "archive", "id": "wombat-exporter"}),
        ),
    ];
    let results = call_tools_in(&env, &repo, &calls)?;
    for ((tool, args), r) in calls.iter().zip(&results) {
        let t = text(r);
        assert_eq!(r["isError"], json!(false), "{tool} {args}: {t}");
        let structured = &r["structuredContent"];
        let missing = missing_facts(&t, structured);
        assert!(
            missing.is_empty(),
            "{tool} {args}: the text says {missing:?}, the structured content does not\n{t}\n{structured:#}"
        );
        let size = structured.to_string().chars().count();
        assert!(size <= 20_000, "{tool} {args}: {size} characters");
    }
    // The facts the real-client test looks for, by name.
    let full = &results[5]["structuredContent"];
    let tuned = full["checkpoints"]
        .as_array()
        .and_then(|a| a.iter().find(|c| c["title"] == "Tuned the quokka cache"))
        .ok_or("no quokka checkpoint")?;
    assert_eq!(
        tuned["body"],
        "The axolotl eviction was too eager.\n\nRaised it to 300 entries."
    );
    assert!(
        tuned["commit"].as_str().is_some_and(|c| c.len() >= 7),
        "{tuned}"
    );
    let got = &results[12]["structuredContent"]["plan"];
    assert_eq!(
        got["checklist"],
        json!([
            {"text": "parse marsupial files", "done": true},
            {"text": "write the numbat index", "done": false},
            {"text": "nested kangaroo step", "done": true},
        ])
    );
    assert_eq!(got["content"], plan.trim());
    let explained = &results[6]["structuredContent"]["checkpoints"][0]["explain"];
    assert!(
        explained["score"].as_f64().is_some_and(|s| s > 0.0),
        "{explained}"
    );
    Ok(())
}

/// A recall over more than the budget holds: the text and the structured content show the
/// same checkpoints, the JSON within the same character budget, and both say how many were
/// left out. The summary view of many short checkpoints is the case where the JSON (with
/// its field names) is longer than the text.
#[test]
fn structured_recall_holds_the_budget() -> TestResult {
    let env = Env::new()?;
    let body = "lorem ipsum \"quoted\" dolor sit amet\n".repeat(40);
    let n = 200;
    let mut calls: Vec<(&str, Value)> = (0..n)
        .map(|i| {
            (
                "checkpoint",
                json!({"description": format!("Entry number {i}\n{body}"), "tags": ["bulk"]}),
            )
        })
        .collect();
    calls.push(("recall", json!({"full": true, "limit": n})));
    calls.push(("recall", json!({"limit": n})));
    let results = call_tools(&env, &calls)?;
    for r in &results[n..] {
        let t = text(r);
        let s = &r["structuredContent"];
        let size = s.to_string().chars().count();
        assert!(size <= 20_000, "{size} characters of structured content");
        assert!(t.chars().count() <= 20_000);
        let shown_in_text = t.lines().filter(|l| l.starts_with("- **")).count();
        let shown = s["checkpoints"].as_array().map_or(0, Vec::len);
        assert!(shown > 0 && shown < n, "{shown} shown");
        assert_eq!(shown, shown_in_text, "{t}");
        assert_eq!(s["not_shown"]["over_budget"], json!(n - shown), "{s}");
        assert!(
            t.contains(&format!("{} more checkpoint(s) not shown", n - shown)),
            "{t}"
        );
        let missing = missing_facts(&t, s);
        assert!(missing.is_empty(), "{missing:?}");
    }
    Ok(())
}

/// Arguments a tool call always needs, to which a case adds the value under test.
fn base_arguments(tool: &str) -> Value {
    match tool {
        "checkpoint" => json!({"description": "bounds"}),
        "plan" => json!({"action": "save", "title": "Bounds"}),
        _ => json!({}),
    }
}

/// A value that breaks each `pattern` the input schemas use. A pattern missing here fails
/// the test: every constraint a schema states is checked against the server.
fn breaking(pattern: &str) -> Option<Value> {
    match pattern {
        "\\S" => Some(json!(" \n ")),
        "^[^\\r\\n]*$" => Some(json!("a\nb")),
        _ => None,
    }
}

/// Each input schema states what the server enforces. Walking every property of every
/// tool's input schema as the server lists it: a value just outside each bound (`minimum`,
/// `maximum`, `enum`, `pattern`, `required`) is refused by a JSON Schema validator and by
/// the server, with an error naming the parameter or the value; a value at each numeric
/// bound is accepted by both.
#[test]
fn input_schemas_state_what_the_server_enforces() -> TestResult {
    let env = Env::new()?;
    let listed = requests_in(&env, env.cwd.path(), &[("tools/list", json!({}))])?;
    let tools = listed[0]["tools"].as_array().ok_or("no tools")?.clone();
    // (tool, parameter, arguments, whether they are valid)
    let mut cases: Vec<(String, String, Value, bool)> = Vec::new();
    for tool in &tools {
        let name = tool["name"].as_str().ok_or("no name")?.to_string();
        let schema = &tool["inputSchema"];
        let base = base_arguments(&name);
        let with = |key: &str, v: Value| {
            let mut args = base.clone();
            args[key] = v;
            args
        };
        for required in schema["required"].as_array().into_iter().flatten() {
            let key = required.as_str().ok_or("odd required")?;
            let mut args = base.clone();
            args.as_object_mut().ok_or("base")?.remove(key);
            cases.push((name.clone(), key.to_string(), args, false));
        }
        for (key, p) in schema["properties"].as_object().ok_or("no properties")? {
            if let Some(min) = p["minimum"].as_i64() {
                cases.push((name.clone(), key.clone(), with(key, json!(min - 1)), false));
                cases.push((name.clone(), key.clone(), with(key, json!(min)), true));
            }
            if let Some(max) = p["maximum"].as_i64() {
                cases.push((name.clone(), key.clone(), with(key, json!(max + 1)), false));
                cases.push((name.clone(), key.clone(), with(key, json!(max)), true));
            }
            if p["enum"].is_array() {
                cases.push((
                    name.clone(),
                    key.clone(),
                    with(key, json!("bogus-value")),
                    false,
                ));
            }
            for (pattern, array) in [(&p["pattern"], false), (&p["items"]["pattern"], true)] {
                let Some(pattern) = pattern.as_str() else {
                    continue;
                };
                let bad = breaking(pattern)
                    .ok_or_else(|| format!("{name}.{key}: no breaking value for {pattern:?}"))?;
                let bad = if array { json!([bad]) } else { bad };
                cases.push((name.clone(), key.clone(), with(key, bad), false));
            }
        }
    }
    // The bounds the descriptions promise are among those walked.
    for (tool, key, value) in [
        ("checkpoint", "confidence", json!(0)),
        ("checkpoint", "confidence", json!(6)),
        ("checkpoint", "type", json!("bogus-value")),
        ("checkpoint", "description", json!(" \n ")),
        ("recall", "days", json!(-1)),
        ("recall", "type", json!("bogus-value")),
        ("plan", "status", json!("bogus-value")),
        ("plan", "action", json!("bogus-value")),
    ] {
        assert!(
            cases
                .iter()
                .any(|(t, k, a, ok)| t == tool && k == key && a[key] == value && !ok),
            "{tool}.{key} = {value} is not refused by the schema"
        );
    }
    // The schema's verdicts, from a real JSON Schema validator.
    let python = crate::mcp::python_with_mcp()?;
    let input: Vec<Value> = cases
        .iter()
        .map(|(tool, _, args, _)| {
            let schema = tools
                .iter()
                .find(|t| t["name"] == json!(tool))
                .map(|t| t["inputSchema"].clone());
            json!([schema, args])
        })
        .collect();
    let cases_file = env.cwd.path().join("cases.json");
    std::fs::write(&cases_file, serde_json::to_string(&input)?)?;
    let out = std::process::Command::new(python)
        .args([
            "-c",
            "import json, sys, jsonschema\n\
             cases = json.load(open(sys.argv[1]))\n\
             print(json.dumps([jsonschema.Draft202012Validator(s).is_valid(a) for s, a in cases]))",
        ])
        .arg(&cases_file)
        .output()?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
    }
    let verdicts: Vec<bool> = serde_json::from_slice(&out.stdout)?;
    // The server's.
    let calls: Vec<(&str, Value)> = cases
        .iter()
        .map(|(tool, _, args, _)| (tool.as_str(), args.clone()))
        .collect();
    let results = call_tools(&env, &calls)?;
    for (((tool, key, args, valid), schema_ok), r) in cases.iter().zip(&verdicts).zip(&results) {
        assert_eq!(schema_ok, valid, "the schema of {tool} on {args}");
        let t = text(r);
        assert_eq!(
            r["isError"],
            json!(!valid),
            "the server on {tool} {args}: {t}"
        );
        if !valid {
            let value = args
                .get(key)
                .map(|v| v.to_string().trim_matches('"').to_string());
            let named = t.contains(key.as_str())
                || value.is_some_and(|v| t.contains(&v))
                || (key == "tags" && t.contains("tag"));
            assert!(
                named,
                "{tool} {args}: the error names neither `{key}` nor the value: {t}"
            );
        }
    }
    Ok(())
}
