//! goldfish through the real Claude Code CLI (`@anthropic-ai/claude-code` from npm, which
//! ships its native binary), run headless (`claude -p`) against a stand-in for the Anthropic
//! Messages API on loopback (`model_standin.py`, Python standard library only). The stand-in
//! scripts the model's tool calls and records every request the client sends; the tests
//! assert on what reached the model: the tool results, the session-start hook's context, the
//! absence of permission denials, and on the client's debug log.
//!
//! The pinned package is installed once with npm into a directory under the target directory
//! (later runs are offline). A missing npm fails the test with what to install: it is an
//! acceptance criterion and must not silently pass. Where the machine allows it (`unshare
//! -rn`), the client and the stand-in run in a private network namespace with only loopback,
//! so the client can reach nothing else; elsewhere they use plain loopback.
//!
//! Nothing here waits on a clock: the stand-in answers by the conversation's content, and its
//! time limit only ends a hung client (the test then fails saying so).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::util::{Env, TestResult, bin};

/// The pinned Claude Code release: its npm package carries the native binary per platform as
/// optional dependencies, so the install needs nothing but the npm registry.
const CLAUDE_VERSION: &str = "2.1.332";

/// How long one headless run may take before the stand-in kills the client (a hang guard,
/// far above the few seconds a run takes).
const RUN_LIMIT_SECS: u32 = 300;

/// A test failure with a message.
type Error = Box<dyn std::error::Error>;

/// Installs Claude Code once (a lock file serialises parallel test processes) and returns the
/// `claude` program.
fn claude() -> Result<PathBuf, Error> {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(root)?;
    let dir = root.join("claude-code");
    let program = dir.join("node_modules/.bin/claude");
    let ready = dir.join(format!(".goldfish-ready-claude-code-{CLAUDE_VERSION}"));
    let lock = File::create(root.join("claude-code.lock"))?;
    lock.lock()?;
    if ready.exists() && program.exists() {
        return Ok(program);
    }
    let npm = std::env::var("NPM").unwrap_or_else(|_| "npm".to_string());
    if let Err(e) = Command::new(&npm).arg("--version").output() {
        return Err(format!(
            "the Claude Code test needs npm (and node) to install @anthropic-ai/claude-code, \
             but `{npm} --version` failed: {e}. Install Node.js 20 or later (apt-get install \
             nodejs npm) or set NPM."
        )
        .into());
    }
    std::fs::create_dir_all(&dir)?;
    let out = Command::new(&npm)
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(&dir)
        .arg(format!("@anthropic-ai/claude-code@{CLAUDE_VERSION}"))
        .output()?;
    if !out.status.success() || !program.exists() {
        return Err(format!(
            "npm install @anthropic-ai/claude-code@{CLAUDE_VERSION} failed ({:?}):\n{}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    let version = Command::new(&program).arg("--version").output()?;
    let said = String::from_utf8_lossy(&version.stdout);
    if !said.contains(CLAUDE_VERSION) {
        return Err(format!(
            "the installed `claude --version` says {said:?}, not {CLAUDE_VERSION} (did npm skip \
             the native binary for this platform?): {}",
            String::from_utf8_lossy(&version.stderr)
        )
        .into());
    }
    File::create(&ready)?;
    Ok(program)
}

/// True when a private network namespace with loopback up can be made here.
fn private_network() -> bool {
    static ANSWER: OnceLock<bool> = OnceLock::new();
    *ANSWER.get_or_init(|| {
        Command::new("unshare")
            .args(["-rn", "sh", "-c", "ip link set lo up"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// One user of Claude Code: a temporary home (`~/.claude.json`, `~/.claude/`), a directory
/// holding a `goldfish` on PATH, the goldfish store and a project directory (a git repository).
struct User {
    store: Env,
    home: tempfile::TempDir,
    bin_dir: tempfile::TempDir,
    claude: PathBuf,
}

/// What one headless run left behind.
struct Run {
    /// Every request the stand-in received, in order: `{"method", "path", "body"}`.
    requests: Vec<Value>,
    /// The client's debug log.
    debug_log: String,
    /// The client's exit status, stdout and stderr.
    output: Output,
}

impl User {
    fn new() -> Result<Self, Error> {
        let claude = claude()?;
        let store = Env::new()?;
        let home = tempfile::tempdir()?;
        let bin_dir = tempfile::tempdir()?;
        #[cfg(unix)]
        std::os::unix::fs::symlink(bin(), bin_dir.path().join("goldfish"))?;
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(store.cwd.path())
            .output()?;
        if !git.status.success() {
            return Err(format!("git init: {}", String::from_utf8_lossy(&git.stderr)).into());
        }
        Ok(User {
            store,
            home,
            bin_dir,
            claude,
        })
    }

    /// PATH with the `goldfish` under test first.
    fn path(&self) -> Result<std::ffi::OsString, Error> {
        let mut dirs = vec![self.bin_dir.path().to_path_buf()];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        Ok(std::env::join_paths(dirs)?)
    }

    /// A command in this user's environment: the temporary HOME, the store, the project
    /// directory, and no variable of the machine's own Claude Code or goldfish setup.
    fn command(&self, program: &Path) -> Result<Command, Error> {
        let mut c = Command::new(program);
        for (key, _) in std::env::vars_os() {
            let key = key.to_string_lossy();
            if key.starts_with("ANTHROPIC_")
                || key.starts_with("CLAUDE")
                || key.starts_with("GOLDFISH_")
            {
                c.env_remove(&*key);
            }
        }
        c.env("HOME", self.home.path())
            .env("PATH", self.path()?)
            .env("GOLDFISH_HOME", self.store.home())
            .env("GOLDFISH_WORKSPACE", "claude")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .current_dir(self.store.cwd.path())
            .stdin(Stdio::null());
        Ok(c)
    }

    /// Runs `goldfish args` as this user; requires success and returns stdout.
    fn goldfish(&self, args: &[&str]) -> Result<String, Error> {
        let out = self.command(Path::new(bin()))?.args(args).output()?;
        if !out.status.success() {
            return Err(format!(
                "goldfish {args:?} failed ({:?}): {}{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Runs `claude args` (a management command such as `plugin install`) as this user, in
    /// the private network namespace when there is one; requires success.
    fn claude_ok(&self, args: &[&str]) -> Result<String, Error> {
        let mut c = self.in_namespace(args)?;
        let out = c.output()?;
        if !out.status.success() {
            return Err(format!(
                "claude {args:?} failed ({:?}): {}{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// `program args`, wrapped in `unshare -rn` (loopback up) when that works here.
    fn in_namespace_program(&self, program: &Path, args: &[&str]) -> Result<Command, Error> {
        if !private_network() {
            let mut c = self.command(program)?;
            c.args(args);
            return Ok(c);
        }
        let mut c = self.command(Path::new("unshare"))?;
        c.args(["-rn", "sh", "-c", "ip link set lo up && exec \"$@\"", "sh"])
            .arg(program)
            .args(args);
        Ok(c)
    }

    fn in_namespace(&self, args: &[&str]) -> Result<Command, Error> {
        self.in_namespace_program(&self.claude, args)
    }

    /// One headless session: `claude -p prompt` against the stand-in playing `script`, with
    /// `allowed` passed as `--allowedTools` (the session-only way to allow a tool).
    fn session(&self, script: &Value, prompt: &str, allowed: &str) -> Result<Run, Error> {
        let work = tempfile::tempdir()?;
        let script_file = work.path().join("script.json");
        let record = work.path().join("requests.json");
        let debug = work.path().join("debug.log");
        std::fs::write(&script_file, serde_json::to_vec(script)?)?;
        let standin = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/model_standin.py");
        let args: Vec<String> = vec![
            standin.display().to_string(),
            "--script".into(),
            script_file.display().to_string(),
            "--record".into(),
            record.display().to_string(),
            "--timeout".into(),
            RUN_LIMIT_SECS.to_string(),
            "--".into(),
            self.claude.display().to_string(),
            "-p".into(),
            prompt.into(),
            "--debug-file".into(),
            debug.display().to_string(),
            "--allowedTools".into(),
            allowed.into(),
        ];
        let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut c = self.in_namespace_program(Path::new(&python), &refs)?;
        let output = c
            .env("ANTHROPIC_API_KEY", "sk-ant-standin-not-a-key")
            .output()
            .map_err(|e| format!("cannot run {python} (the stand-in needs python3): {e}"))?;
        if output.status.code() == Some(124) || !record.exists() {
            return Err(format!(
                "claude -p did not finish ({:?}):\n{}\n{}",
                output.status.code(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            )
            .into());
        }
        let requests: Vec<Value> = serde_json::from_slice(&std::fs::read(&record)?)?;
        let debug_log = std::fs::read_to_string(&debug).unwrap_or_default();
        Ok(Run {
            requests,
            debug_log,
            output,
        })
    }
}

impl Run {
    /// The conversation's requests (those offering tools), in order.
    fn turns(&self) -> Vec<&Value> {
        self.requests
            .iter()
            .filter(|r| {
                r["path"]
                    .as_str()
                    .is_some_and(|p| p.starts_with("/v1/messages"))
                    && r["body"]["tools"].as_array().is_some_and(|t| !t.is_empty())
            })
            .collect()
    }

    /// What the client sent back for the scripted tool call number `n` (from 0): the
    /// `tool_result` block, read from the last request of the conversation.
    fn tool_result(&self, n: usize) -> Result<&Value, Error> {
        let id = format!("toolu_standin_{n}");
        let last = self
            .turns()
            .last()
            .copied()
            .ok_or_else(|| self.explain("no turn"))?;
        last["body"]["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .find(|b| b["type"] == "tool_result" && b["tool_use_id"] == id.as_str())
            .ok_or_else(|| self.explain(&format!("no tool_result for {id}")))
    }

    /// The text of a `tool_result` block: its string content, or its text blocks joined.
    fn result_text(block: &Value) -> String {
        match &block["content"] {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            other => other.to_string(),
        }
    }

    /// The tool result `n` as text, required to be a success (no permission denial, no
    /// error) and to contain every one of `needles`.
    fn result_has(&self, n: usize, needles: &[&str]) -> Result<String, Error> {
        let block = self.tool_result(n)?;
        let text = Self::result_text(block);
        if block["is_error"] == true {
            return Err(format!("tool call {n} failed in the client: {text}").into());
        }
        for needle in needles {
            if !text.contains(needle) {
                return Err(format!(
                    "tool call {n}: the model received no {needle:?}; it received:\n{text}"
                )
                .into());
            }
        }
        Ok(text)
    }

    /// The debug log's error-level lines that concern goldfish.
    fn goldfish_errors(&self) -> Vec<&str> {
        self.debug_log
            .lines()
            .filter(|l| l.contains("[ERROR]") && l.to_ascii_lowercase().contains("goldfish"))
            .collect()
    }

    /// A failure message carrying the client's output and the paths it asked for.
    fn explain(&self, what: &str) -> Error {
        let paths: Vec<&str> = self
            .requests
            .iter()
            .filter_map(|r| r["path"].as_str())
            .collect();
        format!(
            "{what}; the stand-in received {paths:?}; claude exited {:?}:\n{}\n{}",
            self.output.status.code(),
            String::from_utf8_lossy(&self.output.stdout),
            String::from_utf8_lossy(&self.output.stderr)
        )
        .into()
    }
}

/// A store with one checkpoint whose body differs from its title, and an active plan with a
/// checklist.
fn seed(user: &User) -> TestResult {
    user.goldfish(&[
        "checkpoint",
        "Seeded the store\n\nThe body says BODY-MARKER-7431 and only the body says it.",
    ])?;
    user.goldfish(&[
        "plan",
        "save",
        "--title",
        "Ship the widget",
        "--content",
        "- [x] design CHECKLIST-DONE-1\n- [ ] build CHECKLIST-OPEN-2\n",
    ])?;
    Ok(())
}

/// The script both tests play with the tools named `prefix` + tool: recall with bodies, the
/// active plan, then a checkpoint.
fn script(prefix: &str) -> Value {
    json!([
        {"tool": format!("{prefix}recall"), "input": {"full": true}},
        {"tool": format!("{prefix}plan"), "input": {"action": "get"}},
        {"tool": format!("{prefix}checkpoint"),
         "input": {"description": "Saved from Claude Code SAVED-MARKER-5520"}},
        {"text": "All done."}
    ])
}

/// The checks both tests share, for the script above. Every check runs and the failures are
/// reported together, so one run shows all that the client got wrong.
fn check_session(user: &User, run: &Run) -> TestResult {
    if !run.output.status.success() {
        return Err(run.explain("claude -p failed"));
    }
    let mut problems: Vec<String> = Vec::new();
    let mut check = |result: Result<String, Error>| {
        if let Err(e) = result {
            problems.push(e.to_string());
        }
    };
    check(run.result_has(0, &["Seeded the store", "BODY-MARKER-7431"]));
    check(run.result_has(
        1,
        &["Ship the widget", "CHECKLIST-DONE-1", "CHECKLIST-OPEN-2"],
    ));
    check(run.result_has(2, &["SAVED-MARKER-5520"]));
    let days = user.store.home().join("claude/checkpoints");
    let saved = std::fs::read_dir(&days)
        .map_err(|e| format!("{}: {e}", days.display()))?
        .filter_map(Result::ok)
        .filter_map(|d| std::fs::read_to_string(d.path()).ok())
        .any(|text| text.contains("SAVED-MARKER-5520"));
    if !saved {
        problems.push(format!(
            "no day file in {} has the checkpoint",
            days.display()
        ));
    }
    let errors = run.goldfish_errors();
    if !errors.is_empty() {
        problems.push(format!(
            "the client logged goldfish at error level:\n{}",
            errors.join("\n")
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n\n").into())
    }
}

#[test]
fn claude_code_after_setup_reads_saves_and_is_allowed_headless() -> TestResult {
    let user = User::new()?;
    seed(&user)?;
    user.goldfish(&["setup", "claude"])?;
    // Setup allows recall and checkpoint; `plan` is allowed for this session only, as setup
    // says to.
    let run = user.session(
        &script("mcp__goldfish__"),
        "Pick up where we left off.",
        "mcp__goldfish__plan",
    )?;
    check_session(&user, &run)
}

#[test]
fn claude_code_with_the_plugin_gets_the_hook_context_and_the_tools() -> TestResult {
    let user = User::new()?;
    seed(&user)?;
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repo = repo.canonicalize()?;
    user.claude_ok(&["plugin", "marketplace", "add", &repo.display().to_string()])?;
    user.claude_ok(&["plugin", "install", "goldfish@goldfish"])?;
    user.goldfish(&["setup", "claude", "--allow-only"])?;
    let run = user.session(
        &script("mcp__plugin_goldfish_goldfish__"),
        "Pick up where we left off.",
        "mcp__plugin_goldfish_goldfish__plan",
    )?;
    let first = run
        .turns()
        .first()
        .copied()
        .ok_or_else(|| run.explain("no turn"))?;
    let sent = first["body"].to_string();
    if !sent.contains("SessionStart hook additional context")
        || !sent.contains("# goldfish memory for workspace `claude`")
        || !sent.contains("Seeded the store")
    {
        return Err(run.explain("the first request does not carry the session-start context"));
    }
    check_session(&user, &run)
}
