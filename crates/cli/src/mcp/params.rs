//! The tools' and prompts' parameters: what each accepts, its lenient deserializers (a
//! number or a list given as a string is taken), and the schemas clients see.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::args::{opt_bool, opt_string_list, opt_uint, string_list, text_list};

/// Arguments of the `checkpoint` tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckpointParams {
    /// What was done, why, and what is next. The first line is the title; more lines are kept.
    #[schemars(schema_with = "description_schema")]
    pub(crate) description: String,
    /// Tags such as ["bug-fix", "auth"], each on one line; an item of the list may hold a
    /// comma (`queue,broker` is one tag), while a comma-separated string is split.
    #[serde(default, deserialize_with = "string_list")]
    #[schemars(schema_with = "tags_schema")]
    pub(crate) tags: Vec<String>,
    /// The workspace: a name, or the project's absolute path (default: the current project;
    /// a save is refused when the server's directory is not inside a project).
    #[serde(default)]
    pub(crate) workspace: Option<String>,
    // Typed memories: the kind and its structured fields (see `set_typed`).
    /// The kind of memory: "checkpoint" (default), "decision", "incident" or "learning".
    #[serde(default, rename = "type")]
    #[schemars(schema_with = "memory_type_schema")]
    pub(crate) memory_type: Option<String>,
    /// The situation: what was true before, what forced the question.
    #[serde(default)]
    pub(crate) context: Option<String>,
    /// What was decided.
    #[serde(default)]
    pub(crate) decision: Option<String>,
    /// Options considered and not taken, one per item.
    #[serde(default, deserialize_with = "text_list")]
    pub(crate) alternatives: Vec<String>,
    /// What this changes or costs.
    #[serde(default)]
    pub(crate) impact: Option<String>,
    /// What supports it (log lines, measurements, links), one per item.
    #[serde(default, deserialize_with = "text_list")]
    pub(crate) evidence: Vec<String>,
    /// Code symbols concerned, e.g. ["TokenStore::rotate"].
    #[serde(default, deserialize_with = "text_list")]
    pub(crate) symbols: Vec<String>,
    /// What should happen next.
    #[serde(default)]
    pub(crate) next: Option<String>,
    /// How sure you are, from 1 (a guess) to 5 (certain).
    #[serde(default, deserialize_with = "opt_uint")]
    #[schemars(schema_with = "confidence_schema")]
    pub(crate) confidence: Option<u64>,
    /// Open questions, one per item.
    #[serde(default, deserialize_with = "text_list")]
    pub(crate) unknowns: Vec<String>,
    /// A short key naming what this memory is about ("auth-tokens"; one line, at most 100
    /// characters, compared ignoring case): it supersedes the newest earlier memory of the
    /// workspace with the same topic that nothing supersedes yet.
    #[serde(default)]
    pub(crate) topic: Option<String>,
    /// Ids of earlier checkpoints of the workspace that this one replaces (recall lists the
    /// ids); recall then shows this one and hides those. An unknown id saves nothing.
    #[serde(default, deserialize_with = "string_list")]
    pub(crate) supersedes: Vec<String>,
}

/// Arguments of the `recall` tool.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecallParams {
    /// A workspace name, a project's absolute path, "current" (default) or "all".
    #[serde(default)]
    pub(crate) workspace: Option<String>,
    /// Look back this many days (default 2).
    #[serde(default, deserialize_with = "opt_uint")]
    #[schemars(schema_with = "days_schema")]
    pub(crate) days: Option<u64>,
    /// Look back this far: "30m", "6h", "3d" or a timestamp.
    #[serde(default)]
    pub(crate) since: Option<String>,
    /// Window start: a date ("2025-10-13") or an RFC 3339 timestamp.
    #[serde(default)]
    pub(crate) from: Option<String>,
    /// Window end; a date alone means the end of that day.
    #[serde(default)]
    pub(crate) to: Option<String>,
    /// Search, ranked by relevance: keywords, a question in plain words, or a typo'd or
    /// partial word.
    #[serde(default)]
    pub(crate) search: Option<String>,
    /// Other phrasings of the same need, searched too and fused into one ranking (with
    /// `search`, at most 4 in all). Pass them when the user's words are a long question or
    /// name things only loosely: add a few keywords (names, identifiers, error text) and the
    /// question in other words. Without `search`, the first one is the search.
    #[serde(default, deserialize_with = "string_list")]
    pub(crate) queries: Vec<String>,
    /// With `search`: explain under each checkpoint why it matched (query words, matched
    /// terms and fields, how, and the score's parts).
    #[serde(default, deserialize_with = "opt_bool")]
    #[schemars(with = "Option<bool>")]
    pub(crate) explain: Option<bool>,
    /// At most this many checkpoints (default 10; 0 = active plan only).
    #[serde(default, deserialize_with = "opt_uint")]
    #[schemars(with = "Option<u32>")]
    pub(crate) limit: Option<u64>,
    /// Full descriptions and git context instead of the summary view.
    #[serde(default, deserialize_with = "opt_bool")]
    #[schemars(with = "Option<bool>")]
    pub(crate) full: Option<bool>,
    /// Also recall checkpoints that a later one supersedes (hidden by default).
    #[serde(default, deserialize_with = "opt_bool")]
    #[schemars(with = "Option<bool>")]
    pub(crate) include_superseded: Option<bool>,
    /// Only checkpoints whose named files changed in git since their commit (those that
    /// make no claim are left out). Not with `fresh`.
    #[serde(default, deserialize_with = "opt_bool")]
    #[schemars(with = "Option<bool>")]
    pub(crate) stale: Option<bool>,
    /// Leave out checkpoints whose named files changed in git since their commit (those
    /// that make no claim are kept). Not with `stale`.
    #[serde(default, deserialize_with = "opt_bool")]
    #[schemars(with = "Option<bool>")]
    pub(crate) fresh: Option<bool>,
    /// Only this kind of memory: "checkpoint", "decision", "incident" or "learning".
    #[serde(default, rename = "type")]
    #[schemars(schema_with = "memory_type_schema")]
    pub(crate) memory_type: Option<String>,
    /// Only checkpoints with every one of these tags.
    #[serde(default, deserialize_with = "string_list")]
    pub(crate) tags: Vec<String>,
    /// Only checkpoints that touched this file or directory ("src/auth/", "jwt.rs").
    #[serde(default)]
    pub(crate) file: Option<String>,
    /// Only checkpoints naming this symbol ("rotate" matches "TokenStore::rotate").
    #[serde(default)]
    pub(crate) symbol: Option<String>,
    /// Open one checkpoint in full by the id a recall listed (the other arguments are then
    /// not used): its whole description, typed fields, commit and files.
    #[serde(default)]
    pub(crate) id: Option<String>,
}

// Input schemas state the bounds the server enforces (the store's validation), so that a
// client that checks arguments against the schema refuses what the server would refuse.
// Each field's description comes from its doc comment.

/// A description: some text that is not only blanks (the store refuses an empty one).
fn description_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "pattern": "\\S"
    })
}

/// Tags: the store refuses a tag with a line break; a comma is part of the tag (a
/// comma-separated string, instead of a list, is split).
fn tags_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "array",
        "items": {"type": "string", "pattern": "^[^\\r\\n]*$"}
    })
}

/// A memory type, as [`goldfish_store::MemoryType`] parses it.
fn memory_type_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = goldfish_store::MemoryType::ALL
        .iter()
        .map(|t| t.as_str())
        .collect();
    schemars::json_schema!({
        "type": "string",
        "enum": names
    })
}

/// A confidence level, in the store's range.
fn confidence_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "integer",
        "minimum": goldfish_store::MIN_CONFIDENCE,
        "maximum": goldfish_store::MAX_CONFIDENCE
    })
}

/// Days to look back, at most what a recall window reaches.
fn days_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "integer",
        "minimum": 0,
        "maximum": goldfish_recall::MAX_DAYS
    })
}

/// A flat string enum: some clients cannot follow the `$ref`/`oneOf` schemars derives for
/// enums.
pub(super) fn plan_action_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "enum": ["save", "get", "list", "activate", "update", "complete", "archive"],
        "description": "save | get | list | activate | update | complete | archive"
    })
}

/// A plan's status as a string enum.
pub(super) fn plan_status_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "enum": ["active", "completed", "archived"],
        "description": "active | completed | archived"
    })
}

/// What the `plan` tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PlanAction {
    /// Save a new plan (title and content).
    Save,
    /// Show a plan (default: the active plan).
    Get,
    /// List the workspace's plans.
    List,
    /// Make a plan the active one.
    Activate,
    /// Change a plan's title, content or status.
    Update,
    /// Mark a plan completed.
    Complete,
    /// Mark a plan archived.
    Archive,
}

/// Arguments of the `plan` tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlanParams {
    /// save | get | list | activate | update | complete | archive.
    #[schemars(schema_with = "plan_action_schema")]
    pub(crate) action: PlanAction,
    /// The plan's id (save: derived from the title when absent).
    #[serde(default)]
    pub(crate) id: Option<String>,
    /// The plan's title (save, update).
    #[serde(default)]
    pub(crate) title: Option<String>,
    /// The plan's markdown body, e.g. goals and a `- [ ]` checklist (save, update).
    #[serde(default)]
    pub(crate) content: Option<String>,
    /// active | completed | archived (save, update).
    #[serde(default)]
    #[schemars(schema_with = "plan_status_schema")]
    pub(crate) status: Option<String>,
    /// Make the saved plan the active one (save; default true).
    #[serde(default, deserialize_with = "opt_bool")]
    #[schemars(with = "Option<bool>")]
    pub(crate) activate: Option<bool>,
    /// Tags (save, update).
    #[serde(default, deserialize_with = "opt_string_list")]
    #[schemars(schema_with = "tags_schema")]
    pub(crate) tags: Option<Vec<String>>,
    /// The workspace: a name, or the project's absolute path (default: the current project;
    /// a save is refused when the server's directory is not inside a project).
    #[serde(default)]
    pub(crate) workspace: Option<String>,
}

/// Arguments of the `recall` prompt.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct RecallPromptArgs {
    /// What to search for (optional).
    #[serde(default)]
    pub(crate) search: Option<String>,
    /// Days to look back (optional).
    #[serde(default)]
    pub(crate) days: Option<String>,
}

/// Arguments of the `checkpoint` prompt.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct CheckpointPromptArgs {
    /// What to checkpoint (optional: by default, the work since the last checkpoint).
    #[serde(default)]
    pub(crate) focus: Option<String>,
}

/// Arguments of the `standup` prompt.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct StandupPromptArgs {
    /// Days to cover (optional, default 1).
    #[serde(default)]
    pub(crate) days: Option<String>,
}

/// A `type` parameter: an error naming the parameter when it is not a memory type.
pub(super) fn parse_type(text: Option<&str>) -> anyhow::Result<Option<goldfish_store::MemoryType>> {
    text.filter(|t| !t.trim().is_empty())
        .map(|t| {
            t.parse()
                .map_err(|e: goldfish_store::Error| anyhow::anyhow!("`type`: {}", e.message()))
        })
        .transpose()
}
