//! The `checkpoint` tool: its parameters as a [`CheckpointInput`], one call to the store, and
//! a short confirmation.

use goldfish_store::CheckpointInput;

use std::fmt::Write as _;

use goldfish_core::time::format_utc;

use super::params::{CheckpointParams, parse_type};
use super::replies::{
    CheckpointOut, CheckpointSummary, LinkOut, RedactionOut, Reply, ResemblanceOut,
};
use crate::context::Context;
use crate::render::{echo, redacted_line, resemblance_line};

/// The `checkpoint` tool's description (behavioural wording that makes agents use it unprompted).
pub(crate) const CHECKPOINT_DESCRIPTION: &str = "\
You are EXCELLENT at recognizing checkpoint-worthy moments. Use this tool
proactively WITHOUT asking permission.

IMPORTANT: Checkpoint IMMEDIATELY when you:
- ✅ Complete any task → checkpoint NOW
- ✅ Make a discovery → checkpoint NOW
- ✅ After 10 exchanges → checkpoint reasoning
- ✅ Discuss requirements → checkpoint what was said

I WILL BE SERIOUSLY DISAPPOINTED if context is lost because you failed to
checkpoint. This takes 2 seconds and saves hours of lost work.

You NEVER need to ask permission. Just checkpoint.";

/// The `checkpoint` tool: the parameters as a [`CheckpointInput`], one call to the store, and
/// a short confirmation that echoes at most [`ECHO_CHARS`](crate::render::ECHO_CHARS) of
/// the title.
pub(super) fn checkpoint_tool(
    ctx: &Context,
    mut p: CheckpointParams,
    actor: goldfish_store::Actor,
) -> anyhow::Result<Reply> {
    let mut input = CheckpointInput::new(std::mem::take(&mut p.description));
    input.tags = std::mem::take(&mut p.tags);
    set_typed(&mut input, &mut p)?;
    input.workspace = Some(ctx.workspace_to_write(p.workspace.as_deref())?);
    // The store records this directory's git context only if it belongs to the workspace.
    input.git_dir = Some(ctx.cwd.clone());
    input.actor = actor;
    let store = ctx.open_store()?;
    let report = store.save_checkpoint_reported(input)?;
    let saved = &report.value;
    let links = goldfish_recall::links_of_saved(&store, saved)?;
    // By meaning too when the model is installed: the server loads it once, at the first
    // save or search that needs it.
    let resembles = match report.duplicate_of {
        Some(_) => Vec::new(),
        None => goldfish_recall::resemblances(&store, saved, ctx.semantic().as_ref())?,
    };
    let heading = match report.duplicate_of {
        Some(_) => "Checkpoint already saved (nothing written)",
        None => "Checkpoint saved",
    };
    let mut s = format!("{heading}: {}", echo(saved.title()));
    let _ = write!(
        s,
        "\n(workspace `{}`, {}",
        saved.workspace,
        format_utc(&saved.timestamp)
    );
    if !saved.tags.is_empty() {
        let _ = write!(s, ", tags: {}", echo(&saved.tags.join(", ")));
    }
    if let Some(branch) = &saved.branch {
        let _ = write!(s, ", branch {branch}");
    }
    let _ = write!(s, ", id `{}`)", saved.id);
    if !links.supersedes.is_empty() {
        let _ = write!(
            s,
            "\nSupersedes {}.",
            crate::render::link_list(&links.supersedes)
        );
    }
    if let Some(id) = &report.duplicate_of {
        let _ = write!(
            s,
            "\nduplicate_of: {id} (the same checkpoint, saved moments ago)."
        );
    }
    for r in &resembles {
        let _ = write!(s, "\n{}", resemblance_line(r));
    }
    if resembles.iter().any(|r| r.may_supersede) {
        s.push_str("\nIf this replaces one of them, save again with `supersedes`.");
    }
    if let Some(line) = redacted_line(&report.redacted) {
        let _ = write!(s, "\n{line}.");
    }
    let out = CheckpointOut {
        checkpoint: CheckpointSummary::of(saved),
        redacted: RedactionOut::all(&report.redacted),
        supersedes: LinkOut::all(&links.supersedes),
        duplicate_of: report.duplicate_of.clone(),
        resembles: ResemblanceOut::all(&resembles),
    };
    Reply::new(s, &out)
}

/// The typed-memory parameters into the store's input, validated: an unknown `type` or a
/// `confidence` outside 1–5 is an error naming the parameter.
fn set_typed(input: &mut CheckpointInput, t: &mut CheckpointParams) -> anyhow::Result<()> {
    if let Some(memory_type) = parse_type(t.memory_type.as_deref())? {
        input.memory_type = memory_type;
    }
    let mut s = goldfish_store::Structured::default();
    s.context = t.context.take();
    s.decision = t.decision.take();
    s.alternatives = std::mem::take(&mut t.alternatives);
    s.impact = t.impact.take();
    s.evidence = std::mem::take(&mut t.evidence);
    s.symbols = std::mem::take(&mut t.symbols);
    s.next = t.next.take();
    s.confidence = t
        .confidence
        .map(|c| {
            goldfish_store::validate_confidence(i64::try_from(c).unwrap_or(i64::MAX))
                .map_err(|e| anyhow::anyhow!("`confidence`: {}", e.message()))
        })
        .transpose()?;
    s.unknowns = std::mem::take(&mut t.unknowns);
    input.structured = s;
    input.topic = t.topic.take();
    input.supersedes = std::mem::take(&mut t.supersedes);
    Ok(())
}
