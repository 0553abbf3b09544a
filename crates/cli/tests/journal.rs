//! `goldfish journal …`.

use crate::util::{Env, TestResult, contains_all};

#[test]
fn lifecycle_with_mutation() -> TestResult {
    let env = Env::new()?;
    env.fails(&["journal", "status"], 1, "journal boot")?;
    env.ok(&[
        "journal",
        "boot",
        "token swap",
        "--intent",
        "replace JWT",
        "--approach",
        "direct swap",
        "--task",
        "auth",
    ])?;
    env.ok(&[
        "journal",
        "log",
        "--kind",
        "decision",
        "session token, not JWT",
    ])?;
    for i in 1..=2 {
        env.ok(&["journal", "fail", &format!("rejected {i}")])?;
    }
    contains_all(
        &env.ok(&["journal", "fail", "rejected 3"])?,
        &["MUTATION REQUIRED"],
    )?;
    env.fails(&["journal", "fail", "once more"], 1, "declare a mutation")?;
    env.fails(
        &[
            "journal",
            "mutate",
            "M9",
            "--switching-to",
            "x",
            "--rationale",
            "y",
        ],
        1,
        "unknown mutation code",
    )?;
    env.ok(&[
        "journal",
        "mutate",
        "M5",
        "--switching-to",
        "hook only",
        "--rationale",
        "scope too broad",
    ])?;
    env.ok(&["journal", "ok", "3/7 routes work"])?;
    env.ok(&["journal", "log", "-k", "state", "adapter created"])?;
    env.fails(
        &["journal", "log", "-k", "rumour", "x"],
        1,
        "unknown entry kind",
    )?;

    let status = env.json(&["journal", "status"])?;
    assert_eq!(
        status["status"]["current_approach"], "hook only",
        "{status}"
    );
    let text = std::fs::read_to_string(env.cwd.path().join("JOURNAL.md"))?;
    contains_all(
        &text,
        &[
            "# JOURNAL — auth",
            "❌ Failed: rejected 1",
            "## MUTATION: M5 (Reduce Scope)",
            "✅ 3/7 routes work",
        ],
    )?;
    contains_all(&env.ok(&["journal", "handover"])?, &["adapter created"])?;

    let v = env.json(&["journal", "archive"])?;
    let copy = v["archive"]["journal_copy"].as_str().ok_or("copy")?;
    assert!(
        copy.starts_with(env.home().join(".self-improving").to_str().ok_or("utf8")?),
        "{copy}"
    );
    assert!(
        env.home()
            .join(".self-improving")
            .join("patterns.jsonl")
            .exists()
    );
    Ok(())
}

#[test]
fn worktree_flag() -> TestResult {
    let env = Env::new()?;
    let other = tempfile::tempdir()?;
    let wt = other.path().to_str().ok_or("utf8")?;
    env.ok(&["journal", "--worktree", wt, "boot", "elsewhere"])?;
    assert!(other.path().join("JOURNAL.md").exists());
    assert!(!env.cwd.path().join("JOURNAL.md").exists());
    Ok(())
}
