//! The scanner: finds the tokens of a text 64 bytes at a time and remembers the verdict
//! of every distinct token, so that the tokenizer's general path and the query classifier run
//! once per distinct word instead of once per occurrence.
//!
//! It is an exact shortcut of [`tokenize`] followed by a classifier: for every text it counts
//! the same tokens and reports the same verdicts in the same order, provided every token the
//! classifier would match passes the filter (property-tested against that composition, with
//! and without a filter, and the engine's results against the engine before it, bit for bit).
//!
//! How a text is read:
//!
//! 1. The text is read in 64-byte windows (the last one copied into a zeroed buffer, unless
//!    the caller put zeros after the text, so that every load below stays in bounds without a
//!    branch), each classified with SIMD compares into bit planes: ASCII letters and digits,
//!    upper- and lowercase letters, non-ASCII bytes, newlines. [`Lanes`] does it 32 bytes at
//!    a time with AVX2 where the processor has it, and 16 bytes at a time otherwise (`wide`:
//!    SSE2 on x86-64, NEON on aarch64, plain arrays elsewhere). Both give the same planes.
//! 2. A *run* is a maximal sequence of ASCII letters, digits and non-ASCII bytes. Runs are
//!    separated by ASCII bytes that are neither, exactly where [`tokenize`] flushes, so the
//!    tokens of a run do not depend on the rest of the text. A run cut by the end of a window
//!    is left for the next window, which starts at it.
//! 3. A [`Filter`] from the query (a necessary condition for a match: a first byte, or a
//!    piece of up to three bytes the token must contain) is tested on the whole window, a
//!    piece by comparing the window with its bytes at offsets 0, 1 and 2 at once; runs
//!    without a mark are only counted. Most tokens of a text match no query word, and most
//!    fail the condition.
//! 4. Almost every run left is an ASCII word of 2 to 16 bytes without a camelCase boundary: its
//!    one token is the run with its letters lowercased (`| 0x20` per byte), loaded as two
//!    `u64`s and looked up in the [`Memo`]. Only a miss asks the classifier.
//! 5. Any other run — camelCase (`parseSince` is three tokens), non-ASCII (`Café`, `—`),
//!    longer than 16 bytes — goes through [`tokenize`] itself; its tokens that are ASCII and
//!    at most 16 bytes long still go through the memo, so each distinct token is classified
//!    once whichever way it was found.

use crate::lanes::Lanes;
use crate::planes::{Filter, PAD, WINDOW};
use crate::table::{Slot, Table, mix};
use crate::text::tokenize;

/// The verdict "matches no query word".
pub(crate) const NONE: u32 = u32::MAX;

/// Lowercases an ASCII letter and leaves a digit unchanged, in each of 16 bytes.
const CASE: u64 = 0x2020_2020_2020_2020;
/// Tokens longer than this are not memoised (the key is two `u64`s).
const MAX_KEY: usize = 16;

/// `KEEP[n]`: masks that keep the first `n` bytes of a token held as two little-endian words.
const KEEP: [[u64; 2]; MAX_KEY + 1] = {
    let mut t = [[0u64; 2]; MAX_KEY + 1];
    let mut n = 0;
    while n <= MAX_KEY {
        let lo = if n >= 8 { 8 } else { n };
        let hi = n - lo;
        t[n][0] = if lo == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * lo)) - 1
        };
        t[n][1] = if hi == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * hi)) - 1
        };
        n += 1;
    }
    t
};

/// What the scanner asks about a token (folded, as [`tokenize`] emits it).
pub(crate) trait Classify {
    /// The verdict for a token of at most [`MAX_KEY`] ASCII bytes, asked once per distinct
    /// token (the memo remembers it).
    fn classify_new(&mut self, token: &[u8]) -> u32;
    /// The verdict for any other token; the implementation may remember it.
    fn classify(&mut self, token: &[u8]) -> u32;
}

/// An entry of the [`Memo`] or of the [`Runs`] cache: up to 16 bytes as two little-endian
/// words (zero-padded), and what is known of them.
#[derive(Clone, Copy)]
struct Entry<V> {
    /// Bytes 0–7; zero marks an empty slot (a token or run is at least two non-zero bytes).
    head: u64,
    /// Bytes 8–15, zero for at most eight bytes.
    tail: u64,
    value: V,
}

/// The value of an empty [`Entry`].
trait Vacant: Copy {
    const VACANT: Self;
}

impl Vacant for u32 {
    const VACANT: u32 = NONE;
}

impl<V: Vacant> Slot for Entry<V> {
    const EMPTY: Entry<V> = Entry {
        head: 0,
        tail: 0,
        value: V::VACANT,
    };
    fn is_empty(&self) -> bool {
        self.head == 0
    }
    fn home(&self) -> usize {
        Memo::home(self.head, self.tail)
    }
}

impl<V: Vacant> Entry<V> {
    /// The value for `head` and `tail` in `table`: `Ok`, or `Err` with the slot to fill.
    #[inline]
    fn find(table: &Table<Entry<V>>, head: u64, tail: u64) -> Result<V, usize> {
        table
            .probe(Memo::home(head, tail), |e| e.head == head && e.tail == tail)
            .map(|e| e.value)
    }
}

/// Per search: folded token of at most 16 ASCII bytes → verdict.
struct Memo {
    table: Table<Entry<u32>>,
}

impl Memo {
    fn new() -> Memo {
        Memo {
            table: Table::new(10),
        }
    }

    #[inline]
    fn home(head: u64, tail: u64) -> usize {
        mix(head ^ tail.rotate_left(29))
    }

    /// The verdict of the token of `len` bytes whose first eight are `head` and the others
    /// `tail` (little-endian, zero-padded), asking `c` on a miss.
    #[inline]
    fn get(&mut self, head: u64, tail: u64, len: usize, c: &mut impl Classify) -> u32 {
        match Entry::find(&self.table, head, tail) {
            Ok(verdict) => verdict,
            Err(slot) => self.insert(slot, head, tail, len, c),
        }
    }

    #[inline(never)]
    fn insert(&mut self, i: usize, head: u64, tail: u64, len: usize, c: &mut impl Classify) -> u32 {
        let mut bytes = [0u8; MAX_KEY];
        bytes[..8].copy_from_slice(&head.to_le_bytes());
        bytes[8..].copy_from_slice(&tail.to_le_bytes());
        let verdict = c.classify_new(&bytes[..len.min(MAX_KEY)]);
        let entry = Entry {
            head,
            tail,
            value: verdict,
        };
        self.table.fill(i, entry);
        verdict
    }

    /// [`Memo::get`] for a token given as bytes (from the general path).
    fn get_bytes(&mut self, token: &[u8], c: &mut impl Classify) -> u32 {
        let (head, tail) = pack(token);
        self.get(head, tail, token.len(), c)
    }
}

/// The first (up to) [`MAX_KEY`] bytes of `b` as two little-endian words, zero-padded.
fn pack(b: &[u8]) -> (u64, u64) {
    let mut bytes = [0u8; MAX_KEY];
    let n = b.len().min(MAX_KEY);
    bytes[..n].copy_from_slice(&b[..n]);
    let (head, tail) = bytes.split_at(8);
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("eight bytes"));
    (word(head), word(tail))
}

/// Where the second field of a text given to [`Scanner::scan`] begins.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Split {
    /// Nowhere: the text is one field.
    None,
    /// After the first newline (a description: its title, then its body).
    Newline,
}

/// What the [`Runs`] cache knows of a run: its token count, and the span of its verdicts in
/// [`Runs::verdicts`].
#[derive(Clone, Copy)]
struct Run {
    tokens: u32,
    first: u32,
    end: u32,
}

impl Vacant for Run {
    const VACANT: Run = Run {
        tokens: 0,
        first: 0,
        end: 0,
    };
}

/// Per search: what the general path made of each run of at most 16 bytes it was given (as
/// written: case and accents matter to [`tokenize`]), so that a camelCase or accented word
/// that comes back is not tokenized again. Its verdicts other than [`NONE`], in order, are in
/// `verdicts`.
struct Runs {
    table: Table<Entry<Run>>,
    verdicts: Vec<u32>,
}

/// Reusable state for scanning many texts in one search: the memo, the run cache and a
/// buffer.
pub(crate) struct Scanner {
    memo: Memo,
    runs: Runs,
    buf: Vec<u8>,
}

/// Whether `b` belongs to a run (see the module documentation).
#[inline]
fn in_run(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80
}

impl Scanner {
    pub(crate) fn new() -> Scanner {
        Scanner {
            memo: Memo::new(),
            runs: Runs {
                table: Table::new(6),
                verdicts: Vec::new(),
            },
            buf: Vec::with_capacity(64),
        }
    }

    /// Forgets every verdict (they belong to one query), keeping the allocations.
    pub(crate) fn reset(&mut self) {
        self.memo.table.reset();
        self.runs.table.reset();
        self.runs.verdicts.clear();
    }

    /// Bytes allocated.
    pub(crate) fn footprint(&self) -> usize {
        self.memo.table.footprint()
            + self.runs.table.footprint()
            + self.runs.verdicts.capacity() * std::mem::size_of::<u32>()
            + self.buf.capacity()
    }

    /// Scans `text`, which is one field (field 0) or two, as `split` says. Returns the number
    /// of tokens of each field, as [`tokenize`] counts them, and pushes `(verdict, field)` to
    /// `out` for every token whose verdict is not [`NONE`], in text order. Tokens that fail
    /// `filter` are taken to have the verdict [`NONE`] without asking `c`.
    #[cfg(test)]
    pub(crate) fn scan(
        &mut self,
        lanes: impl Lanes,
        text: &str,
        split: Split,
        filter: &Filter,
        c: &mut impl Classify,
        out: &mut Vec<(u32, u8)>,
    ) -> [u32; 2] {
        let title = split == Split::Newline;
        self.scan_fields(
            lanes,
            text,
            text.len(),
            [0, usize::MAX],
            title,
            filter,
            c,
            out,
        )
    }

    /// Scans `text`, classifying windows with `lanes`, as a text of `N` fields: field `g` begins
    /// at byte `fields[g]` (`fields[0]` is 0, the others ascending, each just after a byte that
    /// is not part of a word, so no token straddles two fields). Returns the number of tokens
    /// of each field, as [`tokenize`] counts them, and pushes `(verdict, field)` to `out` for
    /// every token whose verdict is not [`NONE`], in text order; tokens that fail `filter` are
    /// taken to have the verdict [`NONE`] without asking `c`. With `title`, field 1 begins
    /// instead after the first newline before field 2 (or the end), if there is one, and is
    /// empty if not: a description's title and body. Only `text[..len]` is read as text; the
    /// bytes after it, if any, must be zeros (then no window at the end is copied: a caller
    /// that assembles the text adds [`PAD`] zeros after it).
    // The arguments are the scan's inputs, each needed; a struct would only rename them.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    // Long: the scanner's hot loop, kept whole (and inlined) for speed.
    pub(crate) fn scan_fields<L: Lanes, const N: usize>(
        &mut self,
        lanes: L,
        text: &str,
        len: usize,
        mut fields: [usize; N],
        title: bool,
        filter: &Filter,
        c: &mut impl Classify,
        out: &mut Vec<(u32, u8)>,
    ) -> [u32; N] {
        let bytes = text.as_bytes();
        let len = len.min(bytes.len());
        debug_assert!(bytes[len..].iter().all(|&b| b == 0));
        let mut counts = [0u32; N];
        // Until the title's newline is found (or field 0 is over), field 1 starts where the
        // next one does: it is empty.
        let title_end = fields.get(2).copied().unwrap_or(len);
        let mut newlines = title && N >= 2;
        if newlines {
            fields[1] = title_end;
        }
        // The field of the window's first byte.
        let mut f = 0;
        let mut last: [u8; PAD];
        let mut pos = 0;
        while pos < len {
            while f + 1 < N && fields[f + 1] <= pos {
                f += 1;
            }
            // Only the sixteens with text need compares (the planes of the others are empty).
            let chunks = (len - pos).min(WINDOW).div_ceil(16);
            let win: &[u8; PAD] = match bytes.get(pos..pos + PAD) {
                // A whole window, or one followed by the caller's zeros.
                Some(w) => w.try_into().expect("a window and its padding"),
                None => {
                    // The end of the text: the same bytes followed by zeros.
                    let rest = &bytes[pos..len];
                    last = [0u8; PAD];
                    last[..rest.len()].copy_from_slice(rest);
                    &last
                }
            };
            // One call, so that the planes of each `Lanes` are inlined here.
            let p = lanes.planes(win, chunks, filter);
            if newlines {
                let newline = lanes.newline_plane(win);
                if newline != 0 {
                    let at = pos + newline.trailing_zeros() as usize;
                    if at < title_end {
                        fields[1] = at + 1;
                    }
                    newlines = false;
                } else if pos + WINDOW >= title_end {
                    newlines = false;
                }
            }
            let mut run = p.run;
            // Runs that need the general path: camelCase boundaries and non-ASCII bytes.
            let mut special = (p.upper & (p.lower << 1)) | p.high;
            let mut next = pos + WINDOW;
            if len - pos > WINDOW && run >> 63 != 0 {
                // The last run may go on past the window: leave it to the next one.
                let tail = run.leading_ones() as usize;
                if tail == WINDOW {
                    // A run longer than a window (in one field: runs do not cross fields).
                    let end = bytes[pos..len]
                        .iter()
                        .position(|&b| !in_run(b))
                        .map_or(len, |n| pos + n);
                    counts[f] += self.general(&text[pos..end], c, f, out);
                    pos = end;
                    continue;
                }
                let keep = u64::MAX >> tail;
                run &= keep;
                special &= keep;
                next = pos + WINDOW - tail;
            }
            // First and last bytes of the runs of at least two bytes (a one-byte run has no
            // token). Each run is one token, counted here; the general path corrects the
            // counts of its runs.
            let starts = run & !(run << 1) & (run >> 1);
            let ends = run & !(run >> 1) & (run << 1);
            // Whether another field begins in this window (rare: most windows lie in one).
            let several = f + 1 < N && fields[f + 1] < pos + WINDOW;
            if several {
                let below = |n: usize| {
                    if n >= WINDOW {
                        u64::MAX
                    } else {
                        (1u64 << n) - 1
                    }
                };
                for g in f..N {
                    let from = fields[g].saturating_sub(pos);
                    if from >= WINDOW {
                        break;
                    }
                    let to = fields.get(g + 1).map_or(WINDOW, |&t| t.saturating_sub(pos));
                    counts[g] += (starts & below(to) & !below(from)).count_ones();
                }
            } else {
                counts[f] += starts.count_ones();
            }
            // The byte after each run without a special byte: adding its first bit to the run
            // less its special bytes carries past its end only when nothing stops the carry.
            let clean = (run & !special).wrapping_add(run & !(run << 1)) & !run;
            // The runs with a mark (a byte the filter wants, or a special byte) are kept:
            // adding the marks to the runs clears each run from its first mark to its end,
            // which puts its end among the cleared bits or the marks themselves.
            let marks = if filter.all {
                run
            } else {
                (starts & p.first | p.piece) & run | special
            };
            let mut kept = ends & (run & !run.wrapping_add(marks) | marks);
            while kept != 0 {
                let e = (kept.trailing_zeros() & 63) as usize;
                let end_bit = kept & kept.wrapping_neg();
                kept &= kept - 1;
                // Its run begins at the last run start up to its end (every run of at least
                // two bytes has both).
                let before = starts & (end_bit << 1).wrapping_sub(1);
                debug_assert!(before != 0);
                let s = 63 - (before.leading_zeros() & 63) as usize;
                let len = e + 1 - s;
                // The field of the byte at `at`.
                let field = if several {
                    fields.iter().rposition(|&g| g <= pos + s).unwrap_or(0)
                } else {
                    f
                };
                // A special run, or one longer than a key (a run ending at the window's last
                // byte has no byte after it and goes this way too: it is rare).
                if len > MAX_KEY || clean & (end_bit << 1) == 0 {
                    counts[field] -= 1;
                    counts[field] += self.general(&text[pos + s..pos + s + len], c, field, out);
                    continue;
                }
                // The token lowercased, as two little-endian words cut to its 2..=16 bytes.
                let keep = KEEP[len];
                let word = |at: usize| match win.get(at..at + 8) {
                    Some(w) => u64::from_le_bytes(w.try_into().expect("eight bytes")) | CASE,
                    None => 0,
                };
                let (head, tail) = (word(s) & keep[0], word(s + 8) & keep[1]);
                let t = self.memo.get(head, tail, len, c);
                if t != NONE {
                    out.push((t, field as u8));
                }
            }
            pos = next;
        }
        counts
    }
}

impl Scanner {
    /// The general path for one run: [`tokenize`], then the memo for the tokens it can hold
    /// and `c` for the others; pushes the verdicts to `out` and returns the token count. A
    /// run of at most [`MAX_KEY`] bytes is remembered as written (case and accents matter to
    /// [`tokenize`]), so a camelCase or accented word that comes back is not tokenized again.
    #[inline(never)]
    fn general(
        &mut self,
        run: &str,
        c: &mut impl Classify,
        field: usize,
        out: &mut Vec<(u32, u8)>,
    ) -> u32 {
        let key = (run.len() <= MAX_KEY).then(|| pack(run.as_bytes()));
        let slot = match key.map(|(head, tail)| Entry::find(&self.runs.table, head, tail)) {
            Some(Ok(r)) => {
                let verdicts = self.runs.verdicts.get(r.first as usize..r.end as usize);
                out.extend(verdicts.unwrap_or(&[]).iter().map(|&t| (t, field as u8)));
                return r.tokens;
            }
            Some(Err(slot)) => Some(slot),
            None => None,
        };
        let from = out.len();
        let mut tokens = 0;
        let Scanner { memo, buf, runs } = self;
        tokenize(run, buf, |token| {
            tokens += 1;
            let t = if token.len() <= MAX_KEY && token.is_ascii() {
                memo.get_bytes(token, c)
            } else {
                c.classify(token)
            };
            if t != NONE {
                out.push((t, field as u8));
            }
        });
        if let (Some((head, tail)), Some(slot)) = (key, slot) {
            let first = runs.verdicts.len();
            runs.verdicts.extend(out[from..].iter().map(|&(t, _)| t));
            if let (Ok(first), Ok(end)) = (u32::try_from(first), u32::try_from(runs.verdicts.len()))
            {
                let value = Run { tokens, first, end };
                runs.table.fill(slot, Entry { head, tail, value });
            }
        }
        tokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lanes::{agreed, each_lanes};
    use std::collections::HashMap;

    /// A classifier with made-up verdicts that records what it was asked.
    #[derive(Default)]
    struct Recorder {
        verdicts: HashMap<Vec<u8>, u32>,
        asked_new: Vec<Vec<u8>>,
    }

    impl Recorder {
        fn verdict(&mut self, token: &[u8]) -> u32 {
            // Every third distinct token "matches".
            let n = self.verdicts.len() as u32;
            *self
                .verdicts
                .entry(token.to_vec())
                .or_insert(if n.is_multiple_of(3) { n } else { NONE })
        }
    }

    impl Classify for Recorder {
        fn classify_new(&mut self, token: &[u8]) -> u32 {
            self.asked_new.push(token.to_vec());
            self.verdict(token)
        }
        fn classify(&mut self, token: &[u8]) -> u32 {
            assert!(token.len() > MAX_KEY || !token.is_ascii(), "{token:?}");
            self.verdict(token)
        }
    }

    /// The scanner's output for `texts` (each split at its newline or not), with one memo.
    fn scanned(
        lanes: impl Lanes,
        texts: &[(&str, bool)],
    ) -> (Vec<[u32; 2]>, Vec<(u32, u8)>, Recorder) {
        let mut r = Recorder::default();
        let mut s = Scanner::new();
        let mut out = Vec::new();
        let counts = texts
            .iter()
            .map(|&(t, split)| {
                let split = if split { Split::Newline } else { Split::None };
                s.scan(lanes, t, split, &Filter::all(), &mut r, &mut out)
            })
            .collect();
        (counts, out, r)
    }

    /// What the scanner must produce: `tokenize` on each field, the same made-up verdicts.
    fn expected(texts: &[(&str, bool)]) -> (Vec<[u32; 2]>, Vec<(u32, u8)>) {
        let mut r = Recorder::default();
        let mut out = Vec::new();
        let mut buf = Vec::new();
        let counts = texts
            .iter()
            .map(|&(t, split)| {
                let fields = match t.split_once('\n') {
                    Some((a, b)) if split => [a, b],
                    _ => [t, ""],
                };
                let mut counts = [0u32; 2];
                for (f, text) in fields.iter().enumerate() {
                    tokenize(text, &mut buf, |tok| {
                        counts[f] += 1;
                        let v = r.verdict(tok);
                        if v != NONE {
                            out.push((v, f as u8));
                        }
                    });
                }
                counts
            })
            .collect();
        (counts, out)
    }

    /// Checks the scanner with each way of classifying windows.
    fn check(texts: &[(&str, bool)]) {
        each_lanes!(lanes => check_with(lanes, texts));
    }

    fn check_with(lanes: impl Lanes, texts: &[(&str, bool)]) {
        let (counts, out, r) = scanned(lanes, texts);
        let (want_counts, want_out) = expected(texts);
        assert_eq!(counts, want_counts, "{texts:?}");
        assert_eq!(out, want_out, "{texts:?}");
        let mut asked = r.asked_new.clone();
        asked.sort();
        asked.dedup();
        assert_eq!(
            asked.len(),
            r.asked_new.len(),
            "a token was classified twice"
        );
    }

    #[test]
    fn table() {
        let long_run = "x".repeat(200);
        let straddle = format!("{} parseSince café", "ab ".repeat(21));
        let cases: &[&str] = &[
            "",
            "a",
            "ab",
            "Fixed auth bug",
            "Fixed auth bug\nThe body, with more words.\nAnd a third line",
            "\nstarts with a newline",
            "parseSince(x) HashMap OAuth2 README iPhone aB",
            "Café résumé — naïve → Straße İstanbul 𝔻ata",
            "0123456789abcdefX 0123456789abcdef 0123456789abcdefgh",
            "src/goldfish-store/src/dayfile.rs",
            &long_run,
            &straddle,
            "MIGRATION migrations Migrate",
        ];
        for text in cases {
            check(&[(text, true)]);
            check(&[(text, false)]);
        }
        check(&cases.iter().map(|t| (*t, true)).collect::<Vec<_>>());
    }

    #[test]
    fn runs_at_every_window_offset() {
        // Words of every length from 1 to 20 bytes crossing the 64-byte window edge at every
        // offset, in both cases, with and without a camelCase boundary and a non-ASCII byte.
        for len in 1..=20 {
            for offset in 40..70 {
                for word in [
                    "a".repeat(len),
                    "A".repeat(len),
                    format!("{}B", "a".repeat(len)),
                    format!("{}é", "a".repeat(len)),
                ] {
                    let text = format!("{}{word} tail\nbody {word}", " ".repeat(offset));
                    check(&[(&text, true)]);
                }
            }
        }
    }

    #[test]
    fn memo_grows_and_keeps_long_keys() {
        // More distinct tokens than the initial memo holds, many longer than eight bytes.
        let text: String = (0..5000).map(|i| format!("w{i} longertoken{i} ")).collect();
        check(&[(&text, false), (&text, true)]);
    }

    /// A classifier whose matches all pass `filter` (as a query's do): every third distinct
    /// token that passes matches.
    struct Filtered<'f> {
        filter: &'f Filter,
        inner: Recorder,
    }

    impl Filtered<'_> {
        fn verdict(&mut self, token: &[u8]) -> u32 {
            if self.filter.passes(token) {
                self.inner.verdict(token)
            } else {
                NONE
            }
        }
    }

    impl Classify for Filtered<'_> {
        fn classify_new(&mut self, token: &[u8]) -> u32 {
            self.inner.asked_new.push(token.to_vec());
            self.verdict(token)
        }
        fn classify(&mut self, token: &[u8]) -> u32 {
            self.verdict(token)
        }
    }

    /// Scans `text` with `filter` and checks it against `tokenize` and the same classifier
    /// asked about every token: the same counts, the same verdicts in the same order. Returns
    /// the tokens the classifier was asked about.
    fn check_filtered(text: &str, filter: &Filter) -> Vec<Vec<u8>> {
        let mut asked = Vec::new();
        each_lanes!(lanes => asked.push(check_filtered_with(lanes, text, filter)));
        agreed(asked, text)
    }

    fn check_filtered_with(lanes: impl Lanes, text: &str, filter: &Filter) -> Vec<Vec<u8>> {
        let mut c = Filtered {
            filter,
            inner: Recorder::default(),
        };
        let mut want = Filtered {
            filter,
            inner: Recorder::default(),
        };
        let (mut out, mut want_out) = (Vec::new(), Vec::new());
        let mut s = Scanner::new();
        let counts = s.scan(lanes, text, Split::None, filter, &mut c, &mut out);
        let mut n = 0;
        tokenize(text, &mut Vec::new(), |tok| {
            n += 1;
            let v = want.verdict(tok);
            if v != NONE {
                want_out.push((v, 0u8));
            }
        });
        assert_eq!(counts, [n, 0], "{text:?}");
        // The verdict numbers depend on the order tokens were asked in; compare the tokens.
        let name = |r: &Recorder, v: u32| {
            r.verdicts
                .iter()
                .find(|&(_, &x)| x == v)
                .map(|(k, _)| k.clone())
        };
        let got: Vec<_> = out.iter().map(|&(v, _)| name(&c.inner, v)).collect();
        let want: Vec<_> = want_out
            .iter()
            .map(|&(v, _)| name(&want.inner, v))
            .collect();
        assert_eq!(got, want, "{text:?}");
        c.inner.asked_new
    }

    #[test]
    fn filter_skips_the_tokens_that_fail_it() {
        let filter = Filter::new(b"b", &[b"rol", b"ver"]);
        let text = "Fixed the bug in the rollover of the lazy DFA; ROLLOVER over Bugs \
                    parseRollover café-bug";
        let asked = check_filtered(text, &filter);
        for t in ["bug", "rollover", "over", "bugs"] {
            assert!(asked.iter().any(|a| a == t.as_bytes()), "{t} not asked");
        }
        // Plain words that fail are never looked up; the camelCase and non-ASCII runs go
        // through the general path whole.
        for t in ["fixed", "the", "in", "of", "lazy", "dfa"] {
            assert!(!asked.iter().any(|a| a == t.as_bytes()), "{t} asked");
        }
        let everything = check_filtered(text, &Filter::all());
        assert!(everything.iter().any(|a| a == b"fixed"));
        // A condition too costly to test lets everything through.
        let wide: Vec<[u8; 1]> = (b'a'..=b'z').map(|b| [b]).collect();
        let wide: Vec<&[u8]> = wide.iter().map(|p| &p[..]).collect();
        assert!(Filter::new(b"", &wide).passes(b"zzz"));
        assert!(Filter::new(b"", &[b""]).passes(b"zzz"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        #[test]
        fn filtered_scan_equals_tokenize(
            text in "([a-fA-F0-9]{0,20}|[ ./_:\n-]{1,3}|[A-F][a-f]{1,5}|[éÉ—]){0,40}",
            first in proptest::collection::vec(proptest::sample::select(b"abcdef09".to_vec()), 0..3),
            other in proptest::collection::vec("[a-fA-F0-9]{1,4}", 0..2),
            cuts in proptest::collection::vec((0usize..400, 1usize..5), 0..3),
            offset in 0usize..64,
        ) {
            // Pieces cut from the text itself (so they occur in it) and made-up ones.
            let text = format!("{}{text}", " ".repeat(offset));
            let b = text.as_bytes();
            let mut pieces: Vec<&[u8]> = other.iter().map(|p| p.as_bytes()).collect();
            for &(at, len) in cuts.iter().filter(|_| !b.is_empty()) {
                let at = at % b.len();
                pieces.push(&b[at..(at + len).min(b.len())]);
            }
            let filter = Filter::new(&first, &pieces);
            check_filtered(&text, &filter);
        }

        #[test]
        fn equals_tokenize(
            texts in proptest::collection::vec(
                ("([a-zA-Z0-9]{0,20}|[ ./_:\n-]{1,3}|[A-Z][a-z]{1,5}|[éÉİßΣ𝔻ǅ—]){0,40}", proptest::bool::ANY),
                1..4,
            ),
        ) {
            let texts: Vec<(&str, bool)> = texts.iter().map(|(t, s)| (t.as_str(), *s)).collect();
            let (want_counts, want_out) = expected(&texts);
            each_lanes!(lanes => {
                let (counts, out, _) = scanned(lanes, &texts);
                proptest::prop_assert_eq!(&counts, &want_counts);
                proptest::prop_assert_eq!(&out, &want_out);
            });
        }
    }
}
