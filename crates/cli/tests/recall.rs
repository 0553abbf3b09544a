//! `goldfish recall` and `goldfish standup`.

use chrono::Utc;

use crate::util::{Env, TestResult, contains_all};

fn seed(env: &Env) -> TestResult {
    env.ok(&[
        "checkpoint",
        "Fixed auth bug\nThe token expired too early.",
        "--tags",
        "bug-fix,auth",
    ])?;
    env.ok(&[
        "checkpoint",
        "Added OAuth2 support",
        "--tags",
        "feature,auth",
    ])?;
    env.ok(&[
        "checkpoint",
        "Refactored database queries",
        "--tags",
        "refactor,database",
    ])?;
    env.ok(&[
        "plan",
        "save",
        "--title",
        "Auth system",
        "--content",
        "- [x] JWT\n- [ ] OAuth2",
    ])?;
    Ok(())
}

#[test]
fn json_has_the_documented_shape() -> TestResult {
    let env = Env::new()?;
    seed(&env)?;
    let v = env.json(&["recall", "--days", "7"])?;
    let cps = v["checkpoints"].as_array().ok_or("checkpoints")?;
    assert_eq!(cps.len(), 3);
    for c in cps {
        for key in [
            "id",
            "timestamp",
            "workspace",
            "description",
            "tags",
            "branch",
            "commit",
            "files",
        ] {
            assert!(c.get(key).is_some(), "{key} missing in {c}");
        }
    }
    assert_eq!(v["active_plan"]["id"], "auth-system", "{v}");
    assert!(
        v.get("workspaces").is_some() && v["skipped"].as_array().is_some_and(Vec::is_empty),
        "{v}"
    );
    Ok(())
}

#[test]
fn every_flag() -> TestResult {
    let env = Env::new()?;
    seed(&env)?;
    let count = |args: &[&str]| -> Result<usize, Box<dyn std::error::Error>> {
        let v = env.json(args)?;
        Ok(v["checkpoints"].as_array().ok_or("checkpoints")?.len())
    };
    let today = Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(count(&["recall", "--days", "1"])?, 3);
    assert_eq!(count(&["recall", "--since", "1h"])?, 3);
    assert_eq!(count(&["recall", "--from", &today, "--to", &today])?, 3);
    assert_eq!(
        count(&["recall", "--from", "2001-01-01", "--to", "2001-01-02"])?,
        0
    );
    assert_eq!(count(&["recall", "--limit", "2"])?, 2);
    assert_eq!(count(&["recall", "--limit", "0"])?, 0);

    let v = env.json(&["recall", "--search", "authentcation"])?;
    let first = v["checkpoints"][0]["description"]
        .as_str()
        .ok_or("no hit")?;
    assert!(first.to_lowercase().contains("auth"), "{v}");
    let v = env.json(&["recall", "--search", "databse"])?;
    assert_eq!(
        v["checkpoints"][0]["description"], "Refactored database queries",
        "{v}"
    );

    let text = env.ok(&["recall", "--full"])?;
    contains_all(
        &text,
        &[
            "The token expired too early.",
            "Auth system",
            "Fixed auth bug",
        ],
    )?;
    let text = env.ok(&["recall"])?;
    contains_all(
        &text,
        &["Added OAuth2 support", "Active plan: Auth system", "1/2"],
    )?;
    Ok(())
}

#[test]
fn all_workspaces_and_standup() -> TestResult {
    let env = Env::new()?;
    env.ok(&["checkpoint", "Work A", "-w", "project-a"])?;
    env.ok(&["checkpoint", "Work B", "-w", "project-b"])?;
    env.ok(&["checkpoint", "More B", "-w", "project-b"])?;
    let v = env.json(&["recall", "--workspace", "all", "--days", "1"])?;
    assert_eq!(v["checkpoints"].as_array().map(Vec::len), Some(3));
    let ws = v["workspaces"].as_array().ok_or("workspaces")?;
    assert_eq!(ws.len(), 2, "{v}");
    assert!(v["active_plan"].is_null());

    let text = env.ok(&["standup", "--days", "1"])?;
    contains_all(&text, &["project-a", "project-b", "Work A", "More B"])?;
    let v = env.json(&["standup"])?;
    assert!(v.to_string().contains("Work B"), "{v}");
    Ok(())
}
