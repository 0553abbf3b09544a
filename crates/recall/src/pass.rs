//! The one pass over the checkpoints: every field's tokens found by the scanner, each distinct
//! token classified once against the query (prefilter, then [`similarity`]), and kept only
//! what scoring needs — matched terms with their document frequencies, and per matching
//! document its field lengths and `(term, field)` occurrences.

use std::cell::Cell;
use std::collections::HashMap;

use goldfish_store::Checkpoint;

use crate::ahead;
use crate::fields::{FIELDS, checkpoint_text};
use crate::lanes::Lanes;
use crate::matches::{DocMatch, Pass, Term};
use crate::planes::PAD;
use crate::prefilter::Word;
use crate::prefilter::{Probe, Token, scan_filter};
use crate::scan::{Classify, NONE, Scanner};
use crate::score::average_lengths;
use crate::search_options::SearchOptions;
use crate::similarity::{similarity, synonym_similarity};

/// A map with a fast, non-cryptographic hash for short byte strings (foldhash's, seeded
/// the same in every process: tokens are not chosen by an adversary).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// Classifies tokens: each distinct token that passes the prefilter for some query word is
/// scored once against the query with [`similarity`]; the others are only counted.
struct Matcher<'a> {
    words: &'a [Word],
    opts: &'a SearchOptions,
    /// First bytes a token needs to match one of the words of at most five bytes (every
    /// word when `fuzzy` is off): [`Word::may_match`]'s first test, for all words at once.
    first: [bool; 256],
    /// Every word's [`Probe`], and those of the words longer than five bytes when fuzzy
    /// (any token may match them; the others need the first byte).
    probes: Vec<Probe>,
    long: Vec<Probe>,
    /// Token → index in `terms`, or [`NONE`] when it matches no query word, for the tokens
    /// the scanner's memo does not hold (longer than 16 bytes, or not ASCII).
    seen: FastMap<Box<[u8]>, u32>,
    /// Matched terms in first-seen order (the order ties between expansions are broken by).
    terms: Vec<Term>,
}

impl<'a> Matcher<'a> {
    fn new(words: &'a [Word], opts: &'a SearchOptions) -> Matcher<'a> {
        let mut first = [false; 256];
        let mut long = Vec::new();
        for w in words {
            if opts.fuzzy && w.bytes.len() > 5 && w.synonym.is_none() {
                long.push(w.probe);
            } else if let Some(&b) = w.bytes.first() {
                first[usize::from(b)] = true;
            }
        }
        Matcher {
            words,
            opts,
            first,
            probes: words.iter().map(|w| w.probe).collect(),
            long,
            seen: FastMap::default(),
            terms: Vec::new(),
        }
    }

    /// The index of `tok` in `terms`, or [`NONE`] if it matches no query word. With
    /// `remember`, the verdict of a token that passed the prefilter is kept in `seen`;
    /// without, the caller keeps it (the scanner's memo).
    #[inline]
    fn verdict(&mut self, tok: &[u8], remember: bool) -> u32 {
        let Some(&b0) = tok.first() else {
            return NONE;
        };
        let short = self.first[usize::from(b0)];
        if !short && self.long.is_empty() {
            return NONE;
        }
        if !self.opts.fuzzy {
            if self.words.iter().any(|w| w.bytes == tok) {
                return self.lookup(&Token::new(tok), remember);
            }
            return NONE;
        }
        let v = Token::new(tok);
        let probes = if short { &self.probes } else { &self.long };
        let mut may = false;
        for p in probes {
            may |= p.may_match(&v);
        }
        if !may {
            return NONE;
        }
        self.lookup(&v, remember)
    }

    /// [`Matcher::verdict`] for a token that passed the prefilter: looked up (with
    /// `remember`), or scored against every query word.
    #[inline(never)]
    fn lookup(&mut self, v: &Token<'_>, remember: bool) -> u32 {
        let tok = v.bytes;
        if remember && let Some(&t) = self.seen.get(tok) {
            return t;
        }
        let mut matches = Vec::new();
        for (qi, w) in self.words.iter().enumerate() {
            if let Some(weight) = w.synonym {
                let sim = synonym_similarity(&w.bytes, &w.stem, &w.porter, tok);
                if sim > 0.0 && sim >= self.opts.min_similarity {
                    matches.push((qi, sim * weight));
                }
            } else if w.bytes == tok {
                matches.push((qi, 1.0));
            } else if self.opts.fuzzy && w.may_match(v) {
                let sim = similarity(&w.bytes, &w.stem, &w.porter, tok, w.is_last);
                if sim > 0.0 && sim >= self.opts.min_similarity && sim < 1.0 {
                    matches.push((qi, sim));
                }
            }
        }
        let t = if matches.is_empty() {
            NONE
        } else {
            self.terms.push(Term {
                df: 0,
                last_doc: NONE,
                matches,
                text: tok.into(),
            });
            u32::try_from(self.terms.len() - 1).unwrap_or(NONE - 1)
        };
        if remember {
            self.seen.insert(tok.into(), t);
        }
        t
    }

    /// Counts an occurrence of term `t` in document `d` towards its document frequency.
    #[inline]
    fn count(&mut self, t: u32, d: u32) {
        let term = &mut self.terms[t as usize];
        if term.last_doc != d {
            term.last_doc = d;
            term.df += 1;
        }
    }
}

/// Classifies the terms of a vocabulary against the query (the index's way to find the
/// matched terms): the same verdicts as the pass gives the same tokens, each distinct text
/// judged once across calls, matched terms numbered in order of first sight.
pub(crate) struct TermMatcher<'a>(Matcher<'a>);

impl<'a> TermMatcher<'a> {
    /// A matcher for the words of a query.
    pub(crate) fn new(words: &'a [Word], opts: &'a SearchOptions) -> TermMatcher<'a> {
        TermMatcher(Matcher::new(words, opts))
    }

    /// The number of `term` among the matched terms, or [`NONE`] when it matches no word.
    pub(crate) fn classify(&mut self, term: &[u8]) -> u32 {
        self.0.verdict(term, true)
    }

    /// The matched terms, each with a document frequency of 0 (the caller counts them).
    pub(crate) fn into_terms(self) -> Vec<Term> {
        self.0.terms
    }
}

impl Classify for Matcher<'_> {
    fn classify_new(&mut self, token: &[u8]) -> u32 {
        self.verdict(token, false)
    }
    fn classify(&mut self, token: &[u8]) -> u32 {
        self.verdict(token, true)
    }
}

thread_local! {
    /// The scanner of this thread's last search, kept for its allocations (never its
    /// contents: it is reset before use), so that a long-lived process (the MCP server) does
    /// not map, fault in and unmap a fresh megabyte for every call.
    static SCANNER: Cell<Option<Scanner>> = const { Cell::new(None) };
}

/// A thread keeps at most this much between searches; a larger scanner is freed.
const KEEP_BYTES: usize = 16 << 20;

/// This thread's scanner (reset), or a new one.
fn take_scanner() -> Scanner {
    match SCANNER.try_with(Cell::take).ok().flatten() {
        Some(mut s) => {
            s.reset();
            s
        }
        None => Scanner::new(),
    }
}

/// Gives `scanner` back to this thread for its next search.
fn give_back(scanner: Scanner) {
    if scanner.footprint() <= KEEP_BYTES {
        // A thread being torn down has no slot left; the scanner is then just dropped.
        let _ = SCANNER.try_with(|slot| slot.set(Some(scanner)));
    }
}

/// The zeros after a text the engine assembles for [`Scanner::scan_fields`].
const ZEROS: &str = match std::str::from_utf8(&[0u8; PAD]) {
    Ok(z) => z,
    Err(_) => "",
};

/// The one pass over `checkpoints` for `words`: the matched terms, the matching documents
/// and the average field lengths.
// Several per-field arrays are indexed by the field number together.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
pub(crate) fn run<L: Lanes>(
    lanes: L,
    words: &[Word],
    checkpoints: &[Checkpoint],
    opts: &SearchOptions,
) -> Pass {
    let mut m = Matcher::new(words, opts);
    let filter = scan_filter(words, opts);
    let mut scanner = take_scanner();
    let mut docs = Vec::new();
    let mut occ: Vec<(u32, u8)> = Vec::new();
    let mut found: Vec<(u32, u8)> = Vec::new();
    let mut joined = String::new();
    let mut totals = [0u64; FIELDS];
    for (index, cp) in checkpoints.iter().enumerate() {
        ahead::ask(checkpoints, index);
        let d = u32::try_from(index).unwrap_or(NONE - 1);
        let start = occ.len();
        let (len, fields) = checkpoint_text(cp, &mut joined, ZEROS);
        found.clear();
        let lens = scanner.scan_fields(
            lanes, &joined, len, fields, true, &filter, &mut m, &mut found,
        );
        for &(t, f) in &found {
            m.count(t, d);
            occ.push((t, f));
        }
        for f in 0..FIELDS {
            totals[f] += u64::from(lens[f]);
        }
        if occ.len() > start {
            docs.push(DocMatch {
                index,
                timestamp: cp.timestamp,
                lens,
                end: occ.len(),
            });
        }
    }
    give_back(scanner);
    Pass {
        terms: m.terms,
        docs,
        occurrences: occ,
        avg_len: average_lengths(totals, checkpoints.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::search;
    use crate::hit::Hit;
    use crate::lanes::each_lanes;
    use crate::planes::Filter;
    use crate::query::Query;
    use crate::reference::eval_corpus;
    use crate::text::tokenize;

    #[test]
    fn reused_scratch_gives_the_same_results() {
        // A search on a thread that has just run a larger, different search (so its scratch
        // tables are big and full of another query's verdicts) equals the same search on a
        // fresh thread, bit for bit.
        let big = eval_corpus(3000);
        let small = eval_corpus(60);
        let opts = SearchOptions::default();
        let bits = |h: Vec<Hit>| -> Vec<(usize, u32)> {
            h.iter().map(|h| (h.index, h.score.to_bits())).collect()
        };
        for q in ["lazy dfa rolover bug", "regex syntax", "topic12 modul"] {
            let (q2, cps, o) = (q.to_string(), small.clone(), opts.clone());
            let fresh = std::thread::spawn(move || bits(search(&Query::parse(&q2), &cps, &o)))
                .join()
                .unwrap();
            search(&Query::parse("src module part topic"), &big, &opts);
            assert_eq!(bits(search(&Query::parse(q), &small, &opts)), fresh, "{q}");
        }
    }

    /// A classifier that matches every token (its verdict: its number in order of sight).
    #[derive(Default)]
    struct Everything(Vec<Vec<u8>>);

    impl Classify for Everything {
        fn classify_new(&mut self, token: &[u8]) -> u32 {
            self.classify(token)
        }
        fn classify(&mut self, token: &[u8]) -> u32 {
            let i = self.0.iter().position(|t| t == token).unwrap_or_else(|| {
                self.0.push(token.to_vec());
                self.0.len() - 1
            });
            i as u32
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        /// A checkpoint scanned as one text gives, field by field, the tokens of
        /// `tokenize` on each field (and each value) alone.
        #[test]
        fn checkpoint_text_scans_as_its_fields(
            description in "([a-zA-Z0-9]{0,12}|[ ./_:\n-]{1,2}|[A-Z][a-z]{1,5}|[éÉİß𝔻—]){0,30}",
            tags in proptest::collection::vec("([a-zA-Z0-9]{0,8}|[ ./_\n-]|[éΣ]){0,4}", 0..4),
            branch in proptest::option::of("[a-zA-Z0-9/_-]{0,20}"),
            files in proptest::collection::vec("([a-zA-Z0-9]{0,10}|[./_ -]|[é]){0,6}", 0..5),
            offset in 0usize..70,
        ) {
            let t = goldfish_core::time::parse_utc("2026-01-01T00:00:00Z").unwrap();
            let mut cp = Checkpoint::new("x", t, "ws", format!("{}{description}", "a ".repeat(offset)));
            cp.tags = tags;
            cp.branch = branch;
            cp.files = files;
            let mut text = String::new();
            let (len, fields) = checkpoint_text(&cp, &mut text, ZEROS);
            let mut results = Vec::new();
            each_lanes!(lanes => {
                let mut c = Everything::default();
                let mut out = Vec::new();
                let counts = Scanner::new()
                    .scan_fields(lanes, &text, len, fields, true, &Filter::all(), &mut c, &mut out);
                let got: Vec<(Vec<u8>, u8)> =
                    out.iter().map(|&(v, f)| (c.0[v as usize].clone(), f)).collect();
                results.push((counts, got));
            });
            let (title, body) = cp.description.split_once('\n').unwrap_or((&cp.description, ""));
            let branch = cp.branch.clone().unwrap_or_default();
            let fields: [Vec<&str>; FIELDS] = [
                vec![title],
                vec![body],
                cp.tags.iter().map(String::as_str).collect(),
                vec![&branch],
                cp.files.iter().map(String::as_str).collect(),
            ];
            let (mut want, mut want_counts) = (Vec::new(), [0u32; FIELDS]);
            for (f, values) in fields.iter().enumerate() {
                for v in values {
                    tokenize(v, &mut Vec::new(), |tok| {
                        want_counts[f] += 1;
                        want.push((tok.to_vec(), f as u8));
                    });
                }
            }
            for (counts, got) in results {
                proptest::prop_assert_eq!(counts, want_counts);
                proptest::prop_assert_eq!(&got, &want);
            }
        }
    }
}
