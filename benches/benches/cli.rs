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
//! `web/*`: pages of `goldfish serve` over the same evaluation store (with an active plan),
//! each a real HTTP request on a fresh connection to the running server, the whole answer
//! read: the timeline's first and twentieth page, a search (ranked, with its explanations),
//! the activity chart over 52 weeks, a workspace, a plan, a checkpoint, the journals page.
//! Target 50 ms per page.
//!
//! The bench runs the optimised binary. It first runs `cargo build --profile bench -p
//! goldfish-cli` (the bench profile shares the dependencies `cargo bench` has just built, and
//! the build is a no-op when the binary is up to date), so
//! `cargo bench -p goldfish-benches --bench cli` is enough. Set `GOLDFISH_BENCH_BIN` to bench
//! another binary instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};

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
#[path = "support/corpus.rs"]
mod support;

fn eval_store(home: &Path) -> String {
    use goldfish_store::{Checkpoint, format_day_file};
    use std::collections::BTreeMap;
    let mut all: Vec<Checkpoint> = support::checkpoints(include_str!(
        "../../crates/recall/tests/fixtures/nl_corpus.jsonl"
    ));
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

criterion_group!(benches, recall_100, hook_session_start, serve_pages);
criterion_main!(benches);
