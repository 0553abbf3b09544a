//! The JSON a client writes on a hook's stdin, read the same way for every client: Claude
//! Code and Codex (`session_id`, `cwd`, `prompt`, `tool_name`, `tool_input`, `source`,
//! `trigger`) and Cursor (`conversation_id`, `workspace_roots`, `prompt`, `file_path`).

use std::path::PathBuf;

use serde_json::Value;

/// A hook's input: what goldfish needs of it, whichever client sent it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HookInput {
    /// The session: `session_id` (Claude Code, Codex) or `conversation_id` (Cursor).
    pub session: Option<String>,
    /// The directory the agent works in: `cwd`, else Cursor's first `workspace_roots`.
    pub cwd: Option<PathBuf>,
    /// The prompt the user submitted (`prompt`).
    pub prompt: Option<String>,
    /// The files a tool read or changed: `tool_input.file_path` / `path` /
    /// `notebook_path` (Claude Code's Read, Edit, Write, MultiEdit), Cursor's `file_path`,
    /// and the files named by an `apply_patch` patch (Codex: `*** Update File: …`).
    pub files: Vec<String>,
    /// `source` of a session start (`startup`, `resume`, `clear`, `compact`).
    pub source: Option<String>,
}

/// The hook input could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the hook input on stdin is not a JSON object ({0})")]
pub struct InputError(String);

impl HookInput {
    /// Reads a hook's stdin. Empty input is an empty [`HookInput`] (a hook run by hand);
    /// anything else must be a JSON object. Unknown fields are ignored.
    pub fn parse(text: &str) -> Result<HookInput, InputError> {
        if text.trim().is_empty() {
            return Ok(HookInput::default());
        }
        let value: Value = serde_json::from_str(text).map_err(|e| InputError(e.to_string()))?;
        let Some(obj) = value.as_object() else {
            return Err(InputError("not an object".into()));
        };
        let string = |key: &str| {
            obj.get(key)
                .and_then(Value::as_str)
                .map(str::to_string)
                .filter(|s| !s.trim().is_empty())
        };
        let mut files = Vec::new();
        let mut add = |f: &str| {
            let f = f.trim();
            if !f.is_empty() && !files.iter().any(|x| x == f) {
                files.push(f.to_string());
            }
        };
        if let Some(f) = obj.get("file_path").and_then(Value::as_str) {
            add(f);
        }
        if let Some(input) = obj.get("tool_input") {
            for key in ["file_path", "path", "notebook_path"] {
                if let Some(f) = input.get(key).and_then(Value::as_str) {
                    add(f);
                }
            }
            // Codex's apply_patch: the patch text, as `input`, `patch` or a command's
            // argument; its file lines name what it changes.
            let mut texts = Vec::new();
            collect_strings(input, &mut texts);
            for t in texts {
                for line in t.lines() {
                    for marker in ["*** Update File: ", "*** Add File: ", "*** Delete File: "] {
                        if let Some(f) = line.trim_start().strip_prefix(marker) {
                            add(f);
                        }
                    }
                }
            }
        }
        Ok(HookInput {
            session: string("session_id").or_else(|| string("conversation_id")),
            cwd: string("cwd").map(PathBuf::from).or_else(|| {
                obj.get("workspace_roots")
                    .and_then(Value::as_array)
                    .and_then(|a| a.first())
                    .and_then(Value::as_str)
                    .map(PathBuf::from)
            }),
            prompt: string("prompt"),
            files,
            source: string("source"),
        })
    }
}

/// Every string inside `v` that holds a line break (a patch), depth first.
fn collect_strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) if s.contains('\n') => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_prompt_and_tool_inputs() {
        let prompt = HookInput::parse(
            r#"{"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/p","permission_mode":"default",
               "hook_event_name":"UserPromptSubmit","prompt":"why redis?"}"#,
        )
        .expect("parse");
        assert_eq!(prompt.session.as_deref(), Some("abc"));
        assert_eq!(prompt.cwd, Some(PathBuf::from("/p")));
        assert_eq!(prompt.prompt.as_deref(), Some("why redis?"));
        let read = HookInput::parse(
            r#"{"session_id":"abc","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Read",
               "tool_input":{"file_path":"/p/src/a.rs"},"tool_response":{"file":{"content":"x\ny"}}}"#,
        )
        .expect("parse");
        assert_eq!(read.files, ["/p/src/a.rs"]);
    }

    #[test]
    fn codex_patches_and_cursor_shapes() {
        let patch = serde_json::json!({
            "session_id": "c1", "cwd": "/p", "tool_name": "apply_patch",
            "tool_input": {"command": ["apply_patch", "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: src/b.rs\n+z\n*** End Patch\n"]}
        });
        let input = HookInput::parse(&patch.to_string()).expect("parse");
        assert_eq!(input.files, ["src/a.rs", "src/b.rs"]);
        let cursor = HookInput::parse(
            r#"{"conversation_id":"k","generation_id":"g","hook_event_name":"afterFileEdit",
               "workspace_roots":["/w"],"file_path":"/w/x.rs","edits":[]}"#,
        )
        .expect("parse");
        assert_eq!(cursor.session.as_deref(), Some("k"));
        assert_eq!(cursor.cwd, Some(PathBuf::from("/w")));
        assert_eq!(cursor.files, ["/w/x.rs"]);
    }

    #[test]
    fn empty_is_nothing_and_garbage_is_an_error() {
        assert_eq!(
            HookInput::parse(" \n").expect("parse"),
            HookInput::default()
        );
        assert!(HookInput::parse("[1]").is_err());
        assert!(HookInput::parse("{not json").is_err());
    }
}
