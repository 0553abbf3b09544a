//! Registers the goldfish MCP server in the user-level configuration of Claude Code, Codex and
//! Cursor, and checks an installation: the library behind `goldfish setup` and
//! `goldfish doctor`.
//!
//! Each client keeps its MCP servers in its own file ([`Client::config_path`]):
//!
//! | client | file | entry |
//! |---|---|---|
//! | Claude Code | `~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json` | top-level `mcpServers.goldfish` (user scope) |
//! | Codex | `$CODEX_HOME/config.toml`, default `~/.codex/config.toml` | `[mcp_servers.goldfish]` |
//! | Cursor | `~/.cursor/mcp.json` | `mcpServers.goldfish` |
//!
//! The editing functions are pure: [`register`] and [`unregister`] take the file's text and
//! return the new text. They are idempotent (a second call returns its input unchanged), keep
//! every other entry, and keep the formatting: JSON is edited by splicing the bytes of the one
//! member concerned (indentation, key order and line endings elsewhere stay byte-identical),
//! TOML through `toml_edit`, which keeps comments and layout. A server added by [`register`]
//! and taken away by [`unregister`] gives back the original bytes. A file that does not parse
//! is refused with the line of the error.
//!
//! [`apply`] is the thin I/O layer over them: it reads the file, shows the change as a unified
//! diff ([`Options::dry_run`]), saves a backup ([`backup_path`]) and replaces the file
//! atomically; it refuses read-only files. [`print_snippet`] gives the JSON to paste into any
//! other client, and [`doctor`] returns [`Finding`]s, each with what to do.
//!
//! # Example
//!
//! ```
//! use goldfish_setup::{Client, Server, register, registration, unregister};
//!
//! # fn main() -> Result<(), goldfish_setup::Error> {
//! let before = "# my Codex settings\nmodel = \"o3\"\n";
//! let after = register(Client::Codex, before, &Server::default())?;
//! assert!(after.starts_with("# my Codex settings\nmodel = \"o3\"\n"));
//! assert_eq!(registration(Client::Codex, &after)?, Some(Server::default()));
//! // Idempotent, and reversible byte for byte.
//! assert_eq!(register(Client::Codex, &after, &Server::default())?, after);
//! assert_eq!(unregister(Client::Codex, &after)?, before);
//! # Ok(())
//! # }
//! ```
//!
//! Writing a file:
//!
//! ```
//! use goldfish_setup::{Action, Change, Client, Options, apply};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let config = dir.path().join("mcp.json");
//! std::fs::write(&config, "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n")?;
//!
//! let mut options = Options::default();
//! options.config = Some(config.clone());
//! let outcome = apply(Client::Cursor, &options)?;
//! assert_eq!(outcome.change, Change::Added);
//! assert!(outcome.diff.contains("+    \"goldfish\": {"));
//! assert_eq!(apply(Client::Cursor, &options)?.change, Change::Unchanged);
//!
//! options.action = Action::Remove;
//! assert_eq!(apply(Client::Cursor, &options)?.change, Change::Removed);
//! # Ok(())
//! # }
//! ```
//!
//! # Crate features
//!
//! None: everything is always available.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod apply;
mod client;
mod doctor;
mod error;
mod json;
mod server;
mod toml;

pub use apply::{
    ALLOW_RULES, Action, Change, Options, Outcome, PLAN_RULES, allow_tools, allowed_rules, apply,
    backup_path, register, registration, unified_diff, unregister,
};
pub use client::{Client, Env, Format};
pub use doctor::{
    Finding, Status, doctor, driver_finding, find_on_path, fix_store_permissions, model_finding,
    redaction_finding,
};
pub use error::{Error, ErrorKind};
pub use json::print_snippet;
pub use server::{SERVER_NAME, Server};

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
