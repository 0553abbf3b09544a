//! What a new user trips on, driven through the real binary: empty and unreadable stores,
//! completions and the man page, conflicting windows, `recall -n 0`, and errors that speak in
//! the CLI's own commands.

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;

use crate::util::{Env, TestResult, contains_all};

#[test]
fn recall_on_a_missing_or_empty_store_says_where_it_looked() -> TestResult {
    let env = Env::new()?;
    // GOLDFISH_HOME (the temp dir) exists but holds nothing.
    let out = env.run(&["recall"])?;
    out.success(&["recall"])?;
    contains_all(
        &out.stdout(),
        &[
            &env.home().display().to_string(),
            "exists but holds no checkpoints yet",
            "goldfish checkpoint",
        ],
    )?;
    // A GOLDFISH_HOME that does not exist yet: also exit 0, with its own message.
    let missing = env.home().join("not-yet");
    let out = env
        .cmd(&["recall"])
        .env("GOLDFISH_HOME", &missing)
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    contains_all(
        &text,
        &[
            &missing.display().to_string(),
            "does not exist yet",
            "goldfish checkpoint",
        ],
    )?;
    assert!(!missing.exists(), "recall created the store");
    // --json says the same.
    let v = env.json(&["recall"])?;
    assert_eq!(v["store"]["state"], "empty", "{v}");
    Ok(())
}

#[test]
fn recall_on_an_unreadable_store_is_an_error() -> TestResult {
    let env = Env::new()?;
    // A regular file is unreadable as a store for every user, root included.
    let file = env.home().join("a-file");
    std::fs::write(&file, "not a directory")?;
    let out = env.cmd(&["recall"]).env("GOLDFISH_HOME", &file).output()?;
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("goldfish: error: ") && err.contains("a-file"),
        "{err}"
    );
    assert!(err.contains("must be a directory"), "{err}");

    // A directory without read permission (root reads it anyway: skipped there).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let locked = env.home().join("locked");
        std::fs::create_dir(&locked)?;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000))?;
        let readable_anyway = std::fs::read_dir(&locked).is_ok();
        let out = env
            .cmd(&["recall"])
            .env("GOLDFISH_HOME", &locked)
            .output()?;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700))?;
        if !readable_anyway {
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{err}");
            assert!(
                err.contains("locked") && err.contains("ermission denied"),
                "{err}"
            );
        }
    }
    Ok(())
}

#[test]
fn completions_and_man_page() -> TestResult {
    let env = Env::new()?;
    for (shell, needle) in [
        ("bash", "_goldfish()"),
        ("zsh", "#compdef goldfish"),
        ("fish", "complete -c goldfish"),
    ] {
        let script = env.ok(&["completions", shell])?;
        contains_all(&script, &[needle, "checkpoint", "recall"])?;
    }
    env.fails(&["completions", "cmd.exe"], 2, "cmd.exe")?;
    let man = env.ok(&["man"])?;
    contains_all(
        &man,
        &[".TH goldfish 1", ".SH NAME", "checkpoint", "recall"],
    )?;
    Ok(())
}

#[test]
fn conflicting_windows_are_usage_errors_naming_both_flags() -> TestResult {
    let env = Env::new()?;
    for (args, a, b) in [
        (
            &["recall", "--days", "3", "--since", "1h"][..],
            "--days",
            "--since",
        ),
        (
            &["recall", "--from", "2025-01-01", "--since", "1h"][..],
            "--from",
            "--since",
        ),
        (
            &["recall", "--days", "3", "--from", "2025-01-01"][..],
            "--days",
            "--from",
        ),
    ] {
        let out = env.run(args)?;
        let err = out.stderr();
        assert_eq!(out.0.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(a) && err.contains(b), "{args:?}: {err}");
    }
    Ok(())
}

#[test]
fn recall_limit_zero_shows_only_the_plan() -> TestResult {
    let env = Env::new()?;
    for i in 0..3 {
        env.ok(&["checkpoint", &format!("step {i}")])?;
    }
    env.ok(&[
        "plan",
        "save",
        "--title",
        "Ship it",
        "-c",
        "- [x] a\n+ [ ] b",
    ])?;
    let text = env.ok(&["recall", "-n", "0"])?;
    contains_all(&text, &["Active plan: Ship it", "1/2 done"])?;
    assert!(!text.contains("not shown"), "{text}");
    assert!(!text.contains("step 0"), "{text}");
    // Progress agrees everywhere: `+ [ ]` counts as an open box in plan get and standup too.
    contains_all(&env.ok(&["plan", "get"])?, &["progress 1/2"])?;
    let standup = env.json(&["standup"])?;
    assert_eq!(standup["workspaces"][0]["plan"]["open"], 1, "{standup}");
    assert_eq!(env.json(&["plan", "get"])?["progress"]["open"], 1);
    Ok(())
}

/// Library API names (`Journal::boot`, `NotesManager::init`, `request_cancel`, …) must not
/// reach a CLI user: every error is checked for a `Type::method` or snake_case API name.
fn assert_speaks_cli(err: &str) -> TestResult {
    for api in [
        "Journal::",
        "NotesManager::",
        "PipelineRunner::",
        "Store::",
        "request_cancel",
        "with open",
        "run_until_terminal",
    ] {
        if err.contains(api) {
            return Err(format!("library API name {api:?} in a CLI error: {err}").into());
        }
    }
    if !err.contains("`goldfish ") {
        return Err(format!("no CLI command suggested: {err}").into());
    }
    Ok(())
}

#[test]
fn errors_name_cli_commands_not_library_calls() -> TestResult {
    let env = Env::new()?;
    let err = |args: &[&str]| -> Result<String, Box<dyn std::error::Error>> {
        let out = env.run(args)?;
        assert_eq!(out.0.status.code(), Some(1), "{args:?}: {}", out.stderr());
        Ok(out.stderr())
    };
    // No journal yet.
    let e = err(&["journal", "log", "a finding"])?;
    assert_speaks_cli(&e)?;
    assert!(e.contains("goldfish journal boot"), "{e}");
    // Three failures of one approach: the fourth needs a mutation.
    env.ok(&["journal", "boot", "Session", "--approach", "retry"])?;
    for i in 0..3 {
        env.ok(&["journal", "fail", &format!("attempt {i}")])?;
    }
    let e = err(&["journal", "fail", "attempt 4"])?;
    assert_speaks_cli(&e)?;
    assert!(e.contains("goldfish journal mutate"), "{e}");
    // Notes that do not exist.
    assert_speaks_cli(&err(&["notes", "show"])?)?;
    // A pipeline already running.
    env.ok(&["pipeline", "start"])?;
    let e = err(&["pipeline", "start"])?;
    assert_speaks_cli(&e)?;
    assert!(e.contains("goldfish pipeline cancel"), "{e}");

    // A pipeline held by a running watch: `advance` is refused, naming `pipeline cancel`.
    let mut watch = env
        .cmd(&["pipeline", "watch", "--interval", "30", "--timeout", "120"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let stdout = watch.stdout.take().ok_or("no stdout")?;
    let mut first = String::new();
    // The first line is printed once the watch holds the pipeline.
    BufReader::new(stdout).read_line(&mut first)?;
    let result = (|| -> TestResult {
        assert!(first.starts_with("Watching"), "{first}");
        let e = err(&["pipeline", "advance"])?;
        assert_speaks_cli(&e)?;
        assert!(e.contains("goldfish pipeline cancel"), "{e}");
        contains_all(
            &env.ok(&["pipeline", "cancel"])?,
            &["goldfish pipeline watch"],
        )?;
        Ok(())
    })();
    let status = watch.wait()?;
    result?;
    assert_eq!(status.code(), Some(4), "the watch ends CANCELLED");
    Ok(())
}
