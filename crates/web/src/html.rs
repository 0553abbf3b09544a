//! The page layout and the pieces every page shares: links, checkpoint rows, problems,
//! progress bars.

use std::fmt::Write as _;

use goldfish_store::{Checkpoint, Progress};
use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::Page;

/// The stylesheet, embedded in the binary and served at `/static/style.css`.
pub(crate) const STYLE: &str = include_str!("style.css");

/// Which navigation entry is current.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nav {
    Timeline,
    Activity,
    Journals,
    None,
}

/// A whole document around `body`.
pub(crate) fn layout(status: u16, title: &str, nav: Nav, body: Markup) -> Page {
    let item = |which: Nav, href: &str, label: &str| {
        html! {
            a href=(href) aria-current=[(nav == which).then_some("page")] { (label) }
        }
    };
    let doc = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · goldfish" }
                link rel="stylesheet" href="/static/style.css";
            }
            body {
                header.top {
                    a.brand href="/" { "goldfish" }
                    nav {
                        (item(Nav::Timeline, "/", "Timeline"))
                        (item(Nav::Activity, "/activity", "Activity"))
                        (item(Nav::Journals, "/journals", "Journals & notes"))
                    }
                    span.readonly { "read-only" }
                }
                main { (body) }
            }
        }
    };
    Page {
        status,
        html: doc.into_string(),
    }
}

/// The 404 page for something a path names that does not exist.
pub(crate) fn not_found(what: &str) -> Page {
    layout(
        404,
        "Not found",
        Nav::None,
        html! {
            h1 { "Not found" }
            p { (what) }
            p { a href="/" { "Back to the timeline" } }
        },
    )
}

/// Percent-encodes `s` for a URL path segment or query value (everything but the unreserved
/// characters of RFC 3986).
pub(crate) fn enc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A query string from pairs, leaving out empty values (`?a=1&b=x`, or "" when none).
pub(crate) fn query_string(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (k, v) in pairs.iter().filter(|(_, v)| !v.is_empty()) {
        out.push(if out.is_empty() { '?' } else { '&' });
        out.push_str(k);
        out.push('=');
        out.push_str(&enc(v));
    }
    out
}

/// The workspace page's path.
pub(crate) fn workspace_href(ws: &str) -> String {
    format!("/w/{}", enc(ws))
}

/// A checkpoint's page (its day given, so that any id format is found).
pub(crate) fn checkpoint_href(c: &Checkpoint) -> String {
    format!(
        "/w/{}/checkpoints/{}?day={}",
        enc(&c.workspace),
        enc(&c.id),
        c.timestamp.format("%Y-%m-%d")
    )
}

/// The page of checkpoint `id` of `ws` when only its id is known (the page finds its day
/// from the id).
pub(crate) fn checkpoint_id_href(ws: &str, id: &str) -> String {
    format!("/w/{}/checkpoints/{}", enc(ws), enc(id))
}

/// A plan's page.
pub(crate) fn plan_href(ws: &str, id: &str) -> String {
    format!("/w/{}/plans/{}", enc(ws), enc(id))
}

/// A list of problems (files that could not be read), or nothing.
pub(crate) fn problems<I, S>(items: I) -> Markup
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    problem_list(
        items,
        "These could not be read; the rest of the page is complete.",
    )
}

/// One problem: an error that kept a part of the page from being built.
pub(crate) fn problem(message: impl AsRef<str>) -> Markup {
    problem_list([message], "")
}

fn problem_list<I, S>(items: I, note: &str) -> Markup
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let items: Vec<S> = items.into_iter().collect();
    html! {
        @if !items.is_empty() {
            section.problems role="alert" {
                h2 { "Problems" }
                @if !note.is_empty() { p { (note) } }
                ul { @for p in &items { li { code { (p.as_ref()) } } } }
            }
        }
    }
}

/// A progress bar for a plan's boxes, with its numbers in words.
pub(crate) fn progress(p: Progress) -> Markup {
    html! {
        @if p.total() == 0 {
            span.muted { "no task boxes" }
        } @else {
            progress value=(p.done) max=(p.total()) { (p.done) "/" (p.total()) }
            " "
            span.count { (p.done) " of " (p.total()) " done" }
        }
    }
}

/// Tags as chips, each a link to the timeline filtered by it.
pub(crate) fn tags(tags: &[String]) -> Markup {
    html! {
        @for t in tags {
            a.tag href={ "/" (query_string(&[("tags", t)])) } { (t) }
            " "
        }
    }
}

/// Branch and short commit, when known.
pub(crate) fn git_line(c: &Checkpoint) -> Markup {
    html! {
        @if let Some(branch) = &c.branch {
            span.git {
                "⎇ " (branch)
                @if let Some(commit) = &c.commit {
                    " @ " code { (commit.chars().take(10).collect::<String>()) }
                }
            }
        }
    }
}

/// The files a checkpoint touched: the first few, then how many more.
pub(crate) fn files(c: &Checkpoint, show: usize) -> Markup {
    let more = c.files.len().saturating_sub(show) + c.files_omitted;
    html! {
        @if !c.files.is_empty() || c.files_omitted > 0 {
            span.files {
                @for f in c.files.iter().take(show) { code { (f) } " " }
                @if more > 0 { span.muted { "+" (more) " more" } }
            }
        }
    }
}

/// The body of a description after its first line, on one line, cut to `max` characters.
pub(crate) fn excerpt(c: &Checkpoint, max: usize) -> String {
    let rest = c.description.split_once('\n').map_or("", |(_, rest)| rest);
    let body = rest.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = body.chars().take(max).collect();
    if body.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

/// One checkpoint in a list: time, age at `now`, workspace, title, tags, git, files, a short excerpt,
/// what git says of its files since its commit (`fresh`);
/// `extra` goes at the end (a search's explanation).
pub(crate) fn checkpoint_row(
    c: &Checkpoint,
    now: chrono::DateTime<chrono::Utc>,
    with_date: bool,
    fresh: Option<&goldfish_store::Freshness>,
    extra: Markup,
) -> Markup {
    let when = if with_date {
        c.timestamp.format("%Y-%m-%d %H:%M").to_string()
    } else {
        c.timestamp.format("%H:%M").to_string()
    };
    let excerpt = excerpt(c, 240);
    html! {
        li.cp {
            div.meta {
                time datetime=(c.timestamp.to_rfc3339()) { (when) }
                " " span.age { (goldfish_store::age_text(now, c.timestamp)) }
                " "
                a.ws href=(workspace_href(&c.workspace)) { (c.workspace) }
                " "
                (tags(&c.tags))
                (git_line(c))
            }
            a.title href=(checkpoint_href(c)) { (c.title()) }
            @if !excerpt.is_empty() { p.excerpt { (excerpt) } }
            (files(c, 4))
            @if let Some(f) = fresh {
                p.fresh.stale[f.is_stale()] { (f.text()) }
            }
            (extra)
        }
    }
}

/// Already-safe HTML (from [`crate::markdown_to_html`]).
pub(crate) fn raw(html: String) -> Markup {
    PreEscaped(html)
}
