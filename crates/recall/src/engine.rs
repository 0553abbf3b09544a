//! The search engine: BM25F over fuzzily expanded query terms, with a coverage factor and a
//! relative cut-off. Pure: it takes checkpoints in memory and returns ranked indices.
//!
//! How a search runs (all per call, because recall searches a freshly read set; no token,
//! verdict or result is kept across calls — only the allocations of the per-call tables are
//! reused by the next search on the same thread, see [`take_scanner`]):
//!
//! 1. One pass over the checkpoints finds the tokens of every field with the [`Scanner`]
//!    (64 bytes at a time) and counts each towards its field's length (BM25 needs them
//!    all). Each *distinct* token is classified once, on its first sighting (a per-call memo
//!    remembers the verdict): a cheap *necessary* condition for matching some query word
//!    ([`Probe::may_match`]: first bytes, length, and which letters it adds or lacks), then
//!    a comparison with every query word: exact match, same stem, prefix in either
//!    direction, or a bounded Damerau (OSA) edit distance, each with a similarity factor
//!    below 1. Document frequencies are counted for matched terms only, and each document
//!    keeps only its matched `(term, field)` occurrences and its field lengths. Before any
//!    token is looked up, the scanner drops the tokens that fail a necessary condition for
//!    any match, tested on 64 bytes at once ([`scan_filter`]): most tokens of a text.
//! 2. Each query word keeps its [`MAX_EXPANSIONS`] most similar terms (ties in first-seen
//!    order). Only documents that matched something are scored: per query word, the best
//!    BM25F score among that word's expansions, scaled by the similarity.
//! 3. The sum is multiplied by the square of the share of the query's weight (IDF) that the
//!    document matched; documents matching less than [`SearchOptions::min_coverage`] of it,
//!    or scoring under [`SearchOptions::relative_cutoff`] of the best, are dropped.
//! 4. Ties are broken by recency (newer first), then by input order.

use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use goldfish_store::Checkpoint;

use crate::ahead;
use crate::lanes::{self, Lanes, WithLanes};
use crate::scan::{Classify, Filter, NONE, PAD, Scanner};
use crate::text::{is_stop_word, letter_bit, letter_mask, osa_within, stem, tokenize};

/// How much a match in each field counts. The defaults are Goldfish v4's fuse.js keys.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct FieldWeights {
    /// The description, title and body alike. Default 2.
    pub description: f32,
    /// Tags. Default 1.
    pub tags: f32,
    /// The git branch. Default 0.5.
    pub branch: f32,
    /// Changed file paths. Default 0.3.
    pub files: f32,
}

impl Default for FieldWeights {
    fn default() -> Self {
        FieldWeights {
            description: 2.0,
            tags: 1.0,
            branch: 0.5,
            files: 0.3,
        }
    }
}

/// Tuning knobs of [`search`]. The defaults were chosen on the evaluation set in
/// `tests/fixtures/`; change them only with a measurement.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SearchOptions {
    /// Field weights.
    pub weights: FieldWeights,
    /// Whether to expand query words to similar vocabulary terms (typos, stems, prefixes).
    /// With `false` the engine is plain BM25F. Default `true`.
    pub fuzzy: bool,
    /// A document must match at least this share (0–1) of the query's total IDF weight.
    /// Default 0.5.
    pub min_coverage: f32,
    /// Documents scoring below this share (0–1) of the best score are dropped. Default 0.2.
    pub relative_cutoff: f32,
    /// Vocabulary terms less similar than this (0–1) to a query word are ignored; a term
    /// with no similarity at all (0) never matches, whatever this is. Default 0.5.
    pub min_similarity: f32,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            weights: FieldWeights::default(),
            fuzzy: true,
            min_coverage: 0.5,
            relative_cutoff: 0.2,
            min_similarity: 0.5,
        }
    }
}

/// One search result: which checkpoint (an index into the searched slice) and how well it
/// matched (higher is better; only comparable within one search).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Hit {
    /// Index of the checkpoint in the slice given to [`search`].
    pub index: usize,
    /// Relevance score, greater than zero.
    pub score: f32,
}

/// A parsed query: its folded words, stop words removed (unless nothing else is left),
/// duplicates removed, at most [`Query::MAX_TERMS`] of them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    terms: Vec<String>,
}

impl Query {
    /// Words beyond this many are ignored: a query is a few words, not a document.
    pub const MAX_TERMS: usize = 32;

    /// Parses free text into a query. Never fails; a query without words matches nothing.
    pub fn parse(text: &str) -> Query {
        let mut all: Vec<String> = Vec::new();
        let mut buf = Vec::new();
        tokenize(text, &mut buf, |t| {
            let s = String::from_utf8_lossy(t).into_owned();
            if !all.contains(&s) {
                all.push(s);
            }
        });
        let content: Vec<String> = all
            .iter()
            .filter(|t| !is_stop_word(t.as_bytes()))
            .cloned()
            .collect();
        let mut terms = if content.is_empty() { all } else { content };
        terms.truncate(Self::MAX_TERMS);
        Query { terms }
    }

    /// The folded words that will be searched for.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// Whether the query has no words (it then matches nothing).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// Searches `checkpoints` for `query` and returns the matches, best first.
///
/// Returns an empty vector when nothing is close enough; never panics, whatever the query.
///
/// # Example
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use goldfish_recall::{search, Query, SearchOptions};
/// use goldfish_store::Checkpoint;
///
/// let t = Utc.with_ymd_and_hms(2025, 10, 13, 9, 0, 0).unwrap();
/// let cps = vec![
///     Checkpoint::new("a", t, "ws", "Refactored database queries"),
///     Checkpoint::new("b", t, "ws", "Fixed the migration script"),
/// ];
/// let hits = search(&Query::parse("migratoin"), &cps, &SearchOptions::default());
/// assert_eq!(hits.len(), 1);
/// assert_eq!(hits[0].index, 1);
/// ```
pub fn search(query: &Query, checkpoints: &[Checkpoint], opts: &SearchOptions) -> Vec<Hit> {
    search_by(query, checkpoints, opts, |work| lanes::dispatch(work))
}

/// [`search`], with the pass run by `run` (the tests run it with each [`Lanes`]).
fn search_by(
    query: &Query,
    checkpoints: &[Checkpoint],
    opts: &SearchOptions,
    run: impl FnOnce(PassWork<'_>) -> Pass,
) -> Vec<Hit> {
    if query.is_empty() || checkpoints.is_empty() {
        return Vec::new();
    }
    let q_len = query.terms.len();
    let words: Vec<Word> = query
        .terms
        .iter()
        .enumerate()
        .map(|(qi, q)| Word::new(q, qi + 1 == q_len))
        .collect();
    let pass = run(PassWork {
        words: &words,
        checkpoints,
        opts,
    });
    pass.score(q_len, checkpoints, opts)
}

/// [`Pass::run`] as work for [`lanes::dispatch`].
struct PassWork<'a> {
    words: &'a [Word],
    checkpoints: &'a [Checkpoint],
    opts: &'a SearchOptions,
}

impl WithLanes for PassWork<'_> {
    type Output = Pass;
    #[inline(always)]
    fn run<L: Lanes>(self, lanes: L) -> Pass {
        Pass::run(lanes, self.words, self.checkpoints, self.opts)
    }
}

/// Number of indexed fields: title, body, tags, branch, files.
const FIELDS: usize = 5;
/// BM25 length normalisation per field.
const B: [f32; FIELDS] = [0.5, 0.75, 0.5, 0.0, 0.75];
/// BM25 term-frequency saturation.
const K1: f32 = 1.2;
/// Expansions kept per query word (the most similar ones).
const MAX_EXPANSIONS: usize = 64;

/// A fast, non-cryptographic hash for short byte strings (the `FxHash` of rustc).
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes(c.try_into().expect("chunks_exact yields 8 bytes"));
            h = (h.rotate_left(5) ^ v).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
        self.0 = h;
    }
    fn write_usize(&mut self, i: usize) {
        self.write(&i.to_le_bytes());
    }
    fn finish(&self) -> u64 {
        // The multiply leaves the entropy in the high bits, and the table takes its bucket
        // from the low ones: rotate them down (as rustc-hash 2 does).
        self.0.rotate_left(26)
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// The letters [`stem`] strips (`-s`, `-ing`, `-ed`, `-ion` of `-tion`, `-e`, `-ies`/`-ied`)
/// or writes (`y`): two words with the same stem differ only in these.
const SUFFIX_LETTERS: u32 = {
    let mut m = 0u32;
    let letters = b"singedoy";
    let mut i = 0;
    while i < letters.len() {
        m |= letter_bit(letters[i]);
        i += 1;
    }
    m
};

/// How many edits [`similarity`]'s typo test allows in a word of `len` bytes.
fn allowed_edits(len: usize) -> u32 {
    if len >= 8 {
        2
    } else if len >= 4 {
        1
    } else {
        0
    }
}

/// The first four bytes of `v` as one little-endian word (padded with its last byte).
#[inline]
fn head4(v: &[u8]) -> u32 {
    let Some(last) = v.len().checked_sub(1) else {
        return 0;
    };
    // Past the end, the last byte again (no branch, no `memcpy` call): the prefilter only
    // compares head bytes a token has.
    let b = |k: usize| v[k.min(last)];
    u32::from_le_bytes([b(0), b(1), b(2), b(3)])
}

/// A token being classified: its bytes, [`head4`] and [`letter_mask`].
struct Token<'t> {
    bytes: &'t [u8],
    head: u32,
    mask: u32,
}

impl<'t> Token<'t> {
    #[inline]
    fn new(bytes: &'t [u8]) -> Token<'t> {
        Token {
            bytes,
            head: head4(bytes),
            mask: letter_mask(bytes),
        }
    }
}

/// Whether `bits` has at most `n` bits set (`n` ≤ 2; cheaper than a popcount without the
/// instruction, which the baseline x86-64 target lacks).
#[inline]
fn at_most(bits: u32, n: u32) -> bool {
    let one_less = bits & bits.wrapping_sub(1);
    let two_less = one_less & one_less.wrapping_sub(1);
    [bits, one_less, two_less][n.min(2) as usize] == 0
}

/// A query word prepared for matching against the tokens of the documents.
struct Word {
    bytes: Vec<u8>,
    stem: Vec<u8>,
    is_last: bool,
    probe: Probe,
}

impl Word {
    fn new(q: &str, is_last: bool) -> Word {
        let bytes = q.as_bytes().to_vec();
        let mut buf = [0u8; 64];
        let stem = stem(&bytes, &mut buf).to_vec();
        let stem_edits = if stem.len() >= 5 {
            allowed_edits(stem.len())
        } else {
            0
        };
        Word {
            probe: Probe {
                head: head4(&bytes),
                mask: letter_mask(&bytes),
                len: bytes.len(),
                max_edits: allowed_edits(bytes.len()).max(stem_edits),
            },
            bytes,
            stem,
            is_last,
        }
    }

    /// See [`Probe::may_match`].
    #[inline]
    fn may_match(&self, v: &Token<'_>) -> bool {
        self.probe.may_match(v)
    }
}

/// What the prefilter needs of a query word, packed for the loop over every token.
#[derive(Debug, Clone, Copy)]
struct Probe {
    /// [`head4`] of the word.
    head: u32,
    /// [`letter_mask`] of the word.
    mask: u32,
    len: usize,
    /// The most edits any typo branch of [`similarity`] allows for this word.
    max_edits: u32,
}

impl Probe {
    /// A cheap necessary condition for `similarity(q, qs, v, _) > 0`: false means the token
    /// cannot match this word, true that it may.
    ///
    /// Every branch of [`similarity`] is covered: a word of at most five bytes only matches
    /// tokens with its first byte (exact, prefixes, same stem, and its typo rule); the prefix
    /// branches imply equal first three or four bytes, and so does a stem of at least five
    /// bytes that begins the word (the stemmer may rewrite only its last byte, so the token
    /// begins with the stem's first four); everything else needs lengths within
    /// four, and the token may neither bring nor lose more than `max_edits` distinct bytes
    /// outside the stemmer's suffix letters (an edit adds or removes at most one distinct
    /// byte; two words with the same stem differ only in suffix letters).
    #[inline]
    fn may_match(&self, v: &Token<'_>) -> bool {
        let (lq, lv) = (self.len, v.bytes.len());
        let diff = self.head ^ v.head;
        // Evaluated without branches (`&`, `|` on bools): which way a token goes is
        // unpredictable, and a mispredicted branch costs more than the whole test. Equal
        // heads mean equal leading bytes only where both words have them; each test only
        // looks at bytes both have.
        let first = (lq > 5) | (diff & 0xff == 0);
        let near = lq.abs_diff(lv) <= 4;
        let prefix = (lq >= 3) & (lv > lq) & (diff & 0x00ff_ffff == 0)
            | (lv >= 4) & (lq > lv) & (diff == 0)
            | (lv >= 5) & (lq > 5) & (diff == 0) & near;
        let letters = at_most(v.mask & !self.mask & !SUFFIX_LETTERS, self.max_edits)
            & at_most(self.mask & !v.mask & !SUFFIX_LETTERS, self.max_edits);
        first & (prefix | near & letters)
    }
}

/// A necessary condition for a token to match one of `words` (see [`Filter`]), which lets the
/// scanner skip most tokens without looking them up.
///
/// Every way [`Matcher::lookup`] can match a token `v` to a word `q` (with stem `qs`) is
/// covered:
/// - equality, and every branch of [`similarity`] for a word of at most five bytes (and every
///   word without `fuzzy`): `v` begins with `q`'s first byte;
/// - `q` begins `v` (`q` of at least three bytes), or `v` of at least four bytes begins `q`:
///   `v` contains `q[..3]`;
/// - equal stems of at least three bytes: [`stem`] keeps a prefix and may rewrite its last
///   byte, so `v` begins with `qs` less its last byte, which begins `q`: `v` contains
///   `q[..3]`, or `q[..2]` when `qs` has three bytes;
/// - `v`'s stem of at least five bytes begins `q` (a slip in the ending): `v` begins with that
///   stem's first four bytes, which begin `q`, so `v` contains `q[..3]` (and `q[..2]`);
/// - a typo, at most `k` edits of `q` (or of `qs` against `v`'s stem): see [`gap_pieces`];
///   a piece of the stem that ends in `y` is also looked for with `i` (`copies` → `copy`).
///
/// A similarity of zero is no match, whatever [`SearchOptions::min_similarity`] is.
fn scan_filter(words: &[Word], opts: &SearchOptions) -> Filter {
    let mut first = Vec::new();
    let mut pieces: Vec<Vec<u8>> = Vec::new();
    for w in words {
        let (q, qs) = (&w.bytes[..], &w.stem[..]);
        let Some(&b0) = q.first() else {
            return Filter::all();
        };
        if !opts.fuzzy || q.len() <= 5 {
            first.push(b0);
            continue;
        }
        pieces.push(q[..if qs.len() == 3 { 2 } else { 3 }].to_vec());
        gap_pieces(q, allowed_edits(q.len()), &mut pieces);
        if qs.len() >= 5 {
            let from = pieces.len();
            gap_pieces(qs, allowed_edits(qs.len()), &mut pieces);
            for i in from..pieces.len() {
                if let Some((b'y', rest)) = pieces[i].split_last() {
                    pieces.push([rest, b"i"].concat());
                }
            }
        }
    }
    let pieces: Vec<&[u8]> = pieces.iter().map(Vec::as_slice).collect();
    Filter::new(&first, &pieces)
}

/// Pieces of `q`, one of which every string within `k` edits of `q` (insertions, deletions,
/// substitutions, transpositions of neighbours: [`osa_within`]) contains: `k + 1` pieces of at
/// most three bytes with a byte left out between each two. An edit touches at most one piece
/// — a transposition's two bytes cannot lie in two pieces with a byte between them, and an
/// insertion breaks at most the piece around it — so `k` edits leave one piece whole, in
/// order, and contiguous. Adds nothing for `k = 0` (no typo is allowed), and an empty piece,
/// which every token contains, when `q` is too short to leave `k + 1` pieces (never for the
/// edits [`allowed_edits`] gives: one from four bytes, two from eight).
fn gap_pieces(q: &[u8], k: u32, pieces: &mut Vec<Vec<u8>>) {
    let k = k as usize;
    if k == 0 {
        return;
    }
    let n = q.len().saturating_sub(k);
    if n < k + 1 {
        pieces.push(Vec::new());
        return;
    }
    let (base, extra) = (n / (k + 1), n % (k + 1));
    let mut at = 0;
    for i in 0..=k {
        let len = base + usize::from(i < extra);
        pieces.push(q[at..at + len.min(3)].to_vec());
        at += len + 1;
    }
}

/// A token that matches at least one query word.
struct Term {
    /// Documents containing it.
    df: u32,
    /// The last document counted in `df`.
    last_doc: u32,
    /// `(query word, similarity)`, in query order.
    matches: Vec<(usize, f32)>,
}

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
    seen: FxMap<Box<[u8]>, u32>,
    /// Matched terms in first-seen order (the order ties between expansions are broken by).
    terms: Vec<Term>,
}

impl<'a> Matcher<'a> {
    fn new(words: &'a [Word], opts: &'a SearchOptions) -> Matcher<'a> {
        let mut first = [false; 256];
        let mut long = Vec::new();
        for w in words {
            if opts.fuzzy && w.bytes.len() > 5 {
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
            seen: FxMap::default(),
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
            if w.bytes == tok {
                matches.push((qi, 1.0));
            } else if self.opts.fuzzy && w.may_match(v) {
                let sim = similarity(&w.bytes, &w.stem, tok, w.is_last);
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

/// Writes `cp` to `out` as one text for [`Scanner::scan_fields`] (with `title`), and returns
/// its length and where its fields begin: the description (its title, then its body, which
/// the scanner finds after the first newline), the tags, the branch and the files. Each field
/// follows a newline and each value a space, separators that make its tokens those of each
/// field, and of each value, alone. [`PAD`] zeros follow, which spare the scanner a copy of
/// the last window.
fn checkpoint_text(cp: &Checkpoint, out: &mut String) -> (usize, [usize; FIELDS]) {
    out.clear();
    out.push_str(&cp.description);
    out.push('\n');
    let tags = out.len();
    for tag in &cp.tags {
        out.push_str(tag);
        out.push(' ');
    }
    out.push('\n');
    let branch = out.len();
    out.push_str(cp.branch.as_deref().unwrap_or(""));
    out.push('\n');
    let files = out.len();
    for file in &cp.files {
        out.push_str(file);
        out.push(' ');
    }
    let len = out.len();
    out.push_str(ZEROS);
    (len, [0, tags, tags, branch, files])
}

/// A document that contains at least one matched term.
struct DocMatch {
    index: usize,
    /// Tokens per field (all of them, matched or not).
    lens: [u32; FIELDS],
    /// End of its occurrences in the occurrence list (the start is the previous one's end).
    end: usize,
}

/// Per call: one pass over the documents that keeps only what can match the query —
/// matched terms with their document frequencies, and per matching document its field
/// lengths and `(term, field)` occurrences — plus the average field lengths.
struct Pass {
    terms: Vec<Term>,
    docs: Vec<DocMatch>,
    occurrences: Vec<(u32, u8)>,
    avg_len: [f32; FIELDS],
}

impl Pass {
    // Several per-field arrays are indexed by the field number together.
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    fn run<L: Lanes>(
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
            let (len, fields) = checkpoint_text(cp, &mut joined);
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
                    lens,
                    end: occ.len(),
                });
            }
        }
        give_back(scanner);
        let n = checkpoints.len();
        let mut avg_len = [0.0; FIELDS];
        for f in 0..FIELDS {
            avg_len[f] = (totals[f] as f32 / n.max(1) as f32).max(1.0);
        }
        Pass {
            terms: m.terms,
            docs,
            occurrences: occ,
            avg_len,
        }
    }

    fn idf(&self, term: usize, n: f32) -> f32 {
        let df = self.terms[term].df as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    // Several per-field arrays are indexed by the field number together.
    #[allow(clippy::needless_range_loop)]
    fn score(&self, q_len: usize, checkpoints: &[Checkpoint], opts: &SearchOptions) -> Vec<Hit> {
        let n = checkpoints.len() as f32;
        // Expansion: for every query word, the matched terms it stands for, in term order.
        let mut found: Vec<Vec<(u32, f32)>> = vec![Vec::new(); q_len];
        for (t, term) in self.terms.iter().enumerate() {
            for &(qi, sim) in &term.matches {
                found[qi].push((t as u32, sim));
            }
        }
        // Per term, the (query word, similarity) pairs it serves after the cut to the
        // `MAX_EXPANSIONS` most similar expansions of each word.
        let mut kept: Vec<Vec<(usize, f32)>> = vec![Vec::new(); self.terms.len()];
        let mut q_weight = vec![0.0f32; q_len];
        let unseen_idf = (1.0 + (n + 0.5) / 0.5).ln();
        let mut any = false;
        for (qi, list) in found.iter_mut().enumerate() {
            if list.len() > MAX_EXPANSIONS {
                list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                list.truncate(MAX_EXPANSIONS);
            }
            let mut best_weight = 0.0f32;
            for &(t, sim) in list.iter() {
                best_weight = best_weight.max(sim * self.idf(t as usize, n));
                kept[t as usize].push((qi, sim));
                any = true;
            }
            // A word found nowhere still counts, at half weight, against every document:
            // "file locking" with no "locking" anywhere must not become a search for "file".
            q_weight[qi] = if best_weight > 0.0 {
                best_weight
            } else {
                0.5 * unseen_idf
            };
        }
        if !any {
            return Vec::new();
        }
        let total_weight: f32 = q_weight.iter().sum();
        let term_idf: Vec<f32> = (0..self.terms.len()).map(|t| self.idf(t, n)).collect();
        let w = opts.weights;
        let field_w = [w.description, w.description, w.tags, w.branch, w.files];

        let mut tf: Vec<[f32; FIELDS]> = vec![[0.0; FIELDS]; self.terms.len()];
        let mut touched: Vec<usize> = Vec::new();
        let mut best = vec![0.0f32; q_len];
        let mut strong = vec![false; q_len];
        let mut hits: Vec<Hit> = Vec::new();
        let mut start = 0;
        for doc in &self.docs {
            for &(t, f) in &self.occurrences[start..doc.end] {
                let t = t as usize;
                if kept[t].is_empty() {
                    continue;
                }
                if tf[t].iter().all(|&x| x == 0.0) {
                    touched.push(t);
                }
                tf[t][usize::from(f)] += 1.0;
            }
            start = doc.end;
            if touched.is_empty() {
                continue;
            }
            let mut norm = [0.0f32; FIELDS];
            for f in 0..FIELDS {
                let len = doc.lens[f] as f32;
                norm[f] = 1.0 - B[f] + B[f] * len / self.avg_len[f];
            }
            best.iter_mut().for_each(|b| *b = 0.0);
            strong.iter_mut().for_each(|s| *s = false);
            for &t in &touched {
                // A word found only in file paths, and only approximately ("locking" in
                // `Cargo.lock`), adds to the score but does not count as covering the word.
                let outside_files = tf[t][..FIELDS - 1].iter().any(|&x| x > 0.0);
                let mut tfw = 0.0;
                for f in 0..FIELDS {
                    tfw += field_w[f] * tf[t][f] / norm[f];
                }
                let sat = tfw * (K1 + 1.0) / (tfw + K1);
                for &(qi, sim) in &kept[t] {
                    let v = sim * term_idf[t] * sat;
                    if v > best[qi] {
                        best[qi] = v;
                    }
                    strong[qi] |= outside_files || sim >= 1.0;
                }
                tf[t] = [0.0; FIELDS];
            }
            touched.clear();
            let mut score = 0.0;
            let mut covered = 0.0;
            for qi in 0..q_len {
                score += best[qi];
                if strong[qi] {
                    covered += q_weight[qi];
                }
            }
            let coverage = if total_weight > 0.0 {
                covered / total_weight
            } else {
                0.0
            };
            if coverage < opts.min_coverage || score <= 0.0 {
                continue;
            }
            hits.push(Hit {
                index: doc.index,
                score: score * coverage * coverage,
            });
        }
        let top = hits.iter().map(|h| h.score).fold(0.0f32, f32::max);
        hits.retain(|h| h.score >= top * opts.relative_cutoff);
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| {
                    checkpoints[b.index]
                        .timestamp
                        .cmp(&checkpoints[a.index].timestamp)
                })
                .then(a.index.cmp(&b.index))
        });
        hits
    }
}

/// Endings that make another form of the same word: inflections, and the nouns of verbs.
const ENDINGS: [&[u8]; 10] = [
    b"s", b"es", b"ed", b"ing", b"ings", b"ion", b"ions", b"ation", b"ations", b"er",
];

/// Whether `rest`, the bytes of a query word after a term's stem, is a slip in one of the
/// [`ENDINGS`]: two to four bytes, at most one edit from it. (One byte after the stem is the
/// ending itself — the stems are then equal — or any byte at all: too loose.)
fn is_ending_slip(rest: &[u8]) -> bool {
    (2..=4).contains(&rest.len()) && ENDINGS.iter().any(|e| osa_within(rest, e, 1).is_some())
}

/// How similar a vocabulary term `v` is to the query word `q` (with stem `qs`), 0–1;
/// exact equality is handled by the caller and scores 0 here only if nothing else applies.
fn similarity(q: &[u8], qs: &[u8], v: &[u8], is_last: bool) -> f32 {
    if v == q {
        return 1.0;
    }
    let (lq, lv) = (q.len(), v.len());
    let mut sim = 0.0f32;
    // Partial words: the query word begins a longer term ("auth" → "authentication"),
    // more readily for the last word, which may still be being typed.
    if lq >= 3 && lv > lq && v.starts_with(q) {
        let base = if is_last { 0.6 } else { 0.5 };
        sim = sim.max(base + 0.35 * lq as f32 / lv as f32);
    }
    // The other way: a shorter term begins the query word ("authentication" → "auth").
    if lv >= 4 && lq > lv && q.starts_with(v) {
        sim = sim.max(0.45 + 0.35 * lv as f32 / lq as f32);
    }
    if lq.abs_diff(lv) > 4 {
        return sim;
    }
    let mut vs_buf = [0u8; 64];
    let vs = stem(v, &mut vs_buf);
    if vs.len() >= 3 && vs == qs {
        return sim.max(0.92);
    }
    // A slip in the ending: the term's stem of at least five bytes begins the query word,
    // whose rest is at most one edit from an inflection's ending ("migratoin" → "migrated",
    // stem "migrat", "oin" ~ "ion"; not "checkout" → "checked"). Scored as the shorter term
    // that begins the word would be. (The stemmer strips at most five bytes, so the lengths
    // are within four, as above.)
    let ls = vs.len();
    if ls >= 5 && lq > ls && q.starts_with(vs) && is_ending_slip(&q[ls..]) {
        sim = sim.max(0.45 + 0.35 * ls as f32 / lq as f32);
    }
    // Typos: a bounded edit distance, allowing more edits in longer words. Short words
    // must keep their first letter ("lock" is not a typo of "block"). The stems are compared
    // too, with the allowance and the penalty of the stem's own length.
    let typo = |a: &[u8], b: &[u8]| -> Option<f32> {
        let la = a.len();
        let max = if la >= 8 {
            2
        } else if la >= 4 {
            1
        } else {
            0
        };
        if max == 0 || b.is_empty() || (la <= 5 && a[0] != b[0]) {
            return None;
        }
        let d = osa_within(a, b, max)?;
        (d > 0).then(|| (1.0 - 1.2 * d as f32 / la as f32).max(0.3))
    };
    // Stems shorter than five letters are too ambiguous for typos ("sale" ~ "same").
    let stem_typo = || if qs.len() >= 5 { typo(qs, vs) } else { None };
    if let Some(mut t) = typo(q, v).or_else(stem_typo) {
        // A different first letter is a rarer slip than one further in.
        if q.first() != v.first() {
            t *= 0.85;
        }
        sim = sim.max(t);
    }
    sim
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lanes::{agreed, each_lanes};
    use chrono::{TimeZone, Utc};

    fn cp(id: &str, minute: u32, desc: &str, tags: &[&str]) -> Checkpoint {
        let t = Utc.with_ymd_and_hms(2025, 10, 13, 9, minute, 0).unwrap();
        let mut c = Checkpoint::new(id, t, "test", desc);
        c.tags = tags.iter().map(|s| s.to_string()).collect();
        c
    }

    fn ids(q: &str, cps: &[Checkpoint]) -> Vec<String> {
        search(&Query::parse(q), cps, &SearchOptions::default())
            .into_iter()
            .map(|h| cps[h.index].id.clone())
            .collect()
    }

    /// Each query of `table` finds the checkpoints with its ids, in that order.
    fn assert_finds(cps: &[Checkpoint], table: &[(&str, &[&str])]) {
        for (q, want) in table {
            assert_eq!(ids(q, cps), *want, "query {q:?}");
        }
    }

    #[test]
    fn seed_three_checkpoints() {
        let cps = vec![
            cp("auth", 0, "Fixed auth bug", &["bug-fix", "auth"]),
            cp("oauth", 1, "Added OAuth2 support", &["feature", "auth"]),
            cp(
                "db",
                2,
                "Refactored database queries",
                &["refactor", "database"],
            ),
        ];
        let table: &[(&str, &[&str])] = &[
            ("authentication", &["auth", "oauth"]),
            ("auth", &["auth", "oauth"]),
            ("datbase", &["db"]),
            ("QUERIES", &["db"]),
            ("refactor databse queries", &["db"]),
            ("kubernetes", &[]),
            ("", &[]),
            ("the", &[]),
        ];
        assert_finds(&cps, table);
    }

    #[test]
    fn typos_and_partials() {
        let cps = vec![
            cp("m", 0, "Ran the database migration", &[]),
            cp("c", 1, "Saved a checkpoint before lunch", &[]),
            cp("x", 2, "Unrelated work on the parser", &[]),
        ];
        let table: &[(&str, &[&str])] = &[
            ("migratoin", &["m"]),
            ("checkpnt", &["c"]),
            ("migr", &["m"]),
            ("MIGRATION", &["m"]),
            ("pârser", &["x"]),
        ];
        assert_finds(&cps, table);
    }

    /// A slip in the ending of a word whose other forms are in the store: the stem "migrat" of
    /// "Migrated" begins "migratoin", whose rest "oin" is a slip of "ion". A stem followed by
    /// another ending ("important", "checkout") is another word.
    #[test]
    fn slips_in_the_ending() {
        let cps = vec![
            cp("m", 0, "Migrated the database schema to v3", &[]),
            cp("i", 1, "Imported the parser module", &[]),
            cp("c", 2, "Checked the release notes", &[]),
            cp("x", 3, "Unrelated work on the docs", &[]),
        ];
        let table: &[(&str, &[&str])] = &[
            ("migratoin", &["m"]),
            ("database migratoin", &["m"]),
            ("parser importign", &["i"]),
            ("importantly", &[]),
            ("important", &[]),
            ("checkout", &[]),
        ];
        assert_finds(&cps, table);
    }

    #[test]
    fn ties_break_by_recency() {
        let cps = vec![
            cp("old", 0, "same words", &[]),
            cp("new", 5, "same words", &[]),
        ];
        assert_eq!(ids("same words", &cps), ["new", "old"]);
    }

    #[test]
    fn query_parse_drops_stop_words() {
        assert_eq!(
            Query::parse("What did we do about the Flaky test?").terms(),
            ["flaky", "test"]
        );
        assert_eq!(Query::parse("the").terms(), ["the"]);
        assert!(Query::parse("  !! ").is_empty());
    }

    /// The engine before the query-driven pass: a vocabulary of every token, each query
    /// word compared with the whole vocabulary. Kept to check that the fast path returns the
    /// same hits with bit-identical scores.
    // Several per-field arrays are indexed by the field number together.
    #[allow(clippy::needless_range_loop)]
    fn reference_search(query: &Query, cps: &[Checkpoint], opts: &SearchOptions) -> Vec<Hit> {
        if query.is_empty() || cps.is_empty() {
            return Vec::new();
        }
        let mut vocab: HashMap<Vec<u8>, u32> = HashMap::new();
        let mut terms: Vec<Vec<u8>> = Vec::new();
        let mut df: Vec<u32> = Vec::new();
        let mut docs: Vec<[Vec<u32>; FIELDS]> = Vec::new();
        let mut buf = Vec::new();
        for cp in cps {
            let (title, body) = match cp.description.split_once('\n') {
                Some((t, b)) => (t, b),
                None => (cp.description.as_str(), ""),
            };
            let mut fields: [Vec<u32>; FIELDS] = Default::default();
            let texts: [Vec<&str>; FIELDS] = [
                vec![title],
                vec![body],
                cp.tags.iter().map(String::as_str).collect(),
                cp.branch.as_deref().into_iter().collect(),
                cp.files.iter().map(String::as_str).collect(),
            ];
            for f in 0..FIELDS {
                for text in &texts[f] {
                    tokenize(text, &mut buf, |tok| {
                        let id = *vocab.entry(tok.to_vec()).or_insert_with(|| {
                            terms.push(tok.to_vec());
                            df.push(0);
                            (terms.len() - 1) as u32
                        });
                        fields[f].push(id);
                    });
                }
            }
            let mut seen: Vec<u32> = fields.iter().flatten().copied().collect();
            seen.sort_unstable();
            seen.dedup();
            for id in seen {
                df[id as usize] += 1;
            }
            docs.push(fields);
        }
        let n = cps.len() as f32;
        let idf = |t: usize| {
            let df = df[t] as f32;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        };
        let mut avg_len = [0.0f32; FIELDS];
        for f in 0..FIELDS {
            let total: usize = docs.iter().map(|d| d[f].len()).sum();
            avg_len[f] = (total as f32 / cps.len() as f32).max(1.0);
        }
        let q_len = query.terms.len();
        let mut slots: HashMap<u32, Vec<(usize, f32)>> = HashMap::new();
        let mut q_weight = vec![0.0f32; q_len];
        let unseen_idf = (1.0 + (n + 0.5) / 0.5).ln();
        for (qi, q) in query.terms.iter().enumerate() {
            let mut found: Vec<(u32, f32)> = Vec::new();
            if let Some(&id) = vocab.get(q.as_bytes()) {
                found.push((id, 1.0));
            }
            if opts.fuzzy {
                let mut qs_buf = [0u8; 64];
                let qs = stem(q.as_bytes(), &mut qs_buf).to_vec();
                for (id, v) in terms.iter().enumerate() {
                    let sim = similarity(q.as_bytes(), &qs, v, qi + 1 == q_len);
                    if sim > 0.0 && sim >= opts.min_similarity && sim < 1.0 {
                        found.push((id as u32, sim));
                    }
                }
                if found.len() > MAX_EXPANSIONS {
                    found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                    found.truncate(MAX_EXPANSIONS);
                }
            }
            let mut best_weight = 0.0f32;
            for (id, sim) in found {
                best_weight = best_weight.max(sim * idf(id as usize));
                slots.entry(id).or_default().push((qi, sim));
            }
            q_weight[qi] = if best_weight > 0.0 {
                best_weight
            } else {
                0.5 * unseen_idf
            };
        }
        if slots.is_empty() {
            return Vec::new();
        }
        let total_weight: f32 = q_weight.iter().sum();
        let w = opts.weights;
        let field_w = [w.description, w.description, w.tags, w.branch, w.files];
        let mut hits = Vec::new();
        for (d, fields) in docs.iter().enumerate() {
            let mut tf: HashMap<u32, [f32; FIELDS]> = HashMap::new();
            for f in 0..FIELDS {
                for id in &fields[f] {
                    if slots.contains_key(id) {
                        tf.entry(*id).or_default()[f] += 1.0;
                    }
                }
            }
            let mut norm = [0.0f32; FIELDS];
            for f in 0..FIELDS {
                norm[f] = 1.0 - B[f] + B[f] * fields[f].len() as f32 / avg_len[f];
            }
            let mut best = vec![0.0f32; q_len];
            let mut strong = vec![false; q_len];
            for (id, tf) in &tf {
                let outside_files = tf[..FIELDS - 1].iter().any(|&x| x > 0.0);
                let mut tfw = 0.0;
                for f in 0..FIELDS {
                    tfw += field_w[f] * tf[f] / norm[f];
                }
                let sat = tfw * (K1 + 1.0) / (tfw + K1);
                for &(qi, sim) in &slots[id] {
                    best[qi] = best[qi].max(sim * idf(*id as usize) * sat);
                    strong[qi] |= outside_files || sim >= 1.0;
                }
            }
            let mut score = 0.0;
            let mut covered = 0.0;
            for qi in 0..q_len {
                score += best[qi];
                if strong[qi] {
                    covered += q_weight[qi];
                }
            }
            let coverage = if total_weight > 0.0 {
                covered / total_weight
            } else {
                0.0
            };
            if tf.is_empty() || coverage < opts.min_coverage || score <= 0.0 {
                continue;
            }
            hits.push(Hit {
                index: d,
                score: score * coverage * coverage,
            });
        }
        let top = hits.iter().map(|h| h.score).fold(0.0f32, f32::max);
        hits.retain(|h| h.score >= top * opts.relative_cutoff);
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| cps[b.index].timestamp.cmp(&cps[a.index].timestamp))
                .then(a.index.cmp(&b.index))
        });
        hits
    }

    /// The evaluation set's checkpoints, grown to `n` the way the bench grows them (extra
    /// tags `topicN` and paths `src/moduleN/partM.rs`, so some words have hundreds of
    /// expansions and the cut to `MAX_EXPANSIONS` is exercised).
    fn eval_corpus(n: usize) -> Vec<Checkpoint> {
        let text = include_str!("../tests/fixtures/eval_checkpoints.jsonl");
        let base: Vec<Checkpoint> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
                let list = |k: &str| -> Vec<String> {
                    v[k].as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|x| x.as_str().map(String::from))
                                .collect()
                        })
                        .unwrap_or_default()
                };
                let ts = notes_core::time::parse_utc(&s("timestamp")).unwrap();
                let mut c = Checkpoint::new(s("id"), ts, s("workspace"), s("description"));
                c.tags = list("tags");
                c.files = list("files");
                c.branch = Some(s("branch"));
                c
            })
            .collect();
        (0..n)
            .map(|i| {
                let mut c = base[i % base.len()].clone();
                if i >= base.len() {
                    c.tags.push(format!("topic{}", i % 1000));
                    c.files
                        .push(format!("src/module{}/part{}.rs", i % 5000, i % 7));
                }
                c
            })
            .collect()
    }

    fn bits(hits: &[Hit]) -> Vec<(usize, u32)> {
        hits.iter().map(|h| (h.index, h.score.to_bits())).collect()
    }

    /// The engine's hits with each [`Lanes`] this machine has, which must all be the same.
    fn searched(q: &Query, cps: &[Checkpoint], opts: &SearchOptions) -> Vec<(usize, u32)> {
        let mut all = Vec::new();
        each_lanes!(lanes => all.push(bits(&search_by(q, cps, opts, |w| lanes.execute(w)))));
        agreed(all, &format!("query {:?}, {opts:?}", q.terms()))
    }

    fn assert_same(q: &Query, cps: &[Checkpoint], opts: &SearchOptions) {
        let fast = searched(q, cps, opts);
        let slow = reference_search(q, cps, opts);
        assert_eq!(fast, bits(&slow), "query {:?}, {opts:?}", q.terms());
        assert_eq!(bits(&search(q, cps, opts)), fast);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Random checkpoints from a small vocabulary with typos, and queries made of its
        /// words with edits: the engine (filter, scanner, memo) equals the reference engine
        /// bit for bit, with and without fuzzy matching.
        #[test]
        fn random_corpora_match_the_reference_engine(
            docs in proptest::collection::vec(
                (proptest::collection::vec((0usize..40, proptest::collection::vec(
                    (0u8..5, 0usize..64, proptest::sample::select(b"aeiorstyln".to_vec())), 0..2)), 1..12),
                 proptest::collection::vec(0usize..40, 0..3),
                 proptest::collection::vec(0usize..40, 0..3)),
                1..25),
            query in proptest::collection::vec((0usize..40, proptest::collection::vec(
                (0u8..5, 0usize..64, proptest::sample::select(b"aeiorstyln".to_vec())), 0..3)), 1..4),
            cut in 0usize..4,
        ) {
            const WORDS: [&str; 40] = [
                "migration", "migrate", "checkpoint", "checkpoints", "authentication", "auth",
                "rollover", "lazy", "dfa", "bug", "studies", "study", "copied", "copy",
                "database", "datbase", "consolidation", "queries", "query", "string", "sties",
                "parseSince", "saveCheckpoint", "café", "Résumé", "locking", "Cargo.lock",
                "src/main.rs", "feature/x-y", "topic12", "sha256", "v0.1.0", "the", "and",
                "regex", "automata", "captures", "tokenizer", "workspace", "WAL",
            ];
            let word = |(w, edits): &(usize, Vec<(u8, usize, u8)>)| {
                String::from_utf8_lossy(&mutate(WORDS[w % WORDS.len()].as_bytes(), edits)).into_owned()
            };
            let t = notes_core::time::parse_utc("2026-01-01T00:00:00Z").unwrap();
            let cps: Vec<Checkpoint> = docs
                .iter()
                .enumerate()
                .map(|(i, (desc, tags, files))| {
                    let words: Vec<String> = desc.iter().map(word).collect();
                    // A newline somewhere: a title and a body.
                    let at = cut.min(words.len());
                    let text = format!("{}\n{}", words[..at].join(" "), words[at..].join(" "));
                    let mut c = Checkpoint::new(format!("c{i}"), t, "ws", text);
                    c.tags = tags.iter().map(|&w| WORDS[w].to_string()).collect();
                    c.files = files.iter().map(|&w| format!("src/{}.rs", WORDS[w])).collect();
                    c.branch = Some(WORDS[i % WORDS.len()].to_string());
                    c
                })
                .collect();
            let q: Vec<String> = query.iter().map(word).collect();
            let q = Query::parse(&q.join(" "));
            for opts in [
                SearchOptions::default(),
                SearchOptions { fuzzy: false, ..SearchOptions::default() },
                SearchOptions { min_similarity: 0.0, min_coverage: 0.0, relative_cutoff: 0.0, ..SearchOptions::default() },
            ] {
                proptest::prop_assert_eq!(
                    searched(&q, &cps, &opts),
                    bits(&reference_search(&q, &cps, &opts)),
                    "query {:?}", q.terms()
                );
            }
        }
    }

    #[test]
    fn fast_path_equals_the_reference_engine() {
        let cps = eval_corpus(1500);
        let mut queries: Vec<String> = include_str!("../tests/fixtures/eval_queries.jsonl")
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                v["query"].as_str().unwrap().to_string()
            })
            .collect();
        queries.extend(
            [
                "lazy dfa rolover bug",
                "topic",
                "topic12 modul",
                "part3 src module",
                "te",
                "regex syntax",
                "fix",
                "testing tested tests",
                "queries querying",
                "stoptheworld 123",
                "ünïcödé naïve café",
                "parseSince",
                "x",
            ]
            .map(String::from),
        );
        let loose = SearchOptions {
            min_similarity: 0.3,
            min_coverage: 0.0,
            relative_cutoff: 0.0,
            ..SearchOptions::default()
        };
        let plain = SearchOptions {
            fuzzy: false,
            ..SearchOptions::default()
        };
        for text in &queries {
            let q = Query::parse(text);
            assert_same(&q, &cps, &SearchOptions::default());
            assert_same(&q, &cps[..100], &SearchOptions::default());
            assert_same(&q, &cps, &loose);
            assert_same(&q, &cps, &plain);
        }
    }

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

    #[test]
    fn at_most_table() {
        for bits in [0u32, 1, 2, 3, 0x8000_0001, 0b1011, u32::MAX] {
            for n in 0..=2 {
                assert_eq!(at_most(bits, n), bits.count_ones() <= n, "{bits:b} {n}");
            }
        }
    }

    #[test]
    fn prefilter_table() {
        // (query word, token, whether similarity() matches them): every match must pass the
        // prefilter, and the filter must reject the far-off tokens it exists to skip.
        let cases: &[(&str, &str, bool)] = &[
            ("auth", "authentication", true),
            ("authentication", "auth", true),
            ("migratoin", "migration", true),
            ("checkpnt", "checkpoint", true),
            ("queries", "query", true),
            ("query", "queries", true),
            ("migrating", "migration", true),
            ("migration", "migrated", true),
            ("datbase", "database", true),
            ("rolover", "rollover", true),
            ("sha256", "sha265", true),
            ("lock", "block", false),
            ("lazy", "regex", false),
            ("rolover", "automata", false),
            ("dfa", "nfa", false),
            ("consolidaton", "consolidation", true),
            // A slip in the ending: the token's stem begins the word.
            ("migratoin", "migrated", true),
            ("migratoin", "migrations", true),
            ("parallelizaton", "parallelized", true),
            // Equal lengths, and more new letters than edits: only the stem branch admits it.
            ("chunkar", "chunked", true),
        ];
        for &(q, v, matches) in cases {
            let w = Word::new(q, false);
            let sim = similarity(&w.bytes, &w.stem, v.as_bytes(), false);
            assert_eq!(sim > 0.0, matches, "{q} ~ {v}: {sim}");
            assert_eq!(w.may_match(&Token::new(v.as_bytes())), matches, "{q} ~ {v}");
            let filter = scan_filter(std::slice::from_ref(&w), &SearchOptions::default());
            assert!(!matches || filter.passes(v.as_bytes()), "{q} ~ {v}");
        }
    }

    #[test]
    fn scan_filter_table() {
        let opts = SearchOptions::default();
        let filter = |q: &str| {
            scan_filter(
                &Query::parse(q)
                    .terms
                    .iter()
                    .enumerate()
                    .map(|(i, t)| Word::new(t, i + 1 == Query::parse(q).terms.len()))
                    .collect::<Vec<_>>(),
                &opts,
            )
        };
        // (query, tokens that pass, tokens that fail)
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "lazy dfa rolover bug",
                &["lazy", "dfa", "bugs", "rollover", "roll", "over", "xrolx"],
                &["the", "fixed", "automata", "regex", "ro", "ov"],
            ),
            (
                "migratoin",
                &["migration", "migrate", "mig", "rat", "attic", "oin"],
                &["fixed", "the", "store"],
            ),
            (
                "copied",
                &["copies", "copy", "cop", "ied", "bed"],
                &["the", "store", "pie"],
            ),
            // Pieces of a stem that ends in a written y also match with i.
            (
                "studies",
                &["studied", "study", "studio", "tudi"],
                &["fixed", "sample"],
            ),
        ];
        for &(q, pass, fail) in cases {
            let f = filter(q);
            for v in pass {
                assert!(f.passes(v.as_bytes()), "{q}: {v} should pass");
            }
            for v in fail {
                assert!(!f.passes(v.as_bytes()), "{q}: {v} should fail");
            }
        }
        // Matches that only the subtler pieces let through: the stem's piece with `i` for its
        // written `y` (`sxudied` is one edit from the stem `study`, two from `studies`), the
        // two-byte prefix of a three-byte stem, and the third piece of a two-edit word.
        for (q, v) in [
            ("studies", "sxudied"),
            ("stying", "sties"),
            ("migratoin", "xigratxin"),
        ] {
            let w = Word::new(q, true);
            assert!(
                similarity(&w.bytes, &w.stem, v.as_bytes(), true) > 0.0,
                "{q} ~ {v}"
            );
            assert!(scan_filter(&[w], &opts).passes(v.as_bytes()), "{q} ~ {v}");
        }
        // Without fuzzy matching, only the first bytes.
        let exact = SearchOptions {
            fuzzy: false,
            ..SearchOptions::default()
        };
        let words = [Word::new("rolover", true)];
        assert!(scan_filter(&words, &exact).passes(b"rat"));
        assert!(!scan_filter(&words, &exact).passes(b"over"));
    }

    #[test]
    fn gap_pieces_table() {
        let pieces = |q: &str, k| {
            let mut p = Vec::new();
            gap_pieces(q.as_bytes(), k, &mut p);
            p.iter()
                .map(|p| String::from_utf8_lossy(p).into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(pieces("rolover", 1), ["rol", "ver"]);
        assert_eq!(pieces("migratoin", 2), ["mig", "at", "in"]);
        assert_eq!(pieces("consolidaton", 2), ["con", "lid", "ton"]);
        assert_eq!(pieces("abc", 0), Vec::<String>::new());
        assert_eq!(pieces("ab", 1), [""]);
    }

    /// Applies byte edits to `q`: (kind, position, byte) with kinds insert, delete,
    /// substitute, transpose and truncate.
    fn mutate(q: &[u8], edits: &[(u8, usize, u8)]) -> Vec<u8> {
        let mut v = q.to_vec();
        for &(kind, pos, b) in edits {
            let len = v.len();
            match kind {
                0 => v.insert(pos % (len + 1), b),
                1 if len > 0 => {
                    v.remove(pos % len);
                }
                2 if len > 0 => v[pos % len] = b,
                3 if len > 1 => v.swap(pos % (len - 1), pos % (len - 1) + 1),
                4 => v.truncate(pos % (len + 1)),
                _ => {}
            }
        }
        v
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
            let t = notes_core::time::parse_utc("2026-01-01T00:00:00Z").unwrap();
            let mut cp = Checkpoint::new("x", t, "ws", format!("{}{description}", "a ".repeat(offset)));
            cp.tags = tags;
            cp.branch = branch;
            cp.files = files;
            let mut text = String::new();
            let (len, fields) = checkpoint_text(&cp, &mut text);
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        #[test]
        fn every_string_within_k_edits_contains_a_gap_piece(
            q in "[abc]{1,14}",
            edits in proptest::collection::vec((0u8..4, 0usize..64, proptest::sample::select(
                b"abcd".to_vec())), 0..3),
            k in 1u32..3,
        ) {
            let v = mutate(q.as_bytes(), &edits);
            let mut pieces = Vec::new();
            gap_pieces(q.as_bytes(), k, &mut pieces);
            if osa_within(q.as_bytes(), &v, k as usize).is_some() {
                proptest::prop_assert!(
                    pieces.iter().any(|p| v.windows(p.len().max(1)).any(|w| w.starts_with(p))
                        || p.is_empty()),
                    "{:?} ~ {:?}: no piece of {:?}", q, String::from_utf8_lossy(&v), pieces
                );
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]
        #[test]
        fn prefilter_never_rejects_a_match(
            q in "[a-z0-9éü]{0,13}",
            other in "[a-zé0-9]{0,13}",
            edits in proptest::collection::vec((0u8..5, 0usize..64, proptest::sample::select(
                b"abcdegilnorstuy09\xc3\xa9".to_vec())), 0..3),
            suffix in proptest::sample::select(vec![
                "", "s", "es", "ies", "ied", "y", "ing", "ed", "d", "e", "tion", "ion", "ions",
                "ation", "er", "ers", "ly", "ness",
            ]),
            strip in 0usize..5,
            is_last: bool,
        ) {
            let w = Word::new(&q, is_last);
            let filter = scan_filter(std::slice::from_ref(&w), &SearchOptions::default());
            let mut stemmed = [0u8; 64];
            let base = mutate(q.as_bytes(), &edits);
            // Up to four bytes off the end: a slip in the ending, after a stem (see `similarity`).
            let kept = base.len().saturating_sub(strip);
            let mut candidates = vec![
                other.as_bytes().to_vec(),
                base.clone(),
                [&base[..kept], suffix.as_bytes()].concat(),
                [stem(&base, &mut stemmed), suffix.as_bytes()].concat(),
                [q.as_bytes(), suffix.as_bytes()].concat(),
            ];
            candidates.push(mutate(&candidates[2], &edits));
            for v in candidates {
                let sim = similarity(&w.bytes, &w.stem, &v, is_last);
                proptest::prop_assert!(
                    sim <= 0.0 || w.may_match(&Token::new(&v)) && filter.passes(&v),
                    "{:?} ~ {:?}: similarity {} but rejected",
                    q,
                    String::from_utf8_lossy(&v),
                    sim
                );
            }
        }
    }
}
