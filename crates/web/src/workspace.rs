//! A workspace: its plans with progress, the active plan, recent checkpoints.

use goldfish_recall::{RecallOptions, Scope};
use goldfish_store::PlanStatus;
use maud::html;

use crate::html::{
    Nav, checkpoint_row, layout, not_found, plan_href, problem, problems, progress, query_string,
    raw, tags, workspace_href,
};
use crate::markdown::markdown_to_html;
use crate::{App, Page};

/// Recent checkpoints shown on a workspace page.
const RECENT: usize = 20;

/// The store, when it holds workspace `name`; else the page to answer with: 404 for an
/// unknown workspace, the problem for a store that cannot be read. The workspace's pages
/// (this one and its tidy page) start with it.
pub(crate) fn known_workspace(app: &App, name: &str) -> Result<goldfish_store::Store, Page> {
    let store = app
        .store()
        .map_err(|e| layout(200, name, Nav::None, problem(e.to_string())))?;
    match store.list_workspaces() {
        Ok(list) if list.iter().any(|w| w == name) => Ok(store),
        Ok(_) => Err(not_found(&format!(
            "The store has no workspace named {name:?}."
        ))),
        Err(e) => Err(layout(200, name, Nav::None, problem(e.to_string()))),
    }
}

/// The page of workspace `name` (`/w/{name}`); 404 when the store has no such workspace.
pub fn workspace(app: &App, name: &str) -> Page {
    let store = match known_workspace(app, name) {
        Ok(s) => s,
        Err(page) => return page,
    };

    let plans = match store.list_plans(name) {
        Ok(list) => {
            let skipped: Vec<String> = list.skipped.iter().map(ToString::to_string).collect();
            let active = list
                .active
                .as_deref()
                .and_then(|id| list.plans.iter().find(|p| p.id == id));
            html! {
                (problems(&skipped))
                h2 { "Plans" }
                @if list.plans.is_empty() {
                    p.empty { "No plans." }
                } @else {
                    table.plans {
                        thead { tr { th { "plan" } th { "status" } th { "progress" } th { "updated" } th { "tags" } } }
                        tbody {
                            @for p in &list.plans {
                                tr.(if p.status == PlanStatus::Active { "active" } else { "" }) {
                                    td {
                                        a href=(plan_href(name, &p.id)) { (p.title) }
                                        @if list.active.as_deref() == Some(p.id.as_str()) { " " span.badge { "active plan" } }
                                    }
                                    td { (p.status.as_str()) }
                                    td { (progress(p.progress())) }
                                    td { time datetime=(p.updated.to_rfc3339()) { (p.updated.format("%Y-%m-%d")) } }
                                    td { (tags(&p.tags)) }
                                }
                            }
                        }
                    }
                }
                @if let Some(p) = active {
                    section.active-plan {
                        h2 { "Active plan: " a href=(plan_href(name, &p.id)) { (p.title) } }
                        p { (progress(p.progress())) }
                        div.markdown { (raw(markdown_to_html(&p.content))) }
                    }
                }
            }
        }
        Err(e) => problem(e.to_string()),
    };

    let mut o = RecallOptions::default();
    o.workspace = Scope::Named(name.to_string());
    o.from = Some("1970-01-01".into());
    o.limit = RECENT;
    o.now = app.now;
    o.cwd = app.cwd.clone();
    let recent = match app.recall(&store, &o) {
        Ok(r) => {
            let skipped: Vec<String> = r.skipped.iter().map(ToString::to_string).collect();
            let fresh = app.freshness(&r.hits);
            html! {
                (problems(&skipped))
                h2 { "Recent checkpoints" }
                p.summary { (r.hits.len()) " of " (r.total) " · "
                    a href={ "/" (query_string(&[("ws", name)])) } { "all in the timeline" } }
                ul.day { @for c in r.checkpoints() { (checkpoint_row(c, r.now, true, fresh.get(&c.id), html! {})) } }
            }
        }
        Err(e) => problem(e.to_string()),
    };

    layout(
        200,
        name,
        Nav::None,
        html! {
            h1 { "Workspace " (name) }
            p.summary { a href={ (workspace_href(name)) "/tidy" } { "What may need tidying" } " (near-duplicates, unlinked decisions, memories nobody is shown)" }
            (plans)
            (recent)
        },
    )
}
