//! Measures an installed model by hand: load time (weights memory-mapped), one query's
//! embedding, and documents per second in batches.
//!
//! `cargo run --release -p goldfish-embed --example measure -- MODEL_DIR [DOCUMENTS]`

use std::time::Instant;

use goldfish_embed::{BertEmbedder, Embedder};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: measure MODEL_DIR [DOCUMENTS]")?;
    let documents: usize = args.next().map_or(Ok(512), |n| n.parse())?;
    let start = Instant::now();
    let model = BertEmbedder::load(std::path::Path::new(&dir))?;
    println!("load: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
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
    // Checkpoint-like documents: a title and a few sentences (40 to 120 words).
    let words = "fixed the flaky login test by waiting for the session cookie then refactored \
                 the recall index so that deleting it loses nothing and measured the import \
                 on a store of one hundred thousand checkpoints across twelve workspaces";
    let words: Vec<&str> = words.split_whitespace().collect();
    let docs: Vec<String> = (0..documents)
        .map(|i| {
            words
                .iter()
                .cycle()
                .skip(i)
                .take(40 + i % 81)
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let start = Instant::now();
    model.embed(&refs)?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{documents} documents (40-120 words): {secs:.2} s, {:.0} documents/s",
        documents as f64 / secs
    );
    Ok(())
}
