//! `goldfish hook session-start`, `goldfish setup` and `goldfish doctor`, through the real
//! binary, with HOME and every config path inside temporary directories.

use std::fs;
use std::path::{Path, PathBuf};

use crate::util::{Env, TestResult, contains_all};

/// The setup library's fixture configs (one file per client and shape, with golden results).
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../setup/tests/fixtures")
        .join(name)
}

/// An environment with a checkpoint, an active plan, a journal with an open streak and notes.
fn populated() -> Result<Env, Box<dyn std::error::Error>> {
    let env = Env::new()?;
    env.ok(&[
        "checkpoint",
        "Fixed the login redirect loop",
        "-t",
        "auth,bug",
    ])?;
    env.ok(&[
        "plan",
        "save",
        "--title",
        "Ship the auth rewrite",
        "-c",
        "- [x] tokens\n- [ ] refresh flow\n- [ ] logout everywhere",
    ])?;
    env.ok(&[
        "journal",
        "boot",
        "auth",
        "--approach",
        "patch the middleware",
    ])?;
    for what in ["redirect still loops", "cookie lost", "loops again"] {
        env.ok(&["journal", "fail", what])?;
    }
    env.ok(&[
        "notes",
        "init",
        "ENG-7",
        "--objective",
        "finish the auth rewrite",
    ])?;
    let notes = env.cwd.path().join(".goblin/GOBLIN_NOTES.md");
    let text = fs::read_to_string(&notes)?;
    let text = text.replace(
        "## Context for Next Session\n",
        "## Context for Next Session\nStart from the refresh flow; staging is down.\n",
    );
    fs::write(&notes, text)?;
    Ok(env)
}

const EXPECTED: [&str; 9] = [
    "workspace `test`",
    goldfish_store::frame::MEMORY_NOTICE,
    "<memory kind=\"plan\" id=\"ship-the-auth-rewrite\">\n\
     Active plan: Ship the auth rewrite, 1/3 done",
    "- [ ] refresh flow",
    "Fixed the login redirect loop [auth, bug]</memory>",
    "<memory kind=\"journal\">\n`patch the middleware` failed 3x (MUTATION REQUIRED",
    "last: loops again",
    "Objective: finish the auth rewrite",
    "Context for next session: Start from the refresh flow; staging is down.",
];

#[test]
fn hook_prints_plan_checkpoints_journal_and_notes_as_plain_text_without_a_client() -> TestResult {
    let env = populated()?;
    let args = ["hook", "session-start"];
    let out = env.run(&args)?;
    out.success(&args)?;
    contains_all(&out.stdout(), &EXPECTED)?;
    assert!(
        !out.stdout().trim_start().starts_with('{'),
        "{}",
        out.stdout()
    );
    assert!(out.stderr().is_empty(), "{}", out.stderr());
    Ok(())
}

#[test]
fn hook_speaks_each_clients_json() -> TestResult {
    let env = populated()?;
    for client in ["claude", "codex"] {
        let out: serde_json::Value =
            serde_json::from_str(&env.ok(&["hook", "session-start", "--client", client])?)?;
        assert_eq!(out.as_object().map(|o| o.len()), Some(1), "{out}");
        let specific = &out["hookSpecificOutput"];
        assert_eq!(specific.as_object().map(|o| o.len()), Some(2), "{out}");
        assert_eq!(specific["hookEventName"], "SessionStart");
        let text = specific["additionalContext"]
            .as_str()
            .ok_or("no additionalContext")?;
        contains_all(text, &EXPECTED)?;
    }
    let cursor: serde_json::Value =
        serde_json::from_str(&env.ok(&["hook", "session-start", "--client", "cursor"])?)?;
    let text = cursor["additional_context"]
        .as_str()
        .ok_or("no additional_context")?;
    contains_all(text, &EXPECTED)?;
    assert_eq!(cursor.as_object().map(|o| o.len()), Some(1), "{cursor}");
    Ok(())
}

#[test]
fn hook_respects_its_budget() -> TestResult {
    let env = populated()?;
    // Thirty different ones: the same text again within ten minutes would be one entry.
    for i in 0..30 {
        env.ok(&[
            "checkpoint",
            &format!(
                "{}{i}",
                "a long checkpoint title about many things ".repeat(4)
            ),
        ])?;
    }
    let full = env.ok(&["hook", "session-start"])?;
    assert!(full.chars().count() <= 1_800, "{}", full.chars().count());
    assert!(full.chars().count() > 600, "{full}");
    for budget in [0usize, 10, 80, 250, 700] {
        let out = env.ok(&["hook", "session-start", "--budget", &budget.to_string()])?;
        assert!(out.chars().count() <= budget, "budget {budget}: {out:?}");
        let json = env.ok(&[
            "hook",
            "session-start",
            "--client",
            "claude",
            "--budget",
            &budget.to_string(),
        ])?;
        // When not even the heading fits, the hook prints nothing at all.
        if json.is_empty() {
            assert!(budget < 80, "budget {budget}: nothing printed");
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&json)?;
        let text = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .ok_or("no context")?;
        assert!(text.chars().count() <= budget, "budget {budget}: {text:?}");
    }
    // The most important part comes first (after the header and the framing's sentence,
    // 135 characters).
    let small = env.ok(&["hook", "session-start", "--budget", "300"])?;
    assert!(small.contains("Active plan"), "{small}");
    Ok(())
}

#[test]
fn hook_never_fails_a_session() -> TestResult {
    let env = Env::new()?;
    let file = env.home().join("not-a-dir");
    fs::write(&file, "x")?;
    for client in ["claude", "codex", "cursor"] {
        let out = Env::new()?;
        let mut cmd = out.cmd(&["hook", "session-start", "--client", client]);
        cmd.env("GOLDFISH_HOME", &file);
        let run = cmd.output()?;
        assert_eq!(run.status.code(), Some(0), "{client}");
        assert!(run.stdout.is_empty(), "{client}: {:?}", run.stdout);
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(err.lines().count(), 1, "{client}: {err}");
        contains_all(&err, &["goldfish hook:", "not-a-dir", "goldfish doctor"])?;
    }
    // A damaged journal is left out, named on stderr; the rest still comes.
    let env = populated()?;
    fs::write(env.cwd.path().join(".goblin/GOBLIN_NOTES.md"), [0xff, 0xfe])?;
    let out = env.run(&["hook", "session-start"])?;
    out.success(&["hook"])?;
    contains_all(&out.stdout(), &["Active plan", "Fixed the login"])?;
    contains_all(&out.stderr(), &["left out", "GOBLIN_NOTES.md"])?;
    Ok(())
}

#[test]
fn hook_over_a_garbage_day_file_injects_the_rest_and_says_so_once() -> TestResult {
    let env = Env::new()?;
    let days = env.home().join("test/checkpoints");
    fs::create_dir_all(&days)?;
    // A good day five days back (outside the usual two-day window) and garbage today: binary
    // noise over many lines, as a damaged disk or a stray copy leaves.
    let old = chrono::Utc::now() - chrono::TimeDelta::days(5);
    let day = old.format("%Y-%m-%d");
    fs::write(
        days.join(format!("{day}.md")),
        format!(
            "# Checkpoints for {day}\n\n## 10:00 - Wired the parser\n<!-- id: {}T100000000Z-aaaaaa \
             at: {day}T10:00:00.000Z -->\n",
            old.format("%Y%m%d")
        ),
    )?;
    let garbage: Vec<u8> = (0..4000u32)
        .map(|i| {
            if i % 40 == 39 {
                b'\n'
            } else {
                (i * 131 % 251) as u8 | 0x80
            }
        })
        .collect();
    let today = chrono::Utc::now().format("%Y-%m-%d");
    fs::write(days.join(format!("{today}.md")), garbage)?;

    let out = env.run(&["hook", "session-start", "--client", "claude"])?;
    out.success(&["hook"])?;
    let v: serde_json::Value = serde_json::from_str(&out.stdout())?;
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .ok_or("no context")?;
    contains_all(context, &["Wired the parser", "none in the last 2 days"])?;
    assert!(!context.contains("Nothing saved yet"), "{context}");
    let err = out.stderr();
    assert_eq!(
        err.lines().count(),
        1,
        "one line, not one per bad line:\n{err}"
    );
    contains_all(
        &err,
        &[
            "goldfish hook: left out",
            "unreadable entries",
            &format!("{today}.md"),
        ],
    )?;
    Ok(())
}

#[test]
fn hook_on_an_empty_store_says_how_to_start() -> TestResult {
    let env = Env::new()?;
    let out = env.ok(&["hook", "session-start"])?;
    contains_all(
        &out,
        &["workspace `test`", "Nothing saved yet", "checkpoint"],
    )?;
    assert!(
        !env.home().join("test").exists(),
        "the hook wrote to the store"
    );
    Ok(())
}

// ----- setup -----------------------------------------------------------------------------

/// Runs `goldfish setup ARGS` with HOME inside `home`.
fn setup(env: &Env, home: &Path, args: &[&str]) -> Result<crate::util::Out, std::io::Error> {
    let mut all = vec!["setup"];
    all.extend_from_slice(args);
    let out = env
        .cmd(&all)
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("GOLDFISH_HOME")
        .output()?;
    Ok(crate::util::Out(out))
}

/// `goldfish doctor`'s report with HOME inside `home` (whatever its exit code).
fn doctor_report(env: &Env, home: &Path) -> Result<String, Box<dyn std::error::Error>> {
    let out = env
        .cmd(&["doctor"])
        .env("HOME", home)
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn setup_records_the_store_and_doctor_catches_a_server_on_another_one() -> TestResult {
    let env = Env::new()?;
    let home = tempfile::tempdir()?;
    let config = home.path().join(".codex/config.toml");
    fs::create_dir_all(home.path().join(".codex"))?;
    // Registered before, without the store: Codex starts the server without the user's
    // environment, so it would open ~/.goldfish while this goldfish uses GOLDFISH_HOME.
    fs::write(
        &config,
        "[mcp_servers.goldfish]\ncommand = \"goldfish\"\nargs = [\"mcp\"]\n",
    )?;
    let report = doctor_report(&env, home.path())?;
    let store = env.home().display().to_string();
    contains_all(
        &report,
        &[
            "[FAIL] codex",
            ".goldfish",
            &store,
            "lands in the other one",
            "goldfish setup codex",
        ],
    )?;

    // Setup run with GOLDFISH_HOME set records it in the server's env; doctor is content.
    let out = env
        .cmd(&["setup", "codex"])
        .env("HOME", home.path())
        .env_remove("CODEX_HOME")
        .output()?;
    crate::util::Out(out).success(&["setup", "codex"])?;
    let text = fs::read_to_string(&config)?;
    assert!(
        text.contains(&format!("env = {{ GOLDFISH_HOME = \"{store}\" }}")),
        "{text}"
    );
    let report = doctor_report(&env, home.path())?;
    contains_all(&report, &["[ok] codex: registered"])?;

    // The same for a JSON client, and a server registered on another store is caught.
    let claude = home.path().join(".claude.json");
    let out = env
        .cmd(&["setup", "claude", "--no-allow"])
        .env("HOME", home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()?;
    crate::util::Out(out).success(&["setup", "claude"])?;
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&claude)?)?;
    assert_eq!(
        v["mcpServers"]["goldfish"]["env"]["GOLDFISH_HOME"],
        store.as_str()
    );
    let other = Env::new()?;
    contains_all(
        &doctor_report(&other, home.path())?,
        &["[FAIL] claude", &store, "lands in the other one"],
    )?;
    Ok(())
}

#[test]
fn setup_claude_allows_recall_and_checkpoint_and_takes_the_rules_back() -> TestResult {
    let env = Env::new()?;
    let home = tempfile::tempdir()?;
    let settings = home.path().join(".claude/settings.json");
    fs::create_dir_all(home.path().join(".claude"))?;
    let original = "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Read\"\n    ]\n  }\n}\n";
    fs::write(&settings, original)?;

    let dry = setup(&env, home.path(), &["claude", "--dry-run"])?;
    dry.success(&["--dry-run"])?;
    contains_all(
        &dry.stdout(),
        &[
            "+      \"mcp__goldfish__recall\"",
            "+      \"mcp__goldfish__checkpoint\"",
            "would add the allow rules",
            "mcp__goldfish__plan",
        ],
    )?;
    assert_eq!(fs::read_to_string(&settings)?, original, "dry run wrote");

    setup(&env, home.path(), &["claude"])?.success(&["claude"])?;
    let value: serde_json::Value = serde_json::from_str(&fs::read_to_string(&settings)?)?;
    let allow: Vec<&str> = value["permissions"]["allow"]
        .as_array()
        .ok_or("no allow array")?
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(
        allow,
        [
            "Read",
            "mcp__goldfish__recall",
            "mcp__goldfish__checkpoint",
            "mcp__plugin_goldfish_goldfish__recall",
            "mcp__plugin_goldfish_goldfish__checkpoint"
        ]
    );
    assert_eq!(value["model"], "opus");
    contains_all(
        &doctor_report(&env, home.path())?,
        &["[ok] claude-permissions: recall and checkpoint may run without asking"],
    )?;

    setup(&env, home.path(), &["claude", "--remove"])?.success(&["--remove"])?;
    assert_eq!(
        fs::read_to_string(&settings)?,
        original,
        "not restored byte for byte"
    );
    assert!(!home.path().join(".claude.json").exists());
    contains_all(
        &doctor_report(&env, home.path())?,
        &[
            "[warn] claude-permissions",
            "headless",
            "goldfish setup claude",
        ],
    )?;

    // Opting out registers the server and leaves the settings alone; --allow-only does the
    // opposite (for the plugin's server).
    setup(&env, home.path(), &["claude", "--no-allow"])?.success(&["--no-allow"])?;
    assert_eq!(fs::read_to_string(&settings)?, original);
    assert!(home.path().join(".claude.json").exists());
    setup(&env, home.path(), &["claude", "--remove"])?.success(&["--remove"])?;
    let only = setup(&env, home.path(), &["claude", "--allow-only"])?;
    only.success(&["--allow-only"])?;
    assert!(
        !home.path().join(".claude.json").exists(),
        "{}",
        only.stdout()
    );
    assert!(fs::read_to_string(&settings)?.contains("mcp__plugin_goldfish_goldfish__recall"));
    env.fails(&["setup", "codex", "--allow-only"], 1, "are for claude")?;
    // --settings edits another file, and only that one.
    let other = home.path().join("team-settings.json");
    let o = other.to_str().ok_or("path")?;
    setup(
        &env,
        home.path(),
        &["claude", "--allow-only", "--settings", o],
    )?
    .success(&[o])?;
    assert!(fs::read_to_string(&other)?.contains("mcp__goldfish__checkpoint"));
    Ok(())
}

#[test]
fn setup_registers_in_each_fixture_keeps_the_rest_and_removes_back() -> TestResult {
    let env = Env::new()?;
    let home = tempfile::tempdir()?;
    let cases = [
        ("claude", "claude-other-servers.json"),
        ("claude", "claude-no-servers.json"),
        ("cursor", "cursor-other-servers.json"),
        ("codex", "codex-comments.toml"),
    ];
    for (client, name) in cases {
        let original = fs::read_to_string(fixture(name))?;
        let golden_name = name.replacen('.', ".registered.", 1);
        let golden = fs::read_to_string(fixture(&golden_name))?;
        let config = home.path().join(name);
        fs::write(&config, &original)?;
        let c = config.to_str().ok_or("path")?;

        let dry = setup(&env, home.path(), &[client, "--config", c, "--dry-run"])?;
        dry.success(&["dry-run"])?;
        contains_all(&dry.stdout(), &["+++", "goldfish", "would register"])?;
        assert_eq!(
            fs::read_to_string(&config)?,
            original,
            "{name}: dry run wrote"
        );

        let first = setup(&env, home.path(), &[client, "--config", c])?;
        first.success(&[client])?;
        contains_all(
            &first.stdout(),
            &["registered `goldfish`", ".goldfish-backup"],
        )?;
        assert_eq!(fs::read_to_string(&config)?, golden, "{name}");

        let second = setup(&env, home.path(), &[client, "--config", c])?;
        second.success(&[client])?;
        contains_all(&second.stdout(), &["already registered", "nothing to do"])?;
        assert_eq!(
            fs::read_to_string(&config)?,
            golden,
            "{name}: second run changed it"
        );

        let removed = setup(&env, home.path(), &[client, "--config", c, "--remove"])?;
        removed.success(&["--remove"])?;
        contains_all(&removed.stdout(), &["removed `goldfish`"])?;
        assert_eq!(
            fs::read_to_string(&config)?,
            original,
            "{name}: not restored"
        );
    }
    // Comments in TOML survive.
    let config = home.path().join("codex-comments.toml");
    let c = config.to_str().ok_or("path")?;
    setup(&env, home.path(), &["codex", "--config", c])?.success(&["codex"])?;
    contains_all(
        &fs::read_to_string(&config)?,
        &[
            "# Codex settings",
            "# default model",
            "# Profiles",
            "[mcp_servers.goldfish]",
        ],
    )?;
    Ok(())
}

#[test]
fn setup_on_absent_and_empty_files_and_at_the_documented_place() -> TestResult {
    let env = Env::new()?;
    let home = tempfile::tempdir()?;
    // The documented places, under HOME.
    for (client, path) in [
        ("claude", ".claude.json"),
        ("codex", ".codex/config.toml"),
        ("cursor", ".cursor/mcp.json"),
    ] {
        let out = setup(&env, home.path(), &[client])?;
        out.success(&[client])?;
        let file = home.path().join(path);
        let text = fs::read_to_string(&file)?;
        assert!(text.contains("goldfish") && text.contains("mcp"), "{text}");
        let again = setup(&env, home.path(), &[client])?;
        again.success(&[client])?;
        assert_eq!(fs::read_to_string(&file)?, text);
        setup(&env, home.path(), &[client, "--remove"])?.success(&["--remove"])?;
        // A JSON file that held only goldfish is deleted again.
        if path.ends_with(".json") {
            assert!(!file.exists(), "{path} left behind");
        }
    }
    // An empty file.
    for (client, name) in [("claude", "empty.json"), ("codex", "empty.toml")] {
        let config = home.path().join(name);
        fs::write(&config, "")?;
        let c = config.to_str().ok_or("path")?;
        setup(&env, home.path(), &[client, "--config", c])?.success(&[client])?;
        assert!(fs::read_to_string(&config)?.contains("goldfish"));
    }
    // --command registers an absolute path.
    let config = home.path().join("abs.json");
    let c = config.to_str().ok_or("path")?;
    setup(
        &env,
        home.path(),
        &["cursor", "--config", c, "--command", "/opt/bin/goldfish"],
    )?
    .success(&["--command"])?;
    assert!(fs::read_to_string(&config)?.contains("\"/opt/bin/goldfish\""));
    // A relative --command is made absolute (the client starts it from elsewhere).
    let config = home.path().join("rel.json");
    let c = config.to_str().ok_or("path")?;
    setup(
        &env,
        home.path(),
        &["cursor", "--config", c, "--command", "bin/goldfish"],
    )?
    .success(&["--command"])?;
    let want = env.cwd.path().join("bin/goldfish");
    let text = fs::read_to_string(&config)?;
    assert!(text.contains(&format!("\"{}\"", want.display())), "{text}");
    Ok(())
}

#[test]
fn setup_refuses_malformed_and_read_only_files_and_writes_nothing() -> TestResult {
    let env = Env::new()?;
    let home = tempfile::tempdir()?;
    for (client, name, line) in [
        ("codex", "codex-malformed.toml", "codex-malformed.toml:3:"),
        (
            "cursor",
            "cursor-malformed.json",
            "cursor-malformed.json:4:",
        ),
    ] {
        let original = fs::read(fixture(name))?;
        let config = home.path().join(name);
        fs::write(&config, &original)?;
        let c = config.to_str().ok_or("path")?;
        let out = setup(&env, home.path(), &[client, "--config", c])?;
        assert_eq!(out.0.status.code(), Some(1), "{name}: {}", out.stderr());
        contains_all(&out.stderr(), &["goldfish: error:", name, line])?;
        assert_eq!(fs::read(&config)?, original, "{name} was changed");
        assert!(!home.path().join(format!("{name}.goldfish-backup")).exists());
    }
    let config = home.path().join("ro.json");
    fs::write(&config, "{}\n")?;
    let mut perms = fs::metadata(&config)?.permissions();
    perms.set_readonly(true);
    fs::set_permissions(&config, perms)?;
    let c = config.to_str().ok_or("path")?;
    let out = setup(&env, home.path(), &["cursor", "--config", c])?;
    assert_eq!(out.0.status.code(), Some(1), "{}", out.stderr());
    contains_all(&out.stderr(), &["ro.json", "read-only"])?;
    assert_eq!(fs::read_to_string(&config)?, "{}\n");
    Ok(())
}

/// Clients read the last of two equal keys; setup would edit the first and report success.
/// It refuses instead, naming the line of the second, for registering and for `--remove`.
#[test]
fn setup_refuses_duplicate_keys_on_its_path_with_the_line() -> TestResult {
    let env = Env::new()?;
    let home = tempfile::tempdir()?;
    let cases = [
        (
            "two-servers.json",
            "{\n  \"mcpServers\": {\"a\": {\"command\": \"a\"}},\n  \"x\": 1,\n  \"mcpServers\": {\"goldfish\": {\"command\": \"old\"}}\n}\n",
            ":4:",
            "\"mcpServers\" appears twice",
        ),
        (
            "two-goldfish.json",
            "{\n  \"mcpServers\": {\n    \"goldfish\": {\"command\": \"old\"},\n    \"b\": {},\n    \"goldfish\": {\"command\": \"goldfish\", \"args\": [\"mcp\"]}\n  }\n}\n",
            ":5:",
            "\"goldfish\" appears twice",
        ),
        (
            "two-commands.json",
            "{\"mcpServers\": {\"goldfish\": {\n  \"command\": \"old\",\n  \"command\": \"older\"}}}\n",
            ":3:",
            "\"command\" appears twice",
        ),
    ];
    for (name, text, line, what) in cases {
        let config = home.path().join(name);
        fs::write(&config, text)?;
        let c = config.to_str().ok_or("path")?;
        let actions: &[&[&str]] = if name == "two-commands.json" {
            &[&[]]
        } else {
            &[&[], &["--remove"]]
        };
        for extra in actions {
            let mut args = vec!["claude", "--config", c];
            args.extend_from_slice(extra);
            let out = setup(&env, home.path(), &args)?;
            assert_eq!(
                out.0.status.code(),
                Some(1),
                "{name} {extra:?}: {}",
                out.stderr()
            );
            contains_all(&out.stderr(), &["goldfish: error:", name, line, what])?;
            assert_eq!(fs::read_to_string(&config)?, text, "{name} was changed");
            assert!(!home.path().join(format!("{name}.goldfish-backup")).exists());
        }
    }
    // A duplicate elsewhere is not setup's business: the file is edited as usual.
    let config = home.path().join("other-dup.json");
    fs::write(&config, "{\"a\": 1, \"a\": 2, \"mcpServers\": {}}\n")?;
    let c = config.to_str().ok_or("path")?;
    setup(&env, home.path(), &["claude", "--config", c])?.success(&["claude"])?;
    assert!(fs::read_to_string(&config)?.contains("\"goldfish\""));
    Ok(())
}

#[test]
fn setup_print_and_usage() -> TestResult {
    let env = Env::new()?;
    let out = env.ok(&["setup", "--print"])?;
    let v: serde_json::Value = serde_json::from_str(&out)?;
    assert_eq!(v["mcpServers"]["goldfish"]["command"], "goldfish");
    assert_eq!(v["mcpServers"]["goldfish"]["args"][0], "mcp");
    env.fails(&["setup"], 2, "<CLIENT>")?;
    env.fails(&["setup", "vim"], 2, "claude")?;
    Ok(())
}

// ----- doctor ----------------------------------------------------------------------------

/// A PATH directory holding `goldfish` and `git` (links to the real ones).
fn path_dir(with_goldfish: bool) -> Result<tempfile::TempDir, Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let git = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("git"))
        .find(|p| p.is_file())
        .ok_or("git is not on PATH")?;
    std::os::unix::fs::symlink(git, dir.path().join("git"))?;
    if with_goldfish {
        std::os::unix::fs::symlink(crate::util::bin(), dir.path().join("goldfish"))?;
    }
    Ok(dir)
}

fn doctor(env: &Env, home: &Path, path: &Path, args: &[&str]) -> std::io::Result<crate::util::Out> {
    let mut all = vec!["doctor"];
    all.extend_from_slice(args);
    let out = env
        .cmd(&all)
        .env("HOME", home)
        .env("PATH", path)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .output()?;
    Ok(crate::util::Out(out))
}

#[cfg(unix)]
#[test]
fn doctor_reports_what_to_do_and_exits_1_on_failure() -> TestResult {
    use std::os::unix::fs::PermissionsExt as _;
    let env = Env::new()?;
    let home = tempfile::tempdir()?;
    fs::set_permissions(env.home(), fs::Permissions::from_mode(0o700))?;
    let without = path_dir(false)?;
    let out = doctor(&env, home.path(), without.path(), &[])?;
    assert_eq!(out.0.status.code(), Some(1), "{}", out.stdout());
    contains_all(
        &out.stdout(),
        &[
            "[FAIL] binary",
            "→",
            "goldfish setup claude",
            "Some checks failed",
        ],
    )?;

    let with = path_dir(true)?;
    for client in ["claude", "codex", "cursor"] {
        // With this store's GOLDFISH_HOME, as a user of it runs setup (it is recorded).
        let out = env
            .cmd(&["setup", client])
            .env("HOME", home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .output()?;
        crate::util::Out(out).success(&[client])?;
    }
    let out = doctor(&env, home.path(), with.path(), &[])?;
    out.success(&["doctor"])?;
    contains_all(
        &out.stdout(),
        &[
            "[ok] binary",
            "[ok] claude",
            "[ok] git",
            "goldfish is ready",
        ],
    )?;
    assert!(!out.stdout().contains("FAIL"), "{}", out.stdout());
    Ok(())
}

#[cfg(unix)]
#[test]
fn doctor_fix_makes_the_store_private_and_registers_the_merge_driver() -> TestResult {
    use std::os::unix::fs::PermissionsExt as _;
    let env = Env::new()?;
    let home = tempfile::tempdir()?;
    let path = path_dir(true)?;
    fs::set_permissions(env.home(), fs::Permissions::from_mode(0o755))?;
    // The working directory is a repository that keeps goldfish memory.
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(env.cwd.path())
        .status()?;
    assert!(git.success());
    fs::write(
        env.cwd.path().join(".gitattributes"),
        "JOURNAL.md merge=goldfish\n",
    )?;

    let out = doctor(&env, home.path(), path.path(), &[])?;
    assert_eq!(out.0.status.code(), Some(1), "{}", out.stdout());
    contains_all(
        &out.stdout(),
        &[
            "[FAIL] merge-driver",
            "goldfish doctor --fix",
            "[warn] store",
        ],
    )?;

    let out = doctor(&env, home.path(), path.path(), &["--fix"])?;
    out.success(&["doctor", "--fix"])?;
    contains_all(
        &out.stdout(),
        &[
            "fixed: made",
            "0700",
            "fixed: registered the goldfish merge driver",
            "[ok] merge-driver",
        ],
    )?;
    assert_eq!(
        fs::metadata(env.home())?.permissions().mode() & 0o777,
        0o700
    );
    let config = fs::read_to_string(env.cwd.path().join(".git/config"))?;
    assert!(
        config.contains("[merge \"goldfish\"]") && config.contains("merge-driver"),
        "{config}"
    );

    // Nothing left to fix.
    let out = doctor(&env, home.path(), path.path(), &["--fix"])?;
    out.success(&["doctor", "--fix"])?;
    assert!(!out.stdout().contains("fixed:"), "{}", out.stdout());
    Ok(())
}
