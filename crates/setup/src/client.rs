//! The clients setup knows, and where each keeps its user-level MCP configuration.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::error::{Error, ErrorKind};

/// A coding agent whose MCP configuration setup can edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Client {
    /// Claude Code: user-scope servers are the top-level `mcpServers` object of
    /// `~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json` when that is set (what
    /// `claude mcp add --scope user` writes).
    Claude,
    /// OpenAI Codex (CLI, IDE extension and app): `[mcp_servers.<name>]` tables in
    /// `$CODEX_HOME/config.toml`, `~/.codex/config.toml` by default.
    Codex,
    /// Cursor: the `mcpServers` object of the global `~/.cursor/mcp.json`.
    Cursor,
}

/// The syntax of a client's config file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON, edited by splicing the text so every other byte stays as it was.
    Json,
    /// TOML, edited with `toml_edit`, which keeps comments and layout.
    Toml,
}

impl Client {
    /// Every client, in the order setup and doctor report them.
    pub const ALL: [Client; 3] = [Client::Claude, Client::Codex, Client::Cursor];

    /// The name used on the command line and in messages: `claude`, `codex` or `cursor`.
    pub fn name(self) -> &'static str {
        match self {
            Client::Claude => "claude",
            Client::Codex => "codex",
            Client::Cursor => "cursor",
        }
    }

    /// The syntax of this client's config file.
    pub fn format(self) -> Format {
        match self {
            Client::Codex => Format::Toml,
            Client::Claude | Client::Cursor => Format::Json,
        }
    }

    /// The documented location of this client's user-level config file in `env`.
    ///
    /// An error of kind [`ErrorKind::NoHome`] when no home directory is known (neither `HOME`
    /// nor `USERPROFILE`, and for Codex no `CODEX_HOME`).
    pub fn config_path(self, env: &Env) -> Result<PathBuf, Error> {
        let relocated = match self {
            Client::Claude => env.claude_config_dir.as_ref().map(|d| (d, ".claude.json")),
            Client::Codex => env.codex_home.as_ref().map(|d| (d, "config.toml")),
            Client::Cursor => None,
        };
        if let Some((dir, file)) = relocated.filter(|(d, _)| !d.is_empty()) {
            return Ok(PathBuf::from(dir).join(file));
        }
        let home = env.home.as_ref().filter(|h| !h.is_empty()).ok_or_else(|| {
            Error::new(
                ErrorKind::NoHome,
                format!(
                    "cannot find {}'s config: HOME is not set; pass the file with --config",
                    self.name()
                ),
            )
        })?;
        let home = PathBuf::from(home);
        Ok(match self {
            Client::Claude => home.join(".claude.json"),
            Client::Codex => home.join(".codex").join("config.toml"),
            Client::Cursor => home.join(".cursor").join("mcp.json"),
        })
    }
}

impl Client {
    /// The user settings file holding this client's permission rules: for Claude Code
    /// `~/.claude/settings.json`, or `$CLAUDE_CONFIG_DIR/settings.json` when that is set;
    /// `None` for the clients without such rules.
    pub fn settings_path(self, env: &Env) -> Result<Option<PathBuf>, Error> {
        if self != Client::Claude {
            return Ok(None);
        }
        if let Some(dir) = env.claude_config_dir.as_ref().filter(|d| !d.is_empty()) {
            return Ok(Some(PathBuf::from(dir).join("settings.json")));
        }
        let home = env.home.as_ref().filter(|h| !h.is_empty()).ok_or_else(|| {
            Error::new(
                ErrorKind::NoHome,
                "cannot find Claude Code's settings: HOME is not set",
            )
        })?;
        Ok(Some(
            PathBuf::from(home).join(".claude").join("settings.json"),
        ))
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Client {
    type Err = Error;

    /// `claude` (or `claude-code`), `codex`, `cursor`, in any case.
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.to_ascii_lowercase().as_str() {
            "claude" | "claude-code" | "claudecode" => Ok(Client::Claude),
            "codex" => Ok(Client::Codex),
            "cursor" => Ok(Client::Cursor),
            _ => Err(Error::new(
                ErrorKind::UnknownClient,
                format!("unknown client {s:?}: use claude, codex or cursor"),
            )),
        }
    }
}

/// The parts of the process environment setup and doctor read, so tests can pass their own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Env {
    /// The user's home directory (`HOME`, or `USERPROFILE` on Windows).
    pub home: Option<OsString>,
    /// `CLAUDE_CONFIG_DIR`: where Claude Code keeps `.claude.json` when set.
    pub claude_config_dir: Option<OsString>,
    /// `CODEX_HOME`: where Codex keeps `config.toml` when set.
    pub codex_home: Option<OsString>,
    /// `GOLDFISH_HOME`: the goldfish store when set.
    pub goldfish_home: Option<OsString>,
    /// `PATH`: where doctor looks for `goldfish` and `git`.
    pub path: Option<OsString>,
}

impl Env {
    /// The values of this process's environment (for a binary; [`Env::default`] has none).
    pub fn from_env() -> Self {
        Env {
            home: std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")),
            claude_config_dir: std::env::var_os("CLAUDE_CONFIG_DIR"),
            codex_home: std::env::var_os("CODEX_HOME"),
            goldfish_home: std::env::var_os(goldfish_core::fs::GOLDFISH_HOME_ENV),
            path: std::env::var_os("PATH"),
        }
    }

    /// An environment with only a home directory (the other values unset).
    pub fn with_home(home: impl Into<OsString>) -> Self {
        Env {
            home: Some(home.into()),
            ..Env::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_locations() -> Result<(), Error> {
        let env = Env::with_home("/home/u");
        let table = [
            (Client::Claude, "/home/u/.claude.json"),
            (Client::Codex, "/home/u/.codex/config.toml"),
            (Client::Cursor, "/home/u/.cursor/mcp.json"),
        ];
        for (client, want) in table {
            assert_eq!(client.config_path(&env)?, PathBuf::from(want), "{client}");
        }
        let env = Env {
            codex_home: Some("/opt/codex".into()),
            claude_config_dir: Some("/opt/claude".into()),
            ..env
        };
        assert_eq!(
            Client::Codex.config_path(&env)?,
            PathBuf::from("/opt/codex/config.toml")
        );
        assert_eq!(
            Client::Claude.config_path(&env)?,
            PathBuf::from("/opt/claude/.claude.json")
        );
        let env = Env {
            codex_home: Some("".into()),
            ..env
        };
        assert_eq!(
            Client::Codex.config_path(&env)?,
            PathBuf::from("/home/u/.codex/config.toml"),
            "an empty variable counts as unset"
        );
        Ok(())
    }

    #[test]
    fn no_home_is_an_error_naming_the_client() {
        let err = Client::Cursor.config_path(&Env::default());
        assert!(
            matches!(&err, Err(e) if e.kind() == ErrorKind::NoHome && e.to_string().contains("cursor"))
        );
    }

    #[test]
    fn names_round_trip() -> Result<(), Error> {
        for client in Client::ALL {
            assert_eq!(client.name().parse::<Client>()?, client);
        }
        assert_eq!("Claude-Code".parse::<Client>()?, Client::Claude);
        assert!("vim".parse::<Client>().is_err());
        Ok(())
    }
}
