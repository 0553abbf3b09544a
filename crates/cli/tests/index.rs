//! The recall index through the real binary: killed writers, broken and unwritable index
//! files, `goldfish index status|rebuild|verify`.

use std::process::Stdio;

use crate::util::{Env, TestResult};

/// Day files for `workspaces`, `days` days each, `per_day` checkpoints a day, with words
/// from a small pool (written directly: hundreds of saves would be slow).
fn fill(env: &Env, workspaces: &[&str], days: u32, per_day: u32) -> TestResult {
    let words = [
        "parser",
        "lexer",
        "database",
        "migration",
        "auth",
        "login",
        "cache",
        "retry",
        "timeout",
        "release",
        "flaky",
        "tests",
        "index",
        "deploy",
    ];
    for (w, ws) in workspaces.iter().enumerate() {
        let dir = env.home().join(ws).join("checkpoints");
        std::fs::create_dir_all(&dir)?;
        for d in 0..days {
            let date = format!("2026-01-{:02}", 1 + d);
            let mut text = format!("# Checkpoints for {date}\n");
            for k in 0..per_day {
                let i = (w as u32 * 7919 + d * 131 + k * 17) as usize;
                let pick = |n: usize| words[(i / (n + 1) + n * 5) % words.len()];
                text.push_str(&format!(
                    "\n## {:02}:{:02} - Fixed the {} {} in {}\n{} and {}\n\n- **Tags**: {}\n",
                    k % 24,
                    (k * 7) % 60,
                    pick(0),
                    pick(1),
                    ws,
                    pick(2),
                    pick(3),
                    pick(4)
                ));
            }
            std::fs::write(dir.join(format!("{date}.md")), text)?;
        }
    }
    Ok(())
}

const SEARCH: [&str; 7] = [
    "--workspace",
    "all",
    "recall",
    "--search",
    "databse migratoin",
    "--from",
    "2000-01-01",
];

/// `recall --json` for SEARCH with or without the index: the checkpoints, total and counts.
fn answer(env: &Env, index: bool) -> Result<(String, String), Box<dyn std::error::Error>> {
    let mut args = SEARCH.to_vec();
    args.extend(["--limit", "50", "--json"]);
    let mut cmd = env.cmd(&args);
    if !index {
        cmd.env("GOLDFISH_NO_INDEX", "1");
    }
    let out = cmd.output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let key = serde_json::json!([v["checkpoints"], v["total"], v["workspaces"]]);
    Ok((
        key.to_string(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// Recalls killed (SIGKILL) at any moment while they build and write the index leave a
/// store whose next recall answers exactly as the day files do. Whenever the kill lands —
/// before, during or after the write — the assertion is the same.
#[cfg(unix)]
#[test]
fn killed_index_writers_leave_correct_answers() -> TestResult {
    let env = Env::new()?;
    fill(&env, &["api", "web", "ops"], 25, 12)?;
    let (want, _) = answer(&env, false)?;
    let mut args = SEARCH.to_vec();
    args.push("--json");
    for round in 0..12u64 {
        let _ = std::fs::remove_dir_all(env.home().join(".index"));
        let mut child = env
            .cmd(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        std::thread::sleep(std::time::Duration::from_millis(round * 3));
        child.kill()?; // SIGKILL
        child.wait()?;
        let (got, _) = answer(&env, true)?;
        assert_eq!(got, want, "round {round}");
    }
    // A torn write (the first half of a good index at its final path, what a
    // non-atomic writer killed midway would leave) is noticed, rebuilt and said once.
    let file = env.home().join(".index/api.gfi");
    let good = std::fs::read(&file)?;
    std::fs::write(&file, &good[..good.len() / 2])?;
    let (got, stderr) = answer(&env, true)?;
    assert_eq!(got, want);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("unusable") && stderr.contains("api.gfi"),
        "{stderr}"
    );
    let (_, stderr) = answer(&env, true)?;
    assert!(stderr.is_empty(), "{stderr}");
    Ok(())
}

/// A checkpoint saved by another process is found by the very next recall, the index
/// having been built before it.
#[test]
fn a_save_is_found_by_the_next_recall() -> TestResult {
    let env = Env::new()?;
    fill(&env, &["test"], 5, 10)?;
    let v = env.json(&["recall", "--search", "zeppelin", "--from", "2000-01-01"])?;
    assert_eq!(v["total"], 0, "{v}");
    assert!(env.home().join(".index/test.gfi").is_file());
    env.ok(&["checkpoint", "Moored the zeppelin"])?;
    let v = env.json(&["recall", "--search", "zeppelin", "--from", "2000-01-01"])?;
    assert_eq!(v["total"], 1, "{v}");
    Ok(())
}

/// An index directory that cannot be written: the answer is the files', one note on
/// stderr, nothing written.
#[test]
fn an_unwritable_index_answers_from_the_files() -> TestResult {
    let env = Env::new()?;
    fill(&env, &["api", "web"], 5, 10)?;
    let (want, _) = answer(&env, false)?;
    std::fs::write(env.home().join(".index"), b"in the way")?;
    let (got, stderr) = answer(&env, true)?;
    assert_eq!(got, want);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("not written"), "{stderr}");
    Ok(())
}

/// `goldfish index status|rebuild|verify`, text and `--json`, and verify's exit code.
#[test]
fn index_subcommands() -> TestResult {
    let env = Env::new()?;
    fill(&env, &["test"], 3, 4)?;
    let v = env.json(&["index", "status"])?;
    assert_eq!(v["workspaces"][0]["state"], "missing", "{v}");
    let out = env.run(&["index", "verify"])?;
    assert_eq!(out.0.status.code(), Some(1));
    assert!(out.stdout().contains("disagrees"), "{}", out.stdout());
    let out = env.run(&["index", "rebuild"])?;
    out.success(&["index", "rebuild"])?;
    // Not a terminal: no progress bar on stderr.
    assert!(out.stderr().is_empty(), "{}", out.stderr());
    assert!(
        out.stdout()
            .contains("test: fresh · 12 checkpoints in 3 day files"),
        "{}",
        out.stdout()
    );
    let v = env.json(&["index", "status"])?;
    assert_eq!(v["workspaces"][0]["state"], "fresh", "{v}");
    assert_eq!(v["entries"], 12, "{v}");
    assert!(v["bytes"].as_u64().is_some_and(|b| b > 0), "{v}");
    let v = env.json(&["index", "verify"])?;
    assert_eq!(v["ok"], true, "{v}");
    env.ok(&["checkpoint", "One more"])?;
    let v = env.json(&["index", "status"])?;
    assert_eq!(v["workspaces"][0]["state"], "stale", "{v}");
    assert_eq!(
        v["workspaces"][0]["changed"].as_array().map(Vec::len),
        Some(1),
        "{v}"
    );
    let out = env.run(&["--json", "index", "verify"])?;
    assert_eq!(out.0.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&out.stdout())?;
    assert_eq!(v["ok"], false, "{v}");
    let v = env.json(&["index", "rebuild"])?;
    assert_eq!(v["entries"], 13, "{v}");
    env.ok(&["index", "verify"])?;
    Ok(())
}

/// A store of more workspaces than the process may open files: the index holds no file
/// open per workspace, so recall (building, then reading the indexes) answers as the files
/// do, with nothing on stderr.
#[cfg(unix)]
#[test]
fn more_workspaces_than_file_descriptors() -> TestResult {
    let env = Env::new()?;
    let names: Vec<String> = (0..150).map(|i| format!("ws{i:03}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    fill(&env, &names, 1, 3)?;
    let (want, _) = answer(&env, false)?;
    let mut args = SEARCH.to_vec();
    args.extend(["--limit", "50", "--json"]);
    let script = "ulimit -n 64 && exec \"$0\" \"$@\"";
    for round in ["builds", "reads"] {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(crate::util::bin())
            .args(&args)
            .current_dir(env.cwd.path())
            .env("GOLDFISH_HOME", env.home())
            .env("GOLDFISH_WORKSPACE", "test")
            .stdin(Stdio::null())
            .output()?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{round}: {stderr}");
        assert!(stderr.is_empty(), "{round}: {stderr}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
        let got = serde_json::json!([v["checkpoints"], v["total"], v["workspaces"]]).to_string();
        assert_eq!(got, want, "{round}");
    }
    Ok(())
}

/// The MCP server refreshes a workspace's index when the file system says its day files
/// changed: after a save by another process, the index is rebuilt with no recall asked for
/// (without the watch it would stay stale, or missing, until the next recall).
#[test]
fn the_mcp_server_refreshes_the_index_on_file_events() -> TestResult {
    use std::io::{BufRead as _, Write as _};
    let env = Env::new()?;
    fill(&env, &["test"], 3, 4)?;
    let mut child = env
        .cmd(&["mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    // The watch is set up before the server answers anything: wait for the first answer.
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"raw","version":"0"}}}}}}"#
    )?;
    stdin.flush()?;
    let mut lines = std::io::BufReader::new(stdout).lines();
    let first = lines.next().ok_or("the server closed stdout")??;
    assert!(first.contains(r#""id":1"#), "{first}");
    let reader = std::thread::spawn(move || lines.map_while(Result::ok).count());
    // Reading the day files is no change: listing them (as `index status` does) refreshes
    // nothing, so the index is still missing.
    let v = env.json(&["index", "status"])?;
    assert_eq!(v["workspaces"][0]["state"], "missing", "{v}");

    env.ok(&["checkpoint", "Moored the zeppelin"])?;
    // Events arrive asynchronously: wait for the condition, with a generous bound.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let refreshed = loop {
        let v = env.json(&["index", "status"])?;
        if v["workspaces"][0]["state"] == "fresh" && v["entries"] == 13 {
            break true;
        }
        if std::time::Instant::now() > deadline {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    drop(stdin);
    let status = child.wait()?;
    let _ = reader.join();
    assert!(status.success(), "server exit: {status:?}");
    assert!(
        refreshed,
        "no refresh after the save: {}",
        env.ok(&["index", "status"])?
    );
    Ok(())
}
