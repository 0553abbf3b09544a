//! Private spans: text a person wrapped in `<private>` … `</private>` so that it is never
//! written at all, secret-shaped or not.
//!
//! The rules, chosen to drop more rather than less when the text is ambiguous:
//!
//! - The tags are matched exactly as written, lower case, no spaces or attributes
//!   (`<Private>` is not a tag). Markdown is not parsed: a tag inside a code fence or inline
//!   code is a tag all the same, since people paste private text there too.
//! - Tags nest: a span ends at the `</private>` that closes its first `<private>`, so
//!   `<private>a <private>b</private> c</private>` is one span and `c` is dropped with it.
//! - A `</private>` with no open tag before it is text; nothing is hidden by it.
//! - An open tag that is never closed drops the rest of its *field* ([`Until::EndOfText`]:
//!   a checkpoint's description, a plan's body), or, in a text written whole, where the
//!   rest of the file is not the writer's to lose, the rest of its *line*
//!   ([`Until::EndOfLine`]: the notes file, a journal block, a merged or re-redacted stored
//!   file). Such a span is reported as [`Kind::PrivateUnclosed`], so the reply says so.
//!
//! Finding the spans is linear in the text: one pass over its `<` characters pairs every
//! close tag with the open tag it closes (a stack), and a second walks the pairs.

use std::ops::Range;

use crate::Kind;

/// The open tag.
pub(crate) const OPEN: &str = "<private>";
/// The close tag.
pub(crate) const CLOSE: &str = "</private>";

/// Where a `<private>` that is never closed ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Until {
    /// At the end of the text: the text is one field.
    EndOfText,
    /// At the end of its line (before the `\n`): the text is a whole file or block.
    EndOfLine,
}

/// The private spans of `text`, in order and never overlapping, each with its kind
/// ([`Kind::Private`], or [`Kind::PrivateUnclosed`] for an open tag never closed).
pub(crate) fn spans(text: &str, until: Until) -> Vec<(Range<usize>, Kind)> {
    // Cheap refusal: most texts hold no open tag at all.
    if !text.contains(OPEN) {
        return Vec::new();
    }
    // Every open tag with the end of the close tag that closes it, if any.
    let mut opens: Vec<(usize, Option<usize>)> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    for (at, _) in text.match_indices('<') {
        let rest = &text[at..];
        if rest.starts_with(OPEN) {
            stack.push(opens.len());
            opens.push((at, None));
        } else if rest.starts_with(CLOSE)
            && let Some(open) = stack.pop()
        {
            opens[open].1 = Some(at + CLOSE.len());
        }
    }
    let mut out: Vec<(Range<usize>, Kind)> = Vec::new();
    let mut from = 0;
    for (start, end) in opens {
        if start < from {
            // Inside a span already dropped. An unclosed tag's line can hold the open tag of
            // a pair that closes on a later line: the span runs on to that close, or the
            // text between would be written.
            if let (Some(end), Some((last, _))) = (end, out.last_mut())
                && end > from
            {
                last.end = end;
                from = end;
            }
            continue;
        }
        match end {
            Some(end) => {
                out.push((start..end, Kind::Private));
                from = end;
            }
            None => {
                let end = match until {
                    Until::EndOfText => text.len(),
                    Until::EndOfLine => text[start..].find('\n').map_or(text.len(), |n| start + n),
                };
                out.push((start..end, Kind::PrivateUnclosed));
                from = end;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dropped(text: &str, until: Until) -> Vec<(&str, Kind)> {
        spans(text, until)
            .into_iter()
            .map(|(r, k)| (&text[r], k))
            .collect()
    }

    /// A text, its mode, and the spans it drops.
    type Case = (&'static str, Until, &'static [(&'static str, Kind)]);

    #[test]
    fn spans_follow_the_rules() {
        use Kind::{Private as P, PrivateUnclosed as U};
        use Until::{EndOfLine as Line, EndOfText as Field};
        let cases: &[Case] = &[
            ("nothing here", Field, &[]),
            ("a </private> b", Field, &[]),
            ("<Private>x</Private>", Field, &[]),
            (
                "a <private>x</private> b",
                Field,
                &[("<private>x</private>", P)],
            ),
            (
                "<private>a</private> and <private>b\nc</private>",
                Field,
                &[("<private>a</private>", P), ("<private>b\nc</private>", P)],
            ),
            (
                "<private>a <private>b</private> c</private> d",
                Field,
                &[("<private>a <private>b</private> c</private>", P)],
            ),
            ("x <private>a\nb\nc", Field, &[("<private>a\nb\nc", U)]),
            ("x <private>a\nb\nc", Line, &[("<private>a", U)]),
            (
                "<private>a\n<private>b</private>\nc",
                Line,
                &[("<private>a", U), ("<private>b</private>", P)],
            ),
            (
                "<private><private>a</private>\nrest",
                Field,
                &[("<private><private>a</private>\nrest", U)],
            ),
            (
                "<private>x <private>y\nz</private> w",
                Line,
                &[("<private>x <private>y\nz</private>", U)],
            ),
            (
                "```\n<private>k</private>\n```",
                Field,
                &[("<private>k</private>", P)],
            ),
            (
                "</private><private>a</private></private>",
                Field,
                &[("<private>a</private>", P)],
            ),
        ];
        for (text, until, want) in cases {
            assert_eq!(dropped(text, *until), *want, "{text:?} {until:?}");
        }
    }
}
