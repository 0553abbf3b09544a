//! Detail pages: one plan, one checkpoint, rendered from their markdown.

use chrono::NaiveDate;
use maud::html;

use crate::html::{
    Nav, files, git_line, layout, not_found, problem, problems, progress, raw, tags, workspace_href,
};
use crate::markdown::markdown_to_html;
use crate::{App, Page};

/// The page of plan `id` of workspace `ws` (`/w/{ws}/plans/{id}`); 404 when there is none.
pub fn plan(app: &App, ws: &str, id: &str) -> Page {
    let store = match app.store() {
        Ok(s) => s,
        Err(e) => return layout(200, id, Nav::None, problem(e.to_string())),
    };
    let plan = match store.get_plan(ws, id) {
        Ok(p) => p,
        Err(e) if e.is_not_found() || e.is_invalid_input() => {
            return not_found(&format!("Workspace {ws:?} has no plan {id:?}."));
        }
        Err(e) => {
            return layout(
                200,
                id,
                Nav::None,
                html! {
                    h1 { "Plan " (id) }
                    (problem(e.to_string()))
                },
            );
        }
    };
    let active = store
        .active_plan(ws)
        .ok()
        .flatten()
        .is_some_and(|a| a.id == plan.id);
    layout(
        200,
        &plan.title,
        Nav::None,
        html! {
            p.crumbs { a href=(workspace_href(ws)) { (ws) } " › plans" }
            h1 { (plan.title) }
            p.meta {
                span.status { (plan.status.as_str()) }
                @if active { " " span.badge { "active plan" } }
                " · created " (plan.created.format("%Y-%m-%d %H:%M"))
                " · updated " (plan.updated.format("%Y-%m-%d %H:%M"))
                @if !plan.tags.is_empty() { " · " (tags(&plan.tags)) }
            }
            p.progress { (progress(plan.progress())) }
            article.markdown { (raw(markdown_to_html(&plan.content))) }
        },
    )
}

/// The page of checkpoint `id` of workspace `ws` (`/w/{ws}/checkpoints/{id}?day=YYYY-MM-DD`);
/// 404 when there is none. Only one day file is read: `day`'s, else the date the id carries
/// (goldfish ids start with it; imported ones hold it after a prefix).
pub fn checkpoint(app: &App, ws: &str, id: &str, day: Option<&str>) -> Page {
    let date = day
        .and_then(|d| NaiveDate::parse_from_str(d.trim(), "%Y-%m-%d").ok())
        .or_else(|| date_in_id(id));
    let Some(date) = date else {
        return not_found(&format!(
            "{id:?} is not a checkpoint id (give its day with ?day=YYYY-MM-DD)."
        ));
    };
    let store = match app.store() {
        Ok(s) => s,
        Err(e) => return layout(200, id, Nav::None, problem(e.to_string())),
    };
    let day = match store.read_day(ws, date) {
        Ok(d) => d,
        Err(e) if e.is_invalid_input() => {
            return not_found(&format!("{ws:?} is not a workspace name."));
        }
        Err(e) => return layout(200, id, Nav::None, problem(e.to_string())),
    };
    let skipped: Vec<String> = day.skipped.iter().map(ToString::to_string).collect();
    let Some(c) = day.checkpoints.iter().find(|c| c.id == id) else {
        if skipped.is_empty() {
            return not_found(&format!("Workspace {ws:?} has no checkpoint {id:?}."));
        }
        return layout(
            200,
            id,
            Nav::None,
            html! { h1 { "Checkpoint " (id) } (problems(&skipped)) },
        );
    };
    let structured = c.structured.labelled();
    // Supersession, both ways; a store whose links cannot be read shows the page without them.
    let links = goldfish_recall::links_of(
        &store,
        &goldfish_recall::RecallOptions::default(),
        c,
        &mut Vec::new(),
    )
    .unwrap_or_default();
    let link_list = |title: &str, list: &[goldfish_store::Link]| {
        html! {
            @if !list.is_empty() {
                p.supersession {
                    (title) " "
                    @for (i, l) in list.iter().enumerate() {
                        @if i > 0 { ", " }
                        a href=(crate::html::checkpoint_id_href(ws, &l.id)) {
                            @if l.title.is_empty() { code { (l.id) } } @else { (l.title) }
                        }
                    }
                }
            }
        }
    };
    let all_files = html! {
        @if !c.files.is_empty() {
            h2 { "Files" }
            (files(c, usize::MAX))
        }
    };
    layout(
        200,
        c.title(),
        Nav::None,
        html! {
            p.crumbs {
                a href=(workspace_href(ws)) { (ws) } " › "
                a href={ "/" (crate::html::query_string(&[("ws", ws)])) } { "timeline" }
            }
            p.meta {
                time datetime=(c.timestamp.to_rfc3339()) { (c.timestamp.format("%Y-%m-%d %H:%M:%S UTC")) }
                " · " (c.memory_type.as_str()) " · "
                (tags(&c.tags))
                (git_line(c))
            }
            (link_list("Supersedes:", &links.supersedes))
            (link_list("Superseded by:", &links.superseded_by))
            @if let Some(topic) = &c.topic { p.meta { "topic " code { (topic) } } }
            article.markdown { (raw(markdown_to_html(&c.description))) }
            @if !structured.is_empty() {
                dl.structured {
                    @for (label, text) in &structured { dt { (label) } dd { (text) } }
                }
            }
            (all_files)
            @if !c.actor.is_empty() {
                h2 { "Saved by" }
                dl.structured.actor {
                    @for (label, value) in c.actor.fields() {
                        @if let Some(value) = value { dt { (label) } dd { (value) } }
                    }
                }
            }
            p.muted { "id " code { (c.id) } }
            (problems(&skipped))
        },
    )
}

/// The first eight digits in a row of `id` that form a date (`20251013T…`, `v4-20260822T1934-…`).
fn date_in_id(id: &str) -> Option<NaiveDate> {
    let b = id.as_bytes();
    (0..b.len().saturating_sub(7)).find_map(|i| {
        let window = b.get(i..i + 8)?;
        if !window.iter().all(u8::is_ascii_digit) || (i > 0 && b[i - 1].is_ascii_digit()) {
            return None;
        }
        NaiveDate::parse_from_str(std::str::from_utf8(window).ok()?, "%Y%m%d").ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_ids() {
        let d = |y, m, day| NaiveDate::from_ymd_opt(y, m, day);
        assert_eq!(date_in_id("20251013T093012345Z-3fa9c1"), d(2025, 10, 13));
        assert_eq!(date_in_id("v4-20260822T1934-a8b5efe1"), d(2026, 8, 22));
        assert_eq!(date_in_id("nothing-here"), None);
        assert_eq!(date_in_id("x-99999999"), None);
    }
}
