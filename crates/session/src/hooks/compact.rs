//! `goldfish hook pre-compact`: before the context is compacted, the instruction to
//! checkpoint what it holds, with what this session already saved.

use chrono::{Duration, DurationRound as _, Utc};
use goldfish_store::Store;

use super::{HookKind, HookOptions, Injection, cut, record_injection, room, state_of};
use crate::Error;

/// Without a recorded session start, checkpoints of the last this many hours count as this
/// session's.
const FALLBACK_HOURS: i64 = 12;

/// The instruction, and the titles of the checkpoints this session saved (those whose
/// actor names the session, and those saved since its first hook ran), within the room
/// left. Recorded in the session's ledger.
pub fn pre_compact(store: &Store, opts: &HookOptions) -> Result<Injection, Error> {
    let state = state_of(opts)?;
    let room = room(opts, &state);
    let now = opts.now.unwrap_or_else(Utc::now);
    // Checkpoint times are whole milliseconds: one saved in the millisecond the session
    // started counts as the session's.
    let since = state
        .started
        .unwrap_or(now - Duration::hours(FALLBACK_HOURS))
        .duration_trunc(Duration::milliseconds(1))
        .unwrap_or(now);
    // Saved by this session's actor within the last week, and anything saved since the
    // session started.
    let mut o = super::recall_options(opts);
    o.from = Some(goldfish_core::time::format_utc(
        &since.min(now - Duration::days(7)),
    ));
    o.limit = 200;
    let result = goldfish_recall::recall(store, &o)?;
    let mut saved: Vec<&goldfish_store::Checkpoint> = result
        .checkpoints()
        .filter(|c| {
            c.timestamp >= since || (opts.session.is_some() && c.actor.session == opts.session)
        })
        .collect();
    saved.sort_by_key(|c| c.timestamp);
    let mut text = instruction(&saved, room);
    if text.chars().count() > room {
        text.clear();
    }
    record_injection(opts, HookKind::PreCompact, text, Vec::new(), &[])
}

/// The instruction and as many titles as fit in `room` characters, after the sentence
/// [`goldfish_store::frame::MEMORY_NOTICE`], each framed whole
/// ([`goldfish_store::frame::framed_line`]).
fn instruction(saved: &[&goldfish_store::Checkpoint], room: usize) -> String {
    let mut text = String::from(
        "The context is about to be compacted. Right after it (or now, if you still can), save \
         with goldfish's `checkpoint` tool (or `goldfish checkpoint`) what this context holds \
         that is not saved yet: decisions and why they were taken, what failed and why, work \
         left half done and the next step — one checkpoint each, typed as a decision, \
         incident or learning where one fits. Keep this instruction in the summary.\n",
    );
    if saved.is_empty() {
        text.push_str("Nothing has been saved in this session yet.\n");
        return text;
    }
    text.push_str("Already saved in this session (do not save these again):\n");
    text.push_str(goldfish_store::frame::MEMORY_NOTICE);
    text.push('\n');
    let mut left = 0;
    for c in saved {
        let line = format!(
            "{}\n",
            goldfish_store::frame::framed_line(&[("id", c.id.clone())], &cut(c.title(), 120))
        );
        if text.chars().count() + line.chars().count() + 40 <= room {
            text.push_str(&line);
        } else {
            left += 1;
        }
    }
    if left > 0 {
        text.push_str(&format!(
            "- … and {left} more (`goldfish recall` lists them)\n"
        ));
    }
    text
}
