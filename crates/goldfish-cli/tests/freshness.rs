//! Freshness with real git history: whether the files a checkpoint names changed since its
//! commit, in recall (text, `--json`, `--stale`, `--fresh`), MCP, the file hook and the web
//! view, with one git process per recall at most (counted by a `git` wrapper first on PATH).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::util::{Env, Out, TestResult, contains_all};

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
        repo.git(&["init", "-q", "-b", "main"])?;
        repo.git(&["config", "user.email", "dev@example.com"])?;
        repo.git(&["config", "user.name", "Dev"])?;
        repo.git(&["config", "commit.gpgsign", "false"])?;
        Ok(repo)
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

    /// goldfish in the project, the workspace found from the directory, git through the wrapper.
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = self.env.cmd(args);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.wrapper_dir.clone()];
        paths.extend(std::env::split_paths(&path));
        c.current_dir(&self.dir)
            .env_remove("GOLDFISH_WORKSPACE")
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

/// The checkpoint with `id` in a recall's JSON.
fn by_id<'a>(v: &'a Value, id: &str) -> Result<&'a Value, Error> {
    v["checkpoints"]
        .as_array()
        .ok_or("checkpoints")?
        .iter()
        .find(|c| c["id"] == id)
        .ok_or_else(|| format!("{id} not in {v}").into())
}

fn ids(v: &Value) -> Vec<String> {
    v["checkpoints"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
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

    let (text, structured) = mcp_recall(&r, json!({}))?;
    assert!(text.contains(&since), "{text}");
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
    let _ = std::fs::remove_file(&r.calls);
    let mut hook = r
        .cmd(&["hook", "file", "--client", "claude"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    {
        use std::io::Write as _;
        hook.stdin
            .take()
            .ok_or("stdin")?
            .write_all(read.to_string().as_bytes())?;
    }
    let out = hook.wait_with_output()?;
    let v: Value = serde_json::from_slice(&out.stdout)?;
    let injected = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .ok_or("context")?;
    contains_all(injected, &[&since, &id])?;
    let calls = std::fs::read_to_string(&r.calls).unwrap_or_default();
    assert_eq!(calls.lines().count(), 1, "{calls}");

    let web = web_page(&r.dir, r.env.home())?;
    assert!(web.contains(&since), "{web}");
    Ok(())
}

/// The web view's timeline, served by `goldfish serve` started in `dir`.
fn web_page(dir: &Path, home: &Path) -> Result<String, Error> {
    use std::io::{BufRead as _, Read as _, Write as _};
    let mut server = Command::new(crate::util::bin())
        .args(["serve", "--port", "0"])
        .current_dir(dir)
        .env("GOLDFISH_HOME", home)
        .env_remove("GOLDFISH_WORKSPACE")
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
