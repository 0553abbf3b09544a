//! Measures an installed model by hand: load time (weights memory-mapped), one query's
//! embedding, and documents per second for checkpoint-sized and short documents.
//!
//! `cargo run --release -p goldfish-embed --example measure -- MODEL_DIR [DOCUMENTS [THREADS]]`
//!
//! Prefix it with `/usr/bin/time -f "%e s wall, %U s user"` to see the CPU time as well: on a
//! shared machine the wall-clock figures depend on the other work.

use std::time::Instant;

use goldfish_embed::{BertEmbedder, Embedder};

/// `documents` texts of the words cycled, `min` to `min + spread - 1` words long.
fn documents(documents: usize, min: usize, spread: usize) -> Vec<String> {
    let words = "fixed the flaky login test by waiting for the session cookie then refactored \
                 the recall index so that deleting it loses nothing and measured the import \
                 on a store of one hundred thousand checkpoints across twelve workspaces";
    let words: Vec<&str> = words.split_whitespace().collect();
    (0..documents)
        .map(|i| {
            words
                .iter()
                .cycle()
                .skip(i)
                .take(min + i % spread)
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or("usage: measure MODEL_DIR [DOCUMENTS [THREADS]]")?;
    let count: usize = args.next().map_or(Ok(512), |n| n.parse())?;
    let threads: Option<usize> = args.next().map(|n| n.parse()).transpose()?;
    let start = Instant::now();
    let mut model = BertEmbedder::load(std::path::Path::new(&dir))?;
    println!("load: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    println!(
        "model: {} ({} dimensions)",
        model.model_id(),
        model.dimension()
    );
    if let Some(threads) = threads {
        model = model.with_threads(threads)?;
    }
    let query = "why did the login test fail on staging";
    model.embed(&[query])?;
    let start = Instant::now();
    let runs = 20;
    for _ in 0..runs {
        model.embed(&[query])?;
    }
    println!(
        "one query: {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3 / f64::from(runs)
    );
    for (label, min, spread) in [("40-120 words", 40, 81), ("15-25 words", 15, 11)] {
        let docs = documents(count, min, spread);
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        let start = Instant::now();
        let mut calls = 0;
        let vectors = model.embed_many(&refs, &mut |_, _| calls += 1)?;
        let secs = start.elapsed().as_secs_f64();
        assert_eq!(vectors.len(), count);
        println!(
            "{count} documents ({label}): {secs:.2} s, {:.0} documents/s ({calls} progress calls)",
            count as f64 / secs
        );
    }
    Ok(())
}
