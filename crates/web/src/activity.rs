//! Activity: checkpoints per day per workspace over the last weeks, as an SVG chart drawn on
//! the server.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use chrono::{Datelike as _, Duration, NaiveDate, Weekday};
use goldfish_recall::{RecallOptions, Scope, checkpoints_per_day};
use maud::{Markup, PreEscaped, html};
use serde::Deserialize;

use crate::html::{Nav, layout, problem, problems, query_string, workspace_href};
use crate::{App, Page};

/// The activity page's parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct ActivityQuery {
    /// How many weeks back, ending today (default 8, at most 520).
    pub weeks: Option<String>,
}

/// The default number of weeks.
const DEFAULT_WEEKS: u32 = 8;
/// The most weeks a chart shows (ten years).
const MAX_WEEKS: u32 = 520;

/// Colours for workspaces, in name order (then again).
const PALETTE: [&str; 10] = [
    "#2563eb", "#ea580c", "#16a34a", "#db2777", "#7c3aed", "#0891b2", "#ca8a04", "#dc2626",
    "#4b5563", "#65a30d",
];

/// The activity page (`/activity`).
pub fn activity(app: &App, q: &ActivityQuery) -> Page {
    let mut notes = Vec::new();
    let weeks = match q.weeks.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => DEFAULT_WEEKS,
        Some(w) => match w.parse::<u32>() {
            Ok(n) if (1..=MAX_WEEKS).contains(&n) => n,
            _ => {
                notes.push(format!(
                    "weeks: {w:?} is not a whole number from 1 to {MAX_WEEKS}; showing {DEFAULT_WEEKS}"
                ));
                DEFAULT_WEEKS
            }
        },
    };
    let store = match app.store() {
        Ok(s) => s,
        Err(e) => return layout(200, "Activity", Nav::Activity, problem(e.to_string())),
    };
    let now = app.now(&store);
    let days = weeks * 7;
    let mut o = RecallOptions::default();
    o.workspace = Scope::All;
    o.days = Some(days);
    o.now = Some(now);
    o.cwd = app.cwd.clone();
    // Counted one day file at a time: the chart of a large store costs no more memory than
    // that of a small one.
    let body = match checkpoints_per_day(&store, &o) {
        Err(e) => problem(e.to_string()),
        Ok(r) => {
            let last = now.date_naive();
            let first = last - Duration::days(i64::from(days) - 1);
            // (day, workspace) → count
            let mut counts: BTreeMap<NaiveDate, BTreeMap<&str, usize>> = BTreeMap::new();
            let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
            for (d, per_ws) in r.days.range(first..=last) {
                for (ws, n) in per_ws {
                    *counts.entry(*d).or_default().entry(ws).or_default() += n;
                    *totals.entry(ws).or_default() += n;
                }
            }
            let colour: BTreeMap<&str, &str> = totals
                .keys()
                .enumerate()
                .map(|(i, w)| (*w, PALETTE[i % PALETTE.len()]))
                .collect();
            let skipped: Vec<String> = r.skipped.iter().map(ToString::to_string).collect();
            let total: usize = totals.values().sum();
            html! {
                (problems(&skipped))
                p.summary {
                    (total) " checkpoint" @if total != 1 { "s" } " in " (totals.len()) " workspace"
                    @if totals.len() != 1 { "s" } ", " (first) " to " (last) " (UTC)"
                }
                figure.chart {
                    (chart(first, days, &counts, &colour))
                    figcaption {
                        ul.legend {
                            @for (w, n) in &totals {
                                li {
                                    svg width="12" height="12" aria-hidden="true" {
                                        rect width="12" height="12" fill=(colour[w]) {}
                                    }
                                    " " a href=(workspace_href(w)) { (w) } " " span.muted { (n) }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    layout(
        200,
        "Activity",
        Nav::Activity,
        html! {
            h1 { "Activity" }
            form.filters method="get" action="/activity" {
                label { "Weeks " input type="number" name="weeks" min="1" max=(MAX_WEEKS) value=(weeks) size="4"; }
                button type="submit" { "Show" }
                @for w in [4u32, 8, 26, 52] {
                    " " a href={ "/activity" (query_string(&[("weeks", &w.to_string())])) } { (w) " weeks" }
                }
            }
            @for n in &notes { p.note { (n) } }
            (body)
        },
    )
}

/// Stacked bars, one per day, one colour per workspace; each bar has a tooltip title.
fn chart(
    first: NaiveDate,
    days: u32,
    counts: &BTreeMap<NaiveDate, BTreeMap<&str, usize>>,
    colour: &BTreeMap<&str, &str>,
) -> Markup {
    const W: f64 = 960.0;
    const H: f64 = 220.0;
    const LEFT: f64 = 36.0;
    const BOTTOM: f64 = 24.0;
    let plot_w = W - LEFT - 4.0;
    let plot_h = H - BOTTOM - 8.0;
    let max = counts
        .values()
        .map(|m| m.values().sum::<usize>())
        .max()
        .unwrap_or(0)
        .max(1);
    let step = plot_w / f64::from(days);
    let bar = (step * 0.8).max(1.0);
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg class="activity" viewBox="0 0 {W} {H}" width="100%" role="img" aria-label="checkpoints per day per workspace" xmlns="http://www.w3.org/2000/svg">"##
    );
    // Axis and the top value.
    let base = 8.0 + plot_h;
    let _ = write!(
        svg,
        r##"<line x1="{LEFT}" y1="{base}" x2="{}" y2="{base}" stroke="#9ca3af"/><line x1="{LEFT}" y1="8" x2="{}" y2="8" stroke="#e5e7eb" stroke-dasharray="3 3"/><text x="{}" y="12" font-size="11" text-anchor="end" fill="#6b7280">{max}</text><text x="{}" y="{base}" font-size="11" text-anchor="end" fill="#6b7280">0</text>"##,
        W - 4.0,
        W - 4.0,
        LEFT - 4.0,
        LEFT - 4.0
    );
    // A date under every Monday, or every few Mondays so that at most ten labels show.
    let label_every = days.div_ceil(7).div_ceil(10).max(1);
    let mut mondays = 0;
    for i in 0..days {
        let day = first + Duration::days(i64::from(i));
        let x = LEFT + f64::from(i) * step + (step - bar) / 2.0;
        let monday = day.weekday() == Weekday::Mon;
        if monday {
            mondays += 1;
        }
        if monday && (mondays - 1) % label_every == 0 {
            let _ = write!(
                svg,
                r##"<text x="{x:.1}" y="{}" font-size="11" fill="#6b7280">{}</text>"##,
                H - 6.0,
                day.format("%b %-d")
            );
        }
        let Some(per_ws) = counts.get(&day) else {
            continue;
        };
        let mut y = base;
        for (ws, n) in per_ws {
            #[allow(clippy::cast_precision_loss)] // counts are far below 2^52
            let h = plot_h * (*n as f64) / (max as f64);
            y -= h;
            let fill = colour.get(ws).copied().unwrap_or("#6b7280");
            let _ = write!(
                svg,
                r##"<rect x="{x:.1}" y="{y:.1}" width="{bar:.1}" height="{h:.1}" fill="{fill}"><title>{day} {}: {n}</title></rect>"##,
                html! { (ws) }.into_string()
            );
        }
    }
    svg.push_str("</svg>");
    PreEscaped(svg)
}
