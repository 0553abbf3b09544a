//! Tombstones: the record that a memory was forgotten on purpose, one line per memory in the
//! workspace's `forgotten.md`, never holding the memory's text.
//!
//! ```text
//! # Forgotten in goldfish
//!
//! Memories forgotten on purpose. goldfish removes them from this workspace on every machine
//! that syncs, and never brings them back. The text itself is not kept.
//!
//! - checkpoint 20251013T093012345Z-3fa9c1 of 2025-10-13, forgotten 2026-11-28T14:00:00.000Z by Dev Eloper
//! - plan auth-redesign, forgotten 2026-11-28T14:05:00.000Z by claude-code
//! ```
//!
//! Lines that do not start with `- ` are prose and are kept as they are; a `- ` line that is
//! not a tombstone is an error naming its line (never skipped: a tombstone read wrongly would
//! bring a memory back). The file only grows, one line per forget, so two machines' versions
//! merge as the union of their lines (git's `union` merge, set up by sync).

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};

/// The name of a workspace's tombstone file, beside its `checkpoints/` and `plans/`.
pub const TOMBSTONE_FILE: &str = "forgotten.md";

/// What a tombstone names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Forgotten {
    /// A checkpoint, with the UTC day whose file held it.
    Checkpoint {
        /// The checkpoint's id.
        id: String,
        /// The day of its day file.
        day: NaiveDate,
    },
    /// A plan of the workspace.
    Plan {
        /// The plan's id.
        id: String,
    },
}

impl Forgotten {
    /// What kind of memory it names: `checkpoint` or `plan` (as the tombstone line says).
    pub fn kind(&self) -> &'static str {
        match self {
            Forgotten::Checkpoint { .. } => "checkpoint",
            Forgotten::Plan { .. } => "plan",
        }
    }

    /// The forgotten memory's id.
    pub fn id(&self) -> &str {
        match self {
            Forgotten::Checkpoint { id, .. } | Forgotten::Plan { id } => id,
        }
    }
}

/// One forgotten memory: what, when and by whom; never its text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Tombstone {
    /// What was forgotten.
    #[serde(flatten)]
    pub what: Forgotten,
    /// When it was forgotten, UTC, to the millisecond.
    pub at: DateTime<Utc>,
    /// Who forgot it, as goldfish observed them (`unknown` when nothing was).
    pub by: String,
}

impl Tombstone {
    /// A tombstone; `by` is cleaned to one line (blank becomes `unknown`).
    pub fn new(what: Forgotten, at: DateTime<Utc>, by: &str) -> Self {
        let by: String = by
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect::<String>()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        Tombstone {
            what,
            at: goldfish_core::time::truncate_millis(at),
            by: if by.is_empty() { "unknown".into() } else { by },
        }
    }
}

/// The first lines of a new tombstone file.
pub fn format_tombstone_header(workspace: &str) -> String {
    format!(
        "# Forgotten in {workspace}\n\nMemories forgotten on purpose. goldfish removes them from this workspace on every machine\nthat syncs, and never brings them back. The text itself is not kept.\n\n"
    )
}

/// One tombstone's line, ending with a newline.
pub fn format_tombstone(t: &Tombstone) -> String {
    let at = t.at.to_rfc3339_opts(SecondsFormat::Millis, true);
    match &t.what {
        Forgotten::Checkpoint { id, day } => format!(
            "- checkpoint {id} of {}, forgotten {at} by {}\n",
            day.format("%Y-%m-%d"),
            t.by
        ),
        Forgotten::Plan { id } => format!("- plan {id}, forgotten {at} by {}\n", t.by),
    }
}

/// Whether `id` can be named by a tombstone line: not empty, no whitespace, no comma.
pub fn is_tombstone_id(id: &str) -> bool {
    !id.is_empty() && !id.contains(|c: char| c.is_whitespace() || c == ',')
}

/// A tombstone line that cannot be read: its 1-based line number and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TombstoneProblem {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong, in words a person can act on.
    pub message: String,
}

/// The tombstones of a tombstone file, in file order (a memory named twice is listed twice:
/// two machines may forget it). Prose lines are passed over; the first `- ` line that is not
/// a tombstone is an error naming it.
pub fn parse_tombstones(text: &str) -> Result<Vec<Tombstone>, TombstoneProblem> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.strip_prefix("- ") else {
            continue;
        };
        out.push(parse_line(rest).map_err(|message| TombstoneProblem {
            line: i + 1,
            message,
        })?);
    }
    Ok(out)
}

fn parse_line(rest: &str) -> Result<Tombstone, String> {
    const SHAPE: &str = "expected `- checkpoint ID of YYYY-MM-DD, forgotten TIME by WHO` or `- plan ID, forgotten TIME by WHO`";
    let (what, tail) = rest
        .split_once(", forgotten ")
        .ok_or_else(|| format!("not a tombstone ({SHAPE})"))?;
    let (at, by) = tail
        .split_once(" by ")
        .ok_or_else(|| format!("no ` by WHO` ({SHAPE})"))?;
    let at = DateTime::parse_from_rfc3339(at)
        .map_err(|e| format!("`{at}` is not an RFC 3339 time ({e})"))?
        .with_timezone(&Utc);
    let what = if let Some(rest) = what.strip_prefix("checkpoint ") {
        let (id, day) = rest
            .split_once(" of ")
            .ok_or_else(|| format!("a checkpoint tombstone names its day ({SHAPE})"))?;
        let day = NaiveDate::parse_from_str(day, "%Y-%m-%d")
            .map_err(|e| format!("`{day}` is not a day YYYY-MM-DD ({e})"))?;
        Forgotten::Checkpoint {
            id: checked_id(id)?,
            day,
        }
    } else if let Some(id) = what.strip_prefix("plan ") {
        Forgotten::Plan {
            id: checked_id(id)?,
        }
    } else {
        return Err(format!("unknown kind of memory ({SHAPE})"));
    };
    let by = by.trim();
    Ok(Tombstone {
        what,
        at,
        by: if by.is_empty() {
            "unknown".into()
        } else {
            by.into()
        },
    })
}

fn checked_id(id: &str) -> Result<String, String> {
    if is_tombstone_id(id) {
        Ok(id.to_string())
    } else {
        Err(format!("`{id}` is not an id"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .expect("time")
            .with_timezone(&Utc)
    }

    #[test]
    fn reads_back_what_it_writes_under_its_header() {
        let day = NaiveDate::from_ymd_opt(2025, 10, 13).expect("day");
        let a = Tombstone::new(
            Forgotten::Checkpoint {
                id: "20251013T093012345Z-3fa9c1".into(),
                day,
            },
            at("2026-11-28T14:00:00.123456Z"),
            "Dev\tEloper\n",
        );
        let b = Tombstone::new(
            Forgotten::Plan {
                id: "auth-redesign".into(),
            },
            at("2026-11-28T14:05:00Z"),
            "",
        );
        let text = format!(
            "{}{}{}",
            format_tombstone_header("goldfish"),
            format_tombstone(&a),
            format_tombstone(&b)
        );
        assert!(text.contains("- checkpoint 20251013T093012345Z-3fa9c1 of 2025-10-13, forgotten 2026-11-28T14:00:00.123Z by Dev Eloper\n"), "{text}");
        assert!(
            text.contains("- plan auth-redesign, forgotten 2026-11-28T14:05:00.000Z by unknown\n"),
            "{text}"
        );
        assert_eq!(parse_tombstones(&text), Ok(vec![a, b]));
    }

    #[test]
    fn a_list_line_that_is_not_a_tombstone_names_its_line() {
        let text = "# Forgotten in w\n\n- plan a, forgotten 2026-11-28T14:05:00Z by me\n- a note\n";
        let err = parse_tombstones(text).expect_err("refused");
        assert_eq!(err.line, 4);
        assert!(err.message.contains("not a tombstone"), "{err}");
        let bad_time = "- plan a, forgotten yesterday by me\n";
        assert!(
            parse_tombstones(bad_time)
                .expect_err("refused")
                .message
                .contains("RFC 3339")
        );
        let bad_id = "- plan a b, forgotten 2026-11-28T14:05:00Z by me\n";
        assert!(parse_tombstones(bad_id).is_err());
    }

    fn arb_tombstone() -> impl Strategy<Value = Tombstone> {
        let id = "[A-Za-z0-9._:-]{1,30}";
        let by = "\\PC{0,40}";
        (any::<bool>(), id, 0i64..4_000_000_000_000, 0u32..20_000, by).prop_map(
            |(plan, id, ms, days, by)| {
                let what = if plan {
                    Forgotten::Plan { id }
                } else {
                    let day = NaiveDate::from_ymd_opt(2000, 1, 1)
                        .and_then(|d| d.checked_add_days(chrono::Days::new(u64::from(days))))
                        .expect("day in range");
                    Forgotten::Checkpoint { id, day }
                };
                let at = DateTime::<Utc>::from_timestamp_millis(ms).expect("time in range");
                Tombstone::new(what, at, &by)
            },
        )
    }

    proptest! {
        #[test]
        fn every_tombstone_round_trips(ts in proptest::collection::vec(arb_tombstone(), 0..8)) {
            let mut text = format_tombstone_header("w");
            for t in &ts {
                text.push_str(&format_tombstone(t));
            }
            prop_assert_eq!(parse_tombstones(&text), Ok(ts));
        }

        #[test]
        fn any_text_parses_or_names_a_line(text in "\\PC{0,200}") {
            match parse_tombstones(&text) {
                Ok(_) => {}
                Err(p) => prop_assert!(p.line >= 1 && p.line <= text.lines().count()),
            }
        }
    }
}
