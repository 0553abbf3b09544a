//! Every page and filter over HTTP, and what the server refuses.

use goldfish_store::PlanInput;
use goldfish_web::App;

use crate::util::{TestResult, checkpoint, get, now, raw, request, sample, serve, store_with};

fn app(root: &std::path::Path) -> App {
    App::new(root).with_now(now())
}

/// The titles of the checkpoints on a timeline page, in order.
fn titles(html: &str) -> Vec<String> {
    html.split(r#"<a class="title" href=""#)
        .skip(1)
        .filter_map(|s| {
            let s = s.split_once("\">")?.1;
            Some(s.split_once("</a>")?.0.to_string())
        })
        .collect()
}

#[test]
fn timeline_is_newest_first_grouped_by_day() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let addr = serve(app(dir.path()));
    let a = get(addr, "/");
    assert_eq!(a.status, 200);
    assert_eq!(a.header("content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(
        titles(&a.body),
        [
            "Fixed the auth timeout",
            "Refactored database queries",
            "Login page redesign",
            "Set up the CI pipeline"
        ]
    );
    // Three days, newest first, each a heading.
    let marker = r#"<h2 class="day"><time datetime=""#;
    let days: Vec<&str> = a
        .body
        .match_indices(marker)
        .map(|(i, _)| &a.body[i + marker.len()..i + marker.len() + 10])
        .collect();
    assert_eq!(days, ["2026-03-02", "2026-03-01", "2026-02-28"]);
    assert!(a.body.contains("4 checkpoints, newest first"));
    // Workspace, tags, links to the detail pages.
    assert!(a.body.contains(r#"<a class="ws" href="/w/api">api</a>"#));
    assert!(
        a.body
            .contains(r#"<a class="tag" href="/?tags=bug-fix">bug-fix</a>"#)
    );
    Ok(())
}

#[test]
fn timeline_filters_by_workspace_days_and_tags() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let addr = serve(app(dir.path()));
    assert_eq!(
        titles(&get(addr, "/?ws=web").body),
        ["Login page redesign", "Set up the CI pipeline"]
    );
    assert_eq!(
        titles(&get(addr, "/?days=1").body),
        ["Fixed the auth timeout", "Refactored database queries"]
    );
    assert_eq!(
        titles(&get(addr, "/?tags=ui").body),
        ["Login page redesign"]
    );
    assert_eq!(
        titles(&get(addr, "/?tags=auth,%20bug-fix").body),
        ["Fixed the auth timeout"]
    );
    assert!(titles(&get(addr, "/?tags=auth,ui").body).is_empty());
    // A malformed value is reported and ignored, never a failed request.
    let a = get(addr, "/?days=soon");
    assert_eq!(a.status, 200);
    assert!(a.body.contains("is not a positive whole number"));
    assert_eq!(titles(&a.body).len(), 4);
    // An unknown workspace is a problem on the page.
    let a = get(addr, "/?ws=..%2Fetc");
    assert_eq!(a.status, 200);
    assert!(a.body.contains(r#"class="problems""#), "{}", a.body);
    Ok(())
}

#[test]
fn search_ranks_like_recall_and_explains() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = sample(dir.path());
    let addr = serve(app(dir.path()));
    let a = get(addr, "/?q=authentcation+timeout");
    assert_eq!(a.status, 200);
    let shown = titles(&a.body);
    // The same ranking as the library (and so the CLI) gives.
    let mut o = goldfish_recall::RecallOptions::default();
    o.workspace = goldfish_recall::Scope::All;
    o.from = Some("1970-01-01".into());
    o.search = Some("authentcation timeout".into());
    o.now = Some(now());
    o.limit = 50;
    let expected: Vec<String> = goldfish_recall::recall(&store, &o)?
        .checkpoints()
        .map(|c| c.title().to_string())
        .collect();
    assert_eq!(shown, expected);
    assert_eq!(
        shown.first().map(String::as_str),
        Some("Fixed the auth timeout")
    );
    assert!(a.body.contains("by relevance"));
    assert!(
        a.body
            .contains("<details class=\"why\"><summary>why this matched</summary>")
    );
    assert!(
        a.body.contains("authentcation"),
        "the explanation names the query word"
    );
    // The search box keeps the query.
    assert!(a.body.contains(r#"value="authentcation timeout""#));
    // Nothing to search for is said on the page.
    let a = get(addr, "/?q=the+of");
    assert_eq!(a.status, 200);
    assert!(a.body.contains(r#"class="problems""#));
    Ok(())
}

#[test]
fn pages_of_fifty() -> TestResult {
    let dir = tempfile::tempdir()?;
    let list: Vec<_> = (0..120)
        .map(|i| checkpoint("big", i, &format!("entry {i}"), &[]))
        .collect();
    store_with(dir.path(), &list);
    let addr = serve(app(dir.path()));
    let first = get(addr, "/");
    assert_eq!(titles(&first.body).len(), 50);
    assert_eq!(titles(&first.body)[0], "entry 0");
    assert!(first.body.contains("page 1 of 3"));
    assert!(first.body.contains(r#"<a rel="next" href="/?page=2">"#));
    let third = get(addr, "/?page=3");
    let t = titles(&third.body);
    assert_eq!(t.len(), 20);
    assert_eq!(t.last().map(String::as_str), Some("entry 119"));
    assert!(third.body.contains(r#"<a rel="prev" href="/?page=2">"#));
    assert!(!third.body.contains(r#"rel="next""#));
    // Past the end, and absurd pages, are empty pages, not failures.
    for page in [
        "4",
        "18446744073709551615",
        "99999999999999999999999",
        "0",
        "-1",
        "x",
    ] {
        let a = get(addr, &format!("/?page={page}"));
        assert_eq!(a.status, 200, "page {page}");
    }
    assert!(
        get(addr, "/?page=4")
            .body
            .contains("No checkpoints on this page.")
    );
    assert!(
        get(addr, "/?q=entry&page=18446744073709551615")
            .body
            .contains("No checkpoints on this page.")
    );
    Ok(())
}

/// Stored text that would be markup or script if it were trusted.
const HOSTILE: &str = "Hostile <script>alert(1)</script> </textarea><b>x</b>\n\
    [click](javascript:alert(2)) <img src=x onerror=alert(3)> [ok](https://example.com/)\n\
    <a href=\"javascript:alert(4)\">raw</a>";

fn assert_inert(page: &str, html: &str) {
    let lower = html.to_lowercase();
    assert!(
        !lower.contains("<script"),
        "{page}: a script element\n{html}"
    );
    assert!(
        !lower.contains("</textarea>"),
        "{page}: a closing textarea\n{html}"
    );
    assert!(!lower.contains("<img"), "{page}: an image element\n{html}");
    assert!(!lower.contains("<b>x"), "{page}: stored markup\n{html}");
    // Inside real tags (text is escaped, so a `<` only starts one): no script URL, no
    // event handler attribute.
    for tag in lower
        .split('<')
        .skip(1)
        .filter_map(|t| t.split_once('>').map(|(t, _)| t))
    {
        assert!(
            !tag.contains("javascript:"),
            "{page}: a javascript: URL in <{tag}>"
        );
        assert!(!tag.contains(" on"), "{page}: an event handler in <{tag}>");
    }
}

#[test]
fn hostile_stored_text_is_escaped_everywhere() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut c = checkpoint("evil", 2, HOSTILE, &["x"]);
    // Who saved it is text from a client and a repository's git configuration: shown, inert.
    c.actor.harness = Some("<script>alert(7)</script>".into());
    c.actor.git_email = Some("dev@example.com".into());
    let store = store_with(dir.path(), std::slice::from_ref(&c));
    let mut plan = PlanInput::new(
        "Plan <script>alert(5)</script>",
        format!("- [ ] {HOSTILE}\n"),
    );
    plan.workspace = Some("evil".into());
    plan.id = Some("p".into());
    plan.activate = true;
    store.save_plan(plan)?;
    let root = dir.path().join(".self-improving");
    std::fs::create_dir_all(root.join("journals"))?;
    std::fs::write(root.join("journals").join("t-2026-03-01.md"), HOSTILE)?;
    std::fs::write(root.join("corrections.md"), HOSTILE)?;
    std::fs::write(
        root.join("patterns.jsonl"),
        serde_json::json!({"ts": "2026-03-01", "task": HOSTILE, "code": "M1"}).to_string(),
    )?;
    let wt = tempfile::tempdir()?;
    std::fs::write(wt.path().join("JOURNAL.md"), HOSTILE)?;
    std::fs::create_dir_all(wt.path().join(".goblin"))?;
    std::fs::write(wt.path().join(".goblin").join("GOBLIN_NOTES.md"), HOSTILE)?;
    let addr = serve(app(dir.path()).with_worktree(wt.path()));
    let detail = format!("/w/evil/checkpoints/{}", c.id);
    for page in [
        "/",
        "/?q=hostile",
        "/?q=%3Cscript%3E+hostile",
        "/?ws=evil&tags=x",
        "/w/evil",
        "/w/evil/plans/p",
        detail.as_str(),
        "/journals",
        "/journals/t-2026-03-01.md",
        "/worktrees/0",
        "/activity",
    ] {
        let a = get(addr, page);
        assert_eq!(a.status, 200, "{page}");
        assert_inert(page, &a.body);
    }
    // The text is there, as text; the safe link is kept.
    let a = get(addr, &detail);
    assert!(
        a.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{}",
        a.body
    );
    assert!(
        a.body.contains(r#"<a href="https://example.com/">ok</a>"#),
        "{}",
        a.body
    );
    assert!(a.body.contains(r##"<a href="#">click</a>"##), "{}", a.body);
    assert!(
        a.body
            .contains("<dt>Harness</dt><dd>&lt;script&gt;alert(7)&lt;/script&gt;</dd>")
            && a.body
                .contains("<dt>Git email</dt><dd>dev@example.com</dd>"),
        "{}",
        a.body
    );
    // A search query echoed into the page is escaped too.
    let a = get(addr, "/?q=%22%3E%3Cscript%3Ealert(6)%3C%2Fscript%3E");
    assert_inert("search echo", &a.body);
    Ok(())
}

#[test]
fn only_its_own_host_is_answered() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let addr = serve(app(dir.path()));
    let port = addr.port();
    for host in [
        format!("{addr}"),
        format!("localhost:{port}"),
        format!("LOCALHOST:{port}"),
    ] {
        let a = raw(
            addr,
            &format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        );
        assert_eq!(a.status, 200, "{host}");
    }
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        "127.0.0.1".to_string(),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
    ] {
        let a = raw(
            addr,
            &format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
        );
        assert_eq!(a.status, 403, "{host}");
        assert!(
            !a.body.contains("checkpoint"),
            "{host}: nothing of the store"
        );
    }
    // No Host at all (HTTP/1.0).
    let a = raw(addr, "GET / HTTP/1.0\r\n\r\n");
    assert_eq!(a.status, 403);
    // A host allowed explicitly.
    let dir2 = tempfile::tempdir()?;
    let addr2 = serve(App::new(dir2.path()).with_allowed_host("box.lan:9999"));
    let a = raw(
        addr2,
        "GET / HTTP/1.1\r\nHost: box.lan:9999\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(a.status, 200);
    Ok(())
}

#[test]
fn read_only_no_cors() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let before = snapshot(dir.path())?;
    let addr = serve(app(dir.path()));
    for method in [
        "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "FOO",
    ] {
        for target in ["/", "/w/api", "/nothing", "/static/style.css"] {
            let a = request(addr, method, target);
            assert_eq!(a.status, 405, "{method} {target}");
            assert_eq!(a.header("allow"), Some("GET, HEAD"), "{method} {target}");
        }
    }
    let head = request(addr, "HEAD", "/");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    let a = raw(
        addr,
        &format!(
            "GET / HTTP/1.1\r\nHost: {addr}\r\nOrigin: https://evil.example\r\nConnection: close\r\n\r\n"
        ),
    );
    assert_eq!(a.status, 200);
    assert!(
        !a.head.to_lowercase().contains("access-control-"),
        "{}",
        a.head
    );
    let csp = a.header("content-security-policy").unwrap_or_default();
    assert!(
        csp.contains("default-src 'none'") && !csp.contains("script-src"),
        "{csp}"
    );
    assert_eq!(a.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(snapshot(dir.path())?, before, "the store is unchanged");
    Ok(())
}

/// Every file under `root` with its bytes, but the recall index's cache (`.index/`, which
/// every recall may build or refresh, as the crate documentation says).
fn snapshot(root: &std::path::Path) -> std::io::Result<Vec<(std::path::PathBuf, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir)? {
            let p = e?.path();
            if p == root.join(goldfish_recall::INDEX_DIR) {
                continue;
            }
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p)?));
            }
        }
    }
    out.sort();
    Ok(out)
}

#[test]
fn a_changed_store_shows_on_reload() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = sample(dir.path());
    let addr = serve(app(dir.path()));
    assert_eq!(titles(&get(addr, "/").body).len(), 4);
    store.import_checkpoint(&checkpoint("new-ws", 0, "Brand new work", &[]))?;
    let a = get(addr, "/");
    assert_eq!(titles(&a.body)[0], "Brand new work");
    assert!(a.body.contains(r#"<option value="new-ws">"#));
    assert_eq!(get(addr, "/w/new-ws").status, 200);
    Ok(())
}

#[test]
fn unreadable_files_are_problems_not_failures() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    // A day file that is a directory, one that is not UTF-8, and a plan that cannot be parsed.
    let cp = dir.path().join("api").join("checkpoints");
    std::fs::create_dir_all(cp.join("2026-02-20.md"))?;
    std::fs::write(
        cp.join("2026-02-21.md"),
        b"# Checkpoints for 2026-02-21\n\n## 10:00 - bad \xff\xfe\n",
    )?;
    let plans = dir.path().join("api").join("plans");
    std::fs::create_dir_all(&plans)?;
    std::fs::write(
        plans.join("broken.md"),
        "---\ntitle: [unclosed\n---\nbody\n",
    )?;
    let addr = serve(app(dir.path()));
    let a = get(addr, "/");
    assert_eq!(a.status, 200);
    assert!(a.body.contains(r#"class="problems""#), "{}", a.body);
    assert!(a.body.contains("2026-02-20.md"), "names the file");
    assert!(
        titles(&a.body).contains(&"Fixed the auth timeout".to_string()),
        "the rest renders"
    );
    let a = get(addr, "/w/api");
    assert_eq!(a.status, 200);
    assert!(a.body.contains("broken.md"), "{}", a.body);
    assert!(a.body.contains("Recent checkpoints"));
    Ok(())
}

#[test]
fn workspace_plan_and_checkpoint_pages() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = sample(dir.path());
    let mut plan = PlanInput::new(
        "Auth redesign",
        "## Steps\n- [x] JWT\n- [x] refresh tokens\n- [ ] OAuth2\n",
    );
    plan.workspace = Some("api".into());
    plan.activate = true;
    plan.tags = vec!["auth".into()];
    let saved = store.save_plan(plan)?;
    let mut other = PlanInput::new("Later", "- [ ] one\n");
    other.workspace = Some("api".into());
    store.save_plan(other)?;
    let addr = serve(app(dir.path()));

    let a = get(addr, "/w/api");
    assert_eq!(a.status, 200);
    assert!(
        a.body
            .contains(r#"<progress value="2" max="3">2/3</progress>"#),
        "{}",
        a.body
    );
    assert!(a.body.contains("2 of 3 done"));
    assert!(
        a.body
            .contains(r#"<progress value="0" max="1">0/1</progress>"#)
    );
    assert!(a.body.contains("Active plan: "));
    assert!(
        a.body.contains("<h2>Steps</h2>"),
        "the active plan rendered"
    );
    assert!(
        a.body
            .contains(r#"<a href="/w/api/plans/auth-redesign">Auth redesign</a>"#)
    );
    assert_eq!(
        titles(&a.body),
        ["Fixed the auth timeout", "Refactored database queries"]
    );

    let a = get(addr, &format!("/w/api/plans/{}", saved.id));
    assert_eq!(a.status, 200);
    assert!(a.body.contains("<h1>Auth redesign</h1>"));
    assert_eq!(a.body.matches(r#"type="checkbox""#).count(), 3);
    assert!(a.body.contains("active plan"));

    let day = store.checkpoints_for_day("api", now().date_naive())?;
    let c = day
        .iter()
        .find(|c| c.title() == "Fixed the auth timeout")
        .ok_or("the checkpoint")?;
    let a = get(addr, &format!("/w/api/checkpoints/{}", c.id));
    assert_eq!(a.status, 200);
    assert!(
        a.body
            .contains("<p>Fixed the auth timeout\nRefresh tokens now last 60 min.</p>"),
        "{}",
        a.body
    );
    // Any id format is found with the day the timeline's links carry.
    let imported = checkpoint("api", 5, "Imported entry", &[]);
    let mut imported = imported;
    imported.id = "v4-abc".into();
    store.import_checkpoint(&imported)?;
    let a = get(
        addr,
        &format!(
            "/w/api/checkpoints/v4-abc?day={}",
            imported.timestamp.format("%Y-%m-%d")
        ),
    );
    assert_eq!(a.status, 200);
    assert!(a.body.contains("Imported entry"));
    Ok(())
}

#[test]
fn missing_things_are_404() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let addr = serve(app(dir.path()));
    for target in [
        "/w/nope",
        "/w/api/plans/nope",
        "/w/api/checkpoints/20260302T000000000Z-nope",
        "/w/api/checkpoints/not-an-id",
        "/w/..%2F..%2Fetc/plans/passwd",
        "/w/api/plans/..%2F..%2F..%2Fetc%2Fpasswd",
        "/w/api/plans/..",
        "/w/api/checkpoints/..%2F..%2Fx?day=2026-03-02",
        "/journals/..%2F..%2Fapi%2Fcheckpoints%2F2026-03-02.md",
        "/journals/nope.md",
        "/worktrees/0",
        "/worktrees/x",
        "/nothing/here",
    ] {
        let a = get(addr, target);
        assert_eq!(a.status, 404, "{target}: {}", a.body);
        assert!(a.body.contains("<h1>Not found</h1>"), "{target}");
    }
    Ok(())
}

#[test]
fn activity_chart_counts_per_day_and_workspace() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let addr = serve(app(dir.path()));
    let a = get(addr, "/activity?weeks=1");
    assert_eq!(a.status, 200);
    assert!(a.body.contains("<svg class=\"activity\""));
    assert!(
        a.body.contains("<title>2026-03-02 api: 2</title>"),
        "{}",
        a.body
    );
    assert!(a.body.contains("<title>2026-03-01 web: 1</title>"));
    assert!(a.body.contains("<title>2026-02-28 web: 1</title>"));
    assert!(
        a.body
            .contains("4 checkpoints in 2 workspaces, 2026-02-24 to 2026-03-02")
    );
    let a = get(addr, "/activity?weeks=9999");
    assert!(a.body.contains("is not a whole number from 1 to 520"));
    Ok(())
}

#[test]
fn journals_notes_and_pipeline() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let wt = tempfile::tempdir()?;
    let journal = goldfish_journal::Journal::open(wt.path())?;
    journal.boot("ship auth", "cookies", "auth/tokens")?;
    for _ in 0..3 {
        journal.fail(None, "cookie jar lost the token")?;
    }
    // The archive, as `goldfish journal archive` writes it.
    let root = dir.path().join(".self-improving");
    std::fs::create_dir_all(root.join("journals"))?;
    std::fs::write(
        root.join("journals").join("auth-2026-03-01.md"),
        "# Journal: auth\n\n- FAIL: x\n",
    )?;
    std::fs::write(root.join("corrections.md"), "## M2 switched to headers\n")?;
    std::fs::write(
        root.join("patterns.jsonl"),
        "{\"ts\":\"2026-03-01T10:00:00Z\",\"task\":\"auth\",\"code\":\"M2\",\"failed_on\":\"cookies\",\"switching_to\":\"headers\",\"rationale\":\"jar\",\"outcome\":\"success\"}\nnot json\n",
    )?;
    notes_core::NotesManager::init(
        wt.path(),
        "AUTH-1",
        notes_core::Stage::Build,
        "Tokens in headers",
    )?;
    drop(goldfish_signals::PipelineRunner::start(
        wt.path(),
        goldfish_signals::RunnerOptions::default(),
    )?);

    let addr = serve(app(dir.path()).with_worktree(wt.path()));
    let a = get(addr, "/journals");
    assert_eq!(a.status, 200);
    assert!(
        a.body
            .contains(r#"<a href="/journals/auth-2026-03-01.md">auth-2026-03-01.md</a>"#)
    );
    assert!(a.body.contains("<h2>M2 switched to headers</h2>"));
    assert!(a.body.contains("<td>headers</td>"));
    assert!(
        a.body.contains("patterns.jsonl:2:"),
        "the bad line is named: {}",
        a.body
    );
    assert!(a.body.contains(r#"<a href="/worktrees/0">"#));
    let a = get(addr, "/journals/auth-2026-03-01.md");
    assert!(a.body.contains("<h1>Journal: auth</h1>"), "{}", a.body);

    let a = get(addr, "/worktrees/0");
    assert_eq!(a.status, 200);
    assert!(a.body.contains("Mutation required: "), "{}", a.body);
    assert!(a.body.contains("cookie jar lost the token"));
    assert!(a.body.contains("Tokens in headers"), "the notes");
    assert!(
        a.body.contains(r#"<strong class="stage">SCOPE</strong>"#),
        "{}",
        a.body
    );
    assert!(
        a.body.contains("Waiting for: </strong>scope-complete"),
        "{}",
        a.body
    );
    Ok(())
}

#[test]
fn a_port_in_use_is_named() -> TestResult {
    let holder = std::net::TcpListener::bind("127.0.0.1:0")?;
    let addr = holder.local_addr()?;
    let err = goldfish_web::Server::bind(App::new("/nonexistent"), addr).expect_err("in use");
    let text = err.to_string();
    assert!(text.contains(&addr.to_string()), "{text}");
    assert!(
        text.contains(&format!("port {} is already in use", addr.port())),
        "{text}"
    );
    Ok(())
}

#[test]
fn the_stylesheet_is_embedded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let addr = serve(App::new(dir.path()));
    let a = get(addr, "/static/style.css");
    assert_eq!(a.status, 200);
    assert_eq!(a.header("content-type"), Some("text/css; charset=utf-8"));
    assert!(a.body.contains("header.top"));
}

#[test]
fn memory_kept_in_the_repository_is_shown_as_the_cli_reads_it() -> TestResult {
    let home = tempfile::tempdir()?;
    let outer = tempfile::tempdir()?;
    let repo = outer.path().join("shop");
    std::fs::create_dir_all(repo.join(".git"))?;
    std::fs::create_dir_all(repo.join(goldfish_store::IN_REPO_DIR))?;
    let store = goldfish_store::Store::open(home.path())?.with_repo_memory(&repo);
    let mut input = goldfish_store::CheckpointInput::new("Kept in the repository");
    input.workspace = Some(goldfish_store::detect_workspace(&repo));
    store.save_checkpoint(input)?;
    assert!(repo.join(goldfish_store::IN_REPO_DIR).join("shop").is_dir());
    let with_cwd = serve(App::new(home.path()).with_cwd(&repo));
    assert_eq!(titles(&get(with_cwd, "/").body), ["Kept in the repository"]);
    let without = serve(App::new(home.path()));
    assert!(titles(&get(without, "/").body).is_empty());
    Ok(())
}

#[test]
fn a_checkpoint_page_shows_its_supersession_both_ways() -> TestResult {
    let dir = tempfile::tempdir()?;
    let old = checkpoint("api", 30, "Sessions last a day", &[]);
    let mut new = checkpoint("api", 2, "Sessions last an hour", &[]);
    new.supersedes = vec![old.id.clone()];
    new.topic = Some("sessions".into());
    store_with(dir.path(), &[old.clone(), new.clone()]);
    let addr = serve(app(dir.path()));
    let a = get(addr, &format!("/w/api/checkpoints/{}", new.id));
    assert_eq!(a.status, 200);
    let old_href = format!("/w/api/checkpoints/{}", old.id);
    assert!(
        a.body.contains(&format!(
            r#"Supersedes: <a href="{old_href}">Sessions last a day</a>"#
        )),
        "{}",
        a.body
    );
    let b = get(addr, &old_href);
    assert!(
        b.body.contains(&format!(
            r#"Superseded by: <a href="/w/api/checkpoints/{}">Sessions last an hour</a>"#,
            new.id
        )),
        "{}",
        b.body
    );
    // The timeline (a recall) shows only the newest.
    let timeline = titles(&get(addr, "/?days=7").body);
    assert!(
        timeline.contains(&"Sessions last an hour".to_string()),
        "{timeline:?}"
    );
    assert!(
        !timeline.contains(&"Sessions last a day".to_string()),
        "{timeline:?}"
    );
    Ok(())
}

#[test]
fn the_tidy_page_shows_clusters_and_chains_and_changes_nothing() -> TestResult {
    let dir = tempfile::tempdir()?;
    let mut old = checkpoint("api", 30, "Use Postgres 14 for the orders database", &[]);
    old.memory_type = goldfish_store::MemoryType::Decision;
    let mut new = checkpoint("api", 20, "Upgrade the orders database to Postgres 16", &[]);
    new.memory_type = goldfish_store::MemoryType::Decision;
    store_with(
        dir.path(),
        &[
            checkpoint("api", 10, "Handed off: the importer is half done", &[]),
            checkpoint("api", 9, "Handed off: the importer is half done", &[]),
            checkpoint("api", 8, "Handed off: <b>importer</b> is half done", &[]),
            old.clone(),
            new.clone(),
        ],
    );
    let before = std::fs::read_to_string(dir.path().join("api/checkpoints/2026-03-01.md"))?;
    let addr = serve(app(dir.path()));
    let page = get(addr, "/w/api/tidy");
    assert_eq!(page.status, 200, "{}", page.body);
    for needle in [
        "Near-duplicates (1)",
        "exact copy",
        "Decisions on one subject, not linked (1)",
        &new.id,
        &old.id,
        "goldfish tidy -w api --apply",
        // Stored text stays text.
        "&lt;b&gt;importer&lt;/b&gt;",
    ] {
        assert!(page.body.contains(needle), "{needle}: {}", page.body);
    }
    assert!(!page.body.contains("<b>importer"));
    let ws = get(addr, "/w/api");
    assert!(ws.body.contains("href=\"/w/api/tidy\""), "{}", ws.body);
    assert_eq!(get(addr, "/w/nope/tidy").status, 404);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("api/checkpoints/2026-03-01.md"))?,
        before,
        "the page writes nothing"
    );
    Ok(())
}
