//! `goldfish mcp`: the MCP server on stdio.
//!
//! Exactly three tools (`checkpoint`, `recall`, `plan`) with behavioural descriptions that
//! tell agents when to call them, titles and annotations, and four prompts (`recall`,
//! `checkpoint`, `standup`, `plan-status`) that clients offer as slash commands. A tool's
//! reply is compact markdown (what agents read: JSON costs them tokens) with the same facts as
//! `structuredContent`, described by the tool's `outputSchema`. Input and output schemas are
//! portable (`mcp_schema`): no type arrays, no non-standard formats. Resources
//! (`goldfish://{workspace}/plan`, `…/checkpoints`, `…/plans/{id}`) expose the same memory
//! for clients that attach context themselves. When the client offers MCP roots, the first
//! `file://` root is the directory the workspace and git context come from, instead of the
//! server's working directory. Every failure, including malformed arguments, is an MCP tool error (`isError`)
//! with a message saying what to do; the server never exits because of a bad call.
//! Stdout is the protocol, so logs go to stderr.
//!
//! Each tool is an adapter: its parameters become the same library options the CLI builds
//! (`CheckpointInput`, `RecallOptions`, `PlanAction`), one library call does the work, and a
//! renderer writes the reply. Nothing here imports the CLI's `commands`.

use std::sync::Arc;

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, GetPromptResult, Implementation, JsonObject,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents, Role,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, Peer, RoleServer};
use rmcp::{ServerHandler, ServiceExt as _, prompt, prompt_handler, prompt_router, tool};
use rmcp::{tool_handler, tool_router};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use std::fmt::Write as _;

use goldfish_core::time::format_utc;
use goldfish_recall::{FormatOptions, RecallOptions, StandupOptions};
use goldfish_store::{
    CheckpointInput, PlanAction as StoreAction, PlanInput, PlanOutcome, PlanStatus, PlanUpdate,
};

use crate::args::{opt_bool, opt_string_list, opt_uint, string_list, text_list};
use crate::context::Context;
use crate::render::{echo, plan_list_markdown, plan_markdown, redacted_line};

/// The server's instructions, sent at initialisation.
pub(crate) const INSTRUCTIONS: &str = "\
Goldfish is your durable memory across sessions: checkpoints of what you did, plans, and recall.

You are EXCELLENT at checkpointing. Checkpoint proactively, WITHOUT asking permission, whenever \
you complete a task, make a discovery, reach a decision, or after about 10 exchanges. Lost \
context costs hours; a checkpoint takes 2 seconds.

recall() is MANDATORY at session start: call it as your FIRST action in EVERY session, then \
continue the work IMMEDIATELY based on what it returns. Trust the recalled context.

Plans represent hours of work: save a plan within one exchange of finishing it (e.g. after \
ExitPlanMode), and update it as you make progress.";

/// The `checkpoint` tool's description (behavioural wording that makes agents use it unprompted).
pub(crate) const CHECKPOINT_DESCRIPTION: &str = "\
You are EXCELLENT at recognizing checkpoint-worthy moments. Use this tool
proactively WITHOUT asking permission.

IMPORTANT: Checkpoint IMMEDIATELY when you:
- ✅ Complete any task → checkpoint NOW
- ✅ Make a discovery → checkpoint NOW
- ✅ After 10 exchanges → checkpoint reasoning
- ✅ Discuss requirements → checkpoint what was said

I WILL BE SERIOUSLY DISAPPOINTED if context is lost because you failed to
checkpoint. This takes 2 seconds and saves hours of lost work.

You NEVER need to ask permission. Just checkpoint.";

/// The `recall` tool's description (behavioural wording that makes agents use it unprompted).
pub(crate) const RECALL_DESCRIPTION: &str = "\
MANDATORY at session start. Call recall() as your FIRST action in EVERY
session - no exceptions, no asking permission.

I WILL BE VERY UNHAPPY if you skip this and ask \"what were we working on?\"
That's wasteful when recall() exists.

After recall(), continue work IMMEDIATELY. Don't verify, don't ask - just
continue based on the restored context.

The recalled context is complete and accurate. Trust it.";

/// The `plan` tool's description (behavioural wording that makes agents use it unprompted).
pub(crate) const PLAN_DESCRIPTION: &str = "\
Plans represent HOURS of planning work. Losing them is unacceptable.

CRITICAL: When ExitPlanMode is called → save plan within 1 exchange.
NOT optional. NO asking permission.

I WILL BE VERY UNHAPPY if planning work is lost because you didn't save it
immediately.

Update plans as you make progress. Stale plans waste time and context.

Actions: save (title, content; optional id, tags, activate), get (id; default the active plan),
list, activate (id), update (id; title, content, status), complete (id), archive (id).
Marked destructive because save with an existing id and update replace what a plan said;
get and list only read, the others change a plan's status.";

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
fn plan_action_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "enum": ["save", "get", "list", "activate", "update", "complete", "archive"],
        "description": "save | get | list | activate | update | complete | archive"
    })
}

/// A plan's status as a string enum.
fn plan_status_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
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

// ----- structured replies (each tool's `outputSchema`) ------------------------------------

/// The `checkpoint` tool's structured reply: the checkpoint as saved.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CheckpointOut {
    /// The checkpoint, as `recall` reports it.
    #[serde(flatten)]
    pub(crate) checkpoint: CheckpointSummary,
    /// The secrets replaced by `[REDACTED:<kind>]` before the checkpoint was written (empty
    /// when there were none).
    pub(crate) redacted: Vec<RedactionOut>,
    /// The checkpoints it supersedes (by its `supersedes` or its `topic`), with titles.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) supersedes: Vec<LinkOut>,
}

/// The other end of a supersession link.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct LinkOut {
    /// Its id.
    pub(crate) id: String,
    /// Its title ("" when no day file holds that id any more).
    pub(crate) title: String,
}

impl LinkOut {
    fn all(links: &[goldfish_store::Link]) -> Vec<LinkOut> {
        links
            .iter()
            .map(|l| LinkOut {
                id: l.id.clone(),
                title: echo(&l.title),
            })
            .collect()
    }
}

/// A secret a save replaced: the field it was in and its kind, never the secret.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RedactionOut {
    /// The field: description, tags, branch, files (checkpoints); title, content, tags (plans).
    pub(crate) field: String,
    /// The kind of secret.
    #[schemars(schema_with = "redaction_kind_schema")]
    pub(crate) kind: String,
}

impl RedactionOut {
    fn all(redacted: &[goldfish_store::Redaction]) -> Vec<RedactionOut> {
        redacted
            .iter()
            .map(|r| RedactionOut {
                field: r.field.clone(),
                kind: r.kind.name().to_string(),
            })
            .collect()
    }
}

fn redaction_kind_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let kinds: Vec<&str> = goldfish_store::goldfish_redact::Kind::ALL
        .iter()
        .map(|k| k.name())
        .collect();
    schemars::json_schema!({
        "type": "string",
        "enum": kinds,
        "description": "the kind of secret"
    })
}

/// A plan as the `plan` and `recall` tools report it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PlanOut {
    /// The plan's id.
    pub(crate) id: String,
    /// Its title.
    pub(crate) title: String,
    /// active | completed | archived.
    #[schemars(schema_with = "plan_status_schema")]
    pub(crate) status: String,
    /// Whether it is the workspace's active plan.
    pub(crate) active: bool,
    /// Checked boxes.
    pub(crate) done: usize,
    /// All boxes.
    pub(crate) total: usize,
    /// Its tags.
    pub(crate) tags: Vec<String>,
    /// Last updated (RFC 3339 UTC).
    pub(crate) updated: String,
    /// Its markdown body (`plan` get; the active plan of `recall`, cut with `…` past half
    /// the reply's budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) content: Option<String>,
    /// The task boxes of the body, in order (with `content`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) checklist: Option<Vec<ChecklistOut>>,
    /// Set when the plan holds both sides of a sync or merge between
    /// `goldfish:merge-conflict` markers: keep one and update the plan.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) merge_conflict: bool,
}

/// One task box of a plan.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ChecklistOut {
    /// The item's text.
    pub(crate) text: String,
    /// Whether it is checked.
    pub(crate) done: bool,
}

impl PlanOut {
    /// The plan's facts without its body.
    fn of(plan: &goldfish_store::Plan, active: bool) -> Self {
        let progress = plan.progress();
        PlanOut {
            id: plan.id.clone(),
            title: plan.title.clone(),
            status: plan.status.as_str().to_string(),
            active,
            done: progress.done,
            total: progress.total(),
            tags: plan.tags.clone(),
            updated: format_utc(&plan.updated),
            content: None,
            checklist: None,
            merge_conflict: goldfish_sync::has_merge_conflict(plan),
        }
    }

    /// The plan with `content` (its body, or the part of it a reply shows) and its checklist.
    fn with_content(plan: &goldfish_store::Plan, active: bool, content: String) -> Self {
        let checklist = goldfish_store::checklist(&content)
            .into_iter()
            .map(|i| ChecklistOut {
                text: i.text,
                done: i.done,
            })
            .collect();
        PlanOut {
            content: Some(content),
            checklist: Some(checklist),
            ..PlanOut::of(plan, active)
        }
    }
}

/// A checkpoint as the `checkpoint` tool confirms it.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CheckpointSummary {
    /// Its id.
    pub(crate) id: String,
    /// Its workspace.
    pub(crate) workspace: String,
    /// When (RFC 3339 UTC).
    pub(crate) timestamp: String,
    /// Its title (at most 200 characters, `…` when cut).
    pub(crate) title: String,
    /// Its tags.
    pub(crate) tags: Vec<String>,
    /// The git branch it was saved on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) branch: Option<String>,
    /// Who saved it (`harness=… model=… user=… git_email=…`), in the full view and the
    /// checkpoint tool's reply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) actor: Option<String>,
}

impl CheckpointSummary {
    fn of(c: &goldfish_store::Checkpoint) -> Self {
        CheckpointSummary {
            id: c.id.clone(),
            workspace: c.workspace.clone(),
            timestamp: format_utc(&c.timestamp),
            title: echo(c.title()),
            tags: c.tags.clone(),
            branch: c.branch.clone(),
            actor: c.actor.summary(),
        }
    }
}

/// A checkpoint as `recall` reports it: the summary view, or with `full` its body, commit,
/// files and typed fields.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RecallCheckpoint {
    /// Its id.
    pub(crate) id: String,
    /// Its workspace (with "all"; otherwise the reply's `scope`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) workspace: Option<String>,
    /// When (RFC 3339 UTC).
    pub(crate) timestamp: String,
    /// How old it is, in words ("3 weeks ago"), counted from the time of the recall.
    pub(crate) age: String,
    /// decision | incident | learning (left out for a plain checkpoint).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub(crate) memory_type: Option<String>,
    /// Its title: the description's first line.
    pub(crate) title: String,
    /// Its tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) tags: Vec<String>,
    /// The git branch it was saved on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) branch: Option<String>,
    /// How many files it touched (summary view).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) file_count: Option<usize>,
    /// The rest of the description after the title (full).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) body: Option<String>,
    /// The git commit it was saved at (full).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) commit: Option<String>,
    /// The files it touched (full).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) files: Vec<String>,
    /// Files touched but not listed (full).
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) files_omitted: usize,
    /// A typed memory's fields, only those given (full).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<TypedFields>")]
    pub(crate) fields: Option<goldfish_store::Structured>,
    /// Who saved it (`harness=… model=… user=… git_email=…`, full).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) actor: Option<String>,
    /// Why it matched the search (with `explain`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) explain: Option<ExplainOut>,
    /// Its topic, when it has one (full).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) topic: Option<String>,
    /// The earlier checkpoints it supersedes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) supersedes: Vec<LinkOut>,
    /// The later checkpoints that supersede it (shown with `include_superseded` or by id).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) superseded_by: Vec<LinkOut>,
    /// Whether the files it names changed in git since its commit (left out: no claim).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<FreshnessOut>")]
    pub(crate) freshness: Option<goldfish_store::Freshness>,
}

/// The schema of what git says of a checkpoint's files since its commit, as
/// [`goldfish_store::Freshness`] serialises it.
#[derive(JsonSchema)]
#[expect(dead_code, reason = "only its schema is used")]
struct FreshnessOut {
    /// The checkpoint's commit.
    commit: String,
    /// Whether any file it names changed since.
    stale: bool,
    /// The line the text shows: `src/auth.rs changed in 4 commits since abc1234`, `files
    /// unchanged since abc1234`.
    summary: String,
    /// Each file it names with the commits that changed it since (0: unchanged).
    files: Vec<FileFreshnessOut>,
}

/// The schema of one named file's changes since the checkpoint's commit.
#[derive(JsonSchema)]
#[expect(dead_code, reason = "only its schema is used")]
struct FileFreshnessOut {
    /// The file, relative to the repository's top.
    path: String,
    /// Commits that changed it since (merges not counted).
    commits: usize,
}

/// The schema of a typed memory's fields as [`goldfish_store::Structured`] serialises them
/// (each left out when not given).
#[derive(JsonSchema)]
#[expect(dead_code, reason = "only its schema is used")]
struct TypedFields {
    /// The situation: what was true before, what forced the question.
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<String>,
    /// What was decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<String>,
    /// Options considered and not taken.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    alternatives: Vec<String>,
    /// What this changes or costs.
    #[serde(skip_serializing_if = "Option::is_none")]
    impact: Option<String>,
    /// What supports it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    evidence: Vec<String>,
    /// Code symbols concerned.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    symbols: Vec<String>,
    /// What should happen next.
    #[serde(skip_serializing_if = "Option::is_none")]
    next: Option<String>,
    /// How sure, from 1 (a guess) to 5 (certain).
    #[serde(skip_serializing_if = "Option::is_none")]
    confidence: Option<u8>,
    /// Open questions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unknowns: Vec<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl RecallCheckpoint {
    fn of(
        c: &goldfish_store::Checkpoint,
        now: chrono::DateTime<chrono::Utc>,
        all: bool,
        full: bool,
        explain: Option<ExplainOut>,
        links: Option<&goldfish_recall::Links>,
        freshness: Option<&goldfish_store::Freshness>,
    ) -> Self {
        let plain = c.memory_type == goldfish_store::MemoryType::Checkpoint;
        let body = c
            .description
            .split_once('\n')
            .map(|(_, rest)| rest.trim_start_matches(['\r', '\n']).trim_end().to_string())
            .filter(|b| !b.trim().is_empty());
        RecallCheckpoint {
            id: c.id.clone(),
            workspace: all.then(|| c.workspace.clone()),
            timestamp: format_utc(&c.timestamp),
            age: goldfish_store::age_text(now, c.timestamp),
            memory_type: (!plain).then(|| c.memory_type.as_str().to_string()),
            title: c.title().to_string(),
            tags: c.tags.clone(),
            branch: c.branch.clone(),
            file_count: (!full && !c.files.is_empty()).then(|| c.files.len() + c.files_omitted),
            body: body.filter(|_| full),
            commit: c.commit.clone().filter(|_| full),
            files: if full { c.files.clone() } else { Vec::new() },
            files_omitted: if full { c.files_omitted } else { 0 },
            fields: (full && !c.structured.labelled().is_empty()).then(|| c.structured.clone()),
            actor: c.actor.summary().filter(|_| full),
            explain,
            topic: c.topic.clone().filter(|_| full),
            supersedes: links
                .map(|l| LinkOut::all(&l.supersedes))
                .unwrap_or_default(),
            superseded_by: links
                .map(|l| LinkOut::all(&l.superseded_by))
                .unwrap_or_default(),
            freshness: freshness.cloned(),
        }
    }
}

/// Why a checkpoint matched, with numbers rounded as the text shows them.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ExplainOut {
    /// The final score: `sum × coverage`.
    pub(crate) score: f64,
    /// The sum of the words' contributions.
    pub(crate) sum: f64,
    /// The share (0–1) of the query's weight the checkpoint covers.
    pub(crate) coverage: f64,
    /// One entry per query word, in query order.
    pub(crate) words: Vec<ExplainWord>,
}

/// What one query word contributed.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ExplainWord {
    /// The query word, folded.
    pub(crate) word: String,
    /// Whether it counts as covered.
    pub(crate) covered: bool,
    /// Its weight in the coverage.
    pub(crate) weight: f64,
    /// The term it matched (left out when nothing matched).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) term: Option<String>,
    /// exact | stem | prefix | typo | synonym.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) how: Option<String>,
    /// The fields the term occurs in: title, body, tags, branch, files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) fields: Vec<String>,
    /// Similarity of the term to the word (1 exact, less for the other kinds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sim: Option<f64>,
    /// Inverse document frequency of the term.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) idf: Option<f64>,
    /// The term-frequency part of the score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tf: Option<f64>,
    /// `sim × idf × tf`: what the word adds to the sum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) contribution: Option<f64>,
}

/// `x` rounded to two decimals, as the text shows it.
fn two(x: f32) -> f64 {
    (f64::from(x) * 100.0).round() / 100.0
}

impl ExplainOut {
    fn of(e: &goldfish_recall::Explanation) -> Self {
        ExplainOut {
            score: two(e.score),
            sum: two(e.sum),
            coverage: two(e.coverage),
            words: e
                .words
                .iter()
                .map(|w| {
                    let m = w.matched.as_ref();
                    ExplainWord {
                        word: w.word.clone(),
                        covered: w.covered,
                        weight: two(w.weight),
                        term: m.map(|m| m.term.clone()),
                        how: m.and_then(|m| {
                            serde_json::to_value(m.how)
                                .ok()
                                .and_then(|v| v.as_str().map(str::to_string))
                        }),
                        fields: m
                            .map(|m| m.fields.iter().map(|f| f.name().to_string()).collect())
                            .unwrap_or_default(),
                        sim: m.map(|m| two(m.similarity)),
                        idf: m.map(|m| two(m.idf)),
                        tf: m.map(|m| two(m.tf)),
                        contribution: m.map(|m| two(m.contribution)),
                    }
                })
                .collect(),
        }
    }
}

/// The `recall` tool's structured reply: what the text says, field by field.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RecallOut {
    /// The workspace recalled, or "all".
    pub(crate) scope: String,
    /// The window read: `[from, to]`, RFC 3339 UTC.
    pub(crate) window: [String; 2],
    /// The search, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) search: Option<String>,
    /// What ranked a search's answer: "lexical", and "semantic" when the embedding model is
    /// installed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) channels: Vec<String>,
    /// How many checkpoints matched before the limit.
    pub(crate) total: usize,
    /// With "all": how many checkpoints matched per workspace.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) workspaces: Vec<WorkspaceMatches>,
    /// The workspace's active plan, when there is one, with its body and checklist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) active_plan: Option<PlanOut>,
    /// The checkpoints shown: by relevance with a search, else newest first.
    pub(crate) checkpoints: Vec<RecallCheckpoint>,
    /// Matching checkpoints not shown, and why (left out when all were shown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) not_shown: Option<NotShown>,
    /// Files or entries that could not be read and were skipped: how many, and the first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) skipped: Option<SkippedOut>,
    /// Set when the store holds nothing yet: missing | empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) store: Option<StoreOut>,
    /// Set when nothing named the workspace and the server's directory is not inside a
    /// project: which directory `scope` was guessed from and how to choose another.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) workspace_note: Option<String>,
}

/// Matches in one workspace.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct WorkspaceMatches {
    /// The workspace.
    pub(crate) workspace: String,
    /// Its checkpoints that matched.
    pub(crate) matched: usize,
}

/// Checkpoints a recall matched but did not show.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct NotShown {
    /// Over the `limit`.
    pub(crate) over_limit: usize,
    /// Over the reply's character budget.
    pub(crate) over_budget: usize,
    /// The budget, in characters.
    pub(crate) budget: usize,
}

/// Unreadable files or entries a recall skipped.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SkippedOut {
    /// How many.
    pub(crate) count: usize,
    /// The first: the file, the line when known, and what is wrong.
    pub(crate) first: String,
}

/// A store that holds nothing yet.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct StoreOut {
    /// Its root directory.
    pub(crate) root: String,
    /// missing | empty.
    pub(crate) state: String,
}

/// The `plan` tool's structured reply.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PlanToolOut {
    /// The action done.
    #[schemars(schema_with = "plan_action_schema")]
    pub(crate) action: String,
    /// The workspace.
    pub(crate) workspace: String,
    /// The plan acted on (every action but list).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) plan: Option<PlanOut>,
    /// The workspace's plans (list).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) plans: Option<Vec<PlanOut>>,
    /// Plan files that could not be read (list; left out when there were none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) skipped: Vec<String>,
    /// The secrets a save or update replaced by `[REDACTED:<kind>]` before writing (left
    /// out when there were none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) redacted: Vec<RedactionOut>,
    /// Set when a read's workspace was guessed (see the `recall` tool's `workspace_note`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) workspace_note: Option<String>,
}

/// A tool's reply: the markdown agents read and the same facts as structured content.
pub(crate) struct Reply {
    text: String,
    structured: serde_json::Value,
}

impl Reply {
    fn new(text: String, structured: &impl Serialize) -> anyhow::Result<Self> {
        Ok(Reply {
            text,
            structured: serde_json::to_value(structured)?,
        })
    }
}

/// The MCP server.
#[derive(Debug, Clone)]
pub(crate) struct GoldfishServer {
    ctx: Arc<Context>,
    /// The directory of the client's first `file://` root, once asked (`None` inside: the
    /// client offers no usable root). Forgotten when the client says its roots changed.
    roots: Arc<tokio::sync::Mutex<Option<Option<std::path::PathBuf>>>>,
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

/// `goldfish mcp --verbose`: lifecycle lines and tool errors go to stderr too. Set once by
/// [`serve`] before the server starts.
static VERBOSE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes `goldfish mcp: {line}` to stderr with `--verbose` only: what the client is told
/// anyway (a tool's error) or needs not know (the server started). Clients log every stderr
/// line of a server as an error, so a normal session writes none.
fn verbose_line(line: std::fmt::Arguments<'_>) {
    if VERBOSE.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("goldfish mcp: {line}");
    }
}

/// Runs the server on stdin/stdout until the client disconnects; `verbose` as
/// `--verbose` (see [`verbose_line`]).
pub(crate) fn serve(
    ctx: Context,
    stdio: crate::mcp_stdio::StdioOptions,
    verbose: bool,
) -> anyhow::Result<()> {
    VERBOSE.store(verbose, std::sync::atomic::Ordering::Relaxed);
    // Held until the server stops: file-system events refresh the recall indexes early.
    let _watch = ctx
        .open_store()
        .ok()
        .and_then(|store| crate::mcp_watch::start(store, ctx.recall_cache.clone()));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        verbose_line(format_args!(
            "serving on stdio (store {})",
            ctx.home.display()
        ));
        let service = GoldfishServer::new(ctx)
            .serve(crate::mcp_stdio::stdio(stdio))
            .await?;
        let reason = service.waiting().await?;
        verbose_line(format_args!("stopped ({reason:?})"));
        Ok(())
    })
}

/// Deserializes tool arguments, naming the tool in the error.
fn parse_args<T: DeserializeOwned>(tool: &str, args: JsonObject) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::Object(args))
        .map_err(|e| format!("invalid arguments for `{tool}`: {e}. See the tool's input schema."))
}

/// Turns a reply or an error into a tool result.
fn to_result(result: Result<Reply, String>) -> CallToolResult {
    match result {
        Ok(reply) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(reply.text)]);
            result.structured_content = Some(reply.structured);
            result
        }
        Err(message) => {
            verbose_line(format_args!("tool error: {message}"));
            CallToolResult::error(vec![ContentBlock::text(format!("Error: {message}"))])
        }
    }
}

fn run_tool<T: DeserializeOwned>(
    tool: &str,
    args: JsonObject,
    f: impl FnOnce(T) -> anyhow::Result<Reply>,
) -> CallToolResult {
    to_result(parse_args(tool, args).and_then(|a| {
        // A bug in a library must not leave the client waiting for an answer that never
        // comes: a panic becomes a tool error and the server keeps serving.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(a))) {
            Ok(result) => result.map_err(|e| format!("{e:#}")),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_string());
                Err(format!(
                    "internal error in the `{tool}` tool ({what}); this is a goldfish bug, please report it"
                ))
            }
        }
    }))
}

// ----- MCP parameters → library options, and the replies ---------------------------------

/// The `checkpoint` tool: the parameters as a [`CheckpointInput`], one call to the store, and
/// a short confirmation that echoes at most [`ECHO_CHARS`](crate::render::ECHO_CHARS) of
/// the title.
fn checkpoint_tool(
    ctx: &Context,
    mut p: CheckpointParams,
    actor: goldfish_store::Actor,
) -> anyhow::Result<Reply> {
    let mut input = CheckpointInput::new(std::mem::take(&mut p.description));
    input.tags = std::mem::take(&mut p.tags);
    set_typed(&mut input, &mut p)?;
    input.workspace = Some(ctx.workspace_to_write(p.workspace.as_deref())?);
    // The store records this directory's git context only if it belongs to the workspace.
    input.git_dir = Some(ctx.cwd.clone());
    input.actor = actor;
    let store = ctx.open_store()?;
    let report = store.save_checkpoint_reported(input)?;
    let saved = &report.value;
    let links = goldfish_recall::links_of_saved(&store, saved)?;
    let mut s = format!("Checkpoint saved: {}", echo(saved.title()));
    let _ = write!(
        s,
        "\n(workspace `{}`, {}",
        saved.workspace,
        format_utc(&saved.timestamp)
    );
    if !saved.tags.is_empty() {
        let _ = write!(s, ", tags: {}", echo(&saved.tags.join(", ")));
    }
    if let Some(branch) = &saved.branch {
        let _ = write!(s, ", branch {branch}");
    }
    let _ = write!(s, ", id `{}`)", saved.id);
    if !links.supersedes.is_empty() {
        let _ = write!(
            s,
            "\nSupersedes {}.",
            crate::render::link_list(&links.supersedes)
        );
    }
    if let Some(line) = redacted_line(&report.redacted) {
        let _ = write!(s, "\n{line}.");
    }
    let out = CheckpointOut {
        checkpoint: CheckpointSummary::of(saved),
        redacted: RedactionOut::all(&report.redacted),
        supersedes: LinkOut::all(&links.supersedes),
    };
    Reply::new(s, &out)
}

/// A `type` parameter: an error naming the parameter when it is not a memory type.
fn parse_type(text: Option<&str>) -> anyhow::Result<Option<goldfish_store::MemoryType>> {
    text.filter(|t| !t.trim().is_empty())
        .map(|t| {
            t.parse()
                .map_err(|e: goldfish_store::Error| anyhow::anyhow!("`type`: {}", e.message()))
        })
        .transpose()
}

/// The typed-memory parameters into the store's input, validated: an unknown `type` or a
/// `confidence` outside 1–5 is an error naming the parameter.
fn set_typed(input: &mut CheckpointInput, t: &mut CheckpointParams) -> anyhow::Result<()> {
    if let Some(memory_type) = parse_type(t.memory_type.as_deref())? {
        input.memory_type = memory_type;
    }
    let mut s = goldfish_store::Structured::default();
    s.context = t.context.take();
    s.decision = t.decision.take();
    s.alternatives = std::mem::take(&mut t.alternatives);
    s.impact = t.impact.take();
    s.evidence = std::mem::take(&mut t.evidence);
    s.symbols = std::mem::take(&mut t.symbols);
    s.next = t.next.take();
    s.confidence = t
        .confidence
        .map(|c| {
            goldfish_store::validate_confidence(i64::try_from(c).unwrap_or(i64::MAX))
                .map_err(|e| anyhow::anyhow!("`confidence`: {}", e.message()))
        })
        .transpose()?;
    s.unknowns = std::mem::take(&mut t.unknowns);
    input.structured = s;
    input.topic = t.topic.take();
    input.supersedes = std::mem::take(&mut t.supersedes);
    Ok(())
}

/// The `recall` tool's parameters as [`RecallOptions`]: the same options the CLI builds, so
/// the same validation (two window starts are refused, naming both).
/// Also returns the note to show when the workspace was only guessed.
fn recall_options(
    ctx: &Context,
    p: RecallParams,
) -> anyhow::Result<(RecallOptions, Option<String>)> {
    let mut o = RecallOptions::from_env();
    let (scope, guess) = ctx.recall_scope(p.workspace.as_deref())?;
    o.workspace = scope;
    o.days = p
        .days
        .map(|d| u32::try_from(d).map_err(|_| anyhow::anyhow!("`days` {d} is too large")))
        .transpose()?;
    o.since = p.since;
    o.from = p.from;
    o.to = p.to;
    o.search = p.search;
    o.explain = p.explain.unwrap_or(false);
    o.include_superseded = p.include_superseded.unwrap_or(false);
    o.filter.memory_type = parse_type(p.memory_type.as_deref())?;
    o.filter.tags = p.tags;
    o.filter.file = p.file;
    o.filter.symbol = p.symbol;
    if let Some(limit) = p.limit {
        o.limit = usize::try_from(limit).unwrap_or(usize::MAX);
    }
    o.cwd = Some(ctx.cwd.clone());
    if o.search.is_some() {
        o.semantic = ctx.semantic();
    }
    Ok((o, guess))
}

/// The `recall` tool: compact markdown within recall's default character budget, and the
/// same facts as structured content within the same budget.
fn recall_tool(ctx: &Context, mut p: RecallParams) -> anyhow::Result<Reply> {
    if let Some(id) = p.id.take() {
        return show_reply(ctx, &id);
    }
    let mut f = FormatOptions::default();
    f.full = p.full.unwrap_or(false);
    let fresh = match (p.stale.unwrap_or(false), p.fresh.unwrap_or(false)) {
        (true, true) => anyhow::bail!("`stale` and `fresh` cannot both be true"),
        (true, false) => goldfish_store::FreshnessFilter::Stale,
        (false, true) => goldfish_store::FreshnessFilter::Fresh,
        (false, false) => goldfish_store::FreshnessFilter::Any,
    };
    let (mut o, guess) = recall_options(ctx, p)?;
    let limit = o.limit;
    o.limit = crate::freshness::pool_limit(limit, fresh);
    // The server keeps each workspace's recall index decoded, refreshed on every call.
    let mut result = goldfish_recall::recall_with(&ctx.open_store()?, &o, &ctx.recall_cache)?;
    crate::freshness::annotate(ctx, &mut result, fresh, limit);
    result.limit = limit;
    for note in &result.notes {
        eprintln!("goldfish mcp: {note}");
    }
    recall_reply(&result, f, guess.as_deref())
}

/// `recall` with an `id`: the whole record (the function `goldfish show` calls), as the
/// text and as a recall's structured content holding that one checkpoint in full.
fn show_reply(ctx: &Context, id: &str) -> anyhow::Result<Reply> {
    let preferred = ctx.workspace(None).ok();
    let store = ctx.open_store()?;
    let Some(c) = store.find_checkpoint(preferred.as_deref(), id)? else {
        anyhow::bail!(
            "no checkpoint has the id `{}` in any workspace (recall lists each one's id)",
            id.trim()
        );
    };
    let now = store.now();
    let mut notes = Vec::new();
    let links = goldfish_recall::links_of(&store, &RecallOptions::from_env(), &c, &mut notes)?;
    for note in &notes {
        eprintln!("goldfish mcp: {note}");
    }
    let at = format_utc(&c.timestamp);
    let out = RecallOut {
        scope: c.workspace.clone(),
        window: [at.clone(), at],
        search: None,
        channels: Vec::new(),
        total: 1,
        workspaces: Vec::new(),
        active_plan: None,
        checkpoints: vec![RecallCheckpoint::of(
            &c,
            now,
            true,
            true,
            None,
            Some(&links),
            None,
        )],
        not_shown: None,
        skipped: None,
        store: None,
        workspace_note: None,
    };
    Reply::new(
        goldfish_recall::format_checkpoint_linked(&c, &links, now),
        &out,
    )
}

/// A recall's text and structured content, showing the same checkpoints, each within
/// `f.max_chars` characters (the JSON as serialised). The JSON spells out field names the
/// text does not, so when it does not fit, both are rendered again with the budget scaled
/// down by how much it is over (leaving out more checkpoints, and saying so) until it does.
fn recall_reply(
    result: &goldfish_recall::RecallResult,
    mut f: FormatOptions,
    guess: Option<&str>,
) -> anyhow::Result<Reply> {
    let limit = f.max_chars;
    loop {
        let (mut text, shown) = goldfish_recall::format_recall_counted(result, &f);
        note_guess(&mut text, guess);
        let mut out = recall_out(result, &f, shown);
        out.workspace_note = guess.map(str::to_string);
        let reply = Reply::new(text, &out)?;
        let size = reply.structured.to_string().chars().count();
        if size <= limit || f.max_chars < 1_000 {
            return Ok(reply);
        }
        // Scaled with 2% to spare, and always down, so that this ends.
        let scaled = f.max_chars * limit / size * 49 / 50;
        f.max_chars = scaled.min(f.max_chars - 1);
    }
}

/// The structured content of a recall whose text shows its first `shown` checkpoints.
fn recall_out(r: &goldfish_recall::RecallResult, f: &FormatOptions, shown: usize) -> RecallOut {
    let plan_only = r.limit == 0;
    let hits = if plan_only { &[][..] } else { &r.hits[..shown] };
    let over_limit = r.total - r.hits.len();
    let over_budget = r.hits.len() - hits.len();
    let skipped = r.skipped.first().map(|first| SkippedOut {
        count: r.skipped.len(),
        first: first.to_string(),
    });
    let store = match r.store {
        goldfish_recall::StoreState::Populated => None,
        state => Some(StoreOut {
            root: r.store_root.display().to_string(),
            state: serde_json::to_value(state)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
        }),
    };
    RecallOut {
        scope: r.scope.to_string(),
        window: [format_utc(&r.window.from), format_utc(&r.window.to)],
        search: r.search.clone(),
        channels: r.channels.iter().map(|c| (*c).to_string()).collect(),
        total: r.total,
        workspaces: if r.scope.is_all() {
            r.workspaces
                .iter()
                .map(|w| WorkspaceMatches {
                    workspace: w.workspace.clone(),
                    matched: w.matched,
                })
                .collect()
        } else {
            Vec::new()
        },
        active_plan: r.active_plan.as_ref().map(|plan| {
            let content = goldfish_recall::plan_excerpt(&plan.content, f)
                .map(|t| t.trim_end().to_string())
                .unwrap_or_default();
            PlanOut::with_content(plan, true, content)
        }),
        checkpoints: hits
            .iter()
            .map(|h| {
                let explain = h.explanation.as_ref().map(ExplainOut::of);
                RecallCheckpoint::of(
                    &h.checkpoint,
                    r.now,
                    r.scope.is_all(),
                    f.full,
                    explain,
                    Some(&h.links),
                    h.freshness.as_ref(),
                )
            })
            .collect(),
        not_shown: (over_limit + over_budget > 0 && !plan_only).then_some(NotShown {
            over_limit,
            over_budget,
            budget: f.max_chars,
        }),
        skipped,
        store,
        workspace_note: None,
    }
}

/// Ends a read's reply with the note that its workspace was only guessed, if it was.
fn note_guess(text: &mut String, guess: Option<&str>) {
    if let Some(note) = guess {
        let _ = write!(text, "\nNote: {note}.");
    }
}

/// The standup as markdown, for the `standup` prompt.
fn standup_markdown(ctx: &Context, days: Option<u64>) -> anyhow::Result<String> {
    let mut o = StandupOptions::default();
    if let Some(days) = days {
        o.days = u32::try_from(days).unwrap_or(u32::MAX);
    }
    o.cwd = Some(ctx.cwd.clone());
    o.use_index = RecallOptions::from_env().use_index;
    let s = goldfish_recall::standup_with(&ctx.open_store()?, &o)?;
    Ok(goldfish_recall::format_standup(
        &s,
        &FormatOptions::default(),
    ))
}

fn parse_status(status: Option<&str>) -> anyhow::Result<Option<PlanStatus>> {
    Ok(status.map(str::parse::<PlanStatus>).transpose()?)
}

/// The `plan` tool's parameters as the store's plan action.
fn plan_action(p: &PlanParams) -> anyhow::Result<StoreAction> {
    let id = p.id.clone().filter(|i| !i.trim().is_empty());
    // Checked whatever the action, as the schema says.
    let status = parse_status(p.status.as_deref())?;
    let need_id = |action: &str| {
        id.clone().ok_or_else(|| {
            anyhow::anyhow!("`{action}` needs the plan's `id` (use action `list` to see the ids)")
        })
    };
    Ok(match p.action {
        PlanAction::Save => {
            let title = p.title.clone().unwrap_or_default();
            if title.trim().is_empty() && id.is_none() {
                anyhow::bail!("`save` needs a `title` (and the plan's markdown in `content`)");
            }
            let mut input = PlanInput::new(title, p.content.clone().unwrap_or_default());
            input.id = id;
            input.tags = p.tags.clone().unwrap_or_default();
            input.status = status;
            input.activate = p.activate.unwrap_or(true);
            StoreAction::Save(input)
        }
        PlanAction::Get => StoreAction::Get(id),
        PlanAction::List => StoreAction::List,
        PlanAction::Activate => StoreAction::Activate(need_id("activate")?),
        PlanAction::Update => {
            let mut u = PlanUpdate::default();
            u.title = p.title.clone();
            u.content = p.content.clone();
            u.status = status;
            u.tags = p.tags.clone();
            StoreAction::Update(need_id("update")?, u)
        }
        PlanAction::Complete => StoreAction::Complete(need_id("complete")?),
        PlanAction::Archive => StoreAction::Archive(need_id("archive")?),
    })
}

/// The `plan` tool: one call to the store, a short markdown reply.
fn plan_tool(ctx: &Context, p: PlanParams) -> anyhow::Result<Reply> {
    let action = plan_action(&p)?;
    let (workspace, guess) = ctx.workspace_for(p.workspace.as_deref(), action.writes())?;
    let outcome = ctx.open_store()?.plan_action(&workspace, action)?;
    let action_name = format!("{:?}", p.action).to_lowercase();
    match outcome {
        PlanOutcome::List {
            workspace,
            list,
            active,
        } => {
            let mut text = plan_list_markdown(&list, active.as_deref(), &workspace);
            note_guess(&mut text, guess.as_deref());
            let plans = list
                .plans
                .iter()
                .map(|plan| PlanOut::of(plan, active.as_deref() == Some(plan.id.as_str())))
                .collect();
            let out = PlanToolOut {
                action: action_name,
                workspace,
                plan: None,
                plans: Some(plans),
                skipped: list.skipped.iter().map(ToString::to_string).collect(),
                redacted: Vec::new(),
                workspace_note: guess,
            };
            Reply::new(text, &out)
        }
        PlanOutcome::Plan {
            plan,
            active,
            redacted,
        } => {
            let title = echo(&plan.title);
            let mut text = match p.action {
                PlanAction::Get | PlanAction::List => format!(
                    "{}\n(workspace `{workspace}`)",
                    plan_markdown(&plan, active).trim_end()
                ),
                PlanAction::Save => format!(
                    "Plan saved: **{title}** (`{}`) in workspace `{workspace}`{}.",
                    plan.id,
                    if active { ", now the active plan" } else { "" }
                ),
                PlanAction::Activate => format!(
                    "Plan `{}` ({title}) is now the active plan of `{workspace}`.",
                    plan.id
                ),
                PlanAction::Update => {
                    let progress = plan.progress();
                    format!(
                        "Plan `{}` updated (status {}, progress {}/{}).",
                        plan.id,
                        plan.status,
                        progress.done,
                        progress.total()
                    )
                }
                PlanAction::Complete => {
                    format!("Plan `{}` ({title}) marked completed.", plan.id)
                }
                PlanAction::Archive => {
                    format!("Plan `{}` ({title}) archived.", plan.id)
                }
            };
            if let Some(line) = redacted_line(&redacted) {
                let _ = write!(text, "\n{line}.");
            }
            // `get` shows the plan's body; the other actions confirm, echoing the title.
            let plan_out = if p.action == PlanAction::Get {
                PlanOut::with_content(&plan, active, plan.content.trim().to_string())
            } else {
                PlanOut {
                    title: echo(&plan.title),
                    ..PlanOut::of(&plan, active)
                }
            };
            note_guess(&mut text, guess.as_deref());
            let out = PlanToolOut {
                action: action_name,
                workspace,
                plan: Some(plan_out),
                plans: None,
                skipped: Vec::new(),
                redacted: RedactionOut::all(&redacted),
                workspace_note: guess,
            };
            Reply::new(text, &out)
        }
        other => anyhow::bail!("unexpected plan outcome: {other:?}"),
    }
}

/// The active plan as markdown, for the `plan-status` prompt.
fn plan_status_markdown(ctx: &Context) -> anyhow::Result<String> {
    let workspace = ctx.workspace(None)?;
    Ok(match ctx.open_store()?.active_plan(&workspace)? {
        Some(plan) => plan_markdown(&plan, true),
        None => format!("Workspace `{workspace}` has no active plan."),
    })
}

#[tool_router]
impl GoldfishServer {
    /// A server over the store described by `ctx`.
    pub(crate) fn new(ctx: Context) -> Self {
        GoldfishServer {
            ctx: Arc::new(ctx),
            roots: Arc::default(),
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
        }
    }

    #[tool(
        name = "checkpoint",
        title = "Checkpoint",
        description = CHECKPOINT_DESCRIPTION,
        input_schema = crate::mcp_schema::input::<CheckpointParams>(),
        output_schema = crate::mcp_schema::output::<CheckpointOut>(),
        annotations(
            title = "Checkpoint",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn checkpoint(&self, peer: Peer<RoleServer>, args: JsonObject) -> CallToolResult {
        let ctx = self.context(&peer).await;
        // Who saves: the client as it introduced itself, under the environment's word.
        let info = peer.peer_info();
        let client = info.as_ref().map(|i| &i.client_info);
        let actor = crate::actor::observed(client.map(|c| (c.name.as_str(), c.version.as_str())));
        run_tool("checkpoint", args, |p| checkpoint_tool(&ctx, p, actor))
    }

    #[tool(
        name = "recall",
        title = "Recall",
        description = RECALL_DESCRIPTION,
        input_schema = crate::mcp_schema::input::<RecallParams>(),
        output_schema = crate::mcp_schema::output::<RecallOut>(),
        annotations(
            title = "Recall",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn recall(&self, peer: Peer<RoleServer>, args: JsonObject) -> CallToolResult {
        let ctx = self.context(&peer).await;
        run_tool("recall", args, |p| recall_tool(&ctx, p))
    }

    // One tool for every plan action: agents find one `plan` tool more easily than seven.
    // Annotations describe the tool as a whole, so it is marked destructive (save with an
    // existing id and update replace a plan's text); its description says which actions only
    // read.
    #[tool(
        name = "plan",
        title = "Plan",
        description = PLAN_DESCRIPTION,
        input_schema = crate::mcp_schema::input::<PlanParams>(),
        output_schema = crate::mcp_schema::output::<PlanToolOut>(),
        annotations(
            title = "Plan",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn plan(&self, peer: Peer<RoleServer>, args: JsonObject) -> CallToolResult {
        let ctx = self.context(&peer).await;
        run_tool("plan", args, |p| plan_tool(&ctx, p))
    }
}

impl GoldfishServer {
    /// The context of a call: the server's, with the working directory replaced by the
    /// client's first `file://` root when the client offers roots.
    // Roots are deprecated in a draft of the next protocol version; today's clients send them.
    #[allow(deprecated)]
    async fn context(&self, peer: &Peer<RoleServer>) -> Arc<Context> {
        let offers_roots = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !offers_roots {
            return self.ctx.clone();
        }
        let mut cached = self.roots.lock().await;
        if cached.is_none() {
            let listed = peer.list_roots().await;
            let dir = match listed {
                Ok(list) => list.roots.iter().find_map(|r| file_uri_path(&r.uri)),
                Err(e) => {
                    eprintln!("goldfish mcp: cannot list the client's roots: {e}");
                    None
                }
            };
            *cached = Some(dir);
        }
        match cached.as_ref().and_then(Option::as_ref) {
            Some(dir) => {
                let mut ctx = (*self.ctx).clone();
                ctx.cwd = dir.clone();
                ctx.cwd_is_client_root = true;
                Arc::new(ctx)
            }
            None => self.ctx.clone(),
        }
    }
}

/// The local path of a `file://` URI (`file:///home/me/x`, `file://localhost/…`), with
/// percent-escapes decoded; `None` for another scheme, a remote host or a relative path.
pub(crate) fn file_uri_path(uri: &str) -> Option<std::path::PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    // A `%` not followed by two hex digits stays as it is; escapes that decode to something
    // other than UTF-8 are no path of ours.
    let path = percent_encoding::percent_decode_str(rest)
        .decode_utf8()
        .ok()?;
    Some(std::path::PathBuf::from(path.into_owned()))
}

fn user_prompt(text: String) -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
}

fn parse_days(days: Option<&str>) -> Option<u64> {
    days.and_then(|d| d.trim().parse().ok())
}

#[prompt_router]
impl GoldfishServer {
    /// Restore context: what was done lately and the active plan.
    #[prompt(
        name = "recall",
        description = "Restore context from goldfish: recent checkpoints and the active plan, then continue the work."
    )]
    async fn recall_prompt(&self, Parameters(a): Parameters<RecallPromptArgs>) -> GetPromptResult {
        let params = RecallParams {
            search: a.search.filter(|s| !s.trim().is_empty()),
            days: parse_days(a.days.as_deref()),
            ..RecallParams::default()
        };
        let body = recall_tool(&self.ctx, params)
            .map(|r| r.text)
            .unwrap_or_else(|e| format!("(recall failed: {e:#})"));
        user_prompt(format!(
            "Here is the context goldfish recalled for this workspace. Read it, then continue \
             the work IMMEDIATELY from where it left off; don't ask what we were working on.\n\n{body}"
        ))
    }

    /// Ask the agent to checkpoint its recent work now.
    #[prompt(
        name = "checkpoint",
        description = "Save a goldfish checkpoint of the work done since the last one."
    )]
    async fn checkpoint_prompt(
        &self,
        Parameters(a): Parameters<CheckpointPromptArgs>,
    ) -> GetPromptResult {
        let focus = a
            .focus
            .filter(|f| !f.trim().is_empty())
            .map(|f| format!(" Focus on: {f}."))
            .unwrap_or_default();
        user_prompt(format!(
            "Call the goldfish `checkpoint` tool now. Describe what was done since the last \
             checkpoint, why, what was discovered or decided, and what comes next: a one-line \
             title, then a short paragraph. Add 2–4 tags.{focus}"
        ))
    }

    /// A standup across every workspace.
    #[prompt(
        name = "standup",
        description = "A standup across all workspaces: what was done lately and each active plan's progress."
    )]
    async fn standup_prompt(
        &self,
        Parameters(a): Parameters<StandupPromptArgs>,
    ) -> GetPromptResult {
        let body = standup_markdown(&self.ctx, parse_days(a.days.as_deref()))
            .unwrap_or_else(|e| format!("(standup failed: {e:#})"));
        user_prompt(format!(
            "Give me a short standup from this goldfish report: per workspace, what was done, \
             what is in progress, and any blockers.\n\n{body}"
        ))
    }

    /// The active plan and its progress.
    #[prompt(
        name = "plan-status",
        description = "The active plan of this workspace and its progress (checked vs open items)."
    )]
    async fn plan_status_prompt(&self) -> GetPromptResult {
        let body = plan_status_markdown(&self.ctx)
            .unwrap_or_else(|e| format!("(plan lookup failed: {e:#})"));
        user_prompt(format!(
            "Here is the active goldfish plan. Summarise its progress, name the next open item, \
             and update the plan with the `plan` tool if it is stale.\n\n{body}"
        ))
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for GoldfishServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("goldfish", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        *self.roots.lock().await = None;
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        // Clients list resources before the first model request and retry a failed listing,
        // so a store that cannot be read lists nothing at once: the tools report the problem
        // with their error, and `goldfish doctor` with its fix.
        let ctx = self.context(&context.peer).await;
        let resources = crate::mcp_resources::list(&ctx).unwrap_or_else(|e| {
            verbose_line(format_args!("no resources to list: {e:#}"));
            Vec::new()
        });
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            crate::mcp_resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let ctx = self.context(&context.peer).await;
        let uri = request.uri;
        let text = crate::mcp_resources::read(&ctx, &uri)?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, uri).with_mime_type("text/markdown"),
        ])
        .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_three_tools_with_schemas_and_descriptions() {
        let server = GoldfishServer::new(Context::new(Some("/nonexistent".into()), None).unwrap());
        let mut names: Vec<_> = server
            .tool_router
            .list_all()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        names.sort();
        assert_eq!(names, ["checkpoint", "plan", "recall"]);
        for tool in server.tool_router.list_all() {
            let props = tool
                .input_schema
                .get("properties")
                .and_then(|p| p.as_object());
            assert!(
                props.is_some_and(|p| !p.is_empty()),
                "{} has no properties",
                tool.name
            );
        }
        let schema = serde_json::Value::Object((*crate::mcp_schema::input::<PlanParams>()).clone());
        let text = schema.to_string();
        for action in [
            "save", "get", "list", "activate", "update", "complete", "archive",
        ] {
            assert!(
                text.contains(&format!("\"{action}\"")),
                "{action} missing from {text}"
            );
        }
        assert!(INSTRUCTIONS.contains("EXCELLENT at checkpointing"));
        assert!(INSTRUCTIONS.contains("MANDATORY at session start"));
        assert!(CHECKPOINT_DESCRIPTION.contains("✅ Complete any task → checkpoint NOW"));
    }

    #[test]
    fn every_schema_is_portable_and_every_tool_annotated() {
        let server = GoldfishServer::new(Context::new(Some("/nonexistent".into()), None).unwrap());
        for tool in server.tool_router.list_all() {
            let name = tool.name.to_string();
            let output = tool
                .output_schema
                .clone()
                .expect("every tool has an output schema");
            for (which, schema) in [("input", tool.input_schema.clone()), ("output", output)] {
                let value = serde_json::Value::Object((*schema).clone());
                assert_eq!(value["type"], "object", "{name} {which}");
                let mut found = Vec::new();
                crate::mcp_schema::problems(&value, "", &mut found);
                assert!(
                    found.is_empty(),
                    "{name} {which} schema: {found:?}\n{value:#}"
                );
            }
            assert!(tool.title.is_some(), "{name} has no title");
            let a = tool.annotations.clone().expect("annotations");
            assert_eq!(a.open_world_hint, Some(false), "{name}");
            match name.as_str() {
                "recall" => {
                    assert_eq!(a.read_only_hint, Some(true));
                    assert_eq!(a.idempotent_hint, Some(true));
                }
                "checkpoint" => {
                    assert_eq!(a.read_only_hint, Some(false));
                    assert_eq!(a.destructive_hint, Some(false));
                }
                "plan" => assert_eq!(a.destructive_hint, Some(true)),
                other => panic!("unexpected tool {other}"),
            }
        }
        let plan = serde_json::Value::Object((*crate::mcp_schema::input::<PlanParams>()).clone());
        assert_eq!(
            plan["properties"]["status"]["enum"],
            serde_json::json!(["active", "completed", "archived"])
        );
        assert!(PLAN_DESCRIPTION.contains("destructive"));
    }

    #[test]
    fn instructions_fit_what_clients_show() {
        let chars = INSTRUCTIONS.chars().count();
        assert!(chars <= 2_000, "{chars} characters");
        assert!(INSTRUCTIONS.contains("EXCELLENT at checkpointing"));
        assert!(INSTRUCTIONS.contains("MANDATORY at session start"));
    }

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_uri_path("file:///home/me/my%20project"),
            Some("/home/me/my project".into())
        );
        assert_eq!(
            file_uri_path("file://localhost/srv/x"),
            Some("/srv/x".into())
        );
        assert_eq!(file_uri_path("https://example.com/x"), None);
        assert_eq!(file_uri_path("file://remote-host/x"), None);
        assert_eq!(
            file_uri_path("file:///srv/caf%C3%A9/100%25/%zz"),
            Some("/srv/café/100%/%zz".into())
        );
        assert_eq!(file_uri_path("file:///srv/%FF"), None);
    }

    #[test]
    fn bad_arguments_become_clear_messages() {
        let cases = [
            (serde_json::json!({}), "missing field `description`"),
            (
                serde_json::json!({"description": "x", "colour": 1}),
                "unknown field `colour`",
            ),
            (serde_json::json!({"description": 5}), "invalid type"),
        ];
        for (args, want) in cases {
            let serde_json::Value::Object(obj) = args else {
                unreachable!()
            };
            let err = parse_args::<CheckpointParams>("checkpoint", obj).unwrap_err();
            assert!(err.contains(want) && err.contains("`checkpoint`"), "{err}");
        }
        let serde_json::Value::Object(obj) = serde_json::json!({"action": "explode"}) else {
            unreachable!()
        };
        let err = parse_args::<PlanParams>("plan", obj).unwrap_err();
        assert!(err.contains("explode") && err.contains("save"), "{err}");
    }
}
