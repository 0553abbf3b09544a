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
