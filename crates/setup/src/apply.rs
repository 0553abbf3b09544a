//! The I/O layer: read a client's config, edit it with the pure functions, show or write the
//! result (backup first, then an atomic replace).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use goldfish_core::fs::{WriteOptions, read_utf8_opt, write_atomic};

use crate::client::{Client, Env, Format};
use crate::error::{Error, ErrorKind};
use crate::server::Server;

/// Register the server, or remove it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Action {
    /// Register `goldfish` (or correct its command).
    #[default]
    Register,
    /// Remove `goldfish`.
    Remove,
}

/// What [`apply`] does and where.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Register or remove.
    pub action: Action,
    /// The server to register (default `goldfish mcp`).
    pub server: Server,
    /// The config file to edit instead of the client's documented one.
    pub config: Option<PathBuf>,
    /// Compute the change and its diff, write nothing.
    pub dry_run: bool,
    /// The environment the documented location is resolved in.
    pub env: Env,
    /// The settings file [`allow_tools`] edits instead of the client's documented one.
    pub settings: Option<PathBuf>,
}

impl Default for Options {
    /// Register `goldfish mcp` in the client's documented file, for real, in an empty
    /// environment (no home known: set [`Options::env`] or [`Options::config`]).
    fn default() -> Self {
        Options {
            action: Action::default(),
            server: Server::default(),
            config: None,
            dry_run: false,
            env: Env::default(),
            settings: None,
        }
    }
}

impl Options {
    /// [`Options::default`] in this process's environment ([`Env::from_env`]): for a binary.
    pub fn from_env() -> Self {
        Options {
            env: Env::from_env(),
            ..Options::default()
        }
    }
}

/// How the file changed (or would, in a dry run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// `goldfish` was not registered and now is.
    Added,
    /// `goldfish` was registered with another command and now has this one.
    Updated,
    /// `goldfish` was registered and now is not.
    Removed,
    /// Nothing to do: already registered as asked, or nothing to remove.
    Unchanged,
}

/// The result of [`apply`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Outcome {
    /// The client.
    pub client: Client,
    /// The file edited (symbolic links resolved).
    pub path: PathBuf,
    /// What changed.
    pub change: Change,
    /// The change as a unified diff (empty when unchanged).
    pub diff: String,
    /// Where the previous contents were saved, when a file was replaced.
    pub backup: Option<PathBuf>,
    /// True when the file was written (false for dry runs and when unchanged).
    pub written: bool,
}

/// The backup of `path`: `<file>.goldfish-backup` beside it, the contents just before setup's
/// last write.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".goldfish-backup");
    path.with_file_name(name)
}

/// The server registered as `goldfish` in `text`, a config of `client`.
pub fn registration(client: Client, text: &str) -> Result<Option<Server>, Error> {
    match client.format() {
        Format::Json => crate::json::registration(text),
        Format::Toml => crate::toml::registration(text),
    }
}

/// `text` with `server` registered as `goldfish`; `text` itself when it already is.
/// Every other entry is kept, and the formatting too (see the crate docs).
pub fn register(client: Client, text: &str, server: &Server) -> Result<String, Error> {
    match client.format() {
        Format::Json => crate::json::register(text, server),
        Format::Toml => crate::toml::register(text, server),
    }
}

/// `text` without the `goldfish` server; `text` itself when there is none. A server list left
/// empty is removed too; a JSON file left with nothing becomes the empty string.
pub fn unregister(client: Client, text: &str) -> Result<String, Error> {
    match client.format() {
        Format::Json => crate::json::unregister(text),
        Format::Toml => crate::toml::unregister(text),
    }
}

/// A unified diff from `old` to `new`, both labelled with `path`.
pub fn unified_diff(path: &Path, old: &str, new: &str) -> String {
    let label = path.display().to_string();
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&label, &label)
        .to_string()
}

/// Registers or removes the server in `client`'s config file.
///
/// Nothing is written when the file does not parse (the error names the line), when it is
/// read-only, when nothing changes, or for a dry run. Otherwise the old contents go to
/// [`backup_path`] first and the new ones replace the file atomically (a crash leaves the old
/// file or the new one, never a mix); an existing file keeps its permissions, a new one is
/// created private (0600, in 0700 directories). A symbolic link is followed and its target
/// edited. A JSON file left empty by a removal is deleted (the backup stays).
pub fn apply(client: Client, options: &Options) -> Result<Outcome, Error> {
    let path = match &options.config {
        Some(path) => path.clone(),
        None => client.config_path(&options.env)?,
    };
    let path = resolve_link(&path)?;
    let old = read_utf8_opt(&path)?;
    let old_text = old.as_deref().unwrap_or("");
    let new = match options.action {
        Action::Register => register(client, old_text, &options.server),
        Action::Remove => unregister(client, old_text),
    }
    .map_err(|e| e.with_path(&path))?;
    let change = if new == old_text {
        Change::Unchanged
    } else {
        match options.action {
            Action::Remove => Change::Removed,
            Action::Register => match registration(client, old_text) {
                Ok(Some(_)) => Change::Updated,
                _ => Change::Added,
            },
        }
    };
    write_change(
        client,
        client.format(),
        path,
        old,
        new,
        change,
        options.dry_run,
    )
}

/// The rules [`allow_tools`] adds to Claude Code's `permissions.allow`: the tools that only
/// read (`recall`) or only append (`checkpoint`), as Claude Code names them for the server
/// setup registers (`mcp__goldfish__…`) and for the server of the goldfish plugin
/// (`mcp__plugin_goldfish_goldfish__…`). `plan` can replace and archive plans, so it is left
/// to the user ([`PLAN_RULES`]).
pub const ALLOW_RULES: [&str; 4] = [
    "mcp__goldfish__recall",
    "mcp__goldfish__checkpoint",
    "mcp__plugin_goldfish_goldfish__recall",
    "mcp__plugin_goldfish_goldfish__checkpoint",
];

/// The rules that would let `plan` run without asking too, for the user to add.
pub const PLAN_RULES: [&str; 2] = ["mcp__goldfish__plan", "mcp__plugin_goldfish_goldfish__plan"];

/// The rules of [`ALLOW_RULES`] present in `text`, a Claude Code settings file.
pub fn allowed_rules(text: &str) -> Result<Vec<&'static str>, Error> {
    crate::json::allow::allowed(text, &ALLOW_RULES)
}

/// Adds [`ALLOW_RULES`] to Claude Code's `permissions.allow` ([`Action::Register`]) or takes
/// them out ([`Action::Remove`]), so the goldfish tools that only read or append run in
/// headless sessions (`claude -p`), which deny every tool not allowed. The file is
/// [`Options::settings`], else [`Client::settings_path`]; `None` for clients without such
/// rules (Codex and Cursor). Edited like [`apply`]'s file: spliced, idempotent, reversible
/// byte for byte, backed up, replaced atomically, never written on a dry run.
pub fn allow_tools(client: Client, options: &Options) -> Result<Option<Outcome>, Error> {
    let path = match (&options.settings, client.settings_path(&options.env)?) {
        (Some(path), _) => path.clone(),
        (None, Some(path)) => path,
        (None, None) => return Ok(None),
    };
    let path = resolve_link(&path)?;
    let old = read_utf8_opt(&path)?;
    let old_text = old.as_deref().unwrap_or("");
    let new = match options.action {
        Action::Register => crate::json::allow::allow(old_text, &ALLOW_RULES),
        Action::Remove => crate::json::allow::disallow(old_text, &ALLOW_RULES),
    }
    .map_err(|e| e.with_path(&path))?;
    let change = match (new == old_text, options.action) {
        (true, _) => Change::Unchanged,
        (false, Action::Remove) => Change::Removed,
        (false, Action::Register) if allowed_rules(old_text).is_ok_and(|r| !r.is_empty()) => {
            Change::Updated
        }
        (false, Action::Register) => Change::Added,
    };
    write_change(
        client,
        Format::Json,
        path,
        old,
        new,
        change,
        options.dry_run,
    )
    .map(Some)
}

/// Shows or writes one edit of a JSON or TOML file: the diff, the backup, the conflict check
/// and the atomic replace shared by [`apply`] and [`allow_tools`].
fn write_change(
    client: Client,
    format: Format,
    path: PathBuf,
    old: Option<String>,
    new: String,
    change: Change,
    dry_run: bool,
) -> Result<Outcome, Error> {
    let old_text = old.as_deref().unwrap_or("");
    let mut outcome = Outcome {
        client,
        path: path.clone(),
        change,
        diff: String::new(),
        backup: None,
        written: false,
    };
    if change == Change::Unchanged {
        return Ok(outcome);
    }
    outcome.diff = unified_diff(&path, old_text, &new);
    if dry_run {
        return Ok(outcome);
    }
    if old.is_some() {
        refuse_read_only(&path)?;
        let backup = backup_path(&path);
        write_atomic(&backup, old_text.as_bytes(), &WriteOptions::private())?;
        outcome.backup = Some(backup);
    }
    // The client may rewrite its file at any moment (Claude Code keeps state in it): if it
    // did since we read it, stop rather than lose its change.
    if read_utf8_opt(&path)? != old {
        return Err(Error::new(
            ErrorKind::Conflict,
            "the file changed while setup was editing it (is the client running?); nothing was \
             written, run setup again",
        )
        .with_path(&path));
    }
    if new.trim().is_empty() && format == Format::Json {
        fs::remove_file(&path).map_err(|e| Error::io(&path, "cannot remove", e))?;
    } else {
        write_atomic(&path, new.as_bytes(), &WriteOptions::private())?;
    }
    outcome.written = true;
    Ok(outcome)
}

/// `path`, or the file a symbolic link at `path` points to (so a config kept in a dotfiles
/// repository stays a link).
fn resolve_link(path: &Path) -> Result<PathBuf, Error> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(path)
            .map_err(|e| Error::io(path, "cannot follow the symbolic link", e)),
        Ok(_) => Ok(path.to_path_buf()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(path.to_path_buf()),
        Err(e) => Err(Error::io(path, "cannot read", e)),
    }
}

/// An atomic replace would succeed on a read-only file (the directory is what matters), so
/// the file's own permission is checked first: read-only means the user wants it left alone.
fn refuse_read_only(path: &Path) -> Result<(), Error> {
    let meta = fs::metadata(path).map_err(|e| Error::io(path, "cannot read", e))?;
    if meta.permissions().readonly() {
        return Err(Error::new(
            ErrorKind::ReadOnly,
            "the file is read-only; nothing was written. Make it writable (chmod u+w) or pass \
             another file with --config",
        )
        .with_path(path));
    }
    Ok(())
}
