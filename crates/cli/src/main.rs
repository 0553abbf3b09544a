//! The `goldfish` binary: a thin command line over the goldfish crates, and `goldfish mcp`, an
//! MCP server on stdio that gives coding agents the tools `checkpoint`, `recall` and `plan`.
//!
//! The binary owns argument parsing, rendering and exit codes, and nothing else: every
//! operation is one library call (see `commands/` for the CLI's adapters and `mcp.rs` for the
//! MCP server's, which do not import each other). Human-readable text goes to stdout by
//! default, one JSON document with `--json`; errors and logs go to stderr
//! (`goldfish: error: …`). Exit codes: 0 success, 1 error, 2 usage error; `pipeline watch`
//! adds 3 FAILED, 4 CANCELLED and 5 when `--timeout` passes first; `merge-driver` exits 1
//! when it wrote git's conflict markers. A reader of stdout that goes away early
//! (`goldfish export | head`) ends the command quietly, with the status it would have had
//! (0 when the write that failed was the command's output itself): see [`stdout_closed`].
#![forbid(unsafe_code)]
// `print!` panics when stdout is a closed pipe; every write to stdout goes through a path that
// returns the error instead (`print_report`, `write_stdout`), so that a closed pipe ends quietly.
#![deny(clippy::print_stdout)]

use std::io::Write as _;
use std::process::ExitCode;

use clap::{CommandFactory as _, Parser as _};

mod actor;
mod agent_cli;
mod args;
mod cli;
mod commands;
mod context;
mod freshness;
mod mcp;
mod output;
mod render;

use cli::{Cli, Command};
use context::Context;
use output::Report;

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(err) if stdout_closed(&err) => ExitCode::SUCCESS,
        Err(err) => {
            // `eprintln_inert!` writes without `eprintln!`'s panic when stderr is a closed
            // pipe: the exit code is the one answer left then.
            output::eprintln_inert!("goldfish: error: {}", error_message(&err));
            ExitCode::FAILURE
        }
    }
}

/// True when `err` is (or was caused by) a write to a pipe whose reader went away: the
/// reader of stdout (`goldfish export | head -c 100`, `goldfish recall --help | head -1`)
/// had what it wanted. The command then ends with no message and status 0, as ripgrep does:
/// the output was cut short on purpose, not by a failure of goldfish, and a script under
/// `set -o pipefail` that reads only the first lines must not fail for it (git and coreutils,
/// killed by `SIGPIPE`, give 141 there). Rust ignores `SIGPIPE`, so the closed pipe arrives
/// as an error, anywhere in a library error's chain of causes.
///
/// Stdout is the only pipe this binary writes to: it feeds no child's stdin, and `serve` and
/// `mcp` handle their own connections' errors, so a broken pipe reaching `main` is stdout's.
fn stdout_closed(err: &anyhow::Error) -> bool {
    err.chain()
        .any(|cause| goldfish_core::fs::io_kind_in(cause) == Some(std::io::ErrorKind::BrokenPipe))
}

/// What to run next, in this binary's commands, for a library error that calls for another
/// operation. The libraries name the operation (their error kind); the command that performs
/// it is the CLI's business.
fn cli_hint(err: &anyhow::Error) -> Option<&'static str> {
    for cause in err.chain() {
        if let Some(e) = cause.downcast_ref::<goldfish_journal::Error>() {
            return match e.kind() {
                goldfish_journal::ErrorKind::NotBooted => {
                    Some("start a session with `goldfish journal boot TITLE`")
                }
                goldfish_journal::ErrorKind::MutationRequired => Some(
                    "declare one with `goldfish journal mutate CODE --switching-to … --rationale …`",
                ),
                _ => None,
            };
        }
        if let Some(e) = cause.downcast_ref::<goldfish_signals::Error>() {
            return match e.kind() {
                goldfish_signals::ErrorKind::Locked => Some(
                    "`goldfish pipeline cancel` asks the running `goldfish pipeline watch` to stop",
                ),
                goldfish_signals::ErrorKind::AlreadyActive { .. } => {
                    Some("`goldfish pipeline watch` resumes it; `goldfish pipeline cancel` ends it")
                }
                _ => None,
            };
        }
        if let Some(e) = cause.downcast_ref::<goldfish_sync::Error>() {
            return match e.kind() {
                goldfish_sync::ErrorKind::NotARepository | goldfish_sync::ErrorKind::NoRemote => {
                    Some("run `goldfish sync init --remote <url>` first")
                }
                goldfish_sync::ErrorKind::Conflict => Some("`goldfish doctor` names problems"),
                _ => None,
            };
        }
        if let Some(e) = cause.downcast_ref::<goldfish_embed::Error>() {
            return match e {
                goldfish_embed::Error::Missing { .. } => {
                    Some("reinstall the model with `goldfish model install`")
                }
                _ => None,
            };
        }
    }
    None
}

/// The error and its causes on one line ("what failed: why"), leaving out a cause whose text
/// the message already contains (library errors often quote their source), then the command
/// to run next when there is one.
pub(crate) fn error_message(err: &anyhow::Error) -> String {
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
    if let Some(hint) = cli_hint(err) {
        message.push_str(" (");
        message.push_str(hint);
        message.push(')');
    }
    message
}

/// Parses the command line, runs the command and prints its report.
/// The subcommand the arguments name: the first argument that is one of the binary's
/// subcommands (options and their values before it are passed over).
fn invoked_subcommand() -> Option<String> {
    let command = Cli::command();
    let names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
    std::env::args()
        .skip(1)
        .find(|a| names.contains(&a.as_str()))
}

fn run() -> anyhow::Result<ExitCode> {
    let cli = match Cli::try_parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        Err(err) => {
            // Help and version go to stdout with exit 0; usage errors to stderr with exit 2.
            let code = err.exit_code();
            // A hook never fails its client's session or prompt: a bad argument or variable
            // (an invalid `GOLDFISH_WORKSPACE`) is said on stderr and the hook adds nothing.
            if code != 0 && invoked_subcommand().as_deref() == Some("hook") {
                output::eprintln_inert!("goldfish hook: {}", err.render().to_string().trim_end());
                return Ok(ExitCode::SUCCESS);
            }
            // A closed pipe on the way (`goldfish recall --help | head -1`) changes nothing:
            // help still exits 0 and a usage error 2.
            match err.print() {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
                _ => {}
            }
            return Ok(ExitCode::from(u8::try_from(code).unwrap_or(2)));
        }
    };
    match cli.command {
        // Generated into memory first: clap_complete panics on a failed write, and a closed
        // pipe (`goldfish man | head`) is not an error.
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "goldfish", &mut script);
            write_stdout(&script)?;
            return Ok(ExitCode::SUCCESS);
        }
        Command::Man => {
            let mut page = Vec::new();
            clap_mangen::Man::new(Cli::command()).render(&mut page)?;
            write_stdout(&page)?;
            return Ok(ExitCode::SUCCESS);
        }
        // git runs the merge driver: it needs no store, and its exit code is the answer.
        Command::MergeDriver(a) => return commands::merge_driver(a),
        // The hook runs before anything that could fail: it never fails a session.
        Command::Hook(h) => return Ok(commands::hook(cli.home, cli.workspace, cli.json, h)),
        // The model lives outside the store: it needs none.
        Command::Model(m) => {
            let report = commands::model(m, cli.json)?;
            print_report(&report, cli.json)?;
            return Ok(report.code);
        }
        Command::Setup(a) => {
            let report = commands::setup(a)?;
            print_report(&report, cli.json)?;
            return Ok(report.code);
        }
        _ => {}
    }
    let json = cli.json;
    let mut ctx = Context::new(cli.home, cli.workspace)?;
    ctx.json = json;
    let report = match cli.command {
        Command::Mcp(a) => {
            let options = mcp::stdio::StdioOptions {
                max_message_bytes: a.max_message_bytes,
            };
            return mcp::serve(ctx, options, a.verbose).map(|()| ExitCode::SUCCESS);
        }
        Command::Serve(a) => return commands::serve(&ctx, a).map(|()| ExitCode::SUCCESS),
        Command::Export(a) => return commands::export(&ctx, a),
        Command::Import(a) => commands::import(&ctx, a)?,
        Command::Redact(a) => commands::redact(&ctx, &a)?,
        Command::Checkpoint(a) => commands::checkpoint(&ctx, a)?,
        Command::Recall(a) => commands::recall(&ctx, a)?,
        Command::Show(a) => commands::show(&ctx, &a)?,
        Command::Forget(a) => commands::forget(&ctx, &a)?,
        Command::Tidy(a) => commands::tidy(&ctx, &a)?,
        Command::Stats(a) => commands::stats(&ctx, &a)?,
        Command::Standup(a) => commands::standup(&ctx, a)?,
        Command::Plan(a) => commands::plan(&ctx, a)?,
        Command::Index(a) => commands::index(&ctx, a)?,
        Command::Notes(a) => commands::notes(&ctx, a)?,
        Command::Signal(a) => commands::signal(&ctx, a)?,
        Command::Pipeline(a) => commands::pipeline(&ctx, a)?,
        Command::Journal(a) => commands::journal(&ctx, a)?,
        Command::Sync(a) => commands::sync(&ctx, a)?,
        Command::Init(a) => commands::init(&ctx, a)?,
        Command::Doctor(a) => commands::doctor(&ctx, &a)?,
        Command::Completions { .. }
        | Command::Man
        | Command::MergeDriver(_)
        | Command::Hook(_)
        | Command::Model(_)
        | Command::Setup(_) => {
            return Ok(ExitCode::SUCCESS);
        }
    };
    print_report(&report, json)?;
    // A one-shot command leaves its memory to the operating system, which takes it back whole
    // at exit: freeing a loaded model tensor by tensor cost a recall milliseconds after its
    // answer was printed.
    std::mem::forget(ctx);
    Ok(report.code)
}

/// Writes `bytes` to stdout; a closed pipe is not an error.
fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Prints `report` on stdout as text or as one JSON document. The text is for a terminal:
/// the control characters of the stored text it quotes are shown escaped
/// ([`goldfish_core::inert`]; goldfish's own text has none but `\n` and `\t`); the JSON
/// keeps every string exact.
fn print_report(report: &Report, json: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let text = goldfish_core::inert(&report.text);
    let result = if json {
        serde_json::to_writer_pretty(&mut out, &report.json)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
    } else if text.is_empty() {
        Ok(())
    } else if text.ends_with('\n') {
        out.write_all(text.as_bytes())
    } else {
        out.write_all(text.as_bytes())
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
