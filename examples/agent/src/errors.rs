//! Task 7: handle errors by kind. Every crate's error has `kind()` (a `Copy` enum to match
//! on), `path()` and `line()` where they apply, and `io_kind()` for the underlying
//! `std::io::ErrorKind`, without depending on the crate underneath.

use std::io;

use goldfish_recall::{RecallOptions, recall};
use goldfish_signals::{SignalDir, SignalKind};
use goldfish_store::ErrorKind as StoreKind;
use notes_core::NotesManager;

use crate::{Agent, AgentError, WORKSPACE};

/// Provokes four errors and handles each by its kind.
pub(crate) fn run(agent: &Agent) -> Result<(), AgentError> {
    // A missing plan: `NotFound`, naming the file it looked for.
    match agent.store.get_plan(WORKSPACE, "no-such-plan") {
        Err(e) if e.kind() == StoreKind::NotFound => {
            let file = e.path().map(|p| p.display().to_string());
            println!(
                "   missing plan: {:?}, file {}",
                e.kind(),
                file.unwrap_or_default()
            );
            println!("      {e}");
        }
        other => return unexpected("a missing plan", other),
    }

    // A search with nothing to search for is an error, not an empty answer.
    let mut opts = RecallOptions::default();
    opts.workspace = WORKSPACE.into();
    opts.search = Some("what was it?".into());
    match recall(&agent.store, &opts) {
        Err(e) if e.is_nothing_to_search() => println!("   empty search: {:?}", e.kind()),
        other => return unexpected("a search of stop words", other),
    }

    // Notes of a directory that has none: the crate's kind, and the I/O kind under it.
    match NotesManager::read(agent.store.root()) {
        Err(e) if e.io_kind() == Some(io::ErrorKind::NotFound) => {
            println!("   no notes: {:?}, io {:?}", e.kind(), e.io_kind());
        }
        other => return unexpected("notes where there are none", other),
    }

    // A signal file a careless agent wrote by hand: invalid, with its file, line and column.
    // (The runner reports such a file in its scan's problems and never acts on it.)
    let signals = SignalDir::new(&agent.project);
    let path = signals.signal_path(SignalKind::BuildComplete);
    std::fs::write(&path, "{\"commits\": -1}").map_err(|e| AgentError::io(&path, e))?;
    let read = signals.read(SignalKind::BuildComplete);
    std::fs::remove_file(&path).map_err(|e| AgentError::io(&path, e))?;
    match read {
        Err(e) if e.is_invalid_signal() => {
            let (line, column) = (e.line().unwrap_or(0), e.column().unwrap_or(0));
            println!(
                "   bad signal: {:?} at line {line}, column {column}",
                e.kind()
            );
        }
        other => return unexpected("a negative commit count", other),
    }
    Ok(())
}

/// The error for a call that should have failed in one way and did not.
fn unexpected<T: std::fmt::Debug, E: std::fmt::Display>(
    what: &str,
    got: Result<T, E>,
) -> Result<(), AgentError> {
    Err(AgentError::Unexpected(match got {
        Ok(value) => format!("{what} was not an error: {value:?}"),
        Err(e) => format!("{what} gave another error than expected: {e}"),
    }))
}
