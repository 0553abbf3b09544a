//! A tiny command line over goldfish-sync, what `goldfish` wires up:
//!
//! ```text
//! sync_tool merge-driver %O %A %B %P   # the merge driver git runs
//! sync_tool init HOME REMOTE           # goldfish sync init --remote REMOTE
//! sync_tool sync HOME                  # goldfish sync
//! sync_tool save HOME WORKSPACE COUNT PREFIX
//!                                      # saves COUNT checkpoints "PREFIX i"
//! ```
//!
//! The crate's tests register it as the merge driver and run it as concurrent processes.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match run(&args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("sync_tool: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[&str]) -> Result<ExitCode, String> {
    match args {
        ["merge-driver", base, ours, theirs, path] => {
            let outcome = goldfish_sync::run_merge_driver(
                Path::new(base),
                Path::new(ours),
                Path::new(theirs),
                path,
                std::env::var(goldfish_sync::MERGE_THEIRS_ENV).ok().as_deref(),
            )
            .map_err(|e| e.to_string())?;
            if let goldfish_sync::MergeOutcome::Conflict { reason } = &outcome {
                eprintln!("{reason}");
            }
            Ok(ExitCode::from(u8::from(outcome.is_conflict())))
        }
        ["init", home, remote] => {
            let me = std::env::current_exe().map_err(|e| e.to_string())?;
            goldfish_sync::init(Path::new(home), Some(remote), &me).map_err(|e| e.to_string())?;
            Ok(ExitCode::SUCCESS)
        }
        ["sync", home] => {
            let report = goldfish_sync::sync(Path::new(home), &goldfish_sync::SyncOptions::from_env())
                .map_err(|e| format!("{e} ({:?})", e.kind()))?;
            println!("{report:?}");
            Ok(ExitCode::SUCCESS)
        }
        ["save", home, workspace, count, prefix] => {
            let store = goldfish_store::Store::open(*home).map_err(|e| e.to_string())?;
            let count: usize = count.parse().map_err(|e| format!("count {count:?}: {e}"))?;
            for i in 0..count {
                let mut input = goldfish_store::CheckpointInput::new(format!("{prefix} {i}"));
                input.workspace = Some((*workspace).to_string());
                store.save_checkpoint(input).map_err(|e| e.to_string())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        _ => Err(
            "usage: sync_tool merge-driver %O %A %B %P | init HOME REMOTE | sync HOME | save HOME WORKSPACE COUNT PREFIX"
                .to_string(),
        ),
    }
}
