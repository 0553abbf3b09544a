//! What setup registers: the command that starts the goldfish MCP server.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// The name the server is registered under in every client.
pub const SERVER_NAME: &str = "goldfish";

/// How a client starts the goldfish MCP server: a command and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Server {
    /// The program: `goldfish` (found on `PATH`) or an absolute path to the binary.
    pub command: String,
    /// Its arguments: `["mcp"]`.
    pub args: Vec<String>,
    /// Environment variables the client sets for the server (`env` in every client's
    /// config): `GOLDFISH_HOME` when the user keeps the store elsewhere, since a client need
    /// not pass its own environment on (Codex does not). Setup only adds and updates these
    /// keys; others already in the entry stay.
    pub env: BTreeMap<String, String>,
}

impl Default for Server {
    /// `goldfish mcp`, with `goldfish` looked up on `PATH` by the client.
    fn default() -> Self {
        Server {
            command: SERVER_NAME.to_owned(),
            args: vec!["mcp".to_owned()],
            env: BTreeMap::new(),
        }
    }
}

impl Server {
    /// `<binary> mcp`: the server started from an absolute path, for clients whose `PATH`
    /// does not include the binary's directory (GUI apps often start with a short one).
    pub fn at(binary: &Path) -> Self {
        Server {
            command: binary.to_string_lossy().into_owned(),
            ..Server::default()
        }
    }

    /// True when `existing`, a registered server, runs this one: the same command and
    /// arguments, and every variable of [`env`](Self::env) set to the same value (it may set
    /// others).
    pub fn is_satisfied_by(&self, existing: &Server) -> bool {
        self.command == existing.command
            && self.args == existing.args
            && self.env.iter().all(|(k, v)| existing.env.get(k) == Some(v))
    }

    /// The store the server opens: its `GOLDFISH_HOME` when it sets one.
    pub fn goldfish_home(&self) -> Option<&str> {
        self.env
            .get(goldfish_core::fs::GOLDFISH_HOME_ENV)
            .map(String::as_str)
            .filter(|h| !h.is_empty())
    }

    /// Reads `{"command": …, "args": […]}`; `None` without a `command` string. Missing or
    /// non-string arguments count as none.
    pub(crate) fn from_json(value: &Value) -> Option<Server> {
        let command = value.get("command")?.as_str()?.to_owned();
        let args = value
            .get("args")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let env = value
            .get("env")
            .and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default();
        Some(Server { command, args, env })
    }
}
