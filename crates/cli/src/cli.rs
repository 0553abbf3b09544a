//! The command line: clap derive types and nothing else.
//!
//! Argument names mirror the MCP tools (`description`, `tags`, `workspace`, `days`, `since`,
//! `from`, `to`, `search`, `limit`, `full`, `id`, `title`, `content`, `status`, `activate`) so
//! that one mental model serves both the CLI and the server.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Durable, human-readable memory and hand-off for coding agents.
#[derive(Debug, Parser)]
#[command(name = "goldfish", version, about, long_about = None, propagate_version = true)]
pub(crate) struct Cli {
    /// Where the store lives (default: ~/.goldfish).
    #[arg(long, global = true, env = "GOLDFISH_HOME", value_name = "DIR")]
    pub(crate) home: Option<PathBuf>,

    /// The workspace to use: a name, a project's absolute path, `current` (the project
    /// around the current directory, the default; `checkpoint` and plan changes refuse to
    /// guess one) or, for reads, `all`.
    #[arg(
        long,
        short = 'w',
        global = true,
        env = "GOLDFISH_WORKSPACE",
        value_name = "NAME",
        value_parser = parse_workspace_arg
    )]
    pub(crate) workspace: Option<WorkspaceArg>,

    /// Print one JSON document on stdout instead of human-readable text.
    #[arg(long, global = true)]
    pub(crate) json: bool,

    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// `--workspace` as given: a selector, or blank (an exported-but-empty `GOLDFISH_WORKSPACE`
/// means "not set"; an explicitly empty `--workspace ''` is refused by [`crate::context::Context::new`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WorkspaceArg(pub(crate) Option<goldfish_store::WorkspaceSelector>);

/// The value parser of `--workspace`: the store's [`goldfish_store::WorkspaceSelector`]
/// parsing, once, for every command.
fn parse_workspace_arg(s: &str) -> Result<WorkspaceArg, String> {
    if s.trim().is_empty() {
        return Ok(WorkspaceArg(None));
    }
    s.parse()
        .map(|w| WorkspaceArg(Some(w)))
        .map_err(|e: goldfish_store::Error| e.to_string())
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Save a checkpoint: what was just done, with the git context of the current directory.
    Checkpoint(CheckpointArgs),
    /// Show recent checkpoints and the active plan (search, time windows, all workspaces).
    Recall(RecallArgs),
    /// Show one checkpoint in full by its id (recall lists each hit's id): its whole
    /// description, typed fields, git context and files.
    Show(ShowArgs),
    /// Forget checkpoints for good: they leave their day files, the search index and the
    /// vectors, and a tombstone (id, time, who; never the text) keeps sync and import from
    /// bringing them back.
    #[command(after_help = FORGET_AFTER_HELP)]
    Forget(ForgetArgs),
    /// What may need tidying in a workspace: near-duplicate checkpoints, decisions on one
    /// subject that no supersession link joins, and memories no recall or hook has returned
    /// in a long time. Changes nothing unless `--apply`, which only forgets exact copies and
    /// adds supersession links.
    Tidy(TidyArgs),
    /// One view across all workspaces: what was done lately and each active plan's progress.
    Standup(StandupArgs),
    /// Plans: save, get, list, activate, update, complete, archive.
    #[command(subcommand)]
    Plan(PlanCommand),
    /// The recall index beside the day files (a cache, rebuilt by any recall that needs
    /// it): status, rebuild, verify.
    #[command(subcommand)]
    Index(IndexCommand),
    /// GOBLIN_NOTES.md: per-worktree progress notes for the next session.
    Notes(NotesArgs),
    /// Pipeline signal files in `.goblin/`: emit, list, clear.
    Signal(SignalArgs),
    /// The SCOPE → BUILD → REVIEW → TEST → DONE pipeline driven by signal files.
    Pipeline(PipelineArgs),
    /// JOURNAL.md: sessions, failures, mutations, hand-over, archive.
    Journal(JournalArgs),
    /// Import memories from Goldfish 5–8, Tusk, Goldfish v4 or a JSON Lines export.
    Import(ImportArgs),
    /// Run today's redaction (secrets and private spans) over the files already stored:
    /// every day file and plan, and this worktree's notes and journal. Reports per file what
    /// it holds; `--apply` rewrites them.
    Redact(RedactArgs),
    /// Write every checkpoint and plan as JSON Lines on stdout (`-w NAME` for one workspace).
    Export(ExportArgs),
    /// Run the MCP server on stdio (tools: checkpoint, recall, plan).
    Mcp(McpArgs),
    /// Serve a local, read-only web view of the store (timeline, search, activity, plans,
    /// journals) on http://127.0.0.1:PORT/.
    Serve(ServeArgs),
    /// Print a shell completion script, e.g. `goldfish completions bash > ~/.local/share/bash-completion/completions/goldfish`.
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on stdout, e.g. `goldfish man > ~/.local/share/man/man1/goldfish.1`.
    Man,
    // ----- agent integration (src/agent_cli.rs) -----
    /// What goldfish's hooks injected into each agent session lately, per hook (from the
    /// store's small capped log).
    Stats(StatsArgs),
    /// Hooks run by coding agents' clients (session-start, prompt, file, pre-compact).
    #[command(subcommand)]
    Hook(crate::agent_cli::HookCommand),
    /// Register the goldfish MCP server in a client's user config (claude, codex, cursor).
    Setup(crate::agent_cli::SetupArgs),
    /// Check the installation (binary on PATH, store, client registrations, git) and say
    /// what to do about each failure.
    Doctor(crate::agent_cli::DoctorArgs),
    /// The embedding model of semantic recall (all-MiniLM-L6-v2): install, status, remove.
    #[command(subcommand)]
    Model(ModelCommand),
    // ----- memory that travels through git (sync, merge driver, memory in a repository) ---
    /// Sync the store with a git remote: commit, fetch, merge by meaning, push.
    Sync(SyncArgs),
    /// The git merge driver for goldfish files (git runs it: `%O %A %B %P`).
    #[command(name = "merge-driver")]
    MergeDriver(MergeDriverArgs),
    /// Keep this project's memory in its repository, under `.goldfish/`.
    Init(InitArgs),
}

/// `goldfish stats`.
#[derive(Debug, Args)]
pub(crate) struct StatsArgs {
    /// At most this many sessions, the most recently active first.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub(crate) sessions: usize,
}

/// What `goldfish forget --help` adds: what forgetting cannot undo.
const FORGET_AFTER_HELP: &str = "Forgetting is for good: the tombstone in the workspace's forgotten.md keeps the memory from coming back by sync or import (`goldfish import … --resurrect` is the one way back). A synced store's git history still holds the text: to purge it, rewrite the history of the store's repository and its remote (for example with git filter-repo) and re-clone it on every machine.";

/// `goldfish forget ID…`.
#[derive(Debug, Args)]
pub(crate) struct ForgetArgs {
    /// The checkpoints' ids, as recall lists them (`id: 20251013T093012345Z-3fa9c1`). Looked
    /// for in the current workspace first, then in every other one. All are found before
    /// anything is forgotten: an unknown id forgets nothing.
    #[arg(required = true, value_name = "ID")]
    pub(crate) ids: Vec<String>,
    /// Show what would be forgotten, and write nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
}

/// `goldfish tidy`.
#[derive(Debug, Args)]
pub(crate) struct TidyArgs {
    /// Forget the exact copies (the oldest of each stays) and link each chain's older
    /// decisions to its newest (`Supersedes`), and say what was done. Without it nothing is
    /// written.
    #[arg(long)]
    pub(crate) apply: bool,
    /// Report only, write nothing: what `goldfish tidy` does without `--apply`.
    #[arg(long, conflicts_with = "apply")]
    pub(crate) dry_run: bool,
    /// Name unreturned memories only among those older than this many days (default 90).
    #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(u32).range(0..=36_500))]
    pub(crate) older_than: Option<u32>,
    /// … that no recall or hook returned in this many days (default 60).
    #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(u32).range(0..=36_500))]
    pub(crate) unreturned_for: Option<u32>,
}

/// `goldfish show ID`.
#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// The checkpoint's id, as recall lists it (`id: 20251013T093012345Z-3fa9c1`). Looked
    /// for in the current workspace first, then in every other one.
    pub(crate) id: String,
}

/// `goldfish model …`.
#[derive(Debug, Subcommand)]
pub(crate) enum ModelCommand {
    /// Install the model: from the Hugging Face hub at a pinned revision, every file's
    /// SHA-256 checked (`HF_ENDPOINT` names a mirror of the hub), or with `--from` from a
    /// local sentence-transformers directory.
    Install {
        /// A sentence-transformers model directory (config.json, model.safetensors,
        /// tokenizer.json, 1_Pooling/config.json) to copy instead of downloading.
        #[arg(long, value_name = "DIR")]
        from: Option<std::path::PathBuf>,
    },
    /// Show the installed model: name, directory, size, dimension.
    Status,
    /// Remove the installed model (recall goes back to lexical only).
    Remove,
}

/// `goldfish sync [init|status]`.
#[derive(Debug, Args)]
#[command(
    after_help = "Without a subcommand: commit the store's changes, fetch, merge with the \
                  goldfish merge driver (entries are merged by meaning, never lost) and push, \
                  retrying when the remote moved on. Needs git 2.38 or later."
)]
pub(crate) struct SyncArgs {
    /// What to do (default: sync now).
    #[command(subcommand)]
    pub(crate) command: Option<SyncCommand>,
}

/// `goldfish index status|rebuild|verify`: every workspace unless `-w NAME` names one.
#[derive(Debug, Subcommand)]
pub(crate) enum IndexCommand {
    /// Per workspace: entries, day files, size on disk, when built, and what is stale.
    Status,
    /// Rebuild from the day files (a progress bar on a terminal, nothing on a pipe).
    Rebuild,
    /// Re-read every day file and compare with the index: exit 1 if they disagree.
    Verify,
}

/// The sync subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum SyncCommand {
    /// Make the store a git repository that syncs (idempotent): `.gitignore`,
    /// `.gitattributes`, the merge driver in its config, and the remote.
    Init {
        /// The remote to sync with (a URL or a path), added as `origin`.
        #[arg(long, value_name = "URL")]
        remote: Option<String>,
    },
    /// Ahead/behind counts and unsynced files, as of the last fetch (never contacts the
    /// remote).
    Status,
}

/// `goldfish merge-driver %O %A %B %P`.
#[derive(Debug, Args)]
#[command(
    after_help = "Registered by `goldfish sync init` and `goldfish init --in-repo` as \
                  `merge.goldfish.driver`. Writes the merge into OURS; exits 0 when clean, \
                  1 when it fell back to git's conflict markers."
)]
pub(crate) struct MergeDriverArgs {
    /// The common ancestor's version (`%O`).
    #[arg(value_name = "BASE")]
    pub(crate) base: PathBuf,
    /// Our version (`%A`); receives the merge.
    #[arg(value_name = "OURS")]
    pub(crate) ours: PathBuf,
    /// Their version (`%B`).
    #[arg(value_name = "THEIRS")]
    pub(crate) theirs: PathBuf,
    /// The file's path in the repository (`%P`), which says what kind of file it is.
    #[arg(value_name = "PATH")]
    pub(crate) path: String,
}

/// `goldfish init --in-repo`.
#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// Keep the workspace's checkpoints and plans in the repository around the current
    /// directory, under `.goldfish/` (committed with the code), and register the merge driver.
    #[arg(long, required = true)]
    pub(crate) in_repo: bool,
}

/// `goldfish mcp`.
#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// The largest JSON-RPC message accepted on stdin, in bytes (one message per line, the
    /// newline not counted). A longer line is skipped as it streams in, never held in memory,
    /// and answered with an error naming the limit; the server keeps serving.
    #[arg(
        long,
        env = crate::mcp::stdio::MAX_MESSAGE_BYTES_ENV,
        value_name = "BYTES",
        default_value_t = crate::mcp::stdio::DEFAULT_MAX_MESSAGE_BYTES,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub(crate) max_message_bytes: u64,
    /// Also write lifecycle lines (started, stopped) and tool errors to stderr. Without it
    /// the server writes to stderr only what the client was not told: clients such as Claude
    /// Code log every stderr line of a server as an error.
    #[arg(short, long)]
    pub(crate) verbose: bool,
}

/// `goldfish serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The port to listen on; 0 picks a free one (the URL is printed on stderr).
    #[arg(long, default_value_t = 7373)]
    pub(crate) port: u16,
    /// Open the timeline in the default browser once listening.
    #[arg(long)]
    pub(crate) open: bool,
    /// Also show this worktree's JOURNAL.md hand-over, GOBLIN_NOTES.md and pipeline state
    /// (repeatable).
    #[arg(long, value_name = "DIR")]
    pub(crate) worktree: Vec<PathBuf>,
    /// Listen on this address instead of 127.0.0.1. Anything but a loopback address lets
    /// other machines read the store: a warning says so.
    #[arg(long, value_name = "IP")]
    pub(crate) bind: Option<std::net::IpAddr>,
    /// Also answer requests addressed to this host name (with its port, `name:PORT`), for
    /// use with --bind; others are refused (DNS-rebinding protection). Repeatable.
    #[arg(long, value_name = "HOST:PORT")]
    pub(crate) allow_host: Vec<String>,
}

/// `goldfish checkpoint`.
#[derive(Debug, Args)]
pub(crate) struct CheckpointArgs {
    /// What was done (may span many lines; the first line is the title). `-` reads stdin.
    /// May be left out when --from-file gives the text.
    #[arg(
        value_name = "DESCRIPTION",
        allow_hyphen_values = true,
        required_unless_present = "from_file"
    )]
    pub(crate) description: Option<String>,
    /// Comma-separated tags, e.g. `bug-fix,auth` (the flag may also repeat).
    #[arg(long, short = 't', value_delimiter = ',')]
    pub(crate) tags: Vec<String>,
    /// The kind of memory and its structured fields.
    #[command(flatten)]
    pub(crate) typed: TypedArgs,
}

/// `goldfish recall`.
#[derive(Debug, Args)]
pub(crate) struct RecallArgs {
    /// Look back this many days (default 2). Conflicts with --since and --from.
    #[arg(long, short = 'd', conflicts_with_all = ["since", "from"])]
    pub(crate) days: Option<u32>,
    /// Look back this far: `30m`, `6h`, `3d` or a timestamp. Conflicts with --from.
    #[arg(long, conflicts_with = "from")]
    pub(crate) since: Option<String>,
    /// Start of the window: a date (`2025-10-13`) or an RFC 3339 timestamp.
    #[arg(long)]
    pub(crate) from: Option<String>,
    /// End of the window; a date alone means the end of that day.
    #[arg(long)]
    pub(crate) to: Option<String>,
    /// Search, ranked by relevance. A query may be keywords (`auth timeout`), a question in
    /// plain words ("how did we stop the login page from timing out?"), or a typo'd or
    /// partial word (`migratoin`, `auth`); question words and stop words are left out, and
    /// common software synonyms and abbreviations match (db ~ database, login ~ auth).
    /// Repeat it (up to 4) to search several phrasings of one need at once (a question and
    /// its keywords): each is searched and the rankings are fused.
    #[arg(long, short = 's', value_name = "SEARCH")]
    pub(crate) search: Vec<String>,
    /// With --search: show under each checkpoint why it matched — which query words matched
    /// which terms, in which fields, how (exact, stem, prefix, typo, synonym), and the
    /// score's parts.
    #[arg(long, requires = "search")]
    pub(crate) explain: bool,
    /// At most this many checkpoints (default 10; 0 = active plan only).
    #[arg(long, short = 'n')]
    pub(crate) limit: Option<usize>,
    /// Show full descriptions and git context instead of the summary view.
    #[arg(long)]
    pub(crate) full: bool,
    /// Also recall checkpoints that a later one supersedes (hidden by default).
    #[arg(long)]
    pub(crate) include_superseded: bool,
    /// Only checkpoints whose named files changed in git since their commit (the current
    /// project's checkpoints that name files and a commit; the others make no claim and are
    /// left out).
    #[arg(long, conflicts_with = "fresh")]
    pub(crate) stale: bool,
    /// Leave out checkpoints whose named files changed in git since their commit (those
    /// that make no claim are kept).
    #[arg(long)]
    pub(crate) fresh: bool,
    /// Only checkpoints matching these filters.
    #[command(flatten)]
    pub(crate) filter: FilterArgs,
}

impl RecallArgs {
    /// `--stale` / `--fresh` as a filter.
    pub(crate) fn freshness_filter(&self) -> goldfish_store::FreshnessFilter {
        match (self.stale, self.fresh) {
            (true, _) => goldfish_store::FreshnessFilter::Stale,
            (_, true) => goldfish_store::FreshnessFilter::Fresh,
            _ => goldfish_store::FreshnessFilter::Any,
        }
    }
}

/// `goldfish standup`.
#[derive(Debug, Args)]
pub(crate) struct StandupArgs {
    /// Look back this many days (default 1).
    #[arg(long, short = 'd')]
    pub(crate) days: Option<u32>,
}

/// `goldfish plan …`.
#[derive(Debug, Subcommand)]
pub(crate) enum PlanCommand {
    /// Save a new plan (or replace one with the same id).
    Save(PlanSaveArgs),
    /// Show a plan (default: the active plan).
    Get {
        /// The plan's id.
        id: Option<String>,
    },
    /// List the workspace's plans.
    List,
    /// Make a plan the active one.
    Activate {
        /// The plan's id.
        id: String,
    },
    /// Change a plan's title, content or status.
    Update(PlanUpdateArgs),
    /// Mark a plan completed.
    Complete {
        /// The plan's id.
        id: String,
    },
    /// Mark a plan archived.
    Archive {
        /// The plan's id.
        id: String,
    },
    /// Delete a plan for good: its file goes, and a tombstone keeps sync and import from
    /// bringing it back (see `goldfish forget --help`).
    Delete {
        /// The plan's id.
        id: String,
        /// Show what would be deleted, and write nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// `goldfish plan save`.
#[derive(Debug, Args)]
pub(crate) struct PlanSaveArgs {
    /// The plan's title.
    #[arg(long)]
    pub(crate) title: String,
    /// The plan's markdown body; `-` reads stdin.
    #[arg(long, short = 'c', allow_hyphen_values = true)]
    pub(crate) content: Option<String>,
    /// The plan's id (default: derived from the title).
    #[arg(long)]
    pub(crate) id: Option<String>,
    /// Comma-separated tags.
    #[arg(long, short = 't', value_delimiter = ',')]
    pub(crate) tags: Vec<String>,
    /// Initial status: active, completed or archived.
    #[arg(long)]
    pub(crate) status: Option<String>,
    /// Make it the workspace's active plan (the default; `--activate false` to not).
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, default_value_t = true,
          default_missing_value = "true", value_name = "BOOL")]
    pub(crate) activate: bool,
}

/// `goldfish plan update`.
#[derive(Debug, Args)]
pub(crate) struct PlanUpdateArgs {
    /// The plan's id.
    pub(crate) id: String,
    /// New title.
    #[arg(long)]
    pub(crate) title: Option<String>,
    /// New markdown body; `-` reads stdin.
    #[arg(long, short = 'c', allow_hyphen_values = true)]
    pub(crate) content: Option<String>,
    /// New status: active, completed or archived.
    #[arg(long)]
    pub(crate) status: Option<String>,
    /// New comma-separated tags (replace the old ones).
    #[arg(long, short = 't', value_delimiter = ',')]
    pub(crate) tags: Option<Vec<String>>,
}

/// `goldfish notes …`.
#[derive(Debug, Args)]
pub(crate) struct NotesArgs {
    /// The worktree holding `.goblin/GOBLIN_NOTES.md` (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) worktree: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: NotesCommand,
}

/// The notes subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum NotesCommand {
    /// Print the notes.
    Show,
    /// Create the notes for an issue (or restart them for a new stage, keeping the rest).
    Init {
        /// The issue, e.g. `ENG-123`.
        issue: String,
        /// The current objective (default: the issue).
        #[arg(long)]
        objective: Option<String>,
        /// The stage: SCOPE, BUILD, REVIEW, TEST, DONE or FAILED.
        #[arg(long, default_value = "SCOPE")]
        stage: String,
    },
    /// Replace the current objective.
    Objective {
        /// The new objective.
        #[arg(allow_hyphen_values = true)]
        text: String,
    },
    /// Record a step of the progress log (the last 5 completed steps are kept; older ones
    /// are folded into the context).
    Step {
        /// What was done or is being done.
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// completed, in-progress or pending.
        #[arg(long, default_value = "completed")]
        status: String,
    },
    /// Record a key decision.
    Decision {
        /// The decision.
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// Why.
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// Record a file changed.
    File {
        /// The file's path.
        path: String,
        /// What changed in it.
        #[arg(long, default_value = "")]
        note: String,
    },
    /// Set the stage (SCOPE, BUILD, REVIEW, TEST, DONE, FAILED, CANCELLED).
    Stage {
        /// The stage.
        stage: String,
    },
}

/// `goldfish signal …`.
#[derive(Debug, Args)]
pub(crate) struct SignalArgs {
    /// The worktree holding `.goblin/` (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) worktree: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: SignalCommand,
}

/// The signal subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum SignalCommand {
    /// Write a signal file atomically.
    Emit(SignalEmitArgs),
    /// List the signal files present.
    List,
    /// Remove signal files (all, or the kinds given).
    Clear {
        /// The kinds to remove (default: all).
        kinds: Vec<String>,
    },
}

/// `goldfish signal emit`.
#[derive(Debug, Args)]
pub(crate) struct SignalEmitArgs {
    /// The kind: scope-complete, build-complete, review-approved, review-changes-requested,
    /// test-passed or test-failed.
    pub(crate) kind: String,
    /// The whole JSON body (`-` reads stdin). The global `--json` only selects JSON output.
    #[arg(long = "body", value_name = "JSON", conflicts_with_all = ["field", "body_file"])]
    pub(crate) body: Option<String>,
    /// Read the whole JSON body from this file.
    #[arg(long = "body-file", value_name = "PATH", conflicts_with = "field")]
    pub(crate) body_file: Option<PathBuf>,
    /// One body field as `KEY=VALUE` (repeatable); VALUE is read as JSON when it parses
    /// (`commits=3`, `screenshots=["a.png"]`) and as text otherwise (`reason=flaky login`).
    #[arg(long = "field", short = 'f', value_name = "KEY=VALUE")]
    pub(crate) field: Vec<String>,
}

/// `goldfish pipeline …`.
#[derive(Debug, Args)]
pub(crate) struct PipelineArgs {
    /// The worktree holding `.goblin/` (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) worktree: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: PipelineCommand,
}

/// The pipeline subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum PipelineCommand {
    /// Start a pipeline at SCOPE (replacing one that has ended).
    Start,
    /// Show the pipeline's state and the signals waiting to be applied. Only reads: nothing
    /// is applied, moved or written.
    Status,
    /// Apply the signals present now (as many transitions as they allow), then show the state.
    Advance,
    /// Apply signals as they arrive, printing each transition, until the pipeline ends.
    #[command(
        after_help = "Exit codes: 0 DONE, 3 FAILED, 4 CANCELLED, 5 --timeout passed \
                            first, 1 error, 2 usage error."
    )]
    Watch {
        /// Poll interval in seconds.
        #[arg(long, default_value_t = 5.0)]
        interval: f64,
        /// Stop after this many seconds even if the pipeline has not finished.
        #[arg(long)]
        timeout: Option<f64>,
    },
    /// Cancel the pipeline and remove its signals.
    Cancel,
}

/// `goldfish journal …`.
#[derive(Debug, Args)]
pub(crate) struct JournalArgs {
    /// The worktree holding JOURNAL.md (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) worktree: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: JournalCommand,
}

/// The journal subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum JournalCommand {
    /// Start a session: create JOURNAL.md or append a session header.
    Boot {
        /// The session's title.
        #[arg(allow_hyphen_values = true)]
        title: String,
        /// What this session intends to do.
        #[arg(long)]
        intent: Option<String>,
        /// How it means to do it (failures and successes belong to it by default).
        #[arg(long)]
        approach: Option<String>,
        /// The task named in a new journal's title (default: the worktree's name).
        #[arg(long)]
        task: Option<String>,
    },
    /// Log an entry: decision, finding, lesson, state or note (one or two lines).
    Log {
        /// The entry's kind.
        #[arg(long, short = 'k', default_value = "finding")]
        kind: String,
        /// The entry's text.
        #[arg(allow_hyphen_values = true)]
        text: String,
    },
    /// Log a failed attempt (three in a row of one approach require a mutation).
    Fail {
        /// What failed.
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// The approach that failed (default: the approach in force).
        #[arg(long)]
        approach: Option<String>,
    },
    /// Log something that works (ends the approach's failure streak).
    Ok {
        /// What works.
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// The approach that works (default: the approach in force).
        #[arg(long)]
        approach: Option<String>,
    },
    /// Declare a mutation (M1–M8, or its name) after three failures of one approach.
    Mutate {
        /// The mutation code: M1 Fallback, M2 Extreme, M3 Hardcode, M4 Switch,
        /// M5 Reduce Scope, M6 Invert, M7 Ask, M8 Read.
        code: String,
        /// The approach that failed (default: the one that requires a mutation).
        #[arg(long)]
        failed: Option<String>,
        /// The new approach.
        #[arg(long)]
        switching_to: String,
        /// Why the new approach should work.
        #[arg(long)]
        rationale: String,
    },
    /// The status derived from the whole journal: last session, streaks, mutations, state.
    Status,
    /// The hand-over view: the last 50 lines plus the derived status.
    Handover,
    /// Archive the journal into `.self-improving/` in the store (journals/, corrections.md, patterns.jsonl).
    Archive {
        /// The archive root (default: $GOLDFISH_HOME/.self-improving).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}

// ----- typed memories and recall filters ---------------------------------------------------

/// `goldfish checkpoint`'s typed-memory flags.
#[derive(Debug, Args)]
pub(crate) struct TypedArgs {
    /// The kind of memory: checkpoint (default), decision, incident or learning.
    #[arg(long = "type", value_name = "TYPE", value_parser = parse_memory_type)]
    pub(crate) memory_type: Option<goldfish_store::MemoryType>,
    /// The situation: what was true before, what forced the question.
    #[arg(long, allow_hyphen_values = true)]
    pub(crate) context: Option<String>,
    /// What was decided.
    #[arg(long, allow_hyphen_values = true)]
    pub(crate) decision: Option<String>,
    /// An option considered and not taken (repeat the flag for more).
    #[arg(long = "alternative", value_name = "TEXT", allow_hyphen_values = true)]
    pub(crate) alternatives: Vec<String>,
    /// What this changes or costs.
    #[arg(long, allow_hyphen_values = true)]
    pub(crate) impact: Option<String>,
    /// What supports it: a log line, a measurement, a link (repeatable).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub(crate) evidence: Vec<String>,
    /// A code symbol concerned, e.g. `TokenStore::rotate` (repeatable).
    #[arg(long = "symbol", value_name = "NAME")]
    pub(crate) symbols: Vec<String>,
    /// What should happen next.
    #[arg(long, allow_hyphen_values = true)]
    pub(crate) next: Option<String>,
    /// How sure you are, from 1 (a guess) to 5 (certain).
    #[arg(long, value_parser = parse_confidence)]
    pub(crate) confidence: Option<u8>,
    /// An open question (repeatable).
    #[arg(long = "unknown", value_name = "TEXT", allow_hyphen_values = true)]
    pub(crate) unknowns: Vec<String>,
    /// A short key naming what this memory is about (e.g. `auth-tokens`): it supersedes the
    /// newest earlier memory of the workspace with the same topic (ignoring case).
    #[arg(long, value_name = "KEY")]
    pub(crate) topic: Option<String>,
    /// The id of an earlier checkpoint of the workspace that this one replaces (repeatable,
    /// or comma-separated): recall then shows this one and hides that one.
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub(crate) supersedes: Vec<String>,
    /// Read the description from this file (after DESCRIPTION's title line when both are
    /// given): for text too long for the command line.
    #[arg(long, value_name = "PATH")]
    pub(crate) from_file: Option<PathBuf>,
}

/// `goldfish recall`'s filters.
#[derive(Debug, Args)]
pub(crate) struct FilterArgs {
    /// Only this kind of memory: checkpoint, decision, incident or learning.
    #[arg(long = "type", value_name = "TYPE", value_parser = parse_memory_type)]
    pub(crate) memory_type: Option<goldfish_store::MemoryType>,
    /// Only checkpoints with this tag (repeatable: all must match).
    #[arg(long = "tag", value_name = "TAG")]
    pub(crate) tags: Vec<String>,
    /// Only checkpoints that touched this file or directory (a path, a directory such as
    /// `src/auth/`, or the end of a path such as `jwt.rs`).
    #[arg(long, value_name = "PATH")]
    pub(crate) file: Option<String>,
    /// Only checkpoints naming this symbol (`rotate` matches `TokenStore::rotate`).
    #[arg(long, value_name = "NAME")]
    pub(crate) symbol: Option<String>,
}

fn parse_memory_type(s: &str) -> Result<goldfish_store::MemoryType, String> {
    s.parse()
        .map_err(|e: goldfish_store::Error| e.message().to_string())
}

fn parse_confidence(s: &str) -> Result<u8, String> {
    goldfish_store::parse_confidence(s).map_err(|e| e.message().to_string())
}

// ----- redaction of the stored files -------------------------------------------------------

/// `goldfish redact`.
#[derive(Debug, Args)]
pub(crate) struct RedactArgs {
    /// Rewrite every file that holds something to redact (each atomically, under its lock).
    /// Without it nothing is written: the report says what `--apply` would change.
    #[arg(long)]
    pub(crate) apply: bool,
    /// Report only, write nothing: what `goldfish redact` does without `--apply`, said
    /// explicitly (as `import` and `setup` say it).
    #[arg(long, conflicts_with = "apply")]
    pub(crate) dry_run: bool,
    /// The worktree whose `.goblin/GOBLIN_NOTES.md` and `JOURNAL.md` are redacted too
    /// (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) worktree: Option<PathBuf>,
}

// ----- import and export -------------------------------------------------------------------

/// `goldfish import`.
#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// Show what would be imported, per workspace, and write nothing.
    #[arg(long, global = true)]
    pub(crate) dry_run: bool,
    /// Bring back memories that were forgotten on purpose (their tombstones are taken back);
    /// without it they are skipped and counted.
    #[arg(long, global = true)]
    pub(crate) resurrect: bool,
    /// Where from.
    #[command(subcommand)]
    pub(crate) source: ImportSource,
}

/// What `goldfish import` reads.
#[derive(Debug, Subcommand)]
pub(crate) enum ImportSource {
    /// A Goldfish 5–8 project (or its `.memories/`), or a `registry.json` of projects.
    GoldfishMemories {
        /// The project directory, its `.memories` directory, or `~/.goldfish/registry.json`.
        path: PathBuf,
    },
    /// Tusk's SQLite journal (read from a copy; never modified).
    Tusk {
        /// The `journal.db` file.
        path: PathBuf,
    },
    /// A Goldfish v4 store (`{workspace}/checkpoints/*.md`, `{workspace}/plans/*.md`).
    GoldfishV4 {
        /// The store directory.
        path: PathBuf,
    },
    /// A `goldfish export` file.
    Jsonl {
        /// The `.jsonl` file.
        path: PathBuf,
    },
}

/// `goldfish export`.
#[derive(Debug, Args)]
pub(crate) struct ExportArgs {}
