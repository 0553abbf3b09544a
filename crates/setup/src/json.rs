//! JSON configs (Claude Code, Cursor): the `goldfish` entry of the top-level `mcpServers`
//! object, edited by splicing the text.
//!
//! The file is first checked with `serde_json` (a syntax error is reported with its line);
//! then a small scanner finds the byte ranges of the members setup touches, and only those
//! bytes change. Every other entry, the key order, the indentation and the line endings stay
//! exactly as they were. A new entry goes after the last member, indented like it, so removing
//! it again gives back the original bytes.

use serde_json::Value;

use crate::error::Error;
use crate::server::{SERVER_NAME, Server};

pub(crate) mod allow;

/// The object that holds MCP servers in both clients' files.
const SERVERS_KEY: &str = "mcpServers";

/// How messages name the `mcpServers` object.
const SERVERS_WHAT: &str = "\"mcpServers\"";

/// Indentation when the file gives no example to follow (two spaces, as both clients write).
const DEFAULT_UNIT: &str = "  ";

/// One `"key": value` member of an object, by byte range.
#[derive(Debug)]
struct Member {
    key: String,
    key_start: usize,
    value_start: usize,
    value_end: usize,
}

/// An object: the positions of its braces and its members in order.
#[derive(Debug)]
struct Object {
    open: usize,
    close: usize,
    members: Vec<Member>,
}

impl Object {
    fn get(&self, key: &str) -> Option<(usize, &Member)> {
        self.members.iter().enumerate().find(|(_, m)| m.key == key)
    }

    /// [`Object::get`] for a member setup edits: a key given twice is refused, naming the
    /// line of the second one. Clients read the last of duplicates while an edit would
    /// change the first, so setup would report success and the client would never see it.
    /// `what` names the object in the message (`the top level`, `"mcpServers"`).
    fn get_unique(
        &self,
        text: &str,
        key: &str,
        what: &str,
    ) -> Result<Option<(usize, &Member)>, Error> {
        let mut found = self
            .members
            .iter()
            .enumerate()
            .filter(|(_, m)| m.key == key);
        let first = found.next();
        if let (Some((_, one)), Some((_, two))) = (first, found.next()) {
            return Err(Error::shape(
                Some(line_of(text, two.key_start)),
                format!(
                    "\"{key}\" appears twice in {what} (lines {} and {}); clients read the last \
                     one, so setup would edit the wrong one: keep one and run setup again, \
                     nothing was written",
                    line_of(text, one.key_start),
                    line_of(text, two.key_start)
                ),
            ));
        }
        Ok(first)
    }
}

/// Checks the syntax and that the top level is an object; returns that object's scan.
/// `None` for a file that is empty or only whitespace.
fn parse(text: &str) -> Result<Option<Object>, Error> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        Error::malformed(
            e.line().max(1),
            format!("not valid JSON ({e}); fix the file or move it aside, nothing was written"),
        )
    })?;
    let start = skip_ws(text.as_bytes(), 0);
    if !value.is_object() {
        return Err(Error::shape(
            Some(line_of(text, start)),
            "the top level is not a JSON object; nothing was written",
        ));
    }
    Ok(Some(scan_object(text, start)))
}

/// The `mcpServers` member and the scan of its object, if present; an error if it is there
/// but not an object.
fn servers<'a>(text: &str, top: &'a Object) -> Result<Option<(&'a Member, Object)>, Error> {
    let Some((_, member)) = top.get_unique(text, SERVERS_KEY, "the top level")? else {
        return Ok(None);
    };
    if text.as_bytes()[member.value_start] != b'{' {
        return Err(Error::shape(
            Some(line_of(text, member.value_start)),
            format!("\"{SERVERS_KEY}\" is not an object; nothing was written"),
        ));
    }
    Ok(Some((member, scan_object(text, member.value_start))))
}

/// The server registered as `goldfish`, if any.
pub(crate) fn registration(text: &str) -> Result<Option<Server>, Error> {
    let Some(top) = parse(text)? else {
        return Ok(None);
    };
    let Some((_, servers)) = servers(text, &top)? else {
        return Ok(None);
    };
    let Some((_, entry)) = servers.get_unique(text, SERVER_NAME, SERVERS_WHAT)? else {
        return Ok(None);
    };
    let value: Value = serde_json::from_str(&text[entry.value_start..entry.value_end])
        .map_err(|e| Error::malformed(line_of(text, entry.value_start), e.to_string()))?;
    Ok(Some(Server::from_json(&value).ok_or_else(|| {
        Error::shape(
            Some(line_of(text, entry.value_start)),
            format!("the \"{SERVER_NAME}\" server has no \"command\" string"),
        )
    })?))
}

/// `text` with `server` registered as `goldfish` (unchanged if it already is).
pub(crate) fn register(text: &str, server: &Server) -> Result<String, Error> {
    let Some(top) = parse(text)? else {
        let entry = render_entry(server, &DEFAULT_UNIT.repeat(2), DEFAULT_UNIT);
        return Ok(format!(
            "{{\n{u}\"{SERVERS_KEY}\": {{\n{u}{u}\"{SERVER_NAME}\": {entry}\n{u}}}\n}}\n",
            u = DEFAULT_UNIT
        ));
    };
    let unit = indent_unit(text, &top);
    match servers(text, &top)? {
        Some((_, servers)) => match servers.get_unique(text, SERVER_NAME, SERVERS_WHAT)? {
            Some((_, entry)) => {
                // An entry without a usable command is replaced, not refused: setup owns it.
                if registration(text)
                    .ok()
                    .flatten()
                    .is_some_and(|r| server.is_satisfied_by(&r))
                {
                    return Ok(text.to_owned());
                }
                let indent = member_indent(text, &servers, &unit);
                if text.as_bytes()[entry.value_start] != b'{' {
                    let mut out = String::with_capacity(text.len() + 64);
                    out.push_str(&text[..entry.value_start]);
                    out.push_str(&render_entry(server, &indent, &unit));
                    out.push_str(&text[entry.value_end..]);
                    return Ok(out);
                }
                // Only `command` and `args` change; the entry's other keys (`env`, `type`)
                // stay as they are.
                let open = entry.value_start;
                let fields = scan_object(text, open);
                for key in ["command", "args"] {
                    fields.get_unique(text, key, &format!("the \"{SERVER_NAME}\" server"))?;
                }
                let command = serde_json::to_string(&server.command).expect("a string serialises");
                let text = set_member(text, open, "command", &command, &unit);
                let text = set_member(&text, open, "args", &render_args(server), &unit);
                Ok(set_env(&text, open, server, &unit))
            }
            None => {
                let indent = member_indent(text, &servers, &unit);
                let entry = render_entry(server, &indent, &unit);
                Ok(insert(text, &servers, SERVER_NAME, &entry, &indent))
            }
        },
        None => {
            let indent = member_indent(text, &top, &unit);
            let entry = render_entry(server, &format!("{indent}{unit}"), &unit);
            let servers = format!("{{\n{indent}{unit}\"{SERVER_NAME}\": {entry}\n{indent}}}");
            Ok(insert(text, &top, SERVERS_KEY, &servers, &indent))
        }
    }
}

/// `text` without the `goldfish` server (unchanged if there is none). An `mcpServers` left
/// empty is removed too, and a file left with nothing at all becomes the empty string.
pub(crate) fn unregister(text: &str) -> Result<String, Error> {
    let Some(top) = parse(text)? else {
        return Ok(text.to_owned());
    };
    let Some((servers_member, servers)) = servers(text, &top)? else {
        return Ok(text.to_owned());
    };
    let Some((index, _)) = servers.get_unique(text, SERVER_NAME, SERVERS_WHAT)? else {
        return Ok(text.to_owned());
    };
    if servers.members.len() > 1 {
        return Ok(remove_member(text, &servers, index));
    }
    // The server list is now empty: drop `mcpServers` itself.
    let (top_index, _) = top
        .members
        .iter()
        .enumerate()
        .find(|(_, m)| m.key_start == servers_member.key_start)
        .expect("the mcpServers member was found in this object");
    if top.members.len() > 1 {
        Ok(remove_member(text, &top, top_index))
    } else {
        Ok(String::new())
    }
}

/// Adds `"key": value` as the last member of `object`.
fn insert(text: &str, object: &Object, key: &str, value: &str, indent: &str) -> String {
    let mut out = String::with_capacity(text.len() + value.len() + 16);
    match object.members.last() {
        Some(last) => {
            out.push_str(&text[..last.value_end]);
            out.push_str(&format!(",\n{indent}\"{key}\": {value}"));
            out.push_str(&text[last.value_end..]);
        }
        None => {
            let outer = line_indent(text, object.open);
            out.push_str(&text[..=object.open]);
            out.push_str(&format!("\n{indent}\"{key}\": {value}\n{outer}"));
            out.push_str(&text[object.close..]);
        }
    }
    out
}

/// Removes member `index` of `object`, with the comma that joined it to its neighbour. The
/// exact inverse of [`insert`] for the last member; an only member leaves `{}`.
fn remove_member(text: &str, object: &Object, index: usize) -> String {
    let members = &object.members;
    let (from, to) = if members.len() == 1 {
        (object.open + 1, object.close)
    } else if index > 0 {
        (members[index - 1].value_end, members[index].value_end)
    } else {
        (members[0].key_start, members[1].key_start)
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..from]);
    out.push_str(&text[to..]);
    out
}

/// Sets member `key` of the object whose `{` is at `open` to `value`: in place when it
/// exists, else as a new last member.
fn set_member(text: &str, open: usize, key: &str, value: &str, unit: &str) -> String {
    let object = scan_object(text, open);
    match object.get(key) {
        Some((_, member)) => {
            let mut out = String::with_capacity(text.len() + value.len());
            out.push_str(&text[..member.value_start]);
            out.push_str(value);
            out.push_str(&text[member.value_end..]);
            out
        }
        None => {
            let indent = member_indent(text, &object, unit);
            insert(text, &object, key, value, &indent)
        }
    }
}

/// Sets each of `server.env` in the `env` object of the entry whose `{` is at `open`,
/// creating that object when missing (or replacing it when it is not an object).
fn set_env(text: &str, open: usize, server: &Server, unit: &str) -> String {
    if server.env.is_empty() {
        return text.to_owned();
    }
    let entry = scan_object(text, open);
    match entry.get("env") {
        Some((_, env)) if text.as_bytes()[env.value_start] == b'{' => {
            let env_open = env.value_start;
            let mut text = text.to_owned();
            for (key, value) in &server.env {
                let value = serde_json::to_string(value).expect("a string serialises");
                text = set_member(&text, env_open, key, &value, unit);
            }
            text
        }
        _ => {
            let indent = member_indent(text, &entry, unit);
            set_member(text, open, "env", &render_env(server, &indent, unit), unit)
        }
    }
}

/// The environment as an object on several lines, its members indented `indent` + `unit`.
fn render_env(server: &Server, indent: &str, unit: &str) -> String {
    let members: Vec<String> = server
        .env
        .iter()
        .map(|(k, v)| {
            let k = serde_json::to_string(k).expect("a string serialises");
            let v = serde_json::to_string(v).expect("a string serialises");
            format!("{indent}{unit}{k}: {v}")
        })
        .collect();
    format!("{{\n{}\n{indent}}}", members.join(",\n"))
}

/// The arguments as a one-line JSON list: `["mcp"]`.
fn render_args(server: &Server) -> String {
    let args = serde_json::to_string(&server.args).expect("a list of strings serialises");
    args.replace("\",\"", "\", \"")
}

/// The server's object, on several lines; its members are indented `indent` + `unit`.
fn render_entry(server: &Server, indent: &str, unit: &str) -> String {
    let command = serde_json::to_string(&server.command).expect("a string serialises");
    let args = render_args(server);
    let env = if server.env.is_empty() {
        String::new()
    } else {
        let inner = format!("{indent}{unit}");
        format!(",\n{inner}\"env\": {}", render_env(server, &inner, unit))
    };
    format!(
        "{{\n{indent}{unit}\"command\": {command},\n{indent}{unit}\"args\": {args}{env}\n{indent}}}"
    )
}

/// The indentation of the members of `object`: that of its first member written on a line
/// of its own, else the object's own line indentation plus one unit.
fn member_indent(text: &str, object: &Object, unit: &str) -> String {
    object
        .members
        .iter()
        .find_map(|m| own_line_indent(text, m.key_start))
        .unwrap_or_else(|| format!("{}{unit}", line_indent(text, object.open)))
}

/// One level of indentation in this file: the top level's member indentation, else two
/// spaces.
fn indent_unit(text: &str, top: &Object) -> String {
    top.members
        .iter()
        .find_map(|m| own_line_indent(text, m.key_start))
        .filter(|i| !i.is_empty())
        .unwrap_or_else(|| DEFAULT_UNIT.to_owned())
}

/// The whitespace that begins the line holding `pos`.
fn line_indent(text: &str, pos: usize) -> String {
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    text[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// The whitespace before `pos` when nothing else precedes it on its line.
fn own_line_indent(text: &str, pos: usize) -> Option<String> {
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[start..pos];
    before
        .chars()
        .all(|c| c == ' ' || c == '\t')
        .then(|| before.to_owned())
}

/// The 1-based line of byte `pos`.
fn line_of(text: &str, pos: usize) -> usize {
    1 + text.as_bytes()[..pos.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The end of the string starting at `i` (just past its closing quote).
fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The end of the value starting at `i`. Only called on text `serde_json` accepted.
fn skip_value(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => skip_string(b, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            b.len()
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            j
        }
    }
}

/// The members of the object whose `{` is at `open`. Only called on valid JSON.
fn scan_object(text: &str, open: usize) -> Object {
    let b = text.as_bytes();
    let mut members = Vec::new();
    let mut i = skip_ws(b, open + 1);
    while i < b.len() && b[i] != b'}' {
        let key_start = i;
        let key_end = skip_string(b, i);
        let key = serde_json::from_str::<String>(&text[key_start..key_end]).unwrap_or_default();
        i = skip_ws(b, key_end);
        i = skip_ws(b, i + 1); // the colon
        let value_start = i;
        let value_end = skip_value(b, i);
        members.push(Member {
            key,
            key_start,
            value_start,
            value_end,
        });
        i = skip_ws(b, value_end);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
    }
    Object {
        open,
        close: i.min(b.len().saturating_sub(1)),
        members,
    }
}

/// The JSON to paste into any client that reads the common `mcpServers` format (Claude
/// Desktop, Windsurf, VS Code's `servers` after renaming the key, and others):
///
/// ```json
/// {
///   "mcpServers": {
///     "goldfish": {
///       "command": "goldfish",
///       "args": ["mcp"]
///     }
///   }
/// }
/// ```
pub fn print_snippet(server: &Server) -> String {
    register("", server).expect("registering into an empty document cannot fail")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goldfish() -> Server {
        Server::default()
    }

    #[test]
    fn the_servers_environment_is_recorded_and_merged() -> Result<(), Error> {
        let mut server = goldfish();
        server.env.insert("GOLDFISH_HOME".into(), "/data/gf".into());
        let before = "{\n  \"theme\": \"dark\"\n}\n";
        let out = register(before, &server)?;
        assert!(
            out.contains("\"args\": [\"mcp\"],\n      \"env\": {\n        \"GOLDFISH_HOME\": \"/data/gf\"\n      }\n"),
            "{out}"
        );
        assert_eq!(registration(&out)?, Some(server.clone()));
        assert_eq!(register(&out, &server)?, out, "idempotent");
        assert_eq!(unregister(&out)?, before);
        // A registration without env gets it; one with its own env keeps its variables.
        let plain = register(before, &goldfish())?;
        let out = register(&plain, &server)?;
        assert_eq!(registration(&out)?, Some(server.clone()));
        let mine = "{\"mcpServers\": {\"goldfish\": {\"command\": \"goldfish\", \"args\": [\"mcp\"], \"env\": {\"A\": \"1\"}}}}";
        let out = register(mine, &server)?;
        let got = registration(&out)?.expect("registered");
        assert_eq!(got.env.get("A").map(String::as_str), Some("1"));
        assert_eq!(got.goldfish_home(), Some("/data/gf"));
        Ok(())
    }

    #[test]
    fn empty_file_gets_a_fresh_document() -> Result<(), Error> {
        let out = register("", &goldfish())?;
        assert_eq!(
            out,
            "{\n  \"mcpServers\": {\n    \"goldfish\": {\n      \"command\": \"goldfish\",\n      \"args\": [\"mcp\"]\n    }\n  }\n}\n"
        );
        assert_eq!(unregister(&out)?, "");
        Ok(())
    }

    #[test]
    fn insert_then_remove_is_the_identity() -> Result<(), Error> {
        let table = [
            "{\"a\":1}",
            "{\n  \"mcpServers\": {}\n}\n",
            "{\n    \"x\": [1, 2],\n    \"mcpServers\": {\n        \"other\": {\"command\": \"o\"}\n    },\n    \"y\": {\"z\": \"}\"}\n}\n",
            "{\r\n\t\"mcpServers\": {\r\n\t\t\"other\": {}\r\n\t}\r\n}",
            "{ \"mcpServers\" : { \"a\" : 1 , \"b\" : \"\\\"}\" } }",
        ];
        for original in table {
            let added = register(original, &goldfish())?;
            assert_eq!(registration(&added)?, Some(goldfish()), "{original}");
            serde_json::from_str::<Value>(&added)
                .map_err(|e| Error::malformed(1, e.to_string()))?;
            assert_eq!(
                register(&added, &goldfish())?,
                added,
                "idempotent: {original}"
            );
            let removed = unregister(&added)?;
            if original.contains("mcpServers") && !original.contains("{}") {
                assert_eq!(removed, original);
            }
            assert_eq!(registration(&removed)?, None);
        }
        Ok(())
    }

    #[test]
    fn removes_a_first_or_middle_member() -> Result<(), Error> {
        let text = "{\"mcpServers\": {\"goldfish\": {\"command\": \"g\"}, \"b\": {}}}";
        assert_eq!(unregister(text)?, "{\"mcpServers\": {\"b\": {}}}");
        let text = "{\"mcpServers\": {\"a\": {}, \"goldfish\": {\"command\": \"g\"}, \"b\": {}}}";
        assert_eq!(
            unregister(text)?,
            "{\"mcpServers\": {\"a\": {}, \"b\": {}}}"
        );
        Ok(())
    }

    #[test]
    fn refuses_bad_input_with_its_line() {
        let table = [
            ("{\n  \"a\": 1,\n  \"b\": \n}", 4),
            ("[1, 2]", 1),
            ("{\n\n  \"mcpServers\": [1]\n}", 3),
        ];
        for (text, line) in table {
            let err = register(text, &Server::default());
            assert!(
                matches!(&err, Err(e) if e.line() == Some(line)),
                "{text}: {err:?}"
            );
        }
    }

    #[test]
    fn duplicates_on_the_edited_path_are_refused_with_the_second_line() {
        let table = [
            ("{\"mcpServers\": {},\n\"mcpServers\": {}}", 2),
            (
                "{\"mcpServers\": {\n\"goldfish\": {},\n\n\"goldfish\": {}}}",
                4,
            ),
        ];
        for (text, line) in table {
            for result in [
                register(text, &goldfish()).map(|_| ()),
                unregister(text).map(|_| ()),
                registration(text).map(|_| ()),
            ] {
                assert!(
                    matches!(&result, Err(e) if e.line() == Some(line) && e.to_string().contains("appears twice")),
                    "{text}: {result:?}"
                );
            }
        }
    }

    #[test]
    fn a_different_command_is_replaced_in_place() -> Result<(), Error> {
        let table = [
            (
                "{\"mcpServers\": {\"goldfish\": {\"command\": \"old\", \"env\": {\"A\": \"1\"}}, \"z\": 1}}",
                "{\"mcpServers\": {\"goldfish\": {\"command\": \"goldfish\", \"env\": {\"A\": \"1\"},\n  \"args\": [\"mcp\"]}, \"z\": 1}}",
            ),
            (
                "{\n  \"mcpServers\": {\n    \"goldfish\": {\n      \"type\": \"stdio\",\n      \"command\": \"/old\",\n      \"args\": []\n    }\n  }\n}\n",
                "{\n  \"mcpServers\": {\n    \"goldfish\": {\n      \"type\": \"stdio\",\n      \"command\": \"goldfish\",\n      \"args\": [\"mcp\"]\n    }\n  }\n}\n",
            ),
            (
                "{\"mcpServers\": {\"goldfish\": \"broken\"}}",
                "{\"mcpServers\": {\"goldfish\": {\n    \"command\": \"goldfish\",\n    \"args\": [\"mcp\"]\n  }}}",
            ),
        ];
        for (text, want) in table {
            let out = register(text, &Server::default())?;
            assert_eq!(out, want);
            let got = registration(&out)?.expect("registered");
            assert!(Server::default().is_satisfied_by(&got), "{got:?}");
        }
        Ok(())
    }
}
