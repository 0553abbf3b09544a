//! Plans: the value, and pure parsing and formatting of `plans/{id}.md`.
//!
//! A plan file is YAML frontmatter, a blank line and the markdown content, exactly as
//! Goldfish v4 wrote and read it: the content is everything after that blank line, byte for
//! byte, so a `# Title` heading that the content opens with (as v4 plans usually do) is part
//! of the content, as v4 showed it. The title lives in the frontmatter; a file without a
//! `title:` key takes its title from a leading `# heading` (which stays in the content).
//!
//! Frontmatter is rewritten from its parsed values on every save: YAML comments (`# …`
//! lines) in the frontmatter, key order and quoting style are **not** preserved. Unknown keys
//! and their values are kept ([`Plan::extra`]), and the content is kept byte for byte.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use goldfish_core::time::{format_utc, parse_utc, truncate_millis};
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Where a plan stands: its own state, written in its file.
///
/// A plan whose status is [`Active`](PlanStatus::Active) is open (not completed or archived);
/// a workspace may have many. The workspace's *active plan* ([`Store::active_plan`]) is
/// something else: the one plan chosen as the current focus, by
/// [`Store::activate_plan`] or a save with [`PlanInput::activate`]. A new plan is `active`
/// but is not the workspace's active plan until it is chosen:
///
/// ```
/// use goldfish_store::{PlanInput, PlanStatus, Store};
/// let dir = tempfile::tempdir()?;
/// let store = Store::open(dir.path())?;
/// let mut input = PlanInput::new("Auth", "- [ ] JWT");
/// input.workspace = Some("api".into());
/// let plan = store.save_plan(input)?;
/// assert_eq!(plan.status, PlanStatus::Active);
/// assert!(store.active_plan("api")?.is_none());
/// store.activate_plan("api", &plan.id)?;
/// assert_eq!(store.active_plan("api")?.map(|p| p.id), Some(plan.id));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`Store::active_plan`]: crate::Store::active_plan
/// [`Store::activate_plan`]: crate::Store::activate_plan
/// [`PlanInput::activate`]: crate::PlanInput::activate
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlanStatus {
    /// Open: being worked on (the default). Not the same as being the workspace's active
    /// plan; see [`PlanStatus`].
    #[default]
    Active,
    /// Done.
    Completed,
    /// Put away without being done.
    Archived,
}

impl PlanStatus {
    /// The status as written in frontmatter: `active`, `completed` or `archived`.
    pub fn as_str(self) -> &'static str {
        match self {
            PlanStatus::Active => "active",
            PlanStatus::Completed => "completed",
            PlanStatus::Archived => "archived",
        }
    }
}

impl fmt::Display for PlanStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for PlanStatus {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "active" => Ok(PlanStatus::Active),
            "completed" => Ok(PlanStatus::Completed),
            "archived" => Ok(PlanStatus::Archived),
            _ => Err(Error::invalid(format!(
                "unknown plan status {s:?}: use active, completed or archived"
            ))),
        }
    }
}

/// A plan: YAML frontmatter (`id, title, status, created, updated, tags`, other keys kept)
/// followed by a blank line and the markdown content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Plan {
    /// The plan's id: its file name without `.md`, `[a-z0-9-]+`.
    pub id: String,
    /// The plan's title (one line).
    pub title: String,
    /// Where it stands.
    pub status: PlanStatus,
    /// When it was first saved (UTC).
    pub created: DateTime<Utc>,
    /// When it was last changed (UTC).
    pub updated: DateTime<Utc>,
    /// Tags.
    pub tags: Vec<String>,
    /// The markdown body after the frontmatter and its blank line, exactly as saved. A
    /// leading `# Title` heading is part of it (Goldfish v4 showed it so).
    pub content: String,
    /// The workspace the plan belongs to.
    pub workspace: String,
    /// Frontmatter keys this crate does not know, kept as they were (as YAML values).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Plan {
    /// A new active plan with no tags, created and updated at `now`.
    pub fn new(
        id: impl Into<String>,
        title: impl Into<String>,
        content: impl Into<String>,
        workspace: impl Into<String>,
        now: DateTime<Utc>,
    ) -> Self {
        Plan {
            id: id.into(),
            title: title.into(),
            status: PlanStatus::Active,
            created: now,
            updated: now,
            tags: Vec::new(),
            content: content.into(),
            workspace: workspace.into(),
            extra: BTreeMap::new(),
        }
    }
}

/// How far a plan has got: its checked and open task boxes.
///
/// A box is a list item whose text starts with `[ ]` (open) or `[x]` / `[X]` (done), under a
/// `-`, `*` or `+` bullet, at any indentation. Everything that shows plan progress (the CLI,
/// the MCP server, standup) counts with [`Plan::progress`], so they always agree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Progress {
    /// Checked boxes (`- [x]`).
    pub done: usize,
    /// Open boxes (`- [ ]`).
    pub open: usize,
}

impl Progress {
    /// Counts the task boxes of markdown text (see [`Progress`] for what counts).
    ///
    /// ```
    /// let p = goldfish_store::Progress::of("- [x] JWT\n+ [ ] OAuth2\n  * [X] nested\n");
    /// assert_eq!((p.done, p.open, p.total()), (2, 1, 3));
    /// ```
    pub fn of(markdown: &str) -> Progress {
        let mut progress = Progress::default();
        for item in checklist(markdown) {
            if item.done {
                progress.done += 1;
            } else {
                progress.open += 1;
            }
        }
        progress
    }

    /// All boxes, checked or not.
    pub fn total(self) -> usize {
        self.done + self.open
    }
}

/// One task box of a plan's checklist: its text and whether it is checked.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ChecklistItem {
    /// The item's text after the box, trimmed (`"JWT"` for `- [x] JWT`).
    pub text: String,
    /// Whether the box is checked (`[x]` or `[X]`).
    pub done: bool,
}

/// The task boxes of markdown text, in order (see [`Progress`] for what counts as a box).
///
/// ```
/// let items = goldfish_store::checklist("Goals\n- [x] JWT\n  * [ ] OAuth2\n");
/// assert_eq!(items.len(), 2);
/// assert_eq!((items[0].text.as_str(), items[0].done), ("JWT", true));
/// assert_eq!((items[1].text.as_str(), items[1].done), ("OAuth2", false));
/// ```
pub fn checklist(markdown: &str) -> Vec<ChecklistItem> {
    boxes(markdown).map(|(_, item)| item).collect()
}

/// The task boxes of markdown text with the byte offset of each box's `[`.
fn boxes(markdown: &str) -> impl Iterator<Item = (usize, ChecklistItem)> + '_ {
    let mut start = 0;
    markdown.split_inclusive('\n').filter_map(move |line| {
        let line_start = start;
        start += line.len();
        let l = line.trim_start();
        let rest = l
            .strip_prefix("- ")
            .or_else(|| l.strip_prefix("* "))
            .or_else(|| l.strip_prefix("+ "))?;
        let (done, text) = if let Some(t) = rest.strip_prefix("[ ]") {
            (false, t)
        } else if let Some(t) = rest
            .strip_prefix("[x]")
            .or_else(|| rest.strip_prefix("[X]"))
        {
            (true, t)
        } else {
            return None;
        };
        let at = line_start + (line.len() - rest.len());
        Some((
            at,
            ChecklistItem {
                text: text.trim().to_string(),
                done,
            },
        ))
    })
}

/// Which item of a plan's checklist to check or uncheck: its position in
/// [`Plan::checklist`] (from 0), or its text. `3.into()` and `"JWT".into()` both work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChecklistRef {
    /// The item at this position of [`Plan::checklist`], from 0.
    Index(usize),
    /// The item whose text is this (ignoring case and surrounding spaces); when none is
    /// equal, the one item whose text contains it.
    Text(String),
}

impl From<usize> for ChecklistRef {
    fn from(index: usize) -> Self {
        ChecklistRef::Index(index)
    }
}

impl From<&str> for ChecklistRef {
    fn from(text: &str) -> Self {
        ChecklistRef::Text(text.to_string())
    }
}

impl From<String> for ChecklistRef {
    fn from(text: String) -> Self {
        ChecklistRef::Text(text)
    }
}

impl fmt::Display for ChecklistRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChecklistRef::Index(i) => write!(f, "item {i}"),
            ChecklistRef::Text(t) => write!(f, "item {t:?}"),
        }
    }
}

impl Plan {
    /// The plan's progress: the checked and open task boxes of its content.
    pub fn progress(&self) -> Progress {
        Progress::of(&self.content)
    }

    /// The plan's checklist: the task boxes of its content, in order.
    pub fn checklist(&self) -> Vec<ChecklistItem> {
        checklist(&self.content)
    }

    /// Checks one item of the checklist (`- [ ] x` → `- [x] x`) and returns it; the rest of
    /// the content is left byte for byte. Checking a checked item changes nothing. Errors: no
    /// such item ([`ErrorKind::NotFound`](crate::ErrorKind::NotFound), listing the items), or
    /// text that matches several ([`ErrorKind::InvalidInput`](crate::ErrorKind::InvalidInput)).
    ///
    /// ```
    /// let now = chrono::Utc::now();
    /// let mut plan = goldfish_store::Plan::new("p", "P", "- [ ] JWT\n- [ ] OAuth2\n", "api", now);
    /// plan.check("oauth2")?;
    /// plan.check(0)?;
    /// plan.uncheck("JWT")?;
    /// assert_eq!(plan.content, "- [ ] JWT\n- [x] OAuth2\n");
    /// # Ok::<(), goldfish_store::Error>(())
    /// ```
    pub fn check(&mut self, item: impl Into<ChecklistRef>) -> Result<ChecklistItem, Error> {
        self.set_checked(item.into(), true)
    }

    /// Unchecks one item of the checklist (`- [x] x` → `- [ ] x`); see [`Plan::check`].
    pub fn uncheck(&mut self, item: impl Into<ChecklistRef>) -> Result<ChecklistItem, Error> {
        self.set_checked(item.into(), false)
    }

    fn set_checked(&mut self, item: ChecklistRef, done: bool) -> Result<ChecklistItem, Error> {
        let all: Vec<(usize, ChecklistItem)> = boxes(&self.content).collect();
        let found = match &item {
            ChecklistRef::Index(i) => all.get(*i),
            ChecklistRef::Text(text) => {
                let want = text.trim().to_lowercase();
                let equal: Vec<_> = all
                    .iter()
                    .filter(|(_, it)| it.text.to_lowercase() == want)
                    .collect();
                let candidates = if equal.is_empty() && !want.is_empty() {
                    all.iter()
                        .filter(|(_, it)| it.text.to_lowercase().contains(&want))
                        .collect()
                } else {
                    equal
                };
                match candidates[..] {
                    [one] => Some(one),
                    [] => None,
                    ref many => {
                        let texts: Vec<String> = many
                            .iter()
                            .map(|(_, it)| format!("{:?}", it.text))
                            .collect();
                        return Err(Error::invalid(format!(
                            "{item} of plan {:?} matches {} checklist items ({}); give more of its text or its index",
                            self.id,
                            many.len(),
                            texts.join(", ")
                        )));
                    }
                }
            }
        };
        let Some((at, found)) = found else {
            let texts: Vec<String> = all
                .iter()
                .enumerate()
                .map(|(i, (_, it))| format!("{i}: {:?}", it.text))
                .collect();
            return Err(Error::new(
                crate::ErrorKind::NotFound,
                format!(
                    "plan {:?} has no checklist {item}; its items are {}",
                    self.id,
                    if texts.is_empty() {
                        "none".to_string()
                    } else {
                        texts.join(", ")
                    }
                ),
            ));
        };
        self.content
            .replace_range(*at..*at + 3, if done { "[x]" } else { "[ ]" });
        Ok(ChecklistItem {
            text: found.text.clone(),
            done,
        })
    }
}

const KNOWN_KEYS: [&str; 6] = ["id", "title", "status", "created", "updated", "tags"];

#[derive(Deserialize)]
struct FrontIn {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    created: Option<String>,
    #[serde(default)]
    updated: Option<String>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    #[serde(flatten)]
    extra: BTreeMap<String, serde_json::Value>,
}

#[derive(Serialize)]
struct FrontOut<'a> {
    id: &'a str,
    title: &'a str,
    status: &'a str,
    created: String,
    updated: String,
    tags: serde_saphyr::FlowSeq<&'a [String]>,
    #[serde(flatten)]
    extra: BTreeMap<&'a str, &'a serde_json::Value>,
}

/// Formats a plan file: frontmatter, a blank line, then the content exactly as it is (the
/// layout Goldfish v4 wrote). The frontmatter is written from the plan's fields, so comments
/// that a parsed file's frontmatter had are not written back.
pub fn format_plan(plan: &Plan) -> String {
    let front = FrontOut {
        id: &plan.id,
        title: &plan.title,
        status: plan.status.as_str(),
        created: format_utc(&plan.created),
        updated: format_utc(&plan.updated),
        tags: serde_saphyr::FlowSeq(&plan.tags),
        extra: plan
            .extra
            .iter()
            .filter(|(k, _)| !KNOWN_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.as_str(), v))
            .collect(),
    };
    // Serialising strings, string lists and JSON values to YAML cannot fail; fall back to a
    // minimal frontmatter rather than panic if it ever did.
    let yaml = serde_saphyr::to_string(&front)
        .unwrap_or_else(|_| format!("id: {}\nstatus: {}\n", plan.id, plan.status.as_str()));
    let mut out = String::with_capacity(yaml.len() + plan.content.len() + 16);
    out.push_str("---\n");
    out.push_str(&yaml);
    if !yaml.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("---\n\n");
    out.push_str(&plan.content);
    out
}

/// Parses a plan file. `id` (the file name without `.md`) is used when the frontmatter has
/// none; `workspace` fills in [`Plan::workspace`].
///
/// The content is everything after the closing `---` line and one blank line, byte for byte
/// (a leading `# Title` heading included, as Goldfish v4 read it back). Without a `title:`
/// key, the text of a leading `# heading` is the title, else the id. Frontmatter comments are
/// read past and are not kept.
///
/// Errors name the line: a missing or unclosed frontmatter, YAML that does not parse, an
/// unknown status, or a missing or malformed `created`/`updated` timestamp.
pub fn parse_plan(text: &str, workspace: &str, id: &str) -> Result<Plan, Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(after_open) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Err(Error::parse(
            Some(1),
            "a plan file must start with `---` and YAML frontmatter; add it or move the file out of plans/",
        ));
    };
    // Find the closing `---` line.
    let mut offset = 0;
    let mut close = None;
    for line in after_open.split_inclusive('\n') {
        if line.trim_end() == "---" {
            close = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let Some((yaml_end, body_start)) = close else {
        return Err(Error::parse(
            Some(1),
            "the plan's frontmatter is not closed by a `---` line; add one after the YAML",
        ));
    };
    let yaml = &after_open[..yaml_end];
    let front: FrontIn = if yaml.trim().is_empty() {
        FrontIn {
            id: None,
            title: None,
            status: None,
            created: None,
            updated: None,
            tags: None,
            extra: BTreeMap::new(),
        }
    } else {
        serde_saphyr::from_str(yaml).map_err(|e| {
            // The YAML starts on line 2 of the file.
            let line = e.location().map(|l| l.line() as usize + 1);
            let msg = e.to_string();
            let first = msg.lines().next().unwrap_or("invalid YAML").to_string();
            Error::parse(
                line,
                format!("the plan's frontmatter is not valid YAML: {first}"),
            )
        })?
    };
    let frontmatter_line = |key: &str| {
        yaml.lines()
            .position(|l| l.starts_with(&format!("{key}:")))
            .map(|i| i + 2)
            .or(Some(1))
    };
    let status = match &front.status {
        Some(s) => s
            .parse::<PlanStatus>()
            .map_err(|e| Error::parse(frontmatter_line("status"), e.message().to_string()))?,
        None => PlanStatus::Active,
    };
    let timestamp = |key: &str, value: &Option<String>| -> Result<Option<DateTime<Utc>>, Error> {
        match value {
            None => Ok(None),
            // Truncated to what `format_utc` writes, so that parse → format → parse is stable.
            Some(v) => parse_utc(v)
                .map(|t| Some(truncate_millis(t)))
                .map_err(|e| Error::parse(frontmatter_line(key), format!("`{key}`: {e}"))),
        }
    };
    let created = timestamp("created", &front.created)?;
    let updated = timestamp("updated", &front.updated)?;
    let (created, updated) = match (created, updated) {
        (Some(c), Some(u)) => (c, u),
        (Some(c), None) => (c, c),
        (None, Some(u)) => (u, u),
        (None, None) => {
            return Err(Error::parse(
                Some(1),
                "the plan's frontmatter has no `created` timestamp; add one such as `created: 2025-10-13T09:00:00Z`",
            ));
        }
    };
    // The body: one blank line, then the content, kept whole.
    let mut body = &after_open[body_start..];
    body = body
        .strip_prefix("\r\n")
        .or_else(|| body.strip_prefix('\n'))
        .unwrap_or(body);
    // A file without `title:` (as in hand-written plans) is titled by its first heading.
    let heading = body.strip_prefix("# ").map(|rest| {
        let line = rest.split('\n').next().unwrap_or("");
        line.strip_suffix('\r').unwrap_or(line).trim().to_string()
    });
    // The file name is the id: it is what `get_plan` looks up, so a hand-edited `id:` that
    // disagrees with it cannot make the plan unreachable.
    let _ = front.id;
    let id = id.to_string();
    let title = front
        .title
        .or(heading.filter(|h| !h.is_empty()))
        .unwrap_or_else(|| id.clone());
    Ok(Plan {
        id,
        title,
        status,
        created,
        updated,
        tags: front.tags.unwrap_or_default(),
        content: body.to_string(),
        workspace: workspace.to_string(),
        extra: front.extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_display_honours_width_and_alignment() {
        assert_eq!(format!("{:>10}|", PlanStatus::Active), "    active|");
    }

    #[test]
    fn progress_counts_every_bullet_style() {
        let cases = [
            ("", (0, 0)),
            ("- [x] a\n- [ ] b\n- [ ] c", (1, 2)),
            ("* [X] a\n+ [ ] b\n    - [x] c", (2, 1)),
            ("- [x] a\n- [ ] b\n  - [X] c\n* [ ] d\n- [-] e\n- x", (2, 2)),
            ("-[x] no space\n- [y] other\ntext [ ] and [x]", (0, 0)),
        ];
        for (input, (done, open)) in cases {
            let p = Progress::of(input);
            assert_eq!((p.done, p.open), (done, open), "{input:?}");
        }
    }
    use chrono::TimeZone;

    fn plan() -> Plan {
        let t = Utc.with_ymd_and_hms(2025, 10, 13, 9, 0, 0).unwrap();
        let mut p = Plan::new(
            "auth-system",
            "Authentication System Redesign",
            "## Goals\n- JWT\n",
            "ws",
            t,
        );
        p.tags = vec!["backend".into(), "high-priority".into()];
        p
    }

    #[test]
    fn golden_format() {
        assert_eq!(
            format_plan(&plan()),
            "---\nid: auth-system\ntitle: Authentication System Redesign\nstatus: active\n\
             created: \"2025-10-13T09:00:00.000Z\"\nupdated: \"2025-10-13T09:00:00.000Z\"\n\
             tags: [backend, high-priority]\n---\n\n## Goals\n- JWT\n"
        );
    }

    #[test]
    fn round_trips_tricky_values() {
        let contents = [
            "",
            "x",
            "\n\nleading blanks",
            "no newline",
            "---\nnot frontmatter\n---\n",
            "# Heading\n",
        ];
        let titles = [
            "Plan",
            "a: b",
            "#hash",
            "yes",
            "123",
            "quote \" and ' both",
            "- dash",
        ];
        for content in contents {
            for title in titles {
                let mut p = plan();
                p.content = content.to_string();
                p.title = title.to_string();
                p.tags = vec!["a, b".into(), "true".into(), "[x]".into()];
                p.extra.insert("owner".into(), serde_json::json!("murphy"));
                p.extra.insert("priority".into(), serde_json::json!(3));
                let text = format_plan(&p);
                let back = parse_plan(&text, "ws", "auth-system").expect(&text);
                assert_eq!(back, p, "{text}");
            }
        }
    }

    #[test]
    fn reads_seed_plan_without_title_key() {
        let text = "---\nid: auth-system\nstatus: active\ncreated: 2025-10-13T09:00:00Z\n\
                    updated: 2025-10-13T16:45:00Z\ntags: [backend, security, high-priority]\n---\n\n\
                    # Authentication System Redesign\n\n## Goals\n- Implement JWT\n";
        let p = parse_plan(text, "ws", "auth-system").unwrap();
        assert_eq!(p.title, "Authentication System Redesign");
        assert_eq!(
            p.content,
            "# Authentication System Redesign\n\n## Goals\n- Implement JWT\n"
        );
        assert_eq!(p.tags, ["backend", "security", "high-priority"]);
        assert_eq!(format_utc(&p.updated), "2025-10-13T16:45:00.000Z");
    }

    #[test]
    fn content_is_the_whole_body_as_v4_read_it() {
        let front = "---\nid: p\ntitle: My plan\ncreated: 2025-10-13T09:00:00Z\n---\n";
        let untitled = "---\nid: p\ncreated: 2025-10-13T09:00:00Z\n---\n";
        let empty_title = "---\nid: p\ntitle: \"\"\ncreated: 2025-10-13T09:00:00Z\n---\n";
        // (frontmatter, body, title, content)
        let cases = [
            (
                front,
                "\n# Phase 1\n- [ ] do x\n",
                "My plan",
                "# Phase 1\n- [ ] do x\n",
            ),
            (
                front,
                "\n# My plan\n\n# Phase 1\n",
                "My plan",
                "# My plan\n\n# Phase 1\n",
            ),
            (front, "\n# My plan\n- x", "My plan", "# My plan\n- x"),
            (
                front,
                "\r\n# My plan\r\n\r\nx\r\n",
                "My plan",
                "# My plan\r\n\r\nx\r\n",
            ),
            (front, "# Phase 1\n", "My plan", "# Phase 1\n"),
            (front, "\n\nx", "My plan", "\nx"),
            (front, "", "My plan", ""),
            (
                untitled,
                "\n# Heading\n\nx\n",
                "Heading",
                "# Heading\n\nx\n",
            ),
            (
                untitled,
                "\n# Heading \r\nx\n",
                "Heading",
                "# Heading \r\nx\n",
            ),
            (untitled, "\nx\n", "p", "x\n"),
            (untitled, "\n# \nx\n", "p", "# \nx\n"),
            (empty_title, "\n# Phase 1\n", "", "# Phase 1\n"),
        ];
        for (front, body, title, content) in cases {
            let text = format!("{front}{body}");
            let p = parse_plan(&text, "ws", "p").expect(&text);
            assert_eq!(p.title, title, "{text:?}");
            assert_eq!(p.content, content, "{text:?}");
            let again = format_plan(&p);
            assert_eq!(parse_plan(&again, "ws", "p").expect(&again), p, "{again:?}");
        }
    }

    #[test]
    fn broken_frontmatter_names_line() {
        let cases = [
            ("no frontmatter\n", 1),
            ("---\nid: x\n", 1),
            (
                "---\nid: x\ncreated: 2025-10-13T09:00:00Z\nstatus: doing\n---\n",
                4,
            ),
            ("---\nid: x\ncreated: yesterday\n---\n", 3),
            ("---\nid: x\ntags: [unclosed\n---\n", 3),
        ];
        for (text, line) in cases {
            let err = parse_plan(text, "ws", "x").expect_err(text);
            assert!(err.is_parse(), "{text}");
            assert_eq!(err.line(), Some(line), "{text}: {err}");
        }
    }

    #[test]
    fn status_parse() {
        assert_eq!(
            "Completed".parse::<PlanStatus>().unwrap(),
            PlanStatus::Completed
        );
        let err = "done".parse::<PlanStatus>().unwrap_err();
        assert!(err.to_string().contains("active, completed or archived"));
    }
}
