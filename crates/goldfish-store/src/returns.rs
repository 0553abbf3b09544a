//! The record of returns: the day a recall or a hook last returned each memory of a
//! workspace, so that `goldfish tidy` can name the memories nobody has been shown for a long
//! time. A cache of the home store (`{store}/.cache/returned/{workspace}.txt`, never synced),
//! one line per memory:
//!
//! ```text
//! # goldfish: the day a recall or a hook last returned each memory (a cache, never synced)
//! since 2026-11-28
//! 20251013T093012345Z-3fa9c1 2026-11-28
//! ```
//!
//! `since` is the day the record began: a memory missing from it was not returned since
//! then, and nothing is known of before. Lines starting with `#` are comments; any other line
//! that is not `since DATE` or `ID DATE` is an error naming its line.

use std::collections::BTreeMap;

use chrono::NaiveDate;

/// The directory of the records, under the store's root.
pub const RETURNS_DIR: &str = ".cache/returned";

/// The comment a record starts with.
const HEADER: &str =
    "# goldfish: the day a recall or a hook last returned each memory (a cache, never synced)";

/// One workspace's record of returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Returns {
    /// The day the record began (`None` for a workspace with no record yet).
    pub since: Option<NaiveDate>,
    /// Memory id → the last day a recall or a hook returned it.
    pub last: BTreeMap<String, NaiveDate>,
}

impl Returns {
    /// An empty record that begins on `since`.
    pub fn beginning(since: NaiveDate) -> Returns {
        Returns {
            since: Some(since),
            last: BTreeMap::new(),
        }
    }

    /// Records that `ids` were returned on `day` (a later day is never moved back; the first
    /// note sets [`since`](Self::since)). Returns whether anything changed.
    pub fn note(&mut self, ids: &[String], day: NaiveDate) -> bool {
        // The record begins with its first note, and never earlier: a note dated before it
        // (another clock) says nothing of the days before the record.
        let mut changed = false;
        if self.since.is_none() {
            self.since = Some(day);
            changed = true;
        }
        for id in ids {
            if !is_record_id(id) {
                continue;
            }
            match self.last.get_mut(id) {
                Some(d) if *d >= day => {}
                Some(d) => {
                    *d = day;
                    changed = true;
                }
                None => {
                    self.last.insert(id.clone(), day);
                    changed = true;
                }
            }
        }
        changed
    }

    /// Whether `ids` are all recorded as returned on `day` or later.
    pub fn has_all(&self, ids: &[String], day: NaiveDate) -> bool {
        self.since.is_some_and(|s| s <= day)
            && ids
                .iter()
                .filter(|id| is_record_id(id))
                .all(|id| self.last.get(id).is_some_and(|d| *d >= day))
    }
}

/// An id the record can hold: not empty, not `since`, no white space, not starting with `#`.
fn is_record_id(id: &str) -> bool {
    !id.is_empty() && id != "since" && !id.starts_with('#') && !id.chars().any(char::is_whitespace)
}

/// A line of a record that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnsProblem {
    /// Its line number, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

/// Reads a record. Errors: a line that is not a comment, `since DATE` or `ID DATE`.
pub fn parse_returns(text: &str) -> Result<Returns, ReturnsProblem> {
    let mut out = Returns::default();
    for (n, line) in text.lines().enumerate() {
        let problem = |message: String| ReturnsProblem {
            line: n + 1,
            message,
        };
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(' ');
        let (Some(key), Some(date), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(problem(format!(
                "expected `ID YYYY-MM-DD` or `since YYYY-MM-DD`, found {line:?}"
            )));
        };
        let date = NaiveDate::parse_from_str(date, "%Y-%m-%d")
            .map_err(|_| problem(format!("{date:?} is not a date (YYYY-MM-DD)")))?;
        if key == "since" {
            out.since = Some(date);
        } else if is_record_id(key) {
            out.last.insert(key.to_string(), date);
        } else {
            return Err(problem(format!("{key:?} is not a memory id")));
        }
    }
    Ok(out)
}

/// Writes a record: the comment, `since` (when known), then one line per memory by id.
pub fn format_returns(returns: &Returns) -> String {
    let mut out = String::with_capacity(64 + returns.last.len() * 40);
    out.push_str(HEADER);
    out.push('\n');
    if let Some(since) = returns.since {
        out.push_str(&format!("since {}\n", since.format("%Y-%m-%d")));
    }
    for (id, day) in &returns.last {
        if is_record_id(id) {
            out.push_str(&format!("{id} {}\n", day.format("%Y-%m-%d")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("date")
    }

    #[test]
    fn a_note_keeps_the_latest_day_and_the_record_its_first_day() {
        let mut r = Returns::default();
        assert!(r.note(&["a".into(), "b".into()], day("2026-11-20")));
        assert!(!r.note(&["a".into()], day("2026-11-19")));
        assert!(r.note(&["a".into()], day("2026-11-28")));
        assert_eq!(r.since, Some(day("2026-11-20")));
        assert_eq!(r.last["a"], day("2026-11-28"));
        assert_eq!(r.last["b"], day("2026-11-20"));
        assert!(r.has_all(&["a".into()], day("2026-11-28")));
        assert!(!r.has_all(&["a".into(), "b".into()], day("2026-11-28")));
        // Ids the record cannot hold are passed over, never written.
        assert!(!r.note(&["has space".into(), String::new()], day("2026-11-28")));
        let back = parse_returns(&format_returns(&r)).expect("parse");
        assert_eq!(back, r);
    }

    #[test]
    fn a_bad_line_is_named() {
        let e = parse_returns("# c\nsince 2026-11-01\nabc 2026-13-01\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("not a date"), "{}", e.message);
        let e = parse_returns("abc\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = parse_returns("a b c\n").unwrap_err();
        assert_eq!(e.line, 1);
    }

    proptest! {
        #[test]
        fn format_then_parse_is_the_same_record(
            since in proptest::option::of(0u32..20_000),
            entries in proptest::collection::btree_map("[A-Za-z0-9_.:-]{1,30}", 0u32..20_000, 0..20),
        ) {
            let base = day("1990-01-01");
            let r = Returns {
                since: since.map(|d| base + chrono::Days::new(u64::from(d))),
                last: entries
                    .into_iter()
                    .filter(|(id, _)| id != "since")
                    .map(|(id, d)| (id, base + chrono::Days::new(u64::from(d))))
                    .collect(),
            };
            prop_assert_eq!(parse_returns(&format_returns(&r)).expect("parse"), r);
        }

        #[test]
        fn any_text_parses_or_names_a_line(text in "\\PC{0,200}") {
            match parse_returns(&text) {
                Ok(r) => prop_assert_eq!(parse_returns(&format_returns(&r)).expect("again"), r),
                Err(p) => prop_assert!(p.line >= 1 && p.line <= text.lines().count().max(1)),
            }
        }
    }
}
