//! Exit codes and messages of the main error paths.

use crate::util::{Env, TestResult};

#[test]
fn main_error_paths() -> TestResult {
    let env = Env::new()?;
    // Bad workspace names: usage errors (exit 2), found while the command line is parsed.
    env.fails(
        &["checkpoint", "x", "--workspace", "../etc"],
        2,
        "invalid value '../etc' for '--workspace <NAME>': workspace name \"../etc\"",
    )?;
    env.fails(&["recall", "-w", "!!!"], 2, "no letters or digits")?;
    let out = env
        .cmd(&["recall"])
        .env("GOLDFISH_WORKSPACE", "a/../b")
        .output()?;
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Bad dates.
    env.fails(
        &["recall", "--from", "yesterday"],
        1,
        "invalid `from` value \"yesterday\"",
    )?;
    env.fails(&["recall", "--to", "2025-13-45"], 1, "2025-13-45")?;
    env.fails(&["recall", "--since", "soon"], 1, "soon")?;
    // Unknown plan.
    env.fails(&["plan", "get", "ghost"], 1, "no plan \"ghost\"")?;
    // Malformed signal JSON, written nowhere.
    env.fails(
        &[
            "signal",
            "emit",
            "build-complete",
            "--body",
            "{\"commits\": 3",
        ],
        1,
        "malformed JSON body",
    )?;
    assert!(
        !env.cwd
            .path()
            .join(".goblin")
            .join("build-complete")
            .exists()
    );
    env.fails(
        &[
            "signal",
            "emit",
            "build-complete",
            "--body",
            "{\"commits\": -1}",
        ],
        1,
        "invalid build-complete body",
    )?;
    env.fails(
        &["signal", "emit", "shipped"],
        1,
        "unknown signal \"shipped\"",
    )?;
    // Usage errors exit 2.
    env.fails(&["frobnicate"], 2, "unrecognized subcommand")?;
    env.fails(&["recall", "--days", "many"], 2, "invalid value")?;
    env.fails(&["plan"], 2, "Usage")?;
    Ok(())
}

#[test]
fn help_and_version_succeed() -> TestResult {
    let env = Env::new()?;
    let help = env.ok(&["--help"])?;
    for cmd in [
        "checkpoint",
        "recall",
        "standup",
        "plan",
        "notes",
        "signal",
        "pipeline",
        "journal",
        "mcp",
    ] {
        assert!(help.contains(cmd), "{cmd} missing from --help");
    }
    assert!(env.ok(&["--version"])?.contains(env!("CARGO_PKG_VERSION")));
    Ok(())
}

#[test]
fn a_store_path_that_is_a_file_is_reported() -> TestResult {
    let env = Env::new()?;
    let file = env.home().join("not-a-dir");
    std::fs::write(&file, "x")?;
    let out = env.cmd(&["recall"]).env("GOLDFISH_HOME", &file).output()?;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must be a directory"));
    Ok(())
}

#[test]
fn json_errors_keep_stdout_empty() -> TestResult {
    let env = Env::new()?;
    let out = env.run(&["--json", "plan", "get", "ghost"])?;
    assert_eq!(out.0.status.code(), Some(1));
    assert!(out.stdout().is_empty(), "{}", out.stdout());
    Ok(())
}
