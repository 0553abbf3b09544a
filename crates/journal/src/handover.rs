//! The hand-over view: the tail of the journal and the status derived from all of it, read in
//! one streaming pass.

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufRead};
use std::path::Path;

use goldfish_core::fs::{FsError, FsOp};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::status::{Status, StatusBuilder};

/// How many lines of tail the hand-over shows by default (the read every resuming agent must do).
pub const HANDOVER_LINES: usize = 50;

/// Options of [`Journal::handover_with`](crate::Journal::handover_with).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HandoverOptions {
    /// How many lines of the end of the file to show (default [`HANDOVER_LINES`]).
    pub lines: usize,
}

impl Default for HandoverOptions {
    fn default() -> Self {
        HandoverOptions {
            lines: HANDOVER_LINES,
        }
    }
}

/// What a receiving agent reads before touching code: the last lines of the journal, exactly
/// as written, and the status derived from the whole file.
///
/// `Display` renders both as one text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Handover {
    /// The last lines of the file, byte for byte (line endings included).
    pub tail: String,
    /// The 1-based line the tail starts on (1 when the tail is the whole file).
    pub first_line: usize,
    /// How many lines the tail has.
    pub tail_lines: usize,
    /// The status derived from the whole file (its `lines` is the file's line count).
    pub status: Status,
}

impl Handover {
    pub(crate) fn new(tail: VecDeque<String>, status: Status) -> Handover {
        let tail_lines = tail.len();
        Handover {
            first_line: status.lines - tail_lines + 1,
            tail_lines,
            tail: tail.into_iter().collect(),
            status,
        }
    }

    /// The hand-over of a journal's text (what [`Journal::handover`](crate::Journal::handover)
    /// reads from the file).
    pub fn from_text(text: &str, options: &HandoverOptions) -> Handover {
        let mut builder = StatusBuilder::default();
        let mut tail = VecDeque::with_capacity(options.lines);
        for raw in text.split_inclusive('\n') {
            builder.push(raw);
            keep_tail(&mut tail, options.lines, raw);
        }
        Handover::new(tail, builder.finish())
    }
}

impl fmt::Display for Handover {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.status.lines;
        writeln!(
            f,
            "=== JOURNAL.md: last {} of {total} lines (from line {}) ===",
            self.tail_lines, self.first_line
        )?;
        f.write_str(&self.tail)?;
        if !self.tail.is_empty() && !self.tail.ends_with('\n') {
            writeln!(f)?;
        }
        writeln!(f, "=== Status, derived from the whole journal ===")?;
        write!(f, "{}", self.status)
    }
}

/// Keeps the last `n` lines, reusing the buffers of dropped ones.
fn keep_tail(tail: &mut VecDeque<String>, n: usize, raw: &str) {
    if n == 0 {
        return;
    }
    let mut slot = if tail.len() == n {
        tail.pop_front().unwrap_or_default()
    } else {
        String::new()
    };
    slot.clear();
    slot.push_str(raw);
    tail.push_back(slot);
}

/// One pass over `reader`: the status of every line and the last `tail_lines` lines.
pub(crate) fn scan_reader<R: BufRead>(
    mut reader: R,
    path: &Path,
    tail_lines: usize,
) -> Result<(Status, VecDeque<String>)> {
    let mut builder = StatusBuilder::default();
    let mut tail = VecDeque::with_capacity(tail_lines);
    let mut buf = Vec::with_capacity(256);
    let mut line = 0usize;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::from(FsError::new(FsOp::Read, path, e)))?;
        if n == 0 {
            break;
        }
        line += 1;
        let raw = std::str::from_utf8(&buf).map_err(|_| {
            Error::from(FsError::new(
                FsOp::Read,
                path,
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("not valid UTF-8 at line {line}"),
                ),
            ))
            .at_line(line)
        })?;
        builder.push(raw);
        keep_tail(&mut tail, tail_lines, raw);
    }
    Ok((builder.finish(), tail))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Read};

    /// Counts the bytes read through it.
    struct Counting<R> {
        inner: R,
        read: usize,
    }

    impl<R: Read> Read for Counting<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.read += n;
            Ok(n)
        }
    }

    fn journal(lines: usize) -> String {
        let mut text = String::from("# JOURNAL — big\n## 2026-01-01 10:00 — s\nApproach: a\n\n");
        for _ in 4..lines {
            text.push_str("Decision: something was decided here\n");
        }
        text
    }

    #[test]
    fn reads_the_file_exactly_once() {
        let text = journal(10_000);
        let mut counting = Counting {
            inner: Cursor::new(text.as_bytes()),
            read: 0,
        };
        let (status, tail) =
            scan_reader(io::BufReader::new(&mut counting), Path::new("J"), 50).unwrap();
        assert_eq!(counting.read, text.len(), "one pass, nothing read twice");
        assert_eq!(status.lines, 10_000);
        let want: Vec<&str> = text.split_inclusive('\n').skip(10_000 - 50).collect();
        assert_eq!(tail.iter().map(String::as_str).collect::<Vec<_>>(), want);
    }

    #[test]
    fn tail_sizes() {
        let cases = [
            ("", 50, "", 1, 0),
            ("a\nb\nc", 2, "b\nc", 2, 2),
            ("a\nb\n", 50, "a\nb\n", 1, 2),
        ];
        for (text, n, tail, first, count) in cases {
            let h = Handover::from_text(text, &HandoverOptions { lines: n });
            assert_eq!(
                (h.tail.as_str(), h.first_line, h.tail_lines),
                (tail, first, count),
                "{text:?}"
            );
        }
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let bytes = b"ok\nfine\n\xff\n".to_vec();
        let err = scan_reader(Cursor::new(bytes), Path::new("J.md"), 5).unwrap_err();
        assert_eq!(err.line(), Some(3));
        assert!(err.to_string().contains("line 3"), "{err}");
    }

    #[test]
    fn display_has_tail_then_status() {
        let text = "# JOURNAL — t\n## 2026-01-01 10:00 — s\nApproach: a\n\n❌ Failed: x";
        let shown = Handover::from_text(text, &HandoverOptions::default()).to_string();
        let tail_at = shown.find("❌ Failed: x\n").unwrap();
        let status_at = shown.find("Failure streaks:").unwrap();
        assert!(tail_at < status_at, "{shown}");
        assert!(shown.contains("\"a\" failed 1x"), "{shown}");
    }
}
