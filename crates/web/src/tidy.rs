//! What may need tidying in a workspace (`/w/{name}/tidy`): the report of `goldfish tidy`
//! ([`goldfish_recall::tidy`]), read only. The page says how to apply it; it changes nothing.

use goldfish_recall::{TidyMemory, TidyOptions};
use maud::{Markup, html};

use crate::html::{Nav, checkpoint_id_href, layout, problem, problems, workspace_href};
use crate::{App, Page};

/// One memory: a link to its page, its day and type.
fn memory(ws: &str, m: &TidyMemory) -> Markup {
    html! {
        a.title href=(checkpoint_id_href(ws, &m.id)) { (m.title) }
        " "
        time datetime=(m.timestamp.to_rfc3339()) { (m.timestamp.format("%Y-%m-%d")) }
        " "
        span.badge { (m.memory_type.as_str()) }
    }
}

/// The tidy page of workspace `name`; 404 when the store has no such workspace.
pub fn tidy(app: &App, name: &str) -> Page {
    let store = match crate::workspace::known_workspace(app, name) {
        Ok(s) => s,
        Err(page) => return page,
    };
    let report = match goldfish_recall::tidy(&store, name, &TidyOptions::default(), None) {
        Ok(r) => r,
        Err(e) => return layout(200, name, Nav::None, problem(e.to_string())),
    };
    let u = &report.unreturned;
    let body = html! {
        h1 { "Tidy " a href=(workspace_href(name)) { (name) } }
        p.summary {
            (report.checkpoints) " checkpoints. This page only reads: "
            code { "goldfish tidy -w " (name) " --apply" }
            " forgets the exact copies and adds the chains' supersession links; the rest is for you to judge ("
            code { "goldfish forget ID" } ")."
        }
        (problems(&report.problems))
        section.tidy-duplicates {
            h2 { "Near-duplicates (" (report.duplicates.len()) ")" }
            @if report.duplicates.is_empty() { p.empty { "None." } }
            @for d in &report.duplicates {
                div.cluster {
                    p.summary { (d.members.len()) " checkpoints, words in common ≥ " (format!("{:.2}", d.similarity)) }
                    ul {
                        @for m in &d.members {
                            li {
                                (memory(name, m))
                                @if d.copies_to_forget.contains(&m.id) { " " span.badge.copy { "exact copy" } }
                            }
                        }
                    }
                }
            }
        }
        section.tidy-chains {
            h2 { "Decisions on one subject, not linked (" (report.chains.len()) ")" }
            @if report.chains.is_empty() { p.empty { "None." } }
            @for c in &report.chains {
                div.chain {
                    p { "Newest: " (memory(name, &c.newest)) }
                    ul {
                        @for l in &c.older {
                            li { (memory(name, &l.memory)) " " span.age { "(" (l.by.as_str()) " " (format!("{:.2}", l.similarity)) ")" } }
                        }
                    }
                }
            }
        }
        section.tidy-unreturned {
            h2 { "Older than " (report.older_than_days) " days, not returned in " (report.unreturned_days) " days" }
            @if !u.known {
                p.empty {
                    @if let (Some(since), Some(from)) = (u.record_since, u.known_from) {
                        "Not known yet: returns are recorded since " (since) "; known from " (from) "."
                    } @else {
                        "Not known yet: no recall or hook has returned a memory of this workspace since returns began to be recorded."
                    }
                }
            } @else if u.memories.is_empty() {
                p.empty { "None." }
            } @else {
                ul { @for m in &u.memories { li { (memory(name, m)) } } }
            }
        }
    };
    layout(200, &format!("Tidy {name}"), Nav::None, body)
}
