//! `goldfish hook …` and `goldfish stats`: the hooks' input read from stdin, one library
//! call per hook (goldfish-session), the output in the shape each client reads.

use std::io::{IsTerminal as _, Read as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use goldfish_session::hooks::{self, HookInput, HookKind, HookOptions, Injection};
use serde_json::json;

use crate::agent_cli::{AgentClient, HookCommand, InjectArgs};
use crate::cli::StatsArgs;
use crate::context::Context;
use crate::output::Report;

/// The most of a hook's stdin that is read (a prompt with a pasted log can be long; the
/// search keeps its first words anyway).
const MAX_INPUT: u64 = 4 * 1024 * 1024;

/// `goldfish hook …`: never fails. On any error (or panic) nothing reaches stdout, one line
/// goes to stderr, and the exit code is 0, so a broken store never blocks a session or a
/// prompt.
pub(crate) fn hook(
    home: Option<PathBuf>,
    workspace: Option<crate::cli::WorkspaceArg>,
    json: bool,
    cmd: HookCommand,
) -> ExitCode {
    let name = match &cmd {
        HookCommand::SessionStart(_) => "session-start",
        HookCommand::Prompt(_) => "prompt",
        HookCommand::File(_) => "file",
        HookCommand::PreCompact(_) => "pre-compact",
    };
    let run = std::panic::catch_unwind(|| run_hook(home, workspace, json, cmd));
    let output = match run {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => {
            crate::output::eprintln_inert!(
                "goldfish hook: {name}: nothing injected ({}); `goldfish doctor` checks the \
                 installation",
                crate::error_message(&e)
            );
            return ExitCode::SUCCESS;
        }
        Err(_) => {
            eprintln!("goldfish hook: {name}: nothing injected (internal error; please report it)");
            return ExitCode::SUCCESS;
        }
    };
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(output.as_bytes()).and_then(|()| out.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("goldfish hook: {name}: cannot write its output: {e}");
    }
    ExitCode::SUCCESS
}

/// The client's hook input: stdin, unless it is a terminal (a hook run by hand).
fn read_input() -> anyhow::Result<HookInput> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Ok(HookInput::default());
    }
    let mut bytes = Vec::new();
    stdin.lock().take(MAX_INPUT).read_to_end(&mut bytes)?;
    Ok(HookInput::parse(&String::from_utf8_lossy(&bytes))?)
}

/// How long after a hook starts its freshness `git log` must have ended: the hook's whole
/// process has 15 ms, and stopping git, recording what was injected and the process's own
/// start and exit take up to 7 ms more on a loaded machine (measured with
/// `hook/prompt_fresh_git`).
const HOOK_GIT_DEADLINE: std::time::Duration = std::time::Duration::from_millis(8);

/// Runs one hook and returns what goes on stdout.
fn run_hook(
    home: Option<PathBuf>,
    workspace: Option<crate::cli::WorkspaceArg>,
    json: bool,
    cmd: HookCommand,
) -> anyhow::Result<String> {
    let started = std::time::Instant::now();
    let input = match read_input() {
        Ok(input) => input,
        // The session start needs nothing from its input but the session id: without it,
        // the context still comes (counted against no session).
        Err(e) if matches!(cmd, HookCommand::SessionStart(_)) => {
            crate::output::eprintln_inert!(
                "goldfish hook: session-start: {}; going on without a session id",
                crate::error_message(&e)
            );
            HookInput::default()
        }
        Err(e) => return Err(e),
    };
    let mut ctx = Context::new(home, workspace)?;
    // The agent's directory, as the client reports it, is where the workspace is found.
    if let Some(cwd) = input.cwd.clone().filter(|c| c.is_absolute()) {
        ctx.cwd = cwd;
    }
    let (kind, client, budget) = match &cmd {
        HookCommand::SessionStart(a) => (HookKind::SessionStart, a.client, a.budget),
        HookCommand::Prompt(a) => (
            HookKind::Prompt,
            a.client,
            default_budget(a, HookKind::Prompt),
        ),
        HookCommand::File(a) => (HookKind::File, a.client, default_budget(a, HookKind::File)),
        HookCommand::PreCompact(a) => (
            HookKind::PreCompact,
            a.client,
            default_budget(a, HookKind::PreCompact),
        ),
    };
    let workspace = ctx.workspace(None)?;
    let mut options = HookOptions::new(&ctx.home, &ctx.cwd, &workspace, budget);
    options.session = input.session.clone();
    options.here = crate::actor::here();
    if matches!(kind, HookKind::Prompt | HookKind::File) {
        options.repository = crate::freshness::repository_of(&ctx, &workspace);
        // `GOLDFISH_HOOK_GIT_MS`: how long the freshness `git log` may run (0: no git); by
        // default it must end within the hook's time budget, counted from here.
        match std::env::var("GOLDFISH_HOOK_GIT_MS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
        {
            Some(ms) => options.freshness_timeout = std::time::Duration::from_millis(ms),
            None => options.freshness_deadline = Some(started + HOOK_GIT_DEADLINE),
        }
    }
    if let Some(n) = goldfish_store::hook_session_budget(&ctx.home)? {
        options.session_budget = n;
    }
    let injection = match kind {
        HookKind::SessionStart => session_start(&ctx, &options)?,
        HookKind::Prompt => {
            let prompt = input.prompt.as_deref().unwrap_or_default();
            hooks::prompt_context(&ctx.open_store()?, &options, prompt)?
        }
        HookKind::File => hooks::file_context(&ctx.open_store()?, &options, &input.files)?,
        _ => hooks::pre_compact(&ctx.open_store()?, &options)?,
    };
    if json {
        return Ok(format!("{}\n", serde_json::to_string(&injection)?));
    }
    Ok(render(&injection, client))
}

fn default_budget(a: &InjectArgs, kind: HookKind) -> usize {
    a.budget.unwrap_or(match kind {
        HookKind::PreCompact => hooks::DEFAULT_COMPACT_BUDGET,
        HookKind::File => hooks::DEFAULT_FILE_BUDGET,
        _ => hooks::DEFAULT_PROMPT_BUDGET,
    })
}

/// The session-start context within what the session may still be given, recorded.
fn session_start(ctx: &Context, options: &HookOptions) -> anyhow::Result<Injection> {
    let mut start_options = goldfish_session::SessionOptions::new(&ctx.home, &ctx.cwd);
    start_options.workspace = Some(options.workspace.clone());
    start_options.here = options.here.clone();
    let start = goldfish_session::session_start(&start_options)?;
    if let Some(summary) = start.skipped_summary() {
        crate::output::eprintln_inert!("goldfish hook: {summary}");
    }
    let room = hooks::session_budget_left(options)?;
    let text = if room == 0 {
        String::new()
    } else {
        start.render(room)
    };
    // Only titles: the checkpoints listed do not count as given, so a prompt or a file can
    // still bring in one's decision or impact.
    Ok(hooks::record_injection(
        options,
        HookKind::SessionStart,
        text,
        Vec::new(),
        &[],
    )?)
}

/// The injection in the shape `client` reads; nothing at all when there is nothing to say.
fn render(injection: &Injection, client: Option<AgentClient>) -> String {
    let text = &injection.text;
    if text.is_empty() {
        return String::new();
    }
    let event = match injection.hook {
        HookKind::SessionStart => "SessionStart",
        HookKind::Prompt => "UserPromptSubmit",
        HookKind::File => "PostToolUse",
        _ => "PreCompact",
    };
    match (client, injection.hook) {
        // Claude Code passes a PreCompact hook's stdout to the compaction as its
        // instructions; it has no hookSpecificOutput for PreCompact. Plain text may be read
        // on a terminal: goldfish-session already shows the stored text in it escaped
        // (`goldfish_core::inert`), the one place that does.
        (Some(AgentClient::Claude | AgentClient::Codex), HookKind::PreCompact) | (None, _) => {
            text.clone()
        }
        // Claude Code and Codex add `additionalContext` to the model's context (Codex
        // validates the JSON against exactly this shape).
        (Some(AgentClient::Claude | AgentClient::Codex), _) => format!(
            "{}\n",
            json!({
                "hookSpecificOutput": {
                    "hookEventName": event,
                    "additionalContext": text,
                }
            })
        ),
        // Cursor's preCompact shows `user_message`; its other hooks read
        // `additional_context` (beforeSubmitPrompt also `continue`).
        (Some(AgentClient::Cursor), HookKind::PreCompact) => {
            format!("{}\n", json!({ "user_message": text }))
        }
        (Some(AgentClient::Cursor), HookKind::Prompt) => {
            format!(
                "{}\n",
                json!({ "continue": true, "additional_context": text })
            )
        }
        (Some(AgentClient::Cursor), _) => format!("{}\n", json!({ "additional_context": text })),
    }
}

/// `goldfish stats`: what the hooks injected per session lately.
pub(crate) fn stats(ctx: &Context, a: &StatsArgs) -> anyhow::Result<Report> {
    let ledger = hooks::Ledger::new(&ctx.home);
    let sessions = hooks::summarize(&ledger.log()?, a.sessions);
    let budget =
        goldfish_store::hook_session_budget(&ctx.home)?.unwrap_or(hooks::DEFAULT_SESSION_BUDGET);
    let mut text = format!(
        "Hook injections, the {} most recent session(s) (session budget {budget} characters; \
         log {}):\n",
        sessions.len(),
        ctx.home.join(hooks::HOOKS_DIR).join("log.jsonl").display()
    );
    if sessions.is_empty() {
        text.push_str("  nothing injected yet\n");
    }
    for s in &sessions {
        let per: Vec<String> = s
            .hooks
            .iter()
            .map(|h| format!("{} {}×, {} chars", h.hook.name(), h.count, h.chars))
            .collect();
        let id = if s.session.is_empty() {
            "(no session id)"
        } else {
            &s.session
        };
        text.push_str(&format!(
            "- {id} [{}] {} → {}: {} chars — {}\n",
            s.workspace,
            s.first.format("%Y-%m-%d %H:%M"),
            s.last.format("%H:%M"),
            s.chars,
            per.join("; ")
        ));
    }
    Ok(Report::new(
        text,
        json!({ "session_budget": budget, "sessions": sessions }),
    ))
}
