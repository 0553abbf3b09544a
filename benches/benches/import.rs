//! Benches for goldfish-import: importing 10,000 Goldfish 7 checkpoint files and 10,000 Tusk
//! rows into an empty store. The sources are made at setup by copying the fixture records
//! (with new ids) into a temporary directory.
use std::path::{Path, PathBuf};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use goldfish_import::{ImportOptions, apply, memories_batch, tusk_batch};
use goldfish_store::Store;

const RECORDS: usize = 10_000;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/import/tests/fixtures")
}

/// A project whose `.memories/` holds `RECORDS` checkpoint files, copies of the fixture's.
fn goldfish_project(root: &Path) -> PathBuf {
    let source = fixtures().join("goldfish-v7/tidepool/.memories");
    let mut files = Vec::new();
    for day in std::fs::read_dir(&source).expect("fixture").flatten() {
        let name = day.file_name().to_string_lossy().into_owned();
        if !name.starts_with("20") {
            continue;
        }
        for file in std::fs::read_dir(day.path()).expect("day").flatten() {
            if file.file_name().to_string_lossy().ends_with(".md") {
                let text = std::fs::read_to_string(file.path()).expect("fixture file");
                files.push((
                    name.clone(),
                    file.file_name().to_string_lossy().into_owned(),
                    text,
                ));
            }
        }
    }
    files.sort();
    let project = root.join("bench-project");
    for i in 0..RECORDS {
        let (day, name, text) = &files[i % files.len()];
        let dir = project.join(".memories").join(day);
        std::fs::create_dir_all(&dir).expect("day dir");
        let text = text.replacen("\nid: ", &format!("\nid: b{i}-"), 1);
        std::fs::write(dir.join(format!("{}_{i:05}.md", &name[..6])), text).expect("write");
    }
    project
}

/// A Tusk journal holding `RECORDS` checkpoint rows: the fixture's, and copies with new ids.
fn tusk_journal(root: &Path) -> PathBuf {
    let db = root.join("journal.db");
    std::fs::copy(fixtures().join("tusk/journal.db"), &db).expect("copy journal");
    let conn = rusqlite::Connection::open(&db).expect("open copy");
    let have: usize = conn
        .query_row("SELECT count(*) FROM checkpoints", [], |r| r.get(0))
        .expect("count");
    conn.execute_batch("CREATE TEMP TABLE copy AS SELECT * FROM checkpoints;")
        .expect("temp table");
    let mut n = have;
    let mut round = 0;
    while n < RECORDS {
        round += 1;
        conn.execute("UPDATE copy SET id = id || ?1", [format!("-c{round}")])
            .expect("new ids");
        let take = (RECORDS - n).min(have);
        conn.execute(
            "INSERT INTO checkpoints SELECT * FROM copy LIMIT ?1",
            [take as i64],
        )
        .expect("insert copies");
        n += take;
    }
    db
}

fn import(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let project = goldfish_project(dir.path());
    let journal = tusk_journal(dir.path());
    let mut group = c.benchmark_group("import");
    group.sample_size(10);
    group.bench_function("goldfish7_10k_files", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("store dir"),
            |home| {
                let store = Store::open(home.path()).expect("store");
                let batch = memories_batch(&project).expect("batch");
                let report = apply(&store, batch, &ImportOptions::default(), &mut |_, _| {});
                assert!(report.verified());
                home
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("tusk_10k_rows", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("store dir"),
            |home| {
                let store = Store::open(home.path()).expect("store");
                let batch = tusk_batch(&journal).expect("batch");
                let report = apply(&store, batch, &ImportOptions::default(), &mut |_, _| {});
                assert!(report.verified());
                home
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, import);
criterion_main!(benches);
