//! `goldfish setup` and `goldfish doctor`: the CLI's side of the agent integration (the
//! hooks are in `hook.rs`). The config edits and checks come from goldfish-setup, the merge
//! driver from goldfish-sync; this file renders and picks exit codes.

use std::process::ExitCode;

use serde_json::json;

use crate::agent_cli::{AgentClient, DoctorArgs, SetupArgs};
use crate::context::Context;
use crate::output::Report;

impl AgentClient {
    fn setup_client(self) -> goldfish_setup::Client {
        match self {
            AgentClient::Claude => goldfish_setup::Client::Claude,
            AgentClient::Codex => goldfish_setup::Client::Codex,
            AgentClient::Cursor => goldfish_setup::Client::Cursor,
        }
    }
}

/// `goldfish setup`.
pub(crate) fn setup(args: SetupArgs) -> anyhow::Result<Report> {
    let server = match &args.command {
        // A client starts the server from its own directory: a relative path would not hold.
        Some(path) => goldfish_setup::Server::at(&std::path::absolute(path).map_err(|e| {
            anyhow::anyhow!(
                "`--command {}`: cannot make it absolute: {e}",
                path.display()
            )
        })?),
        None => goldfish_setup::Server::default(),
    };
    // A client need not pass its environment on to the server (Codex does not): the store
    // this goldfish uses is recorded in the server's entry.
    let mut server = server;
    if let Some(home) =
        std::env::var_os(goldfish_core::fs::GOLDFISH_HOME_ENV).filter(|h| !h.is_empty())
    {
        let home = std::path::absolute(&home).map_err(|e| {
            anyhow::anyhow!(
                "GOLDFISH_HOME={}: cannot make it absolute: {e}",
                home.display()
            )
        })?;
        server.env.insert(
            goldfish_core::fs::GOLDFISH_HOME_ENV.to_string(),
            home.to_string_lossy().into_owned(),
        );
    }
    if args.print {
        let snippet = goldfish_setup::print_snippet(&server);
        let value: serde_json::Value = serde_json::from_str(&snippet)?;
        return Ok(Report::new(snippet, value));
    }
    let Some(client) = args.client else {
        anyhow::bail!("name a client (claude, codex or cursor), or pass --print");
    };
    let client = client.setup_client();
    let mut options = goldfish_setup::Options::from_env();
    options.action = if args.remove {
        goldfish_setup::Action::Remove
    } else {
        goldfish_setup::Action::Register
    };
    options.server = server;
    options.config = args.config.clone();
    options.settings = args.settings.clone();
    options.dry_run = args.dry_run;
    use goldfish_setup::Change;
    if (args.allow_only || args.settings.is_some()) && client != goldfish_setup::Client::Claude {
        anyhow::bail!(
            "--allow-only and --settings are for claude: the other clients have no allow rules"
        );
    }
    let mut text = String::new();
    let mut json = json!({ "client": client.name(), "dry_run": args.dry_run });
    if !args.allow_only {
        let outcome = goldfish_setup::apply(client, &options)?;
        let path = outcome.path.display();
        let line = match (outcome.change, args.dry_run) {
            (Change::Added, false) => format!("registered `goldfish` in {path}"),
            (Change::Added, true) => format!("would register `goldfish` in {path}"),
            (Change::Updated, false) => format!("updated the `goldfish` command in {path}"),
            (Change::Updated, true) => format!("would update the `goldfish` command in {path}"),
            (Change::Removed, false) => format!("removed `goldfish` from {path}"),
            (Change::Removed, true) => format!("would remove `goldfish` from {path}"),
            (Change::Unchanged, _) if args.remove => {
                format!("`goldfish` is not registered in {path}; nothing to do")
            }
            (_, _) => format!("`goldfish` is already registered in {path}; nothing to do"),
        };
        render_change(&mut text, &outcome, args.dry_run, &line);
        json["path"] = json!(outcome.path);
        json["change"] = json!(format!("{:?}", outcome.change).to_lowercase());
        json["written"] = json!(outcome.written);
        json["backup"] = json!(outcome.backup);
        json["diff"] = json!(outcome.diff);
    }
    if !args.no_allow
        && let Some(outcome) = goldfish_setup::allow_tools(client, &options)?
    {
        let path = outcome.path.display();
        let what = "the allow rules for recall and checkpoint";
        let line = match (outcome.change, args.dry_run) {
            (Change::Added | Change::Updated, false) => format!("added {what} to {path}"),
            (Change::Added | Change::Updated, true) => format!("would add {what} to {path}"),
            (Change::Removed, false) => format!("removed {what} from {path}"),
            (Change::Removed, true) => format!("would remove {what} from {path}"),
            (Change::Unchanged, _) if args.remove => {
                format!("{what} are not in {path}; nothing to do")
            }
            (_, _) => format!("{what} are already in {path}; nothing to do"),
        };
        render_change(&mut text, &outcome, args.dry_run, &line);
        if !args.remove {
            text.push_str(&format!(
                "\n`plan` still asks before it runs (it can replace and archive plans); to allow it \
                 in headless sessions too, add {} to \"permissions\".\"allow\" in {} (or pass \
                 it to one session: claude -p --allowedTools <rule>).",
                goldfish_setup::PLAN_RULES
                    .iter()
                    .map(|r| format!("\"{r}\""))
                    .collect::<Vec<_>>()
                    .join(" or "),
                outcome.path.display()
            ));
        }
        json["permissions"] = json!({
            "path": outcome.path,
            "change": format!("{:?}", outcome.change).to_lowercase(),
            "written": outcome.written,
            "backup": outcome.backup,
            "diff": outcome.diff,
            "rules": goldfish_setup::ALLOW_RULES,
        });
    }
    if !args.remove && !args.dry_run {
        text.push_str(&format!(
            "\nRestart {} to load it; `goldfish doctor` checks the installation.",
            client.name()
        ));
    }
    Ok(Report::new(text.trim_start().to_string(), json))
}

/// Appends what happened to one file to `text`: the diff on a dry run, then `line` and
/// where the backup went.
fn render_change(text: &mut String, outcome: &goldfish_setup::Outcome, dry_run: bool, line: &str) {
    text.push('\n');
    if dry_run && !outcome.diff.is_empty() {
        text.push_str(&outcome.diff);
        if !outcome.diff.ends_with('\n') {
            text.push('\n');
        }
    }
    text.push_str(line);
    if let Some(backup) = &outcome.backup {
        text.push_str(&format!(" (previous contents in {})", backup.display()));
    }
}

/// `goldfish doctor`: exit 1 when a check fails.
pub(crate) fn doctor(ctx: &Context, args: &DoctorArgs) -> anyhow::Result<Report> {
    let mut env = goldfish_setup::Env::from_env();
    env.goldfish_home = Some(ctx.home.clone().into_os_string());
    let mut fixed = Vec::new();
    if args.fix {
        fixed.extend(goldfish_setup::fix_store_permissions(&env)?);
    }
    let mut findings = goldfish_setup::doctor(&env);
    // A store that cannot be used is reported once, by its own finding: its settings file
    // would only fail again for the same reason.
    let store_failed = findings
        .iter()
        .any(|f| f.check == "store" && f.status == goldfish_setup::Status::Fail);
    if !store_failed {
        findings.push(goldfish_setup::redaction_finding(
            &ctx.home.join(goldfish_store::SETTINGS_FILE),
            goldfish_store::redaction_config(&ctx.home)
                .map(|c| c.disabled.iter().map(|k| k.name().to_string()).collect())
                .map_err(|e| e.to_string()),
        ));
    }
    if let Some(repo) = goldfish_sync::repository_with_memory(&ctx.cwd) {
        if args.fix {
            let binary = std::env::current_exe()?;
            if goldfish_sync::fix_driver_config(&repo, &binary)? {
                fixed.push(format!(
                    "registered the goldfish merge driver in {}",
                    repo.join(".git/config").display()
                ));
            }
        }
        findings.push(goldfish_setup::driver_finding(
            &repo,
            goldfish_sync::driver_configured(&repo).map_err(|e| e.to_string()),
        ));
    }
    findings.push(model_finding());
    let failed = findings
        .iter()
        .any(|f| f.status == goldfish_setup::Status::Fail);
    let mut text = String::new();
    for line in &fixed {
        text.push_str(&format!("fixed: {line}\n"));
    }
    for f in &findings {
        text.push_str(&format!("{f}\n"));
    }
    text.push_str(if failed {
        "Some checks failed: do what each → line says, then run `goldfish doctor` again."
    } else {
        "goldfish is ready."
    });
    let json = json!({
        "ok": !failed,
        "fixed": fixed,
        "findings": findings.iter().map(|f| json!({
            "check": f.check,
            "status": f.status.to_string().to_lowercase(),
            "detail": f.detail,
            "fix": f.fix,
        })).collect::<Vec<_>>(),
    });
    let report = Report::new(text, json);
    Ok(if failed {
        report.with_code(ExitCode::FAILURE)
    } else {
        report
    })
}

/// The doctor's finding for the embedding model of semantic recall.
fn model_finding() -> goldfish_setup::Finding {
    let dir = match super::model_dir() {
        Ok(dir) => dir,
        Err(e) => {
            return goldfish_setup::model_finding(std::path::Path::new(""), Err(e.to_string()));
        }
    };
    let name = goldfish_embed::DEFAULT_MODEL;
    let installed = dir
        .status(name)
        .map(|s| s.map(|s| (s.model, s.dimension)))
        .map_err(|e| e.to_string());
    goldfish_setup::model_finding(&dir.path(name), installed)
}
