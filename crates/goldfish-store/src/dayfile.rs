//! The day file format: pure parsing and formatting of `checkpoints/YYYY-MM-DD.md`.
//!
//! See the crate documentation ("Day file format") for the encoding.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, NaiveTime, Timelike, Utc};
use goldfish_core::time::{format_utc, parse_utc};

use crate::actor::ACTOR_KEYS;
use crate::checkpoint::Checkpoint;
use crate::error::Error;
use crate::memory::{MemoryType, parse_confidence};

/// Bullet keys with a field of their own; every other key goes to [`Checkpoint::extra`].
const TAGS: &str = "Tags";
const BRANCH: &str = "Branch";
const COMMIT: &str = "Commit";
const FILES: &str = "Files";
const MORE_FILES: &str = "More files";
pub(crate) const RESERVED_KEYS: [&str; 5] = [TAGS, BRANCH, COMMIT, FILES, MORE_FILES];

/// Bullet keys of typed memories (see [`crate::Structured`]). Lists are `"; "`-separated.
const TYPE: &str = "Type";
const CONTEXT: &str = "Context";
const DECISION: &str = "Decision";
const ALTERNATIVES: &str = "Alternatives";
const IMPACT: &str = "Impact";
const EVIDENCE: &str = "Evidence";
const SYMBOLS: &str = "Symbols";
const NEXT: &str = "Next";
const CONFIDENCE: &str = "Confidence";
const UNKNOWNS: &str = "Unknowns";
/// Bullet keys of supersession (any kind of memory may carry them).
const TOPIC: &str = "Topic";
const SUPERSEDES: &str = "Supersedes";

/// One problem found while parsing a day file: the 1-based line and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Problem {
    /// 1-based line number in the day file.
    pub line: usize,
    /// What is wrong and what was done about it.
    pub message: String,
}

/// The result of a lenient parse: every readable checkpoint, in file order, and the problems.
///
/// Problems never hide the other entries: a garbage block or an unreadable entry is reported
/// and skipped, everything else is returned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParsedDay {
    /// The checkpoints, in the order they appear in the file.
    pub checkpoints: Vec<Checkpoint>,
    /// What could not be read, by line.
    pub problems: Vec<Problem>,
    /// Byte offset of each checkpoint's `## ` header line (parallel to `checkpoints`).
    pub(crate) starts: Vec<usize>,
    /// Byte offset just past each checkpoint's block: the next block's `## ` line, or the end
    /// of the text (parallel to `checkpoints`).
    pub(crate) ends: Vec<usize>,
}

/// The first line of a day file: `# Checkpoints for YYYY-MM-DD`.
pub fn format_day_header(date: NaiveDate) -> String {
    format!("# Checkpoints for {}\n", date.format("%Y-%m-%d"))
}

/// A whole day file holding `checkpoints` in the given order.
pub fn format_day_file(date: NaiveDate, checkpoints: &[Checkpoint]) -> String {
    let mut out = format_day_header(date);
    for checkpoint in checkpoints {
        out.push('\n');
        out.push_str(&format_checkpoint(checkpoint));
    }
    out
}

/// Formats one checkpoint entry (ending with a newline), losslessly.
///
/// ```text
/// ## 09:30 - Fixed authentication timeout bug
/// <!-- id: 20251013T093012345Z-3fa9c1 at: 2025-10-13T09:30:12.345Z -->
/// Implemented JWT refresh tokens.
///
/// - **Tags**: bug-fix, auth
/// - **Branch**: feature/jwt-refresh
/// ```
///
/// Every value that [`parse_checkpoint_file`] can return formats and parses back equal, as
/// does every checkpoint that [`Store::save_checkpoint`](crate::Store::save_checkpoint) can
/// save. Only an empty id or an `extra` key that is reserved or contains a line break or `**:`
/// cannot be represented (such extra bullets are left out).
pub fn format_checkpoint(checkpoint: &Checkpoint) -> String {
    let mut out = String::with_capacity(128 + checkpoint.description.len());
    let mut lines = checkpoint.description.split('\n');
    let title = lines.next().unwrap_or("");
    out.push_str(&format!(
        "## {:02}:{:02} - {title}\n<!-- id: {} at: {} -->\n",
        checkpoint.timestamp.hour(),
        checkpoint.timestamp.minute(),
        encode_id(&checkpoint.id),
        format_utc(&checkpoint.timestamp),
    ));
    let body: Vec<&str> = lines.collect();
    // Index from which every body line is blank: those would be read as entry separators.
    let blank_tail = body.iter().rposition(|l| !is_blank(l)).map_or(0, |i| i + 1);
    for (i, line) in body.iter().enumerate() {
        if i >= blank_tail || needs_escape(line) {
            out.push('\\');
        }
        out.push_str(line);
        out.push('\n');
    }
    let mut bullets = String::new();
    if !checkpoint.tags.is_empty() {
        push_bullet(&mut bullets, TAGS, &encode_list(&checkpoint.tags, ','));
    }
    if let Some(branch) = &checkpoint.branch {
        push_bullet(&mut bullets, BRANCH, &encode_value(branch, None));
    }
    if let Some(commit) = &checkpoint.commit {
        push_bullet(&mut bullets, COMMIT, &encode_value(commit, None));
    }
    if !checkpoint.files.is_empty() {
        push_bullet(&mut bullets, FILES, &encode_list(&checkpoint.files, ','));
    }
    if checkpoint.files_omitted > 0 {
        push_bullet(
            &mut bullets,
            MORE_FILES,
            &checkpoint.files_omitted.to_string(),
        );
    }
    push_typed_bullets(&mut bullets, checkpoint);
    for (key, value) in checkpoint.actor.fields() {
        if let Some(value) = value {
            push_bullet(&mut bullets, key, &encode_value(value, None));
        }
    }
    // Extra bullets come last: a `Type` or `Confidence` kept there (a value its field cannot
    // hold) is read back into `extra` again, after the field's own bullet.
    for (key, value) in &checkpoint.extra {
        if is_valid_extra_key(key) {
            push_bullet(&mut bullets, key, &encode_value(value, None));
        }
    }
    if !bullets.is_empty() {
        out.push('\n');
        out.push_str(&bullets);
    }
    out
}

fn push_typed_bullets(bullets: &mut String, checkpoint: &Checkpoint) {
    if checkpoint.memory_type != MemoryType::Checkpoint {
        push_bullet(bullets, TYPE, checkpoint.memory_type.as_str());
    }
    let s = &checkpoint.structured;
    let scalar = |bullets: &mut String, key, value: &Option<String>| {
        if let Some(v) = value {
            push_bullet(bullets, key, &encode_value(v, None));
        }
    };
    let list = |bullets: &mut String, key, items: &Vec<String>| {
        if !items.is_empty() {
            push_bullet(bullets, key, &encode_list(items, ';'));
        }
    };
    scalar(bullets, CONTEXT, &s.context);
    scalar(bullets, DECISION, &s.decision);
    list(bullets, ALTERNATIVES, &s.alternatives);
    scalar(bullets, IMPACT, &s.impact);
    list(bullets, EVIDENCE, &s.evidence);
    list(bullets, SYMBOLS, &s.symbols);
    scalar(bullets, NEXT, &s.next);
    if let Some(c) = s.confidence {
        push_bullet(bullets, CONFIDENCE, &c.to_string());
    }
    list(bullets, UNKNOWNS, &s.unknowns);
    if let Some(topic) = &checkpoint.topic {
        push_bullet(bullets, TOPIC, &encode_value(topic, None));
    }
    if !checkpoint.supersedes.is_empty() {
        push_bullet(bullets, SUPERSEDES, &encode_ids(&checkpoint.supersedes));
    }
}

/// A list of ids as `"id, id"`: each id escaped as on its id line, so none holds a comma or
/// a space.
fn encode_ids(ids: &[String]) -> String {
    ids.iter()
        .map(|id| encode_id(id))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The ids of a `Supersedes` bullet; `None` when an item is empty or not a well-formed id
/// (the bullet is then kept as written in `extra`).
fn decode_ids(value: &str) -> Option<Vec<String>> {
    value
        .split(',')
        .map(|item| decode_id(item.trim()).filter(|id| !id.is_empty()))
        .collect()
}

/// True when `key` can be written as an extra `- **Key**:` bullet: not a key with a field of
/// its own (an actor's included) and on one line.
pub(crate) fn is_valid_extra_key(key: &str) -> bool {
    !RESERVED_KEYS.contains(&key)
        && !ACTOR_KEYS.contains(&key)
        && !key.contains(['\n', '\r'])
        && !key.contains("**:")
}

fn push_bullet(out: &mut String, key: &str, value: &str) {
    out.push_str("- **");
    out.push_str(key);
    out.push_str("**: ");
    out.push_str(value);
    out.push('\n');
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Body lines that would be read as structure get a leading `\` (a markdown escape).
fn needs_escape(line: &str) -> bool {
    line.starts_with(['\\', '#']) || line.starts_with("- **")
}

/// Escapes backslashes, line breaks and, in a list item, the list's separator.
fn encode_value(value: &str, separator: Option<char>) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if Some(c) == separator => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A list as `"item, item"` (or with another separator followed by a space).
fn encode_list(items: &[String], separator: char) -> String {
    let joiner = format!("{separator} ");
    items
        .iter()
        .map(|i| encode_value(i, Some(separator)))
        .collect::<Vec<_>>()
        .join(&joiner)
}

fn decode_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Splits an encoded list on unescaped separators; each item after the first loses one
/// leading space (the one `", "` put there).
fn decode_list(value: &str, separator: char) -> Vec<String> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                current.push('\\');
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            c if c == separator => items.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    items.push(current);
    items
        .iter()
        .enumerate()
        .map(|(i, raw)| {
            let raw = if i > 0 {
                raw.strip_prefix(' ').unwrap_or(raw)
            } else {
                raw
            };
            decode_value(raw)
        })
        .collect()
}

/// v4 lists: plain `", "`-separated, no escapes.
fn decode_list_v4(value: &str, separator: char) -> Vec<String> {
    value
        .split(separator)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// What an id line escapes: everything but ASCII letters, digits and `-_.:+@#/~=` (so an id
/// never holds a space or a `-->` that would end the comment).
const ID_ESCAPED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b':')
    .remove(b'+')
    .remove(b'@')
    .remove(b'#')
    .remove(b'/')
    .remove(b'~')
    .remove(b'=');

fn encode_id(id: &str) -> String {
    percent_encoding::utf8_percent_encode(id, ID_ESCAPED).to_string()
}

/// The id of an id line; `None` when a `%` is not followed by two hex digits (the decoder
/// would keep it as it is) or the bytes are not UTF-8.
fn decode_id(text: &str) -> Option<String> {
    let escapes_whole = text.match_indices('%').all(|(i, _)| {
        text.get(i + 1..i + 3)
            .is_some_and(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
    });
    if !escapes_whole {
        return None;
    }
    percent_encoding::percent_decode_str(text)
        .decode_utf8()
        .ok()
        .map(std::borrow::Cow::into_owned)
}

/// A parsed `## HH:MM[:SS] - title` header.
struct Header<'a> {
    time: NaiveTime,
    title: &'a str,
}

fn parse_header(line: &str) -> Option<Header<'_>> {
    let rest = line.strip_prefix("## ")?;
    let digits = |s: &str| s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit());
    let hh = rest.get(0..2).filter(|s| digits(s))?;
    if rest.as_bytes().get(2) != Some(&b':') {
        return None;
    }
    let mm = rest.get(3..5).filter(|s| digits(s))?;
    let mut rest = rest.get(5..)?;
    let mut ss = "00";
    if rest.as_bytes().first() == Some(&b':') {
        ss = rest.get(1..3).filter(|s| digits(s))?;
        rest = rest.get(3..)?;
    }
    let title = if let Some(t) = rest.strip_prefix(" - ") {
        t
    } else if rest.is_empty() || rest == " -" || rest.trim().is_empty() {
        ""
    } else {
        return None;
    };
    let time = NaiveTime::from_hms_opt(hh.parse().ok()?, mm.parse().ok()?, ss.parse().ok()?)?;
    Some(Header { time, title })
}

/// A parsed `<!-- id: … at: … -->` line.
fn parse_meta(line: &str) -> Result<(String, DateTime<Utc>), String> {
    let inner = line
        .strip_prefix("<!--")
        .and_then(|l| l.trim_end().strip_suffix("-->"))
        .ok_or("the checkpoint's `<!-- id: … at: … -->` line is not closed")?;
    let mut fields: HashMap<&str, &str> = HashMap::new();
    let mut tokens = inner.split_whitespace();
    while let Some(key) = tokens.next() {
        let Some(key) = key.strip_suffix(':') else {
            return Err(format!("unexpected {key:?} in the checkpoint's id line"));
        };
        fields.insert(key, tokens.next().unwrap_or(""));
    }
    let id = fields.get("id").copied().unwrap_or("");
    let id = decode_id(id)
        .filter(|s| !s.is_empty())
        .ok_or("the checkpoint's id is missing or malformed")?;
    let at = fields
        .get("at")
        .ok_or("the checkpoint's `at:` timestamp is missing")?;
    let at = parse_utc(at).map_err(|e| e.to_string())?;
    Ok((id, goldfish_core::time::truncate_millis(at)))
}

fn is_meta_line(line: &str) -> bool {
    line.starts_with("<!-- id:")
}

/// A `- **Key**: value` bullet.
fn parse_bullet(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("- **")?;
    let end = rest.find("**:")?;
    let key = &rest[..end];
    let value = &rest[end + 3..];
    Some((key, value.strip_prefix(' ').unwrap_or(value)))
}

/// One line of the input: 1-based number, byte offset of its start, text without `\n`.
struct Line<'a> {
    number: usize,
    start: usize,
    text: &'a str,
}

fn split_lines(text: &str) -> Vec<Line<'_>> {
    // A file saved with CRLF line endings by an editor: its first line ends with `\r`. Our own
    // writer never puts `\r` at the end of the first line, so this cannot misfire on our files.
    let crlf = text.split('\n').next().is_some_and(|l| l.ends_with('\r'));
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, raw) in text.split('\n').enumerate() {
        let line = if crlf {
            raw.strip_suffix('\r').unwrap_or(raw)
        } else {
            raw
        };
        lines.push(Line {
            number: i + 1,
            start,
            text: line,
        });
        start += raw.len() + 1;
    }
    // `split` yields a final empty piece after a trailing newline: it is not a line.
    if text.ends_with('\n') || text.is_empty() {
        lines.pop();
    }
    lines
}

/// Parses a day file strictly: every problem is an error (the first one, with its line).
///
/// `workspace` and `date` fill in what the file does not say: every entry's workspace, and
/// the date of entries written by Goldfish v4 (whose headers hold only `HH:MM`).
///
/// ```
/// use chrono::NaiveDate;
/// use goldfish_store::parse_checkpoint_file;
///
/// # fn main() -> Result<(), goldfish_store::Error> {
/// let v4 = "# Checkpoints for 2025-10-13\n\n## 09:30 - Fixed the bug\n\n- **Tags**: bug-fix, auth\n";
/// let date = NaiveDate::from_ymd_opt(2025, 10, 13).expect("valid date");
/// let checkpoints = parse_checkpoint_file(v4, "demo", date)?;
/// assert_eq!(checkpoints[0].description, "Fixed the bug");
/// assert_eq!(checkpoints[0].tags, ["bug-fix", "auth"]);
/// # Ok(())
/// # }
/// ```
pub fn parse_checkpoint_file(
    text: &str,
    workspace: &str,
    date: NaiveDate,
) -> Result<Vec<Checkpoint>, Error> {
    let parsed = parse_day_file(text, workspace, date);
    match parsed.problems.into_iter().next() {
        Some(problem) => Err(Error::parse(Some(problem.line), problem.message)),
        None => Ok(parsed.checkpoints),
    }
}

/// Parses a day file leniently: every readable checkpoint plus the problems (see
/// [`ParsedDay`]). Never panics, whatever the input.
pub fn parse_day_file(text: &str, workspace: &str, date: NaiveDate) -> ParsedDay {
    let lines = split_lines(text);
    let mut day = ParsedDay::default();
    let mut i = 0;
    // Preamble: the `# Checkpoints for …` title and blank lines.
    let mut reported_preamble = false;
    while i < lines.len() && !lines[i].text.starts_with("## ") {
        let line = &lines[i];
        if !is_blank(line.text) && !line.text.starts_with("# ") && !reported_preamble {
            day.problems.push(Problem {
                line: line.number,
                message: "text before the first checkpoint is not part of any checkpoint (ignored)"
                    .to_string(),
            });
            reported_preamble = true;
        }
        i += 1;
    }
    let mut v4_ids: HashMap<String, usize> = HashMap::new();
    while i < lines.len() {
        // Our entries escape every description line that starts with `#`, so any `## ` line
        // ends one. Goldfish v4 wrote descriptions verbatim: inside its entries (no id line)
        // only the `## HH:MM - title` shape starts the next entry, and a `## heading` of the
        // description is text.
        let ours = lines.get(i + 1).is_some_and(|l| is_meta_line(l.text));
        let end = (i + 1..lines.len())
            .find(|&j| {
                let text = lines[j].text;
                text.starts_with("## ") && (ours || parse_header(text).is_some())
            })
            .unwrap_or(lines.len());
        match parse_entry(&lines[i..end], workspace, date) {
            Ok((mut checkpoint, problems)) => {
                if checkpoint.id.is_empty() {
                    checkpoint.id = unique_v4_id(&checkpoint, &mut v4_ids);
                }
                day.starts.push(lines[i].start);
                day.ends
                    .push(lines.get(end).map_or(text.len(), |line| line.start));
                day.checkpoints.push(checkpoint);
                day.problems.extend(problems);
            }
            Err(problem) => day.problems.push(problem),
        }
        i = end;
    }
    day
}

/// Parses one `## ` block. Returns the checkpoint (with an empty id for v4 entries, filled in
/// by the caller) and the non-fatal problems, or the problem that makes the block unreadable.
fn parse_entry(
    block: &[Line<'_>],
    workspace: &str,
    date: NaiveDate,
) -> Result<(Checkpoint, Vec<Problem>), Problem> {
    let first = &block[0];
    let header = parse_header(first.text).ok_or_else(|| Problem {
        line: first.number,
        message: "not a checkpoint header (expected `## HH:MM - title`); this block is skipped"
            .to_string(),
    })?;
    let mut body = &block[1..];
    let mut meta = None;
    if let Some(line) = body.first().filter(|l| is_meta_line(l.text)) {
        let parsed = parse_meta(line.text).map_err(|message| Problem {
            line: line.number,
            message: format!("{message}; this checkpoint is skipped"),
        })?;
        meta = Some(parsed);
        body = &body[1..];
    }
    let ours = meta.is_some();
    let bullets_at = if ours {
        // Our writer escapes description lines that look like bullets: the first one starts
        // the metadata.
        body.iter()
            .position(|l| parse_bullet(l.text).is_some())
            .unwrap_or(body.len())
    } else {
        v4_bullets_start(body)
    };
    let mut problems = Vec::new();
    let mut checkpoint = Checkpoint::new("", date.and_time(header.time).and_utc(), workspace, "");
    let mut seen_other_text = false;
    for line in &body[bullets_at..] {
        let Some((key, value)) = parse_bullet(line.text) else {
            if !is_blank(line.text) && !seen_other_text {
                problems.push(Problem {
                    line: line.number,
                    message: "text after a checkpoint's bullets is not part of it (ignored)"
                        .to_string(),
                });
                seen_other_text = true;
            }
            continue;
        };
        apply_bullet(&mut checkpoint, key, value, ours);
    }
    let mut description_lines: Vec<&str> = body[..bullets_at].iter().map(|l| l.text).collect();
    trim_blank_tail(&mut description_lines);
    if !ours {
        strip_v4_summary(&mut description_lines);
    }
    let mut description = header.title.to_string();
    for line in description_lines {
        description.push('\n');
        let line = if ours {
            line.strip_prefix('\\').unwrap_or(line)
        } else {
            line
        };
        description.push_str(line);
    }
    checkpoint.description = description;
    if let Some((id, at)) = meta {
        checkpoint.id = id;
        checkpoint.timestamp = at;
    }
    Ok((checkpoint, problems))
}

/// Where the metadata of a Goldfish v4 entry starts: the final run of consecutive
/// `- **Key**: value` lines (trailing blank lines aside). v4 wrote the description verbatim
/// and its bullets after it, so a bullet-like line followed by more text is description.
fn v4_bullets_start(body: &[Line<'_>]) -> usize {
    let end = body
        .iter()
        .rposition(|l| !is_blank(l.text))
        .map_or(0, |i| i + 1);
    let mut start = end;
    while start > 0 && parse_bullet(body[start - 1].text).is_some() {
        start -= 1;
    }
    if start == end { body.len() } else { start }
}

fn apply_bullet(checkpoint: &mut Checkpoint, key: &str, value: &str, ours: bool) {
    let list_of = |v: &str, separator: char| {
        if ours {
            decode_list(v, separator)
        } else {
            decode_list_v4(v, separator)
        }
    };
    let list = |v: &str| list_of(v, ',');
    let typed_list = |v: &str| list_of(v, ';');
    let scalar = |v: &str| {
        if ours {
            decode_value(v)
        } else {
            v.trim().to_string()
        }
    };
    match key {
        TAGS => checkpoint.tags = list(value),
        BRANCH => checkpoint.branch = Some(scalar(value)),
        COMMIT => checkpoint.commit = Some(scalar(value)),
        FILES => checkpoint.files = list(value),
        MORE_FILES => match value.trim().parse() {
            Ok(n) => checkpoint.files_omitted = n,
            Err(_) => {
                checkpoint.extra.insert(key.to_string(), scalar(value));
            }
        },
        TYPE => match value.parse::<MemoryType>() {
            Ok(t) => checkpoint.memory_type = t,
            Err(_) => {
                checkpoint.extra.insert(key.to_string(), scalar(value));
            }
        },
        CONFIDENCE => match parse_confidence(value) {
            Ok(c) => checkpoint.structured.confidence = Some(c),
            Err(_) => {
                checkpoint.extra.insert(key.to_string(), scalar(value));
            }
        },
        CONTEXT => checkpoint.structured.context = Some(scalar(value)),
        DECISION => checkpoint.structured.decision = Some(scalar(value)),
        IMPACT => checkpoint.structured.impact = Some(scalar(value)),
        NEXT => checkpoint.structured.next = Some(scalar(value)),
        ALTERNATIVES => checkpoint.structured.alternatives = typed_list(value),
        EVIDENCE => checkpoint.structured.evidence = typed_list(value),
        SYMBOLS => checkpoint.structured.symbols = typed_list(value),
        UNKNOWNS => checkpoint.structured.unknowns = typed_list(value),
        TOPIC => checkpoint.topic = Some(scalar(value)),
        SUPERSEDES => match decode_ids(value) {
            Some(ids) => checkpoint.supersedes = ids,
            None => {
                checkpoint.extra.insert(key.to_string(), scalar(value));
            }
        },
        _ => match checkpoint.actor.field_mut(key) {
            Some(field) => *field = Some(scalar(value)),
            None => {
                checkpoint.extra.insert(key.to_string(), scalar(value));
            }
        },
    }
}

fn trim_blank_tail(lines: &mut Vec<&str>) {
    while lines.last().is_some_and(|l| is_blank(l)) {
        lines.pop();
    }
}

/// Goldfish v4 put `<!--\nsummary: …\ncharCount: N\n-->` after long descriptions.
fn strip_v4_summary(lines: &mut Vec<&str>) {
    if lines.last().map(|l| l.trim()) != Some("-->") {
        return;
    }
    let Some(open) = lines.iter().rposition(|l| l.trim() == "<!--") else {
        return;
    };
    if lines
        .get(open + 1)
        .is_some_and(|l| l.starts_with("summary:"))
    {
        lines.truncate(open);
        trim_blank_tail(lines);
    }
}

/// A stable id for an entry that has none (written by Goldfish v4): the same on every read,
/// unique within the file (and so within the workspace, since it starts with the date).
fn unique_v4_id(checkpoint: &Checkpoint, seen: &mut HashMap<String, usize>) -> String {
    let mut hasher = Fnv64::new();
    hasher.write(checkpoint.workspace.as_bytes());
    hasher.write(format_utc(&checkpoint.timestamp).as_bytes());
    hasher.write(checkpoint.description.as_bytes());
    for part in checkpoint.tags.iter().chain(&checkpoint.files) {
        hasher.write(part.as_bytes());
    }
    for part in checkpoint.branch.iter().chain(&checkpoint.commit) {
        hasher.write(part.as_bytes());
    }
    let base = format!(
        "v4-{}-{:08x}",
        checkpoint.timestamp.format("%Y%m%dT%H%M"),
        hasher.finish() as u32
    );
    let count = seen.entry(base.clone()).or_insert(0);
    *count += 1;
    if *count == 1 {
        base
    } else {
        format!("{base}-{count}")
    }
}

/// FNV-1a, 64 bits, over parts: a hash whose output never changes between Rust versions
/// (ids depend on it). Each part is followed by a 0xff byte, so ("ab","c") and ("a","bc")
/// differ.
pub(crate) struct Fnv64(fnv::FnvHasher);

impl Fnv64 {
    pub(crate) fn new() -> Self {
        Fnv64(fnv::FnvHasher::default())
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        use std::hash::Hasher as _;
        self.0.write(bytes);
        self.0.write_u8(0xff);
    }

    pub(crate) fn finish(&self) -> u64 {
        std::hash::Hasher::finish(&self.0)
    }
}

/// Decodes a day file's bytes: invalid UTF-8 is reported by line, and the entries containing
/// it are skipped; everything else is parsed as usual.
pub fn parse_day_bytes(bytes: &[u8], workspace: &str, date: NaiveDate) -> ParsedDay {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return parse_day_file(text, workspace, date);
    }
    // The line of each run of bad bytes, and the first bad byte's offset in the file.
    let mut bad_lines: Vec<(usize, usize)> = Vec::new();
    let mut line = 1;
    let mut offset = 0;
    for chunk in bytes.utf8_chunks() {
        line += chunk.valid().matches('\n').count();
        offset += chunk.valid().len();
        if !chunk.invalid().is_empty() && bad_lines.last().map(|b| b.0) != Some(line) {
            bad_lines.push((line, offset));
        }
        offset += chunk.invalid().len();
    }
    let text = String::from_utf8_lossy(bytes);
    let mut day = parse_day_file(&text, workspace, date);
    // Line ranges of the entries, to find which ones hold the bad bytes.
    let line_of = |offset: usize| 1 + text[..offset.min(text.len())].matches('\n').count();
    let starts: Vec<usize> = day.starts.iter().map(|&s| line_of(s)).collect();
    let mut keep = vec![true; day.checkpoints.len()];
    for &(bad, at) in &bad_lines {
        let owner = starts.iter().rposition(|&s| s <= bad);
        let message = match owner {
            Some(k) => {
                keep[k] = false;
                format!(
                    "not valid UTF-8 at line {bad} (byte offset {at}); the checkpoint starting \
                     at line {} is skipped",
                    starts[k]
                )
            }
            None => format!(
                "not valid UTF-8 at line {bad} (byte offset {at}; outside any checkpoint, ignored)"
            ),
        };
        day.problems.push(Problem { line: bad, message });
    }
    let mut k = 0;
    day.checkpoints.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    let mut k = 0;
    day.starts.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    let mut k = 0;
    day.ends.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    day.problems.sort_by_key(|p| p.line);
    day
}

/// Checks what a tag cannot hold: a line break. Returns the cleaned tags (trimmed, empty
/// ones dropped, duplicates removed). A comma is kept: the tags line escapes it as `\,`.
pub(crate) fn clean_tags(tags: &[String]) -> Result<Vec<String>, Error> {
    let mut out: Vec<String> = Vec::with_capacity(tags.len());
    for tag in tags {
        if tag.contains(['\n', '\r']) {
            return Err(Error::invalid(format!(
                "tag {tag:?} contains a line break; give each tag on one line"
            )));
        }
        let tag = tag.trim();
        if !tag.is_empty() && !out.iter().any(|t| t == tag) {
            out.push(tag.to_string());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use std::collections::BTreeMap;

    fn extra(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn date() -> NaiveDate {
        NaiveDate::from_ymd_opt(2025, 10, 13).expect("valid date")
    }

    fn checkpoint(description: &str) -> Checkpoint {
        let t = Utc.with_ymd_and_hms(2025, 10, 13, 9, 30, 12).unwrap()
            + chrono::TimeDelta::milliseconds(345);
        Checkpoint::new("20251013T093012345Z-3fa9c1", t, "ws", description)
    }

    #[test]
    fn round_trips_tricky_descriptions() {
        let cases = [
            "",
            "title",
            "title\n",
            "title\n\n",
            "\n",
            "\nbody",
            "t\n## not a header\n- **Tags**: not tags\n\\escaped\n# h1",
            "t\n   \n  ",
            "t\n<!-- id: x at: 2020-01-01T00:00:00Z -->",
            "t\r\nwith cr\r",
            "t\n\nparagraph two\n\n- list item",
        ];
        for description in cases {
            let mut cp = checkpoint(description);
            cp.tags = vec![
                "a".into(),
                " spaced ".into(),
                "x\\y".into(),
                "queue,broker".into(),
            ];
            cp.branch = Some("feature/x".into());
            cp.commit = Some(String::new());
            cp.files = vec!["a, b.rs".into(), "".into(), "c\\d".into()];
            cp.files_omitted = 3;
            cp.extra = extra(&[("Origin", "plan-mode"), ("", "empty key")]);
            cp.actor.harness = Some("claude-code 2.1, \\ \\n".into());
            cp.actor.session = Some(String::new());
            cp.actor.git_email = Some("a@b.c\n- **Tags**: x".into());
            let text = format_day_file(date(), std::slice::from_ref(&cp));
            let parsed = parse_checkpoint_file(&text, "ws", date()).expect(&text);
            assert_eq!(parsed, vec![cp], "{text}");
        }
    }

    #[test]
    fn actor_bullets_are_ordinary_bullets_after_the_typed_ones() {
        let mut cp = checkpoint("Saved by someone");
        cp.memory_type = MemoryType::Decision;
        cp.structured.decision = Some("keep it".into());
        cp.actor.harness = Some("claude-code 2.1.197".into());
        cp.actor.model = Some("claude-opus-4".into());
        cp.actor.user = Some("dev".into());
        cp.actor.git_user = Some("Dev Eloper".into());
        cp.actor.git_email = Some("dev@example.com".into());
        cp.extra = extra(&[("Origin", "test")]);
        let text = format_checkpoint(&cp);
        assert_eq!(
            text,
            "## 09:30 - Saved by someone\n\
             <!-- id: 20251013T093012345Z-3fa9c1 at: 2025-10-13T09:30:12.345Z -->\n\n\
             - **Type**: decision\n\
             - **Decision**: keep it\n\
             - **Harness**: claude-code 2.1.197\n\
             - **Model**: claude-opus-4\n\
             - **User**: dev\n\
             - **Git user**: Dev Eloper\n\
             - **Git email**: dev@example.com\n\
             - **Origin**: test\n"
        );
        let back = parse_checkpoint_file(
            &format!("{}\n{text}", format_day_header(date())),
            "ws",
            date(),
        )
        .expect("parses");
        assert_eq!(back, vec![cp.clone()]);
        // An actor key in `extra` has a field of its own: it is not written as an extra.
        cp.extra = extra(&[("Model", "from extra")]);
        assert!(!format_checkpoint(&cp).contains("from extra"));
    }

    #[test]
    fn golden_entry() {
        let mut cp = checkpoint("Fixed authentication timeout bug\nImplemented JWT refresh.");
        cp.tags = vec!["bug-fix".into(), "auth".into()];
        cp.branch = Some("feature/jwt-refresh".into());
        cp.commit = Some("a1b2c3d".into());
        cp.files = vec!["src/auth/jwt.ts".into()];
        assert_eq!(
            format_checkpoint(&cp),
            "## 09:30 - Fixed authentication timeout bug\n\
             <!-- id: 20251013T093012345Z-3fa9c1 at: 2025-10-13T09:30:12.345Z -->\n\
             Implemented JWT refresh.\n\
             \n\
             - **Tags**: bug-fix, auth\n\
             - **Branch**: feature/jwt-refresh\n\
             - **Commit**: a1b2c3d\n\
             - **Files**: src/auth/jwt.ts\n"
        );
    }

    #[test]
    fn golden_typed_entry() {
        let mut cp = checkpoint("Chose token rotation");
        cp.memory_type = MemoryType::Decision;
        cp.structured.context = Some("Refresh tokens were reusable\nfor 30 days".into());
        cp.structured.decision = Some("Rotate on every use".into());
        cp.structured.alternatives = vec!["Short-lived tokens; no refresh".into(), "- keep".into()];
        cp.structured.symbols = vec!["TokenStore::rotate".into()];
        cp.structured.confidence = Some(4);
        let text = format_checkpoint(&cp);
        assert_eq!(
            text,
            "## 09:30 - Chose token rotation\n\
             <!-- id: 20251013T093012345Z-3fa9c1 at: 2025-10-13T09:30:12.345Z -->\n\
             \n\
             - **Type**: decision\n\
             - **Context**: Refresh tokens were reusable\\nfor 30 days\n\
             - **Decision**: Rotate on every use\n\
             - **Alternatives**: Short-lived tokens\\; no refresh; - keep\n\
             - **Symbols**: TokenStore::rotate\n\
             - **Confidence**: 4\n"
        );
        let back = parse_checkpoint_file(&text, "ws", date()).expect("parses");
        assert_eq!(back, vec![cp]);
    }

    #[test]
    fn supersession_bullets_round_trip_and_bad_ones_stay_in_extra() {
        let mut cp = checkpoint("Rotate tokens daily");
        cp.memory_type = MemoryType::Decision;
        cp.topic = Some("auth-tokens".into());
        cp.supersedes = vec!["20251012T080000000Z-aaaaaa".into(), "tusk 4,2".into()];
        let text = format_checkpoint(&cp);
        assert_eq!(
            text,
            "## 09:30 - Rotate tokens daily\n\
             <!-- id: 20251013T093012345Z-3fa9c1 at: 2025-10-13T09:30:12.345Z -->\n\n\
             - **Type**: decision\n\
             - **Topic**: auth-tokens\n\
             - **Supersedes**: 20251012T080000000Z-aaaaaa, tusk%204%2C2\n"
        );
        assert_eq!(
            parse_checkpoint_file(&text, "ws", date()).expect("parses"),
            vec![cp]
        );
        // An empty item or a broken escape: kept as written, never half-read.
        for bad in ["a, , b", "", "a%zz", "a,"] {
            let text = format!(
                "## 09:00 - x\n<!-- id: a at: 2025-10-13T09:00:00Z -->\n\n- **Supersedes**: {bad}\n"
            );
            let cps = parse_checkpoint_file(&text, "ws", date()).expect("parses");
            assert!(cps[0].supersedes.is_empty(), "{bad}");
            assert_eq!(cps[0].extra, extra(&[("Supersedes", bad)]), "{bad}");
            let again = format_day_file(date(), &cps);
            assert_eq!(
                parse_checkpoint_file(&again, "ws", date()).expect("parses"),
                cps
            );
        }
        // A file without the bullets reads as before.
        let old = "## 09:00 - x\n<!-- id: a at: 2025-10-13T09:00:00Z -->\n\n- **Tags**: t\n";
        let cps = parse_checkpoint_file(old, "ws", date()).expect("parses");
        assert_eq!((cps[0].topic.clone(), cps[0].supersedes.len()), (None, 0));
    }

    #[test]
    fn typed_values_a_field_cannot_hold_stay_in_extra() {
        let text = "## 09:00 - x\n<!-- id: a at: 2025-10-13T09:00:00Z -->\n\n\
            - **Type**: incident\n- **Type**: bogus\n- **Confidence**: 7\n";
        let cps = parse_checkpoint_file(text, "ws", date()).expect("parses");
        assert_eq!(cps[0].memory_type, MemoryType::Incident);
        assert_eq!(cps[0].structured.confidence, None);
        assert_eq!(
            cps[0].extra,
            extra(&[("Type", "bogus"), ("Confidence", "7")])
        );
        let again = format_day_file(date(), &cps);
        assert_eq!(
            parse_checkpoint_file(&again, "ws", date()).expect("parses"),
            cps
        );
        // A v4-style entry (no id line) with typed bullets reads them too, trimmed.
        let v4 = "## 09:00 - y\n\n- **Type**: Learning\n- **Unknowns**: why ; when\n";
        let cps = parse_checkpoint_file(v4, "ws", date()).expect("parses");
        assert_eq!(cps[0].memory_type, MemoryType::Learning);
        assert_eq!(cps[0].structured.unknowns, ["why", "when"]);
    }

    #[test]
    fn reads_seed_example() {
        let text = "# Checkpoints for 2025-10-13\n\n\
            ## 09:30 - Fixed authentication timeout bug\n\
            Implemented JWT refresh tokens to extend session duration from 30min to 60min.\n\n\
            - **Tags**: bug-fix, auth, critical\n\
            - **Branch**: feature/jwt-refresh\n\
            - **Commit**: a1b2c3d\n\
            - **Files**: src/auth/jwt.ts, src/auth/refresh.ts\n\n\
            ## 14:45 - Discussed memory architecture\n\
            Analyzed three previous implementations.\n\n\
            - **Tags**: planning, goldfish, architecture\n\
            - **Session**: plan-mode-20251013\n\n\
            ## 16:30 - Completed checkpoint storage implementation\n\
            Built markdown-based checkpoint storage.\n\n\
            - **Tags**: implementation, goldfish\n\
            - **Branch**: main\n";
        let cps = parse_checkpoint_file(text, "ws", date()).unwrap();
        assert_eq!(cps.len(), 3);
        assert_eq!(
            cps[0].description,
            "Fixed authentication timeout bug\nImplemented JWT refresh tokens to extend session duration from 30min to 60min."
        );
        assert_eq!(cps[0].tags, ["bug-fix", "auth", "critical"]);
        assert_eq!(cps[0].files, ["src/auth/jwt.ts", "src/auth/refresh.ts"]);
        assert_eq!(cps[0].commit.as_deref(), Some("a1b2c3d"));
        assert_eq!(format_utc(&cps[1].timestamp), "2025-10-13T14:45:00.000Z");
        // v4's `Session` bullet is the actor's session.
        assert_eq!(cps[1].actor.session.as_deref(), Some("plan-mode-20251013"));
        assert!(cps[1].extra.is_empty());
        assert_eq!(cps[2].branch.as_deref(), Some("main"));
        // Ids are derived, stable and distinct.
        let again = parse_checkpoint_file(text, "ws", date()).unwrap();
        assert_eq!(cps, again);
        assert!(cps[0].id != cps[1].id && cps[1].id != cps[2].id);
        // Formatting v4 entries in our format keeps every field.
        let ours = format_day_file(date(), &cps);
        assert_eq!(parse_checkpoint_file(&ours, "ws", date()).unwrap(), cps);
    }

    #[test]
    fn v4_summary_and_no_blank_between_entries() {
        let text = "# Checkpoints for 2025-10-13\n\n\
            ## 21:46 - fix: long one\nsecond line\n\n<!--\nsummary: fix: long one\ncharCount: 372\n-->\n\n\
            - **Tags**: fix\n- **Branch**: main\n\
            ## 21:50 - feat: x\n<!-- agent -->\n\n- **Tags**: feat\n";
        let cps = parse_checkpoint_file(text, "ws", date()).unwrap();
        assert_eq!(cps.len(), 2);
        assert_eq!(cps[0].description, "fix: long one\nsecond line");
        assert_eq!(cps[1].description, "feat: x\n<!-- agent -->");
        assert_eq!(cps[1].tags, ["feat"]);
    }

    #[test]
    fn v4_descriptions_that_look_like_structure() {
        let text = "# Checkpoints for 2025-10-13\n\n\
            ## 09:00 - Wrote the design notes\n\
            ## Context\n\
            Some text.\n\
            - **Tags**: looks like tags\n\
            - **Branch**: looks like a branch\n\
            but the description goes on.\n\
            ##no space\n\n\
            - **Tags**: docs, design\n\
            - **Branch**: main\n\
            - **Commit**: abc1234\n\
            - **Files**: docs/design.md\n\
            ## 10:00 - next\n\
            - **Tags**: only this\n\
            ## 11:00 - last\n\
            - **Tags**: x\n\
            text after\n";
        let day = parse_day_file(text, "ws", date());
        assert_eq!(day.problems, []);
        let cps = day.checkpoints;
        assert_eq!(cps.len(), 3);
        assert_eq!(
            cps[0].description,
            "Wrote the design notes\n## Context\nSome text.\n- **Tags**: looks like tags\n\
             - **Branch**: looks like a branch\nbut the description goes on.\n##no space"
        );
        assert_eq!(cps[0].tags, ["docs", "design"]);
        assert_eq!(cps[0].branch.as_deref(), Some("main"));
        assert_eq!(cps[0].commit.as_deref(), Some("abc1234"));
        assert_eq!(cps[0].files, ["docs/design.md"]);
        assert_eq!(cps[1].tags, ["only this"]);
        assert_eq!(cps[2].description, "last\n- **Tags**: x\ntext after");
        assert!(cps[2].tags.is_empty());
        // Written back in our format, every field survives.
        let ours = format_day_file(date(), &cps);
        assert_eq!(parse_checkpoint_file(&ours, "ws", date()).unwrap(), cps);
    }

    #[test]
    fn duplicate_v4_entries_get_distinct_ids() {
        let text = "## 09:00 - same\n## 09:00 - same\n";
        let cps = parse_checkpoint_file(text, "ws", date()).unwrap();
        assert_eq!(cps.len(), 2);
        assert_ne!(cps[0].id, cps[1].id);
    }

    #[test]
    fn garbage_is_reported_by_line_and_others_kept() {
        let cases: [(&str, usize, usize); 5] = [
            ("# Checkpoints\n\nstray text\n## 09:00 - ok\n", 1, 3),
            (
                "## 09:00 - ok\n<!-- id: a at: 2025-10-13T09:00:00Z -->\n## garbage here\nmore\n## 10:00 - ok2\n",
                2,
                3,
            ),
            (
                "## 09:00 - ok\n<!-- id: x at: never -->\n## 10:00 - ok2\n",
                1,
                2,
            ),
            (
                "## 09:00 - ok\n<!-- id: a at: 2025-10-13T09:00:00Z -->\n\n- **Tags**: a\nloose text\n## 10:00 - ok2\n",
                2,
                5,
            ),
            ("## 9:00 - bad time\n## 10:00 - ok\n", 1, 1),
        ];
        for (text, want_ok, want_line) in cases {
            let day = parse_day_file(text, "ws", date());
            assert_eq!(day.checkpoints.len(), want_ok, "{text}");
            assert_eq!(day.problems.len(), 1, "{text}: {:?}", day.problems);
            assert_eq!(day.problems[0].line, want_line, "{text}");
            let err = parse_checkpoint_file(text, "ws", date()).unwrap_err();
            assert_eq!(err.line(), Some(want_line));
        }
    }

    #[test]
    fn invalid_utf8_skips_only_its_entry() {
        let mut bytes =
            b"# Checkpoints for 2025-10-13\n\n## 09:00 - one\n\n## 10:00 - two ".to_vec();
        bytes.extend_from_slice(b"\xff\xfe\n\n## 11:00 - three\n");
        let day = parse_day_bytes(&bytes, "ws", date());
        let titles: Vec<_> = day
            .checkpoints
            .iter()
            .map(|c| c.title().to_string())
            .collect();
        assert_eq!(titles, ["one", "three"]);
        assert_eq!(day.problems.len(), 1);
        assert_eq!(day.problems[0].line, 5);
        let at = bytes.iter().position(|&b| b == 0xff).unwrap_or_default();
        assert!(
            day.problems[0]
                .message
                .contains(&format!("not valid UTF-8 at line 5 (byte offset {at})")),
            "{}",
            day.problems[0].message
        );
    }

    #[test]
    fn crlf_files_read() {
        let text = "# Checkpoints for 2025-10-13\r\n\r\n## 09:00 - one\r\nbody\r\n\r\n- **Tags**: a, b\r\n";
        let cps = parse_checkpoint_file(text, "ws", date()).unwrap();
        assert_eq!(cps[0].description, "one\nbody");
        assert_eq!(cps[0].tags, ["a", "b"]);
    }

    #[test]
    fn part_hash_is_fnv1a_with_separators() {
        // Ids derived from it are read back from files: its output must never change.
        let hash = |parts: &[&str]| {
            let mut h = Fnv64::new();
            for p in parts {
                h.write(p.as_bytes());
            }
            h.finish()
        };
        assert_eq!(hash(&["ab", "c"]), 0x20ba_9b30_25a8_b421);
        assert_eq!(hash(&["a", "bc"]), 0xa0a3_542c_19b9_00ab);
    }

    #[test]
    fn ids_encode_and_decode() {
        for id in ["plain-id_1.2", "with space", "100%", "ünï", "a-->b"] {
            assert_eq!(decode_id(&encode_id(id)).as_deref(), Some(id));
            assert!(!encode_id(id).contains(char::is_whitespace));
        }
        assert_eq!(encode_id("a b-->ü"), "a%20b--%3E%C3%BC");
        for bad in ["a%zz", "a%4", "a%", "%FF"] {
            assert_eq!(decode_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn tags_are_checked() {
        assert_eq!(clean_tags(&["a,b".into()]).unwrap(), ["a,b"]);
        assert!(clean_tags(&["a\nb".into()]).unwrap_err().is_invalid_input());
        assert_eq!(
            clean_tags(&[" a ".into(), "".into(), "a".into(), "b".into()]).unwrap(),
            ["a", "b"]
        );
    }
}
