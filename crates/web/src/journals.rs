//! Journals and notes: the store's archive of finished journals (`.self-improving/`) and, for
//! each worktree given on the command line, its `JOURNAL.md` hand-over, `GOBLIN_NOTES.md` and
//! pipeline state.

use std::io::ErrorKind as IoKind;
use std::path::{Path, PathBuf};

use goldfish_journal::Journal;
use goldfish_signals::PipelineRunner;
use maud::{Markup, html};

use crate::html::{Nav, enc, layout, not_found, problem, problems, raw};
use crate::markdown::markdown_to_html;
use crate::{App, Page};

/// The archive's directory under the store root, where `goldfish journal archive` writes.
fn archive_root(app: &App) -> PathBuf {
    goldfish_journal::archive_root_in(app.store_root())
}

/// Reads a text file: `Ok(None)` when it does not exist, an error message naming it otherwise.
fn read_text(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|e| format!("{}: not UTF-8 text ({e})", path.display())),
        Err(e) if e.kind() == IoKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: cannot read it: {e}", path.display())),
    }
}

/// True for the name of an archived journal: `[A-Za-z0-9._-]+.md`, not starting with a dot
/// (so it can never leave the archive's directory).
fn is_journal_name(name: &str) -> bool {
    name.ends_with(".md")
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The journals & notes page (`/journals`).
pub fn journals(app: &App) -> Page {
    let root = archive_root(app);
    let mut trouble = Vec::new();

    let dir = root.join("journals");
    let mut names: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| match e {
                Ok(e) => e.file_name().into_string().ok(),
                Err(err) => {
                    trouble.push(format!("{}: {err}", dir.display()));
                    None
                }
            })
            .filter(|n| is_journal_name(n))
            .collect(),
        Err(e) if e.kind() == IoKind::NotFound => Vec::new(),
        Err(e) => {
            trouble.push(format!("{}: cannot list it: {e}", dir.display()));
            Vec::new()
        }
    };
    names.sort_unstable_by(|a, b| b.cmp(a));

    let corrections = match read_text(&root.join("corrections.md")) {
        Ok(Some(text)) => html! { div.markdown { (raw(markdown_to_html(&text))) } },
        Ok(None) => html! { p.empty { "None yet." } },
        Err(e) => problem(e),
    };
    let patterns = match read_text(&root.join("patterns.jsonl")) {
        Ok(Some(text)) => patterns_table(&text, &root.join("patterns.jsonl")),
        Ok(None) => html! { p.empty { "None yet." } },
        Err(e) => problem(e),
    };

    layout(
        200,
        "Journals & notes",
        Nav::Journals,
        html! {
            h1 { "Journals & notes" }
            (problems(&trouble))
            h2 { "Worktrees" }
            @if app.worktrees().is_empty() {
                p.empty { "None given (start the server with " code { "--worktree DIR" } ")." }
            } @else {
                ul { @for (i, wt) in app.worktrees().iter().enumerate() {
                    li { a href={ "/worktrees/" (i) } { (wt.display()) } }
                } }
            }
            h2 { "Archived journals" }
            p.muted { code { (dir.display()) } }
            @if names.is_empty() { p.empty { "None yet." } } @else {
                ul { @for n in &names { li { a href={ "/journals/" (enc(n)) } { (n) } } } }
            }
            h2 { "Corrections" }
            (corrections)
            h2 { "Patterns" }
            (patterns)
        },
    )
}

/// `patterns.jsonl` as a table, one row per line; a line that is not a JSON object is a
/// problem naming its line.
fn patterns_table(text: &str, path: &Path) -> Markup {
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(line) {
            Ok(obj) => rows.push(obj),
            Err(e) => bad.push(format!("{}:{}: {e}", path.display(), i + 1)),
        }
    }
    let field = |o: &serde_json::Map<String, serde_json::Value>, k: &str| -> String {
        match o.get(k) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => String::new(),
        }
    };
    html! {
        (problems(&bad))
        @if rows.is_empty() { p.empty { "None yet." } } @else {
            table.patterns {
                thead { tr { th { "when" } th { "task" } th { "code" } th { "failed on" } th { "switched to" } th { "rationale" } th { "outcome" } } }
                tbody { @for r in &rows {
                    tr {
                        td { (field(r, "ts")) } td { (field(r, "task")) } td { code { (field(r, "code")) } }
                        td { (field(r, "failed_on")) } td { (field(r, "switching_to")) }
                        td { (field(r, "rationale")) } td { (field(r, "outcome")) }
                    }
                } }
            }
        }
    }
}

/// One archived journal (`/journals/{name}`); 404 for a name that is not one.
pub fn archived_journal(app: &App, name: &str) -> Page {
    if !is_journal_name(name) {
        return not_found(&format!("{name:?} is not an archived journal's name."));
    }
    let path = archive_root(app).join("journals").join(name);
    match read_text(&path) {
        Ok(Some(text)) => layout(
            200,
            name,
            Nav::Journals,
            html! {
                p.crumbs { a href="/journals" { "Journals & notes" } " › " (name) }
                article.markdown { (raw(markdown_to_html(&text))) }
            },
        ),
        Ok(None) => not_found(&format!("No archived journal {name:?}.")),
        Err(e) => layout(
            200,
            name,
            Nav::Journals,
            html! { h1 { (name) } (problem(e)) },
        ),
    }
}

/// Worktree `n` of [`App::worktrees`] (`/worktrees/{n}`): its journal's hand-over, its notes
/// and its pipeline; 404 past the list.
pub fn worktree(app: &App, n: usize) -> Page {
    let Some(wt) = app.worktrees().get(n) else {
        return not_found(&format!("No worktree number {n} was given."));
    };

    let journal = match Journal::open(wt) {
        Ok(j) if !j.exists() => html! { p.empty { "No JOURNAL.md." } },
        Ok(j) => match j.handover() {
            Ok(h) => html! {
                p.muted { code { (j.path().display()) } }
                @if let Some(state) = &h.status.current_state { p { strong { "Current state: " } (state) } }
                @if let Some(approach) = &h.status.current_approach { p { strong { "Approach: " } (approach) } }
                @for s in h.status.mutation_required() {
                    p.problems { strong { "Mutation required: " } (s.approach) " failed " (s.failures) " times" }
                }
                pre.handover { (h.to_string()) }
            },
            Err(e) => problem(e.to_string()),
        },
        Err(e) => problem(e.to_string()),
    };

    let notes_path = notes_core::NotesManager::path(wt);
    let notes = match read_text(&notes_path) {
        Ok(Some(text)) => html! {
            p.muted { code { (notes_path.display()) } }
            div.markdown { (raw(markdown_to_html(&text))) }
        },
        Ok(None) => html! { p.empty { "No GOBLIN_NOTES.md." } },
        Err(e) => problem(e),
    };

    let pipeline = match PipelineRunner::inspect(wt) {
        Ok(None) => html! { p.empty { "No pipeline." } },
        Ok(Some(view)) => {
            let p = &view.pipeline;
            let missing: Vec<&str> = if p.is_terminal() {
                Vec::new()
            } else {
                goldfish_signals::expected_signals(p.stage())
                    .iter()
                    .filter(|k| !view.pending.iter().any(|s| s.kind == **k))
                    .map(|k| k.file_name())
                    .collect()
            };
            html! {
                p {
                    "Stage " strong.stage { (p.stage().as_str()) }
                    " · retries " (p.retries()) "/" (p.max_retries())
                    @if let Some(reason) = p.reason() { " · " (reason) }
                }
                p.muted { "started " (p.started_at().format("%Y-%m-%d %H:%M:%S UTC"))
                    " · updated " (p.updated_at().format("%Y-%m-%d %H:%M:%S UTC")) }
                @if !view.pending.is_empty() {
                    p { "Present, not applied yet: "
                        @for s in &view.pending {
                            code { (s.kind.file_name()) }
                            @if let Err(e) = &s.signal { " (unreadable: " (e.to_string()) ")" }
                            " "
                        }
                    }
                } @else if !missing.is_empty() {
                    p { strong { "Waiting for: " } (missing.join(" or ")) }
                }
                @if !p.history().is_empty() {
                    table.history {
                        thead { tr { th { "at" } th { "from" } th { "to" } th { "retries" } } }
                        tbody { @for t in p.history() {
                            tr { td { (t.at.format("%Y-%m-%d %H:%M:%S")) } td { (t.from.as_str()) } td { (t.to.as_str()) } td { (t.retries) } }
                        } }
                    }
                }
            }
        }
        Err(e) => problem(e.to_string()),
    };

    layout(
        200,
        "Worktree",
        Nav::Journals,
        html! {
            p.crumbs { a href="/journals" { "Journals & notes" } " › worktree" }
            h1 { "Worktree " code { (wt.display()) } }
            h2 { "Journal hand-over" }
            (journal)
            h2 { "Notes" }
            (notes)
            h2 { "Pipeline" }
            (pipeline)
        },
    )
}
