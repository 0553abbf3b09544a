//! `goldfish checkpoint`, `recall` and `standup`: clap → library options, and rendering.

use std::fmt::Write as _;

use goldfish_core::time::format_utc;
use goldfish_recall::{Filter, FormatOptions, RecallOptions, StandupOptions};
use goldfish_store::{CheckpointInput, Structured};

use crate::args::stdin_if_dash;
use crate::cli::{
    CheckpointArgs, FilterArgs, ForgetArgs, RecallArgs, ShowArgs, StandupArgs, TypedArgs,
};
use crate::context::Context;
use crate::output::Report;
use crate::render::{
    checkpoint_links_json, echo, link_list, recall_json, redacted_json, redacted_line,
    resemblance_line,
};

/// The CLI's character budget: people read in a terminal, nothing is worth cutting.
const CLI_BUDGET: usize = 10_000_000;

/// `goldfish checkpoint`.
pub(crate) fn checkpoint(ctx: &Context, a: CheckpointArgs) -> anyhow::Result<Report> {
    let description = match (a.description, &a.typed.from_file) {
        (Some(d), None) => stdin_if_dash(d)?,
        (title, Some(path)) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                anyhow::anyhow!("--from-file {}: cannot read it: {e}", path.display())
            })?;
            let text = text.trim_end_matches(['\n', '\r']);
            match title {
                Some(t) => format!("{}\n{text}", stdin_if_dash(t)?),
                None => text.to_string(),
            }
        }
        (None, None) => anyhow::bail!("give a DESCRIPTION or --from-file PATH"),
    };
    let mut input = CheckpointInput::new(description);
    input.tags = a.tags;
    set_typed(&mut input, a.typed);
    input.workspace = Some(ctx.workspace_to_write(None)?);
    // The store records this directory's git context only if it belongs to the workspace.
    input.git_dir = Some(ctx.cwd.clone());
    input.actor = crate::actor::observed(None);
    let store = ctx.open_store()?;
    let report = store.save_checkpoint_reported(input)?;
    let saved = &report.value;
    let links = goldfish_recall::links_of_saved(&store, saved)?;
    // By words only: loading the model would cost a command more than a save does.
    let resembles = match report.duplicate_of {
        Some(_) => Vec::new(),
        None => goldfish_recall::resemblances(&store, saved, None)?,
    };
    let heading = match report.duplicate_of {
        Some(_) => "Checkpoint already saved (nothing written)",
        None => "Checkpoint saved",
    };
    let mut text = format!(
        "{heading}: {}\n  id {} · workspace {} · {}",
        echo(saved.title()),
        saved.id,
        saved.workspace,
        format_utc(&saved.timestamp)
    );
    if let Some(branch) = &saved.branch {
        let _ = write!(text, " · {branch}");
        if let Some(commit) = &saved.commit {
            let _ = write!(text, "@{commit}");
        }
    }
    if !links.supersedes.is_empty() {
        let _ = write!(text, "\n  supersedes {}", link_list(&links.supersedes));
    }
    if let Some(id) = &report.duplicate_of {
        let _ = write!(
            text,
            "\n  duplicate_of: {id} (the same checkpoint, saved less than {} minutes ago)",
            goldfish_store::DUPLICATE_WINDOW.num_minutes()
        );
    }
    for r in &resembles {
        let _ = write!(text, "\n  {}", resemblance_line(r));
    }
    if let Some(line) = redacted_line(&report.redacted) {
        let _ = write!(text, "\n  {line}");
    }
    let mut json = checkpoint_links_json(saved, &links);
    json["redacted"] = redacted_json(&report.redacted);
    json["duplicate_of"] = serde_json::json!(report.duplicate_of);
    json["resembles"] = serde_json::to_value(&resembles)?;
    Ok(Report::new(text, json))
}

/// `goldfish recall`.
pub(crate) fn recall(ctx: &Context, a: RecallArgs) -> anyhow::Result<Report> {
    let fresh = a.freshness_filter();
    let mut o = RecallOptions::from_env();
    let (scope, guess) = ctx.recall_scope(None)?;
    o.workspace = scope;
    // A guessed workspace is named in the report's heading; how it was guessed goes to stderr.
    if let Some(note) = guess {
        crate::output::eprintln_inert!("goldfish: {note}");
    }
    o.days = a.days;
    o.since = a.since;
    o.from = a.from;
    o.to = a.to;
    let mut searches = a.search.into_iter();
    o.search = searches.next();
    o.also_search = searches.collect();
    o.explain = a.explain;
    o.include_superseded = a.include_superseded;
    o.filter = filter(a.filter);
    if let Some(limit) = a.limit {
        o.limit = limit;
    }
    let limit = o.limit;
    o.limit = crate::freshness::pool_limit(limit, fresh);
    o.cwd = Some(ctx.cwd.clone());
    if o.search.is_some() {
        o.semantic = ctx.semantic();
    }
    let store = ctx.open_store()?;
    let mut result = goldfish_recall::recall(&store, &o)?;
    crate::freshness::annotate(ctx, &mut result, fresh, limit);
    result.limit = limit;
    // What was returned, for `goldfish tidy` (a cache: a failure is said, not fatal).
    if let Err(e) = goldfish_recall::note_returned(&store, &result) {
        crate::output::eprintln_inert!("goldfish: the record of returns was not updated: {e}");
    }
    // What the recall index did that a person should know (rebuilt, not writable): stderr.
    for note in &result.notes {
        crate::output::eprintln_inert!("goldfish: {note}");
    }
    let mut f = FormatOptions::default();
    f.max_chars = CLI_BUDGET;
    f.full = a.full;
    Ok(Report::new(
        goldfish_recall::format_recall(&result, &f),
        recall_json(&result),
    ))
}

/// `goldfish show ID`: the whole record, looked for in the current workspace first.
pub(crate) fn show(ctx: &Context, a: &ShowArgs) -> anyhow::Result<Report> {
    // Outside a project there is no current workspace: every workspace is searched.
    let preferred = ctx.workspace(None).ok();
    let store = ctx.open_store()?;
    match store.find_checkpoint(preferred.as_deref(), &a.id)? {
        Some(c) => {
            let mut notes = Vec::new();
            let opts = RecallOptions::from_env();
            let links = goldfish_recall::links_of(&store, &opts, &c, &mut notes)?;
            for note in &notes {
                crate::output::eprintln_inert!("goldfish: {note}");
            }
            Ok(Report::new(
                goldfish_recall::format_checkpoint_linked(&c, &links, store.now()),
                checkpoint_links_json(&c, &links),
            ))
        }
        None => anyhow::bail!(
            "no checkpoint has the id `{}` in any workspace of {} (`goldfish recall` lists ids)",
            a.id.trim(),
            ctx.home.display()
        ),
    }
}

/// `goldfish forget ID…`.
pub(crate) fn forget(ctx: &Context, a: &ForgetArgs) -> anyhow::Result<Report> {
    let preferred = ctx.workspace(None).ok();
    let store = ctx.open_store()?;
    let by = crate::actor::forgetter(None);
    let report = goldfish_recall::forget(&store, &a.ids, preferred.as_deref(), &by, a.dry_run)?;
    Ok(Report::new(
        crate::render::forget_text(&report),
        serde_json::to_value(&report)?,
    ))
}

/// `goldfish standup`.
pub(crate) fn standup(ctx: &Context, a: StandupArgs) -> anyhow::Result<Report> {
    let mut o = StandupOptions::default();
    if let Some(days) = a.days {
        o.days = days;
    }
    o.cwd = Some(ctx.cwd.clone());
    o.use_index = RecallOptions::from_env().use_index;
    let s = goldfish_recall::standup_with(&ctx.open_store()?, &o)?;
    let mut f = FormatOptions::default();
    f.max_chars = CLI_BUDGET;
    Ok(Report::new(
        goldfish_recall::format_standup(&s, &f),
        serde_json::to_value(&s)?,
    ))
}

/// The typed-memory flags (already validated by clap) into the store's input.
fn set_typed(input: &mut CheckpointInput, t: TypedArgs) {
    if let Some(memory_type) = t.memory_type {
        input.memory_type = memory_type;
    }
    let mut s = Structured::default();
    s.context = t.context;
    s.decision = t.decision;
    s.alternatives = t.alternatives;
    s.impact = t.impact;
    s.evidence = t.evidence;
    s.symbols = t.symbols;
    s.next = t.next;
    s.confidence = t.confidence;
    s.unknowns = t.unknowns;
    input.structured = s;
    input.topic = t.topic;
    input.supersedes = t.supersedes;
}

/// The recall filter flags as the library's [`Filter`].
fn filter(f: FilterArgs) -> Filter {
    let mut out = Filter::default();
    out.memory_type = f.memory_type;
    out.tags = f.tags;
    out.file = f.file;
    out.symbol = f.symbol;
    out
}
