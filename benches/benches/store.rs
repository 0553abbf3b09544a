//! Benches for goldfish-store: saving (with and without git), workspace detection, and
//! reading a 7-day window.
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use chrono::{TimeDelta, TimeZone, Utc};
use criterion::{Criterion, criterion_group, criterion_main};
use goldfish_store::{CheckpointInput, Store, detect_workspace};
use notes_core::time::ManualClock;

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
