//! TOML configs (Codex): the `[mcp_servers.goldfish]` table, edited with `toml_edit`, which
//! keeps every comment, blank line and key order of the rest of the file.

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use crate::error::Error;
use crate::server::{SERVER_NAME, Server};

/// The table that holds MCP servers in Codex's `config.toml`.
const SERVERS_KEY: &str = "mcp_servers";

fn parse(text: &str) -> Result<DocumentMut, Error> {
    text.parse::<DocumentMut>().map_err(|e| {
        let line = e.span().map_or(1, |span| {
            1 + text[..span.start.min(text.len())].matches('\n').count()
        });
        Error::malformed(
            line,
            format!(
                "not valid TOML ({}); fix the file or move it aside, nothing was written",
                e.message()
            ),
        )
    })
}

/// The `mcp_servers` table, if present; an error if it is there but not a table.
fn servers(doc: &DocumentMut) -> Result<Option<&dyn TableLike>, Error> {
    match doc.get(SERVERS_KEY) {
        None => Ok(None),
        Some(item) => item.as_table_like().map(Some).ok_or_else(|| {
            Error::shape(
                None,
                format!("`{SERVERS_KEY}` is not a table; nothing was written"),
            )
        }),
    }
}

fn server_of(entry: &Item) -> Result<Server, Error> {
    let table = entry.as_table_like().ok_or_else(|| {
        Error::shape(
            None,
            format!("`{SERVERS_KEY}.{SERVER_NAME}` is not a table; nothing was written"),
        )
    })?;
    let command = table
        .get("command")
        .and_then(Item::as_str)
        .ok_or_else(|| {
            Error::shape(
                None,
                format!("`{SERVERS_KEY}.{SERVER_NAME}` has no `command` string"),
            )
        })?
        .to_owned();
    let args = table
        .get("args")
        .and_then(Item::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let env = table
        .get("env")
        .and_then(Item::as_table_like)
        .map(|t| {
            t.iter()
                .filter_map(|(k, v)| Some((k.to_owned(), v.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default();
    Ok(Server { command, args, env })
}

/// The server registered as `goldfish`, if any.
pub(crate) fn registration(text: &str) -> Result<Option<Server>, Error> {
    let doc = parse(text)?;
    match servers(&doc)?.and_then(|s| s.get(SERVER_NAME)) {
        Some(entry) => server_of(entry).map(Some),
        None => Ok(None),
    }
}

/// The server's environment as an inline table: `{ GOLDFISH_HOME = "…" }`.
fn env_table(server: &Server) -> InlineTable {
    server
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), Value::from(v.as_str())))
        .collect()
}

fn args_array(server: &Server) -> Array {
    server.args.iter().map(String::as_str).collect()
}

/// `text` with `server` registered as `goldfish` (unchanged if it already is). An existing
/// entry keeps its other keys (`env`, timeouts); only `command` and `args` are set.
pub(crate) fn register(text: &str, server: &Server) -> Result<String, Error> {
    let mut doc = parse(text)?;
    let existing = servers(&doc)?.and_then(|s| s.get(SERVER_NAME));
    // An entry without a usable command is replaced, not refused: setup owns it.
    if let Some(entry) = existing
        && server_of(entry).is_ok_and(|r| server.is_satisfied_by(&r))
    {
        return Ok(text.to_owned());
    }
    let root = doc.as_table_mut();
    if !root.contains_key(SERVERS_KEY) {
        // Implicit: the file gets `[mcp_servers.goldfish]`, not an empty `[mcp_servers]`.
        let mut table = Table::new();
        table.set_implicit(true);
        root.insert(SERVERS_KEY, Item::Table(table));
    }
    let servers = root
        .get_mut(SERVERS_KEY)
        .and_then(Item::as_table_like_mut)
        .expect("mcp_servers was checked or inserted as a table above");
    match servers
        .get_mut(SERVER_NAME)
        .and_then(Item::as_table_like_mut)
    {
        Some(entry) => {
            entry.insert("command", toml_edit::value(server.command.as_str()));
            entry.insert("args", toml_edit::value(args_array(server)));
            match entry.get_mut("env").and_then(Item::as_table_like_mut) {
                Some(env) => {
                    for (k, v) in &server.env {
                        env.insert(k, toml_edit::value(v.as_str()));
                    }
                }
                None if !server.env.is_empty() => {
                    entry.insert("env", toml_edit::value(env_table(server)));
                }
                None => {}
            }
        }
        None => {
            let is_inline = servers.is_dotted() || servers_is_inline(&doc);
            let servers = doc
                .as_table_mut()
                .get_mut(SERVERS_KEY)
                .and_then(Item::as_table_like_mut)
                .expect("mcp_servers is a table");
            if is_inline {
                let mut entry = InlineTable::new();
                entry.insert("command", Value::from(server.command.as_str()));
                entry.insert("args", Value::Array(args_array(server)));
                if !server.env.is_empty() {
                    entry.insert("env", Value::InlineTable(env_table(server)));
                }
                servers.insert(SERVER_NAME, Item::Value(Value::InlineTable(entry)));
            } else {
                let mut entry = Table::new();
                entry.insert("command", toml_edit::value(server.command.as_str()));
                entry.insert("args", toml_edit::value(args_array(server)));
                if !server.env.is_empty() {
                    entry.insert("env", toml_edit::value(env_table(server)));
                }
                if !text.trim().is_empty() {
                    // A blank line before the new table, as people write them; removing the
                    // table removes it again.
                    entry.decor_mut().set_prefix("\n");
                }
                servers.insert(SERVER_NAME, Item::Table(entry));
            }
        }
    }
    Ok(doc.to_string())
}

fn servers_is_inline(doc: &DocumentMut) -> bool {
    matches!(doc.get(SERVERS_KEY), Some(Item::Value(_)))
}

/// `text` without the `goldfish` server (unchanged if there is none). An `mcp_servers` that
/// setup created implicitly and that is now empty goes too.
pub(crate) fn unregister(text: &str) -> Result<String, Error> {
    let mut doc = parse(text)?;
    if servers(&doc)?.and_then(|s| s.get(SERVER_NAME)).is_none() {
        return Ok(text.to_owned());
    }
    let root = doc.as_table_mut();
    let mut now_empty_implicit = false;
    if let Some(item) = root.get_mut(SERVERS_KEY)
        && let Some(servers) = item.as_table_like_mut()
    {
        servers.remove(SERVER_NAME);
        now_empty_implicit = servers.is_empty()
            && item
                .as_table()
                .is_some_and(|t| t.is_implicit() || t.is_empty() && t.position().is_none());
    }
    if now_empty_implicit {
        root.remove(SERVERS_KEY);
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_and_round_trip() -> Result<(), Error> {
        let table = [
            "",
            "model = \"o3\"\n",
            "# my settings\nmodel = \"o3\" # the best\n\n[mcp_servers.other]\ncommand = \"x\" # keep\nargs = [\"a\"]\n\n[profiles.fast]\nmodel = \"mini\"\n",
            "[mcp_servers]\nother = { command = \"x\" }\n",
            "mcp_servers = { other = { command = \"x\" } }\n",
            "model = \"o3\"",
        ];
        for original in table {
            let added = register(original, &Server::default())?;
            assert_eq!(
                registration(&added)?,
                Some(Server::default()),
                "{original:?} -> {added}"
            );
            assert_eq!(register(&added, &Server::default())?, added, "{original:?}");
            let removed = unregister(&added)?;
            assert_eq!(
                removed.trim_end(),
                original.trim_end(),
                "{original:?} -> {added}"
            );
            assert_eq!(registration(&removed)?, None);
        }
        Ok(())
    }

    #[test]
    fn the_servers_environment_is_recorded_and_merged() -> Result<(), Error> {
        let mut server = Server::default();
        server.env.insert("GOLDFISH_HOME".into(), "/data/gf".into());
        let before = "model = \"o3\"\n";
        let out = register(before, &server)?;
        assert!(
            out.contains("env = { GOLDFISH_HOME = \"/data/gf\" }"),
            "{out}"
        );
        assert_eq!(registration(&out)?, Some(server.clone()));
        assert_eq!(register(&out, &server)?, out, "idempotent");
        assert_eq!(unregister(&out)?, before);
        // An entry with its own env keeps its other variables.
        let text = "[mcp_servers.goldfish]\ncommand = \"goldfish\"\nargs = [\"mcp\"]\nenv = { A = \"1\" }\n";
        let out = register(text, &server)?;
        let got = registration(&out)?.expect("registered");
        assert_eq!(got.env.get("A").map(String::as_str), Some("1"));
        assert_eq!(got.goldfish_home(), Some("/data/gf"));
        Ok(())
    }

    #[test]
    fn update_keeps_other_keys() -> Result<(), Error> {
        let text = "[mcp_servers.goldfish]\ncommand = \"old\"\nenv = { A = \"1\" } # mine\n";
        let out = register(text, &Server::default())?;
        assert!(out.contains("env = { A = \"1\" } # mine"), "{out}");
        let got = registration(&out)?.expect("registered");
        assert!(Server::default().is_satisfied_by(&got), "{got:?}");
        assert_eq!(got.env.get("A").map(String::as_str), Some("1"));
        Ok(())
    }

    #[test]
    fn a_broken_entry_is_replaced() -> Result<(), Error> {
        for text in [
            "[mcp_servers]\ngoldfish = 3\n",
            "[mcp_servers.goldfish]\nargs = 1\n",
        ] {
            let out = register(text, &Server::default())?;
            assert_eq!(
                registration(&out)?,
                Some(Server::default()),
                "{text} -> {out}"
            );
        }
        Ok(())
    }

    #[test]
    fn malformed_names_the_line() {
        let err = register("a = 1\n\nb = [\n", &Server::default());
        assert!(
            matches!(&err, Err(e) if e.is_malformed() && e.line().is_some_and(|l| l >= 3)),
            "{err:?}"
        );
        let err = register("mcp_servers = 3\n", &Server::default());
        assert!(err.is_err());
    }
}
