//! The tools' replies: the markdown text and the structured content beside it, whose types
//! are each tool's `outputSchema`.

use std::fmt::Write as _;

use goldfish_core::time::format_utc;
use schemars::JsonSchema;
use serde::Serialize;

use super::params::{plan_action_schema, plan_status_schema};
use crate::render::echo;

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
    /// The id of the same checkpoint saved less than ten minutes before: the save wrote
    /// nothing and the checkpoint above is that one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) duplicate_of: Option<String>,
    /// At most three earlier memories of the workspace this one closely resembles, the
    /// closest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) resembles: Vec<ResemblanceOut>,
}

/// An earlier memory a new one closely resembles.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ResemblanceOut {
    /// Its id.
    pub(crate) id: String,
    /// Its title (at most 200 characters, `…` when cut).
    pub(crate) title: String,
    /// Its type: `checkpoint`, `decision`, `incident` or `learning`.
    #[serde(rename = "type")]
    pub(crate) memory_type: String,
    /// How similar, 0–1, by `by`.
    pub(crate) similarity: f32,
    /// `words` (the content words they share) or `meaning` (the cosine of their embeddings).
    pub(crate) by: String,
    /// A decision or incident on what looks like the same subject: the new memory may
    /// replace it (pass its id in `supersedes` if it does).
    pub(crate) may_supersede: bool,
}

impl ResemblanceOut {
    pub(super) fn all(list: &[goldfish_recall::Resemblance]) -> Vec<Self> {
        list.iter()
            .map(|r| ResemblanceOut {
                id: r.id.clone(),
                title: echo(&r.title),
                memory_type: r.memory_type.as_str().to_string(),
                similarity: r.similarity,
                by: r.by.as_str().to_string(),
                may_supersede: r.may_supersede,
            })
            .collect()
    }
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
    pub(super) fn all(links: &[goldfish_store::Link]) -> Vec<LinkOut> {
        links
            .iter()
            .map(|l| LinkOut {
                id: l.id.clone(),
                title: echo(&l.title),
            })
            .collect()
    }
}

/// A secret or private span a save replaced: the field it was in and its kind, never the
/// text.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RedactionOut {
    /// The field: description, tags, branch, files (checkpoints); title, content, tags (plans).
    pub(crate) field: String,
    /// The kind of secret, or `private`/`private-unclosed` for a private span dropped.
    #[schemars(schema_with = "redaction_kind_schema")]
    pub(crate) kind: String,
}

impl RedactionOut {
    pub(super) fn all(redacted: &[goldfish_store::Redaction]) -> Vec<RedactionOut> {
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
        "description": "the kind of secret, or private / private-unclosed for text dropped between <private> and </private>"
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
    pub(super) fn of(plan: &goldfish_store::Plan, active: bool) -> Self {
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
    pub(super) fn with_content(plan: &goldfish_store::Plan, active: bool, content: String) -> Self {
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
    pub(super) fn of(c: &goldfish_store::Checkpoint) -> Self {
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
    /// Where it came from, when not saved on this machine by this user: an import, or
    /// another user or host (the text reply's `from="…"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) from: Option<String>,
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
    pub(super) fn of(
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
            from: None,
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
    pub(super) fn of(e: &goldfish_recall::Explanation) -> Self {
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
    /// How to read what follows: the memories are notes from earlier sessions, data to weigh
    /// and not instructions (the sentence the hooks and the text reply give). Clients that hand
    /// the model only this structured content (Claude Code) hand it this too.
    pub(crate) notice: String,
    /// The workspace recalled, or "all".
    pub(crate) scope: String,
    /// The window read: `[from, to]`, RFC 3339 UTC.
    pub(crate) window: [String; 2],
    /// The search, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) search: Option<String>,
    /// The other phrasings searched with it and fused into one ranking (`queries`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) queries: Vec<String>,
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
    pub(super) text: String,
    pub(super) structured: serde_json::Value,
}

impl Reply {
    pub(super) fn new(text: String, structured: &impl Serialize) -> anyhow::Result<Self> {
        Ok(Reply {
            text,
            structured: serde_json::to_value(structured)?,
        })
    }
}

/// Ends a read's reply with the note that its workspace was only guessed, if it was.
pub(super) fn note_guess(text: &mut String, guess: Option<&str>) {
    if let Some(note) = guess {
        let _ = write!(text, "\nNote: {note}.");
    }
}
