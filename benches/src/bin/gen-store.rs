//! Writes a generated store of N checkpoints (see `goldfish_benches::store_gen`).
//!
//! Usage: `gen-store N [--seed S] [--out DIR] [--distinct] [--json]`, N as `10000`, `10k`,
//! `100k` or `1m`. Without `--out` the store is the benches' cached one under
//! `target/bench-stores/` (made if missing). `--distinct` gives every checkpoint a text of its
//! own (`store_gen::Texts::Distinct`). Prints the store's home (for `GOLDFISH_HOME`), what it holds and how long it
//! took; `--json` prints the same as one JSON object.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use goldfish_benches::store_gen::{
    DEFAULT_SEED, StoreStats, Texts, cached_store_with, generate_with,
};

const USAGE: &str =
    "usage: gen-store N [--seed S] [--out DIR] [--distinct] [--json]  (N: 10000, 10k, 100k, 1m)";

fn parse_count(text: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    let (digits, scale) = match lower.as_bytes().last()? {
        b'k' => (&lower[..lower.len() - 1], 1_000),
        b'm' => (&lower[..lower.len() - 1], 1_000_000),
        _ => (lower.as_str(), 1),
    };
    digits
        .replace('_', "")
        .parse::<usize>()
        .ok()?
        .checked_mul(scale)
}

fn main() -> ExitCode {
    let mut n = None;
    let mut seed = DEFAULT_SEED;
    let mut out: Option<PathBuf> = None;
    let mut json = false;
    let mut texts = Texts::Repeated;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json = true,
            "--distinct" => texts = Texts::Distinct,
            "--seed" => match args.next().and_then(|v| v.parse().ok()) {
                Some(v) => seed = v,
                None => {
                    eprintln!("gen-store: --seed needs a number\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--out" => match args.next() {
                Some(v) => out = Some(PathBuf::from(v)),
                None => {
                    eprintln!("gen-store: --out needs a directory\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            other => match parse_count(other) {
                Some(v) if n.is_none() && v > 0 => n = Some(v),
                _ => {
                    eprintln!("gen-store: unexpected argument {other:?}\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
        }
    }
    let Some(n) = n else {
        eprintln!("gen-store: how many checkpoints?\n{USAGE}");
        return ExitCode::from(2);
    };
    let start = Instant::now();
    let result: std::io::Result<(PathBuf, StoreStats)> = match &out {
        Some(dir) => generate_with(dir, n, seed, texts).map(|s| (dir.clone(), s)),
        None => cached_store_with(n, seed, texts),
    };
    let seconds = start.elapsed().as_secs_f64();
    match result {
        Ok((home, stats)) => {
            if json {
                let value = serde_json::json!({
                    "home": home,
                    "stats": stats,
                    "seconds": seconds,
                });
                println!("{value}");
            } else {
                println!("home           {}", home.display());
                println!("checkpoints    {}", stats.checkpoints);
                println!("workspaces     {}", stats.workspaces);
                println!("day files      {}", stats.day_files);
                println!(
                    "markdown       {} bytes ({:.1} MiB)",
                    stats.markdown_bytes,
                    stats.markdown_bytes as f64 / (1024.0 * 1024.0)
                );
                println!("seed           {}", stats.seed);
                println!("took           {seconds:.2} s (0 when cached)");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen-store: {e}");
            ExitCode::FAILURE
        }
    }
}
