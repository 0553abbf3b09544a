//! Benches for goldfish-redact: what redaction adds to a save, on a typical checkpoint
//! description (500 bytes) and a long one (16 KiB), clean and with secrets, and the cost of
//! building a redactor (paid once per process).
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use goldfish_redact::Redactor;

/// Sentences as agents write them into checkpoints: paths, hashes, versions, URLs, UUIDs,
/// identifiers that contain `token` and `password`, and no secret.
const SENTENCES: &[&str] = &[
    "Fixed the token refresh race in src/auth/token.rs (commit 3f2a9c1): the refresh now holds the session lock.",
    "Bumped regex to 1.11.1 and serde to 1.0.219; cargo test -p goldfish-store passes on main.",
    "The password reset flow sends the e-mail through https://mail.example.com/api/v2/send with a 5 s timeout.",
    "Request 123e4567-e89b-12d3-a456-426614174000 failed with 502 upstream; retried after da39a3ee5e6b.",
    "Next: move the api_key lookup into config.rs and read it from the environment, not the file.",
    "Decided against JWT for service calls: the session token already carries the scope we need.",
    "Benchmarks: recall 10k at 4.4 ms, store save at 6.1 ms; see benches/targets.txt for the limits.",
];

/// Made-up secrets of several kinds, put together at run time.
fn secrets() -> Vec<String> {
    vec![
        "AKIAIOSFODNN7EXAMPLE".to_string(),
        format!("{}_{}", "ghp", "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xYz1234"),
        "postgres://app:Sup3rS3cret@db.internal:5432/app".to_string(),
        "password=hunter2hunter2".to_string(),
    ]
}

/// About `len` bytes of sentences (cut at a character boundary); with `secret`, one secret
/// every ~2 KiB (at least one).
fn description(len: usize, with_secrets: bool) -> String {
    let secrets = secrets();
    let mut out = String::new();
    let mut i = 0;
    while out.len() < len {
        if with_secrets && i % 12 == 3 {
            out.push_str(&format!(
                "Used {} by mistake. ",
                secrets[(i / 12) % secrets.len()]
            ));
        }
        out.push_str(SENTENCES[i % SENTENCES.len()]);
        out.push(if i % 3 == 2 { '\n' } else { ' ' });
        i += 1;
    }
    let mut end = len.min(out.len());
    while !out.is_char_boundary(end) {
        end -= 1;
    }
    out.truncate(end);
    out
}

fn redact(c: &mut Criterion) {
    let redactor = Redactor::default();
    let mut group = c.benchmark_group("redact");
    for (name, len) in [("500", 500), ("16k", 16 * 1024)] {
        let clean = description(len, false);
        assert!(redactor.redact(&clean).is_clean(), "{clean}");
        group.bench_function(format!("clean_{name}"), |b| {
            b.iter(|| black_box(redactor.redact(black_box(&clean))))
        });
        let dirty = description(len, true);
        assert!(!redactor.redact(&dirty).is_clean());
        group.bench_function(format!("secrets_{name}"), |b| {
            b.iter(|| black_box(redactor.redact(black_box(&dirty))))
        });
    }
    // The worst inputs found for the matching loop: every separator starts a candidate whose
    // value runs on and is refused. Once quadratic (a second for 16 KiB), now linear.
    let worst = format!("{}example", "token=".repeat(16 * 1024 / 6));
    group.bench_function("worst_16k", |b| {
        b.iter(|| black_box(redactor.redact(black_box(&worst))))
    });
    let worst = format!("{}example", "token:".repeat(16 * 1024 / 6));
    group.bench_function("worst_colon_16k", |b| {
        b.iter(|| black_box(redactor.redact(black_box(&worst))))
    });
    // Every `goldfish checkpoint` is its own process, so a save pays for building a redactor
    // (the triggers' RegexSet) and for a first search (the regex caches start empty), and, when
    // a trigger matches, for compiling that row's regex.
    group.bench_function("new", |b| b.iter(|| black_box(Redactor::default())));
    let clean = description(500, false);
    group.bench_function("first_save_500", |b| {
        b.iter(|| black_box(Redactor::default().redact(black_box(&clean)).is_clean()))
    });
    let dirty = description(500, true);
    group.bench_function("first_save_secrets_500", |b| {
        b.iter(|| black_box(Redactor::default().redact(black_box(&dirty)).is_clean()))
    });
    group.finish();
}

criterion_group!(benches, redact);
criterion_main!(benches);
