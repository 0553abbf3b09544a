//! The timeline: checkpoints across workspaces, newest first and grouped by day, with
//! filters and a search ranked by the recall engine.

use chrono::NaiveDate;
use goldfish_recall::{Filter, RecallHit, RecallOptions, RecallResult, Scope, format_explanation};
use maud::{Markup, html};
use serde::Deserialize;

use crate::html::{Nav, checkpoint_row, enc, layout, problem, problems, query_string};
use crate::{App, Page};

/// Checkpoints per timeline page.
pub const PAGE_SIZE: usize = 50;

/// The timeline's parameters, as its query string carries them. Every field is text so that
/// a malformed value is reported on the page instead of failing the request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct TimelineQuery {
    /// One workspace; empty or `all` for every one.
    pub ws: Option<String>,
    /// The last this many days; empty for all time.
    pub days: Option<String>,
    /// Comma-separated tags, all required.
    pub tags: Option<String>,
    /// A search: the results are ranked by relevance instead of time.
    pub q: Option<String>,
    /// The 1-based page.
    pub page: Option<String>,
}

fn nonblank(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// The timeline page (`/`).
pub fn timeline(app: &App, q: &TimelineQuery) -> Page {
    let mut notes: Vec<String> = Vec::new();
    // The store's one reading of a workspace selector: blank or `all` is every workspace.
    let scope = match nonblank(&q.ws).map(|w| (w, w.parse::<Scope>())) {
        None => Scope::All,
        Some((_, Ok(scope))) => scope,
        // Refused again by the recall below, which shows why as the page's problem.
        Some((w, Err(_))) => Scope::named(w),
    };
    let ws = scope.name();
    let days = nonblank(&q.days).and_then(|d| match d.parse::<u32>() {
        Ok(n) if n > 0 => Some(n),
        _ => {
            notes.push(format!(
                "days: {d:?} is not a positive whole number; showing all time"
            ));
            None
        }
    });
    let tags: Vec<String> = nonblank(&q.tags)
        .map(|t| {
            t.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let search = nonblank(&q.q);
    let page = nonblank(&q.page)
        .and_then(|p| p.parse::<usize>().ok())
        .filter(|&p| p >= 1)
        .unwrap_or(1);

    let store = match app.store() {
        Ok(s) => s,
        Err(e) => return layout(200, "Timeline", Nav::Timeline, problem(e.to_string())),
    };
    let workspaces = store.list_workspaces().unwrap_or_else(|e| {
        notes.push(e.to_string());
        Vec::new()
    });

    let mut o = RecallOptions::default();
    o.workspace = scope.clone();
    match days {
        Some(d) => o.days = Some(d),
        None => o.from = Some("1970-01-01".into()),
    }
    o.search = search.map(str::to_string);
    o.explain = search.is_some();
    o.limit = page.saturating_mul(PAGE_SIZE);
    o.now = app.now;
    o.cwd = app.cwd.clone();
    let mut filter = Filter::default();
    filter.tags = tags.clone();
    o.filter = filter;
    let result = app.recall(&store, &o);

    let form = html! {
        form.filters method="get" action="/" role="search" {
            label { "Search "
                input type="search" name="q" value=[search] placeholder="what did we decide about auth?" autofocus;
            }
            label { "Workspace "
                select name="ws" {
                    option value="" { "all" }
                    @for w in &workspaces {
                        option value=(w) selected[ws == Some(w.as_str())] { (w) }
                    }
                }
            }
            label { "Days " input type="number" name="days" min="1" value=[days] placeholder="all" size="4"; }
            label { "Tags " input type="text" name="tags" value=[nonblank(&q.tags)] placeholder="auth,bug-fix"; }
            button type="submit" { "Show" }
            " " a href="/" { "reset" }
        }
    };
    let ws_links = html! {
        @if !workspaces.is_empty() {
            p.workspaces { "Workspaces: "
                @for (i, w) in workspaces.iter().enumerate() {
                    @if i > 0 { " · " }
                    a href={ "/w/" (enc(w)) } { (w) }
                }
            }
        }
    };
    let body = match result {
        Ok(r) => results(app, &r, search.is_some(), page, q),
        Err(e) => problem(e.to_string()),
    };
    let title = match search {
        Some(s) => format!("Search: {s}"),
        None => "Timeline".to_string(),
    };
    layout(
        200,
        &title,
        Nav::Timeline,
        html! {
            h1 { "Timeline" }
            (form)
            (ws_links)
            @for n in &notes { p.note { (n) } }
            (body)
        },
    )
}

/// The list under the form: a ranked list for a search, else grouped by day; pagination.
fn results(app: &App, r: &RecallResult, searching: bool, page: usize, q: &TimelineQuery) -> Markup {
    let start = (page - 1).saturating_mul(PAGE_SIZE);
    let shown = &r.hits[start.min(r.hits.len())..];
    // What git says of this page's checkpoints: one git process at most.
    let fresh = app.freshness(shown);
    let pages = r.total.div_ceil(PAGE_SIZE).max(1);
    let link = |p: usize| {
        let p = p.to_string();
        let pairs = [
            ("q", q.q.as_deref().unwrap_or("")),
            ("ws", q.ws.as_deref().unwrap_or("")),
            ("days", q.days.as_deref().unwrap_or("")),
            ("tags", q.tags.as_deref().unwrap_or("")),
            ("page", p.as_str()),
        ];
        format!("/{}", query_string(&pairs))
    };
    let skipped: Vec<String> = r.skipped.iter().map(ToString::to_string).collect();
    html! {
        (problems(&skipped))
        p.summary #summary {
            @if searching {
                (r.total) " matching checkpoint" @if r.total != 1 { "s" } ", by relevance"
            } @else {
                (r.total) " checkpoint" @if r.total != 1 { "s" } ", newest first"
            }
            @if pages > 1 { " · page " (page) " of " (pages) }
        }
        @if shown.is_empty() {
            p.empty { @if r.total == 0 { "Nothing here." } @else { "No checkpoints on this page." } }
        } @else if searching {
            ol.results start=(start.saturating_add(1)) {
                @for hit in shown {
                    @let why = hit.explanation.as_ref().map(format_explanation);
                    (checkpoint_row(&hit.checkpoint, r.now, true, fresh.get(&hit.checkpoint.id), html! {
                        @if let Some(why) = why {
                            details.why { summary { "why this matched" } pre { (why) } }
                        }
                    }))
                }
            }
        } @else {
            @for (d, group) in by_day(shown) {
                h2.day { time datetime=(d) { (d.format("%A %-d %B %Y")) } }
                ul.day { @for h in group { (checkpoint_row(&h.checkpoint, r.now, false, fresh.get(&h.checkpoint.id), html! {})) } }
            }
        }
        @if pages > 1 {
            nav.pager {
                @if page > 1 { a rel="prev" href=(link(page - 1)) { @if searching { "← previous" } @else { "← newer" } } }
                @if page < pages { a rel="next" href=(link(page + 1)) { @if searching { "next →" } @else { "older →" } } }
            }
        }
    }
}

/// Consecutive checkpoints of the same UTC day, in order.
fn by_day(list: &[RecallHit]) -> Vec<(NaiveDate, &[RecallHit])> {
    let mut out = Vec::new();
    let mut rest = list;
    while let Some(first) = rest.first() {
        let day = first.checkpoint.timestamp.date_naive();
        let n = rest
            .iter()
            .take_while(|h| h.checkpoint.timestamp.date_naive() == day)
            .count();
        let (group, tail) = rest.split_at(n);
        out.push((day, group));
        rest = tail;
    }
    out
}
