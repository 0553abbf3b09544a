//! The checkpoint value.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::actor::Actor;
use crate::memory::{MemoryType, Structured};

/// One saved moment of work: what was done, when, where, and the git context at the time.
///
/// Every field round-trips losslessly through a day file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Checkpoint {
    /// Stable id, unique within its workspace.
    pub id: String,
    /// When it was saved, UTC, to the millisecond.
    pub timestamp: DateTime<Utc>,
    /// The normalised workspace name.
    pub workspace: String,
    /// What was done; may span many lines. The first line is the title.
    pub description: String,
    /// Tags (none contains a line break; a comma is part of its tag, escaped as `\,` in the
    /// day file; blank tags are dropped on save).
    pub tags: Vec<String>,
    /// Git branch at save time, if known.
    pub branch: Option<String>,
    /// Short git commit at save time, if known.
    pub commit: Option<String>,
    /// Changed files at save time (capped; see `files_omitted`).
    pub files: Vec<String>,
    /// How many more changed files there were beyond `files`.
    pub files_omitted: usize,
    /// What kind of moment this is: `checkpoint` (the default), `decision`, `incident` or
    /// `learning`.
    #[serde(rename = "type", default)]
    pub memory_type: MemoryType,
    /// The structured fields of a typed memory (context, decision, alternatives, …); all
    /// empty for a plain checkpoint. In JSON they sit beside the other fields.
    #[serde(flatten, default)]
    pub structured: Structured,
    /// A short key naming what this memory is about (`auth-token-rotation`): a memory saved
    /// later with the same topic supersedes this one. `None` when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// The ids of the earlier checkpoints of the same workspace this one replaces: recall
    /// shows this one and hides them (see the crate documentation, "Supersession").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supersedes: Vec<String>,
    /// Who saved it: client, model, session, OS user, git user and e-mail, as goldfish
    /// observed them (empty for checkpoints saved before goldfish recorded it).
    #[serde(default, skip_serializing_if = "Actor::is_empty")]
    pub actor: Actor,
    /// Other `- **Key**: value` bullets of the entry (such as an import's `- **Origin**:`), kept so
    /// that nothing a person or another tool wrote is lost. Keys are never one of the bullets
    /// above (`Tags`, `Branch`, `Commit`, `Files`, `More files`) or an actor's (`Harness`,
    /// `Model`, `Session`, `User`, `Git user`, `Git email`); a typed key (`Type`,
    /// `Confidence`, `Supersedes`) appears here only with a value that field cannot hold
    /// (`Type: bogus`, `Confidence: 7`, `Supersedes: a, , b`), kept as written.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, String>,
}

impl Checkpoint {
    /// A checkpoint with the given identity and description and no tags or git context.
    pub fn new(
        id: impl Into<String>,
        timestamp: DateTime<Utc>,
        workspace: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        Checkpoint {
            id: id.into(),
            timestamp,
            workspace: workspace.into(),
            description: description.into(),
            tags: Vec::new(),
            branch: None,
            commit: None,
            files: Vec::new(),
            files_omitted: 0,
            memory_type: MemoryType::Checkpoint,
            structured: Structured::default(),
            topic: None,
            supersedes: Vec::new(),
            actor: Actor::default(),
            extra: BTreeMap::new(),
        }
    }

    /// The structured fields as `(label, text)` pairs in their day-file order, lists joined
    /// with `"; "`: what a reader or a search sees of them.
    pub fn structured_text(&self) -> Vec<(&'static str, String)> {
        self.structured.labelled()
    }

    /// The first line of the description: the title shown in headers and summaries.
    pub fn title(&self) -> &str {
        self.description.lines().next().unwrap_or("")
    }

    /// Whether `other` says the same thing: the same description, type, typed fields, topic
    /// and tags (in any order). When and where it was saved, by whom, and its links are not
    /// compared.
    pub fn says_the_same_as(&self, other: &Checkpoint) -> bool {
        self.description == other.description
            && self.memory_type == other.memory_type
            && self.structured == other.structured
            && self.topic == other.topic
            && self.tags.len() == other.tags.len()
            && self.tags.iter().all(|t| other.tags.contains(t))
    }
}
