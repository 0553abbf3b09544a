//! The command line of the agent integration: `goldfish hook`, `goldfish setup` and
//! `goldfish doctor` (clap derive types and nothing else).

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

/// A coding agent's client, for `hook --client` and `setup`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AgentClient {
    /// Claude Code.
    Claude,
    /// OpenAI Codex.
    Codex,
    /// Cursor.
    Cursor,
}

/// `goldfish hook …`.
#[derive(Debug, Subcommand)]
pub(crate) enum HookCommand {
    /// Print what an agent needs at session start (active plan, recent checkpoints, the
    /// journal's open streak, the notes' context for the next session) in the client's shape.
    /// Never fails a session: on any error it prints nothing on stdout, one line on stderr,
    /// and exits 0.
    SessionStart(SessionStartArgs),
    /// Claude Code's and Codex's UserPromptSubmit, Cursor's beforeSubmitPrompt: the
    /// checkpoints that clearly match the prompt (read as JSON on stdin), each once per
    /// session. Chit-chat gets nothing. Never fails a prompt.
    Prompt(InjectArgs),
    /// Claude Code's PostToolUse for Read, Edit, Write and MultiEdit (Codex's for
    /// apply_patch, Cursor's afterFileEdit): the decisions, incidents and learnings that name
    /// the file or its directory, once per session per file. Never fails.
    File(InjectArgs),
    /// Claude Code's and Codex's PreCompact, Cursor's preCompact: the instruction to
    /// checkpoint what the context holds before it is compacted, with the titles this session
    /// already saved. Never fails.
    PreCompact(InjectArgs),
}

/// `goldfish hook prompt|file|pre-compact`: the client's hook input is read on stdin.
#[derive(Debug, Args)]
pub(crate) struct InjectArgs {
    /// The client running the hook: claude and codex print
    /// `{"hookSpecificOutput": {"hookEventName": …, "additionalContext": …}}` (plain text
    /// for pre-compact, which Claude Code passes to the compaction as its instructions),
    /// cursor its own field; none plain text. `--json` prints the injection with its size.
    #[arg(long, value_enum)]
    pub(crate) client: Option<AgentClient>,
    /// At most this many characters in this injection (default 800 for prompt and file,
    /// 1200 for pre-compact); the session's budget (settings.json `hooks.session_budget`,
    /// default 6000) caps all injections of one session together.
    #[arg(long, value_name = "CHARS")]
    pub(crate) budget: Option<usize>,
}

/// `goldfish hook session-start`.
#[derive(Debug, Args)]
pub(crate) struct SessionStartArgs {
    /// The client running the hook: claude and codex print
    /// `{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": …}}`,
    /// cursor `{"additional_context": …}`, none plain text.
    #[arg(long, value_enum)]
    pub(crate) client: Option<AgentClient>,
    /// At most this many characters of context.
    #[arg(long, value_name = "CHARS", default_value_t = goldfish_session::DEFAULT_BUDGET)]
    pub(crate) budget: usize,
}

/// `goldfish setup`.
#[derive(Debug, Args)]
pub(crate) struct SetupArgs {
    /// The client whose user config gets the `goldfish` MCP server.
    #[arg(
        value_enum,
        required_unless_present = "print",
        conflicts_with = "print"
    )]
    pub(crate) client: Option<AgentClient>,
    /// Print the `mcpServers` JSON to paste into any other client, and change nothing.
    #[arg(long)]
    pub(crate) print: bool,
    /// The config file to edit instead of the client's documented one.
    #[arg(long, value_name = "PATH")]
    pub(crate) config: Option<PathBuf>,
    /// Claude Code only: the settings file for the allow rules instead of
    /// `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`).
    #[arg(long, value_name = "PATH")]
    pub(crate) settings: Option<PathBuf>,
    /// Show the change as a diff and write nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Remove the `goldfish` server instead of registering it.
    #[arg(long)]
    pub(crate) remove: bool,
    /// Claude Code only: do not add the allow rules for `recall` and `checkpoint` to
    /// `~/.claude/settings.json` (without them, headless sessions such as `claude -p` are
    /// refused those tools).
    #[arg(long, conflicts_with = "allow_only")]
    pub(crate) no_allow: bool,
    /// Claude Code only: add (or with --remove take out) the allow rules and leave the MCP
    /// server registration alone, for a server that comes from the goldfish plugin.
    #[arg(long)]
    pub(crate) allow_only: bool,
    /// The command the client runs (default `goldfish`, found on the client's PATH); give an
    /// absolute path for clients started with a short PATH.
    #[arg(long, value_name = "PATH")]
    pub(crate) command: Option<PathBuf>,
}

/// `goldfish doctor`.
#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// Also fix what can be fixed safely: register the merge driver in the current
    /// repository when it keeps goldfish memory, and make the store private (0700).
    #[arg(long)]
    pub(crate) fix: bool,
}
