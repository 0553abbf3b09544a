//! Recall as real processes, whatever the recall keeps beside the day files: a recall sees
//! every save that finished before it started, a read-only store still answers, and the
//! binary answers what the library's `recall()` answers.
//!
//! These hold with or without a persistent index under `$GOLDFISH_HOME/.index/`, and must
//! keep holding when one is used. No test relies on timing: the order of events is recorded
//! by the test itself (a save's sequence number is published only after its process exited),
//! and every loop is bounded.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use goldfish_recall::{RecallOptions, Scope};
use goldfish_store::{Checkpoint, Store, format_day_file};

use crate::util::{Env, TestResult};

/// The recall crate's evaluation corpus: 1,974 real checkpoints of six projects.
const NL_CORPUS: &str = include_str!("../../recall/tests/fixtures/nl_corpus.jsonl");

/// The corpus as checkpoints (their own ids, workspaces and timestamps).
fn corpus() -> Result<Vec<Checkpoint>, Box<dyn std::error::Error>> {
    let mut all = Vec::new();
    for (index, line) in NL_CORPUS.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("nl_corpus.jsonl line {}: {e}", index + 1))?;
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        let list = |k: &str| -> Vec<String> {
            v[k].as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        let ts = notes_core::time::parse_utc(&s("timestamp"))
            .map_err(|e| format!("nl_corpus.jsonl line {}: {e}", index + 1))?;
        let mut c = Checkpoint::new(s("id"), ts, s("workspace"), s("description"));
        c.tags = list("tags");
        c.files = list("files");
        c.branch = Some(s("branch")).filter(|b| !b.is_empty());
        c.commit = Some(s("commit")).filter(|b| !b.is_empty());
        all.push(c);
    }
    Ok(all)
}

/// Writes the corpus under `home` as day files, as the store writes them.
fn write_corpus(home: &Path) -> TestResult {
    let mut days: BTreeMap<(String, chrono::NaiveDate), Vec<Checkpoint>> = BTreeMap::new();
    for c in corpus()? {
        days.entry((c.workspace.clone(), c.timestamp.date_naive()))
            .or_default()
            .push(c);
    }
    for ((ws, date), mut list) in days {
        list.sort_by_key(|c| c.timestamp);
        let dir = home.join(&ws).join("checkpoints");
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("{date}.md")), format_day_file(date, &list))?;
    }
    Ok(())
}

/// The ids a `--json recall` answered, in its order.
fn ids(v: &serde_json::Value) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    Ok(v["checkpoints"]
        .as_array()
        .ok_or_else(|| format!("no checkpoints array in {v}"))?
        .iter()
        .filter_map(|c| c["id"].as_str().map(String::from))
        .collect())
}

/// The recalls compared below: (workspace, search, limit).
const RECALLS: [(&str, Option<&str>, &str); 6] = [
    ("all", Some("glob ignore windwos"), "10"),
    ("all", Some("timezone offset parsing"), "25"),
    ("all", Some("how did we fix the packed refs race?"), "10"),
    ("all", None, "50"),
    ("ripgrep", Some("memory map large files"), "10"),
    ("jiff", None, "20"),
];

fn cli_recall(
    env: &Env,
    workspace: &str,
    search: Option<&str>,
    limit: &str,
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let mut args = vec![
        "--workspace",
        workspace,
        "recall",
        "--from",
        "2000-01-01",
        "--limit",
        limit,
    ];
    if let Some(q) = search {
        args.extend(["--search", q]);
    }
    env.json(&args)
}

#[test]
fn a_store_without_index_answers_what_the_library_answers() -> TestResult {
    let env = Env::new()?;
    write_corpus(env.home())?;
    for (workspace, search, limit) in RECALLS {
        let got = cli_recall(&env, workspace, search, limit)?;
        let store = Store::open(env.home())?.with_repo_memory(env.cwd.path());
        let mut o = RecallOptions::default();
        o.workspace = Scope::from(workspace);
        o.from = Some("2000-01-01".into());
        o.search = search.map(String::from);
        o.limit = limit.parse()?;
        o.cwd = Some(env.cwd.path().to_path_buf());
        let want = goldfish_recall::recall(&store, &o)?;
        let want_ids: Vec<String> = want.checkpoints.iter().map(|c| c.id.clone()).collect();
        let what = format!("recall -w {workspace} {search:?} -n {limit}");
        assert!(!want_ids.is_empty(), "{what}: the library finds nothing");
        assert_eq!(
            ids(&got)?,
            want_ids,
            "{what}: the binary and the library differ"
        );
        assert_eq!(
            got["total"].as_u64(),
            Some(want.total as u64),
            "{what}: totals differ"
        );
        // The checkpoints themselves, field by field, as the binary renders them.
        for (c, w) in got["checkpoints"]
            .as_array()
            .ok_or("checkpoints")?
            .iter()
            .zip(&want.checkpoints)
        {
            assert_eq!(
                c["description"].as_str(),
                Some(w.description.as_str()),
                "{what}"
            );
            assert_eq!(
                c["workspace"].as_str(),
                Some(w.workspace.as_str()),
                "{what}"
            );
        }
    }
    Ok(())
}

/// Every recall sees every save that finished before the recall started.
///
/// One thread runs `goldfish checkpoint` SAVES times, each with its own token, and publishes
/// the count of finished saves only after each process exited. Another runs `goldfish
/// recall` in a loop (listing and search in turn): it reads that count before it spawns the
/// recall, and the recall must hold at least those tokens. The loop runs until the saver is
/// done (at most RECALLS_MAX times), then one more recall must see all of them.
#[test]
fn a_recall_sees_every_save_that_finished_before_it() -> TestResult {
    const SAVES: usize = 24;
    const RECALLS_MAX: usize = 400;
    let env = Env::new()?;
    // Something to search besides the saves, in other workspaces.
    write_corpus(env.home())?;
    let token = |i: usize| format!("sequencetoken{i:03}x");
    let finished = AtomicUsize::new(0);
    let saver_done = AtomicBool::new(false);
    let outcome: Result<usize, String> = std::thread::scope(|scope| {
        let saver = scope.spawn(|| -> Result<(), String> {
            let result = (0..SAVES).try_for_each(|i| {
                let text = format!("Durable save {i}\nThe sequence test saved {}.", token(i));
                let out = env
                    .run(&["checkpoint", &text, "--tags", "sequence"])
                    .map_err(|e| format!("spawn save {i}: {e}"))?;
                if !out.0.status.success() {
                    return Err(format!("save {i} failed: {}", out.stderr()));
                }
                finished.store(i + 1, Ordering::SeqCst);
                Ok(())
            });
            saver_done.store(true, Ordering::SeqCst);
            result
        });
        let recaller = scope.spawn(|| -> Result<usize, String> {
            let mut rounds = 0;
            loop {
                let last = saver_done.load(Ordering::SeqCst);
                let before = finished.load(Ordering::SeqCst);
                let search = rounds % 2 == 1;
                let mut args = vec![
                    "--workspace",
                    "all",
                    "recall",
                    "--from",
                    "2000-01-01",
                    "--limit",
                    "200",
                ];
                if search {
                    args.extend(["--search", "sequence test saved"]);
                }
                let v = env.json(&args).map_err(|e| e.to_string())?;
                let seen: String = v["checkpoints"]
                    .as_array()
                    .ok_or("no checkpoints")?
                    .iter()
                    .filter_map(|c| c["description"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n");
                if let Some(missing) = (0..before).find(|&i| !seen.contains(&token(i))) {
                    return Err(format!(
                        "recall {rounds} (search: {search}) started after {before} saves had \
                         finished but misses save {missing}"
                    ));
                }
                rounds += 1;
                if last {
                    if before != SAVES {
                        return Err(format!("the saver stopped after {before} saves"));
                    }
                    return Ok(rounds);
                }
                if rounds >= RECALLS_MAX {
                    return Err(format!("the saver did not finish in {RECALLS_MAX} recalls"));
                }
            }
        });
        let saved = saver.join().map_err(|_| "the saver panicked".to_string())?;
        let rounds = recaller
            .join()
            .map_err(|_| "the recaller panicked".to_string())?;
        saved.and(rounds)
    });
    let rounds = outcome?;
    eprintln!("{SAVES} saves, {rounds} recalls beside them");
    assert!(rounds >= 1);
    Ok(())
}

/// Makes `path` and everything under it read-only (or writable again).
fn set_read_only(path: &Path, read_only: bool) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let meta = std::fs::symlink_metadata(path)?;
    if meta.is_dir() {
        if !read_only {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))?;
        }
        for entry in std::fs::read_dir(path)? {
            set_read_only(&entry?.path(), read_only)?;
        }
        if read_only {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o500))?;
        }
    } else if meta.is_file() {
        let mode = if read_only { 0o400 } else { 0o600 };
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

/// A store nobody can write to still answers recall, listing and search alike.
///
/// The home and everything in it are made read-only. Root ignores permissions, so the
/// home's `.index` is also made a regular file: whatever the recall would keep there cannot
/// be created either way. The answers must be those of the same store before.
#[test]
fn a_read_only_store_still_answers() -> TestResult {
    let env = Env::new()?;
    write_corpus(env.home())?;
    let before: Vec<_> = RECALLS
        .iter()
        .map(|(w, s, n)| cli_recall(&env, w, *s, n).and_then(|v| ids(&v)))
        .collect::<Result<_, _>>()?;

    // A cache directory left over by an earlier run must not be what answers below.
    let index = env.home().join(".index");
    if index.is_dir() {
        std::fs::remove_dir_all(&index)?;
    }
    std::fs::write(&index, "not a directory\n")?;
    set_read_only(env.home(), true)?;
    let probe = env.home().join("probe");
    let chmod_works = std::fs::write(&probe, "x").is_err();
    if !chmod_works {
        // Running as root: permissions are not enforced; the `.index` file still is.
        std::fs::remove_file(&probe)?;
        eprintln!(
            "a_read_only_store_still_answers: permissions are not enforced here (root); \
             checking with `.index` as a regular file only"
        );
    }
    let after: Result<Vec<_>, Box<dyn std::error::Error>> = RECALLS
        .iter()
        .map(|(w, s, n)| cli_recall(&env, w, *s, n).and_then(|v| ids(&v)))
        .collect();
    set_read_only(env.home(), false)?;
    let after = after?;
    for ((recall, b), a) in RECALLS.iter().zip(&before).zip(&after) {
        assert!(!b.is_empty(), "{recall:?}: nothing recalled");
        assert_eq!(a, b, "{recall:?}: the read-only store answers differently");
    }
    Ok(())
}
