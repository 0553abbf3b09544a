//! Secrets are replaced before anything is written, in every field a save writes; commit
//! hashes, UUIDs and file paths are never touched.

use goldfish_store::goldfish_redact::Kind;
use goldfish_store::{CheckpointInput, PlanInput, PlanUpdate, Redaction, Store};

use crate::{TestResult, git, repo_with_commit, store_at};

/// A GitHub token, built at run time so that no scanner takes this file for a leak.
fn github_token() -> String {
    format!("ghp_{}", "a1B2".repeat(9))
}

const AWS: &str = "AKIAIOSFODNN7EXAMPLE";

#[test]
fn every_checkpoint_field_is_redacted_and_git_context_is_kept() -> TestResult {
    let dir = tempfile::tempdir()?;
    let repo = dir.path().join("shop");
    repo_with_commit(&repo)?;
    git(&repo, &["checkout", "-q", "-b", &format!("fix/{AWS}")])?;
    std::fs::create_dir_all(repo.join("src/auth"))?;
    std::fs::write(repo.join("src/auth/token.rs"), "x")?;
    std::fs::write(repo.join("123e4567-e89b-12d3-a456-426614174000.json"), "x")?;
    let store = Store::open(dir.path().join("store"))?;

    let token = github_token();
    let mut input = CheckpointInput::new(format!(
        "rotated {token}\nafter 3f2a9c1d4e5b6a7980c1d2e3f4a5b6c7d8e9f0a1"
    ));
    input.workspace = Some("shop".into());
    input.tags = vec!["security".into(), token.clone()];
    input.git_dir = Some(repo.clone());
    input.actor.session = Some(format!("session {AWS}"));
    let saved = store.save_checkpoint_reported(input)?;
    let c = &saved.value;
    assert_eq!(
        c.actor.session.as_deref(),
        Some("session [REDACTED:aws-access-key-id]")
    );
    assert_eq!(
        c.description,
        "rotated [REDACTED:github-token]\nafter 3f2a9c1d4e5b6a7980c1d2e3f4a5b6c7d8e9f0a1"
    );
    assert_eq!(c.tags, ["security", "[REDACTED:github-token]"]);
    assert_eq!(
        c.branch.as_deref(),
        Some("fix/[REDACTED:aws-access-key-id]")
    );
    let commit = git(&repo, &["rev-parse", "--short", "HEAD"])?;
    assert_eq!(c.commit.as_deref(), Some(commit.trim()));
    assert_eq!(
        c.files,
        ["123e4567-e89b-12d3-a456-426614174000.json", "src/"],
        "paths and UUIDs are never redacted"
    );
    assert_eq!(
        saved.redacted,
        [
            Redaction::new("description", Kind::GithubToken),
            Redaction::new("tags", Kind::GithubToken),
            Redaction::new("branch", Kind::AwsAccessKeyId),
            Redaction::new("Session", Kind::AwsAccessKeyId),
        ]
    );
    // What was returned is what was written, and the file holds no secret.
    let day = store.checkpoints_for_day("shop", c.timestamp.date_naive())?;
    assert_eq!(day, std::slice::from_ref(c));
    let text = std::fs::read_to_string(store.day_file_path("shop", c.timestamp.date_naive())?)?;
    assert!(!text.contains(&token) && !text.contains(AWS), "{text}");
    Ok(())
}

#[test]
fn plans_are_redacted_before_their_id_is_derived() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let token = github_token();
    let mut input = PlanInput::new(format!("Rotate {AWS}"), format!("- [ ] revoke {token}"));
    input.workspace = Some("w".into());
    let saved = store.save_plan_reported(input)?;
    assert_eq!(saved.value.id, "rotate-redacted-aws-access-key-id");
    assert_eq!(saved.value.title, "Rotate [REDACTED:aws-access-key-id]");
    assert_eq!(saved.value.content, "- [ ] revoke [REDACTED:github-token]");
    assert_eq!(
        saved.summary().as_deref(),
        Some("redacted 2 secrets: aws-access-key-id, github-token")
    );
    let mut update = PlanUpdate::default();
    update.tags = Some(vec![token.clone()]);
    let updated = store.update_plan_reported("w", &saved.value.id, update)?;
    assert_eq!(updated.value.tags, ["[REDACTED:github-token]"]);
    assert_eq!(
        updated.redacted,
        [Redaction::new("tags", Kind::GithubToken)]
    );
    // A clean update reports nothing.
    let clean = store.update_plan_reported(
        "w",
        &saved.value.id,
        PlanUpdate::with_status(goldfish_store::PlanStatus::Completed),
    )?;
    assert!(clean.redacted.is_empty() && clean.summary().is_none());
    for entry in std::fs::read_dir(dir.path().join("w").join("plans"))? {
        let path = entry?.path();
        let text = std::fs::read_to_string(&path)?;
        assert!(!text.contains(&token) && !text.contains(AWS), "{text}");
        assert!(!path.to_string_lossy().to_lowercase().contains("akia"));
    }
    Ok(())
}

#[test]
fn the_setting_is_read_once_per_store_and_names_the_kinds_off() -> TestResult {
    let dir = tempfile::tempdir()?;
    std::fs::write(
        dir.path().join(goldfish_store::SETTINGS_FILE),
        r#"{"redact": {"disabled": ["github-token", "jwt"]}}"#,
    )?;
    let (store, _) = store_at(dir.path())?;
    assert_eq!(store.redactor()?.disabled(), [Kind::GithubToken, Kind::Jwt]);
    let mut input = CheckpointInput::new(format!("{} and {AWS}", github_token()));
    input.workspace = Some("w".into());
    let saved = store.save_checkpoint_reported(input)?;
    assert_eq!(
        saved.value.description,
        format!("{} and [REDACTED:aws-access-key-id]", github_token())
    );
    // A broken setting is an error of the next store's saves, naming the file.
    std::fs::write(dir.path().join(goldfish_store::SETTINGS_FILE), "{")?;
    let (store, _) = store_at(dir.path())?;
    let e = store
        .save_checkpoint(CheckpointInput::new("x"))
        .expect_err("a broken setting");
    assert!(e.is_parse(), "{e}");
    assert_eq!(
        e.path(),
        Some(dir.path().join(goldfish_store::SETTINGS_FILE).as_path())
    );
    Ok(())
}
