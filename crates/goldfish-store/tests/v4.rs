//! Day files written by Goldfish v4 (the eval corpus's store) read as the corpus says.

use std::collections::HashMap;
use std::path::PathBuf;

use goldfish_store::{Store, parse_checkpoint_file};

use crate::TestResult;

fn eval_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v4")
}

/// `tests/fixtures/v4` holds a sample of the v4 store (`store/{ws}/checkpoints/*.md`) and
/// the matching lines of corpus.jsonl: every entry must read back as the corpus describes it
/// (time to the minute, since v4 kept no seconds).
#[test]
fn v4_day_files_match_the_corpus() -> TestResult {
    let dir = eval_dir();
    let corpus = std::fs::read_to_string(dir.join("corpus.jsonl"))?;
    let mut expected: HashMap<(String, String), serde_json::Value> = HashMap::new();
    for line in corpus.lines() {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let ws = v["workspace"].as_str().ok_or("workspace")?.to_string();
        let commit = v["commit"].as_str().ok_or("commit")?.to_string();
        expected.insert((ws, commit), v);
    }
    let store = Store::open(dir.join("store"))?;
    let mut seen = 0;
    for ws in store.list_workspaces()? {
        for entry in std::fs::read_dir(dir.join("store").join(&ws).join("checkpoints"))? {
            let path = entry?.path();
            let stem = path.file_stem().and_then(|s| s.to_str()).ok_or("stem")?;
            let date = chrono::NaiveDate::parse_from_str(stem, "%Y-%m-%d")?;
            let text = std::fs::read_to_string(&path)?;
            let checkpoints = parse_checkpoint_file(&text, &ws, date)?;
            assert_eq!(checkpoints, store.checkpoints_for_day(&ws, date)?);
            for cp in checkpoints {
                let commit = cp.commit.clone().ok_or("v4 entry without commit")?;
                let want = expected
                    .get(&(ws.clone(), commit.clone()))
                    .ok_or(format!("{commit} not in corpus"))?;
                assert_eq!(
                    cp.description,
                    want["description"].as_str().ok_or("description")?,
                    "{commit}"
                );
                let list = |key: &str| -> Vec<String> {
                    want[key]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default()
                };
                assert_eq!(cp.tags, list("tags"), "{commit}");
                assert_eq!(cp.files, list("files"), "{commit}");
                assert_eq!(cp.branch.as_deref(), want["branch"].as_str(), "{commit}");
                let minute = cp.timestamp.format("%Y-%m-%dT%H:%M").to_string();
                assert!(
                    want["timestamp"]
                        .as_str()
                        .ok_or("timestamp")?
                        .starts_with(&minute),
                    "{commit}"
                );
                assert!(cp.id.starts_with("v4-"), "{}", cp.id);
                seen += 1;
            }
        }
    }
    assert_eq!(
        seen,
        expected.len(),
        "every corpus entry of the sample was read"
    );
    Ok(())
}

/// The whole eval store, when it is present beside the workspace: every v4 file parses
/// strictly, the entry count matches the corpus, and ids are unique per workspace.
#[test]
fn whole_eval_store_reads_when_present() -> TestResult {
    let eval = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/eval");
    let Ok(corpus) = std::fs::read_to_string(eval.join("corpus.jsonl")) else {
        return Ok(());
    };
    let store = Store::open(eval.join("store"))?;
    let mut total = 0;
    for ws in store.list_workspaces()? {
        let from = chrono::DateTime::<chrono::Utc>::MIN_UTC;
        let range =
            store.checkpoints_between(&ws, from, chrono::DateTime::<chrono::Utc>::MAX_UTC)?;
        assert!(range.skipped.is_empty(), "{ws}: {:?}", range.skipped);
        let ids: std::collections::HashSet<_> = range.checkpoints.iter().map(|c| &c.id).collect();
        assert_eq!(ids.len(), range.checkpoints.len(), "{ws}: ids unique");
        total += range.checkpoints.len();
    }
    assert_eq!(total, corpus.lines().count());
    Ok(())
}

/// `tests/fixtures/v4-shapes` holds files as Goldfish v4 wrote them when descriptions and
/// plans contained lines that look like structure: `## heading` lines and bullet-like lines
/// inside a description, and a plan whose content opens with its `# Title`. They read as v4
/// meant (`expected.json`), the store reads them the same, and writing them back in our format
/// keeps every field.
#[test]
fn v4_structure_lookalikes_read_as_v4_meant() -> TestResult {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v4-shapes");
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json"))?)?;
    let date = chrono::NaiveDate::from_ymd_opt(2025, 10, 14).ok_or("date")?;
    let path = dir.join("store/shapes/checkpoints/2025-10-14.md");
    let text = std::fs::read_to_string(&path)?;
    let checkpoints = parse_checkpoint_file(&text, "shapes", date)?;
    let want = expected["checkpoints"].as_array().ok_or("checkpoints")?;
    assert_eq!(checkpoints.len(), want.len());
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    for (cp, want) in checkpoints.iter().zip(want) {
        let title = cp.title();
        assert_eq!(
            Some(cp.description.as_str()),
            want["description"].as_str(),
            "{title}"
        );
        assert_eq!(cp.tags, strings(&want["tags"]), "{title}");
        assert_eq!(cp.files, strings(&want["files"]), "{title}");
        assert_eq!(cp.branch.as_deref(), want["branch"].as_str(), "{title}");
        assert_eq!(cp.commit.as_deref(), want["commit"].as_str(), "{title}");
        assert_eq!(
            Some(goldfish_core::time::format_utc(&cp.timestamp).as_str()),
            want["time"].as_str(),
            "{title}"
        );
    }
    let ours = goldfish_store::format_day_file(date, &checkpoints);
    assert_eq!(parse_checkpoint_file(&ours, "shapes", date)?, checkpoints);

    let store = Store::open(dir.join("store"))?;
    let range = store.read_day("shapes", date)?;
    assert!(range.skipped.is_empty(), "{:?}", range.skipped);
    assert_eq!(range.checkpoints, checkpoints);

    let want = &expected["plan"];
    let plan = store.get_plan("shapes", "retry-backoff")?;
    assert_eq!(Some(plan.title.as_str()), want["title"].as_str());
    assert_eq!(Some(plan.content.as_str()), want["content"].as_str());
    assert_eq!(plan.tags, strings(&want["tags"]));
    let list = store.list_plans("shapes")?;
    assert_eq!(list.active.as_deref(), want["id"].as_str());
    let again = goldfish_store::parse_plan(
        &goldfish_store::format_plan(&plan),
        "shapes",
        "retry-backoff",
    )?;
    assert_eq!(again, plan);
    Ok(())
}
