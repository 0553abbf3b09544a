//! Runs a command and reports its wall time and peak resident memory.
//!
//! Usage: `peak-rss [--runs N] [--json] [--show-output] -- COMMAND [ARGS…]`
//!
//! Runs COMMAND N times (default 1) one after the other, its stdout discarded unless
//! `--show-output`, and fails if any run fails. Prints the wall time of each run, their
//! median, and the peak RSS: the largest resident set of any of the runs (and their
//! children), from `getrusage(RUSAGE_CHILDREN)`, which the kernel keeps for every waited-for
//! child. `--json` prints the same as one JSON object. Unix only.

use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

const USAGE: &str = "usage: peak-rss [--runs N] [--json] [--show-output] -- COMMAND [ARGS...]";

/// The peak RSS of all waited-for children so far, in bytes.
#[cfg(unix)]
fn children_peak_rss() -> Result<u64, String> {
    use nix::sys::resource::{UsageWho, getrusage};
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).map_err(|e| format!("getrusage: {e}"))?;
    let max_rss = u64::try_from(usage.max_rss()).unwrap_or(0);
    // Linux reports kilobytes, macOS bytes.
    Ok(if cfg!(target_os = "macos") {
        max_rss
    } else {
        max_rss * 1024
    })
}

#[cfg(not(unix))]
fn children_peak_rss() -> Result<u64, String> {
    Err("peak RSS is measured on Unix only".into())
}

fn main() -> ExitCode {
    let mut runs = 1usize;
    let mut json = false;
    let mut show = false;
    let mut args = std::env::args().skip(1);
    let mut command: Vec<String> = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json = true,
            "--show-output" => show = true,
            "--runs" => match args.next().and_then(|v| v.parse().ok()) {
                Some(v) if v > 0 => runs = v,
                _ => {
                    eprintln!("peak-rss: --runs needs a number above 0\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--" => {
                command = args.by_ref().collect();
                break;
            }
            other => {
                eprintln!("peak-rss: unexpected argument {other:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let Some((program, rest)) = command.split_first() else {
        eprintln!("peak-rss: no command\n{USAGE}");
        return ExitCode::from(2);
    };
    let mut walls = Vec::with_capacity(runs);
    for run in 1..=runs {
        let start = Instant::now();
        let status = Command::new(program)
            .args(rest)
            .stdin(Stdio::null())
            .stdout(if show {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .status();
        let wall = start.elapsed();
        match status {
            Ok(s) if s.success() => walls.push(wall.as_secs_f64()),
            Ok(s) => {
                eprintln!("peak-rss: run {run}: {program} exited with {s}");
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!("peak-rss: run {run}: cannot run {program}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let peak = match children_peak_rss() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("peak-rss: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut sorted = walls.clone();
    sorted.sort_by(f64::total_cmp);
    let median = if sorted.len() % 2 == 1 {
        sorted[sorted.len() / 2]
    } else {
        (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2]) / 2.0
    };
    if json {
        let value = serde_json::json!({
            "command": command,
            "runs": runs,
            "wall_seconds": walls,
            "median_seconds": median,
            "peak_rss_bytes": peak,
        });
        println!("{value}");
    } else {
        let list: Vec<String> = walls.iter().map(|w| format!("{:.1}", w * 1e3)).collect();
        println!("runs         {runs}");
        println!("wall ms      {}", list.join(" "));
        println!("median       {:.1} ms", median * 1e3);
        println!(
            "peak RSS     {:.1} MiB ({peak} bytes)",
            peak as f64 / (1024.0 * 1024.0)
        );
    }
    ExitCode::SUCCESS
}
