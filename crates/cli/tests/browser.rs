//! `goldfish serve` in a real browser: headless Chromium loads the timeline over the
//! evaluation store (1,974 checkpoints), runs a search, opens a plan, and the test reads the
//! DOM it rendered (`--dump-dom`) and saves a screenshot under the target directory.
//!
//! Needs Chromium (`chromium`, `chromium-browser` or `google-chrome` on `PATH`, or
//! `$CHROMIUM`). `./scripts/test` installs it when it is missing; without it this test
//! FAILS saying what to install: it is an acceptance test and must not silently pass.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{Env, TestResult, corpus_an_hour_old, write_day_files};

/// The browser: `$CHROMIUM`, else the first of the usual names on `PATH`.
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("CHROMIUM").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    panic!(
        "the browser test needs Chromium and found none on PATH (chromium, chromium-browser, \
         google-chrome) nor in $CHROMIUM: install it (Debian/Ubuntu: `apt-get install -y \
         chromium`), or run ./scripts/test, which installs it when it can"
    );
}

/// The evaluation corpus as a store under `home`, moved in time so that its newest
/// checkpoint is an hour old; returns the workspace of that newest one.
fn eval_store(home: &Path) -> Result<String, Box<dyn std::error::Error>> {
    let all = corpus_an_hour_old()?;
    write_day_files(home, &all)?;
    let newest = all
        .iter()
        .max_by_key(|c| c.timestamp)
        .ok_or("an empty corpus")?;
    Ok(newest.workspace.clone())
}

/// A `goldfish serve` process, killed when dropped.
struct Served {
    child: Child,
    url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `goldfish serve --port 0` on `env`'s store and reads the URL it prints.
fn serve(env: &Env) -> Result<Served, Box<dyn std::error::Error>> {
    let mut child = env
        .cmd(&["serve", "--port", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let mut line = String::new();
    BufReader::new(stderr).read_line(&mut line)?;
    let served = Served {
        url: line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .ok_or_else(|| format!("no URL in {line:?}"))?
            .to_string(),
        child,
    };
    Ok(served)
}

/// Runs Chromium headless with the flags that work in a container and a fresh profile, on
/// `args`; returns its stdout. Fails after two minutes (a hung browser, not a slow one).
fn chromium_run(args: &[&str]) -> Result<String, Box<dyn std::error::Error>> {
    let profile = tempfile::tempdir()?;
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).map(|_| out)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            return Err(format!("chromium {args:?} did not finish in two minutes").into());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = reader.join().map_err(|_| "the reader thread panicked")??;
    if !status.success() {
        return Err(format!("chromium {args:?} failed: {status}").into());
    }
    Ok(out)
}

/// The DOM Chromium rendered for `url`.
fn dom(url: &str) -> Result<String, Box<dyn std::error::Error>> {
    let dom = chromium_run(&["--dump-dom", url])?;
    assert!(dom.contains("</html>"), "no document for {url}: {dom:?}");
    Ok(dom)
}

/// The checkpoint links of a list, in order: `(workspace, id)` as they appear in the hrefs.
fn listed(dom: &str) -> Vec<(String, String)> {
    dom.split(r#"<a class="title" href="/w/"#)
        .skip(1)
        .filter_map(|s| {
            let href = s.split('"').next()?;
            let (ws, rest) = href.split_once("/checkpoints/")?;
            Some((ws.to_string(), rest.split('?').next()?.to_string()))
        })
        .collect()
}

/// Percent-encoding as the server writes path segments (all but RFC 3986's unreserved).
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// What `goldfish recall --json` lists, as `(workspace, id)` pairs.
fn cli_recall(
    env: &Env,
    extra: &[&str],
) -> Result<Vec<(String, String)>, Box<dyn std::error::Error>> {
    let mut args = vec!["--workspace", "all", "recall", "--from", "1970-01-01"];
    args.extend_from_slice(extra);
    let v = env.json(&args)?;
    Ok(v["checkpoints"]
        .as_array()
        .ok_or("no checkpoints in the recall JSON")?
        .iter()
        .map(|c| {
            (
                c["workspace"].as_str().unwrap_or_default().to_string(),
                enc(c["id"].as_str().unwrap_or_default()),
            )
        })
        .collect())
}

#[test]
fn chromium_renders_the_timeline_a_search_and_a_plan() -> TestResult {
    let browser = chromium();
    assert!(browser.exists(), "{}", browser.display());
    let env = Env::new()?;
    let workspace = eval_store(env.home())?;
    env.ok(&[
        "--workspace",
        &workspace,
        "plan",
        "save",
        "--title",
        "Browser test plan",
        "--content",
        "## Steps\n- [x] load the timeline\n- [x] search\n- [ ] open <this> plan\n",
        "--activate",
    ])?;
    let served = serve(&env)?;
    let url = served.url.trim_end_matches('/').to_string();

    // The timeline: every checkpoint counted, the first page newest first, as the CLI says.
    let timeline = dom(&format!("{url}/"))?;
    assert!(
        timeline.contains("1974 checkpoints, newest first · page 1 of 40"),
        "{timeline}"
    );
    let shown = listed(&timeline);
    assert_eq!(shown.len(), 50);
    assert_eq!(shown, cli_recall(&env, &["--limit", "50"])?);
    assert!(timeline.contains(r#"<h2 class="day">"#));
    assert!(timeline.contains(&format!(r#"<option value="{workspace}">"#)));

    // A search, as the form submits it (a GET form: these are its parameters): the same
    // ranking as `goldfish recall --search`, with the reasons under each hit.
    let query = "how did we make the packed refs lookup faster";
    let search = dom(&format!("{url}/?q={}&ws=&days=&tags=", enc(query)))?;
    assert!(
        search.contains("matching checkpoints, by relevance"),
        "{search}"
    );
    let hits = listed(&search);
    assert!(!hits.is_empty(), "{search}");
    let cli = cli_recall(&env, &["--search", query, "--limit", "50"])?;
    assert_eq!(hits, cli);
    assert!(search.contains("why this matched"));
    assert!(
        search.contains(&format!(r#"value="{query}""#)),
        "the box keeps the query"
    );

    // The workspace page links its plan; the plan page renders its markdown.
    let ws_page = dom(&format!("{url}/w/{workspace}"))?;
    assert!(ws_page.contains("2 of 3 done"), "{ws_page}");
    let href = ws_page
        .split(&format!(r#"href="/w/{workspace}/plans/"#))
        .nth(1)
        .and_then(|s| s.split('"').next())
        .ok_or("no plan link on the workspace page")?;
    let plan_page = dom(&format!("{url}/w/{workspace}/plans/{href}"))?;
    assert!(
        plan_page.contains("<h1>Browser test plan</h1>"),
        "{plan_page}"
    );
    assert_eq!(plan_page.matches(r#"type="checkbox""#).count(), 3);
    assert_eq!(plan_page.matches("checked=").count(), 2);
    assert!(
        plan_page.contains("open &lt;this&gt; plan"),
        "stored text stays text"
    );
    assert!(plan_page.contains(r#"<progress value="2" max="3">"#));

    // A screenshot of the timeline, kept as a test artifact.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&dir)?;
    let shot = dir.join("timeline.png");
    let _ = std::fs::remove_file(&shot);
    chromium_run(&[
        "--window-size=1200,900",
        &format!("--screenshot={}", shot.display()),
        &format!("{url}/"),
    ])?;
    let png = std::fs::read(&shot)?;
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(
        png.len() > 20_000,
        "an almost empty screenshot: {} bytes",
        png.len()
    );
    eprintln!("screenshot: {}", shot.display());
    // `GOLDFISH_UPDATE_SCREENSHOT=1` also refreshes the README's picture.
    if std::env::var_os("GOLDFISH_UPDATE_SCREENSHOT").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/timeline.png");
        std::fs::copy(&shot, docs)?;
    }
    Ok(())
}

#[test]
fn serve_names_a_port_in_use() -> TestResult {
    let env = Env::new()?;
    let holder = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = holder.local_addr()?.port().to_string();
    env.fails(
        &["serve", "--port", &port],
        1,
        &format!("cannot listen on 127.0.0.1:{port}: port {port} is already in use"),
    )
}

/// One raw `GET /` with `host` as its `Host` header; returns the status.
fn status_for_host(port: u16, host: &str) -> Result<u16, Box<dyn std::error::Error>> {
    use std::io::{Read as _, Write as _};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port))?;
    write!(
        s,
        "GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )?;
    let mut answer = String::new();
    s.read_to_string(&mut answer)?;
    Ok(answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no status line")?)
}

#[test]
fn serve_warns_beyond_loopback_and_checks_hosts() -> TestResult {
    let env = Env::new()?;
    let mut child = env
        .cmd(&[
            "serve",
            "--port",
            "0",
            "--bind",
            "0.0.0.0",
            "--allow-host",
            "box.lan:1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut lines = BufReader::new(child.stderr.take().ok_or("no stderr")?).lines();
    let warning = lines.next().ok_or("no warning")??;
    let serving = lines.next().ok_or("no serving line")??;
    let served = Served {
        url: serving.clone(),
        child,
    };
    assert!(
        warning.starts_with("goldfish: warning: listening on 0.0.0.0, not a loopback address"),
        "{warning}"
    );
    let port: u16 = served
        .url
        .split("http://0.0.0.0:")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| format!("no port in {serving:?}"))?;
    assert_eq!(status_for_host(port, &format!("127.0.0.1:{port}"))?, 200);
    assert_eq!(status_for_host(port, &format!("localhost:{port}"))?, 200);
    assert_eq!(status_for_host(port, "box.lan:1")?, 200);
    assert_eq!(status_for_host(port, &format!("evil.example:{port}"))?, 403);
    Ok(())
}
