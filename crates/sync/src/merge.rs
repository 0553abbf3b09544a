//! The merge driver's core: pure three-way merges by meaning, one per kind of store file.
//!
//! Nothing here touches the file system or spawns a process: every function takes the three
//! versions of a file (the common ancestor, ours and theirs) and returns the merged text, or
//! says that the file cannot be merged by meaning ([`Unmergeable`]); the driver then falls
//! back to git's conflict markers (see [`run_merge_driver`](crate::run_merge_driver)).

use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use goldfish_store::{Checkpoint, Plan, format_day_file, format_plan, parse_day_file, parse_plan};

/// The tag given to the preserved version of a checkpoint that was edited differently on
/// both sides, so that a search for `merge-conflict` finds every such entry.
pub const MERGE_CONFLICT_TAG: &str = "merge-conflict";

/// The extra bullet (`- **Merge conflict**: …`) of a preserved checkpoint version, naming the
/// id of the entry it is the other version of.
pub const MERGE_CONFLICT_KEY: &str = "Merge conflict";

/// The line that opens a plan-body conflict block (see [`merge_plan`]).
pub const PLAN_CONFLICT_BEGIN: &str = "<!-- goldfish:merge-conflict -->";
/// The line before the other side's text in a plan-body conflict block.
pub const PLAN_CONFLICT_THEIRS: &str = "<!-- goldfish:merge-conflict theirs -->";
/// The line that closes a plan-body conflict block.
pub const PLAN_CONFLICT_END: &str = "<!-- goldfish:merge-conflict end -->";
const PLAN_CONFLICT_NOTE: &str = "> **Merge conflict**: this part of the plan was changed on both sides and both versions are kept below (this side first, then the other). Keep what is right and delete the rest, with these markers.";
const PLAN_CONFLICT_OURS: &str = "<!-- goldfish:merge-conflict ours -->";

/// What kind of store file a path names, which decides how it is merged.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileKind {
    /// `…/{workspace}/checkpoints/YYYY-MM-DD.md`.
    DayFile {
        /// The workspace directory's name (`default` when the path has none).
        workspace: String,
        /// The day the file holds.
        date: NaiveDate,
    },
    /// `…/{workspace}/plans/{id}.md`.
    Plan {
        /// The workspace directory's name (`default` when the path has none).
        workspace: String,
        /// The plan id (the file name without `.md`).
        id: String,
    },
    /// `…/.active-plan`.
    ActivePlan,
    /// `JOURNAL.md` or `GOBLIN_NOTES.md`: append-only logs.
    AppendOnly,
    /// Anything else: not merged by meaning.
    Other,
}

/// Classifies a path as git gives it to a merge driver (`%P`: relative, `/`-separated).
pub fn classify(path: &str) -> FileKind {
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let name = parts.last().copied().unwrap_or("");
    let parent = parts.len().checked_sub(2).map(|i| parts[i]);
    let workspace = parts
        .len()
        .checked_sub(3)
        .map_or("default", |i| parts[i])
        .to_string();
    if name == ".active-plan" {
        return FileKind::ActivePlan;
    }
    if name == "JOURNAL.md" || name == "GOBLIN_NOTES.md" {
        return FileKind::AppendOnly;
    }
    let stem = name.strip_suffix(".md");
    match (parent, stem) {
        (Some("checkpoints"), Some(stem)) if stem.len() == 10 => {
            match NaiveDate::parse_from_str(stem, "%Y-%m-%d") {
                Ok(date) => FileKind::DayFile { workspace, date },
                Err(_) => FileKind::Other,
            }
        }
        (Some("plans"), Some(stem)) if !stem.is_empty() => FileKind::Plan {
            workspace,
            id: stem.to_string(),
        },
        _ => FileKind::Other,
    }
}

/// How a merge ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MergeOutcome {
    /// Merged without loss or doubt.
    Clean,
    /// Merged; `count` checkpoints had been edited differently on both sides: one version of
    /// each is kept as the entry and the other is preserved beside it as a note.
    Preserved {
        /// How many entries were preserved as notes.
        count: usize,
    },
    /// A plan whose body was changed on both sides in the same place: both texts are kept in
    /// the plan between markers ([`has_merge_conflict`]); the file still reads.
    PlanConflict,
    /// Could not merge by meaning; git's conflict markers were written and the merge must be
    /// resolved by hand (the driver exits non-zero, and sync merges nothing).
    Conflict {
        /// Why the file could not be merged by meaning.
        reason: String,
    },
}

impl MergeOutcome {
    /// True when the file holds git conflict markers and the merge is not done.
    pub fn is_conflict(&self) -> bool {
        matches!(self, MergeOutcome::Conflict { .. })
    }

    /// The exit code a merge driver reports to git: 0 when merged, 1 on a conflict.
    pub fn exit_code(&self) -> i32 {
        i32::from(self.is_conflict())
    }
}

/// A merged file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Merged {
    /// The merged file's bytes.
    pub text: Vec<u8>,
    /// How the merge went (never [`MergeOutcome::Conflict`]).
    pub outcome: MergeOutcome,
}

impl Merged {
    fn clean(text: impl Into<Vec<u8>>) -> Self {
        Merged {
            text: text.into(),
            outcome: MergeOutcome::Clean,
        }
    }
}

/// A file that cannot be merged by meaning (one side does not parse, or it is not a store
/// file); the reason names the side and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
#[non_exhaustive]
pub struct Unmergeable {
    /// Why, in words a person can act on.
    pub reason: String,
}

fn unmergeable(reason: impl Into<String>) -> Unmergeable {
    Unmergeable {
        reason: reason.into(),
    }
}

/// Merges the three versions of the store file at `path` (as [`classify`] reads it) by meaning.
///
/// When one side is unchanged from `base`, or both sides are equal, the answer is the other
/// side byte for byte, whatever the file holds (what git itself would do). Otherwise the
/// file's kind decides: [`merge_day_file`], [`merge_plan`], [`merge_active_plan`] (with
/// `plan_updated` telling when a plan was last changed, `None` when it is not known here) or
/// [`merge_append_only`]. An empty `base` means the file was added on both sides.
pub fn merge_file(
    path: &str,
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    plan_updated: &dyn Fn(&str) -> Option<DateTime<Utc>>,
) -> Result<Merged, Unmergeable> {
    if ours == theirs || base == theirs {
        return Ok(Merged::clean(ours));
    }
    if base == ours {
        return Ok(Merged::clean(theirs));
    }
    let kind = classify(path);
    if kind == FileKind::Other {
        return Err(unmergeable(format!(
            "{path} is not a file goldfish merges by meaning (day file, plan, .active-plan, JOURNAL.md, GOBLIN_NOTES.md)"
        )));
    }
    let text = |side: &str, bytes: &[u8]| {
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|e| unmergeable(format!("{side} version of {path} is not valid UTF-8 ({e})")))
    };
    let (base, ours, theirs) = (
        text("base", base)?,
        text("our", ours)?,
        text("their", theirs)?,
    );
    match kind {
        FileKind::DayFile { workspace, date } => {
            merge_day_file(&base, &ours, &theirs, &workspace, date)
        }
        FileKind::Plan { workspace, id } => merge_plan(&base, &ours, &theirs, &workspace, &id),
        FileKind::ActivePlan => Ok(merge_active_plan(&base, &ours, &theirs, plan_updated)),
        FileKind::AppendOnly => {
            let merged = merge_append_only(&base, &ours, &theirs);
            // GOBLIN_NOTES.md has a structure of its own: never make a readable one unreadable.
            let notes = path.ends_with("GOBLIN_NOTES.md");
            if notes
                && notes_core::Notes::parse(&ours).is_ok()
                && notes_core::Notes::parse(&merged).is_err()
            {
                return Err(unmergeable(format!(
                    "the union of both versions of {path} would not read as notes"
                )));
            }
            Ok(Merged::clean(merged))
        }
        FileKind::Other => Err(unmergeable(format!("{path} is not a goldfish file"))),
    }
}

// ----- day files ---------------------------------------------------------------------------

fn parse_side(
    side: &str,
    text: &str,
    workspace: &str,
    date: NaiveDate,
) -> Result<Vec<Checkpoint>, Unmergeable> {
    let day = parse_day_file(text, workspace, date);
    if let Some(problem) = day.problems.first() {
        return Err(unmergeable(format!(
            "{side} version of the day file has unreadable text at line {}: {}",
            problem.line, problem.message
        )));
    }
    let mut seen = HashSet::new();
    for c in &day.checkpoints {
        if !seen.insert(c.id.as_str()) {
            return Err(unmergeable(format!(
                "{side} version of the day file holds the id {} twice",
                c.id
            )));
        }
    }
    Ok(day.checkpoints)
}

/// Merges three versions of a day file: the union of entries by id, in time order.
///
/// - An entry added on either side is kept; one deleted on one side and unchanged on the
///   other is deleted (three-way, against `base`); one deleted on one side and edited on the
///   other is kept, edited (an edit is never lost to a deletion).
/// - An entry edited differently on both sides (or two different entries with the same id
///   added on both) is kept once with the later edit — the version whose `- **Edited**:`
///   bullet holds the later time, and ours when neither (or both equally) says — and the
///   other version is preserved right after it as a note: the same checkpoint under the id
///   `{id}.merge-conflict` (`-2`, `-3`, … if taken), tagged [`MERGE_CONFLICT_TAG`], with a
///   `- **Merge conflict**: {id}` bullet. It stays readable and searchable, and nothing is
///   dropped.
///
/// The result is written with the store's formatter, and read back before it is returned:
/// a version that does not parse cleanly, or a merge that would not read back, is
/// [`Unmergeable`].
pub fn merge_day_file(
    base: &str,
    ours: &str,
    theirs: &str,
    workspace: &str,
    date: NaiveDate,
) -> Result<Merged, Unmergeable> {
    let base = parse_side("the base", base, workspace, date)?;
    let ours = parse_side("our", ours, workspace, date)?;
    let theirs = parse_side("their", theirs, workspace, date)?;
    let base_by_id: HashMap<&str, &Checkpoint> = base.iter().map(|c| (c.id.as_str(), c)).collect();
    let theirs_by_id: HashMap<&str, &Checkpoint> =
        theirs.iter().map(|c| (c.id.as_str(), c)).collect();
    let ours_ids: HashSet<&str> = ours.iter().map(|c| c.id.as_str()).collect();
    let mut taken: HashSet<String> = base
        .iter()
        .chain(&ours)
        .chain(&theirs)
        .map(|c| c.id.clone())
        .collect();

    let mut merged: Vec<Checkpoint> = Vec::with_capacity(ours.len() + theirs.len());
    let mut preserved = 0;
    for o in &ours {
        let b = base_by_id.get(o.id.as_str()).copied();
        match theirs_by_id.get(o.id.as_str()).copied() {
            Some(t) if t == o || b == Some(t) => merged.push(o.clone()),
            Some(t) if b == Some(o) => merged.push(t.clone()),
            Some(t) => {
                let (keep, other) = if edited_at(t) > edited_at(o) {
                    (t, o)
                } else {
                    (o, t)
                };
                merged.push(keep.clone());
                merged.push(preserved_note(other, &mut taken));
                preserved += 1;
            }
            // Deleted on their side: gone if we left it as it was, kept if we edited it.
            None if b == Some(o) => {}
            None => merged.push(o.clone()),
        }
    }
    for t in &theirs {
        if ours_ids.contains(t.id.as_str()) {
            continue;
        }
        match base_by_id.get(t.id.as_str()).copied() {
            Some(b) if b == t => {} // deleted on our side, unchanged on theirs
            _ => merged.push(t.clone()),
        }
    }
    // Stable: entries of one instant keep ours-then-theirs order, notes follow their entry.
    merged.sort_by_key(|c| c.timestamp);

    let text = format_day_file(date, &merged);
    let back = parse_day_file(&text, workspace, date);
    let ids_back: Vec<&str> = back.checkpoints.iter().map(|c| c.id.as_str()).collect();
    let ids: Vec<&str> = merged.iter().map(|c| c.id.as_str()).collect();
    if !back.problems.is_empty() || ids_back != ids {
        return Err(unmergeable(
            "the merged day file would not read back as written; merge it by hand",
        ));
    }
    let outcome = if preserved == 0 {
        MergeOutcome::Clean
    } else {
        MergeOutcome::Preserved { count: preserved }
    };
    Ok(Merged {
        text: text.into_bytes(),
        outcome,
    })
}

/// When an entry was last edited, as far as the entry says (`- **Edited**: <RFC 3339>`).
fn edited_at(c: &Checkpoint) -> Option<DateTime<Utc>> {
    c.extra
        .get(goldfish_store::EDITED_KEY)
        .and_then(|v| DateTime::parse_from_rfc3339(v.trim()).ok())
        .map(|t| t.with_timezone(&Utc))
}

fn preserved_note(other: &Checkpoint, taken: &mut HashSet<String>) -> Checkpoint {
    let mut note = other.clone();
    let mut id = format!("{}.merge-conflict", other.id);
    let mut n = 2;
    while taken.contains(&id) {
        id = format!("{}.merge-conflict-{n}", other.id);
        n += 1;
    }
    taken.insert(id.clone());
    note.id = id;
    if !note.tags.iter().any(|t| t == MERGE_CONFLICT_TAG) {
        note.tags.push(MERGE_CONFLICT_TAG.to_string());
    }
    note.extra
        .insert(MERGE_CONFLICT_KEY.to_string(), other.id.clone());
    note
}

// ----- plans -------------------------------------------------------------------------------

/// Three-way choice of one value: the side that changed it wins; when both changed it
/// differently, `theirs_newer` decides.
fn pick<T: PartialEq + Clone>(base: Option<&T>, ours: &T, theirs: &T, theirs_newer: bool) -> T {
    if ours == theirs || base == Some(theirs) {
        ours.clone()
    } else if base == Some(ours) || theirs_newer {
        theirs.clone()
    } else {
        ours.clone()
    }
}

/// True when the plan's content holds a block left by [`merge_plan`] for a body changed on
/// both sides: both versions are in the plan and a person should pick.
pub fn has_merge_conflict(plan: &Plan) -> bool {
    has_merge_conflict_text(&plan.content)
}

/// [`has_merge_conflict`] on a plan's content (or a whole plan file).
pub fn has_merge_conflict_text(content: &str) -> bool {
    content.lines().any(|l| l.trim_end() == PLAN_CONFLICT_BEGIN)
}

/// Merges three versions of a plan file.
///
/// - Frontmatter, per key (`title`, `status`, `created`, `tags` and every unknown key): the
///   side that changed a key wins; when both changed it differently, the side with the newer
///   `updated` wins (ours on a tie). A key added on either side is kept; one removed on one
///   side and unchanged on the other is removed. `updated` is the later of the two.
/// - Body: a line-based three-way merge (`diffy`, git's algorithm). Where both sides changed
///   the same lines, both texts are kept in one block:
///
/// ```text
/// <!-- goldfish:merge-conflict -->
/// > **Merge conflict**: this part of the plan was changed on both sides …
/// <!-- goldfish:merge-conflict ours -->
/// (this side's lines)
/// <!-- goldfish:merge-conflict theirs -->
/// (the other side's lines)
/// <!-- goldfish:merge-conflict end -->
/// ```
///
/// The plan still parses (the block is markdown), [`has_merge_conflict`] reports it, and the
/// outcome is [`MergeOutcome::PlanConflict`]. An empty or unreadable `base` means the plan
/// was added on both sides: every key and line is then merged as changed on both.
pub fn merge_plan(
    base: &str,
    ours: &str,
    theirs: &str,
    workspace: &str,
    id: &str,
) -> Result<Merged, Unmergeable> {
    let parse = |side: &str, text: &str| {
        parse_plan(text, workspace, id).map_err(|e| {
            unmergeable(format!(
                "{side} version of plan {id} does not parse{}: {}",
                e.line().map(|l| format!(" (line {l})")).unwrap_or_default(),
                e.message()
            ))
        })
    };
    let o = parse("our", ours)?;
    let t = parse("their", theirs)?;
    let b = if base.trim().is_empty() {
        None
    } else {
        parse_plan(base, workspace, id).ok()
    };
    let newer = t.updated > o.updated;
    let mut plan = o.clone();
    plan.title = pick(b.as_ref().map(|b| &b.title), &o.title, &t.title, newer);
    plan.status = pick(b.as_ref().map(|b| &b.status), &o.status, &t.status, newer);
    plan.created = pick(
        b.as_ref().map(|b| &b.created),
        &o.created,
        &t.created,
        newer,
    );
    plan.tags = pick(b.as_ref().map(|b| &b.tags), &o.tags, &t.tags, newer);
    plan.updated = o.updated.max(t.updated);
    let keys: BTreeSet<&String> = o.extra.keys().chain(t.extra.keys()).collect();
    plan.extra.clear();
    for key in keys {
        let base_value = b.as_ref().map(|b| b.extra.get(key).cloned());
        let value = pick(
            base_value.as_ref(),
            &o.extra.get(key).cloned(),
            &t.extra.get(key).cloned(),
            newer,
        );
        if let Some(value) = value {
            plan.extra.insert(key.clone(), value);
        }
    }
    let base_content = b.as_ref().map_or("", |b| b.content.as_str());
    let (content, conflict) = merge_plan_body(base_content, &o.content, &t.content);
    plan.content = content;
    let text = format_plan(&plan);
    match parse_plan(&text, workspace, id) {
        Ok(back) if back.content == plan.content => {}
        _ => {
            return Err(unmergeable(format!(
                "the merged plan {id} would not read back as written; merge it by hand"
            )));
        }
    }
    Ok(Merged {
        text: text.into_bytes(),
        outcome: if conflict {
            MergeOutcome::PlanConflict
        } else {
            MergeOutcome::Clean
        },
    })
}

fn merge_plan_body(base: &str, ours: &str, theirs: &str) -> (String, bool) {
    if ours == theirs || base == theirs {
        return (ours.to_string(), false);
    }
    if base == ours {
        return (theirs.to_string(), false);
    }
    let mut out = String::new();
    let mut conflict = false;
    for region in three_way(base, ours, theirs) {
        match region {
            Region::Clean(text) => out.push_str(&text),
            Region::Conflict { ours, theirs } => {
                conflict = true;
                if !out.is_empty() && !out.ends_with('\n') {
                    out.push('\n');
                }
                for line in [PLAN_CONFLICT_BEGIN, PLAN_CONFLICT_NOTE, PLAN_CONFLICT_OURS] {
                    out.push_str(line);
                    out.push('\n');
                }
                push_lines(&mut out, &ours);
                out.push_str(PLAN_CONFLICT_THEIRS);
                out.push('\n');
                push_lines(&mut out, &theirs);
                out.push_str(PLAN_CONFLICT_END);
                out.push('\n');
            }
        }
    }
    (out, conflict)
}

fn push_lines(out: &mut String, text: &str) {
    out.push_str(text);
    if !text.is_empty() && !text.ends_with('\n') {
        out.push('\n');
    }
}

// ----- the active plan ---------------------------------------------------------------------

/// Merges three versions of `.active-plan` (a plan id and a newline, or empty for none).
///
/// When only one side changed the choice, that side wins. When both did: a choice beats
/// none (clearing the active plan never hides the other side's new choice); between two
/// plans, the one whose plan was updated later wins, as `plan_updated` reports it (choosing
/// or saving a plan with `activate` updates it). A plan it does not know (`None`) counts as
/// the oldest; ours wins a tie.
pub fn merge_active_plan(
    base: &str,
    ours: &str,
    theirs: &str,
    plan_updated: &dyn Fn(&str) -> Option<DateTime<Utc>>,
) -> Merged {
    let (b, o, t) = (base.trim(), ours.trim(), theirs.trim());
    let choice = if o == t || b == t {
        o
    } else if b == o || o.is_empty() {
        t
    } else if t.is_empty() {
        o
    } else {
        let rank = |id: &str| plan_updated(id);
        if rank(t) > rank(o) { t } else { o }
    };
    if choice.is_empty() {
        Merged::clean("")
    } else {
        Merged::clean(format!("{choice}\n"))
    }
}

// ----- append-only files -------------------------------------------------------------------

/// Merges three versions of an append-only log (JOURNAL.md, GOBLIN_NOTES.md): what both sides
/// added after `base`, ours first, then the blocks (paragraphs separated by blank lines) of
/// theirs that ours does not already hold. Never fails and never drops a line either side
/// wrote: where the sides rewrote the same lines (rather than appending), both versions are
/// kept, ours first, the way git's `union` merge does.
pub fn merge_append_only(base: &str, ours: &str, theirs: &str) -> String {
    if ours == theirs || base == theirs {
        return ours.to_string();
    }
    if base == ours {
        return theirs.to_string();
    }
    if let (Some(our_tail), Some(their_tail)) = (ours.strip_prefix(base), theirs.strip_prefix(base))
    {
        let mut out = ours.to_string();
        append_new_blocks(&mut out, our_tail, their_tail);
        return out;
    }
    let mut out = String::new();
    for region in three_way(base, ours, theirs) {
        match region {
            Region::Clean(text) => out.push_str(&text),
            Region::Conflict { ours, theirs } => {
                let start = out.len();
                push_lines(&mut out, &ours);
                let ours_part = out[start..].to_string();
                append_new_blocks(&mut out, &ours_part, &theirs);
            }
        }
    }
    out
}

/// Blocks of `text`: runs of lines separated by blank lines, each with its trailing blanks.
fn blocks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut offset) = (0, 0);
    let (mut seen_text, mut blank_after_text) = (false, false);
    for line in text.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        if !blank && blank_after_text {
            out.push(&text[start..offset]);
            start = offset;
            blank_after_text = false;
        }
        if blank {
            blank_after_text |= seen_text;
        } else {
            seen_text = true;
        }
        offset += line.len();
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn append_new_blocks(out: &mut String, ours: &str, theirs: &str) {
    let have: HashSet<&str> = blocks(ours).into_iter().map(str::trim).collect();
    for block in blocks(theirs) {
        if block.trim().is_empty() || have.contains(block.trim()) {
            continue;
        }
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(block);
    }
}

// ----- line-based three-way merge ----------------------------------------------------------

enum Region {
    Clean(String),
    Conflict { ours: String, theirs: String },
}

/// The longest run of `c` at the start of any line of `texts`.
fn longest_run(texts: &[&str], c: char) -> usize {
    texts
        .iter()
        .flat_map(|t| t.lines())
        .map(|l| l.chars().take_while(|&x| x == c).count())
        .max()
        .unwrap_or(0)
}

/// A three-way line merge (diffy's, git's algorithm) split into clean and conflicting
/// regions. Inputs are given a final newline so that no marker is glued to a last line; the
/// merged text loses it again when neither side had one.
fn three_way(base: &str, ours: &str, theirs: &str) -> Vec<Region> {
    let with_nl = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_string()
        } else {
            format!("{s}\n")
        }
    };
    let strip_final = !ours.ends_with('\n') && !theirs.ends_with('\n');
    let (b, o, t) = (with_nl(base), with_nl(ours), with_nl(theirs));
    // Markers longer than any run already in the texts, so none can be mistaken for one.
    let len = ['<', '=', '>']
        .iter()
        .map(|&c| longest_run(&[&b, &o, &t], c))
        .max()
        .unwrap_or(0)
        .max(31)
        + 1;
    let (open, mid, close) = (
        format!("{} ours", "<".repeat(len)),
        "=".repeat(len),
        format!("{} theirs", ">".repeat(len)),
    );
    let merged = match diffy::MergeOptions::new()
        .set_conflict_marker_length(len)
        .set_conflict_style(diffy::ConflictStyle::Merge)
        .merge(&b, &o, &t)
    {
        Ok(text) | Err(text) => text,
    };
    let mut regions = Vec::new();
    let mut clean = String::new();
    let (mut in_ours, mut in_theirs) = (false, false);
    let (mut our_part, mut their_part) = (String::new(), String::new());
    for line in merged.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        if bare == open && !in_ours && !in_theirs {
            regions.push(Region::Clean(std::mem::take(&mut clean)));
            in_ours = true;
        } else if bare == mid && in_ours {
            in_ours = false;
            in_theirs = true;
        } else if bare == close && in_theirs {
            in_theirs = false;
            regions.push(Region::Conflict {
                ours: std::mem::take(&mut our_part),
                theirs: std::mem::take(&mut their_part),
            });
        } else if in_ours {
            our_part.push_str(line);
        } else if in_theirs {
            their_part.push_str(line);
        } else {
            clean.push_str(line);
        }
    }
    regions.push(Region::Clean(clean));
    if strip_final {
        // Remove the newline added above from the very last text of the merge.
        for region in regions.iter_mut().rev() {
            let text = match region {
                Region::Clean(text) => text,
                Region::Conflict { theirs, .. } => theirs,
            };
            if !text.is_empty() {
                if text.ends_with('\n') {
                    text.pop();
                }
                break;
            }
        }
    }
    regions.retain(|r| !matches!(r, Region::Clean(t) if t.is_empty()));
    regions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_paths() {
        let d = |y, m, day| NaiveDate::from_ymd_opt(y, m, day).expect("date");
        let cases = [
            (
                "ws/checkpoints/2025-10-13.md",
                FileKind::DayFile {
                    workspace: "ws".into(),
                    date: d(2025, 10, 13),
                },
            ),
            (
                ".goldfish/app/checkpoints/2025-01-02.md",
                FileKind::DayFile {
                    workspace: "app".into(),
                    date: d(2025, 1, 2),
                },
            ),
            ("ws/checkpoints/notes.md", FileKind::Other),
            ("ws/checkpoints/2025-13-40.md", FileKind::Other),
            (
                "ws/plans/auth.md",
                FileKind::Plan {
                    workspace: "ws".into(),
                    id: "auth".into(),
                },
            ),
            ("ws/.active-plan", FileKind::ActivePlan),
            ("JOURNAL.md", FileKind::AppendOnly),
            ("a/.goblin/GOBLIN_NOTES.md", FileKind::AppendOnly),
            ("README.md", FileKind::Other),
        ];
        for (path, kind) in cases {
            assert_eq!(classify(path), kind, "{path}");
        }
    }

    #[test]
    fn append_only_unions_tails() {
        let base = "# Journal\n\n";
        let ours = "# Journal\n\nA one\n\nB two\n";
        let theirs = "# Journal\n\nC three\n\nB two\n";
        assert_eq!(
            merge_append_only(base, ours, theirs),
            "# Journal\n\nA one\n\nB two\nC three\n\n"
        );
        // Rewritten lines on both sides: both kept, ours first.
        let merged = merge_append_only("x\ny\n", "x\nours\n", "x\ntheirs\n");
        assert_eq!(merged, "x\nours\ntheirs\n");
    }

    #[test]
    fn blocks_split_on_blank_lines() {
        assert_eq!(blocks("a\nb\n\nc\n\n\nd"), ["a\nb\n\n", "c\n\n\n", "d"]);
        assert_eq!(blocks("\n\na\n"), ["\n\na\n"]);
        assert!(blocks("").is_empty());
    }

    #[test]
    fn plan_body_conflict_keeps_both() {
        let (text, conflict) = merge_plan_body("a\nb\nc\n", "a\nB1\nc\n", "a\nB2\nc\n");
        assert!(conflict);
        assert!(text.contains("B1\n") && text.contains("B2\n"));
        assert!(has_merge_conflict_text(&text));
        let (text, conflict) = merge_plan_body("a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n");
        assert!(!conflict);
        assert_eq!(text, "A\nb\nC\n");
    }

    #[test]
    fn body_markers_in_text_do_not_confuse_the_merge() {
        let tricky = "=======\n<<<<<<< ours\n";
        let (text, conflict) =
            merge_plan_body(tricky, &format!("{tricky}x\n"), &format!("y\n{tricky}"));
        assert!(!conflict);
        assert_eq!(text, format!("y\n{tricky}x\n"));
    }

    #[test]
    fn active_plan_choice() {
        let none = |_: &str| None;
        let dated = |id: &str| match id {
            "old" => DateTime::parse_from_rfc3339("2025-01-01T00:00:00Z")
                .ok()
                .map(|t| t.with_timezone(&Utc)),
            "new" => DateTime::parse_from_rfc3339("2025-02-01T00:00:00Z")
                .ok()
                .map(|t| t.with_timezone(&Utc)),
            _ => None,
        };
        let text = |m: Merged| String::from_utf8(m.text).expect("utf8");
        assert_eq!(text(merge_active_plan("a\n", "a\n", "b\n", &none)), "b\n");
        assert_eq!(text(merge_active_plan("a\n", "", "b\n", &none)), "b\n");
        assert_eq!(text(merge_active_plan("a\n", "b\n", "", &none)), "b\n");
        assert_eq!(
            text(merge_active_plan("a\n", "old\n", "new\n", &dated)),
            "new\n"
        );
        assert_eq!(
            text(merge_active_plan("a\n", "new\n", "old\n", &dated)),
            "new\n"
        );
        assert_eq!(
            text(merge_active_plan("a\n", "old\n", "unknown\n", &dated)),
            "old\n"
        );
        assert_eq!(
            text(merge_active_plan("a\n", "unknown\n", "old\n", &dated)),
            "old\n"
        );
        assert_eq!(text(merge_active_plan("", "x\n", "y\n", &none)), "x\n");
    }
}
