//! Renderers shared by the CLI and the MCP server: library values as JSON and as markdown.
//! Rendering only: nothing here decides anything.

use std::fmt::Write as _;

use goldfish_core::time::format_utc;
use goldfish_recall::{Links, RecallResult};
use goldfish_store::{Checkpoint, Plan, PlanList, Redaction, redaction_summary};
use serde_json::{Value, json};

/// The most characters of user text (a title, a description's first line) a reply echoes.
pub(crate) const ECHO_CHARS: usize = 200;

/// `text` cut to [`ECHO_CHARS`] characters, with `…` when something was cut: a reply confirms
/// what was saved, it does not send it back.
pub(crate) fn echo(text: &str) -> String {
    if text.chars().count() <= ECHO_CHARS {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(ECHO_CHARS).collect();
    cut.push('…');
    cut
}

/// What a save redacted, as JSON: `[{"field": "description", "kind": "github-token"}, …]`
/// (never the secret).
pub(crate) fn redacted_json(redacted: &[Redaction]) -> Value {
    Value::Array(
        redacted
            .iter()
            .map(|r| json!({"field": r.field, "kind": r.kind}))
            .collect(),
    )
}

/// The line a reply adds when a save redacted something: `redacted 2 secrets:
/// aws-access-key-id, github-token (stored as [REDACTED:<kind>])`, or `None`.
pub(crate) fn redacted_line(redacted: &[Redaction]) -> Option<String> {
    redaction_summary(redacted).map(|s| format!("{s} (stored as [REDACTED:<kind>])"))
}

/// One memory a save resembles, as a reply's line: `may supersede: ID "title" (0.81,
/// meaning)` for a decision or incident on what looks like the same subject, else
/// `resembles: ID "title" (0.42, words)`.
pub(crate) fn resemblance_line(r: &goldfish_recall::Resemblance) -> String {
    let what = if r.may_supersede {
        "may supersede"
    } else {
        "resembles"
    };
    format!(
        "{what}: {} \"{}\" ({:.2}, {})",
        r.id,
        echo(&r.title),
        r.similarity,
        r.by.as_str()
    )
}

/// A checkpoint as JSON: the fields scripts rely on, timestamps in goldfish's UTC format.
pub(crate) fn checkpoint_json(c: &Checkpoint) -> Value {
    let mut v = json!({
        "id": c.id,
        "timestamp": format_utc(&c.timestamp),
        "workspace": c.workspace,
        "description": c.description,
        "tags": c.tags,
        "branch": c.branch,
        "commit": c.commit,
        "files": c.files,
        "files_omitted": c.files_omitted,
        "type": c.memory_type.as_str(),
    });
    // The structured fields of a typed memory sit beside the others, only those given.
    if let (Value::Object(map), Ok(Value::Object(fields))) =
        (&mut v, serde_json::to_value(&c.structured))
    {
        map.extend(fields);
    }
    if !c.actor.is_empty()
        && let Ok(actor) = serde_json::to_value(&c.actor)
    {
        v["actor"] = actor;
    }
    if let Some(topic) = &c.topic {
        v["topic"] = json!(topic);
    }
    // The ids alone; the views that know the titles replace them with `{id, title}` objects
    // (see `checkpoint_links_json`).
    v["supersedes"] = json!(
        c.supersedes
            .iter()
            .map(|id| json!({"id": id, "title": Value::Null}))
            .collect::<Vec<_>>()
    );
    v["superseded_by"] = json!([]);
    v
}

/// [`checkpoint_json`] with its supersession links, both ways: `supersedes` and
/// `superseded_by`, each a list of `{"id", "title"}` (a title `""` when no day file holds
/// that id any more).
pub(crate) fn checkpoint_links_json(c: &Checkpoint, links: &Links) -> Value {
    let mut v = checkpoint_json(c);
    v["supersedes"] = serde_json::to_value(&links.supersedes).unwrap_or(Value::Null);
    v["superseded_by"] = serde_json::to_value(&links.superseded_by).unwrap_or(Value::Null);
    v
}

/// Links as `ID "title"`, comma-separated, titles cut to [`ECHO_CHARS`].
pub(crate) fn link_list(links: &[goldfish_store::Link]) -> String {
    links
        .iter()
        .map(|l| format!("{} \"{}\"", l.id, echo(&l.title)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A plan as JSON (timestamps in goldfish's one UTC format, progress as [`Plan::progress`]).
pub(crate) fn plan_json(plan: &Plan) -> Value {
    let progress = plan.progress();
    json!({
        "id": plan.id,
        "title": plan.title,
        "status": plan.status.as_str(),
        "workspace": plan.workspace,
        "created": format_utc(&plan.created),
        "updated": format_utc(&plan.updated),
        "tags": plan.tags,
        "content": plan.content,
        "progress": {"done": progress.done, "open": progress.open},
        "merge_conflict": goldfish_sync::has_merge_conflict(plan),
    })
}

/// A plan as markdown: a heading, one line of facts, then the body.
pub(crate) fn plan_markdown(plan: &Plan, active: bool) -> String {
    let progress = plan.progress();
    let mut s = format!("## Plan: {} (`{}`)\n", plan.title, plan.id);
    let _ = write!(s, "Status: {}", plan.status);
    if active {
        s.push_str(" (active plan)");
    }
    if progress.total() > 0 {
        let _ = write!(s, " · progress {}/{}", progress.done, progress.total());
    }
    let _ = write!(s, " · updated {}", format_utc(&plan.updated));
    if !plan.tags.is_empty() {
        let _ = write!(s, " · tags: {}", plan.tags.join(", "));
    }
    s.push('\n');
    if goldfish_sync::has_merge_conflict(plan) {
        s.push_str(
            "Merge conflict: this plan was changed on both sides of a sync or merge; both texts are kept between `goldfish:merge-conflict` markers. Keep one and update the plan.\n",
        );
    }
    let body = plan.content.trim();
    if !body.is_empty() {
        s.push('\n');
        s.push_str(body);
        s.push('\n');
    }
    s
}

/// A workspace's plans as markdown, one line each, then the files that could not be read.
pub(crate) fn plan_list_markdown(list: &PlanList, active: Option<&str>, workspace: &str) -> String {
    let mut s = if list.plans.is_empty() {
        format!("No plans in workspace `{workspace}`.\n")
    } else {
        format!("Plans in `{workspace}`:\n")
    };
    for p in &list.plans {
        let progress = p.progress();
        let mark = if active == Some(p.id.as_str()) {
            " ← active"
        } else {
            ""
        };
        let prog = if progress.total() > 0 {
            format!(", {}/{}", progress.done, progress.total())
        } else {
            String::new()
        };
        let _ = writeln!(s, "- `{}` {} ({}{prog}){mark}", p.id, p.title, p.status);
    }
    for k in &list.skipped {
        let _ = writeln!(s, "(skipped {k})");
    }
    s
}

/// `plan list --json`.
pub(crate) fn plan_list_json(list: &PlanList, active: Option<&str>, workspace: &str) -> Value {
    json!({
        "workspace": workspace,
        "active": active,
        "plans": list.plans.iter().map(plan_json).collect::<Vec<_>>(),
        "skipped": list.skipped.iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}

/// `recall --json`: `workspace` (its name, or `all`) and `all_workspaces` (true only for
/// `all`, so a workspace named `all` by an older version is told apart), `checkpoints`,
/// `active_plan`, `workspaces` (for `all`), `skipped`, and where the store is and whether it
/// holds anything.
pub(crate) fn recall_json(r: &RecallResult) -> Value {
    let all = r.scope.is_all();
    json!({
        "workspace": r.scope.to_string(),
        "all_workspaces": all,
        "window": r.window,
        "search": r.search,
        // The other phrasings fused with it (`--search` repeated).
        "also_searched": r.also_searched,
        // Which channels ranked the answer (a search only): lexical, and semantic with a model.
        "channels": r.search.as_ref().map(|_| &r.channels),
        "now": format_utc(&r.now),
        "total": r.total,
        "checkpoints": r.hits.iter().map(|h| {
            let mut v = checkpoint_links_json(&h.checkpoint, &h.links);
            v["age"] = json!(goldfish_store::age_text(r.now, h.checkpoint.timestamp));
            // What git says of its files since its commit: `null` for no claim.
            v["freshness"] = json!(h.freshness);
            // With --explain, each checkpoint carries why it matched.
            if let (Some(e), Value::Object(map)) = (&h.explanation, &mut v) {
                map.insert("explain".into(), serde_json::to_value(e).unwrap_or(Value::Null));
            }
            v
        }).collect::<Vec<_>>(),
        "active_plan": r.active_plan.as_ref().map(plan_json),
        "workspaces": if all { serde_json::to_value(&r.workspaces).unwrap_or(Value::Null) } else { Value::Null },
        "skipped": serde_json::to_value(&r.skipped).unwrap_or(Value::Null),
        "store": {"root": r.store_root, "state": r.store},
    })
}

/// What a forget did (or would do), as text: one line per memory, and the ids that were
/// already forgotten.
pub(crate) fn forget_text(report: &goldfish_store::ForgetReport) -> String {
    let mut s = String::new();
    let verb = if report.dry_run {
        "Would forget"
    } else {
        "Forgot"
    };
    if report.forgotten.is_empty() && report.already_forgotten.is_empty() {
        s.push_str("Nothing to forget.\n");
    }
    for m in &report.forgotten {
        let _ = writeln!(
            s,
            "{verb} {} {} ({}) in workspace `{}`{}",
            m.tombstone.what.kind(),
            m.tombstone.what.id(),
            echo(&m.title),
            m.workspace,
            match (report.dry_run, m.files.len()) {
                (true, _) => String::new(),
                (false, 1) => ": removed from 1 file".to_string(),
                (false, n) => format!(": removed from {n} files"),
            }
        );
    }
    for id in &report.already_forgotten {
        let _ = writeln!(s, "{id}: already forgotten (a tombstone names it)");
    }
    if !report.dry_run && !report.forgotten.is_empty() {
        s.push_str("A tombstone (id, time, who; never the text) keeps it from coming back by sync or import.\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echo_caps_long_text() {
        assert_eq!(echo("short"), "short");
        let exact = "é".repeat(ECHO_CHARS);
        assert_eq!(echo(&exact), exact);
        let long = "x".repeat(ECHO_CHARS * 10);
        let cut = echo(&long);
        assert_eq!(cut.chars().count(), ECHO_CHARS + 1);
        assert!(cut.ends_with('…'));
    }
}
