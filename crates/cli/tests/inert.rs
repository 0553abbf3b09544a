//! Stored text is inert on a terminal: checkpoints, plans, a journal and notes whose every
//! field holds C0 and C1 controls, CSI, OSC (BEL- and ST-terminated), DCS, the 8-bit CSI and
//! bidi overrides; every human-readable output shows them escaped (`\x1b`, `\u{202e}`), never
//! raw, on stdout and on stderr, while `--json`, `export` and the day files keep the exact
//! text.

use std::path::Path;

use serde_json::{Value, json};

use crate::util::{Env, Out, TestResult, contains_all};

/// What must never reach a terminal from stored text: every C0 control but `\n` and `\t`,
/// DEL, every C1 control and the bidi controls. Listed here on its own, not taken from the
/// code under test.
fn is_control(c: char) -> bool {
    let n = u32::from(c);
    (n < 0x20 && c != '\n' && c != '\t')
        || (0x7f..=0x9f).contains(&n)
        || matches!(n, 0x61c | 0x200e | 0x200f | 0x202a..=0x202e | 0x2066..=0x2069)
}

/// Every escape sequence a hostile text would use, then every C0 control (`\n` and `\t`
/// aside), DEL and every C1 control, then the bidi controls.
fn hostile() -> String {
    let mut s = String::from(
        "\u{1b}[31mRED\u{1b}[0m \u{1b}[2J\u{1b}[1A \u{1b}]0;TITLE\u{7} \u{1b}]52;c;Y3VybA==\u{7} \
         \u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\ \u{1b}P+q544e\u{1b}\\ \u{9b}2J ",
    );
    s.extend(
        (0u32..0x20)
            .filter(|n| ![0x09, 0x0a].contains(n))
            .filter_map(char::from_u32),
    );
    s.extend((0x7fu32..=0x9f).filter_map(char::from_u32));
    s.push_str(" abc\u{202e}fed\u{202a}\u{202b}\u{202c}\u{202d}\u{2066}\u{2067}\u{2068}\u{2069}\u{200e}\u{200f}\u{61c}");
    s
}

/// [`hostile`] for a one-line field (a tag, a plan title): without `\r`, which the store
/// refuses there as a line break.
fn hostile_line() -> String {
    hostile().replace('\r', "")
}

/// [`hostile`] as a command-line argument can carry it: without NUL.
fn hostile_arg() -> String {
    hostile().replace('\0', "")
}

/// A hostile file path a hook is given and looks up: short (the hook's heading names the
/// file, within its budget), without backslashes (path separators to a hook) nor the glob
/// characters of a file filter.
fn hostile_path() -> String {
    "src/\u{1b}P+q\u{7}\u{202e}\u{9b}2J\r\0x.rs".to_string()
}

/// How the sequences show once escaped: what each output must contain, proving the text is
/// shown (escaped) rather than dropped.
const SHOWN: [&str; 3] = [
    "\\x1b[31mRED",
    "\\x1b]52;c;Y3VybA==\\x07",
    "abc\\u{202e}fed",
];

/// `out`'s stdout and stderr hold no raw control but `\n` and `\t`.
fn assert_inert(what: &str, out: &Out) -> TestResult {
    for (stream, bytes) in [("stdout", &out.0.stdout), ("stderr", &out.0.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        if let Some((i, c)) = text.char_indices().find(|(_, c)| is_control(*c)) {
            let from = text[..i].char_indices().rev().nth(40).map_or(0, |(j, _)| j);
            return Err(format!(
                "{what}: raw {c:?} on {stream} at byte {i}, after {:?}",
                &text[from..i]
            )
            .into());
        }
    }
    Ok(())
}

/// Runs `args` (success required), asserts nothing raw reached stdout or stderr and that
/// stdout shows the escaped sequences; returns stdout.
fn shown(env: &Env, args: &[&str]) -> Result<String, Box<dyn std::error::Error>> {
    let out = env.run(args)?;
    out.success(args)?;
    assert_inert(&format!("{args:?}"), &out)?;
    let stdout = out.stdout();
    contains_all(&stdout, &SHOWN).map_err(|e| format!("{args:?}: {e}"))?;
    Ok(stdout)
}

/// A store (workspace `test`) holding:
/// - `saved`: a checkpoint saved by `goldfish checkpoint`, its description (stdin) and tags
///   and typed fields (arguments) hostile;
/// - `imported`: a decision imported from JSON Lines with every field hostile, branch and
///   files included, at the same time as `saved` (so within every default window);
/// - the plan `hostile-plan` (active), imported, and `saved-plan`, saved by `plan save`.
///
/// Returns the environment and `saved`'s id.
fn hostile_store() -> Result<(Env, String), Box<dyn std::error::Error>> {
    let env = Env::new()?;
    let (h, line, arg) = (hostile(), hostile_line(), hostile_arg());
    let description = format!("Webhook signature check {h}\nthe body {h}\n\tindented");
    let tags = format!("tag {}", arg.replace(['\r', ','], ""));
    let saved = env.run_stdin(
        &[
            "--json",
            "checkpoint",
            "-",
            "--tags",
            &tags,
            "--type",
            "decision",
            "--decision",
            &format!("decided {arg}"),
            "--context",
            &format!("context {arg}"),
            "--alternative",
            &format!("alternative {arg}"),
            "--next",
            &format!("next {arg}"),
        ],
        &description,
    )?;
    saved.success(&["checkpoint"])?;
    let v: Value = serde_json::from_str(&saved.stdout())?;
    let id = v["id"].as_str().ok_or("no id")?.to_string();
    let shown: Value = serde_json::from_str(&env.ok(&["--json", "show", &id])?)?;
    let timestamp = shown["checkpoint"]["timestamp"]
        .as_str()
        .or_else(|| shown["timestamp"].as_str())
        .ok_or_else(|| format!("no timestamp in {shown}"))?
        .to_string();
    let records = [
        json!({
            "kind": "checkpoint", "workspace": "test", "id": "imported",
            "timestamp": timestamp, "type": "decision",
            "description": format!("Imported decision {h}\nimported body {h}"),
            "tags": [format!("itag {line}")], "branch": format!("branch {h}"),
            "commit": "abc1234", "files": [format!("src/{h}.rs"), hostile_path()], "files_omitted": 0,
            "context": format!("ictx {h}"), "decision": format!("idec {h}"),
            "alternatives": [format!("ialt {h}")], "impact": format!("iimp {h}"),
            "evidence": [format!("iev {h}")], "symbols": [format!("isym {h}")],
            "next": format!("inext {h}"), "confidence": 3, "unknowns": [format!("iunk {h}")],
            "extra": {},
        }),
        json!({
            "kind": "plan", "workspace": "test", "id": "hostile-plan",
            "title": format!("Plan {line}"), "status": "active", "active": true,
            "created": timestamp, "updated": timestamp, "tags": [format!("ptag {line}")],
            "content": format!("- [ ] step {h}\n- [x] done\n"), "extra": {},
        }),
    ];
    let file = env.cwd.path().join("hostile.jsonl");
    let lines: Vec<String> = records.iter().map(Value::to_string).collect();
    std::fs::write(&file, lines.join("\n") + "\n")?;
    let import = env.run(&["import", "jsonl", &file.to_string_lossy()])?;
    import.success(&["import"])?;
    assert_inert("import", &import)?;
    let plan = env.run_stdin(
        &[
            "plan",
            "save",
            "--id",
            "saved-plan",
            "--title",
            &format!("Saved plan {}", arg.replace('\r', "")),
            "--content",
            "-",
        ],
        &format!("- [ ] saved step {h}\n"),
    )?;
    plan.success(&["plan", "save"])?;
    assert_inert("plan save", &plan)?;
    Ok((env, id))
}

#[test]
fn every_text_output_shows_stored_controls_escaped() -> TestResult {
    let (env, id) = hostile_store()?;
    let recall = shown(&env, &["recall"])?;
    contains_all(
        &recall,
        &["Webhook signature check", "Imported decision", "Saved plan"],
    )?;
    let full = shown(&env, &["recall", "--full"])?;
    contains_all(&full, &["branch ", "the body ", "\tindented"])?;
    shown(&env, &["recall", "--search", "webhook signature"])?;
    shown(
        &env,
        &["recall", "--search", "imported decision", "--explain"],
    )?;
    let show = shown(&env, &["show", &id])?;
    contains_all(&show, &["decided ", "context ", "alternative ", "next "])?;
    let imported = shown(&env, &["show", "imported"])?;
    contains_all(&imported, &["idec ", "iimp ", "iev ", "iunk ", "src/"])?;
    shown(&env, &["standup"])?;
    shown(&env, &["plan", "list"])?;
    shown(&env, &["plan", "get"])?;
    shown(&env, &["plan", "get", "hostile-plan"])?;
    shown(&env, &["plan", "get", "saved-plan"])?;
    Ok(())
}

#[test]
fn json_export_and_day_files_keep_the_exact_text() -> TestResult {
    let (env, id) = hostile_store()?;
    let h = hostile();
    let recall: Value = serde_json::from_str(&env.ok(&["--json", "recall", "--full"])?)?;
    let checkpoints = recall["checkpoints"].as_array().ok_or("no checkpoints")?;
    let imported = checkpoints
        .iter()
        .find(|c| c["id"] == "imported")
        .ok_or("no imported")?;
    assert_eq!(
        imported["description"],
        format!("Imported decision {h}\nimported body {h}")
    );
    assert_eq!(imported["branch"], format!("branch {h}"));
    assert_eq!(
        imported["files"],
        json!([format!("src/{h}.rs"), hostile_path()])
    );
    assert_eq!(
        imported["tags"],
        json!([format!("itag {}", hostile_line())])
    );
    assert_eq!(imported["decision"], format!("idec {h}"));
    assert_eq!(imported["evidence"], json!([format!("iev {h}")]));
    assert_eq!(
        recall["active_plan"]["title"],
        format!("Saved plan {}", hostile_arg().replace('\r', ""))
    );
    let saved = checkpoints
        .iter()
        .find(|c| c["id"] == id.as_str())
        .ok_or("no saved")?;
    assert_eq!(
        saved["description"],
        format!("Webhook signature check {h}\nthe body {h}\n\tindented")
    );
    assert_eq!(saved["decision"], format!("decided {}", hostile_arg()));
    let plan: Value = serde_json::from_str(&env.ok(&["--json", "plan", "get", "hostile-plan"])?)?;
    let content = plan["content"]
        .as_str()
        .or_else(|| plan["plan"]["content"].as_str())
        .ok_or_else(|| format!("no content in {plan}"))?;
    assert_eq!(content, format!("- [ ] step {h}\n- [x] done\n"));
    let title = plan["title"]
        .as_str()
        .or_else(|| plan["plan"]["title"].as_str())
        .ok_or_else(|| format!("no title in {plan}"))?;
    assert_eq!(title, format!("Plan {}", hostile_line()));
    // Export's JSON Lines give the record back as imported.
    let export = env.ok(&["export"])?;
    let line = export
        .lines()
        .map(serde_json::from_str::<Value>)
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .find(|r| r["id"] == "imported")
        .ok_or("imported not exported")?;
    assert_eq!(line["branch"], format!("branch {h}"));
    assert_eq!(line["impact"], format!("iimp {h}"));
    // The day file holds the sequences as written.
    assert!(
        files_under(env.home())?
            .iter()
            .any(|text| text.contains("\u{1b}]52;c;Y3VybA==\u{7}") && text.contains("\u{202e}")),
        "no file of the store holds the raw text"
    );
    Ok(())
}

#[test]
fn hooks_show_stored_controls_escaped() -> TestResult {
    let (env, _) = hostile_store()?;
    let cwd = env.cwd.path();
    let start = json!({"session_id": "s-1", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"});
    let prompt = json!({
        "session_id": "s-2", "cwd": cwd, "hook_event_name": "UserPromptSubmit",
        "prompt": "webhook signature check imported decision",
    });
    let file = json!({
        "session_id": "s-3", "cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": "Read",
        "tool_input": {"file_path": cwd.join(hostile_path())},
    });
    for (args, input, needles) in [
        (
            &["hook", "session-start"][..],
            &start,
            &["Saved plan", "Webhook signature check", "\\x1b[31mRED"][..],
        ),
        (
            &["hook", "prompt"],
            &prompt,
            &["Webhook signature check", "\\x1b[31mRED"],
        ),
        (
            &["hook", "file"],
            &file,
            &[
                "`src/\\x1bP+q\\x07\\u{202e}\\u{9b}2J\\x0d\\x00x.rs`",
                "Imported decision",
                "\\x1b[31mRED",
            ],
        ),
    ] {
        let out = env.run_stdin(args, &input.to_string())?;
        out.success(args)?;
        assert_inert(&format!("{args:?}"), &out)?;
        contains_all(&out.stdout(), needles).map_err(|e| format!("{args:?}: {e}"))?;
    }
    // Each client's JSON carries the same escaped text, nothing raw either (JSON escapes C0
    // controls, not C1 or bidi ones).
    for client in ["claude", "codex", "cursor"] {
        let start = json!({"session_id": format!("c-{client}"), "cwd": cwd});
        let args = ["hook", "session-start", "--client", client];
        let out = env.run_stdin(&args, &start.to_string())?;
        out.success(&args)?;
        assert_inert(&format!("{args:?}"), &out)?;
        let v: Value = serde_json::from_str(&out.stdout())?;
        let text = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .or_else(|| v["additional_context"].as_str())
            .ok_or_else(|| format!("{client}: no context in {v}"))?;
        assert!(!text.chars().any(is_control), "{client}: {text:?}");
        contains_all(text, &["\\x1b[31mRED"])?;
    }
    Ok(())
}

#[test]
fn worktree_files_and_errors_show_controls_escaped() -> TestResult {
    let (env, _) = hostile_store()?;
    let arg = hostile_arg().replace('\r', "");
    // An approach is written as `[approach]`: it may hold no bracket.
    let approach = arg.replace(['[', ']'], "");
    // The journal and the notes hold what the arguments gave them.
    for args in [
        vec!["journal", "boot", &arg, "--approach", &approach],
        vec!["journal", "fail", &arg],
        vec!["notes", "init", &arg],
        vec!["notes", "objective", &arg],
    ] {
        let out = env.run(&args)?;
        out.success(&args)?;
        assert_inert(&format!("{args:?}"), &out)?;
    }
    shown(&env, &["journal", "status"])?;
    shown(&env, &["journal", "handover"])?;
    shown(&env, &["notes", "show"])?;
    // An error that quotes what it was given.
    let out = env.run(&["plan", "get", &format!("nope{arg}")])?;
    assert_eq!(out.0.status.code(), Some(1), "{}", out.stderr());
    assert_inert("plan get (error)", &out)?;
    Ok(())
}

/// The text of every file under `dir`.
fn files_under(dir: &Path) -> Result<Vec<String>, std::io::Error> {
    let mut texts = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                texts.push(String::from_utf8_lossy(&std::fs::read(&path)?).into_owned());
            }
        }
    }
    Ok(texts)
}
