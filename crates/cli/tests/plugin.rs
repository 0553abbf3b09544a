//! The plugin package (`plugin/` and the marketplace catalogs at the repository root) checked
//! against the fields each client documents: Claude Code (`.claude-plugin/`), Codex
//! (`.codex-plugin/`, `.agents/plugins/`) and Cursor (`.cursor-plugin/`).
//!
//! Every check is a function that returns the problems it found, so the tests can also show
//! that a broken manifest is caught.

use std::collections::BTreeSet;
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value};

type Result<T = ()> = std::result::Result<T, Box<dyn Error>>;

/// The version every manifest must carry: the crates'.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The skills the plugin ships.
const SKILLS: [&str; 5] = ["checkpoint", "handoff", "plan-status", "recall", "standup"];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn plugin_dir() -> PathBuf {
    repo().join("plugin")
}

fn read_json(path: &Path) -> Result<Value> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// Collects problems with a path-like prefix, so a failure names the file and the field.
#[derive(Default)]
struct Problems(Vec<String>);

impl Problems {
    fn add(&mut self, what: impl Into<String>) {
        self.0.push(what.into());
    }

    fn into_result(self, file: &str) -> Result {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(format!("{file}:\n  {}", self.0.join("\n  ")).into())
        }
    }
}

fn object<'a>(value: &'a Value, field: &str, p: &mut Problems) -> Option<&'a Map<String, Value>> {
    let o = value.as_object();
    if o.is_none() {
        p.add(format!("{field}: must be an object"));
    }
    o
}

fn string<'a>(
    o: &'a Map<String, Value>,
    key: &str,
    required: bool,
    p: &mut Problems,
) -> Option<&'a str> {
    match o.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s),
        Some(_) => {
            p.add(format!("{key}: must be a non-empty string"));
            None
        }
        None => {
            if required {
                p.add(format!("{key}: required"));
            }
            None
        }
    }
}

fn strings(o: &Map<String, Value>, key: &str, p: &mut Problems) -> Vec<String> {
    match o.get(key) {
        None => Vec::new(),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        Some(_) => {
            p.add(format!("{key}: must be an array of strings"));
            Vec::new()
        }
    }
}

fn only_keys(o: &Map<String, Value>, allowed: &[&str], what: &str, p: &mut Problems) {
    for key in o.keys() {
        if !allowed.contains(&key.as_str()) {
            p.add(format!(
                "{what}: unknown key {key:?} (documented: {})",
                allowed.join(", ")
            ));
        }
    }
}

/// Claude Code's plugin names (and Codex's): lowercase letters, digits and single hyphens,
/// starting with a letter.
fn is_kebab(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && !name.ends_with('-')
        && !name.contains("--")
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// A component path: relative, starting with `./`, inside the plugin, and existing.
fn component_path(root: &Path, key: &str, value: &str, p: &mut Problems) {
    if !value.starts_with("./") {
        p.add(format!(
            "{key}: {value:?} must start with ./ (relative to the plugin root)"
        ));
    } else if value.split('/').any(|part| part == "..") {
        p.add(format!("{key}: {value:?} leaves the plugin directory"));
    } else if !root.join(value).exists() {
        p.add(format!(
            "{key}: {value:?} does not exist in {}",
            root.display()
        ));
    }
}

fn common_metadata(m: &Map<String, Value>, p: &mut Problems) {
    match string(m, "name", true, p) {
        Some(name) if !is_kebab(name) => p.add(format!("name: {name:?} is not kebab-case")),
        _ => {}
    }
    if string(m, "version", true, p).is_some_and(|v| v != VERSION) {
        p.add(format!("version: must equal the crate version {VERSION}"));
    }
    string(m, "description", true, p);
    string(m, "license", true, p);
    if let Some(repository) = string(m, "repository", true, p)
        && !repository.starts_with("https://")
    {
        p.add("repository: must be an https URL");
    }
    if strings(m, "keywords", p).is_empty() {
        p.add("keywords: required, at least one");
    }
    match m.get("author") {
        Some(author) => {
            if let Some(a) = object(author, "author", p) {
                string(a, "name", true, p);
            }
        }
        None => p.add("author: required"),
    }
}

/// `.claude-plugin/plugin.json`, with the components at their default places.
fn check_claude_manifest(root: &Path, manifest: &Value) -> Problems {
    let mut p = Problems::default();
    let Some(m) = object(manifest, "manifest", &mut p) else {
        return p;
    };
    only_keys(
        m,
        &[
            "$schema",
            "name",
            "version",
            "description",
            "author",
            "homepage",
            "repository",
            "license",
            "keywords",
            "commands",
            "agents",
            "skills",
            "hooks",
            "mcpServers",
            "outputStyles",
            "lspServers",
            "userConfig",
            "channels",
            "dependencies",
        ],
        "manifest",
        &mut p,
    );
    common_metadata(m, &mut p);
    for key in [
        "commands",
        "agents",
        "skills",
        "hooks",
        "mcpServers",
        "outputStyles",
    ] {
        match m.get(key) {
            Some(Value::String(path)) => component_path(root, key, path, &mut p),
            Some(Value::Array(paths)) => {
                for path in paths {
                    match path.as_str() {
                        Some(path) => component_path(root, key, path, &mut p),
                        None if key == "mcpServers" || key == "hooks" => {}
                        None => p.add(format!("{key}: entries must be paths")),
                    }
                }
            }
            _ => {}
        }
    }
    // Declaring the default hooks file again makes Claude Code load it twice; leave it to
    // discovery.
    if m.get("hooks").and_then(Value::as_str) == Some("./hooks/hooks.json") {
        p.add("hooks: ./hooks/hooks.json is loaded by default; declaring it duplicates the hooks");
    }
    for default in ["skills", "hooks/hooks.json", ".mcp.json"] {
        if !m.contains_key(default.split('/').next().unwrap_or(default))
            && !root.join(default).exists()
        {
            p.add(format!("{default}: the default component is missing"));
        }
    }
    p
}

/// `.codex-plugin/plugin.json`.
fn check_codex_manifest(root: &Path, manifest: &Value) -> Problems {
    let mut p = Problems::default();
    let Some(m) = object(manifest, "manifest", &mut p) else {
        return p;
    };
    only_keys(
        m,
        &[
            "name",
            "version",
            "description",
            "author",
            "homepage",
            "repository",
            "license",
            "keywords",
            "skills",
            "mcpServers",
            "apps",
            "hooks",
            "interface",
        ],
        "manifest",
        &mut p,
    );
    common_metadata(m, &mut p);
    for key in ["skills", "mcpServers", "apps", "hooks"] {
        if let Some(path) = string(m, key, false, &mut p) {
            component_path(root, key, path, &mut p);
        }
    }
    match m.get("interface") {
        Some(interface) => {
            if let Some(i) = object(interface, "interface", &mut p) {
                for key in [
                    "displayName",
                    "shortDescription",
                    "developerName",
                    "category",
                ] {
                    string(i, key, true, &mut p);
                }
                for capability in strings(i, "capabilities", &mut p) {
                    if !["Interactive", "Read", "Write"].contains(&capability.as_str()) {
                        p.add(format!("interface.capabilities: unknown {capability:?}"));
                    }
                }
                strings(i, "defaultPrompt", &mut p);
            }
        }
        None => p.add("interface: required for the plugin directory"),
    }
    p
}

/// `.cursor-plugin/plugin.json` (Cursor's published schema does not allow other keys).
fn check_cursor_manifest(root: &Path, manifest: &Value) -> Problems {
    let mut p = Problems::default();
    let Some(m) = object(manifest, "manifest", &mut p) else {
        return p;
    };
    only_keys(
        m,
        &[
            "name",
            "displayName",
            "description",
            "version",
            "minClientVersions",
            "author",
            "publisher",
            "homepage",
            "repository",
            "license",
            "logo",
            "keywords",
            "category",
            "tags",
            "commands",
            "agents",
            "skills",
            "rules",
            "hooks",
            "variables",
            "mcpServers",
        ],
        "manifest",
        &mut p,
    );
    common_metadata(m, &mut p);
    if let Some(author) = m.get("author").and_then(Value::as_object) {
        only_keys(author, &["name", "email"], "author", &mut p);
    }
    for key in [
        "commands",
        "agents",
        "skills",
        "rules",
        "hooks",
        "mcpServers",
    ] {
        if let Some(path) = m.get(key).and_then(Value::as_str) {
            component_path(root, key, path, &mut p);
        }
    }
    p
}

/// The server every client starts: `goldfish mcp`.
fn check_mcp(servers: &Value) -> Problems {
    let mut p = Problems::default();
    let goldfish = servers.pointer("/mcpServers/goldfish");
    match goldfish.and_then(Value::as_object) {
        Some(g) => {
            if g.get("command").and_then(Value::as_str) != Some("goldfish") {
                p.add("mcpServers.goldfish.command: must be \"goldfish\"");
            }
            if g.get("args") != Some(&serde_json::json!(["mcp"])) {
                p.add("mcpServers.goldfish.args: must be [\"mcp\"]");
            }
        }
        None => p.add("mcpServers.goldfish: required object"),
    }
    p
}

/// Claude Code's and Codex's hooks file: `{"hooks": {Event: [{matcher, hooks: [...]}]}}`.
fn check_command_hooks(hooks: &Value, client: &str) -> Problems {
    const EVENTS: [&str; 12] = [
        "SessionStart",
        "SessionEnd",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PermissionRequest",
        "Notification",
        "Stop",
        "SubagentStop",
        "PreCompact",
        "PostCompact",
        "Setup",
    ];
    const SOURCES: [&str; 4] = ["startup", "resume", "clear", "compact"];
    let mut p = Problems::default();
    let Some(file) = object(hooks, "file", &mut p) else {
        return p;
    };
    only_keys(file, &["description", "hooks"], "file", &mut p);
    let Some(events) = file.get("hooks").and_then(Value::as_object) else {
        p.add("hooks: required object of events");
        return p;
    };
    for (event, groups) in events {
        if !EVENTS.contains(&event.as_str()) {
            p.add(format!("hooks.{event}: not a hook event"));
        }
        let Some(groups) = groups.as_array() else {
            p.add(format!("hooks.{event}: must be an array"));
            continue;
        };
        for group in groups {
            let Some(g) = object(group, event, &mut p) else {
                continue;
            };
            only_keys(g, &["matcher", "hooks"], event, &mut p);
            if event == "SessionStart" {
                let matcher = string(g, "matcher", true, &mut p).unwrap_or_default();
                let sources: BTreeSet<&str> = matcher.split('|').collect();
                for source in &sources {
                    if !SOURCES.contains(source) {
                        p.add(format!(
                            "SessionStart matcher: {source:?} is not a session source"
                        ));
                    }
                }
                for wanted in ["startup", "clear", "compact"] {
                    if !sources.contains(wanted) {
                        p.add(format!("SessionStart matcher: must include {wanted}"));
                    }
                }
            }
            for hook in g
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(h) = object(hook, "hook", &mut p) else {
                    continue;
                };
                if h.get("type").and_then(Value::as_str) != Some("command") {
                    p.add(format!("{event}: hook type must be \"command\""));
                }
                let want = format!("goldfish hook {} --client {client}", hook_of(event));
                if string(h, "command", true, &mut p).is_some_and(|c| c != want) {
                    p.add(format!("{event}: command must be {want:?}"));
                }
                if h.get("timeout")
                    .is_some_and(|t| t.as_u64().is_none_or(|t| t == 0))
                {
                    p.add(format!(
                        "{event}: timeout must be a positive number of seconds"
                    ));
                }
            }
        }
    }
    for required in [
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "PreCompact",
    ] {
        if !events.contains_key(required) {
            p.add(format!("hooks.{required}: required"));
        }
    }
    // The file hook runs after the tools that read or change a file.
    let tools = if client == "claude" {
        &["Read", "Edit", "Write", "MultiEdit"][..]
    } else {
        &["apply_patch"][..]
    };
    for group in events
        .get("PostToolUse")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let matcher = group
            .get("matcher")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let names: BTreeSet<&str> = matcher.split('|').collect();
        for tool in tools {
            if !names.contains(tool) {
                p.add(format!("PostToolUse matcher: must include {tool}"));
            }
        }
    }
    p
}

/// The `goldfish hook` subcommand that serves a hook event (either client's spelling).
fn hook_of(event: &str) -> &'static str {
    match event {
        "UserPromptSubmit" | "beforeSubmitPrompt" => "prompt",
        "PostToolUse" | "afterFileEdit" => "file",
        "PreCompact" | "preCompact" => "pre-compact",
        _ => "session-start",
    }
}

/// Cursor's hooks file: `{"version": 1, "hooks": {event: [{command}]}}`.
fn check_cursor_hooks(hooks: &Value) -> Problems {
    const EVENTS: [&str; 14] = [
        "sessionStart",
        "sessionEnd",
        "beforeSubmitPrompt",
        "beforeShellExecution",
        "afterShellExecution",
        "beforeMCPExecution",
        "afterMCPExecution",
        "beforeReadFile",
        "afterFileEdit",
        "afterAgentResponse",
        "afterAgentThought",
        "stop",
        "preCompact",
        "subagentStop",
    ];
    let mut p = Problems::default();
    let Some(file) = object(hooks, "file", &mut p) else {
        return p;
    };
    only_keys(file, &["version", "hooks"], "file", &mut p);
    if file.get("version") != Some(&serde_json::json!(1)) {
        p.add("version: must be 1");
    }
    let Some(events) = file.get("hooks").and_then(Value::as_object) else {
        p.add("hooks: required object of events");
        return p;
    };
    for (event, entries) in events {
        if !EVENTS.contains(&event.as_str()) {
            p.add(format!("hooks.{event}: not a Cursor hook event"));
        }
        for entry in entries.as_array().into_iter().flatten() {
            let Some(e) = object(entry, event, &mut p) else {
                continue;
            };
            only_keys(
                e,
                &["command", "timeout", "matcher", "type", "loop_limit"],
                event,
                &mut p,
            );
            let want = format!("goldfish hook {} --client cursor", hook_of(event));
            if string(e, "command", true, &mut p).is_some_and(|c| c != want) {
                p.add(format!("{event}: command must be {want:?}"));
            }
        }
    }
    for required in [
        "sessionStart",
        "beforeSubmitPrompt",
        "afterFileEdit",
        "preCompact",
    ] {
        if !events.contains_key(required) {
            p.add(format!("hooks.{required}: required"));
        }
    }
    p
}

/// `skills/<name>/SKILL.md`: YAML frontmatter with `name` equal to the directory, a
/// description saying when to use it, an optional argument hint; a body that says how.
fn check_skill(dir_name: &str, text: &str) -> Problems {
    let mut p = Problems::default();
    let Some(rest) = text.strip_prefix("---\n") else {
        p.add("must start with YAML frontmatter (---)");
        return p;
    };
    let Some((yaml, body)) = rest.split_once("\n---\n") else {
        p.add("frontmatter is not closed by ---");
        return p;
    };
    let front: Value = match serde_saphyr::from_str(yaml) {
        Ok(v) => v,
        Err(e) => {
            p.add(format!("frontmatter: {e}"));
            return p;
        }
    };
    let Some(f) = object(&front, "frontmatter", &mut p) else {
        return p;
    };
    only_keys(
        f,
        &[
            "name",
            "description",
            "argument-hint",
            "allowed-tools",
            "model",
            "disable-model-invocation",
            "user-invocable",
            "license",
            "metadata",
        ],
        "frontmatter",
        &mut p,
    );
    match string(f, "name", true, &mut p) {
        Some(name) if name != dir_name => p.add(format!(
            "name: {name:?} must equal the directory {dir_name:?}"
        )),
        Some(name) if !is_kebab(name) || name.len() > 64 => p.add(format!(
            "name: {name:?} must be kebab-case, at most 64 characters"
        )),
        _ => {}
    }
    if let Some(description) = string(f, "description", true, &mut p) {
        if description.len() > 1024 {
            p.add("description: at most 1024 characters");
        }
        if !description.contains("Use ") {
            p.add("description: must say when to use the skill (\"Use when …\")");
        }
    }
    string(f, "argument-hint", false, &mut p);
    let calls_goldfish = ["checkpoint(", "recall(", "plan(", "`goldfish "]
        .iter()
        .any(|call| body.contains(call));
    if !calls_goldfish {
        p.add("body: must say how, with the goldfish MCP tools or CLI");
    }
    p
}

/// The `goldfish …` commands a skill tells agents to run, as (subcommand, sub-subcommand).
fn cli_commands(body: &str) -> BTreeSet<Vec<String>> {
    let mut found = BTreeSet::new();
    for line in body.lines() {
        for chunk in line.split('`') {
            let mut words = chunk.split_whitespace();
            if words.next() != Some("goldfish") {
                continue;
            }
            let words: Vec<String> = words
                .take_while(|w| {
                    w.starts_with(|c: char| c.is_ascii_lowercase())
                        && w.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                })
                .take(2)
                .map(str::to_owned)
                .collect();
            if !words.is_empty() {
                found.insert(words);
            }
        }
    }
    found
}

#[test]
fn claude_plugin_manifest() -> Result {
    let root = plugin_dir();
    let manifest = read_json(&root.join(".claude-plugin/plugin.json"))?;
    check_claude_manifest(&root, &manifest).into_result(".claude-plugin/plugin.json")
}

#[test]
fn codex_plugin_manifest() -> Result {
    let root = plugin_dir();
    let manifest = read_json(&root.join(".codex-plugin/plugin.json"))?;
    check_codex_manifest(&root, &manifest).into_result(".codex-plugin/plugin.json")
}

#[test]
fn cursor_plugin_manifest() -> Result {
    let root = plugin_dir();
    let manifest = read_json(&root.join(".cursor-plugin/plugin.json"))?;
    check_cursor_manifest(&root, &manifest).into_result(".cursor-plugin/plugin.json")
}

/// Each client gets the same server, from the file its manifest names (Claude Code: the
/// default `.mcp.json`).
#[test]
fn every_manifest_starts_goldfish_mcp() -> Result {
    let root = plugin_dir();
    check_mcp(&read_json(&root.join(".mcp.json"))?).into_result("plugin/.mcp.json")?;
    for manifest in [".codex-plugin/plugin.json", ".cursor-plugin/plugin.json"] {
        let m = read_json(&root.join(manifest))?;
        let path = m["mcpServers"]
            .as_str()
            .ok_or(format!("{manifest}: mcpServers is not a path"))?;
        check_mcp(&read_json(&root.join(path))?).into_result(manifest)?;
    }
    Ok(())
}

#[test]
fn session_start_hooks() -> Result {
    let root = plugin_dir();
    check_command_hooks(&read_json(&root.join("hooks/hooks.json"))?, "claude")
        .into_result("plugin/hooks/hooks.json")?;
    let codex = read_json(&root.join(".codex-plugin/plugin.json"))?;
    let codex_hooks = codex["hooks"]
        .as_str()
        .ok_or("codex manifest: hooks is not a path")?;
    check_command_hooks(&read_json(&root.join(codex_hooks))?, "codex").into_result(codex_hooks)?;
    let cursor = read_json(&root.join(".cursor-plugin/plugin.json"))?;
    let cursor_hooks = cursor["hooks"]
        .as_str()
        .ok_or("cursor manifest: hooks is not a path")?;
    check_cursor_hooks(&read_json(&root.join(cursor_hooks))?).into_result(cursor_hooks)
}

#[test]
fn skills() -> Result {
    let dir = plugin_dir().join("skills");
    let mut names = BTreeSet::new();
    for entry in fs::read_dir(&dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let text = fs::read_to_string(entry.path().join("SKILL.md"))
            .map_err(|e| format!("skills/{name}/SKILL.md: {e}"))?;
        check_skill(&name, &text).into_result(&format!("skills/{name}/SKILL.md"))?;
        names.insert(name);
    }
    assert_eq!(names, SKILLS.iter().map(|s| s.to_string()).collect());
    Ok(())
}

/// Every `goldfish …` command a skill mentions exists in this binary.
#[test]
fn skills_name_real_cli_commands() -> Result {
    let mut commands = BTreeSet::new();
    for skill in SKILLS {
        let text = fs::read_to_string(plugin_dir().join("skills").join(skill).join("SKILL.md"))?;
        commands.extend(cli_commands(&text));
    }
    assert!(commands.len() >= 5, "{commands:?}");
    for words in commands {
        let out = Command::new(crate::util::bin())
            .args(&words)
            .arg("--help")
            .output()?;
        assert!(
            out.status.success(),
            "`goldfish {}` is not a command: {}",
            words.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// `/plugin marketplace add <owner>/<repo>` reads `.claude-plugin/marketplace.json` at the
/// repository root; relative sources resolve from that root.
#[test]
fn claude_marketplace() -> Result {
    let repo = repo();
    let market = read_json(&repo.join(".claude-plugin/marketplace.json"))?;
    let mut p = Problems::default();
    let m = market.as_object().ok_or("not an object")?;
    only_keys(
        m,
        &[
            "$schema",
            "name",
            "owner",
            "metadata",
            "description",
            "version",
            "plugins",
        ],
        "marketplace",
        &mut p,
    );
    match string(m, "name", true, &mut p) {
        Some(name) if !is_kebab(name) || name.contains("claude") || name.contains("anthropic") => p
            .add(format!(
                "name: {name:?} must be kebab-case and not a reserved name"
            )),
        _ => {}
    }
    match m.get("owner").and_then(Value::as_object) {
        Some(owner) => {
            string(owner, "name", true, &mut p);
        }
        None => p.add("owner: required object with a name"),
    }
    let plugins = m
        .get("plugins")
        .and_then(Value::as_array)
        .ok_or("plugins: required array")?;
    if plugins.is_empty() {
        p.add("plugins: empty");
    }
    for entry in plugins {
        let Some(e) = object(entry, "plugins[]", &mut p) else {
            continue;
        };
        let name = string(e, "name", true, &mut p).unwrap_or_default();
        if let Some(source) = string(e, "source", true, &mut p) {
            component_path(&repo, "source", source, &mut p);
            let manifest = read_json(&repo.join(source).join(".claude-plugin/plugin.json"))?;
            if manifest["name"] != name {
                p.add(format!(
                    "{name}: the plugin's own manifest has another name"
                ));
            }
        }
        if string(e, "version", false, &mut p).is_some_and(|v| v != VERSION) {
            p.add(format!(
                "{name}: version must equal the crate version {VERSION}"
            ));
        }
    }
    p.into_result(".claude-plugin/marketplace.json")
}

/// Codex reads a repository's catalog from `.agents/plugins/marketplace.json`.
#[test]
fn codex_marketplace() -> Result {
    let repo = repo();
    let market = read_json(&repo.join(".agents/plugins/marketplace.json"))?;
    let mut p = Problems::default();
    let m = market.as_object().ok_or("not an object")?;
    only_keys(m, &["name", "interface", "plugins"], "marketplace", &mut p);
    string(m, "name", true, &mut p);
    if let Some(i) = m.get("interface").and_then(Value::as_object) {
        string(i, "displayName", true, &mut p);
    }
    for entry in m
        .get("plugins")
        .and_then(Value::as_array)
        .ok_or("plugins: required array")?
    {
        let Some(e) = object(entry, "plugins[]", &mut p) else {
            continue;
        };
        let name = string(e, "name", true, &mut p).unwrap_or_default();
        string(e, "category", true, &mut p);
        let source = e.get("source").and_then(Value::as_object);
        match source.map(|s| {
            (
                s.get("source").and_then(Value::as_str),
                s.get("path").and_then(Value::as_str),
            )
        }) {
            Some((Some("local"), Some(path))) => {
                component_path(&repo, "source.path", path, &mut p);
                if path == "./" {
                    p.add("source.path: Codex does not discover a plugin at the marketplace root");
                }
                let manifest = read_json(&repo.join(path).join(".codex-plugin/plugin.json"))?;
                if manifest["name"] != name {
                    p.add(format!(
                        "{name}: the plugin's own manifest has another name"
                    ));
                }
            }
            _ => p.add(format!(
                "{name}: source must be {{\"source\": \"local\", \"path\": \"./…\"}}"
            )),
        }
        let policy = e.get("policy").and_then(Value::as_object);
        let installation = policy
            .and_then(|p| p.get("installation"))
            .and_then(Value::as_str);
        if !matches!(
            installation,
            Some("AVAILABLE" | "INSTALLED_BY_DEFAULT" | "NOT_AVAILABLE")
        ) {
            p.add(format!("{name}: policy.installation must be AVAILABLE, INSTALLED_BY_DEFAULT or NOT_AVAILABLE"));
        }
        let authentication = policy
            .and_then(|p| p.get("authentication"))
            .and_then(Value::as_str);
        if !matches!(authentication, Some("ON_INSTALL" | "ON_USE")) {
            p.add(format!(
                "{name}: policy.authentication must be ON_INSTALL or ON_USE"
            ));
        }
    }
    p.into_result(".agents/plugins/marketplace.json")
}

/// Cursor's catalog: `.cursor-plugin/marketplace.json`, sources relative to the repository.
#[test]
fn cursor_marketplace() -> Result {
    let repo = repo();
    let market = read_json(&repo.join(".cursor-plugin/marketplace.json"))?;
    let mut p = Problems::default();
    let m = market.as_object().ok_or("not an object")?;
    only_keys(
        m,
        &["name", "owner", "metadata", "plugins"],
        "marketplace",
        &mut p,
    );
    string(m, "name", true, &mut p);
    if let Some(owner) = m.get("owner").and_then(Value::as_object) {
        only_keys(owner, &["name", "email"], "owner", &mut p);
        string(owner, "name", true, &mut p);
    }
    for entry in m
        .get("plugins")
        .and_then(Value::as_array)
        .ok_or("plugins: required array")?
    {
        let Some(e) = object(entry, "plugins[]", &mut p) else {
            continue;
        };
        only_keys(
            e,
            &["name", "source", "description", "minClientVersions"],
            "plugins[]",
            &mut p,
        );
        let name = string(e, "name", true, &mut p).unwrap_or_default();
        if let Some(source) = string(e, "source", true, &mut p) {
            let manifest = read_json(&repo.join(source).join(".cursor-plugin/plugin.json"))?;
            if manifest["name"] != name {
                p.add(format!(
                    "{name}: the plugin's own manifest has another name"
                ));
            }
        }
    }
    p.into_result(".cursor-plugin/marketplace.json")
}

/// The checks catch what they are for: a broken copy of each file is refused.
#[test]
fn the_checks_refuse_broken_files() -> Result {
    let root = plugin_dir();
    let mut claude = read_json(&root.join(".claude-plugin/plugin.json"))?;
    claude["name"] = "Gold Fish".into();
    claude["version"] = "9.9.9".into();
    claude["skills"] = "./missing/".into();
    claude["hook"] = "./hooks/hooks.json".into();
    let problems = check_claude_manifest(&root, &claude).0;
    assert_eq!(problems.len(), 4, "{problems:?}");

    let mut codex = read_json(&root.join(".codex-plugin/plugin.json"))?;
    codex["hooks"] = "hooks/codex-hooks.json".into();
    codex["interface"]["capabilities"] = serde_json::json!(["Everything"]);
    assert_eq!(check_codex_manifest(&root, &codex).0.len(), 2);

    let mut cursor = read_json(&root.join(".cursor-plugin/plugin.json"))?;
    cursor["author"]["url"] = "https://example.com".into();
    assert_eq!(check_cursor_manifest(&root, &cursor).0.len(), 1);

    let mut hooks = read_json(&root.join("hooks/hooks.json"))?;
    hooks["hooks"]["SessionStart"][0]["matcher"] = "startup|reboot".into();
    assert_eq!(
        check_command_hooks(&hooks, "claude").0.len(),
        3,
        "reboot, no clear, no compact"
    );
    assert!(
        !check_command_hooks(&read_json(&root.join("hooks/hooks.json"))?, "codex")
            .0
            .is_empty()
    );

    let mut cursor_hooks = read_json(&root.join("hooks/cursor-hooks.json"))?;
    cursor_hooks["hooks"]["SessionStart"] = cursor_hooks["hooks"]["sessionStart"].clone();
    assert_eq!(check_cursor_hooks(&cursor_hooks).0.len(), 1);

    assert_eq!(
        check_skill(
            "recall",
            "---\nname: recal\ndescription: Recall.\n---\nNothing.\n"
        )
        .0
        .len(),
        3
    );
    assert_eq!(
        check_mcp(&serde_json::json!({"mcpServers": {"goldfish": {"command": "gf"}}}))
            .0
            .len(),
        2
    );
    Ok(())
}
