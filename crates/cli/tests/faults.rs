//! Faults a hard tester found, through the real binary: day files named like a date that
//! does not exist, a broken active plan, names in other scripts, and Goldfish v4 files whose
//! descriptions look like structure.

use crate::util::{Env, TestResult, contains_all};

#[test]
fn recall_reports_day_files_whose_name_is_not_a_real_date() -> TestResult {
    let env = Env::new()?;
    env.ok(&["checkpoint", "a real checkpoint"])?;
    let dir = env.home().join("test/checkpoints");
    for bad in ["2025-13-45.md", "2025-02-30.md"] {
        std::fs::write(dir.join(bad), "# Checkpoints\n\n## 09:00 - lost\n")?;
    }
    std::fs::write(dir.join("notes.md"), "not a day file\n")?;

    let v = env.json(&["recall"])?;
    assert_eq!(v["checkpoints"].as_array().map(Vec::len), Some(1), "{v}");
    let skipped = v["skipped"].as_array().ok_or("skipped is a list")?;
    let paths: Vec<&str> = skipped.iter().filter_map(|s| s["path"].as_str()).collect();
    assert_eq!(paths.len(), 2, "{v}");
    assert!(paths[0].ends_with("2025-02-30.md") && paths[1].ends_with("2025-13-45.md"));
    for s in skipped {
        let message = s["message"].as_str().unwrap_or("");
        assert!(message.contains("not a real date"), "{s}");
    }
    let out = env.run(&["recall"])?;
    out.success(&["recall"])?;
    let shown = format!("{}{}", out.stdout(), out.stderr());
    contains_all(
        &shown,
        &["a real checkpoint", "2025-02-30.md", "not a real date"],
    )?;
    assert!(!shown.contains("notes.md"), "{shown}");
    Ok(())
}

#[test]
fn plan_list_lists_what_it_can_with_a_broken_active_plan() -> TestResult {
    let env = Env::new()?;
    env.ok(&[
        "plan",
        "save",
        "--title",
        "Good plan",
        "--content",
        "- [ ] one",
    ])?;
    let plans = env.home().join("test/plans");
    std::fs::write(
        plans.join("broken.md"),
        "---\nid: broken\ntitle: [unclosed\ncreated: 2025-10-13T09:00:00Z\n---\n\nbody\n",
    )?;
    std::fs::write(env.home().join("test/.active-plan"), "broken\n")?;

    let text = env.ok(&["plan", "list"])?;
    contains_all(&text, &["`good-plan`", "broken.md:3", "YAML"])?;
    assert!(!text.contains("← active"), "{text}");
    let v = env.json(&["plan", "list"])?;
    assert_eq!(v["plans"].as_array().map(Vec::len), Some(1), "{v}");
    assert!(v["active"].is_null(), "{v}");
    let skipped = v["skipped"].as_array().ok_or("skipped")?;
    assert_eq!(skipped.len(), 1, "{v}");
    assert!(
        skipped[0]
            .as_str()
            .is_some_and(|s| s.contains("broken.md:3")),
        "{v}"
    );

    env.ok(&["plan", "activate", "good-plan"])?;
    let text = env.ok(&["plan", "list"])?;
    contains_all(&text, &["`good-plan`", "← active", "broken.md:3"])?;
    Ok(())
}

#[test]
fn plan_ids_and_workspaces_transliterate_other_scripts() -> TestResult {
    let env = Env::new()?;
    let v = env.json(&["plan", "save", "--title", "Über café rewrite"])?;
    assert_eq!(v["id"], "uber-cafe-rewrite");
    let v = env.json(&["-w", "Mon Projet Été", "checkpoint", "bonjour"])?;
    assert_eq!(v["workspace"], "mon-projet-ete", "{v}");
    assert!(env.home().join("mon-projet-ete/checkpoints").is_dir());
    // An ASCII name maps to the same workspace as before.
    let v = env.json(&["-w", "My Project", "checkpoint", "hello"])?;
    assert_eq!(v["workspace"], "my-project", "{v}");
    Ok(())
}

#[test]
fn v4_descriptions_that_look_like_structure_are_recalled_whole() -> TestResult {
    let env = Env::new()?;
    let dir = env.home().join("test/checkpoints");
    std::fs::create_dir_all(&dir)?;
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    std::fs::write(
        dir.join(format!("{today}.md")),
        format!(
            "# Checkpoints for {today}\n\n## 00:00 - Design notes\n## Context\n\
             - **Tags**: not the tags\nmore text\n\n- **Tags**: real\n- **Branch**: main\n"
        ),
    )?;
    let v = env.json(&["recall", "--days", "2", "--full"])?;
    let cps = v["checkpoints"].as_array().ok_or("checkpoints")?;
    assert_eq!(cps.len(), 1, "{v}");
    assert_eq!(
        cps[0]["description"],
        "Design notes\n## Context\n- **Tags**: not the tags\nmore text"
    );
    assert_eq!(cps[0]["tags"], serde_json::json!(["real"]));
    assert_eq!(cps[0]["branch"], "main");
    Ok(())
}

/// Temp files that killed writers left are not data, and the next `goldfish` write in their
/// directory removes them.
#[cfg(unix)]
#[test]
fn stray_temp_files_are_ignored_then_cleaned_by_the_next_checkpoint() -> TestResult {
    let env = Env::new()?;
    env.ok(&["checkpoint", "first"])?;
    let dir = env.home().join("test/checkpoints");
    let day = std::fs::read_dir(&dir)?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.ends_with(".md") && !n.starts_with('.'))
        .ok_or("a day file")?;
    let text = std::fs::read_to_string(dir.join(&day))?;
    let strays: Vec<_> = (0..3)
        .map(|i| dir.join(format!(".{day}.{}-{i:x}-{i}.tmp", 900_000 + i)))
        .collect();
    for p in &strays {
        std::fs::write(p, text.replace("first", "from a killed writer"))?;
    }
    let v = env.json(&["recall", "--search", "killed writer"])?;
    assert_eq!(v["checkpoints"].as_array().map(Vec::len), Some(0), "{v}");
    env.ok(&["checkpoint", "second"])?;
    for p in &strays {
        assert!(!p.exists(), "{} was left", p.display());
    }
    let v = env.json(&["recall"])?;
    assert_eq!(v["checkpoints"].as_array().map(Vec::len), Some(2), "{v}");
    Ok(())
}
