//! `goldfish forget`, `goldfish plan delete`, the MCP `forget` tool and `import --resurrect`,
//! through the real binary: the text leaves the day file, the index and the vectors' file,
//! and stays out.

use serde_json::json;

use crate::mcp_replies::{call_tools, text};
use crate::util::{Env, TestResult, contains_all};

/// Every byte of the store's files (index and vectors included) as lossy text.
fn store_bytes(dir: &std::path::Path) -> Result<String, Box<dyn std::error::Error>> {
    let mut out = String::new();
    for entry in walkdir(dir)? {
        out.push_str(&String::from_utf8_lossy(&std::fs::read(entry)?));
    }
    Ok(out)
}

/// Every file under `dir`, depth first.
pub(crate) fn walkdir(dir: &std::path::Path) -> Result<Vec<std::path::PathBuf>, std::io::Error> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            out.extend(walkdir(&path)?);
        } else {
            out.push(path);
        }
    }
    Ok(out)
}

fn save(env: &Env, text: &str) -> Result<String, Box<dyn std::error::Error>> {
    let v = env.json(&["checkpoint", text])?;
    Ok(v["id"].as_str().ok_or("id")?.to_string())
}

#[test]
fn forget_takes_the_text_out_of_every_file_and_recall() -> TestResult {
    let env = Env::new()?;
    let wrong = save(&env, "Zanzibarquux credentials pasted by mistake")?;
    let kept = save(&env, "Switched the retry policy to jittered backoff")?;
    // The index exists and holds the text before the forget.
    contains_all(&env.ok(&["recall", "--search", "zanzibarquux"])?, &[&wrong])?;
    assert!(
        store_bytes(env.home())?
            .to_lowercase()
            .contains("zanzibarquux")
    );

    let dry = env.ok(&["forget", &wrong, "--dry-run"])?;
    contains_all(
        &dry,
        &[
            "Would forget checkpoint",
            &wrong,
            "Zanzibarquux credentials",
        ],
    )?;
    contains_all(&env.ok(&["recall", "--search", "zanzibarquux"])?, &[&wrong])?;

    let done = env.json(&["forget", &wrong])?;
    assert_eq!(done["forgotten"][0]["id"], wrong.as_str(), "{done}");
    assert_eq!(done["dry_run"], false);
    let bytes = store_bytes(env.home())?.to_lowercase();
    assert!(
        !bytes.contains("zanzibarquux"),
        "the text is in no file of the store"
    );
    assert!(
        bytes.contains(&wrong.to_lowercase()),
        "the tombstone names the id"
    );
    let after = env.ok(&["recall", "--search", "zanzibarquux"])?;
    assert!(!after.contains(&wrong), "{after}");
    contains_all(&env.ok(&["recall"])?, &[&kept])?;
    contains_all(&env.ok(&["forget", &wrong])?, &["already forgotten"])?;
    env.fails(
        &["forget", "20200101T000000000Z-nope"],
        1,
        "nothing was forgotten",
    )?;
    env.fails(&["show", &wrong], 1, "no checkpoint has the id")
}

#[test]
fn an_import_does_not_bring_a_forgotten_memory_back_unless_asked() -> TestResult {
    let env = Env::new()?;
    let wrong = save(&env, "Decided to push straight to main")?;
    let export = env.cwd.path().join("export.jsonl");
    let out = env.run(&["export"])?;
    std::fs::write(&export, out.stdout())?;
    env.ok(&["forget", &wrong])?;
    let path = export.to_str().ok_or("utf8")?;
    let report = env.ok(&["import", "jsonl", path])?;
    contains_all(&report, &["1 record(s) not written", "--resurrect"])?;
    assert!(!env.ok(&["recall"])?.contains(&wrong));
    env.ok(&["import", "jsonl", path, "--resurrect"])?;
    contains_all(&env.ok(&["recall"])?, &[&wrong])
}

#[test]
fn plan_delete_and_the_forget_tool() -> TestResult {
    let env = Env::new()?;
    env.ok(&[
        "plan",
        "save",
        "--title",
        "Auth redesign",
        "--content",
        "- [ ] OAuth2",
        "--activate",
    ])?;
    let dry = env.ok(&["plan", "delete", "auth-redesign", "--dry-run"])?;
    contains_all(&dry, &["Would forget plan auth-redesign"])?;
    env.ok(&["plan", "get", "auth-redesign"])?;
    contains_all(
        &env.ok(&["plan", "delete", "auth-redesign"])?,
        &["Forgot plan auth-redesign"],
    )?;
    env.fails(&["plan", "get", "auth-redesign"], 1, "auth-redesign")?;

    let a = save(&env, "First wrong memory")?;
    let b = save(&env, "Second wrong memory")?;
    let results = call_tools(
        &env,
        &[
            ("forget", json!({"ids": [a], "dry_run": true})),
            ("forget", json!({"ids": [a, b]})),
            ("forget", json!({})),
            ("forget", json!({"ids": ["nope"]})),
            ("recall", json!({})),
        ],
    )?;
    contains_all(&text(&results[0]), &["Would forget checkpoint"])?;
    let out = &results[1]["structuredContent"];
    assert_eq!(out["forgotten"].as_array().map(Vec::len), Some(2), "{out}");
    assert_eq!(out["forgotten"][0]["kind"], "checkpoint");
    assert_eq!(results[2]["isError"], true);
    contains_all(&text(&results[2]), &["give `ids`"])?;
    assert_eq!(results[3]["isError"], true);
    let recalled = text(&results[4]);
    assert!(!recalled.contains("wrong memory"), "{recalled}");
    Ok(())
}
