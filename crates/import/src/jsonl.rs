//! JSON Lines: `goldfish export` writes one [`Record`] per line, `import jsonl` reads them back.
//!
//! The schema is the serde shape of [`Record`]; `schema/export.schema.json` is generated from
//! it ([`export_schema`]) and a test keeps the committed file up to date.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use goldfish_store::{Actor, Checkpoint, MemoryType, Plan, PlanStatus, Store, Structured};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use goldfish_memories::{Batch, PlanItem};
use goldfish_memories::{Error, ErrorKind};

/// One line of an export: a checkpoint or a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
// Records are read and written one at a time: the size of the larger variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Record {
    /// A checkpoint.
    Checkpoint(CheckpointRecord),
    /// A plan.
    Plan(PlanRecord),
}

/// The memory types, for the schema.
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)] // Only its schema is used.
enum MemoryTypeSchema {
    Checkpoint,
    Decision,
    Incident,
    Learning,
}

/// A checkpoint, every field. Times are UTC RFC 3339 with milliseconds (`…T09:30:12.345Z`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckpointRecord {
    /// The workspace.
    pub workspace: String,
    /// The id, unique within the workspace.
    pub id: String,
    /// When it was saved.
    #[schemars(with = "String")]
    pub timestamp: DateTime<Utc>,
    /// `checkpoint`, `decision`, `incident` or `learning`.
    #[serde(rename = "type")]
    #[schemars(with = "MemoryTypeSchema")]
    pub memory_type: MemoryType,
    /// What was done; the first line is the title.
    pub description: String,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Git branch.
    #[serde(default)]
    pub branch: Option<String>,
    /// Short git commit.
    #[serde(default)]
    pub commit: Option<String>,
    /// Changed files.
    #[serde(default)]
    pub files: Vec<String>,
    /// Changed files beyond `files`.
    #[serde(default)]
    pub files_omitted: usize,
    /// The situation.
    #[serde(default)]
    pub context: Option<String>,
    /// What was decided.
    #[serde(default)]
    pub decision: Option<String>,
    /// Options not taken.
    #[serde(default)]
    pub alternatives: Vec<String>,
    /// What it changes or costs.
    #[serde(default)]
    pub impact: Option<String>,
    /// What supports it.
    #[serde(default)]
    pub evidence: Vec<String>,
    /// Code symbols concerned.
    #[serde(default)]
    pub symbols: Vec<String>,
    /// What should happen next.
    #[serde(default)]
    pub next: Option<String>,
    /// 1 (a guess) to 5 (certain).
    #[serde(default)]
    #[schemars(range(min = 1, max = 5))]
    pub confidence: Option<u8>,
    /// Open questions.
    #[serde(default)]
    pub unknowns: Vec<String>,
    /// A short key naming what the memory is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// Ids of the earlier checkpoints of the workspace it supersedes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<String>,
    /// Who saved it, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<ActorSchema>")]
    pub actor: Option<Actor>,
    /// Other `- **Key**: value` bullets of the entry.
    #[serde(default)]
    pub extra: BTreeMap<String, String>,
}

/// Who saved a checkpoint: each field only when known.
// The schema of the store's `Actor` (its serde shape), which the record holds.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Actor")]
#[allow(dead_code)] // Only its schema is used.
struct ActorSchema {
    /// The client (agent harness), such as `claude-code 2.1.197`.
    harness: Option<String>,
    /// The model.
    model: Option<String>,
    /// The client's session id.
    session: Option<String>,
    /// The operating-system user.
    user: Option<String>,
    /// `git config user.name`.
    git_user: Option<String>,
    /// `git config user.email`.
    git_email: Option<String>,
    /// The machine's host name.
    host: Option<String>,
}

/// A plan, every field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanRecord {
    /// The workspace.
    pub workspace: String,
    /// The id (`[a-z0-9-]+`).
    pub id: String,
    /// The title.
    pub title: String,
    /// `active`, `completed` or `archived`.
    pub status: String,
    /// Whether it is its workspace's active plan.
    #[serde(default)]
    pub active: bool,
    /// When it was created.
    #[schemars(with = "String")]
    pub created: DateTime<Utc>,
    /// When it was last changed.
    #[schemars(with = "String")]
    pub updated: DateTime<Utc>,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The markdown body, exactly.
    pub content: String,
    /// Other frontmatter keys, as their values.
    #[serde(default)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl From<&Checkpoint> for CheckpointRecord {
    fn from(c: &Checkpoint) -> Self {
        let s = &c.structured;
        CheckpointRecord {
            workspace: c.workspace.clone(),
            id: c.id.clone(),
            timestamp: c.timestamp,
            memory_type: c.memory_type,
            description: c.description.clone(),
            tags: c.tags.clone(),
            branch: c.branch.clone(),
            commit: c.commit.clone(),
            files: c.files.clone(),
            files_omitted: c.files_omitted,
            context: s.context.clone(),
            decision: s.decision.clone(),
            alternatives: s.alternatives.clone(),
            impact: s.impact.clone(),
            evidence: s.evidence.clone(),
            symbols: s.symbols.clone(),
            next: s.next.clone(),
            confidence: s.confidence,
            unknowns: s.unknowns.clone(),
            topic: c.topic.clone(),
            supersedes: c.supersedes.clone(),
            actor: (!c.actor.is_empty()).then(|| c.actor.clone()),
            extra: c.extra.clone(),
        }
    }
}

impl CheckpointRecord {
    /// The checkpoint this record describes.
    pub fn to_checkpoint(&self) -> Checkpoint {
        let mut c = Checkpoint::new(
            self.id.clone(),
            self.timestamp,
            self.workspace.clone(),
            self.description.clone(),
        );
        c.memory_type = self.memory_type;
        c.tags = self.tags.clone();
        c.branch = self.branch.clone();
        c.commit = self.commit.clone();
        c.files = self.files.clone();
        c.files_omitted = self.files_omitted;
        let mut s = Structured::default();
        s.context = self.context.clone();
        s.decision = self.decision.clone();
        s.alternatives = self.alternatives.clone();
        s.impact = self.impact.clone();
        s.evidence = self.evidence.clone();
        s.symbols = self.symbols.clone();
        s.next = self.next.clone();
        s.confidence = self.confidence;
        s.unknowns = self.unknowns.clone();
        c.structured = s;
        c.topic = self.topic.clone();
        c.supersedes = self.supersedes.clone();
        c.actor = self.actor.clone().unwrap_or_default();
        c.extra = self.extra.clone();
        c
    }
}

impl PlanRecord {
    fn from_plan(p: &Plan, active: bool) -> Self {
        PlanRecord {
            workspace: p.workspace.clone(),
            id: p.id.clone(),
            title: p.title.clone(),
            status: p.status.as_str().to_string(),
            active,
            created: p.created,
            updated: p.updated,
            tags: p.tags.clone(),
            content: p.content.clone(),
            extra: p.extra.clone(),
        }
    }

    fn to_plan(&self) -> Result<Plan, String> {
        let status: PlanStatus = self
            .status
            .parse()
            .map_err(|e: goldfish_store::Error| e.message().to_string())?;
        let mut p = Plan::new(
            self.id.clone(),
            self.title.clone(),
            self.content.clone(),
            self.workspace.clone(),
            self.created,
        );
        p.updated = self.updated;
        p.status = status;
        p.tags = self.tags.clone();
        p.extra = self.extra.clone();
        Ok(p)
    }
}

/// The JSON Schema of one export line, generated from [`Record`], pretty-printed with a
/// final newline (the text of `schema/export.schema.json`).
pub fn export_schema() -> String {
    let schema = schemars::schema_for!(Record);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes every checkpoint (oldest first, in day-file order) and then every plan (by id) of
/// `workspaces` (all of the store's when empty) as JSON Lines into `out`. Returns the
/// number of lines and what could not be read (skipped, with file and line).
pub fn export_jsonl(
    store: &Store,
    workspaces: &[String],
    out: &mut dyn std::io::Write,
) -> Result<(usize, Vec<Error>), Error> {
    let root = store.root().to_path_buf();
    let names = if workspaces.is_empty() {
        store
            .list_workspaces()
            .map_err(|e| Error::store(&root, e))?
    } else {
        workspaces.to_vec()
    };
    let mut lines = 0;
    let mut problems = Vec::new();
    let mut write = |record: Record, out: &mut dyn std::io::Write| -> Result<(), Error> {
        let line = serde_json::to_string(&record)
            .map_err(|e| Error::new(ErrorKind::Io, &root, format!("cannot encode: {e}")))?;
        writeln!(out, "{line}").map_err(|e| Error::io(&root, "write the export", e))?;
        lines += 1;
        Ok(())
    };
    for ws in &names {
        let range = store
            .checkpoints_between(ws, DateTime::UNIX_EPOCH, DateTime::<Utc>::MAX_UTC)
            .map_err(|e| Error::store(&root, e))?;
        for s in range.skipped {
            problems.push(Error::new(ErrorKind::Malformed, &s.path, s.message).at_line(s.line));
        }
        for c in &range.checkpoints {
            write(Record::Checkpoint(CheckpointRecord::from(c)), out)?;
        }
        let list = store.list_plans(ws).map_err(|e| Error::store(&root, e))?;
        for s in list.skipped {
            problems.push(Error::new(ErrorKind::Malformed, &s.path, s.message).at_line(s.line));
        }
        let mut plans = list.plans;
        plans.sort_by(|a, b| a.id.cmp(&b.id));
        for p in &plans {
            let active = list.active.as_deref() == Some(p.id.as_str());
            write(Record::Plan(PlanRecord::from_plan(p, active)), out)?;
        }
    }
    Ok((lines, problems))
}

/// Parses JSON Lines `text` (read from `path`) into a [`Batch`]: a line that is not JSON or
/// not a record is reported with its line number and skipped; blank lines are ignored.
pub fn parse_jsonl(text: &str, path: &Path) -> Batch {
    let mut batch = Batch::new(path.to_path_buf());
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad =
            |message: String| Error::new(ErrorKind::Malformed, path, message).at_line(Some(i + 1));
        match serde_json::from_str::<Record>(line) {
            Ok(Record::Checkpoint(c)) => batch.checkpoints.push(c.to_checkpoint()),
            Ok(Record::Plan(p)) => match p.to_plan() {
                Ok(plan) => batch.plans.push(PlanItem::new(plan, p.active)),
                Err(e) => batch
                    .problems
                    .push(bad(format!("plan {}: {e}; skipped", p.id))),
            },
            Err(e) => batch
                .problems
                .push(bad(format!("not a goldfish export record ({e}); skipped"))),
        }
    }
    batch
}

/// Reads a JSON Lines file into a [`Batch`]; see [`parse_jsonl`].
///
/// # Errors
///
/// When the file cannot be read, or is not UTF-8 text: then the error names the line and the
/// byte offset of the first bad byte ([`goldfish_memories::read_text`]), and nothing of the
/// file is in a batch, so nothing of it is imported (not the valid lines before it either:
/// a file that is not what `goldfish export` writes is refused whole).
pub fn jsonl_batch(path: &Path) -> Result<Batch, Error> {
    let text = goldfish_memories::read_text(path)?;
    Ok(parse_jsonl(&text, path))
}
