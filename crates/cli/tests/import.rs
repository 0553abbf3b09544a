//! `goldfish import` and `goldfish export` through the real binary: exit codes, dry runs,
//! imports beside other writers, and an import killed half-way.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::util::{Env, TestResult, contains_all};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../import/tests/fixtures")
}

/// A JSON Lines export of `n` checkpoints in two workspaces: over 28 days of March 2026, or
/// all on `day` (`YYYY-MM-DD`) when given.
fn bulk_jsonl(path: &Path, n: usize, day: Option<&str>) -> std::io::Result<()> {
    let mut text = String::new();
    for i in 0..n {
        let record = json!({
            "kind": "checkpoint",
            "workspace": if i % 2 == 0 { "bulk-a" } else { "bulk-b" },
            "id": format!("bulk-{i:05}"),
            "timestamp": match day {
                Some(d) => format!("{d}T00:{:02}:{:02}.{:03}Z", (i / 60) % 60, i % 60, i % 1000),
                None => format!("2026-03-{:02}T{:02}:{:02}:00Z", 1 + i % 28, (i / 28) % 24, i % 60),
            },
            "type": "checkpoint",
            "description": format!("Bulk entry {i}\nwith a body"),
            "tags": ["bulk"],
        });
        text.push_str(&record.to_string());
        text.push('\n');
    }
    std::fs::write(path, text)
}

#[test]
fn import_tusk_twice_and_dry_run() -> TestResult {
    let env = Env::new()?;
    let db = fixtures().join("tusk/journal.db");
    let db = db.to_str().ok_or("path")?;
    let out = env.ok(&["import", "--dry-run", "tusk", db])?;
    contains_all(
        &out,
        &[
            "Would import",
            "harbor-api: 21 checkpoint(s), 3 plan(s)",
            "kelp-scripts: 8 checkpoint(s), 0 plan(s)",
        ],
    )?;
    assert!(
        !env.home().join("harbor-api").exists(),
        "a dry run writes nothing"
    );
    // On a pipe: no progress bar, nothing on stderr.
    let out = env.run(&["import", "tusk", db])?;
    assert_eq!(out.stderr(), "");
    let v: serde_json::Value = serde_json::from_str(&env.ok(&["--json", "import", "tusk", db])?)?;
    assert_eq!(v["verified"], true);
    assert_eq!(v["workspaces"][0]["checkpoints_present"], 21);
    std::fs::remove_dir_all(env.home())?;
    std::fs::create_dir_all(env.home())?;
    let v = env.json(&["import", "tusk", db])?;
    assert_eq!(v["verified"], true);
    assert_eq!(v["workspaces"][0]["checkpoints_added"], 21);
    let first = env.ok(&["-w", "all", "export"])?;
    let v = env.json(&["import", "tusk", db])?;
    assert_eq!(v["workspaces"][0]["checkpoints_added"], 0);
    assert_eq!(v["workspaces"][0]["checkpoints_present"], 21);
    assert_eq!(env.ok(&["-w", "all", "export"])?, first, "no duplicates");
    // Imported memories are recalled like any others.
    let r = env.ok(&[
        "-w",
        "harbor-api",
        "recall",
        "--days",
        "100000",
        "--search",
        "postgres",
    ])?;
    assert!(r.contains("Postgres"), "{r}");
    Ok(())
}

#[test]
fn export_then_import_into_an_empty_store_is_byte_identical() -> TestResult {
    let env = Env::new()?;
    let db = fixtures().join("tusk/journal.db");
    env.ok(&["import", "tusk", db.to_str().ok_or("path")?])?;
    env.ok(&[
        "-w",
        "harbor-api",
        "checkpoint",
        "Typed one",
        "--type",
        "incident",
        "--impact",
        "x; y\nz",
    ])?;
    let first = env.ok(&["-w", "all", "export"])?;
    let file = env.cwd.path().join("all.jsonl");
    std::fs::write(&file, &first)?;
    let other = Env::new()?;
    other.ok(&["import", "jsonl", file.to_str().ok_or("path")?])?;
    assert_eq!(other.ok(&["-w", "all", "export"])?, first);
    Ok(())
}

#[test]
fn malformed_inputs_exit_1_naming_file_and_line() -> TestResult {
    let env = Env::new()?;
    let file = env.cwd.path().join("bad.jsonl");
    std::fs::write(
        &file,
        "{\"kind\":\"checkpoint\",\"workspace\":\"w\",\"id\":\"a\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"type\":\"checkpoint\",\"description\":\"kept\"}\nnot json at all\n",
    )?;
    let path = file.to_str().ok_or("path")?;
    let out = env.run(&["import", "jsonl", path])?;
    assert_eq!(out.0.status.code(), Some(1), "{}", out.stderr());
    contains_all(
        &out.stdout(),
        &[
            &format!("{path}:2: not a goldfish export record"),
            "w: 1 checkpoint(s) (1 new",
        ],
    )?;

    let not_db = env.cwd.path().join("journal.db");
    std::fs::write(&not_db, "text")?;
    env.fails(
        &["import", "tusk", not_db.to_str().ok_or("path")?],
        1,
        "journal.db",
    )?;

    let project = env.cwd.path().join("proj/.memories/2026-05-06");
    std::fs::create_dir_all(&project)?;
    std::fs::write(
        project.join("120000_ok00.md"),
        "---\nid: ok1\ntimestamp: 2026-05-06T12:00:00Z\n---\n\nGood one\n",
    )?;
    std::fs::write(
        project.join("120100_bad0.md"),
        "---\nid: bad\ntimestamp: 2026-05-06T12:01:00Z\ntags: [a\n---\n\nx\n",
    )?;
    let out = env.run(&[
        "import",
        "goldfish-memories",
        env.cwd.path().join("proj").to_str().ok_or("path")?,
    ])?;
    assert_eq!(out.0.status.code(), Some(1));
    contains_all(
        &out.stdout(),
        &["120100_bad0.md:", "proj: 1 checkpoint(s) (1 new"],
    )?;
    Ok(())
}

#[test]
fn import_beside_other_writers_loses_nothing() -> TestResult {
    let env = Env::new()?;
    let file = env.cwd.path().join("bulk.jsonl");
    // Dated today, the bulk goes into the very day files the writers append to.
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    bulk_jsonl(&file, 600, Some(&today))?;
    // Writers save into the same workspaces and day files.
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let bin = crate::util::bin();
            let script = format!(
                "for i in $(seq 1 15); do \"{bin}\" checkpoint \"writer {w} save $i\" >/dev/null || exit 1; done"
            );
            std::process::Command::new("sh")
                .args(["-c", &script])
                .current_dir(env.cwd.path())
                .env("GOLDFISH_HOME", env.home())
                .env("GOLDFISH_WORKSPACE", if w % 2 == 0 { "bulk-a" } else { "bulk-b" })
                .stdin(Stdio::null())
                .spawn()
        })
        .collect::<Result<_, _>>()?;
    let out = env.run(&["import", "jsonl", file.to_str().ok_or("path")?])?;
    out.success(&["import"])?;
    for mut w in writers {
        assert!(w.wait()?.success());
    }
    let export = env.ok(&["-w", "all", "export"])?;
    let bulk = export
        .lines()
        .filter(|l| l.contains("\"id\":\"bulk-"))
        .count();
    let saved = export.lines().filter(|l| l.contains("writer ")).count();
    assert_eq!((bulk, saved), (600, 60));
    Ok(())
}

#[cfg(unix)]
#[test]
fn an_import_killed_and_run_again_equals_one_clean_run() -> TestResult {
    let file_env = Env::new()?;
    let file = file_env.cwd.path().join("bulk.jsonl");
    bulk_jsonl(&file, 3000, None)?;
    let path = file.to_str().ok_or("path")?;

    let clean = Env::new()?;
    clean.ok(&["import", "jsonl", path])?;
    let want = clean.ok(&["-w", "all", "export"])?;

    let killed = Env::new()?;
    let mut child = killed
        .cmd(&["import", "jsonl", path])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    // Kill it once it has started writing (whenever that is, the end state must be right;
    // the deadline only guards against a hang).
    let deadline = Instant::now() + Duration::from_secs(120);
    while !killed.home().join("bulk-a/checkpoints").exists() && Instant::now() < deadline {
        if child.try_wait()?.is_some() {
            break;
        }
        std::thread::yield_now();
    }
    child.kill()?; // SIGKILL
    child.wait()?;
    killed.ok(&["import", "jsonl", path])?;
    assert_eq!(killed.ok(&["-w", "all", "export"])?, want);
    Ok(())
}

/// Every file under `dir` with its bytes, to show nothing was written.
fn snapshot(dir: &Path) -> std::io::Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            if e.file_type()?.is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), std::fs::read(e.path())?));
            }
        }
    }
    out.sort();
    Ok(out)
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        if e.file_type()?.is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()))?;
        } else {
            std::fs::copy(e.path(), to.join(e.file_name()))?;
        }
    }
    Ok(())
}

#[test]
fn goldfish_memories_are_read_in_place_and_never_written() -> TestResult {
    let env = Env::new()?;
    let base = env.cwd.path().join("projects");
    copy_tree(&fixtures().join("goldfish-v7"), &base)?;
    let registry = std::fs::read_to_string(base.join("goldfish-home/registry.json"))?;
    std::fs::write(
        env.home().join("registry.json"),
        registry.replace("{{FIXTURE_DIR}}", &base.to_string_lossy()),
    )?;
    let before = snapshot(&base)?;

    // In the project: its memories are the current workspace's, its active brief the plan.
    let tidepool = base.join("tidepool");
    let run_in = |dir: &Path, args: &[&str]| -> Result<String, Box<dyn std::error::Error>> {
        let out = env
            .cmd(args)
            .current_dir(dir)
            .env_remove("GOLDFISH_WORKSPACE")
            .output()?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let r = run_in(
        &tidepool,
        &["--json", "recall", "--days", "100000", "-n", "100"],
    )?;
    let v: serde_json::Value = serde_json::from_str(&r)?;
    assert_eq!(v["workspace"], "tidepool");
    assert_eq!(v["total"], 25, "{r}");
    assert_eq!(v["active_plan"]["id"], "search-relevance-tuning");
    let r = run_in(
        &tidepool,
        &[
            "recall", "--days", "100000", "--type", "decision", "--symbol", "rotate",
        ],
    )?;
    assert!(
        r.contains("Decided to store refresh-token families in SQLite"),
        "{r}"
    );

    // Through the registry: every project is a workspace of `-w all` and of the standup.
    let all = env.json(&["-w", "all", "recall", "--days", "100000", "-n", "0"])?;
    assert_eq!(all["total"], 40, "{all}");
    let s = env.ok(&["standup", "--days", "100000"])?;
    contains_all(
        &s,
        &[
            "## tidepool — 25 checkpoints",
            "## reef-ui — 15 checkpoints",
            "Decisions:",
        ],
    )?;

    // The MCP server reads them too.
    let replies = crate::mcp_replies::call_tools(
        &env,
        &[(
            "recall",
            json!({"workspace": "tidepool", "days": 100000, "type": "decision", "full": true}),
        )],
    )?;
    let text = crate::mcp_replies::text(&replies[0]);
    contains_all(
        &text,
        &[
            "Search relevance tuning",
            "[decision] Decided to store refresh-token families",
        ],
    )?;

    // Imported and read in place at once: still counted once.
    env.ok(&[
        "import",
        "goldfish-memories",
        tidepool.to_str().ok_or("path")?,
    ])?;
    let all = env.json(&["-w", "all", "recall", "--days", "100000", "-n", "0"])?;
    assert_eq!(all["total"], 40, "{all}");

    assert!(
        snapshot(&base)? == before,
        "nothing under the projects was written"
    );
    Ok(())
}

#[test]
fn a_record_whose_id_is_taken_by_other_content_is_kept_and_reported() -> TestResult {
    let env = Env::new()?;
    let record = |text: &str| {
        json!({
            "kind": "checkpoint",
            "workspace": "dup-ws",
            "id": "same-id",
            "timestamp": "2026-03-01T10:00:00Z",
            "type": "checkpoint",
            "description": text,
        })
        .to_string()
    };
    let file = env.cwd.path().join("dup.jsonl");
    std::fs::write(
        &file,
        format!(
            "{}\n{}\n{}\n",
            record("First text"),
            record("Second text"),
            record("First text")
        ),
    )?;
    let path = file.to_str().ok_or("path")?;
    let out = env.ok(&["import", "jsonl", path])?;
    contains_all(&out, &["Changed to fit, kept", "same-id", "same-id-dup-"])?;
    let v = env.json(&["import", "jsonl", path])?;
    assert_eq!(v["verified"], true, "{v}");
    assert_eq!(v["workspaces"][0]["checkpoints_added"], 0, "{v}");
    assert_eq!(v["workspaces"][0]["checkpoints_present"], 3, "{v}");
    let export = env.ok(&["-w", "all", "export"])?;
    assert_eq!(export.matches("First text").count(), 1, "{export}");
    assert_eq!(export.matches("Second text").count(), 1, "{export}");
    Ok(())
}

#[test]
fn an_extra_bullet_a_day_file_cannot_hold_is_reported_not_dropped() -> TestResult {
    let env = Env::new()?;
    let record = |id: &str, key: &str| {
        json!({
            "kind": "checkpoint",
            "workspace": "extra-ws",
            "id": id,
            "timestamp": "2026-03-01T10:00:00Z",
            "type": "checkpoint",
            "description": "Has an odd bullet",
            "extra": {key: "value"},
        })
        .to_string()
    };
    let file = env.cwd.path().join("extra.jsonl");
    std::fs::write(
        &file,
        format!("{}\n{}\n", record("a", "Tags"), record("b", "two\nlines")),
    )?;
    let out = env.run(&["import", "jsonl", file.to_str().ok_or("path")?])?;
    assert_eq!(out.0.status.code(), Some(1), "{}", out.stderr());
    contains_all(
        &format!("{}{}", out.stdout(), out.stderr()),
        &[
            "checkpoint a",
            "\"Tags\"",
            "checkpoint b",
            "\"two\\nlines\"",
        ],
    )?;
    Ok(())
}

/// A 100,000-line JSON Lines file with one byte that is not UTF-8 deep inside: refused,
/// naming the file, the line and the byte offset, and the store is left as it was (none of
/// the valid lines before it imported).
#[test]
fn a_jsonl_file_with_a_bad_byte_deep_inside_is_refused_naming_line_and_byte() -> TestResult {
    let env = Env::new()?;
    env.ok(&["-w", "big", "checkpoint", "Already here"])?;
    let file = env.cwd.path().join("big.jsonl");
    bulk_jsonl(&file, 100_000, None)?;
    let mut bytes = std::fs::read(&file)?;
    // The description of line 73,412 gets a Latin-1 byte.
    let line = 73_412;
    let start = bytes
        .split_inclusive(|&b| b == b'\n')
        .take(line - 1)
        .map(<[u8]>::len)
        .sum::<usize>();
    let at = start
        + bytes[start..]
            .windows(b"Bulk entry".len())
            .position(|w| w == b"Bulk entry")
            .ok_or("no description")?;
    bytes[at] = 0xc2;
    bytes[at + 1] = b'!';
    std::fs::write(&file, &bytes)?;
    let before = snapshot(env.home())?;

    let path = file.to_str().ok_or("path")?;
    let out = env.run(&["import", "jsonl", path])?;
    assert_eq!(out.0.status.code(), Some(1), "{}", out.stderr());
    let stderr = out.stderr();
    assert!(
        stderr.starts_with(&format!(
            "goldfish: error: {path}:{line}: not valid UTF-8 at byte offset {at} ("
        )),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert_eq!(snapshot(env.home())?, before, "the store is unchanged");
    Ok(())
}
