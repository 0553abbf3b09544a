//! A reader of stdout that goes away early (`goldfish export | head -c 100`,
//! `goldfish recall --help | head -1`): the command ends quietly, with status 0.
//!
//! Timing plays no part: either the pipe has no reader left before the binary starts, or the
//! binary has more to write than the pipe can hold once the reader has gone, so at least
//! one of its writes meets the closed pipe whatever the scheduling.

use std::io::Read as _;
use std::process::Stdio;

use serde_json::json;

use crate::util::{Env, TestResult};

/// The most a pipe can hold on Linux (`/proc/sys/fs/pipe-max-size`, 1 MiB by default; a
/// pipe starts at 64 KiB and only grows when its owner asks).
const PIPE_MAX: usize = 1 << 20;

/// Runs `args` with stdout a pipe whose reader is already closed; returns the status code
/// and stderr.
fn run_into_closed_pipe(
    env: &Env,
    args: &[&str],
) -> Result<(Option<i32>, String), Box<dyn std::error::Error>> {
    let (reader, writer) = std::io::pipe()?;
    drop(reader);
    let mut cmd = env.cmd(args);
    cmd.stdout(Stdio::from(writer)).stderr(Stdio::piped());
    let child = cmd.spawn()?;
    drop(cmd);
    let out = child.wait_with_output()?;
    Ok((
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

#[test]
fn export_into_a_pipe_closed_after_a_few_bytes_ends_quietly_with_0() -> TestResult {
    let env = Env::new()?;
    // 600 checkpoints of 4 KiB each: an export of about 2.5 MiB, more than a pipe holds.
    let body = "x".repeat(4096);
    let mut text = String::new();
    for i in 0..600 {
        let record = json!({
            "kind": "checkpoint",
            "workspace": "big",
            "id": format!("big-{i:04}"),
            "timestamp": format!("2026-03-{:02}T10:{:02}:{:02}Z", 1 + i % 28, (i / 60) % 60, i % 60),
            "type": "checkpoint",
            "description": format!("Entry {i}\n{body}"),
        });
        text.push_str(&record.to_string());
        text.push('\n');
    }
    let file = env.cwd.path().join("big.jsonl");
    std::fs::write(&file, text)?;
    env.ok(&["import", "jsonl", file.to_str().ok_or("path")?])?;
    let whole = env.ok(&["-w", "all", "export"])?;
    const READ: usize = 100;
    assert!(
        whole.len() > READ + PIPE_MAX,
        "the export ({} bytes) must outgrow any pipe for the test to mean anything",
        whole.len()
    );

    let (mut reader, writer) = std::io::pipe()?;
    let mut cmd = env.cmd(&["-w", "all", "export"]);
    cmd.stdout(Stdio::from(writer)).stderr(Stdio::piped());
    let child = cmd.spawn()?;
    // The command holds the parent's copy of the write end: without dropping it the pipe
    // would keep a writer after the child ends (harmless here, but untidy).
    drop(cmd);
    let mut first = [0u8; READ];
    reader.read_exact(&mut first)?;
    assert_eq!(&first[..], &whole.as_bytes()[..READ]);
    drop(reader);
    let out = child.wait_with_output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr, "", "nothing said about the closed pipe");
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    Ok(())
}

#[test]
fn help_version_and_reports_into_a_closed_pipe_end_quietly_with_0() -> TestResult {
    let env = Env::new()?;
    env.ok(&["checkpoint", "Something to recall"])?;
    for args in [
        &["recall", "--help"][..],
        &["--help"],
        &["--version"],
        &["recall"],
        &["--json", "recall"],
        &["man"],
        &["completions", "bash"],
    ] {
        let (code, stderr) = run_into_closed_pipe(&env, args)?;
        assert_eq!(stderr, "", "{args:?}: nothing said about the closed pipe");
        assert_eq!(code, Some(0), "{args:?}");
    }
    Ok(())
}

#[test]
fn a_usage_error_with_stdout_closed_is_still_a_usage_error() -> TestResult {
    let env = Env::new()?;
    let (code, stderr) = run_into_closed_pipe(&env, &["recall", "--no-such-option"])?;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--no-such-option"), "{stderr}");
    Ok(())
}
