//! Reads criterion's estimates after `cargo bench` and fails when a median is over its target.
//!
//! Usage: `check-targets [--targets FILE] [--criterion-dir DIR] [--over]`
//! (defaults: `benches/targets.txt` and `$CARGO_TARGET_DIR/criterion` or `target/criterion`).
//! With `--over` it prints only the ids of the benches whose median is over target, one per
//! line, for a second measurement (`.ci/run` measures those again, longer, before failing).

use std::path::PathBuf;
use std::process::ExitCode;

use goldfish_benches::{Outcome, check_all, parse_targets};

fn main() -> ExitCode {
    let mut targets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("targets.txt");
    let mut criterion_dir = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir).join("criterion"),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/criterion"),
    };
    let mut over_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--over" {
            over_only = true;
            continue;
        }
        let value = args.next();
        match (arg.as_str(), value) {
            ("--targets", Some(v)) => targets = PathBuf::from(v),
            ("--criterion-dir", Some(v)) => criterion_dir = PathBuf::from(v),
            _ => {
                eprintln!("usage: check-targets [--targets FILE] [--criterion-dir DIR] [--over]");
                return ExitCode::from(2);
            }
        }
    }
    let text = match std::fs::read_to_string(&targets) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("check-targets: cannot read {}: {e}", targets.display());
            return ExitCode::from(2);
        }
    };
    let rows = match parse_targets(&text) {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("check-targets: {}: {e}", targets.display());
            return ExitCode::from(2);
        }
    };
    if over_only {
        for (row, outcome) in check_all(&rows, &criterion_dir) {
            if let Outcome::Over { .. } = outcome {
                println!("{}", row.id);
            }
        }
        return ExitCode::SUCCESS;
    }
    let mut failed = 0;
    let mut not_run = 0;
    println!("{:<52} {:>12} {:>10}  result", "bench", "median", "target");
    for (row, outcome) in check_all(&rows, &criterion_dir) {
        let (median, verdict) = match &outcome {
            Outcome::Within { median_ns } => (format_ns(*median_ns), "ok".to_string()),
            Outcome::Over { median_ns } => {
                failed += 1;
                (format_ns(*median_ns), "OVER TARGET".to_string())
            }
            Outcome::Missing(why) => {
                failed += 1;
                ("-".to_string(), format!("MISSING: {why}"))
            }
            Outcome::NotRun => {
                not_run += 1;
                ("-".to_string(), "not run (opt-in)".to_string())
            }
        };
        println!(
            "{:<52} {:>12} {:>10}  {verdict}",
            row.id,
            median,
            format_ns(row.limit_ns)
        );
    }
    if failed > 0 {
        eprintln!("check-targets: {failed} bench(es) over target or missing");
        ExitCode::FAILURE
    } else {
        println!(
            "all {} benches within target ({not_run} opt-in not run)",
            rows.len() - not_run
        );
        ExitCode::SUCCESS
    }
}

fn format_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}
