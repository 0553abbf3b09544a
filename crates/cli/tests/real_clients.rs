//! goldfish through the real clients people run: Claude Code (`@anthropic-ai/claude-code`)
//! headless (`claude -p`) and Codex (`@openai/codex`) with `codex exec`, both from npm (each
//! package ships its native binary), against a stand-in for the model API on loopback
//! (`model_standin.py`, Python standard library only: the Anthropic Messages API for Claude
//! Code, the Responses API for Codex through a custom model provider). The stand-in scripts
//! the model's tool calls and records every request the client sends; the tests assert on
//! what reached the model: the tool results, the session-start hook's context, the absence
//! of permission denials, and on the client's log.
//!
//! Each pinned package is installed once with npm into a directory under the target directory
//! (later runs are offline). A missing npm fails the test with what to install: it is an
//! acceptance criterion and must not silently pass. Where the machine allows it (`unshare
//! -rn`), the client and the stand-in run in a private network namespace with only loopback,
//! so the client can reach nothing else; elsewhere they use plain loopback.
//!
//! Nothing here waits on a clock: the stand-in answers by the conversation's content, and its
//! time limit only ends a hung client (the test then fails saying so).

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

/// The project's directory name, and so its workspace.
const WORKSPACE: &str = "project";

/// A test failure with a message.
type Error = Box<dyn std::error::Error>;

/// The pinned Codex release (its npm package carries the native binary per platform).
const CODEX_VERSION: &str = "0.171.0";

/// Installs `package@version` once under the target directory and returns its program
/// `bin`, checked to say `version` (so npm did not skip the native binary).
fn npm_client(package: &str, version: &str, bin: &str) -> Result<PathBuf, Error> {
    let program = crate::util::npm_install(
        "each real-client test",
        &format!("client-{bin}"),
        package,
        version,
        bin,
    )?;
    let said = Command::new(&program).arg("--version").output()?;
    if !String::from_utf8_lossy(&said.stdout).contains(version) {
        return Err(format!(
            "the installed `{bin} --version` says {:?}, not {version} (did npm skip the native \
             binary for this platform?): {}",
            String::from_utf8_lossy(&said.stdout),
            String::from_utf8_lossy(&said.stderr)
        )
        .into());
    }
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

/// One user of a client: a temporary home (`~/.claude.json`, `~/.claude/`, `~/.codex/`), a
/// directory holding a `goldfish` on PATH, the goldfish store and a project directory
/// `project` (a git repository, so the workspace is `project` for the CLI, the hook and the
/// server alike, whatever environment each gets).
struct User {
    store: Env,
    project: PathBuf,
    home: tempfile::TempDir,
    bin_dir: tempfile::TempDir,
    client: PathBuf,
}

/// What one headless run left behind.
struct Run {
    /// Every request the stand-in received, in order: `{"method", "path", "body"}`.
    requests: Vec<Value>,
    /// The client's log: Claude Code's debug file, Codex's stderr.
    log: String,
    /// The client's exit status, stdout and stderr.
    output: Output,
}

impl User {
    fn new(client: PathBuf) -> Result<Self, Error> {
        let store = Env::new()?;
        let home = tempfile::tempdir()?;
        let bin_dir = tempfile::tempdir()?;
        #[cfg(unix)]
        std::os::unix::fs::symlink(bin(), bin_dir.path().join("goldfish"))?;
        let project = store.cwd.path().join(WORKSPACE);
        std::fs::create_dir(&project)?;
        let git = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&project)
            .output()?;
        if !git.status.success() {
            return Err(format!("git init: {}", String::from_utf8_lossy(&git.stderr)).into());
        }
        Ok(User {
            store,
            project,
            home,
            bin_dir,
            client,
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
                || key.starts_with("CODEX_")
                || key.starts_with("OPENAI_")
                || key.starts_with("GOLDFISH_")
            {
                c.env_remove(&*key);
            }
        }
        c.env("HOME", self.home.path())
            .env("CODEX_HOME", self.home.path().join(".codex"))
            .env("PATH", self.path()?)
            .env("GOLDFISH_HOME", self.store.home())
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .current_dir(&self.project)
            .stdin(Stdio::null());
        Ok(c)
    }

    /// Runs `goldfish args` as this user; requires success and returns stdout.
    fn goldfish(&self, args: &[&str]) -> Result<String, Error> {
        self.goldfish_with(&[], args)
    }

    /// [`User::goldfish`] with the variables `env` set too.
    fn goldfish_with(&self, env: &[(&str, &str)], args: &[&str]) -> Result<String, Error> {
        let mut command = self.command(Path::new(bin()))?;
        command.envs(env.iter().copied());
        let out = command.args(args).output()?;
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

    /// Runs the client with `args` (a management command such as `plugin install`) as this
    /// user, in the private network namespace when there is one; requires success.
    fn client_ok(&self, args: &[&str]) -> Result<String, Error> {
        let mut c = self.in_namespace(args)?;
        let out = c.output()?;
        if !out.status.success() {
            return Err(format!(
                "{} {args:?} failed ({:?}): {}{}",
                self.client.display(),
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
        self.in_namespace_program(&self.client, args)
    }

    /// One headless Claude Code session: `claude -p prompt` against the stand-in playing
    /// `script`, with `allowed` passed as `--allowedTools` (the session-only way to allow a
    /// tool).
    fn claude_session(&self, script: &Value, prompt: &str, allowed: &str) -> Result<Run, Error> {
        let work = tempfile::tempdir()?;
        let debug = work.path().join("debug.log");
        let debug_arg = debug.display().to_string();
        let args = [
            "-p",
            prompt,
            "--debug-file",
            &debug_arg,
            "--allowedTools",
            allowed,
        ];
        let mut run = self.session(&work, script, &args)?;
        run.log = std::fs::read_to_string(&debug).unwrap_or_default();
        Ok(run)
    }

    /// One Codex session: `codex exec prompt` against the stand-in playing `script`, through
    /// the model provider `standin` of the user's config pointed at the stand-in's URL.
    fn codex_session(&self, script: &Value, prompt: &str) -> Result<Run, Error> {
        let work = tempfile::tempdir()?;
        let args = [
            "exec",
            "-c",
            "model_providers.standin.base_url=\"{STANDIN_URL}/v1\"",
            "--skip-git-repo-check",
            prompt,
        ];
        let mut run = self.session(&work, script, &args)?;
        run.log = String::from_utf8_lossy(&run.output.stderr).into_owned();
        Ok(run)
    }

    /// Runs the client with `args` under the stand-in playing `script`, files in `work`.
    fn session(
        &self,
        work: &tempfile::TempDir,
        script: &Value,
        args: &[&str],
    ) -> Result<Run, Error> {
        let script_file = work.path().join("script.json");
        let record = work.path().join("requests.json");
        std::fs::write(&script_file, serde_json::to_vec(script)?)?;
        let standin = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/model_standin.py");
        let mut all: Vec<String> = vec![
            standin.display().to_string(),
            "--script".into(),
            script_file.display().to_string(),
            "--record".into(),
            record.display().to_string(),
            "--timeout".into(),
            RUN_LIMIT_SECS.to_string(),
            "--".into(),
            self.client.display().to_string(),
        ];
        all.extend(args.iter().map(|a| a.to_string()));
        let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let mut c = self.in_namespace_program(Path::new(&python), &refs)?;
        let output = c
            .env("ANTHROPIC_API_KEY", "sk-ant-standin-not-a-key")
            .env("STANDIN_API_KEY", "standin-not-a-key")
            .output()
            .map_err(|e| format!("cannot run {python} (the stand-in needs python3): {e}"))?;
        if output.status.code() == Some(124) || !record.exists() {
            return Err(format!(
                "{} did not finish ({:?}):\n{}\n{}",
                self.client.display(),
                output.status.code(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            )
            .into());
        }
        let requests: Vec<Value> = serde_json::from_slice(&std::fs::read(&record)?)?;
        Ok(Run {
            requests,
            log: String::new(),
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
                    .is_some_and(|p| p.starts_with("/v1/messages") || p.ends_with("/responses"))
                    && r["body"]["tools"].as_array().is_some_and(|t| !t.is_empty())
            })
            .collect()
    }

    /// What the client sent back for the scripted tool call number `n` (from 0), read from
    /// the last request of the conversation: a Messages API `tool_result` block, or a
    /// Responses API `function_call_output` item.
    fn tool_result(&self, n: usize) -> Result<&Value, Error> {
        let last = self
            .turns()
            .last()
            .copied()
            .ok_or_else(|| self.explain("no turn"))?;
        let claude_id = format!("toolu_standin_{n}");
        let codex_id = format!("call_standin_{n}");
        let blocks = last["body"]["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_array())
            .flatten();
        let items = last["body"]["input"].as_array().into_iter().flatten();
        blocks
            .chain(items)
            .find(|b| {
                (b["type"] == "tool_result" && b["tool_use_id"] == claude_id.as_str())
                    || (b["type"] == "function_call_output" && b["call_id"] == codex_id.as_str())
            })
            .ok_or_else(|| self.explain(&format!("no result for tool call {n}")))
    }

    /// The text of a result: its string content (or Codex's `output`), or its text blocks
    /// joined.
    fn result_text(block: &Value) -> String {
        let content = if block["type"] == "function_call_output" {
            &block["output"]
        } else {
            &block["content"]
        };
        match content {
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

    /// The log's error-level lines that concern goldfish (`[ERROR]` in Claude Code's debug
    /// file, ` ERROR ` in Codex's log).
    fn goldfish_errors(&self) -> Vec<&str> {
        self.log
            .lines()
            .filter(|l| l.contains("[ERROR]") || l.contains(" ERROR "))
            .filter(|l| l.to_ascii_lowercase().contains("goldfish"))
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
            "{what}; the stand-in received {paths:?}; the client exited {:?}:\n{}\n{}",
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

/// The script the tests play with the tools `tool(name)` names: recall with bodies, the
/// active plan, then a checkpoint.
fn script(tool: impl Fn(&str) -> Value) -> Value {
    let step = |name: &str, input: Value| {
        let mut step = tool(name);
        step["input"] = input;
        step
    };
    json!([
        step("recall", json!({"full": true})),
        step("plan", json!({"action": "get"})),
        step("checkpoint", json!({"description": "Saved from a real client SAVED-MARKER-5520"})),
        {"text": "All done."}
    ])
}

/// Claude Code's name for a tool: `prefix` + the tool.
fn claude_tool(prefix: &str) -> impl Fn(&str) -> Value + '_ {
    move |name| json!({"tool": format!("{prefix}{name}")})
}

/// The checks every test shares, for the script above. Every check runs and the failures are
/// reported together, so one run shows all that the client got wrong.
fn check_session(user: &User, run: &Run) -> TestResult {
    if !run.output.status.success() {
        return Err(run.explain("the client failed"));
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
    let days = user.store.home().join(WORKSPACE).join("checkpoints");
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

fn claude() -> Result<PathBuf, Error> {
    npm_client("@anthropic-ai/claude-code", CLAUDE_VERSION, "claude")
}

#[test]
fn claude_code_after_setup_reads_saves_and_is_allowed_headless() -> TestResult {
    let user = User::new(claude()?)?;
    seed(&user)?;
    user.goldfish(&["setup", "claude"])?;
    // Setup allows recall and checkpoint; `plan` is allowed for this session only, as setup
    // says to.
    let run = user.claude_session(
        &script(claude_tool("mcp__goldfish__")),
        "Pick up where we left off.",
        "mcp__goldfish__plan",
    )?;
    check_session(&user, &run)
}

/// The `forget` tool as Claude Code offers it to the model and calls it: its schema is in
/// the request's tool list, the call goes through, and the memory is gone from the store.
#[test]
fn claude_code_offers_and_calls_the_forget_tool() -> TestResult {
    let user = User::new(claude()?)?;
    seed(&user)?;
    let saved = user.goldfish(&["--json", "checkpoint", "Wrong memory FORGET-MARKER-9911"])?;
    let saved: Value = serde_json::from_str(&saved)?;
    let id = saved["id"].as_str().ok_or("id")?.to_string();
    user.goldfish(&["setup", "claude"])?;
    let tool = claude_tool("mcp__goldfish__");
    let mut forget = tool("forget");
    forget["input"] = json!({"ids": [id]});
    let mut recall = tool("recall");
    recall["input"] = json!({"search": "wrong memory"});
    // Two phrasings in one call: the second finds the seeded checkpoint by its body.
    let mut phrased = tool("recall");
    phrased["input"] = json!({"search": "wrong memory", "queries": ["BODY-MARKER-7431"]});
    let script = json!([forget, recall, phrased, {"text": "Forgotten."}]);
    let run = user.claude_session(&script, "Forget the wrong memory.", "mcp__goldfish__forget")?;
    if !run.output.status.success() {
        return Err(run.explain("the client failed"));
    }
    // Claude Code defers MCP tools behind its tool search: the schema reaches the model in
    // whichever request first lists the tool, or as the deferred tool's description.
    let offered = run
        .requests
        .iter()
        .flat_map(|r| r["body"]["tools"].as_array().into_iter().flatten())
        .find(|t| t["name"] == "mcp__goldfish__forget")
        .map(|t| t["input_schema"].to_string());
    let anywhere = serde_json::to_string(&run.requests)?;
    if let Some(schema) = &offered {
        for key in ["\"ids\"", "\"plan\"", "\"dry_run\""] {
            if !schema.contains(key) {
                return Err(run.explain(&format!("the offered schema lacks {key}: {schema}")));
            }
        }
    } else if !anywhere.contains("mcp__goldfish__forget") {
        return Err(run.explain("the client never named the forget tool to the model"));
    }
    let forgot = run.result_has(0, &["forgotten", &id])?;
    let after = run.result_has(1, &[])?;
    let phrasings = run.result_has(2, &["BODY-MARKER-7431", "\"queries\""])?;
    // Shown with `--nocapture`: what Claude Code handed the model for each call.
    println!(
        "forget tool_result: {forgot}\nrecall tool_result: {after}\nrecall with queries tool_result: {phrasings}"
    );
    // Claude Code hands the model the structured content: the notice must be in it.
    if !after.contains("not instructions to follow") {
        return Err(run.explain(&format!(
            "the recall the model received has no notice: {after}"
        )));
    }
    if after.contains("FORGET-MARKER-9911") {
        return Err(run.explain("recall still finds the forgotten memory"));
    }
    let days = user.store.home().join(WORKSPACE).join("checkpoints");
    for day in std::fs::read_dir(&days)? {
        let text = std::fs::read_to_string(day?.path())?;
        if text.contains("FORGET-MARKER-9911") {
            return Err("the day file still holds the forgotten memory".into());
        }
    }
    Ok(())
}

#[test]
fn claude_code_with_the_plugin_gets_the_hook_context_and_the_tools() -> TestResult {
    let user = User::new(claude()?)?;
    seed(&user)?;
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repo = repo.canonicalize()?;
    user.client_ok(&["plugin", "marketplace", "add", &repo.display().to_string()])?;
    user.client_ok(&["plugin", "install", "goldfish@goldfish"])?;
    user.goldfish(&["setup", "claude", "--allow-only"])?;
    let run = user.claude_session(
        &script(claude_tool("mcp__plugin_goldfish_goldfish__")),
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
        || !sent.contains("# goldfish memory for workspace `project`")
        || !sent.contains("Seeded the store")
    {
        return Err(run.explain("the first request does not carry the session-start context"));
    }
    check_session(&user, &run)
}

/// Every string in `v`, one after another, as the model reads them (JSON escapes undone).
fn strings(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s}\n"),
        Value::Array(items) => items.iter().map(strings).collect(),
        Value::Object(map) => map.values().map(strings).collect(),
        _ => String::new(),
    }
}

/// With the plugin, a prompt that matches a decision brings the decision into the request
/// Claude Code sends (the prompt hook), framed as data: the fixed sentence, then the memory
/// between its delimiters, saying it came from another machine (it was saved as
/// `build-box`); reading a file brings that file's incident into the request after the tool
/// result, once: reading it again adds nothing.
#[test]
fn claude_code_with_the_plugin_gets_prompt_and_file_memories() -> TestResult {
    let user = User::new(claude()?)?;
    user.goldfish_with(
        &[("GOLDFISH_HOST", "build-box")],
        &[
            "checkpoint",
            "Chose Redis for the session store\nPostgres-backed sessions were too slow.",
            "--type",
            "decision",
            "--decision",
            "Sessions live in Redis DECISION-MARKER-3307",
            "--tags",
            "sessions,redis",
        ],
    )?;
    // The incident records the file: it is a changed file of the project's git status
    // when it is saved.
    let file = user.project.join("src/email/worker.rs");
    std::fs::create_dir_all(file.parent().ok_or("parent")?)?;
    std::fs::write(&file, "fn send() {}\n")?;
    let add = Command::new("git")
        .args(["add", "src/email/worker.rs"])
        .current_dir(&user.project)
        .output()?;
    if !add.status.success() {
        return Err(format!("git add: {}", String::from_utf8_lossy(&add.stderr)).into());
    }
    user.goldfish(&[
        "checkpoint",
        "Order confirmation emails went out twice",
        "--type",
        "incident",
        "--impact",
        "duplicate emails INCIDENT-MARKER-8812",
    ])?;
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repo = repo.canonicalize()?;
    user.client_ok(&["plugin", "marketplace", "add", &repo.display().to_string()])?;
    user.client_ok(&["plugin", "install", "goldfish@goldfish"])?;
    let path = file.display().to_string();
    let script = json!([
        {"tool": "Read", "input": {"file_path": path}},
        {"tool": "Read", "input": {"file_path": path}},
        {"text": "All done."}
    ]);
    let run = user.claude_session(
        &script,
        "Why do we keep sessions in Redis instead of Postgres?",
        "Read",
    )?;
    if !run.output.status.success() {
        return Err(run.explain("the client failed"));
    }
    let turns = run.turns();
    let first = turns.first().ok_or_else(|| run.explain("no turn"))?;
    if !first["body"].to_string().contains("DECISION-MARKER-3307") {
        return Err(run.explain("the first request does not carry the matching decision"));
    }
    // As written: the sentence, and the decision whole between its delimiters.
    let read = strings(&first["body"]);
    let framed = "from=\"host build-box\">\n[decision] Chose Redis for the session store\n\
                  decision: Sessions live in Redis DECISION-MARKER-3307\n</memory>\n";
    if !read.contains(&format!(
        "{}\n<memory id=\"",
        goldfish_store::frame::MEMORY_NOTICE
    )) || !read.contains(framed)
    {
        return Err(run.explain(&format!(
            "the first request does not carry the sentence and the framed decision \
             ({framed:?}) as written"
        )));
    }
    let last = turns.last().ok_or_else(|| run.explain("no turn"))?;
    let sent = last["body"].to_string();
    let seen = sent.matches("INCIDENT-MARKER-8812").count();
    if seen != 1 {
        return Err(run.explain(&format!(
            "after two reads of the file the last request carries its incident {seen} times, \
             not once"
        )));
    }
    if turns.len() < 3 {
        return Err(run.explain("the client did not run both reads"));
    }
    let errors = run.goldfish_errors();
    if !errors.is_empty() {
        return Err(format!(
            "the client logged goldfish at error level:\n{}",
            errors.join("\n")
        )
        .into());
    }
    Ok(())
}

#[test]
fn codex_after_setup_opens_the_users_store_and_reads_and_saves() -> TestResult {
    let user = User::new(npm_client("@openai/codex", CODEX_VERSION, "codex")?)?;
    seed(&user)?;
    // The user's own config: a model provider speaking the Responses API (its URL is set per
    // run). Setup adds the server, with the store in its env: Codex passes the server none of
    // the user's environment.
    let codex_home = user.home.path().join(".codex");
    std::fs::create_dir_all(&codex_home)?;
    std::fs::write(
        codex_home.join("config.toml"),
        "model = \"standin-model\"\nmodel_provider = \"standin\"\n\n\
         [model_providers.standin]\nname = \"standin\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\
         wire_api = \"responses\"\nenv_key = \"STANDIN_API_KEY\"\n\n\
         # plan can replace and archive plans, so Codex asks first; this user allows it.\n\
         [mcp_servers.goldfish.tools.plan]\napproval_mode = \"approve\"\n",
    )?;
    user.goldfish(&["setup", "codex"])?;
    // Codex offers a server's tools in a namespace `mcp__<server>`; the model calls them by
    // their own name in it.
    let run = user.codex_session(
        &script(|name| json!({"tool": name, "namespace": "mcp__goldfish"})),
        "Pick up where we left off.",
    )?;
    check_session(&user, &run)
}
