//! Benches for goldfish-journal: the hand-over view and the parser on a 10,000-line journal.
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use goldfish_journal::{Document, Journal, LogKind};

/// A realistic journal of exactly `lines` lines: sessions of about a hundred lines with every
/// kind of entry, two-line entries, failure streaks, mutations and hand-written prose.
fn journal_text(lines: usize) -> String {
    let mut out: Vec<String> = vec!["# JOURNAL — bench/handover-10k\n".to_string()];
    let mut session = 0;
    while out.len() < lines {
        session += 1;
        let (h, m) = ((session / 60) % 24, session % 60);
        out.push(format!(
            "## 2026-03-17 {h:02}:{m:02} — session {session} of the long task\n"
        ));
        out.push(format!(
            "Intent: make progress on part {session} of the migration\n"
        ));
        out.push(format!(
            "Approach: approach number {session} through the middleware\n"
        ));
        out.push("\n".to_string());
        for i in 0..16 {
            out.push(match i % 8 {
                0 => format!("Decision: use the session token for route {i} of part {session}\n"),
                1 => format!("❌ Failed: the SDK rejects the dual-format token on route {i}\n"),
                2 => format!("Found: the middleware hook on /api/{i} is the insertion point\n"),
                3 => format!("❌ Failed [side path {i}]: adapter loses the request scope\n"),
                4 => format!("→ cannot swap at the middleware layer for route {i}\n"),
                5 => format!("✅ Working on {i}/16 routes, blocked on /api/graphql\n"),
                6 => "some prose written by hand, kept as free text by the parser\n".to_string(),
                _ => format!("Current state: lib/auth/adapter-{i}.ts created, tests pending\n"),
            });
            if i % 5 == 0 {
                out.push(format!("  with a second line of detail about entry {i}\n"));
            }
        }
        out.push("\n".to_string());
        out.push("## MUTATION: M5 (Reduce Scope)\n".to_string());
        out.push(format!(
            "Failed 3x on: approach number {session} through the middleware\n"
        ));
        out.push("Switching to: middleware hook only, scoped to /api\n".to_string());
        out.push("Rationale: scope too broad to verify in isolation\n".to_string());
        out.push("\n".to_string());
    }
    out.truncate(lines);
    out.concat()
}

fn handover(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let journal = Journal::open(dir.path()).expect("open");
    let text = journal_text(10_000);
    assert_eq!(text.lines().count(), 10_000);
    std::fs::write(journal.path(), &text).expect("write the journal");
    let h = journal.handover().expect("handover");
    assert_eq!(h.tail_lines, 50);

    let mut group = c.benchmark_group("journal");
    group.bench_function("handover_10k", |b| {
        b.iter(|| black_box(journal.handover().expect("handover").to_string()))
    });
    group.bench_function("parse_10k", |b| {
        b.iter(|| black_box(Document::parse(black_box(&text))))
    });
    // One durable append (lock, read, protocol check, atomic replace with fsyncs) to a
    // 1,000-line journal; the file is reset between runs so it does not grow.
    let small = journal_text(1_000);
    group.bench_function("log_1k", |b| {
        b.iter_batched(
            || std::fs::write(journal.path(), &small).expect("reset"),
            |()| {
                journal
                    .log(LogKind::Finding, "the hook runs before the router")
                    .expect("log")
            },
            criterion::BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, handover);
criterion_main!(benches);
