//! Benches for notes-core: parse + format of a full GOBLIN_NOTES.md (target 100 µs) and a
//! `NotesManager::update` with fsync (target 10 ms).
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use notes_core::{Notes, NotesManager, Stage};

/// A full notes file: every list at its limit, folded summaries, multi-line context and a
/// hand-added section.
fn full_notes() -> String {
    let t = goldfish_core::time::parse_utc("2024-01-15T10:30:00Z").expect("valid timestamp");
    let mut n = Notes::new(
        "ENG-123",
        Stage::Build,
        "Implement JWT-based user authentication",
        t,
    );
    n.set_context(
        "Core auth flow is complete. Login/logout working. Need to:\n\
         1. Implement password reset (email flow)\n\
         2. Add unit tests for token validation\n\
         3. Integration tests for auth middleware",
    );
    for i in 0..8 {
        n.add_completed_step(format!("Completed step number {i} of the auth work"));
        n.add_decision(
            format!("Decision {i}"),
            format!("Because of reason {i}, which matters"),
        );
    }
    for i in 0..14 {
        n.add_file_changed(
            format!("src/auth/module_{i}.py"),
            format!("Change {i} to the module"),
        );
    }
    n.add_in_progress("Adding password reset flow");
    n.add_pending("Write unit tests");
    n.add_pending("Write integration tests");
    let mut text = n.format();
    text.push_str("## Blockers\n- Waiting on staging credentials\n");
    text
}

fn parse_format_full(c: &mut Criterion) {
    let text = full_notes();
    assert_eq!(
        Notes::parse(&text).expect("parses").format(),
        text,
        "round trip"
    );
    let mut group = c.benchmark_group("notes");
    group.bench_function("parse_format_full", |b| {
        b.iter(|| Notes::parse(black_box(&text)).expect("parses").format())
    });
    group.finish();
}

fn manager_update_fsync(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join(".goblin")).expect("create .goblin");
    std::fs::write(NotesManager::path(dir.path()), full_notes()).expect("write notes");
    let mut i = 0u64;
    let mut group = c.benchmark_group("notes");
    group.bench_function("manager_update_fsync", |b| {
        b.iter(|| {
            i += 1;
            NotesManager::update(dir.path(), |n| {
                n.add_decision(format!("bench {i}"), "speed")
            })
            .expect("update")
        })
    });
    group.finish();
}

criterion_group!(benches, parse_format_full, manager_update_fsync);
criterion_main!(benches);
