//! Benches for goldfish-store: saving (with and without git), workspace detection, and
//! reading a 7-day window.
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use chrono::{TimeDelta, TimeZone, Utc};
use criterion::{Criterion, criterion_group, criterion_main};
use goldfish_core::time::ManualClock;
use goldfish_store::{CheckpointInput, Store, detect_workspace};

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=Bench",
            "-c",
            "user.email=bench@example.com",
        ])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

fn input(description: &str) -> CheckpointInput {
    let mut input = CheckpointInput::new(description);
    input.workspace = Some("bench".into());
    input.tags = vec!["bench".into(), "store".into()];
    input
}

/// A typical 500-byte checkpoint description with one secret (a GitHub token, built here so
/// that no scanner takes this file for a leak).
fn description_500() -> String {
    let mut d = format!(
        "Fixed the token refresh race in src/auth/refresh.rs (commit 3f2a9c1)\n\
         The CI token {} was rotated; the refresh now holds the session lock while it \
         swaps tokens, so two tabs no longer log each other out.\n",
        format_args!("ghp_{}", "a1B2".repeat(9))
    );
    while d.len() < 500 {
        d.push_str("Next: cover the expiry path with a test. ");
    }
    d.truncate(500);
    d
}

fn save(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).expect("repo dir");
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("src/lib.rs"), "pub fn x() {}\n").expect("write");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    std::fs::write(repo.join("src/lib.rs"), "pub fn y() {}\n").expect("write");
    std::fs::write(repo.join("notes.txt"), "untracked\n").expect("write");

    let store = Store::open(dir.path().join("store")).expect("store");
    let mut group = c.benchmark_group("store");
    group.bench_function("save_git", |b| {
        b.iter(|| {
            let mut input = input("Saved from a bench\nwith a second line");
            input.git_dir = Some(repo.clone());
            store.save_checkpoint(input).expect("save")
        })
    });
    let store = Store::open(dir.path().join("store-nogit")).expect("store");
    group.bench_function("save_nogit", |b| {
        b.iter(|| {
            store
                .save_checkpoint(input("Saved from a bench"))
                .expect("save")
        })
    });
    // What redaction adds to a whole save (fsync included): the same 500-byte description,
    // holding one secret, saved into a store with every kind on and into one whose setting
    // turns every kind off. The difference is the `redact/*` rows' microseconds; the fsyncs
    // (milliseconds, noisy) dominate both.
    let description = description_500();
    let redacted = Store::open(dir.path().join("store-redacted")).expect("store");
    group.bench_function("save_500b_redacted", |b| {
        b.iter(|| {
            let saved = redacted
                .save_checkpoint_reported(input(&description))
                .expect("save");
            assert_eq!(saved.redacted.len(), 1);
            saved
        })
    });
    let unredacted_root = dir.path().join("store-unredacted");
    std::fs::create_dir_all(&unredacted_root).expect("store dir");
    let every_kind: Vec<&str> = goldfish_redact::Kind::SECRETS
        .iter()
        .map(|k| k.name())
        .collect();
    std::fs::write(
        unredacted_root.join(goldfish_store::SETTINGS_FILE),
        serde_json::json!({"redact": {"disabled": every_kind}}).to_string(),
    )
    .expect("settings");
    let unredacted = Store::open(&unredacted_root).expect("store");
    group.bench_function("save_500b_unredacted", |b| {
        b.iter(|| {
            let saved = unredacted
                .save_checkpoint_reported(input(&description))
                .expect("save");
            assert!(saved.redacted.is_empty());
            saved
        })
    });
    let deep = repo.join("src/a/b/c");
    std::fs::create_dir_all(&deep).expect("deep dir");
    group.bench_function("detect_workspace", |b| b.iter(|| detect_workspace(&deep)));
    group.finish();
}

fn read(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let start = Utc
        .with_ymd_and_hms(2025, 10, 7, 0, 0, 0)
        .single()
        .expect("time");
    let clock = Arc::new(ManualClock::new(start));
    let store = Store::open(dir.path())
        .expect("store")
        .with_clock(clock.clone());
    // 100 checkpoints spread over 7 days (one every ~100 minutes).
    for i in 0..100 {
        let mut input = input(&format!(
            "Checkpoint {i}: did something useful\nDetails here."
        ));
        input.tags.push(format!("t{}", i % 7));
        store.save_checkpoint(input).expect("save");
        clock.advance(TimeDelta::minutes(100));
    }
    let to = start + TimeDelta::days(7);
    let mut group = c.benchmark_group("store");
    group.bench_function("read_7d_100", |b| {
        b.iter(|| {
            let range = store.checkpoints_between("bench", start, to).expect("read");
            assert_eq!(range.checkpoints.len(), 100);
            range
        })
    });
    group.finish();
}

criterion_group!(benches, save, read);
criterion_main!(benches);
