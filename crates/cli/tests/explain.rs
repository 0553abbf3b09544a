//! `goldfish recall --search … --explain` and queries with nothing to search for, through
//! the real binary.

use crate::util::{Env, TestResult, contains_all};

fn store_with_migrations(env: &Env) -> TestResult {
    env.ok(&[
        "checkpoint",
        "Migration of the plan store to YAML frontmatter",
    ])?;
    env.ok(&[
        "checkpoint",
        "Release notes\nWe also migrated the CI runners to the new image.",
    ])?;
    env.ok(&["checkpoint", "Fixed the login timeout on the settings page"])?;
    Ok(())
}

#[test]
fn explain_shows_why_each_checkpoint_matched() -> TestResult {
    let env = Env::new()?;
    store_with_migrations(&env)?;
    let text = env.ok(&["recall", "--search", "migratoin", "--explain"])?;
    // The title match comes first, and each hit says how its words matched.
    let first = text
        .lines()
        .find(|l| l.starts_with("- **"))
        .ok_or("no checkpoint line")?;
    assert!(first.contains("Migration of the plan store"), "{text}");
    contains_all(&text, &["score ", "\"migratoin\" → ", "coverage", "title"])?;
    // Without --explain, no reasons.
    let plain = env.ok(&["recall", "--search", "migratoin"])?;
    assert!(!plain.contains("coverage"), "{plain}");

    // --json carries the explanation on each checkpoint.
    let v = env.json(&["recall", "--search", "migratoin", "--explain"])?;
    let cps = v["checkpoints"].as_array().ok_or("no checkpoints")?;
    assert!(!cps.is_empty());
    for c in cps {
        let words = c["explain"]["words"].as_array().ok_or("no explain.words")?;
        assert_eq!(words[0]["word"], "migratoin", "{c}");
        assert!(
            c["explain"]["score"].as_f64().is_some_and(|s| s > 0.0),
            "{c}"
        );
    }
    Ok(())
}

#[test]
fn a_question_finds_its_answer_and_explain_names_the_synonym() -> TestResult {
    let env = Env::new()?;
    store_with_migrations(&env)?;
    let text = env.ok(&[
        "recall",
        "--search",
        "how did we stop the authentication page from timing out?",
        "--explain",
    ])?;
    let first = text
        .lines()
        .find(|l| l.starts_with("- **"))
        .ok_or_else(|| format!("no checkpoint line: {text}"))?;
    assert!(first.contains("login timeout"), "{text}");
    contains_all(&text, &["synonym"])?;
    Ok(())
}

#[test]
fn explain_needs_a_search() -> TestResult {
    let env = Env::new()?;
    env.fails(&["recall", "--explain"], 2, "--search")
}

#[test]
fn a_query_of_only_stop_words_has_nothing_to_search_for() -> TestResult {
    let env = Env::new()?;
    store_with_migrations(&env)?;
    for q in ["what was it?", "the of and", "?!...", "how did we"] {
        env.fails(&["recall", "--search", q], 1, "nothing to search for")?;
    }
    // A blank search is no search: recent checkpoints, exit 0.
    let text = env.ok(&["recall", "--search", "   "])?;
    assert!(text.contains("Migration of the plan store"), "{text}");
    Ok(())
}

#[test]
fn a_ten_thousand_character_query_is_answered() -> TestResult {
    let env = Env::new()?;
    store_with_migrations(&env)?;
    let long = "migration login timeout ".repeat(420);
    assert!(long.len() >= 10_000);
    let text = env.ok(&["recall", "--search", &long])?;
    assert!(text.contains("Migration of the plan store"), "{text}");
    Ok(())
}
