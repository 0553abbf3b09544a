//! Secrets are never written: checkpoints, plans, journal entries and notes saved through the
//! real binary (and the MCP server) hold `[REDACTED:<kind>]` instead, and say so.

use std::fs;
use std::path::Path;

use serde_json::json;

use crate::mcp_replies::{call_tools, text};
use crate::util::{Env, TestResult, contains_all};

/// An AWS access key id (the documentation's example).
const AWS: &str = "AKIAIOSFODNN7EXAMPLE";

/// A GitHub token, built at run time so that no scanner takes this file for a leak.
fn github_token() -> String {
    format!("ghp_{}", "a1B2".repeat(9))
}

/// A JWT, built at run time.
fn jwt() -> String {
    [
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ",
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ]
    .join(".")
}

/// Every file under `dir`, concatenated (day files, plans).
fn all_text(dir: &Path) -> Result<String, Box<dyn std::error::Error>> {
    let mut out = String::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push_str(&fs::read_to_string(&path)?);
            }
        }
    }
    Ok(out)
}

/// The checkpoint's day files hold neither secret but both markers, and nothing else is lost.
fn assert_redacted_day(env: &Env, token: &str) -> Result<String, Box<dyn std::error::Error>> {
    let days = all_text(&env.home().join("test").join("checkpoints"))?;
    assert!(!days.contains(AWS), "{days}");
    assert!(!days.contains(token), "{days}");
    assert!(!days.contains("a1B2a1B2"), "{days}");
    contains_all(
        &days,
        &[
            "[REDACTED:aws-access-key-id]",
            "[REDACTED:github-token]",
            "rotated the deploy keys",
        ],
    )?;
    Ok(days)
}

#[test]
fn a_checkpoint_with_an_aws_key_and_a_github_token_stores_neither() -> TestResult {
    let env = Env::new()?;
    let token = github_token();
    let description = format!(
        "rotated the deploy keys\nold key {AWS}, CI token {token}\n\
         see commit 3f2a9c1d4e5b6a7980 and run 123e4567-e89b-12d3-a456-426614174000, \
         fixed src/auth/token.rs"
    );
    let out = env.ok(&["checkpoint", &description, "--tags", "security"])?;
    contains_all(
        &out,
        &["redacted 2 secrets: aws-access-key-id, github-token"],
    )?;
    assert!(!out.contains(AWS) && !out.contains(&token), "{out}");
    let days = assert_redacted_day(&env, &token)?;
    // Commit hashes, UUIDs and file paths are never taken for secrets.
    contains_all(
        &days,
        &[
            "3f2a9c1d4e5b6a7980",
            "123e4567-e89b-12d3-a456-426614174000",
            "src/auth/token.rs",
            "security",
        ],
    )?;

    // --json: the checkpoint as stored, and what was redacted (field and kind, no secret).
    let v = env.json(&[
        "checkpoint",
        &format!("rotated the deploy keys again: {token}"),
    ])?;
    assert_eq!(
        v["redacted"],
        json!([{"field": "description", "kind": "github-token"}]),
        "{v}"
    );
    assert!(!v.to_string().contains(&token), "{v}");
    // A clean checkpoint says nothing and has an empty list.
    let clean = env.json(&["checkpoint", "nothing secret here"])?;
    assert_eq!(clean["redacted"], json!([]), "{clean}");
    let out = env.ok(&["checkpoint", "nothing secret here either"])?;
    assert!(!out.contains("redacted"), "{out}");
    Ok(())
}

#[test]
fn the_mcp_checkpoint_and_plan_tools_redact_and_say_so() -> TestResult {
    let env = Env::new()?;
    let token = github_token();
    let results = call_tools(
        &env,
        &[
            (
                "checkpoint",
                json!({"description": format!("rotated the deploy keys: {AWS} and {token}")}),
            ),
            (
                "plan",
                json!({"action": "save", "title": "Deploy", "content": format!("- [ ] use {token}")}),
            ),
            ("checkpoint", json!({"description": "nothing secret"})),
        ],
    )?;
    let reply = text(&results[0]);
    assert_eq!(results[0]["isError"], json!(false), "{reply}");
    contains_all(
        &reply,
        &["redacted 2 secrets: aws-access-key-id, github-token"],
    )?;
    assert_eq!(
        results[0]["structuredContent"]["redacted"],
        json!([
            {"field": "description", "kind": "aws-access-key-id"},
            {"field": "description", "kind": "github-token"},
        ]),
        "{}",
        results[0]
    );
    let plan = text(&results[1]);
    contains_all(&plan, &["Plan saved", "redacted 1 secret: github-token"])?;
    assert_eq!(
        results[1]["structuredContent"]["redacted"],
        json!([{"field": "content", "kind": "github-token"}]),
        "{}",
        results[1]
    );
    assert_eq!(results[2]["structuredContent"]["redacted"], json!([]));
    assert!(!text(&results[2]).contains("redacted"));
    for r in &results {
        assert!(
            !r.to_string().contains(&token) && !r.to_string().contains(AWS),
            "{r}"
        );
    }
    assert_redacted_day(&env, &token)?;
    let plans = all_text(&env.home().join("test").join("plans"))?;
    assert!(!plans.contains(&token), "{plans}");
    contains_all(&plans, &["- [ ] use [REDACTED:github-token]"])?;
    Ok(())
}

#[test]
fn plans_are_redacted_on_save_and_update() -> TestResult {
    let env = Env::new()?;
    let token = github_token();
    let v = env.json(&[
        "plan",
        "save",
        "--title",
        "Deploy",
        "--content",
        &format!("- [ ] export GITHUB_TOKEN={token}"),
        "--tags",
        AWS,
    ])?;
    assert_eq!(
        v["redacted"],
        json!([
            {"field": "content", "kind": "github-token"},
            {"field": "tags", "kind": "aws-access-key-id"},
        ]),
        "{v}"
    );
    let out = env.ok(&[
        "plan",
        "update",
        "deploy",
        "--content",
        &format!("- [x] rotated; the new one is {AWS}"),
    ])?;
    contains_all(&out, &["redacted 1 secret: aws-access-key-id"])?;
    let plans = all_text(&env.home().join("test").join("plans"))?;
    assert!(!plans.contains(&token) && !plans.contains(AWS), "{plans}");
    contains_all(
        &plans,
        &["- [x] rotated; the new one is [REDACTED:aws-access-key-id]"],
    )?;
    let got = env.json(&["plan", "get", "deploy"])?;
    assert_eq!(
        got["tags"],
        json!(["[REDACTED:aws-access-key-id]"]),
        "{got}"
    );
    Ok(())
}

#[test]
fn journal_entries_and_notes_are_redacted() -> TestResult {
    let env = Env::new()?;
    let token = github_token();
    env.ok(&[
        "journal",
        "boot",
        &format!("deploy with {AWS}"),
        "--approach",
        "direct",
    ])?;
    env.ok(&["journal", "log", &format!("CI uses {token}")])?;
    let journal = fs::read_to_string(env.cwd.path().join("JOURNAL.md"))?;
    assert!(
        !journal.contains(AWS) && !journal.contains(&token),
        "{journal}"
    );
    contains_all(
        &journal,
        &[
            "deploy with [REDACTED:aws-access-key-id]",
            "CI uses [REDACTED:github-token]",
        ],
    )?;

    env.ok(&[
        "notes",
        "init",
        "ENG-1",
        "--objective",
        "rotate keys",
        "--stage",
        "build",
    ])?;
    env.ok(&["notes", "step", &format!("revoked {token}")])?;
    let notes = fs::read_to_string(env.cwd.path().join(".goblin").join("GOBLIN_NOTES.md"))?;
    assert!(!notes.contains(&token), "{notes}");
    contains_all(&notes, &["revoked [REDACTED:github-token]"])?;
    Ok(())
}

#[test]
fn the_store_setting_turns_a_kind_off_and_doctor_lists_it() -> TestResult {
    let env = Env::new()?;
    fs::write(
        env.home().join("settings.json"),
        "{\n  \"redact\": {\"disabled\": [\"jwt\"]}\n}\n",
    )?;
    let jwt = jwt();
    let out = env.ok(&[
        "checkpoint",
        &format!("login works with {jwt}; old key {AWS}"),
    ])?;
    contains_all(&out, &["redacted 1 secret: aws-access-key-id"])?;
    let days = all_text(&env.home().join("test").join("checkpoints"))?;
    assert!(
        days.contains(&jwt),
        "the JWT was redacted though turned off: {days}"
    );
    assert!(!days.contains(AWS), "{days}");

    let doctor = env.run(&["doctor"])?.stdout();
    contains_all(
        &doctor,
        &[
            "[warn] redaction:",
            "settings.json",
            "turns off the redaction of: jwt",
        ],
    )?;
    Ok(())
}

#[test]
fn a_broken_setting_is_a_clear_error_and_nothing_is_written() -> TestResult {
    let env = Env::new()?;
    let settings = env.home().join("settings.json");
    fs::write(
        &settings,
        "{\n  \"redact\": {\"disabled\": [\"jwt\",]}\n}\n",
    )?;
    let shown = settings.display().to_string();
    env.fails(
        &["checkpoint", "anything"],
        1,
        &format!("{shown}:2: the settings are not valid JSON"),
    )?;
    fs::write(
        &settings,
        "{\n  \"redact\": {\n    \"disabled\": [\"jwtx\"]\n  }\n}\n",
    )?;
    env.fails(
        &["plan", "save", "--title", "x"],
        1,
        &format!("{shown}:3: `jwtx` in `redact.disabled` is not a kind of secret; the kinds are: private-key, aws-access-key-id"),
    )?;
    assert!(
        !env.home().join("test").exists(),
        "a save ran with a broken setting"
    );
    // Reading memory still works, and doctor fails naming the file.
    env.ok(&["recall"])?;
    let doctor = env.run(&["doctor"])?;
    assert_eq!(doctor.0.status.code(), Some(1));
    contains_all(&doctor.stdout(), &["[FAIL] redaction:", &shown, "jwtx"])?;
    Ok(())
}

#[test]
fn a_typed_memory_has_its_structured_fields_redacted() -> TestResult {
    let env = Env::new()?;
    let token = github_token();
    let decision = format!("use the deploy token {token} only in CI");
    let evidence = format!("the old key {AWS} leaked in a log");
    let out = env.run(&[
        "checkpoint",
        "Decided how CI authenticates",
        "--type",
        "decision",
        "--decision",
        &decision,
        "--evidence",
        &evidence,
        "--alternative",
        "keep the shared key",
    ])?;
    out.success(&["checkpoint --type decision"])?;
    contains_all(&out.stdout(), &["redacted 2"])?;
    let days = all_text(&env.home().join("test").join("checkpoints"))?;
    assert!(!days.contains(AWS) && !days.contains(&token), "{days}");
    contains_all(
        &days,
        &[
            "[REDACTED:aws-access-key-id]",
            "[REDACTED:github-token]",
            "keep the shared key",
            "only in CI",
        ],
    )?;
    Ok(())
}

/// The private text planted below, which no file may hold afterwards.
const PRIVATE: &str = "the customer is Initech";

#[test]
fn private_spans_are_dropped_on_every_write_path_and_the_replies_say_so() -> TestResult {
    let env = Env::new()?;
    // CLI checkpoint: a span over two lines, and one in a code fence, in the text reply.
    let out = env.ok(&[
        "checkpoint",
        &format!("fixed billing <private>{PRIVATE}\nand more</private> for good\n```\n<private>{PRIVATE}</private>\n```"),
    ])?;
    contains_all(&out, &["dropped 2 private spans"])?;
    assert!(!out.contains(PRIVATE), "{out}");
    // --json: the field and kind of each; an unclosed tag drops the rest of the field and
    // says so; a secret beside it is reported too.
    let v = env.json(&[
        "checkpoint",
        &format!("deploy with {AWS} <private>{PRIVATE}\nstill private"),
        "--tags",
        &format!("billing,<private>{PRIVATE}</private>"),
    ])?;
    assert_eq!(
        v["redacted"],
        json!([
            {"field": "description", "kind": "aws-access-key-id"},
            {"field": "description", "kind": "private-unclosed"},
            {"field": "tags", "kind": "private"},
        ]),
        "{v}"
    );
    assert!(!v.to_string().contains(PRIVATE), "{v}");
    let out = env.ok(&["checkpoint", &format!("<private>{PRIVATE} never closed")])?;
    contains_all(
        &out,
        &["dropped 1 private span (1 unclosed, dropped to the end of its field or line)"],
    )?;

    // MCP: a checkpoint and a plan.
    let results = call_tools(
        &env,
        &[
            (
                "checkpoint",
                json!({"description": format!("mcp save <private>{PRIVATE}</private> done")}),
            ),
            (
                "plan",
                json!({"action": "save", "title": "Billing",
                       "content": format!("- [ ] call <private>{PRIVATE}</private>")}),
            ),
        ],
    )?;
    contains_all(&text(&results[0]), &["dropped 1 private span"])?;
    assert_eq!(
        results[0]["structuredContent"]["redacted"],
        json!([{"field": "description", "kind": "private"}]),
        "{}",
        results[0]
    );
    assert_eq!(
        results[1]["structuredContent"]["redacted"],
        json!([{"field": "content", "kind": "private"}]),
        "{}",
        results[1]
    );

    // CLI plan save and update.
    let v = env.json(&[
        "plan",
        "save",
        "--title",
        "Invoices <private>for Initech</private>",
        "--content",
        "- [ ] send",
    ])?;
    assert_eq!(
        v["redacted"],
        json!([{"field": "title", "kind": "private"}]),
        "{v}"
    );
    let out = env.ok(&[
        "plan",
        "update",
        "billing",
        "--content",
        &format!("- [x] called <private>{PRIVATE}</private>"),
    ])?;
    contains_all(&out, &["dropped 1 private span"])?;

    // Import: a record with a private span.
    let source = tempfile::tempdir()?;
    let file = source.path().join("import.jsonl");
    fs::write(
        &file,
        format!(
            "{}\n",
            json!({"kind": "checkpoint", "workspace": "test", "id": "imported-private", "type": "checkpoint",
                   "timestamp": "2026-03-01T10:00:00Z",
                   "description": format!("imported <private>{PRIVATE}</private>")})
        ),
    )?;
    let out = env.ok(&["import", "jsonl", file.to_str().ok_or("path")?])?;
    contains_all(&out, &["dropped 1 private span"])?;

    // The journal and the notes: an unclosed tag drops the rest of its line, not the file.
    env.ok(&[
        "journal",
        "boot",
        "bill the customer",
        "--approach",
        "direct",
    ])?;
    env.ok(&[
        "journal",
        "log",
        &format!("called <private>{PRIVATE}</private> back"),
    ])?;
    env.ok(&["journal", "log", &format!("then <private>{PRIVATE}")])?;
    env.ok(&["journal", "log", "sent the invoice"])?;
    let journal = fs::read_to_string(env.cwd.path().join("JOURNAL.md"))?;
    contains_all(
        &journal,
        &[
            "called [REDACTED:private] back",
            "then [REDACTED:private-unclosed]",
            "sent the invoice",
        ],
    )?;
    env.ok(&[
        "notes",
        "init",
        "BILL-1",
        "--objective",
        "bill <private>Initech</private>",
    ])?;
    env.ok(&["notes", "step", &format!("phoned <private>{PRIVATE}")])?;
    env.ok(&["notes", "step", "sent the invoice"])?;
    let notes = fs::read_to_string(env.cwd.path().join(".goblin").join("GOBLIN_NOTES.md"))?;
    contains_all(
        &notes,
        &[
            "phoned [REDACTED:private-unclosed]",
            "sent the invoice",
            "BILL-1",
        ],
    )?;

    let stored = all_text(env.home())?;
    for (place, text) in [("store", &stored), ("journal", &journal), ("notes", &notes)] {
        assert!(!text.contains("Initech"), "{place}: {text}");
        assert!(!text.contains("<private>"), "{place}: {text}");
    }
    contains_all(
        &stored,
        &[
            "fixed billing [REDACTED:private] for good",
            "mcp save [REDACTED:private] done",
        ],
    )?;
    Ok(())
}

#[test]
fn goldfish_redact_reports_then_applies_once_and_the_index_forgets() -> TestResult {
    let env = Env::new()?;
    let token = github_token();
    env.ok(&["checkpoint", "shipped the billing fix"])?;
    env.ok(&[
        "plan",
        "save",
        "--title",
        "Billing",
        "--content",
        "- [ ] ship",
    ])?;
    env.ok(&["journal", "boot", "bill", "--approach", "direct"])?;
    // A leak written by hand into the day file, the plan and the journal.
    let days = env.home().join("test").join("checkpoints");
    let day = fs::read_dir(&days)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "md"))
        .ok_or("a day file")?;
    let text = fs::read_to_string(&day)?;
    fs::write(
        &day,
        text.replace(
            "shipped the billing fix",
            &format!("shipped the billing fix with {token} for <private>Initech</private>"),
        ),
    )?;
    let plans = env.home().join("test").join("plans");
    let plan = plans.join("billing.md");
    let text = fs::read_to_string(&plan)?;
    fs::write(
        &plan,
        text.replace("- [ ] ship", &format!("- [ ] ship {AWS}")),
    )?;
    let journal = env.cwd.path().join("JOURNAL.md");
    let mut text = fs::read_to_string(&journal)?;
    text.push_str("- called <private>Initech\n");
    fs::write(&journal, text)?;

    // A recall indexes the leak: the index holds its words.
    env.ok(&["recall", "--search", "billing"])?;
    assert!(
        index_text(env.home())?.contains("initech"),
        "the index has the word"
    );

    // Without --apply (and with --dry-run): a report, by kind, nothing written.
    let out = env.ok(&["redact"])?;
    contains_all(
        &out,
        &[
            "(day-file): 1 private, 1 github-token",
            "billing.md (plan): 1 aws-access-key-id",
            "JOURNAL.md (journal): 1 private-unclosed",
            "3 of 3 files hold something to redact; nothing was written: run `goldfish redact --apply`",
        ],
    )?;
    assert!(!out.contains("Initech") && !out.contains(&token), "{out}");
    assert_eq!(env.ok(&["redact", "--dry-run"])?, out);
    assert!(fs::read_to_string(&day)?.contains("Initech"));
    env.fails(
        &["redact", "--apply", "--dry-run"],
        2,
        "cannot be used with",
    )?;

    // --apply --json: per file, counts by kind, rewritten.
    let v = env.json(&["redact", "--apply"])?;
    assert_eq!(v["applied"], json!(true), "{v}");
    assert_eq!(v["scanned"], json!(3), "{v}");
    assert_eq!(v["workspaces_changed"], json!(["test"]), "{v}");
    let files = v["files"].as_array().ok_or("files")?;
    assert_eq!(files.len(), 3, "{v}");
    assert!(files.iter().all(|f| f["rewritten"] == json!(true)), "{v}");
    let day_report = files
        .iter()
        .find(|f| f["kind"] == json!("day-file"))
        .ok_or("the day file")?;
    assert_eq!(
        day_report["found"],
        json!([{"kind": "private", "count": 1}, {"kind": "github-token", "count": 1}]),
        "{v}"
    );
    assert!(!v.to_string().contains("Initech") && !v.to_string().contains(&token));

    // Nothing left anywhere: the files, and the recall index rebuilt from them.
    let mut everything = all_text(env.home())?;
    everything.push_str(&fs::read_to_string(&journal)?);
    assert!(
        !everything.contains("Initech")
            && !everything.contains(&token)
            && !everything.contains(AWS),
        "{everything}"
    );
    assert!(
        !index_text(env.home())?.contains("initech"),
        "the index kept the private word"
    );
    contains_all(
        &env.ok(&["recall", "--search", "billing"])?,
        &["[REDACTED:github-token]"],
    )?;

    // Again: nothing to do, and it says so.
    contains_all(
        &env.ok(&["redact", "--apply"])?,
        &["nothing to redact in 3 files"],
    )?;
    Ok(())
}

/// Every file of the store's recall index, as lower-case text (its terms are kept lower case).
fn index_text(home: &Path) -> Result<String, Box<dyn std::error::Error>> {
    let mut bytes = Vec::new();
    for entry in fs::read_dir(home.join(".index"))? {
        let path = entry?.path();
        if path.is_file() {
            bytes.extend(fs::read(&path)?);
        }
    }
    Ok(String::from_utf8_lossy(&bytes).to_lowercase())
}
