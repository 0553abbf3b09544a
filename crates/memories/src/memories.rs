//! Goldfish 5–8 project stores: `{project}/.memories/`.
//!
//! ```text
//! .memories/
//!   YYYY-MM-DD/HHMMSS_xxxx.md     one checkpoint per file: YAML frontmatter, blank line, body
//!   YYYY-MM-DD/HHMMSS_xxxx_1.md   a second checkpoint saved in the same millisecond
//!   briefs/{id}.md                briefs (Goldfish's plans): YAML frontmatter, blank line, body
//!   .active-brief                 the active brief's id (no trailing newline)
//!   plans/{id}.md, .active-plan   the same, as written before briefs were renamed
//! ```
//!
//! The parsers ([`parse_memory_file`], [`parse_brief_file`]) are pure; [`read_memories`]
//! is the file-system adapter. Nothing here writes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};
use goldfish_store::{Actor, MemoryType, PlanStatus, Structured};
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind};
use crate::yaml::{Loose, Text, TextList, js_trim};

/// Git context of a checkpoint, as Goldfish recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GitInfo {
    /// The branch (`HEAD` when detached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The short commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The worktree's top-level directory, when the checkpoint was saved from a worktree
    /// other than the project's (Goldfish 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    /// Changed files, as git printed them: names git C-quotes (non-ASCII, quotes) keep their
    /// quotes and octal escapes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

impl GitInfo {
    fn is_empty(&self) -> bool {
        *self == GitInfo::default()
    }
}

/// One Goldfish checkpoint, with every field its file holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MemoryRecord {
    /// Goldfish's id (`checkpoint_482313d2`, `checkpoint_f425…_1`).
    pub id: String,
    /// When it was saved, UTC.
    pub timestamp: DateTime<Utc>,
    /// The body, as Goldfish reads it: CRLF turned into LF, trimmed.
    pub description: String,
    /// The memory type, when the file names one of the four.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub memory_type: Option<MemoryType>,
    /// The structured fields (context, decision, alternatives, …).
    #[serde(flatten)]
    pub structured: Structured,
    /// Tags: trimmed, empty ones dropped, duplicates kept.
    pub tags: Vec<String>,
    /// The one-line summary Goldfish stored (taken from the file, never recomputed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Git context at save time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git: Option<GitInfo>,
    /// Who saved it (Goldfish 8's `actor`, whose keys are the store's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actor: Option<Actor>,
    /// The brief that was active when it was saved (`briefId`, or the older `planId`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brief_id: Option<String>,
    /// Frontmatter keys this reader does not know, with their values, so nothing is lost.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, serde_json::Value>,
    /// The file it was read from (empty for [`parse_memory_file`]).
    pub path: PathBuf,
}

/// A brief (Goldfish's name for a plan).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Brief {
    /// The brief's id (`auth-token-rotation`).
    pub id: String,
    /// Its title.
    pub title: String,
    /// Where it stands.
    pub status: PlanStatus,
    /// When it was created, if the file says.
    pub created: Option<DateTime<Utc>>,
    /// When it was last changed, if the file says.
    pub updated: Option<DateTime<Utc>>,
    /// Tags, as written.
    pub tags: Vec<String>,
    /// The markdown body (without the one newline Goldfish adds at the end of the file).
    pub body: String,
    /// True for the project's active brief: named by `.active-brief` and still `active`.
    pub active: bool,
    /// Frontmatter keys this reader does not know, with their values.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, serde_json::Value>,
    /// The file it was read from (empty for [`parse_brief_file`]).
    pub path: PathBuf,
}

/// A note about a value that was read but has no place in goldfish: the item is kept
/// without it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmapped {
    /// The 1-based line of the file the value is on.
    pub line: usize,
    /// What was left out, and why.
    pub message: String,
}

/// A file that could not be parsed: the line (1-based) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The 1-based line of the file.
    pub line: usize,
    /// What is wrong, and what to do.
    pub message: String,
}

/// Everything read from one `.memories/` directory.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct MemoriesDir {
    /// The `.memories` directory that was read.
    pub dir: PathBuf,
    /// Every checkpoint, newest first (ties by file path).
    pub checkpoints: Vec<MemoryRecord>,
    /// Every brief, in id order.
    pub briefs: Vec<Brief>,
    /// The text of `.active-brief` (or `.active-plan`), trimmed, when there is one. It may
    /// name a brief that is no longer active: see [`Brief::active`].
    pub active_marker: Option<String>,
    /// Files skipped ([`ErrorKind::Malformed`], [`ErrorKind::Io`]) and values left out
    /// ([`ErrorKind::Unmapped`]), each with its path and line. Everything else was read.
    pub problems: Vec<Error>,
}

impl MemoriesDir {
    /// The active brief, if any.
    pub fn active_brief(&self) -> Option<&Brief> {
        self.briefs.iter().find(|b| b.active)
    }
}

/// Checkpoint and brief files are normalised as Goldfish does before splitting: a leading
/// byte-order mark is dropped and CRLF becomes LF. Line numbers are unchanged by both.
fn normalize(text: &str) -> String {
    text.strip_prefix('\u{feff}')
        .unwrap_or(text)
        .replace("\r\n", "\n")
}

/// Splits `---\n{yaml}\n---\n{body}`. The YAML ends at the first `---` line, so a `---`
/// inside an indented block scalar does not end it, and a body that itself starts with a
/// `---` block stays in the body. `min_yaml` is 1 for briefs, whose YAML may not be empty.
fn split(text: &str, min_yaml: usize) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("---\n")?;
    let end = rest.get(min_yaml..)?.find("\n---\n")? + min_yaml;
    Some((&rest[..end], &rest[end + 5..]))
}

/// The file line of the first frontmatter line starting with `key:` (the YAML starts on
/// line 2), or line 1.
fn key_line(yaml: &str, key: &str) -> usize {
    yaml.lines()
        .position(|l| l.strip_prefix(key).is_some_and(|r| r.starts_with(':')))
        .map_or(1, |i| i + 2)
}

fn yaml_error(e: &serde_saphyr::Error, what: &str) -> ParseError {
    let line = e.location().map_or(1, |l| l.line() as usize + 1);
    let msg = e.to_string();
    let first = msg.lines().next().unwrap_or("invalid YAML");
    ParseError {
        line,
        message: format!("the {what} frontmatter is not valid YAML: {first}"),
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct GitFront {
    branch: Text,
    commit: Text,
    worktree: Text,
    files: TextList,
    files_changed: TextList,
    #[serde(rename = "filesChanged")]
    files_changed_camel: TextList,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ActorFront {
    harness: Text,
    model: Text,
    session: Text,
    user: Text,
    git_user: Text,
    git_email: Text,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CheckpointFront {
    id: Text,
    timestamp: Loose,
    tags: TextList,
    git: Option<GitFront>,
    actor: Option<ActorFront>,
    summary: Text,
    #[serde(rename = "briefId")]
    brief_id: Text,
    #[serde(rename = "planId")]
    plan_id: Text,
    #[serde(rename = "type")]
    memory_type: Text,
    context: Text,
    decision: Text,
    alternatives: TextList,
    impact: Text,
    evidence: TextList,
    symbols: TextList,
    next: Text,
    confidence: Loose,
    unknowns: TextList,
}

const CHECKPOINT_KEYS: [&str; 18] = [
    "id",
    "timestamp",
    "tags",
    "git",
    "actor",
    "summary",
    "briefId",
    "planId",
    "type",
    "context",
    "decision",
    "alternatives",
    "impact",
    "evidence",
    "symbols",
    "next",
    "confidence",
    "unknowns",
];

/// A text field as Goldfish keeps it: absent when null or empty.
fn nonempty(t: Text) -> Option<String> {
    t.0.filter(|s| !s.is_empty())
}

/// Keys of the frontmatter map that are not in `known`, with their values.
fn extra_keys(yaml: &str, known: &[&str]) -> BTreeMap<String, serde_json::Value> {
    // The typed read above succeeded, so this one reads the same valid YAML; a failure here
    // (a top level that is not a map) only means there are no extra keys to keep.
    match serde_saphyr::from_str::<Loose>(yaml) {
        Ok(Loose::Map(entries)) => entries
            .into_iter()
            .filter(|(k, _)| !known.contains(&k.as_str()))
            .map(|(k, v)| (k, v.to_json()))
            .collect(),
        _ => BTreeMap::new(),
    }
}

/// Reads a timestamp as Goldfish accepts one: RFC 3339 text (a date alone is midnight UTC,
/// a date-time without an offset is taken as UTC), or a number of seconds or, above 10¹⁰,
/// milliseconds since 1970.
pub(crate) fn parse_timestamp(value: &Loose) -> Result<DateTime<Utc>, String> {
    let from_millis = |ms: f64| {
        // Rounded to the millisecond, as JavaScript's Date keeps it.
        let ms = ms.round();
        if ms.is_finite() && ms.abs() < 8.64e15 {
            Utc.timestamp_millis_opt(ms as i64).single()
        } else {
            None
        }
    };
    let number = |n: f64| {
        let ms = if n > 1e10 { n } else { n * 1000.0 };
        from_millis(ms).ok_or_else(|| format!("timestamp {n} is out of range"))
    };
    match value {
        Loose::Null => Err("missing timestamp".to_string()),
        Loose::Int(i) => number(*i as f64),
        Loose::Float(f) => number(*f),
        Loose::Str(s) if s.is_empty() => Err("missing timestamp".to_string()),
        Loose::Str(s) => {
            let t = s.trim();
            if let Ok(d) = DateTime::parse_from_rfc3339(t) {
                return Ok(d.with_timezone(&Utc));
            }
            for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
                if let Ok(n) = NaiveDateTime::parse_from_str(t, format) {
                    return Ok(n.and_utc());
                }
            }
            if let Ok(d) = NaiveDate::parse_from_str(t, "%Y-%m-%d")
                && let Some(n) = d.and_hms_opt(0, 0, 0)
            {
                return Ok(n.and_utc());
            }
            Err(format!(
                "timestamp {s:?} is not a date: use RFC 3339 (2026-05-04T09:14:07.250Z)"
            ))
        }
        other => Err(format!(
            "timestamp {} is not a date: use RFC 3339 (2026-05-04T09:14:07.250Z)",
            other.to_json()
        )),
    }
}

/// Goldfish's reading of `confidence`: a number is rounded, text is read as a whole number
/// (`"4.6"` → 4), and anything outside 1–5 is left out.
fn parse_confidence(value: &Loose) -> Result<Option<u8>, String> {
    let n = match value {
        Loose::Null => return Ok(None),
        Loose::Int(i) => *i as f64,
        Loose::Float(f) => *f,
        Loose::Str(s) => {
            let t = s.trim_start();
            let digits: String = t
                .char_indices()
                .take_while(|&(i, c)| c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+')))
                .map(|(_, c)| c)
                .collect();
            match digits.parse::<i64>() {
                Ok(i) => i as f64,
                Err(_) => return Err(format!("confidence {s:?} is not a number")),
            }
        }
        other => return Err(format!("confidence {} is not a number", other.to_json())),
    };
    let rounded = (n + 0.5).floor();
    if (1.0..=5.0).contains(&rounded) {
        Ok(Some(rounded as u8))
    } else {
        Err(format!("confidence {n} is outside 1–5"))
    }
}

/// Parses one checkpoint file (`YYYY-MM-DD/HHMMSS_xxxx.md`) as Goldfish 5–8 reads it.
///
/// Returns the record (its `path` empty) and the values that were left out, or why the file
/// cannot be read. Never panics, whatever the input.
pub fn parse_memory_file(text: &str) -> Result<(MemoryRecord, Vec<Unmapped>), ParseError> {
    let normalized = normalize(text);
    let Some((yaml, body)) = split(&normalized, 0) else {
        return Err(ParseError {
            line: 1,
            message: "no YAML frontmatter: a checkpoint file starts with a `---` line, then \
                      the YAML, then a closing `---` line"
                .to_string(),
        });
    };
    let front: CheckpointFront = if yaml.trim().is_empty() {
        CheckpointFront::default()
    } else {
        serde_saphyr::from_str(yaml).map_err(|e| yaml_error(&e, "checkpoint's"))?
    };
    let mut unmapped = Vec::new();

    let id = front
        .id
        .0
        .filter(|s| !js_trim(s).is_empty())
        .ok_or_else(|| ParseError {
            line: 1,
            message: "the frontmatter has no `id`".to_string(),
        })?;
    let timestamp = parse_timestamp(&front.timestamp).map_err(|message| ParseError {
        line: key_line(yaml, "timestamp"),
        message,
    })?;

    if let TextList::NotAList(v) = &front.tags {
        unmapped.push(Unmapped {
            line: key_line(yaml, "tags"),
            message: format!("`tags` is not a list ({}); left out", v.to_json()),
        });
    }

    let git = front.git.map(|g| {
        let files = [&g.files, &g.files_changed, &g.files_changed_camel]
            .into_iter()
            .find(|l| matches!(l, TextList::List(items) if !items.is_empty()))
            .map(TextList::verbatim)
            .unwrap_or_default();
        GitInfo {
            branch: nonempty(g.branch),
            commit: nonempty(g.commit),
            worktree: nonempty(g.worktree),
            files,
        }
    });
    let actor = front.actor.map(|a| {
        let mut actor = Actor::default();
        actor.harness = nonempty(a.harness);
        actor.model = nonempty(a.model);
        actor.session = nonempty(a.session);
        actor.user = nonempty(a.user);
        actor.git_user = nonempty(a.git_user);
        actor.git_email = nonempty(a.git_email);
        actor
    });

    let mut extra = extra_keys(yaml, &CHECKPOINT_KEYS);
    let memory_type = match nonempty(front.memory_type) {
        None => None,
        Some(t) => match t.parse::<MemoryType>() {
            Ok(t) => Some(t),
            Err(e) => {
                unmapped.push(Unmapped {
                    line: key_line(yaml, "type"),
                    message: format!("{}; kept as an extra field", e.message()),
                });
                extra.insert("type".to_string(), serde_json::Value::String(t));
                None
            }
        },
    };
    let confidence = match parse_confidence(&front.confidence) {
        Ok(c) => c,
        Err(message) => {
            unmapped.push(Unmapped {
                line: key_line(yaml, "confidence"),
                message: format!("{message}; kept as an extra field"),
            });
            extra.insert("confidence".to_string(), front.confidence.to_json());
            None
        }
    };

    let mut structured = Structured::default();
    structured.context = nonempty(front.context);
    structured.decision = nonempty(front.decision);
    structured.alternatives = front.alternatives.normalized();
    structured.impact = nonempty(front.impact);
    structured.evidence = front.evidence.normalized();
    structured.symbols = front.symbols.normalized();
    structured.next = nonempty(front.next);
    structured.confidence = confidence;
    structured.unknowns = front.unknowns.normalized();

    let record = MemoryRecord {
        id,
        timestamp,
        description: js_trim(body).to_string(),
        memory_type,
        structured,
        tags: front.tags.normalized(),
        summary: nonempty(front.summary),
        git: git.filter(|g| !g.is_empty()),
        actor: actor.filter(|a| !a.is_empty()),
        brief_id: nonempty(front.brief_id).or_else(|| nonempty(front.plan_id)),
        extra,
        path: PathBuf::new(),
    };
    Ok((record, unmapped))
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct BriefFront {
    id: Text,
    title: Text,
    status: Text,
    created: Loose,
    updated: Loose,
    tags: TextList,
}

const BRIEF_KEYS: [&str; 6] = ["id", "title", "status", "created", "updated", "tags"];

/// Parses one brief file (`briefs/{id}.md`) as Goldfish 5–8 reads it. `active` is false:
/// only the directory knows which brief is active.
pub fn parse_brief_file(text: &str) -> Result<(Brief, Vec<Unmapped>), ParseError> {
    let normalized = normalize(text);
    let Some((yaml, body)) = split(&normalized, 1) else {
        return Err(ParseError {
            line: 1,
            message: "no YAML frontmatter: a brief file starts with a `---` line, then the \
                      YAML, then a closing `---` line"
                .to_string(),
        });
    };
    let front: BriefFront = serde_saphyr::from_str(yaml).map_err(|e| yaml_error(&e, "brief's"))?;
    let mut unmapped = Vec::new();
    let id = nonempty(front.id).ok_or_else(|| ParseError {
        line: 1,
        message: "the frontmatter has no `id`".to_string(),
    })?;
    let status = match nonempty(front.status) {
        None => PlanStatus::Active,
        Some(s) => s.parse::<PlanStatus>().unwrap_or_else(|e| {
            unmapped.push(Unmapped {
                line: key_line(yaml, "status"),
                message: format!("{}; read as active", e.message()),
            });
            PlanStatus::Active
        }),
    };
    let mut time = |key: &str, v: &Loose| match v {
        Loose::Null => None,
        v => parse_timestamp(v)
            .map_err(|m| {
                unmapped.push(Unmapped {
                    line: key_line(yaml, key),
                    message: format!("`{key}`: {m}; left out"),
                })
            })
            .ok(),
    };
    let created = time("created", &front.created);
    let updated = time("updated", &front.updated);
    if let TextList::NotAList(v) = &front.tags {
        unmapped.push(Unmapped {
            line: key_line(yaml, "tags"),
            message: format!("`tags` is not a list ({}); left out", v.to_json()),
        });
    }
    let body = body.strip_prefix('\n').unwrap_or(body);
    let body = body.strip_suffix('\n').unwrap_or(body);
    let brief = Brief {
        title: nonempty(front.title).unwrap_or_else(|| id.clone()),
        id,
        status,
        created,
        updated,
        tags: front.tags.verbatim(),
        body: body.to_string(),
        active: false,
        extra: extra_keys(yaml, &BRIEF_KEYS),
        path: PathBuf::new(),
    };
    Ok((brief, unmapped))
}

fn is_day_dir(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

fn list_dir(dir: &Path, problems: &mut Vec<Error>) -> Vec<(String, PathBuf)> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            problems.push(Error::io(dir, "list the directory", e));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => {
                // A name that is not UTF-8 cannot be one of Goldfish's.
                if let Ok(name) = entry.file_name().into_string() {
                    out.push((name, entry.path()));
                }
            }
            Err(e) => problems.push(Error::io(dir, "list the directory", e)),
        }
    }
    out.sort();
    out
}

/// Reads `path` as UTF-8 text, for a reader of goldfish's text sources (Goldfish 5–8
/// files, JSON Lines). Invalid UTF-8 is a [`ErrorKind::Malformed`] error at the 1-based line
/// of the first bad byte ([`Error::line`]), whose message gives that byte's offset in the
/// file, as a JSON error gives its line and column: in a file of 100,000 lines the line is
/// what lets one find it. [`Error::is_invalid_utf8`] is true of it.
///
/// # Errors
///
/// An [`ErrorKind::Io`] error when the file cannot be read; the error above when it is not
/// UTF-8.
pub fn read_text(path: &Path) -> Result<String, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, "read the file", e))?;
    String::from_utf8(bytes).map_err(|e| {
        let bad = e.utf8_error();
        let offset = bad.valid_up_to();
        let line = 1 + e.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        // The source's text ("invalid utf-8 sequence of 1 bytes from index N") is quoted,
        // so that a caller printing the chain of causes does not repeat it.
        Error::new(
            ErrorKind::Malformed,
            path,
            format!(
                "not valid UTF-8 at byte offset {offset} ({bad}); fix the file's encoding and \
                 read it again"
            ),
        )
        .at_line(Some(line))
        .with_source(bad)
    })
}

fn unmapped_errors(path: &Path, unmapped: Vec<Unmapped>) -> impl Iterator<Item = Error> + '_ {
    unmapped
        .into_iter()
        .map(move |u| Error::new(ErrorKind::Unmapped, path, u.message).at_line(Some(u.line)))
}

/// Reads every checkpoint and brief of a Goldfish 5–8 project, without writing anything.
///
/// `path` is the project directory (holding `.memories/`) or the `.memories` directory
/// itself. A file that cannot be parsed is reported in [`MemoriesDir::problems`] with its
/// path and line, and the rest is read; only a `path` that is not a directory is an error.
pub fn read_memories(path: &Path) -> Result<MemoriesDir, Error> {
    let nested = path.join(".memories");
    let dir = if nested.is_dir() {
        nested
    } else {
        path.to_path_buf()
    };
    // A directory given directly must look like a `.memories` directory (by name, or by
    // holding day directories or briefs), so that a project without one is not read as an
    // empty store.
    let looks_like_memories = || {
        dir.file_name().is_some_and(|n| n == ".memories")
            || ["briefs", "plans"].iter().any(|d| dir.join(d).is_dir())
            || std::fs::read_dir(&dir).is_ok_and(|entries| {
                entries
                    .flatten()
                    .any(|e| e.file_name().to_str().is_some_and(is_day_dir) && e.path().is_dir())
            })
    };
    if !dir.is_dir() || !looks_like_memories() {
        return Err(Error::new(
            ErrorKind::Io,
            path,
            "no Goldfish memories here: give a project directory holding `.memories/`, or \
             the `.memories` directory itself",
        ));
    }
    let mut out = MemoriesDir {
        dir: dir.clone(),
        ..MemoriesDir::default()
    };
    let mut problems = Vec::new();

    for (name, day) in list_dir(&dir, &mut problems) {
        if !is_day_dir(&name) || !day.is_dir() {
            continue;
        }
        for (file, path) in list_dir(&day, &mut problems) {
            if file.ends_with(".json") {
                problems.push(Error::new(
                    ErrorKind::Unmapped,
                    &path,
                    "a legacy JSON checkpoint: this reader reads only markdown checkpoints; \
                     the file is left out",
                ));
                continue;
            }
            if !file.ends_with(".md") {
                continue;
            }
            let text = match read_text(&path) {
                Ok(t) => t,
                Err(e) => {
                    problems.push(e);
                    continue;
                }
            };
            match parse_memory_file(&text) {
                Ok((mut record, unmapped)) => {
                    problems.extend(unmapped_errors(&path, unmapped));
                    record.path = path;
                    out.checkpoints.push(record);
                }
                Err(e) => problems.push(
                    Error::new(
                        ErrorKind::Malformed,
                        &path,
                        format!("{}; the checkpoint is skipped", e.message),
                    )
                    .at_line(Some(e.line)),
                ),
            }
        }
    }
    out.checkpoints.sort_by(|a, b| {
        b.timestamp
            .cmp(&a.timestamp)
            .then_with(|| a.path.cmp(&b.path))
    });

    // Briefs, then the briefs Goldfish still reads from `plans/` (before the rename) unless
    // `briefs/` has one with the same id.
    for sub in ["briefs", "plans"] {
        for (file, path) in list_dir(&dir.join(sub), &mut problems) {
            if !file.ends_with(".md") || file.starts_with('.') {
                continue;
            }
            let text = match read_text(&path) {
                Ok(t) => t,
                Err(e) => {
                    problems.push(e);
                    continue;
                }
            };
            match parse_brief_file(&text) {
                Ok((mut brief, unmapped)) => {
                    problems.extend(unmapped_errors(&path, unmapped));
                    if out.briefs.iter().any(|b| b.id == brief.id) {
                        continue;
                    }
                    brief.path = path;
                    out.briefs.push(brief);
                }
                Err(e) => problems.push(
                    Error::new(
                        ErrorKind::Malformed,
                        &path,
                        format!("{}; the brief is skipped", e.message),
                    )
                    .at_line(Some(e.line)),
                ),
            }
        }
    }
    out.briefs.sort_by(|a, b| a.id.cmp(&b.id));

    for marker in [".active-brief", ".active-plan"] {
        let path = dir.join(marker);
        match read_text(&path) {
            Ok(text) => {
                let id = js_trim(&text);
                if !id.is_empty() {
                    out.active_marker = Some(id.to_string());
                    break;
                }
            }
            Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => {}
            Err(e) => problems.push(e),
        }
    }
    if let Some(id) = &out.active_marker
        && let Some(brief) = out
            .briefs
            .iter_mut()
            .find(|b| &b.id == id && b.status == PlanStatus::Active)
    {
        brief.active = true;
    }
    out.problems = problems;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    type SplitCase = (&'static str, usize, Option<(&'static str, &'static str)>);

    #[test]
    fn split_finds_the_first_closing_line() {
        let cases: [SplitCase; 7] = [
            ("---\na: 1\n---\n\nbody", 0, Some(("a: 1", "\nbody"))),
            ("---\n\n---\nbody", 0, Some(("", "body"))),
            ("---\n\n---\nbody", 1, None),
            (
                "---\na: |-\n  ---\n---\n\n---\nx\n---\n",
                0,
                Some(("a: |-\n  ---", "\n---\nx\n---\n")),
            ),
            ("---\na: 1\n---", 0, None),
            ("a: 1\n---\n", 0, None),
            ("", 0, None),
        ];
        for (text, min, want) in cases {
            assert_eq!(split(text, min), want, "{text:?}");
        }
    }

    #[test]
    fn confidence_as_goldfish_reads_it() {
        let cases = [
            (Loose::Int(3), Ok(Some(3))),
            (Loose::Float(4.5), Ok(Some(5))),
            (Loose::Str("4.6".into()), Ok(Some(4))),
            (Loose::Str(" 2x".into()), Ok(Some(2))),
            (Loose::Null, Ok(None)),
        ];
        for (v, want) in cases {
            assert_eq!(parse_confidence(&v), want, "{v:?}");
        }
        for v in [
            Loose::Int(0),
            Loose::Int(7),
            Loose::Str("high".into()),
            Loose::Bool(true),
        ] {
            assert!(parse_confidence(&v).is_err(), "{v:?}");
        }
    }

    #[test]
    fn timestamps_in_every_accepted_form() {
        let want = |s: &str| DateTime::parse_from_rfc3339(s).map(|d| d.with_timezone(&Utc));
        let cases = [
            (
                Loose::Str("2026-05-04T09:14:07.250Z".into()),
                "2026-05-04T09:14:07.250Z",
            ),
            (
                Loose::Str("2026-05-04T11:14:07+02:00".into()),
                "2026-05-04T09:14:07Z",
            ),
            (Loose::Str("2026-05-04".into()), "2026-05-04T00:00:00Z"),
            (Loose::Int(1_777_886_047), "2026-05-04T09:14:07Z"),
            (Loose::Int(1_777_886_047_250), "2026-05-04T09:14:07.250Z"),
        ];
        for (v, s) in cases {
            assert_eq!(parse_timestamp(&v).ok(), want(s).ok(), "{v:?}");
        }
        for v in [
            Loose::Null,
            Loose::Str(String::new()),
            Loose::Str("soon".into()),
            Loose::Float(f64::INFINITY),
        ] {
            assert!(parse_timestamp(&v).is_err(), "{v:?}");
        }
    }

    #[test]
    fn broken_frontmatter_names_the_line() {
        let text = "---\nid: checkpoint_1\ntimestamp: 2026-05-04T09:14:07.250Z\ntags: [a, b\n---\n\nbody\n";
        let err = parse_memory_file(text).expect_err("unclosed flow list");
        assert!(err.line >= 4, "{err:?}");
        let err = parse_memory_file("no frontmatter").expect_err("none");
        assert_eq!(err.line, 1);
        let err = parse_memory_file("---\nid: x\ntimestamp: soon\n---\n\nb").expect_err("time");
        assert_eq!(err.line, 3, "{err:?}");
        let err = parse_memory_file("---\ntimestamp: 2026-05-04\n---\n\nb").expect_err("id");
        assert!(err.message.contains("`id`"), "{err:?}");
    }

    #[test]
    fn crlf_is_replaced_once_as_goldfish_does() {
        // Found by the fuzzer: `\r\r\n` becomes `\r\n`, not `\n` (one non-overlapping pass,
        // like JavaScript's `replace(/\r\n/g, "\n")`).
        let text =
            "---\r\nid: c1\r\ntimestamp: 2026-05-05T15:02:11.000Z\r\n---\r\n\r\na\r\r\nb\r\n";
        let (record, _) = parse_memory_file(text).expect("readable");
        assert_eq!(record.description, "a\r\nb");
        let crlf = text.replace("\r\n", "\n").replace('\n', "\r\n");
        assert_eq!(parse_memory_file(&crlf).expect("readable").0, record);
    }

    #[test]
    fn unknown_values_are_kept_and_reported() {
        let text = "---\nid: c1\ntimestamp: 2026-05-04T09:14:07.250Z\ntype: musing\nconfidence: 9\nmood: yes\n---\n\nbody";
        let (record, unmapped) = parse_memory_file(text).expect("readable");
        assert_eq!(record.memory_type, None);
        assert_eq!(record.structured.confidence, None);
        assert_eq!(record.extra["type"], "musing");
        assert_eq!(record.extra["confidence"], 9);
        assert!(record.extra.contains_key("mood"));
        let lines: Vec<usize> = unmapped.iter().map(|u| u.line).collect();
        assert_eq!(lines, [4, 5]);
    }
}
