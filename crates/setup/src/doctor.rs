//! `goldfish doctor` as a library: checks that say what is wrong and what to do.

use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::apply::registration;
use crate::client::{Client, Env};
use crate::server::Server;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Fine.
    Ok,
    /// Works, but something is worth doing (for example a client without goldfish).
    Warn,
    /// Broken: goldfish will not work until it is fixed.
    Fail,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
        })
    }
}

/// The result of one check.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// What was checked: `binary`, `store`, `claude`, `codex`, `cursor`,
    /// `claude-permissions`, `git`, `merge-driver`, `redaction` or `model`.
    pub check: &'static str,
    /// How it came out.
    pub status: Status,
    /// What was found, with the path concerned.
    pub detail: String,
    /// What to do about it (`None` when nothing needs doing).
    pub fix: Option<String>,
}

impl Finding {
    fn new(check: &'static str, status: Status, detail: impl Into<String>) -> Self {
        Finding {
            check,
            status,
            detail: detail.into(),
            fix: None,
        }
    }

    fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}: {}", self.status, self.check, self.detail)?;
        if let Some(fix) = &self.fix {
            write!(f, "\n       → {fix}")?;
        }
        Ok(())
    }
}

/// Runs every check in `env`: the `goldfish` binary on `PATH`, the store writable and
/// private, each client's registration, and `git` available. Never fails: a check that
/// cannot run is itself a finding.
pub fn doctor(env: &Env) -> Vec<Finding> {
    let mut findings = vec![check_binary(env), check_store(env)];
    findings.extend(Client::ALL.iter().map(|&c| check_client(c, env)));
    findings.extend(check_claude_permissions(env));
    findings.push(check_git(env));
    findings
}

/// The first `name` (with the platform's executable suffix) in the directories of `path`.
pub fn find_on_path(name: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    let file = format!("{name}{}", std::env::consts::EXE_SUFFIX);
    std::env::split_paths(path?)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(&file))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    match fs::metadata(path) {
        #[cfg(unix)]
        Ok(meta) => {
            use std::os::unix::fs::PermissionsExt;
            meta.is_file() && meta.permissions().mode() & 0o111 != 0
        }
        #[cfg(not(unix))]
        Ok(meta) => meta.is_file(),
        Err(_) => false,
    }
}

fn check_binary(env: &Env) -> Finding {
    match find_on_path("goldfish", env.path.as_deref()) {
        Some(found) => Finding::new(
            "binary",
            Status::Ok,
            format!("goldfish is {}", found.display()),
        ),
        None => Finding::new(
            "binary",
            Status::Fail,
            "goldfish is not on PATH, so clients cannot start `goldfish mcp`",
        )
        .fix(
            "install it (cargo install goldfish-cli puts it in ~/.cargo/bin) and add that \
             directory to PATH, or register the binary by its absolute path",
        ),
    }
}

fn check_store(env: &Env) -> Finding {
    let Some(store) =
        goldfish_core::fs::goldfish_home_from(env.goldfish_home.clone(), env.home.clone())
    else {
        return Finding::new(
            "store",
            Status::Fail,
            "neither GOLDFISH_HOME nor HOME is set",
        )
        .fix("set GOLDFISH_HOME to the directory goldfish should keep its memory in");
    };
    let shown = store.display();
    let meta = match fs::metadata(&store) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Finding::new(
                "store",
                Status::Ok,
                format!("{shown} does not exist yet; the first checkpoint creates it (mode 0700)"),
            );
        }
        Err(e) => {
            return Finding::new("store", Status::Fail, format!("cannot read {shown}: {e}"))
                .fix("check the permissions of its parent directory, or set GOLDFISH_HOME");
        }
    };
    if !meta.is_dir() {
        return Finding::new("store", Status::Fail, format!("{shown} is not a directory"))
            .fix("move that file aside, or set GOLDFISH_HOME to a directory");
    }
    // A file named like the atomic writer's temporaries, which every reader skips.
    let probe = store.join(format!(".doctor-{}.tmp", std::process::id()));
    if let Err(e) = fs::write(&probe, b"") {
        return Finding::new(
            "store",
            Status::Fail,
            format!("{shown} is not writable: {e}"),
        )
        .fix(format!("make it writable: chmod u+rwx {shown}"));
    }
    let _ = fs::remove_file(&probe);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Finding::new(
                "store",
                Status::Warn,
                format!("{shown} is writable but others can read it (mode {mode:04o})"),
            )
            .fix(format!("make it private: chmod 700 {shown}"));
        }
    }
    Finding::new(
        "store",
        Status::Ok,
        format!("{shown} is writable and private"),
    )
}

/// Makes the store private (mode 0700) when it exists and others can read it: the one change
/// `goldfish doctor --fix` makes to the store. Returns what was done, `None` when nothing
/// needed doing (no store, not a directory, already private, or not Unix).
pub fn fix_store_permissions(env: &Env) -> Result<Option<String>, crate::Error> {
    let Some(store) =
        goldfish_core::fs::goldfish_home_from(env.goldfish_home.clone(), env.home.clone())
    else {
        return Ok(None);
    };
    let Ok(meta) = fs::metadata(&store) else {
        return Ok(None);
    };
    if !meta.is_dir() {
        return Ok(None);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            fs::set_permissions(&store, fs::Permissions::from_mode(0o700))
                .map_err(|e| crate::Error::io(&store, "cannot make the store private", e))?;
            return Ok(Some(format!(
                "made {} private (mode {mode:04o} → 0700)",
                store.display()
            )));
        }
    }
    Ok(None)
}

/// The finding for the merge driver of a repository that keeps goldfish memory (`repo`),
/// given whether its config registers the driver (or why that could not be read).
pub fn driver_finding(repo: &Path, configured: Result<bool, String>) -> Finding {
    let shown = repo.display();
    match configured {
        Ok(true) => Finding::new(
            "merge-driver",
            Status::Ok,
            format!("{shown} keeps goldfish memory and merges it with the goldfish driver"),
        ),
        Ok(false) => Finding::new(
            "merge-driver",
            Status::Fail,
            format!(
                "{shown} keeps goldfish memory but its git config lacks the goldfish merge \
                 driver (a clone does not copy it): merges of memory files would conflict"
            ),
        )
        .fix("run `goldfish doctor --fix` in that repository"),
        Err(e) => Finding::new(
            "merge-driver",
            Status::Warn,
            format!("cannot read the git config of {shown}: {e}"),
        )
        .fix("check that git is installed and the repository is readable"),
    }
}

/// The finding for the store's redaction setting (`settings`, the store's `settings.json`),
/// given the kinds of secret it turns off (or why it could not be read): every kind on is
/// fine, kinds turned off are listed as a warning (so that turning one off is never silent),
/// and a broken setting fails (saves refuse to run until it is fixed).
pub fn redaction_finding(settings: &Path, disabled: Result<Vec<String>, String>) -> Finding {
    let shown = settings.display();
    match disabled {
        Ok(kinds) if kinds.is_empty() => Finding::new(
            "redaction",
            Status::Ok,
            "every kind of secret is replaced by [REDACTED:<kind>] before it is written",
        ),
        Ok(kinds) => Finding::new(
            "redaction",
            Status::Warn,
            format!(
                "{shown} turns off the redaction of: {}; such secrets are written as they are",
                kinds.join(", ")
            ),
        )
        .fix(format!(
            "remove them from `redact.disabled` in {shown} to redact them again"
        )),
        Err(e) => Finding::new("redaction", Status::Fail, e).fix(format!(
            "fix or remove {shown}: checkpoints and plans cannot be saved until then"
        )),
    }
}

/// The finding for the semantic recall's embedding model: its name, directory and dimension
/// when installed (`Ok(Some(..))`), not installed (`Ok(None)`, a warning: recall is lexical
/// only), or why the installed one cannot be used (a failure naming the file).
pub fn model_finding(dir: &Path, installed: Result<Option<(String, usize)>, String>) -> Finding {
    match installed {
        Ok(Some((model, dimension))) => Finding::new(
            "model",
            Status::Ok,
            format!("{model} ({dimension} dimensions) in {}", dir.display()),
        ),
        Ok(None) => Finding::new(
            "model",
            Status::Warn,
            format!(
                "no embedding model in {}: recall is lexical only",
                dir.display()
            ),
        )
        .fix("run `goldfish model install` for semantic recall"),
        Err(e) => Finding::new("model", Status::Fail, e)
            .fix("run `goldfish model install` again, or `goldfish model remove`"),
    }
}

fn check_client(client: Client, env: &Env) -> Finding {
    let name = client.name();
    let path = match client.config_path(env) {
        Ok(path) => path,
        Err(e) => return Finding::new(name, Status::Warn, e.to_string()),
    };
    let shown = path.display();
    let text = match goldfish_core::fs::read_utf8_opt(&path) {
        Ok(Some(text)) => text,
        Ok(None) => {
            return Finding::new(
                name,
                Status::Warn,
                format!("no {shown}: goldfish is not registered"),
            )
            .fix(format!(
                "goldfish setup {name} (skip this if you do not use {name})"
            ));
        }
        Err(e) => return Finding::new(name, Status::Fail, e.to_string()),
    };
    match registration(client, &text) {
        Ok(Some(server)) => {
            let mut finding = Finding::new(
                name,
                Status::Ok,
                format!(
                    "registered in {shown}: {} {}",
                    server.command,
                    server.args.join(" ")
                ),
            );
            let command = Path::new(&server.command);
            if let Some((opens, cli)) = other_store(client, &server, env) {
                finding.status = Status::Fail;
                finding.detail = format!(
                    "the server {shown} starts opens the store {}, but this goldfish uses {}: \
                     what is saved through {name} lands in the other one",
                    opens.display(),
                    cli.display()
                );
                finding.fix = Some(format!(
                    "run `goldfish setup {name}` with GOLDFISH_HOME set as it is here (it \
                     records GOLDFISH_HOME in the server's env)"
                ));
            } else if command.is_absolute() && !is_executable(command) {
                finding.status = Status::Fail;
                finding.detail = format!(
                    "{shown} starts {}, which is not an executable file",
                    server.command
                );
                finding.fix = Some(format!(
                    "goldfish setup {name} (registers the binary again)"
                ));
            }
            finding
        }
        Ok(None) => Finding::new(
            name,
            Status::Warn,
            format!("goldfish is not registered in {shown}"),
        )
        .fix(format!("goldfish setup {name}")),
        Err(e) => Finding::new(name, Status::Fail, e.with_path(&path).to_string())
            .fix("fix the file at that line; setup refuses to edit a file it cannot parse"),
    }
}

/// Whether Claude Code lets `recall` and `checkpoint` run without asking, which headless
/// sessions (`claude -p`) need. `None` when Claude Code has no settings file and no
/// goldfish registration (the user does not use it, or not with goldfish).
fn check_claude_permissions(env: &Env) -> Option<Finding> {
    let check = "claude-permissions";
    let path = Client::Claude.settings_path(env).ok().flatten()?;
    let shown = path.display();
    let registered = Client::Claude
        .config_path(env)
        .ok()
        .and_then(|p| goldfish_core::fs::read_utf8_opt(&p).ok().flatten())
        .is_some_and(|t| matches!(registration(Client::Claude, &t), Ok(Some(_))));
    let text = match goldfish_core::fs::read_utf8_opt(&path) {
        Ok(Some(text)) => text,
        Ok(None) if !registered => return None,
        Ok(None) => String::new(),
        Err(e) => return Some(Finding::new(check, Status::Warn, e.to_string())),
    };
    let allowed = match crate::apply::allowed_rules(&text) {
        Ok(allowed) => allowed,
        Err(e) => {
            return Some(
                Finding::new(check, Status::Warn, e.with_path(&path).to_string())
                    .fix("fix the file at that line; setup refuses to edit a file it cannot parse"),
            );
        }
    };
    // Each pair names the tools of one way of installing: setup's server, or the plugin's.
    let complete = crate::apply::ALLOW_RULES
        .chunks(2)
        .any(|pair| pair.iter().all(|r| allowed.contains(r)));
    Some(if complete {
        Finding::new(
            check,
            Status::Ok,
            format!("recall and checkpoint may run without asking (allowed in {shown})"),
        )
    } else {
        Finding::new(
            check,
            Status::Warn,
            format!(
                "recall and checkpoint are not allowed in {shown}: headless sessions \
                 (claude -p) are refused them"
            ),
        )
        .fix(
            "goldfish setup claude (or `goldfish setup claude --allow-only` when goldfish comes \
             from the plugin)",
        )
    })
}

/// The store `server` would open and the one this process uses, when they differ. The
/// server opens its own `GOLDFISH_HOME` when its entry sets one; otherwise Codex starts it
/// without the user's environment (so the default store), while Claude Code and Cursor pass
/// theirs on.
fn other_store(client: Client, server: &Server, env: &Env) -> Option<(PathBuf, PathBuf)> {
    let cli = goldfish_core::fs::goldfish_home_from(env.goldfish_home.clone(), env.home.clone())?;
    let opens = match server.goldfish_home() {
        Some(home) => PathBuf::from(home),
        None if client == Client::Codex => {
            goldfish_core::fs::goldfish_home_from(None, env.home.clone())?
        }
        None => return None,
    };
    let same = |a: &Path, b: &Path| {
        a == b || matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
    };
    (!same(&opens, &cli)).then_some((opens, cli))
}

fn check_git(env: &Env) -> Finding {
    let Some(git) = find_on_path("git", env.path.as_deref()) else {
        return Finding::new(
            "git",
            Status::Warn,
            "git is not on PATH: checkpoints will have no branch, commit or changed files",
        )
        .fix("install git");
    };
    match Command::new(&git).arg("--version").output() {
        Ok(out) if out.status.success() => Finding::new(
            "git",
            Status::Ok,
            String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        ),
        Ok(out) => Finding::new(
            "git",
            Status::Warn,
            format!(
                "{} --version failed: {}",
                git.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        )
        .fix("repair the git installation"),
        Err(e) => Finding::new(
            "git",
            Status::Warn,
            format!("cannot run {}: {e}", git.display()),
        )
        .fix("repair the git installation"),
    }
}
