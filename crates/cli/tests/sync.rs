//! `goldfish sync`, `goldfish merge-driver` and `goldfish init --in-repo` with the real
//! binary, real git and local bare repositories (nothing leaves the machine).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use goldfish_store::chrono::NaiveDate;

use crate::util::{TestResult, bin};

const WS: &str = "shared";

/// `goldfish args…` with the store at `home`, the workspace `shared`, run in `cwd`.
fn goldfish(home: &Path, cwd: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args(args)
        .current_dir(cwd)
        .env("GOLDFISH_HOME", home)
        .env("GOLDFISH_WORKSPACE", WS)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null());
    c
}

fn check(args: &[&str], out: Output) -> Result<String, Box<dyn std::error::Error>> {
    if !out.status.success() {
        return Err(format!(
            "goldfish {args:?} exited {:?}\nstdout: {}\nstderr: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs goldfish in `home` (its parent as working directory); requires success.
fn ok(home: &Path, args: &[&str]) -> Result<String, Box<dyn std::error::Error>> {
    let cwd = home.parent().ok_or("home has a parent")?;
    check(args, goldfish(home, cwd, args).output()?)
}

fn json(home: &Path, args: &[&str]) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let text = ok(home, &all)?;
    Ok(serde_json::from_str(&text).map_err(|e| format!("{args:?}: {e}: {text}"))?)
}

/// git in `dir` with a fixed identity; requires success.
fn git(dir: &Path, args: &[&str]) -> Result<String, Box<dyn std::error::Error>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=test", "-c", "user.email=test@localhost"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()?;
    if !out.status.success() {
        return Err(format!(
            "git {args:?} in {}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A bare remote and two homes `a` and `b` set up to sync with it through the binary.
fn homes(dir: &Path) -> Result<(PathBuf, PathBuf), Box<dyn std::error::Error>> {
    let remote = dir.join("remote.git");
    git(dir, &["init", "-q", "--bare", "-b", "main", "remote.git"])?;
    let remote = remote.to_str().ok_or("utf8 path")?;
    let (a, b) = (dir.join("a"), dir.join("b"));
    for home in [&a, &b] {
        let report = json(home, &["sync", "init", "--remote", remote])?;
        assert_eq!(report["created_repository"], true, "{report}");
        assert_eq!(report["remote"], remote);
    }
    // Idempotent.
    let head = git(&a, &["rev-parse", "HEAD"])?;
    assert_eq!(json(&a, &["sync", "init"])?["created_repository"], false);
    assert_eq!(git(&a, &["rev-parse", "HEAD"])?, head);
    let driver = git(&a, &["config", "merge.goldfish.driver"])?;
    assert!(
        driver.contains(bin()) && driver.contains("merge-driver %O %A %B %P"),
        "{driver}"
    );
    Ok((a, b))
}

/// Syncs a, b, a, then checks both are identical, clean and fully pushed.
fn converge(a: &Path, b: &Path) -> TestResult {
    for home in [a, b, a] {
        json(home, &["sync"])?;
    }
    assert_eq!(
        git(a, &["rev-parse", "HEAD"])?,
        git(b, &["rev-parse", "HEAD"])?
    );
    for home in [a, b] {
        assert_eq!(
            git(home, &["status", "--porcelain"])?,
            "",
            "{}",
            home.display()
        );
        assert_eq!(git(home, &["ls-files", "-u"])?, "", "no unmerged files");
        assert!(!home.join(".git/MERGE_HEAD").exists());
        let status = json(home, &["sync", "status"])?;
        assert_eq!(
            (&status["ahead"], &status["behind"]),
            (&0.into(), &0.into())
        );
        assert_eq!(status["unsynced"], serde_json::json!([]), "{status}");
        let text = ok(home, &["sync", "status"])?;
        assert!(text.contains("ahead 0 · behind 0") && text.contains("Nothing unsynced"));
    }
    Ok(())
}

/// The checkpoints `goldfish recall` shows in `home`: id → description.
fn recalled(
    home: &Path,
    cwd: &Path,
) -> Result<BTreeMap<String, String>, Box<dyn std::error::Error>> {
    let args = ["--json", "recall", "--days", "7", "-n", "100000"];
    let text = check(&args, goldfish(home, cwd, &args).output()?)?;
    let v: serde_json::Value = serde_json::from_str(&text)?;
    assert_eq!(
        v["skipped"],
        serde_json::json!([]),
        "every entry reads: {v}"
    );
    let mut out = BTreeMap::new();
    for c in v["checkpoints"].as_array().ok_or("checkpoints")? {
        let id = c["id"].as_str().ok_or("id")?.to_string();
        let description = c["description"].as_str().ok_or("description")?.to_string();
        assert!(out.insert(id, description).is_none(), "an id shown twice");
    }
    Ok(out)
}

/// Every day file of `dir` (a workspace's `checkpoints/`) parses without a problem and holds
/// no conflict marker; returns how many entries they hold.
fn day_files_parse(dir: &Path, workspace: &str) -> Result<usize, Box<dyn std::error::Error>> {
    let mut entries = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".md").filter(|_| !name.starts_with('.')) else {
            continue;
        };
        let date = NaiveDate::parse_from_str(stem, "%Y-%m-%d")?;
        let text = std::fs::read_to_string(entry.path())?;
        assert_no_markers(&text, &entry.path());
        let day = goldfish_store::parse_day_file(&text, workspace, date);
        assert!(day.problems.is_empty(), "{name}: {:?}", day.problems);
        entries += day.checkpoints.len();
    }
    Ok(entries)
}

fn assert_no_markers(text: &str, path: &Path) {
    for line in text.lines() {
        for marker in ["<<<<<<<", "=======", ">>>>>>>"] {
            assert!(
                !line.starts_with(marker),
                "{}: conflict marker {line:?}",
                path.display()
            );
        }
    }
}

/// Every file of `dir` but git's own and lock files, with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == ".git" || goldfish_core::fs::is_lock_file_name(&name) {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.insert(
                    path.strip_prefix(root).unwrap_or(&path).to_path_buf(),
                    bytes,
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Four `goldfish checkpoint` processes on each of two homes save 50 checkpoints each into
/// one workspace and day while each home runs `goldfish sync` in a loop; after a final sync
/// both hold the same 400 checkpoints.
#[test]
fn concurrent_checkpoints_and_syncs_on_two_homes_converge() -> TestResult {
    const WRITERS: usize = 4;
    const EACH: usize = 50;
    let dir = tempfile::tempdir()?;
    let (a, b) = homes(dir.path())?;
    let mut expected = BTreeSet::new();
    for side in ["a", "b"] {
        for w in 0..WRITERS {
            for i in 0..EACH {
                expected.insert(format!("{side} writer {w} entry {i}"));
            }
        }
    }
    let loop_syncs = std::thread::scope(|s| -> Result<usize, String> {
        let mut syncers = Vec::new();
        let mut writers = Vec::new();
        let mut flags = Vec::new();
        for (side, home) in [("a", &a), ("b", &b)] {
            let done = std::sync::Arc::new(AtomicBool::new(false));
            flags.push(done.clone());
            let sync_home = home.clone();
            syncers.push(s.spawn(move || -> Result<usize, String> {
                let home = sync_home;
                let mut ran = 0;
                loop {
                    let out = goldfish(&home, &home, &["sync"])
                        .output()
                        .map_err(|e| e.to_string())?;
                    ran += 1;
                    let stderr = String::from_utf8_lossy(&out.stderr);
                    // Two homes pushing in a loop may outrun the bounded retries; anything
                    // else is a failure.
                    if !out.status.success() && !stderr.contains("the remote kept moving") {
                        return Err(format!("sync in {}: {stderr}", home.display()));
                    }
                    if done.load(Ordering::SeqCst) {
                        return Ok(ran);
                    }
                }
            }));
            let mut side_writers = Vec::new();
            for w in 0..WRITERS {
                let home = home.clone();
                side_writers.push(s.spawn(move || -> Result<(), String> {
                    for i in 0..EACH {
                        let text = format!("{side} writer {w} entry {i}");
                        let out = goldfish(&home, &home, &["checkpoint", &text, "-t", side])
                            .output()
                            .map_err(|e| e.to_string())?;
                        if !out.status.success() {
                            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
                        }
                    }
                    Ok(())
                }));
            }
            writers.push(side_writers);
        }
        let mut first_error = None;
        for (side_writers, done) in writers.into_iter().zip(&flags) {
            for w in side_writers {
                if let Err(e) = w.join().map_err(|_| "writer panicked".to_string())? {
                    first_error.get_or_insert(e);
                }
            }
            done.store(true, Ordering::SeqCst);
        }
        let mut ran = 0;
        for h in syncers {
            match h.join().map_err(|_| "sync loop panicked".to_string())? {
                Ok(n) => ran += n,
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        first_error.map_or(Ok(ran), Err)
    })?;
    assert!(loop_syncs >= 2);
    converge(&a, &b)?;
    let on_a = recalled(&a, &a)?;
    let on_b = recalled(&b, &b)?;
    assert_eq!(on_a.len(), 400);
    assert_eq!(on_a, on_b, "both homes hold the same checkpoints");
    let descriptions: BTreeSet<String> = on_a.into_values().collect();
    assert_eq!(
        descriptions, expected,
        "exactly the 400 saved, none lost or doubled"
    );
    for home in [&a, &b] {
        let entries = day_files_parse(&home.join(WS).join("checkpoints"), WS)?;
        assert_eq!(entries, 400);
        let grep = Command::new("git")
            .arg("-C")
            .arg(home)
            .args(["grep", "-n", "-e", "^<<<<<<<", "-e", "^>>>>>>>"])
            .output()?;
        assert!(
            grep.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&grep.stdout)
        );
        let log = git(home, &["log", "--format=%s"])?;
        assert!(
            log.lines().all(|l| !l.to_lowercase().contains("conflict")),
            "{log}"
        );
    }
    Ok(())
}

/// Plans edited on both homes through `goldfish plan`: every edit is kept, a clash on the
/// same lines is reported by `sync` and by `plan get`, and the newer `.active-plan` wins.
#[test]
fn plans_and_the_active_plan_edited_on_both_homes() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (a, b) = homes(dir.path())?;
    let body =
        "- [ ] one\n- [ ] two\n- [ ] three\n- [ ] four\n- [ ] five\n- [ ] six\n- [ ] seven\n";
    ok(
        &a,
        &[
            "plan", "save", "--title", "Shared", "--id", "shared", "-c", body,
        ],
    )?;
    ok(
        &a,
        &[
            "plan",
            "save",
            "--title",
            "Clash",
            "--id",
            "clash",
            "-c",
            "first line\n",
        ],
    )?;
    json(&a, &["sync"])?;
    json(&b, &["sync"])?;
    assert_eq!(json(&b, &["plan", "get", "shared"])?["content"], body);

    // Different lines of one plan, and the same line of another.
    let on_a = body.replace("- [ ] one", "- [x] one (done on a)");
    let on_b = body.replace("- [ ] seven", "- [x] seven (done on b)");
    ok(&a, &["plan", "update", "shared", "-c", &on_a])?;
    ok(&b, &["plan", "update", "shared", "-c", &on_b])?;
    ok(
        &a,
        &[
            "plan",
            "update",
            "clash",
            "-c",
            "first line, as a wrote it\n",
        ],
    )?;
    ok(
        &b,
        &[
            "plan",
            "update",
            "clash",
            "-c",
            "first line, as b wrote it\n",
        ],
    )?;
    // New plans on each side; b's is saved (and activated) last, so it is the newer choice.
    ok(
        &a,
        &[
            "plan",
            "save",
            "--title",
            "Only on a",
            "--id",
            "only-a",
            "-c",
            "- [ ] a\n",
        ],
    )?;
    ok(
        &b,
        &[
            "plan",
            "save",
            "--title",
            "Only on b",
            "--id",
            "only-b",
            "-c",
            "- [ ] b\n",
        ],
    )?;

    json(&a, &["sync"])?;
    let report = json(&b, &["sync"])?;
    assert_eq!(report["merged"], true, "{report}");
    let conflicts = report["plan_conflicts"]
        .as_array()
        .ok_or("plan_conflicts")?;
    assert!(
        conflicts.len() == 1
            && conflicts[0]
                .as_str()
                .is_some_and(|p| p.ends_with("clash.md")),
        "{report}"
    );
    converge(&a, &b)?;

    for home in [&a, &b] {
        let shared = json(home, &["plan", "get", "shared"])?;
        let content = shared["content"].as_str().ok_or("content")?;
        assert!(
            content.contains("(done on a)") && content.contains("(done on b)"),
            "{content}"
        );
        assert_eq!(shared["merge_conflict"], false);
        let clash = json(home, &["plan", "get", "clash"])?;
        let content = clash["content"].as_str().ok_or("content")?;
        assert!(
            content.contains("as a wrote it") && content.contains("as b wrote it"),
            "{content}"
        );
        assert_eq!(clash["merge_conflict"], true, "{clash}");
        let text = ok(home, &["plan", "get", "clash"])?;
        assert!(text.contains("Merge conflict"), "{text}");
        let list = json(home, &["plan", "list"])?;
        let ids: BTreeSet<&str> = list["plans"]
            .as_array()
            .ok_or("plans")?
            .iter()
            .filter_map(|p| p["id"].as_str())
            .collect();
        assert_eq!(ids, BTreeSet::from(["clash", "only-a", "only-b", "shared"]));
        assert_eq!(
            list["active"], "only-b",
            "the newer active plan wins: {list}"
        );
        assert_eq!(json(home, &["plan", "get"])?["id"], "only-b");
    }
    Ok(())
}

/// SIGKILL of `goldfish sync` (and its git processes) at spread-out instants, 20 times: the
/// store stays readable with every entry, the next sync completes, nothing is lost.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_sync_loses_nothing() -> TestResult {
    use std::os::unix::process::CommandExt as _;
    const ROUNDS: u64 = 20;
    let dir = tempfile::tempdir()?;
    let (a, b) = homes(dir.path())?;
    // The remote's side runs in a session of its own, so killing the sync's process group
    // kills the client side only, as when the machine running sync dies.
    git(
        &a,
        &[
            "config",
            "remote.origin.receivepack",
            "setsid git-receive-pack",
        ],
    )?;
    let mut expected = BTreeSet::new();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for round in 0..ROUNDS {
        let text = format!("b {round}");
        ok(&b, &["checkpoint", &text])?;
        expected.insert(text);
        json(&b, &["sync"])?;
        for part in ["one", "two"] {
            let text = format!("a {round} {part}");
            ok(&a, &["checkpoint", &text])?;
            expected.insert(text);
        }
        let mut child = goldfish(&a, &a, &["sync"])
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        // Where the kill lands, spread over a sync's run: not a synchronisation, since every
        // instant must be safe.
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        std::thread::sleep(std::time::Duration::from_millis((seed >> 33) % 200));
        let group = format!("-{}", child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .status()?;
        let _ = child.wait()?;
        // Readable, and every entry saved here is still here.
        let here: BTreeSet<String> = recalled(&a, &a)?.into_values().collect();
        for text in expected.iter().filter(|t| t.starts_with("a ")) {
            assert!(here.contains(text), "round {round}: {text} lost");
        }
        day_files_parse(&a.join(WS).join("checkpoints"), WS)?;
    }
    converge(&a, &b)?;
    for home in [&a, &b] {
        let all: BTreeSet<String> = recalled(home, home)?.into_values().collect();
        assert_eq!(all, expected, "{}", home.display());
    }
    Ok(())
}

/// Runs `goldfish sync` in `home` after a local save: exit 1, a clear message holding
/// `words`, and not one byte of the store changed.
fn sync_fails_untouched(home: &Path, path: Option<&Path>, words: &str) -> TestResult {
    ok(home, &["checkpoint", "Local work that must survive"])?;
    let before = snapshot(home);
    let mut cmd = goldfish(home, home, &["sync"]);
    if let Some(path) = path {
        cmd.env("PATH", path);
    }
    let out = cmd.output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("goldfish: error: ") && stderr.contains(words),
        "{stderr}"
    );
    assert_eq!(snapshot(home), before, "the store is untouched");
    assert!(!home.join(".git/MERGE_HEAD").exists());
    Ok(())
}

#[test]
fn sync_failures_are_clear_and_change_nothing() -> TestResult {
    let dir = tempfile::tempdir()?;
    let root = dir.path();
    let path_of = |p: &Path| p.to_str().map(str::to_string).ok_or("utf8 path");

    // Not set up yet, and no remote.
    let fresh = root.join("fresh");
    std::fs::create_dir(&fresh)?;
    sync_fails_untouched(&fresh, None, "goldfish sync init")?;
    let lonely = root.join("lonely");
    ok(&lonely, &["sync", "init"])?;
    sync_fails_untouched(&lonely, None, "--remote")?;

    // The remote is missing, or refuses connections (port 9 on the loopback).
    let missing = root.join("missing");
    ok(
        &missing,
        &[
            "sync",
            "init",
            "--remote",
            &path_of(&root.join("nowhere.git"))?,
        ],
    )?;
    sync_fails_untouched(&missing, None, "cannot be reached")?;
    let refused = root.join("refused");
    ok(
        &refused,
        &["sync", "init", "--remote", "http://127.0.0.1:9/memory.git"],
    )?;
    sync_fails_untouched(&refused, None, "cannot be reached")?;

    // The remote rejects the push (a pre-receive hook).
    git(root, &["init", "-q", "--bare", "-b", "main", "closed.git"])?;
    let hook = root.join("closed.git/hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'pushes are closed today' >&2\nexit 1\n",
    )?;
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755))?;
    }
    let rejected = root.join("rejected");
    ok(
        &rejected,
        &[
            "sync",
            "init",
            "--remote",
            &path_of(&root.join("closed.git"))?,
        ],
    )?;
    sync_fails_untouched(&rejected, None, "pushes are closed today")?;

    // git is not on PATH.
    let empty = root.join("empty-bin");
    std::fs::create_dir(&empty)?;
    sync_fails_untouched(&missing, Some(&empty), "not installed or not on PATH")?;
    // Memory in a repository needs a repository.
    let plain = root.join("plain");
    std::fs::create_dir(&plain)?;
    let out = goldfish(&missing, &plain, &["init", "--in-repo"]).output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("needs a git repository"), "{stderr}");
    assert!(!plain.join(".goldfish").exists());
    let out = goldfish(&missing, &missing, &["sync", "status"])
        .env("PATH", &empty)
        .output()?;
    assert_eq!(out.status.code(), Some(1));
    Ok(())
}

/// `goldfish init --in-repo`: two branches add checkpoints on the same day and edit the same
/// plan; `git merge` (through `goldfish merge-driver`) gives the union, no conflict markers,
/// and `goldfish recall` in the repository finds both sides' checkpoints.
#[test]
fn memory_in_the_repository_merges_across_branches() -> TestResult {
    let dir = tempfile::tempdir()?;
    let home = dir.path().join("home");
    let repo = dir.path().join("proj");
    std::fs::create_dir(&repo)?;
    git(&repo, &["init", "-q", "-b", "main"])?;
    std::fs::write(repo.join("README.md"), "proj\n")?;
    git(&repo, &["add", "README.md"])?;
    git(&repo, &["commit", "-q", "-m", "first"])?;
    // The workspace is the repository's (no GOLDFISH_WORKSPACE).
    let run = |args: &[&str]| -> Result<String, Box<dyn std::error::Error>> {
        let mut cmd = goldfish(&home, &repo, args);
        cmd.env_remove("GOLDFISH_WORKSPACE");
        check(args, cmd.output()?)
    };
    let init: serde_json::Value = serde_json::from_str(&run(&["--json", "init", "--in-repo"])?)?;
    assert_eq!(init["workspace"], "proj", "{init}");
    assert!(git(&repo, &["config", "merge.goldfish.driver"])?.contains("merge-driver"));
    assert!(
        std::fs::read_to_string(repo.join(".goldfish/.gitattributes"))?.contains("merge=goldfish")
    );
    let body =
        "- [ ] one\n- [ ] two\n- [ ] three\n- [ ] four\n- [ ] five\n- [ ] six\n- [ ] seven\n";
    run(&[
        "plan", "save", "--title", "Release", "--id", "release", "-c", body,
    ])?;
    git(&repo, &["add", "-A"])?;
    git(&repo, &["commit", "-q", "-m", "plan"])?;

    git(&repo, &["checkout", "-q", "-b", "feature"])?;
    for i in 0..3 {
        run(&["checkpoint", &format!("feature work {i}")])?;
    }
    run(&[
        "plan",
        "update",
        "release",
        "-c",
        &body.replace("- [ ] one", "- [x] one (feature)"),
    ])?;
    git(&repo, &["add", "-A"])?;
    git(&repo, &["commit", "-q", "-m", "feature memory"])?;

    git(&repo, &["checkout", "-q", "main"])?;
    for i in 0..3 {
        run(&["checkpoint", &format!("main work {i}")])?;
    }
    run(&[
        "plan",
        "update",
        "release",
        "-c",
        &body.replace("- [ ] seven", "- [x] seven (main)"),
    ])?;
    git(&repo, &["add", "-A"])?;
    git(&repo, &["commit", "-q", "-m", "main memory"])?;

    git(&repo, &["merge", "-q", "--no-edit", "feature"])?;
    assert_eq!(git(&repo, &["status", "--porcelain"])?, "");
    let checkpoints = repo.join(".goldfish/proj/checkpoints");
    assert_eq!(day_files_parse(&checkpoints, "proj")?, 6);
    let plan = std::fs::read_to_string(repo.join(".goldfish/proj/plans/release.md"))?;
    assert_no_markers(&plan, Path::new("release.md"));
    assert!(
        plan.contains("(feature)") && plan.contains("(main)"),
        "{plan}"
    );

    // Nothing went to the home store; recall and standup in the repository read it.
    assert!(!home.join("proj").exists());
    let mut cmd = goldfish(&home, &repo.join(".goldfish"), &["--json", "recall"]);
    cmd.env_remove("GOLDFISH_WORKSPACE").current_dir(&repo);
    let found: BTreeSet<String> = {
        let v: serde_json::Value = serde_json::from_str(&check(&["recall"], cmd.output()?)?)?;
        v["checkpoints"]
            .as_array()
            .ok_or("checkpoints")?
            .iter()
            .filter_map(|c| c["description"].as_str().map(str::to_string))
            .collect()
    };
    let want: BTreeSet<String> = (0..3)
        .flat_map(|i| [format!("feature work {i}"), format!("main work {i}")])
        .collect();
    assert_eq!(found, want);
    let standup: serde_json::Value = serde_json::from_str(&run(&["--json", "standup"])?)?;
    assert!(standup.to_string().contains("\"proj\""), "{standup}");
    let plan = run(&["--json", "plan", "get"])?;
    assert!(
        plan.contains("(feature)") && plan.contains("(main)"),
        "{plan}"
    );
    Ok(())
}

/// The ids a recall shows, in order, with `extra` arguments.
fn recalled_ids(home: &Path, extra: &[&str]) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let mut args = vec!["recall", "--days", "7"];
    args.extend_from_slice(extra);
    let v = json(home, &args)?;
    Ok(v["checkpoints"]
        .as_array()
        .ok_or("checkpoints")?
        .iter()
        .filter_map(|c| c["id"].as_str().map(str::to_string))
        .collect())
}

#[test]
fn supersession_travels_with_sync_and_both_homes_agree() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (a, b) = homes(dir.path())?;
    let id_of = |v: serde_json::Value| v["id"].as_str().map(str::to_string).ok_or("an id");
    // Each machine saves; b's decision is then synced to a.
    let on_a = id_of(json(
        &a,
        &["checkpoint", "Builds run on machine A's runner"],
    )?)?;
    let on_b = id_of(json(
        &b,
        &[
            "checkpoint",
            "Builds cache in S3",
            "--type",
            "decision",
            "--topic",
            "build-cache",
        ],
    )?)?;
    converge(&a, &b)?;
    // a supersedes b's checkpoint (by id) and, by topic, b's decision; b saves one more.
    let replacing = id_of(json(
        &a,
        &[
            "checkpoint",
            "Builds cache on local disk",
            "--type",
            "decision",
            "--topic",
            "build-cache",
        ],
    )?)?;
    // The id given on b names a's checkpoint, which b has since the first sync.
    let by_id = id_of(json(
        &b,
        &[
            "checkpoint",
            "Builds run on the shared runner",
            "--supersedes",
            &on_a,
        ],
    )?)?;
    // Before the sync, b does not know a's link yet.
    assert!(recalled_ids(&b, &[])?.contains(&on_b));
    converge(&a, &b)?;
    for home in [&a, &b] {
        let current = recalled_ids(home, &[])?;
        assert_eq!(
            current,
            [by_id.clone(), replacing.clone()],
            "{}",
            home.display()
        );
        let everything = recalled_ids(home, &["--include-superseded"])?;
        assert_eq!(everything.len(), 4, "{everything:?}");
        let shown = json(home, &["show", &on_b])?;
        assert_eq!(
            shown["superseded_by"][0]["id"],
            replacing.as_str(),
            "{shown}"
        );
        let shown = json(home, &["show", &on_a])?;
        assert_eq!(shown["superseded_by"][0]["id"], by_id.as_str(), "{shown}");
    }
    assert_eq!(day_files_parse(&a.join(WS).join("checkpoints"), WS)?, 4);
    Ok(())
}
