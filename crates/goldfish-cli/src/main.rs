//! The `goldfish` binary: a thin command line over the goldfish crates, and `goldfish mcp`, an
//! MCP server on stdio that gives coding agents the tools `checkpoint`, `recall` and `plan`.
//!
//! All behaviour lives in the libraries; this binary parses arguments, calls them and prints.
//! Human-readable text goes to stdout by default, one JSON document with `--json`; errors and
//! logs go to stderr (`goldfish: error: …`), with exit code 2 for usage errors and 1 for others.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser as _;

mod args;
mod cli;
mod commands;
mod context;
mod mcp;
mod mcp_stdio;
mod output;

use cli::{Cli, Command};
use context::Context;
use output::Report;

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("goldfish: error: {}", error_message(&err));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line ("what failed: why"), leaving out a cause whose text
/// the message already contains (library errors often quote their source).
fn error_message(err: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if message.contains(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

/// Parses the command line, runs the command and prints its report.
fn run() -> anyhow::Result<ExitCode> {
    let argv = args::rewrite_signal_body_flag(std::env::args_os().collect::<Vec<OsString>>());
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(err) => {
            // Help and version go to stdout with exit 0; usage errors to stderr with exit 2.
            let code = err.exit_code();
            err.print()?;
            return Ok(ExitCode::from(u8::try_from(code).unwrap_or(2)));
        }
    };
    let json = cli.json;
    let ctx = Context::new(cli.home, cli.workspace)?;
    let report = match cli.command {
        Command::Mcp(a) => {
            let options = mcp_stdio::StdioOptions {
                max_message_bytes: a.max_message_bytes,
            };
            return mcp::serve(ctx, options).map(|()| ExitCode::SUCCESS);
        }
        Command::Checkpoint(a) => commands::checkpoint(&ctx, a)?,
        Command::Recall(a) => commands::recall(&ctx, a)?,
        Command::Standup(a) => commands::standup(&ctx, a)?,
        Command::Plan(a) => commands::plan(&ctx, a)?,
        Command::Notes(a) => commands::notes(&ctx, a)?,
        Command::Signal(a) => commands::signal(&ctx, a)?,
        Command::Pipeline(a) => commands::pipeline(&ctx, a)?,
        Command::Journal(a) => commands::journal(&ctx, a)?,
    };
    print_report(&report, json)?;
    Ok(report.code)
}

/// Prints `report` on stdout as text or as one JSON document.
fn print_report(report: &Report, json: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let result = if json {
        serde_json::to_writer_pretty(&mut out, &report.json)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
    } else if report.text.is_empty() {
        Ok(())
    } else if report.text.ends_with('\n') {
        out.write_all(report.text.as_bytes())
    } else {
        out.write_all(report.text.as_bytes())
            .and_then(|()| out.write_all(b"\n"))
    };
    match result.and_then(|()| out.flush()) {
        // A closed pipe (`goldfish recall | head`) is not an error worth reporting.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_message_skips_causes_already_quoted() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let quoted = anyhow::Error::new(io).context("cannot read x: no such file");
        assert_eq!(error_message(&quoted), "cannot read x: no such file");
        let chained = anyhow::anyhow!("disk full").context("cannot save");
        assert_eq!(error_message(&chained), "cannot save: disk full");
    }
}
