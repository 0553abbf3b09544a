//! Recall as real processes, whatever the recall keeps beside the day files: a recall sees
//! every save that finished before it started, a read-only store still answers, and the
//! binary answers what the library's `recall()` answers.
//!
//! These hold with or without the persistent index under `$GOLDFISH_HOME/.index/`. With it:
//! `goldfish index rebuild` killed (SIGKILL) at several points of its work leaves a store
//! whose next recall answers as the day files do, and a garbage or truncated index file is
//! rebuilt with one line on stderr.
//!
//! No test relies on timing: the order of events is recorded by the test itself (a save's
//! sequence number is published only after its process exited; a kill point is a state of
//! the index directory the test saw), the assertions hold wherever a kill lands, and every
//! loop is bounded.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use goldfish_recall::{RecallOptions, Scope};
use goldfish_store::{Checkpoint, Store, format_day_file};

use crate::util::{Env, TestResult, corpus};

/// Writes the corpus under `home` as day files, as the store writes them.
fn write_corpus(home: &Path) -> TestResult {
    write_corpus_split(home, 1)
}

/// Writes the corpus under `home`, each project's checkpoints dealt over `variants`
/// workspaces (`ripgrep-0`, `ripgrep-1`, …) when `variants > 1`.
fn write_corpus_split(home: &Path, variants: usize) -> TestResult {
    let mut days: BTreeMap<(String, chrono::NaiveDate), Vec<Checkpoint>> = BTreeMap::new();
    for (i, mut c) in corpus()?.into_iter().enumerate() {
        if variants > 1 {
            c.workspace = format!("{}-{}", c.workspace, i % variants);
        }
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
    Ok(cli_recall_out(env, workspace, search, limit, true)?.0)
}

/// `goldfish --json recall` over every date: the answer and stderr. `index: false` sets
/// `GOLDFISH_NO_INDEX=1` (the day files alone).
fn cli_recall_out(
    env: &Env,
    workspace: &str,
    search: Option<&str>,
    limit: &str,
    index: bool,
) -> Result<(serde_json::Value, String), Box<dyn std::error::Error>> {
    let mut args = vec![
        "--json",
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
    let mut cmd = env.cmd(&args);
    if !index {
        cmd.env("GOLDFISH_NO_INDEX", "1");
    }
    let out = cmd.output()?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(format!("{args:?} failed ({}): {stderr}", out.status).into());
    }
    let v = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "{args:?}: not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })?;
    Ok((v, stderr))
}

/// A store with no index: the binary's first recall (which builds the index) and its second
/// (which reads it) answer what the library's `recall()` answers from the day files.
#[test]
fn a_store_without_index_answers_what_the_library_answers() -> TestResult {
    let env = Env::new()?;
    write_corpus(env.home())?;
    for (round, (workspace, search, limit)) in RECALLS.into_iter().chain(RECALLS).enumerate() {
        let got = cli_recall(&env, workspace, search, limit)?;
        let store = Store::open(env.home())?.with_repo_memory(env.cwd.path());
        let mut o = RecallOptions::default();
        o.workspace = Scope::from(workspace);
        o.from = Some("2000-01-01".into());
        o.search = search.map(String::from);
        o.limit = limit.parse()?;
        o.cwd = Some(env.cwd.path().to_path_buf());
        o.use_index = false;
        let want = goldfish_recall::recall(&store, &o)?;
        let want_ids: Vec<String> = want.checkpoints().map(|c| c.id.clone()).collect();
        let what = format!("round {round}: recall -w {workspace} {search:?} -n {limit}");
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
            .zip(want.checkpoints())
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
/// home's `.index` is also made a regular file: the index cannot be written either way. The
/// answers must be those of the same store before, and a search says on stderr, in one line,
/// that it answered without writing the index.
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
        .map(|(w, s, n)| {
            let (v, stderr) = cli_recall_out(&env, w, *s, n, true)?;
            Ok((ids(&v)?, stderr))
        })
        .collect();
    set_read_only(env.home(), false)?;
    let after = after?;
    for ((recall, b), (a, stderr)) in RECALLS.iter().zip(&before).zip(&after) {
        assert!(!b.is_empty(), "{recall:?}: nothing recalled");
        assert_eq!(a, b, "{recall:?}: the read-only store answers differently");
        if recall.1.is_some() {
            assert_eq!(stderr.lines().count(), 1, "{recall:?}: one note: {stderr}");
            assert!(
                stderr.contains("index"),
                "{recall:?}: the note names the index: {stderr}"
            );
        } else {
            assert!(
                stderr.lines().count() <= 1,
                "{recall:?}: at most one note: {stderr}"
            );
        }
    }
    assert!(index.is_file(), "the `.index` file is left as it was");
    Ok(())
}

/// The answer of the search recall the index tests compare (ids, total, per-workspace
/// counts), and stderr.
fn search_answer(env: &Env, index: bool) -> Result<(String, String), Box<dyn std::error::Error>> {
    let (v, stderr) = cli_recall_out(env, "all", Some("timezone offset parsing"), "50", index)?;
    let key = serde_json::json!([v["checkpoints"], v["total"], v["workspaces"]]);
    Ok((key.to_string(), stderr))
}

/// How far `goldfish index rebuild` got before the kill, judged from the index directory.
#[derive(Debug, Clone, Copy)]
enum KillPoint {
    /// Right after the spawn.
    AtOnce,
    /// Once `.index/` exists.
    DirectoryMade,
    /// Once one index file (or its temporary file) is there.
    FirstFile,
    /// Once a temporary file is there (a write under way).
    MidWrite,
    /// Once half the workspaces have their index file.
    Half,
    /// Never: the rebuild finishes.
    Never,
}

/// Entries of `.index/`: (final index files, temporary files).
fn index_entries(home: &Path) -> (usize, usize) {
    let Ok(entries) = std::fs::read_dir(home.join(".index")) else {
        return (0, 0);
    };
    let mut files = 0;
    let mut temps = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".tmp") {
            temps += 1;
        } else if name.ends_with(".gfi") {
            files += 1;
        }
    }
    (files, temps)
}

/// `goldfish index rebuild` killed (SIGKILL) at several points of its work: whichever it
/// reached (a point it did not reach before finishing is a finished rebuild), the next
/// search answers exactly as the day files do, says at most one line on stderr, and leaves
/// an index that `goldfish index verify` accepts.
#[cfg(unix)]
#[test]
fn a_killed_index_rebuild_leaves_correct_answers() -> TestResult {
    const WORKSPACES: usize = 5;
    let env = Env::new()?;
    write_corpus_split(env.home(), WORKSPACES)?;
    let (want, _) = search_answer(&env, false)?;
    let total = 6 * WORKSPACES;
    let points = [
        KillPoint::AtOnce,
        KillPoint::DirectoryMade,
        KillPoint::FirstFile,
        KillPoint::MidWrite,
        KillPoint::Half,
        KillPoint::Never,
    ];
    for round in 0..2 {
        for point in points {
            // Round 0 rebuilds from nothing; round 1 over the previous round's index.
            if round == 0 {
                let _ = std::fs::remove_dir_all(env.home().join(".index"));
            }
            let mut child = env
                .cmd(&["--workspace", "all", "index", "rebuild"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()?;
            // Polls the directory until the point is reached or the rebuild ended: at most
            // 200,000 polls (the rebuild ends long before on any machine).
            let mut reached = matches!(point, KillPoint::AtOnce);
            let mut polls = 0u32;
            while !reached && child.try_wait()?.is_none() && polls < 200_000 {
                let (files, temps) = index_entries(env.home());
                reached = match point {
                    KillPoint::AtOnce => true,
                    KillPoint::DirectoryMade => env.home().join(".index").is_dir(),
                    KillPoint::FirstFile => files + temps > 0,
                    KillPoint::MidWrite => temps > 0,
                    KillPoint::Half => files >= total / 2,
                    KillPoint::Never => false,
                };
                polls += 1;
                std::thread::yield_now();
            }
            if !matches!(point, KillPoint::Never) {
                let _ = child.kill(); // SIGKILL; an error means it had already exited
            }
            child.wait()?;
            let what = format!("round {round}, kill {point:?} (reached: {reached})");
            eprintln!("{what}");
            let (got, stderr) = search_answer(&env, true)?;
            assert_eq!(got, want, "{what}: the search after the kill");
            assert!(stderr.lines().count() <= 1, "{what}: {stderr}");
            let out = env.run(&["--workspace", "all", "index", "verify"])?;
            assert_eq!(
                out.0.status.code(),
                Some(0),
                "{what}: verify after the search: {}{}",
                out.stdout(),
                out.stderr()
            );
        }
    }
    Ok(())
}

/// An index file replaced by garbage, emptied or cut short is rebuilt by the next search,
/// which answers as the day files do and says so in one line naming the file; the search
/// after that says nothing.
#[test]
fn a_garbage_index_file_is_rebuilt_with_one_line() -> TestResult {
    let env = Env::new()?;
    write_corpus_split(env.home(), 2)?;
    let (want, _) = search_answer(&env, false)?;
    let (got, stderr) = search_answer(&env, true)?;
    assert_eq!(got, want, "the first search, which builds the index");
    assert!(stderr.is_empty(), "{stderr}");
    let file = env.home().join(".index").join("ripgrep-1.gfi");
    let good = std::fs::read(&file)
        .map_err(|e| format!("{}: {e} (where is the index?)", file.display()))?;
    let garbage: Vec<u8> = b"garbage!"
        .iter()
        .copied()
        .cycle()
        .take(good.len())
        .collect();
    let damages: [(&str, Vec<u8>); 4] = [
        ("garbage of the same length", garbage),
        ("empty", Vec::new()),
        ("the first 16 bytes", good[..16.min(good.len())].to_vec()),
        ("the first half", good[..good.len() / 2].to_vec()),
    ];
    for (what, bytes) in damages {
        std::fs::write(&file, &bytes)?;
        let (got, stderr) = search_answer(&env, true)?;
        assert_eq!(got, want, "{what}: the answer");
        assert_eq!(stderr.lines().count(), 1, "{what}: one line: {stderr}");
        assert!(
            stderr.contains("ripgrep-1.gfi"),
            "{what}: names the file: {stderr}"
        );
        let (got, stderr) = search_answer(&env, true)?;
        assert_eq!(got, want, "{what}: the answer after the rebuild");
        assert!(stderr.is_empty(), "{what}: nothing more to say: {stderr}");
        env.ok(&["--workspace", "all", "index", "verify"])?;
    }
    Ok(())
}
