//! Agent-sized markdown: a recall result or a standup within a character budget.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use goldfish_store::frame::{self, Here};
use goldfish_store::{Checkpoint, Freshness, Link, MemoryType, age_text};

use crate::explain::format_explanation;
use crate::result::{Links, RecallResult, StoreState};
use crate::standup::Standup;
use crate::window::TimeWindow;

/// How to render; see [`format_recall`] and [`format_standup`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FormatOptions {
    /// The output never exceeds this many characters (Unicode scalar values). Entries that
    /// do not fit are left out, and the output says how many. Default 20,000.
    pub max_chars: usize,
    /// Show whole descriptions, the commit and the file list of each checkpoint instead of
    /// the summary view (titles, tags, branch, file count). Default false.
    pub full: bool,
    /// Frame stored text as data for a model ([`goldfish_store::frame`]): the sentence
    /// [`frame::MEMORY_NOTICE`] after the heading, the active plan and each checkpoint
    /// between `<memory …>` and `</memory>`, with where it came from when it was not saved
    /// here ([`frame::origin`] against this [`Here`]). `None` (the default) renders for
    /// people, unframed.
    pub framed: Option<Here>,
}

impl Default for FormatOptions {
    fn default() -> Self {
        FormatOptions {
            max_chars: 20_000,
            full: false,
            framed: None,
        }
    }
}

/// Room kept for the closing "left out" line.
const FOOTER_RESERVE: usize = 160;

/// A `String` that refuses to grow past a character budget.
struct Budget {
    out: String,
    chars: usize,
    max: usize,
}

impl Budget {
    fn new(max: usize) -> Self {
        Budget {
            out: String::new(),
            chars: 0,
            max,
        }
    }

    /// Appends `s` if it fits within `max - reserve`; returns whether it did.
    fn push(&mut self, s: &str, reserve: usize) -> bool {
        let n = s.chars().count();
        if self.chars + n + reserve > self.max {
            return false;
        }
        self.out.push_str(s);
        self.chars += n;
        true
    }

    /// Appends as much of `s` as fits (cut at a char boundary, with `…`).
    fn push_cut(&mut self, s: &str, reserve: usize) {
        if self.push(s, reserve) {
            return;
        }
        let room = self.max.saturating_sub(self.chars + reserve + 2);
        if room > 0 {
            let cut: String = s.chars().take(room).collect();
            self.out.push_str(&cut);
            self.out.push_str("…\n");
            self.chars += room + 2;
        }
    }

    /// Appends `s` only if the whole of it fits in the budget (no reserve).
    fn finish(mut self, s: &str) -> String {
        self.push(s, 0);
        self.out
    }
}

fn window_text(w: &TimeWindow) -> String {
    format!(
        "{} → {} UTC",
        w.from.format("%Y-%m-%d %H:%M"),
        w.to.format("%Y-%m-%d %H:%M")
    )
}

/// The most characters of a linked checkpoint's title an entry shows.
const LINK_TITLE_CHARS: usize = 60;

/// `ID "title"` for each link, the title cut to [`LINK_TITLE_CHARS`].
fn link_text(links: &[Link]) -> String {
    links
        .iter()
        .map(|l| {
            if l.title.is_empty() {
                l.id.clone()
            } else {
                let mut title: String = l.title.chars().take(LINK_TITLE_CHARS).collect();
                if l.title.chars().count() > LINK_TITLE_CHARS {
                    title.push('…');
                }
                format!("{} \"{title}\"", l.id)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

// Long: one entry's lines in the order they are printed.
fn entry(
    c: &Checkpoint,
    links: Option<&Links>,
    now: DateTime<Utc>,
    full: bool,
    show_workspace: bool,
    fresh: Option<&Freshness>,
) -> String {
    let mut s = String::new();
    let ws = if show_workspace {
        format!(" [{}]", c.workspace)
    } else {
        String::new()
    };
    let _ = write!(
        s,
        "- **{}** ({}){ws} {}{}",
        c.timestamp.format("%Y-%m-%d %H:%M"),
        age_text(now, c.timestamp),
        type_badge(c),
        c.title()
    );
    let mut meta: Vec<String> = Vec::new();
    if !c.tags.is_empty() {
        meta.push(format!("tags: {}", c.tags.join(", ")));
    }
    if let Some(b) = &c.branch {
        meta.push(format!("branch: {b}"));
    }
    if full {
        if let Some(commit) = &c.commit {
            meta.push(format!("commit: {commit}"));
        }
    } else if !c.files.is_empty() {
        let n = c.files.len() + c.files_omitted;
        meta.push(format!("{n} file{}", if n == 1 { "" } else { "s" }));
    }
    // What git says of its files since its commit, when it says anything.
    if let Some(f) = fresh {
        meta.push(f.text());
    }
    // Every hit carries its id: `goldfish show ID` (the `recall` tool's `id`) opens it.
    meta.push(format!("id: {}", c.id));
    if !meta.is_empty() {
        let _ = write!(s, " — {}", meta.join(" · "));
    }
    s.push('\n');
    // Supersession, both ways, on lines of their own in either view.
    if let Some(links) = links {
        if !links.supersedes.is_empty() {
            let _ = writeln!(s, "  supersedes: {}", link_text(&links.supersedes));
        }
        if !links.superseded_by.is_empty() {
            let _ = writeln!(s, "  superseded by: {}", link_text(&links.superseded_by));
        }
    }
    if full {
        if let Some(topic) = &c.topic {
            let _ = writeln!(s, "  topic: {topic}");
        }
        for line in c.description.lines().skip(1) {
            if line.trim().is_empty() {
                s.push_str("  >\n");
            } else {
                let _ = writeln!(s, "  > {line}");
            }
        }
        for (label, text) in c.structured.labelled() {
            let _ = writeln!(s, "  {}: {}", label.to_lowercase(), one_line(&text));
        }
        if !c.files.is_empty() {
            let more = if c.files_omitted > 0 {
                format!(" (+{} more)", c.files_omitted)
            } else {
                String::new()
            };
            let _ = writeln!(s, "  files: {}{more}", c.files.join(", "));
        }
        if let Some(actor) = c.actor.summary() {
            let _ = writeln!(s, "  saved by: {actor}");
        }
    }
    s
}

/// One checkpoint in full, as `goldfish show ID` and the `recall` tool's `id` return it:
/// the full view's entry of [`format_recall`] (its workspace, time, title, tags, branch,
/// commit and id, then the description's body, the typed fields, every file and who saved it),
/// its age counted at `now`.
pub fn format_checkpoint(c: &Checkpoint, now: DateTime<Utc>) -> String {
    entry(c, None, now, true, true, None)
}

/// [`format_checkpoint`] with the checkpoint's supersession links ([`links_of`](crate::links_of)):
/// what it supersedes and what superseded it, each with id and title.
pub fn format_checkpoint_linked(c: &Checkpoint, links: &Links, now: DateTime<Utc>) -> String {
    entry(c, Some(links), now, true, true, None)
}

/// [`format_checkpoint_linked`] framed as data for a model: the sentence
/// [`frame::MEMORY_NOTICE`], then the entry between `<memory id="…" age="…" from="…">` and
/// `</memory>` ([`frame::checkpoint_attrs`], `from` judged against `here`).
pub fn format_checkpoint_framed(
    c: &Checkpoint,
    links: &Links,
    now: DateTime<Utc>,
    here: &Here,
) -> String {
    format!(
        "{}\n{}",
        frame::MEMORY_NOTICE,
        frame::framed_block(
            &frame::checkpoint_attrs(c, now, here),
            &entry(c, Some(links), now, true, true, None)
        )
    )
}

/// `[decision] ` before the title of a typed memory; nothing for a plain checkpoint.
fn type_badge(c: &Checkpoint) -> String {
    if c.memory_type == MemoryType::Checkpoint {
        String::new()
    } else {
        format!("[{}] ", c.memory_type)
    }
}

/// Line breaks as ` / `, so a field stays on its line.
fn one_line(text: &str) -> String {
    text.lines().collect::<Vec<_>>().join(" / ")
}

/// Renders a recall result as compact markdown of at most `opts.max_chars` characters.
///
/// The summary view (the default) shows one line per checkpoint: time, title, tags, branch
/// and how many files; the full view ([`FormatOptions::full`]) adds the description body, the commit,
/// the file list and who saved it (`saved by: harness=… user=…`). Checkpoints that do not fit are left out from the end (the least
/// relevant, or the oldest), and the last line says how many were left out and why. With a
/// limit of 0 (the active plan only) no checkpoint is listed or counted as left out. When
/// the store holds nothing yet, the output says which store was read and how to save a first
/// checkpoint.
pub fn format_recall(result: &RecallResult, opts: &FormatOptions) -> String {
    format_recall_counted(result, opts).0
}

/// [`format_recall`], and how many of [`RecallResult::checkpoints`] the text shows (the first
/// ones; the rest did not fit the budget). Other renderings of the same reply (the MCP
/// server's structured content) show the same checkpoints.
// Long: the reply's sections in the order they are printed, each within the budget left.
pub fn format_recall_counted(result: &RecallResult, opts: &FormatOptions) -> (String, usize) {
    let mut b = Budget::new(opts.max_chars);
    let all = result.scope.is_all();
    let mut head = format!(
        "# Recall: {} — {}\n",
        result.scope,
        window_text(&result.window)
    );
    if let Some(q) = &result.search {
        let also: String = result
            .also_searched
            .iter()
            .map(|a| format!(" + \"{a}\""))
            .collect();
        let _ = writeln!(
            head,
            "Search: \"{q}\"{also} — {} match{}",
            result.total,
            if result.total == 1 { "" } else { "es" }
        );
    }
    if all && !result.workspaces.is_empty() {
        let per: Vec<String> = result
            .workspaces
            .iter()
            .map(|w| format!("{} {}", w.workspace, w.matched))
            .collect();
        let _ = writeln!(head, "Workspaces: {}", per.join(", "));
    }
    let framed = opts.framed.as_ref();
    if framed.is_some() {
        let _ = writeln!(head, "{}", frame::MEMORY_NOTICE);
    }
    b.push_cut(&head, FOOTER_RESERVE);

    if let (Some(plan), Some(_)) = (&result.active_plan, framed) {
        // Framed, the plan is pushed whole (a frame is never cut open): with its excerpt,
        // else its title alone.
        let progress = plan.progress();
        let mut title = plan.title.clone();
        if progress.total() > 0 {
            let _ = write!(title, " — {}/{} done", progress.done, progress.total());
        }
        title.push('\n');
        let attrs = [("kind", "plan".to_string()), ("id", plan.id.clone())];
        let with_excerpt = match plan_excerpt(&plan.content, opts) {
            Some(text) => format!("{title}\n{text}"),
            None => title.clone(),
        };
        b.push("\n## Active plan\n", FOOTER_RESERVE);
        if !b.push(&frame::framed_block(&attrs, &with_excerpt), FOOTER_RESERVE) {
            b.push(&frame::framed_block(&attrs, &title), FOOTER_RESERVE);
        }
    } else if let Some(plan) = &result.active_plan {
        let progress = plan.progress();
        let mut s = format!("\n## Active plan: {} ({})", plan.title, plan.id);
        if progress.total() > 0 {
            let _ = write!(s, " — {}/{} done", progress.done, progress.total());
        }
        s.push_str("\n\n");
        b.push_cut(&s, FOOTER_RESERVE);
        if let Some(text) = plan_excerpt(&plan.content, opts) {
            b.push_cut(&text, FOOTER_RESERVE);
        }
    }

    let plan_only = result.limit == 0;
    if result.store != StoreState::Populated {
        let why = if result.store == StoreState::Missing {
            "does not exist yet"
        } else {
            "exists but holds no checkpoints yet"
        };
        b.push_cut(
            &format!(
                "\nThe goldfish store at {} {why}. Save a first checkpoint with \
                 `goldfish checkpoint \"what you did and why\"` (or the `checkpoint` tool).\n",
                result.store_root.display()
            ),
            FOOTER_RESERVE,
        );
    } else if plan_only {
        if result.active_plan.is_none() {
            b.push("\nNo active plan.\n", FOOTER_RESERVE);
        }
    } else if result.hits.is_empty() {
        let none = match (&result.search, result.total) {
            (Some(_), 0) => "\nNo checkpoint matches the search in this window.\n",
            (None, 0) => "\nNo checkpoints in this window.\n",
            _ => "",
        };
        b.push(none, FOOTER_RESERVE);
    } else {
        b.push("\n## Checkpoints\n", FOOTER_RESERVE);
    }
    let mut shown = 0;
    for hit in &result.hits {
        let mut text = entry(
            &hit.checkpoint,
            Some(&hit.links),
            result.now,
            opts.full,
            all,
            hit.freshness.as_ref(),
        );
        if let Some(here) = framed {
            text = frame::framed_block(
                &frame::checkpoint_attrs(&hit.checkpoint, result.now, here),
                &text,
            );
        }
        // With an explanation, the reasons follow their checkpoint, indented under it.
        if let Some(e) = &hit.explanation {
            for line in format_explanation(e).lines() {
                let _ = writeln!(text, "    {line}");
            }
        }
        if !b.push(&text, FOOTER_RESERVE) {
            break;
        }
        shown += 1;
    }
    let by_budget = result.hits.len() - shown;
    let by_limit = result.total - result.hits.len();
    let mut foot = String::new();
    if by_budget + by_limit > 0 && !plan_only {
        let mut why = Vec::new();
        if by_limit > 0 {
            why.push(format!("{by_limit} over the limit"));
        }
        if by_budget > 0 {
            why.push(format!(
                "{by_budget} over the {}-character budget",
                opts.max_chars
            ));
        }
        let _ = writeln!(
            foot,
            "\n_{} more checkpoint(s) not shown: {}._",
            by_budget + by_limit,
            why.join(", ")
        );
    }
    if !result.skipped.is_empty() {
        let _ = writeln!(
            foot,
            "_{} unreadable file(s) or entries skipped; first: {}_",
            result.skipped.len(),
            result.skipped[0]
        );
    }
    if foot.chars().count() > FOOTER_RESERVE {
        foot = foot.chars().take(FOOTER_RESERVE - 2).collect::<String>() + "…\n";
    }
    (b.finish(&foot), shown)
}

/// The part of an active plan's content a recall shows: the whole body (trimmed at the end,
/// with a final newline) when it fits in half of `opts.max_chars` (the checkpoints need room
/// too), else its start cut there with `…`; `None` for an empty body.
pub fn plan_excerpt(content: &str, opts: &FormatOptions) -> Option<String> {
    let body = content.trim_end();
    if body.is_empty() {
        return None;
    }
    let half = opts.max_chars / 2;
    Some(if body.chars().count() > half {
        let cut: String = body.chars().take(half).collect();
        format!("{cut}…\n")
    } else {
        format!("{body}\n")
    })
}

/// Renders a standup as compact markdown of at most `opts.max_chars` characters.
// Long: the standup's sections in the order they are printed, each within the budget left.
pub fn format_standup(standup: &Standup, opts: &FormatOptions) -> String {
    let mut b = Budget::new(opts.max_chars);
    b.push_cut(
        &format!("# Standup — {}\n", window_text(&standup.window)),
        FOOTER_RESERVE,
    );
    if standup.workspaces.is_empty() {
        b.push(
            "\nNo activity in any workspace in this window.\n",
            FOOTER_RESERVE,
        );
    }
    let mut left_out = 0;
    for ws in &standup.workspaces {
        let mut s = format!(
            "\n## {} — {} checkpoint{}",
            ws.workspace,
            ws.checkpoints,
            if ws.checkpoints == 1 { "" } else { "s" }
        );
        if ws.superseded > 0 {
            let _ = write!(s, " (and {} superseded)", ws.superseded);
        }
        s.push('\n');
        for c in &ws.recent {
            let _ = writeln!(
                s,
                "- {} {}{}",
                c.timestamp.format("%Y-%m-%d %H:%M"),
                type_badge(c),
                c.title()
            );
        }
        if ws.checkpoints > ws.recent.len() {
            let _ = writeln!(s, "- … and {} more", ws.checkpoints - ws.recent.len());
        }
        for (heading, list) in [("Decisions", &ws.decisions), ("Incidents", &ws.incidents)] {
            if list.is_empty() {
                continue;
            }
            let _ = writeln!(s, "{heading}:");
            for c in list.iter() {
                let detail = c
                    .structured
                    .decision
                    .as_deref()
                    .or(c.structured.impact.as_deref())
                    .map(|d| format!(" — {}", one_line(d)))
                    .unwrap_or_default();
                let _ = writeln!(
                    s,
                    "- {} {}{detail}",
                    c.timestamp.format("%Y-%m-%d %H:%M"),
                    c.title()
                );
            }
        }
        if let Some(p) = &ws.plan {
            let _ = writeln!(
                s,
                "Plan: {} ({}) — {} done, {} open",
                p.title, p.id, p.done, p.open
            );
        }
        if !b.push(&s, FOOTER_RESERVE) {
            left_out += 1;
        }
    }
    let mut foot = String::new();
    if left_out > 0 {
        let _ = writeln!(
            foot,
            "\n_{left_out} workspace(s) not shown: over the {}-character budget._",
            opts.max_chars
        );
    }
    if standup.quiet > 0 {
        let _ = writeln!(
            foot,
            "\n_{} workspace(s) without activity omitted._",
            standup.quiet
        );
    }
    if !standup.skipped.is_empty() {
        let _ = writeln!(
            foot,
            "_{} unreadable file(s) skipped; first: {}_",
            standup.skipped.len(),
            standup.skipped[0]
        );
    }
    if foot.chars().count() > FOOTER_RESERVE {
        foot = foot.chars().take(FOOTER_RESERVE - 2).collect::<String>() + "…\n";
    }
    b.finish(&foot)
}
