//! What a command hands back to `main` to print.

use std::process::ExitCode;

use serde_json::Value;

/// A command's result in both shapes: text for people and one JSON document for scripts.
#[derive(Debug)]
pub(crate) struct Report {
    /// Human-readable text for stdout.
    pub(crate) text: String,
    /// The JSON document printed with `--json`.
    pub(crate) json: Value,
    /// The process's exit code.
    pub(crate) code: ExitCode,
}

impl Report {
    /// A successful report.
    pub(crate) fn new(text: impl Into<String>, json: Value) -> Self {
        Report {
            text: text.into(),
            json,
            code: ExitCode::SUCCESS,
        }
    }

    /// The same report with another exit code.
    pub(crate) fn with_code(mut self, code: ExitCode) -> Self {
        self.code = code;
        self
    }
}

/// `eprintln!` for a line that may quote stored text (a workspace, a title, a path, a line of
/// a file): the line goes to stderr with its control characters shown escaped
/// ([`goldfish_core::inert`]), like the reports on stdout.
macro_rules! eprintln_inert {
    ($($arg:tt)*) => {
        {
            use std::io::Write as _;
            // Not `eprintln!`, which panics when stderr is a closed pipe: a message nobody
            // can read is dropped, and the exit status still says what happened.
            let _ = writeln!(std::io::stderr(), "{}", goldfish_core::inert(&format!($($arg)*)));
        }
    };
}
pub(crate) use eprintln_inert;
