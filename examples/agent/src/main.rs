//! An example agent that uses the goldfish crates as a library, as any Rust program would:
//! it saves typed checkpoints, recalls them, keeps a plan, maintains GOBLIN_NOTES.md, drives a
//! pipeline to DONE, takes a journal through a mutation and an archive, and handles errors by
//! kind, printing a short report of each.
//!
//! ```text
//! goldfish-example-agent DIR
//! ```
//!
//! Everything lives under `DIR` (made when missing, refused when not empty): the store in
//! `DIR/store`, the project the agent works on in `DIR/project`. The agent reads no
//! environment variable and not the process's directory, and runs no `goldfish` binary: the
//! libraries get every path from it. See README.md, the "Using the crates" guide.

mod checkpoints;
mod embedder;
mod error;
mod errors;
mod journal;
mod notes;
mod pipeline;
mod plan;
mod recall;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use goldfish_store::Store;

pub(crate) use error::AgentError;

/// The workspace this agent's memory is filed under. An agent usually derives it from its
/// project (`goldfish_store::detect_workspace`) or is told; a fixed name keeps this simple.
pub(crate) const WORKSPACE: &str = "example-agent";

/// What the agent works with: the store of its memory and the project (a worktree) it works in.
pub(crate) struct Agent {
    /// The goldfish store, at a path the agent chose (never `$GOLDFISH_HOME`).
    pub(crate) store: Store,
    /// The project directory: GOBLIN_NOTES.md, the pipeline's signals and JOURNAL.md live here.
    pub(crate) project: PathBuf,
}

/// One task: its title and what it does.
type Task = (&'static str, fn(&Agent) -> Result<(), AgentError>);

/// The seven tasks, in the order they run: later ones read what earlier ones wrote (recall
/// finds the checkpoints, the pipeline moves the notes' stage, errors look for a plan).
const TASKS: [Task; 7] = [
    ("save typed checkpoints", checkpoints::run),
    ("recall", recall::run),
    ("keep a plan", plan::run),
    ("maintain GOBLIN_NOTES.md", notes::run),
    ("drive a pipeline to DONE", pipeline::run),
    ("journal: a mutation and an archive", journal::run),
    ("handle errors by kind", errors::run),
];

fn main() -> ExitCode {
    // Only the arguments are read from the process: the one directory to work in.
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let [dir] = args.as_slice() else {
        eprintln!("{}", AgentError::Usage);
        return ExitCode::from(2);
    };
    match run(Path::new(dir)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("goldfish-example-agent: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Sets up the store and the project under `dir`, then runs every task in order.
fn run(dir: &Path) -> Result<(), AgentError> {
    let agent = Agent::create(dir)?;
    println!("store:   {}", agent.store.root().display());
    println!("project: {}", agent.project.display());
    for (number, (title, task)) in TASKS.iter().enumerate() {
        let number = number + 1;
        println!("\n{number}. {title}");
        task(&agent).map_err(|error| AgentError::Task {
            number,
            title,
            error: Box::new(error),
        })?;
    }
    println!("\nall {} tasks done", TASKS.len());
    Ok(())
}

impl Agent {
    /// Makes `dir/store` and `dir/project`. `dir` must be missing or empty, so that every run
    /// starts from nothing and a store of value is never written into by mistake.
    fn create(dir: &Path) -> Result<Agent, AgentError> {
        std::fs::create_dir_all(dir).map_err(|e| AgentError::io(dir, e))?;
        let mut entries = std::fs::read_dir(dir).map_err(|e| AgentError::io(dir, e))?;
        if entries.next().is_some() {
            return Err(AgentError::NotEmpty(dir.to_path_buf()));
        }
        let project = dir.join("project");
        std::fs::create_dir(&project).map_err(|e| AgentError::io(&project, e))?;
        // `Store::open` takes the root as given: the library never looks at `$GOLDFISH_HOME`
        // (only `Store::from_env`, meant for a binary like `goldfish`, does). It creates the
        // directory on the first write, private (0700).
        let store = Store::open(dir.join("store"))?;
        Ok(Agent { store, project })
    }
}
