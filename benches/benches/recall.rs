//! Benches for goldfish-recall: search over in-memory checkpoints (100, 10,000 and 100,000;
//! index build included, as recall indexes a freshly read set on every call) and recall from
//! disk (7 days of one workspace of 100 checkpoints; 7 days of 50 workspaces × 140).
use std::collections::BTreeMap;
use std::hint::black_box;

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use goldfish_recall::{Query, RecallOptions, SearchOptions, recall, search};
use goldfish_store::{Checkpoint, Store, format_day_file};

/// The 400 real checkpoints of the evaluation set.
fn corpus() -> Vec<Checkpoint> {
    goldfish_benches::corpus::checkpoints(goldfish_benches::corpus::EVAL_CHECKPOINTS)
}

/// `n` checkpoints made by varying the corpus: each copy gets its own id, time, one of 1,000
/// extra tags and one of 5,000 extra file names, so the vocabulary grows as a real one does.
fn varied(base: &[Checkpoint], n: usize, now: DateTime<Utc>) -> Vec<Checkpoint> {
    (0..n)
        .map(|i| {
            let mut c = base[i % base.len()].clone();
            c.id = format!("{}-{i}", c.id);
            c.timestamp = now - TimeDelta::minutes(i as i64);
            if i >= base.len() {
                c.tags.push(format!("topic{}", i % 1000));
                c.files
                    .push(format!("src/module{}/part{}.rs", i % 5000, i % 7));
            }
            c
        })
        .collect()
}

const QUERY: &str = "lazy dfa rolover bug";

/// Whether search runs its AVX2 pass here, said on stderr so that a figure in a log can be read
/// with the instructions it was measured with. The features are those `Avx2::detect` in
/// crates/recall/src/lanes.rs asks for: keep the two lists the same.
fn say_lanes() {
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt");
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    let how = if avx2 { "AVX2" } else { "portable SIMD" };
    eprintln!("recall benches: search runs its {how} pass on this machine");
}

fn bench_search(c: &mut Criterion) {
    say_lanes();
    let base = corpus();
    let now = Utc::now();
    let mut g = c.benchmark_group("recall");
    for (name, n) in [
        ("search_100", 100),
        ("search_10k", 10_000),
        ("search_100k", 100_000),
    ] {
        let cps = varied(&base, n, now);
        let q = Query::parse(QUERY);
        let opts = SearchOptions::default();
        g.bench_function(name, |b| {
            b.iter(|| black_box(search(&q, black_box(&cps), &opts)))
        });
    }
    g.finish();
}

/// Writes `cps` into `root` as day files (the store's own format), grouped by UTC day.
fn write_workspace(root: &std::path::Path, ws: &str, cps: &[Checkpoint]) {
    let mut days: BTreeMap<NaiveDate, Vec<Checkpoint>> = BTreeMap::new();
    for c in cps {
        let mut c = c.clone();
        c.workspace = ws.to_string();
        days.entry(c.timestamp.date_naive()).or_default().push(c);
    }
    let dir = root.join(ws).join("checkpoints");
    std::fs::create_dir_all(&dir).expect("create the workspace directory");
    for (date, mut list) in days {
        list.sort_by_key(|c| c.timestamp);
        std::fs::write(dir.join(format!("{date}.md")), format_day_file(date, &list))
            .expect("write a day file");
    }
}

/// `n` checkpoints spread evenly over the last 7 days (timestamps relative to now).
fn spread(base: &[Checkpoint], n: usize, now: DateTime<Utc>, salt: usize) -> Vec<Checkpoint> {
    let step = 7 * 24 * 60 / n as i64;
    (0..n)
        .map(|i| {
            let mut c = base[(i + salt * 7) % base.len()].clone();
            c.id = format!("c{salt}-{i}");
            c.timestamp = now - TimeDelta::minutes(step * i as i64 + 1);
            c
        })
        .collect()
}

fn bench_disk(c: &mut Criterion) {
    let base = corpus();
    let now = Utc::now();
    let dir = tempfile::tempdir().expect("temp dir");
    write_workspace(dir.path(), "solo", &spread(&base, 100, now, 0));
    let many = tempfile::tempdir().expect("temp dir");
    for w in 0..50 {
        write_workspace(
            many.path(),
            &format!("ws-{w:02}"),
            &spread(&base, 140, now, w),
        );
    }
    let solo = Store::open(dir.path()).expect("store");
    let all = Store::open(many.path()).expect("store");

    let mut g = c.benchmark_group("recall");
    let mut o = RecallOptions::default();
    o.days = Some(7);
    o.workspace = "solo".into();
    g.bench_function("disk_7d_1ws_100", |b| {
        b.iter(|| black_box(recall(&solo, &o).expect("recall")))
    });
    let mut o = RecallOptions::default();
    o.days = Some(7);
    o.workspace = "all".into();
    g.bench_function("disk_7d_50ws_140", |b| {
        b.iter(|| black_box(recall(&all, &o).expect("recall")))
    });
    o.search = Some(QUERY.into());
    g.bench_with_input(
        BenchmarkId::new("disk_7d_50ws_140_search", 7000),
        &o,
        |b, o| b.iter(|| black_box(recall(&all, o).expect("recall"))),
    );
    g.finish();
}

criterion_group!(benches, bench_search, bench_disk);
criterion_main!(benches);
