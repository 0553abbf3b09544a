//! Freshness with real git history: whether the files a checkpoint names changed since its
//! commit, in recall (text, `--json`, `--stale`, `--fresh`), MCP, the file hook and the web
//! view, with one git process per recall at most (counted by a `git` wrapper first on PATH).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::util::{Env, Out, TestResult, contains_all, ids};

type Error = Box<dyn std::error::Error>;

/// A temporary store and a git project `proj` in the working directory, with a `git` wrapper
/// that logs each call (its arguments, one line) before running the real git.
struct Repo {
    env: Env,
    dir: PathBuf,
    wrapper_dir: PathBuf,
    calls: PathBuf,
}

impl Repo {
    fn new() -> Result<Repo, Error> {
        let env = Env::new()?;
        let dir = env.cwd.path().join("proj");
        std::fs::create_dir(&dir)?;
        let real = String::from_utf8(
            Command::new("sh")
                .args(["-c", "command -v git"])
                .output()?
                .stdout,
        )?
        .trim()
        .to_string();
        assert!(!real.is_empty(), "git is needed");
        let wrapper_dir = env.home().join("bin");
        std::fs::create_dir(&wrapper_dir)?;
        let calls = env.home().join("git-calls");
        let wrapper = wrapper_dir.join("git");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{real}' \"$@\"\n",
                calls.display()
            ),
        )?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))?;
        }
        let repo = Repo {
            env,
            dir,
            wrapper_dir,
            calls,
        };
        repo.init()?;
        Ok(repo)
    }

    /// Makes the project a new git repository on `main`, with an identity and no signing.
    fn init(&self) -> Result<(), Error> {
        self.git(&["init", "-q", "-b", "main"])?;
        self.git(&["config", "user.email", "dev@example.com"])?;
        self.git(&["config", "user.name", "Dev"])?;
        self.git(&["config", "commit.gpgsign", "false"])?;
        Ok(())
    }

    /// Runs the real git in the project.
    fn git(&self, args: &[&str]) -> Result<String, Error> {
        let out = Command::new("git")
            .args(args)
            .current_dir(&self.dir)
            .output()?;
        if !out.status.success() {
            return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
        }
        Ok(String::from_utf8(out.stdout)?)
    }

    /// Appends a line to `file` in the project.
    fn touch(&self, file: &str, line: &str) -> Result<(), Error> {
        use std::io::Write as _;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(file))?;
        writeln!(f, "{line}")?;
        Ok(())
    }

    fn commit_all(&self, message: &str) -> Result<(), Error> {
        self.git(&["add", "-A"])?;
        self.git(&["commit", "-q", "-m", message])?;
        Ok(())
    }

    /// goldfish in the project, the workspace found from the directory, git through the
    /// wrapper; the hooks' git bound raised to a minute, so that a loaded machine still sees
    /// the claims (the default bound is the hooks' time budget).
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = self.env.cmd(args);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.wrapper_dir.clone()];
        paths.extend(std::env::split_paths(&path));
        c.current_dir(&self.dir)
            .env_remove("GOLDFISH_WORKSPACE")
            .env("GOLDFISH_HOOK_GIT_MS", "60000")
            .env("PATH", std::env::join_paths(paths).unwrap_or_default());
        c
    }

    fn run(&self, args: &[&str]) -> Result<Out, Error> {
        let out = Out(self.cmd(args).output()?);
        out.success(args)?;
        Ok(out)
    }

    /// Runs `args` and returns stdout with how many git processes it started.
    fn counted(&self, args: &[&str]) -> Result<(String, usize), Error> {
        let _ = std::fs::remove_file(&self.calls);
        let out = self.run(args)?.stdout();
        let calls = std::fs::read_to_string(&self.calls).unwrap_or_default();
        Ok((out, calls.lines().count()))
    }

    fn checkpoint(&self, text: &str, extra: &[&str]) -> Result<String, Error> {
        let mut args = vec!["checkpoint", text];
        args.extend_from_slice(extra);
        args.push("--json");
        let v: Value = serde_json::from_str(&self.run(&args)?.stdout())?;
        Ok(v["id"].as_str().ok_or("id")?.to_string())
    }
}

/// Runs `goldfish hook KIND --client claude` in the project with `input` on stdin: the
/// injected context (empty when nothing was injected) and how many git processes it started.
fn counted_hook(r: &Repo, kind: &str, input: &Value) -> Result<(String, usize), Error> {
    use std::io::Write as _;
    let _ = std::fs::remove_file(&r.calls);
    let mut hook = r
        .cmd(&["hook", kind, "--client", "claude"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    hook.stdin
        .take()
        .ok_or("stdin")?
        .write_all(input.to_string().as_bytes())?;
    let out = hook.wait_with_output()?;
    if !out.status.success() {
        return Err(format!("hook {kind}: {:?}", out.status).into());
    }
    let context = if out.stdout.is_empty() {
        String::new()
    } else {
        let v: Value = serde_json::from_slice(&out.stdout)?;
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .ok_or("context")?
            .to_string()
    };
    let calls = std::fs::read_to_string(&r.calls).unwrap_or_default();
    Ok((context, calls.lines().count()))
}

/// The checkpoint with `id` in a recall's JSON.
fn by_id<'a>(v: &'a Value, id: &str) -> Result<&'a Value, Error> {
    v["checkpoints"]
        .as_array()
        .ok_or("checkpoints")?
        .iter()
        .find(|c| c["id"] == id)
        .ok_or_else(|| format!("{id} not in {v}").into())
}

/// A project where `auth.rs` and `db.rs` changed after the first checkpoint (2 and 1 commits)
/// and `cache.rs`, named by the second, did not. Returns the two ids.
fn history(r: &Repo) -> Result<(String, String), Error> {
    r.touch("auth.rs", "fn login() {}")?;
    r.touch("db.rs", "fn connect() {}")?;
    r.commit_all("start")?;
    r.touch("auth.rs", "// session timeout")?;
    r.touch("db.rs", "// pool")?;
    let stale = r.checkpoint("Session timeout in auth and db pool", &[])?;
    r.commit_all("timeout")?;
    r.touch("auth.rs", "// refresh tokens")?;
    r.commit_all("refresh")?;
    r.touch("cache.rs", "fn cache() {}")?;
    let fresh = r.checkpoint("Cache layer drafted", &[])?;
    Ok((stale, fresh))
}

#[test]
fn recall_counts_commits_since_with_one_git_process() -> TestResult {
    let r = Repo::new()?;
    let (stale, fresh) = history(&r)?;

    let (out, git) = r.counted(&["recall", "--json"])?;
    assert_eq!(git, 1, "one git process for the whole recall");
    let v: Value = serde_json::from_str(&out)?;
    let s = by_id(&v, &stale)?;
    assert_eq!(
        s["freshness"]["files"],
        json!([{"path": "auth.rs", "commits": 2}, {"path": "db.rs", "commits": 1}]),
        "{s}"
    );
    assert_eq!(s["freshness"]["commit"], s["commit"]);
    let f = by_id(&v, &fresh)?;
    assert_eq!(
        f["freshness"]["files"],
        json!([{"path": "cache.rs", "commits": 0}])
    );

    let (text, git) = r.counted(&["recall"])?;
    assert_eq!(git, 1);
    let commit = s["commit"].as_str().ok_or("commit")?;
    contains_all(
        &text,
        &[
            &format!("changed since {commit}: auth.rs (2 commits), db.rs (1 commit)"),
            &format!(
                "files unchanged since {}",
                f["commit"].as_str().ok_or("commit")?
            ),
        ],
    )?;

    // The verdict and the line the text shows travel in the JSON too.
    assert_eq!(s["freshness"]["stale"], true);
    assert_eq!(f["freshness"]["stale"], false);
    assert_eq!(
        f["freshness"]["summary"],
        format!(
            "files unchanged since {}",
            f["commit"].as_str().ok_or("commit")?
        )
    );
    // A ranked recall (a search) says it too, with one git process.
    let (text, git) = r.counted(&["recall", "--search", "session timeout"])?;
    assert_eq!(git, 1);
    contains_all(
        &text,
        &[&format!(
            "changed since {commit}: auth.rs (2 commits), db.rs (1 commit)"
        )],
    )?;

    let stale_only: Value = serde_json::from_str(&r.counted(&["recall", "--json", "--stale"])?.0)?;
    assert_eq!(ids(&stale_only), [stale]);
    assert_eq!(stale_only["total"], 1);
    let fresh_only: Value = serde_json::from_str(&r.counted(&["recall", "--json", "--fresh"])?.0)?;
    assert_eq!(ids(&fresh_only), [fresh]);

    // Many hits still make one git process.
    for i in 0..12 {
        r.touch("more.rs", &format!("// {i}"))?;
        r.checkpoint(&format!("More work {i}"), &[])?;
        r.commit_all(&format!("more {i}"))?;
    }
    let (out, git) = r.counted(&["recall", "--json", "-n", "20"])?;
    assert_eq!(git, 1);
    let v: Value = serde_json::from_str(&out)?;
    assert_eq!(v["checkpoints"].as_array().map(Vec::len), Some(14));
    // The oldest "More work" was followed by 12 commits touching more.rs (its own included),
    // and one of cache.rs, uncommitted when it was saved.
    let oldest = v["checkpoints"]
        .as_array()
        .ok_or("checkpoints")?
        .iter()
        .find(|c| c["description"] == "More work 0")
        .ok_or("More work 0")?;
    assert_eq!(
        oldest["freshness"]["files"],
        json!([{"path": "cache.rs", "commits": 1}, {"path": "more.rs", "commits": 12}]),
        "{oldest}"
    );
    Ok(())
}

#[test]
fn no_commit_means_no_git_and_no_claim() -> TestResult {
    let r = Repo::new()?;
    // An unborn branch: the checkpoint names a file but no commit.
    r.touch("a.rs", "fn a() {}")?;
    r.checkpoint("Before the first commit", &[])?;
    let (out, git) = r.counted(&["recall", "--json"])?;
    assert_eq!(git, 0, "no hit has a commit: no git process");
    let v: Value = serde_json::from_str(&out)?;
    assert_eq!(v["checkpoints"][0]["freshness"], Value::Null);
    // `--fresh` keeps what makes no claim, `--stale` leaves it out.
    let fresh: Value = serde_json::from_str(&r.counted(&["recall", "--json", "--fresh"])?.0)?;
    assert_eq!(ids(&fresh).len(), 1);
    let stale: Value = serde_json::from_str(&r.counted(&["recall", "--json", "--stale"])?.0)?;
    assert_eq!(ids(&stale).len(), 0);
    Ok(())
}

#[test]
fn a_rewritten_history_makes_no_claim() -> TestResult {
    let r = Repo::new()?;
    r.touch("auth.rs", "fn login() {}")?;
    r.commit_all("start")?;
    r.touch("auth.rs", "// wip")?;
    let id = r.checkpoint("Auth work", &[])?;
    // The commit the checkpoint names is amended away: HEAD's history no longer holds it.
    r.git(&["commit", "-q", "--amend", "-m", "start, reworded"])?;
    r.touch("auth.rs", "// more")?;
    r.commit_all("more")?;
    let (out, git) = r.counted(&["recall", "--json"])?;
    assert_eq!(git, 1);
    let v: Value = serde_json::from_str(&out)?;
    assert_eq!(by_id(&v, &id)?["freshness"], Value::Null, "{v}");
    let text = r.counted(&["recall"])?.0;
    assert!(!text.contains("since"), "{text}");
    Ok(())
}

#[test]
fn a_workspace_that_is_no_longer_a_repository_makes_no_claim() -> TestResult {
    let r = Repo::new()?;
    history(&r)?;
    // The project stays a project (its `.goldfish/` marker), but its git directory is gone.
    std::fs::create_dir(r.dir.join(".goldfish"))?;
    std::fs::remove_dir_all(r.dir.join(".git"))?;
    let (out, _) = r.counted(&["recall", "--json"])?;
    let v: Value = serde_json::from_str(&out)?;
    let claims: Vec<&Value> = v["checkpoints"]
        .as_array()
        .ok_or("checkpoints")?
        .iter()
        .map(|c| &c["freshness"])
        .collect();
    assert_eq!(claims.len(), 2, "{v}");
    assert!(claims.iter().all(|c| c.is_null()), "{v}");
    Ok(())
}

#[test]
fn no_git_on_the_path_makes_no_claim() -> TestResult {
    let r = Repo::new()?;
    history(&r)?;
    // A PATH with no git on it: recall answers as ever, with no claim either way.
    let empty = r.env.home().join("empty-bin");
    std::fs::create_dir(&empty)?;
    let run = |args: &[&str]| -> Result<String, Error> {
        let out = Out(r.cmd(args).env("PATH", &empty).output()?);
        out.success(args)?;
        Ok(out.stdout())
    };
    let v: Value = serde_json::from_str(&run(&["recall", "--json"])?)?;
    let checkpoints = v["checkpoints"].as_array().ok_or("checkpoints")?;
    assert_eq!(checkpoints.len(), 2, "{v}");
    assert!(checkpoints.iter().all(|c| c["freshness"].is_null()), "{v}");
    assert!(checkpoints.iter().all(|c| c["commit"].is_string()), "{v}");
    let text = run(&["recall"])?;
    assert!(!text.contains("since"), "{text}");
    assert_eq!(
        ids(&serde_json::from_str(&run(&[
            "recall", "--json", "--stale"
        ])?)?)
        .len(),
        0
    );
    assert_eq!(
        ids(&serde_json::from_str(&run(&[
            "recall", "--json", "--fresh"
        ])?)?)
        .len(),
        2
    );
    Ok(())
}

#[test]
fn a_commit_the_repository_never_held_makes_no_claim() -> TestResult {
    let r = Repo::new()?;
    let (old_stale, old_fresh) = history(&r)?;
    // The project becomes another repository (re-created, as after a fresh `git init`): the
    // commits the two checkpoints name are unknown to it. A checkpoint saved in the new one
    // gets its claim all the same.
    std::fs::remove_dir_all(r.dir.join(".git"))?;
    r.init()?;
    r.commit_all("new start")?;
    r.touch("auth.rs", "// new")?;
    let new = r.checkpoint("Auth in the new repository", &[])?;
    r.commit_all("new auth")?;
    let (out, git) = r.counted(&["recall", "--json"])?;
    assert_eq!(git, 1);
    let v: Value = serde_json::from_str(&out)?;
    assert_eq!(by_id(&v, &old_stale)?["freshness"], Value::Null, "{v}");
    assert_eq!(by_id(&v, &old_fresh)?["freshness"], Value::Null, "{v}");
    assert_eq!(
        by_id(&v, &new)?["freshness"]["files"],
        json!([{"path": "auth.rs", "commits": 1}]),
        "{v}"
    );
    Ok(())
}

#[test]
fn a_side_branch_merged_later_is_counted_and_the_merge_is_not() -> TestResult {
    let r = Repo::new()?;
    r.touch("auth.rs", "fn login() {}")?;
    r.commit_all("start")?;
    // On main: a checkpoint at "start" naming auth.rs, then its commit.
    r.touch("auth.rs", "// main")?;
    let main = r.checkpoint("Main branch auth", &[])?;
    r.commit_all("main auth")?;
    // A side branch from "start": a change to auth.rs, then a checkpoint naming notes.rs.
    r.git(&["checkout", "-q", "-b", "side", "HEAD~1"])?;
    r.touch("auth.rs", "// side")?;
    r.commit_all("side auth")?;
    r.touch("notes.rs", "// side notes")?;
    let side = r.checkpoint("Side branch notes", &[])?;
    r.commit_all("side notes")?;
    r.git(&["checkout", "-q", "main"])?;
    r.git(&["merge", "-q", "--no-edit", "-X", "ours", "side"])?;
    let (out, git) = r.counted(&["recall", "--json"])?;
    assert_eq!(git, 1);
    let v: Value = serde_json::from_str(&out)?;
    // Since "start": main's and the side branch's commits to auth.rs; the merge not counted.
    let m = by_id(&v, &main)?;
    assert_eq!(
        m["freshness"]["files"],
        json!([{"path": "auth.rs", "commits": 2}]),
        "{m}"
    );
    // Since "side auth": the side branch's next commit; main's commit is not a change to
    // notes.rs.
    let s = by_id(&v, &side)?;
    assert_eq!(
        s["freshness"]["files"],
        json!([{"path": "notes.rs", "commits": 1}]),
        "{s}"
    );
    Ok(())
}

#[test]
fn the_prompt_hook_says_it_with_one_git_process() -> TestResult {
    let r = Repo::new()?;
    r.touch("billing.rs", "fn charge() {}")?;
    r.commit_all("start")?;
    r.touch("billing.rs", "// retries")?;
    let id = r.checkpoint(
        "Stripe webhook retries use exponential backoff",
        &[
            "--type",
            "decision",
            "--decision",
            "retry stripe webhooks with exponential backoff",
        ],
    )?;
    r.commit_all("retries")?;
    r.touch("billing.rs", "// more retries")?;
    r.commit_all("more retries")?;
    let commit = r.git(&["log", "-1", "--format=%h", "HEAD~2"])?;
    let since = format!("billing.rs changed in 2 commits since {}", commit.trim());
    let input = json!({
        "session_id": "p-1", "cwd": r.dir, "hook_event_name": "UserPromptSubmit",
        "prompt": "Why do stripe webhook retries use exponential backoff?",
    });
    let (context, git) = counted_hook(&r, "prompt", &input)?;
    contains_all(&context, &[&since, &id])?;
    assert_eq!(git, 1, "one git process for the prompt hook");
    // The same prompt again in the same session: nothing new to give, so no git at all.
    let (context, git) = counted_hook(&r, "prompt", &input)?;
    assert_eq!((context.as_str(), git), ("", 0));
    // A bound of 0 ms: the memory is injected without a claim, and git never runs.
    let input = json!({
        "session_id": "p-3", "cwd": r.dir, "hook_event_name": "UserPromptSubmit",
        "prompt": "Why do stripe webhook retries use exponential backoff?",
    });
    let _ = std::fs::remove_file(&r.calls);
    let out = Out(r
        .cmd(&["hook", "prompt", "--client", "claude"])
        .env("GOLDFISH_HOOK_GIT_MS", "0")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            if let Some(mut stdin) = child.stdin.take() {
                stdin.write_all(input.to_string().as_bytes())?;
            }
            child.wait_with_output()
        })?);
    out.success(&["hook", "prompt"])?;
    let text = out.stdout();
    contains_all(&text, &[&id])?;
    assert!(!text.contains("since"), "{text}");
    assert_eq!(std::fs::read_to_string(&r.calls).unwrap_or_default(), "");
    // Chit-chat injects nothing and runs no git.
    let input = json!({
        "session_id": "p-2", "cwd": r.dir, "hook_event_name": "UserPromptSubmit",
        "prompt": "thanks",
    });
    let (context, git) = counted_hook(&r, "prompt", &input)?;
    assert_eq!((context.as_str(), git), ("", 0));
    Ok(())
}

/// One MCP `recall` call over stdio: its text and structured content.
fn mcp_recall(r: &Repo, args: Value) -> Result<(String, Value), Error> {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let inited = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "recall", "arguments": args}});
    let input = format!("{init}\n{inited}\n{call}\n");
    let mut child = r
        .cmd(&["mcp"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    {
        use std::io::{BufRead as _, Write as _};
        let mut stdin = child.stdin.take().ok_or("stdin")?;
        stdin.write_all(input.as_bytes())?;
        let stdout = child.stdout.take().ok_or("stdout")?;
        for line in std::io::BufReader::new(stdout).lines() {
            let v: Value = serde_json::from_str(&line?)?;
            if v["id"] == 2 {
                drop(stdin);
                child.wait()?;
                let result = &v["result"];
                let text = result["content"][0]["text"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
                return Ok((text, result["structuredContent"].clone()));
            }
        }
    }
    child.wait()?;
    Err("no reply to the recall call".into())
}

#[test]
fn mcp_recall_hook_and_web_say_it_too() -> TestResult {
    let r = Repo::new()?;
    r.touch("auth.rs", "fn login() {}")?;
    r.commit_all("start")?;
    r.touch("auth.rs", "// timeout")?;
    let id = r.checkpoint(
        "Sessions time out after 30 minutes",
        &[
            "--type",
            "decision",
            "--decision",
            "30-minute session timeout",
        ],
    )?;
    r.commit_all("timeout")?;
    let commit = r.git(&["log", "-1", "--format=%h", "HEAD~1"])?;
    let since = format!("auth.rs changed in 1 commit since {}", commit.trim());

    let _ = std::fs::remove_file(&r.calls);
    let (text, structured) = mcp_recall(&r, json!({}))?;
    assert!(text.contains(&since), "{text}");
    let calls = std::fs::read_to_string(&r.calls).unwrap_or_default();
    assert_eq!(
        calls.lines().count(),
        1,
        "one git process for the MCP recall: {calls}"
    );
    assert_eq!(
        structured["checkpoints"][0]["freshness"]["summary"],
        since.as_str()
    );
    assert_eq!(structured["checkpoints"][0]["freshness"]["stale"], true);
    let c = &structured["checkpoints"][0];
    assert_eq!(c["id"], id.as_str());
    assert_eq!(
        c["freshness"]["files"],
        json!([{"path": "auth.rs", "commits": 1}])
    );
    let (_, fresh) = mcp_recall(&r, json!({"fresh": true}))?;
    assert_eq!(fresh["checkpoints"], json!([]), "{fresh}");
    let (_, stale) = mcp_recall(&r, json!({"stale": true}))?;
    assert_eq!(stale["checkpoints"][0]["id"], id.as_str());

    let read = json!({
        "session_id": "s-1", "cwd": r.dir, "hook_event_name": "PostToolUse",
        "tool_name": "Read", "tool_input": {"file_path": r.dir.join("auth.rs")},
    });
    let (injected, git) = counted_hook(&r, "file", &read)?;
    contains_all(&injected, &[&since, &id])?;
    assert_eq!(git, 1, "one git process for the file hook");

    let _ = std::fs::remove_file(&r.calls);
    let web = web_page(&r, r.env.home())?;
    assert!(web.contains(&since), "{web}");
    let calls = std::fs::read_to_string(&r.calls).unwrap_or_default();
    assert_eq!(
        calls.lines().count(),
        1,
        "one git process for the page: {calls}"
    );
    Ok(())
}

/// The web view's timeline, served by `goldfish serve` started in the project (git through
/// the counting wrapper).
fn web_page(r: &Repo, home: &Path) -> Result<String, Error> {
    use std::io::{BufRead as _, Read as _, Write as _};
    let mut server = r
        .cmd(&["serve", "--port", "0"])
        .env("GOLDFISH_HOME", home)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    let stderr = server.stderr.take().ok_or("stderr")?;
    let mut url = None;
    for line in std::io::BufReader::new(stderr).lines() {
        let line = line?;
        if let Some(at) = line.split(" at ").nth(1) {
            url = at.split_whitespace().next().map(str::to_string);
            break;
        }
    }
    let result = (|| -> Result<String, Error> {
        let url = url.ok_or("no url")?;
        let addr = url.trim_start_matches("http://").trim_end_matches('/');
        let mut s = std::net::TcpStream::connect(addr)?;
        write!(
            s,
            "GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        )?;
        let mut page = String::new();
        s.read_to_string(&mut page)?;
        Ok(page)
    })();
    let _ = server.kill();
    let _ = server.wait();
    result
}
