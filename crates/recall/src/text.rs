//! Text normalisation shared by the index and the query: tokenising, case and accent folding,
//! a light English stemmer, stop words and a bounded edit distance.
//!
//! Everything here works on folded bytes: a token is a run of alphanumeric characters,
//! lowercased, with Latin accents removed (`Café` → `cafe`). Words written in camelCase
//! are also split into their parts (`parseSince` → `parsesince`, `parse`, `since`), so a
//! query for either form finds the other.

/// Calls `emit` with every folded token of `text`, reusing `buf` for the bytes.
///
/// A token is a run of alphanumeric characters of at least two bytes. A camelCase word
/// is emitted whole and then part by part (parts shorter than two bytes are skipped).
// Long: the tokenizer's hot loop, kept whole for speed.
pub(crate) fn tokenize(text: &str, buf: &mut Vec<u8>, mut emit: impl FnMut(&[u8])) {
    buf.clear();
    // Split points (byte offsets into `buf`) of camelCase boundaries within the current token.
    let mut splits: [usize; 8] = [0; 8];
    let mut n_splits = 0usize;
    let mut prev_lower = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // Fast path, at the start of a token: a whole ASCII word (most words) is scanned
        // once. Without capitals it is emitted straight from the input; capitals that start
        // no camelCase part ("Fixed", "README") are lowercased into `buf`. Anything else
        // (camelCase, non-ASCII) goes through the general path below.
        if buf.is_empty() {
            let (j, upper, camel) = scan_ascii_word(bytes, i);
            let ends = bytes.get(j).is_none_or(|&b| b < 0x80);
            if j == i && ends {
                // A separator: what the general path does with it when `buf` is empty.
                i += 1;
                n_splits = 0;
                prev_lower = false;
                continue;
            }
            if ends && !upper {
                if j - i >= 2 {
                    emit(&bytes[i..j]);
                }
                i = j + 1;
                prev_lower = false;
                continue;
            }
            if ends && !camel && !prev_lower && n_splits == 0 {
                if j - i >= 2 {
                    buf.extend(bytes[i..j].iter().map(u8::to_ascii_lowercase));
                    emit(buf);
                    buf.clear();
                }
                i = j + 1;
                continue;
            }
        }
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            if b.is_ascii_alphanumeric() {
                if b.is_ascii_uppercase() {
                    if prev_lower && n_splits < splits.len() {
                        splits[n_splits] = buf.len();
                        n_splits += 1;
                    }
                    prev_lower = false;
                    buf.push(b.to_ascii_lowercase());
                } else {
                    prev_lower = b.is_ascii_lowercase();
                    buf.push(b);
                }
            } else {
                flush(buf, &splits[..n_splits], &mut emit);
                n_splits = 0;
                prev_lower = false;
            }
            continue;
        }
        // Non-ASCII: decode one char (the input is valid UTF-8, so this cannot fail).
        let rest = &text[i..];
        let Some(c) = rest.chars().next() else { break };
        i += c.len_utf8();
        if c.is_alphanumeric() {
            // Only a letter that lowercasing changes starts a camelCase part ('𝔻' has no
            // lowercase, so folding text twice splits it the same way).
            let upper = c.is_uppercase() && c.to_lowercase().next() != Some(c);
            if upper && prev_lower && n_splits < splits.len() {
                splits[n_splits] = buf.len();
                n_splits += 1;
            }
            prev_lower = c.is_lowercase();
            // Lowercasing may add combining marks ('İ' → "i̇"); they are not word characters.
            for lc in c.to_lowercase().filter(|lc| lc.is_alphanumeric()) {
                push_folded(lc, buf);
            }
        } else {
            flush(buf, &splits[..n_splits], &mut emit);
            n_splits = 0;
            prev_lower = false;
        }
    }
    flush(buf, &splits[..n_splits], &mut emit);
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x7` (whose high bits are clear) that lies in `lo..=hi`.
#[inline]
fn bytes_in(x7: u64, lo: u8, hi: u8) -> u64 {
    // No byte overflows: b + 0x80 - lo and b + 0x7f - hi both stay below 0x100.
    (x7 + ONES * u64::from(0x80 - lo)) & !(x7 + ONES * u64::from(0x7f - hi)) & HIGHS
}

/// Scans the run of ASCII letters and digits starting at `i`: where it ends, whether it has
/// a capital, and whether a capital follows a small letter in it (a camelCase boundary).
/// Eight bytes at a time, so a word costs a few instructions and no mispredicted branch.
#[inline]
fn scan_ascii_word(bytes: &[u8], i: usize) -> (usize, bool, bool) {
    let mut j = i;
    let (mut upper, mut camel, mut prev_lower) = (false, false, false);
    while let Some(chunk) = bytes.get(j..j + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("the chunk has eight bytes"));
        let ascii = !x & HIGHS;
        let x7 = x & !HIGHS;
        let lo = bytes_in(x7, b'a', b'z') & ascii;
        let up = bytes_in(x7, b'A', b'Z') & ascii;
        let word = lo | up | (bytes_in(x7, b'0', b'9') & ascii);
        let stop = !word & HIGHS;
        let n = (stop.trailing_zeros() / 8) as usize;
        let within = if n >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * n)) - 1
        };
        let (lo, up) = (lo & within, up & within);
        upper |= up != 0;
        camel |= (lo << 8) & up != 0 || (prev_lower && up & 0x80 != 0);
        if n < 8 {
            return (j + n, upper, camel);
        }
        prev_lower = lo >> 63 != 0;
        j += 8;
    }
    while let Some(&b) = bytes.get(j) {
        if b.is_ascii_lowercase() {
            prev_lower = true;
        } else if b.is_ascii_digit() {
            prev_lower = false;
        } else if b.is_ascii_uppercase() {
            camel |= prev_lower;
            upper = true;
            prev_lower = false;
        } else {
            break;
        }
        j += 1;
    }
    (j, upper, camel)
}

/// The bit of byte `b` in a letter mask: `a`–`z` get bits 0–25, every other byte one of
/// bits 26–31 (collisions only make a mask test weaker, never wrong).
pub(crate) const fn letter_bit(b: u8) -> u32 {
    if b.is_ascii_lowercase() {
        1 << (b - b'a')
    } else {
        1 << (26 + b % 6)
    }
}

/// [`letter_bit`] of every byte value.
const LETTER_BITS: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = letter_bit(i as u8);
        i += 1;
    }
    t
};

/// The set of distinct bytes of `v`, as [`letter_bit`]s.
#[inline]
pub(crate) fn letter_mask(v: &[u8]) -> u32 {
    let Some(last) = v.len().checked_sub(1) else {
        return 0;
    };
    // Eight bytes whatever the length (past the end, the last byte again: OR is idempotent),
    // so a short token costs no loop exit mispredicted on its length.
    let mut m = 0;
    for k in 0..8 {
        m |= LETTER_BITS[usize::from(v[k.min(last)])];
    }
    v.iter()
        .skip(8)
        .fold(m, |m, &b| m | LETTER_BITS[usize::from(b)])
}

fn flush(buf: &mut Vec<u8>, splits: &[usize], emit: &mut impl FnMut(&[u8])) {
    if buf.len() >= 2 {
        emit(buf);
        if !splits.is_empty() {
            let mut start = 0;
            for &s in splits.iter().chain(std::iter::once(&buf.len())) {
                if s - start >= 2 {
                    emit(&buf[start..s]);
                }
                start = s;
            }
        }
    }
    buf.clear();
}

/// Appends the accent-free form of the lowercase char `c` to `buf`: a Latin letter with
/// diacritics (Latin-1 Supplement and Latin Extended-A) becomes its ASCII transliteration
/// (`é` → `e`, `ß` → `ss`, `æ` → `ae`); any other character stays as it is, so that a word in
/// another script is searched as written.
fn push_folded(c: char, buf: &mut Vec<u8>) {
    if ('\u{c0}'..='\u{17f}').contains(&c)
        && let Some(folded) = deunicode::deunicode_char(c)
        && !folded.is_empty()
        && folded
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        buf.extend_from_slice(folded.as_bytes());
        return;
    }
    let mut tmp = [0u8; 4];
    buf.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
}

/// A light English stemmer: enough to make `migration`, `migrate`, `migrated` and
/// `migrating` meet at `migrat`, and plurals meet their singular. Works on folded bytes and
/// returns a prefix of the input, except that `-ies`/`-ied` become `-y` (written to `out`).
pub(crate) fn stem<'a>(t: &'a [u8], out: &'a mut [u8; 64]) -> &'a [u8] {
    let mut s = t;
    // Plurals.
    if s.len() > 4 && (s.ends_with(b"ies") || s.ends_with(b"ied")) && s.len() - 2 <= out.len() {
        let n = s.len() - 3;
        out[..n].copy_from_slice(&s[..n]);
        out[n] = b'y';
        return &out[..n + 1];
    }
    if s.len() > 3
        && s.ends_with(b"s")
        && !s.ends_with(b"ss")
        && !s.ends_with(b"us")
        && !s.ends_with(b"is")
    {
        s = &s[..s.len() - 1];
    }
    // Verb endings.
    if s.len() >= 6 && s.ends_with(b"ing") {
        s = &s[..s.len() - 3];
    } else if s.len() >= 5 && s.ends_with(b"ed") {
        s = &s[..s.len() - 2];
    } else if s.len() >= 6 && s.ends_with(b"tion") {
        s = &s[..s.len() - 3];
    }
    if s.len() >= 5 && s.ends_with(b"e") {
        s = &s[..s.len() - 1];
    }
    s
}

/// The Snowball English (Porter2) stem of a folded token (`rust-stemmers`), or nothing for
/// bytes that are not UTF-8 (a token cut inside a character) and for tokens of more than
/// 64 bytes, which are not words.
pub(crate) fn porter2(t: &[u8]) -> Vec<u8> {
    match std::str::from_utf8(t) {
        Ok(s) if t.len() <= 64 => rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English)
            .stem(s)
            .as_bytes()
            .to_vec(),
        _ => Vec::new(),
    }
}

/// Optimal-string-alignment distance (Damerau–Levenshtein with adjacent transpositions)
/// between `a` and `b`, or `None` when it exceeds `max`. Both are short tokens.
// The three DP rows are indexed by the same column together.
#[allow(clippy::needless_range_loop)]
pub(crate) fn osa_within(a: &[u8], b: &[u8], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    if a.len() > 62 || b.len() > 62 {
        return (a == b).then_some(0);
    }
    let n = b.len();
    // Three rows (two back for transpositions, previous, current), rotated by index so that
    // nothing is copied; distances fit a byte because both tokens are under 63 bytes.
    let mut rows = [[0u8; 64]; 3];
    let (mut p2, mut p1, mut c) = (0usize, 1usize, 2usize);
    for j in 0..=n {
        rows[p1][j] = j as u8;
    }
    for i in 1..=a.len() {
        rows[c][0] = i as u8;
        let mut row_min = i as u8;
        for j in 1..=n {
            let cost = u8::from(a[i - 1] != b[j - 1]);
            let mut v = (rows[p1][j] + 1)
                .min(rows[c][j - 1] + 1)
                .min(rows[p1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(rows[p2][j - 2] + 1);
            }
            rows[c][j] = v;
            row_min = row_min.min(v);
        }
        if usize::from(row_min) > max {
            return None;
        }
        (p2, p1, c) = (p1, c, p2);
    }
    let d = usize::from(rows[p1][n]);
    (d <= max).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut buf = Vec::new();
        tokenize(s, &mut buf, |t| {
            out.push(String::from_utf8_lossy(t).into_owned())
        });
        out
    }

    #[test]
    fn latin_letters_fold_as_the_accent_table_did() {
        // The accent table this crate used before transliterating with deunicode.
        let table = [
            ("àáâãäåāăą", "a"),
            ("æ", "ae"),
            ("çćĉċč", "c"),
            ("ďđð", "d"),
            ("èéêëēĕėęě", "e"),
            ("ĝğġģ", "g"),
            ("ĥħ", "h"),
            ("ìíîïĩīĭįı", "i"),
            ("ĵ", "j"),
            ("ķ", "k"),
            ("ĺļľł", "l"),
            ("ñńņň", "n"),
            ("òóôõöøōŏő", "o"),
            ("œ", "oe"),
            ("ŕŗř", "r"),
            ("śŝşšſ", "s"),
            ("ß", "ss"),
            ("ţťŧ", "t"),
            ("þ", "th"),
            ("ùúûüũūŭůűų", "u"),
            ("ŵ", "w"),
            ("ýÿŷ", "y"),
            ("źżž", "z"),
        ];
        for (chars, want) in table {
            for c in chars.chars() {
                let mut buf = Vec::new();
                push_folded(c, &mut buf);
                assert_eq!(String::from_utf8_lossy(&buf), want, "{c}");
            }
        }
        // Other scripts are searched as written.
        for c in ['д', 'λ', '日', 'ا'] {
            let mut buf = Vec::new();
            push_folded(c, &mut buf);
            assert_eq!(buf, c.to_string().as_bytes(), "{c}");
        }
        assert_eq!(tokens("Café Straße Ærø"), ["cafe", "strasse", "aero"]);
    }

    #[test]
    fn tokenize_table() {
        let cases: &[(&str, &[&str])] = &[
            ("Fixed auth bug", &["fixed", "auth", "bug"]),
            ("src/auth/jwt.ts", &["src", "auth", "jwt", "ts"]),
            ("parseSince(x)", &["parsesince", "parse", "since"]),
            ("Café  RÉSUMÉ", &["cafe", "resume"]),
            ("feature/jwt-refresh", &["feature", "jwt", "refresh"]),
            ("a b c", &[]),
            ("OAuth2 sha256", &["oauth2", "sha256"]),
            ("Straße", &["strasse"]),
            ("", &[]),
        ];
        for (input, want) in cases {
            assert_eq!(tokens(input), *want, "{input:?}");
        }
    }

    #[test]
    fn stem_table() {
        let cases = [
            ("migration", "migrat"),
            ("migrations", "migrat"),
            ("migrate", "migrat"),
            ("migrated", "migrat"),
            ("migrating", "migrat"),
            ("checkpoints", "checkpoint"),
            ("queries", "query"),
            ("bus", "bus"),
            ("class", "class"),
            ("tests", "test"),
        ];
        for (input, want) in cases {
            let mut out = [0u8; 64];
            assert_eq!(stem(input.as_bytes(), &mut out), want.as_bytes(), "{input}");
        }
    }

    #[test]
    fn osa_table() {
        let cases = [
            ("migratoin", "migration", 2, Some(1)),
            ("checkpnt", "checkpoint", 2, Some(2)),
            ("checkpnt", "checkpoint", 1, None),
            ("abc", "abc", 0, Some(0)),
            ("lock", "block", 1, Some(1)),
            ("", "ab", 2, Some(2)),
            ("kitten", "sitting", 2, None),
        ];
        for (a, b, max, want) in cases {
            assert_eq!(osa_within(a.as_bytes(), b.as_bytes(), max), want, "{a} {b}");
        }
    }

    #[test]
    fn letter_mask_table() {
        let naive = |v: &[u8]| v.iter().fold(0, |m, &b| m | letter_bit(b));
        for v in [
            "",
            "a",
            "ab",
            "rolover",
            "abcdefgh",
            "abcdefghi",
            "zz0é9qrstuvwxyz",
        ] {
            assert_eq!(letter_mask(v.as_bytes()), naive(v.as_bytes()), "{v}");
        }
    }

    /// The tokenizer before its eight-bytes-at-a-time fast path, to compare against.
    fn reference_tokenize(text: &str, buf: &mut Vec<u8>, mut emit: impl FnMut(&[u8])) {
        buf.clear();
        // Split points (byte offsets into `buf`) of camelCase boundaries within the current token.
        let mut splits: [usize; 8] = [0; 8];
        let mut n_splits = 0usize;
        let mut prev_lower = false;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            // Fast path: a whole token of lowercase ASCII letters and digits (most words) is
            // emitted straight from the input, without copying.
            if buf.is_empty() {
                let mut j = i;
                while j < bytes.len()
                    && (bytes[j].is_ascii_lowercase() || bytes[j].is_ascii_digit())
                {
                    j += 1;
                }
                if j > i
                    && (j == bytes.len() || (bytes[j] < 0x80 && !bytes[j].is_ascii_alphanumeric()))
                {
                    if j - i >= 2 {
                        emit(&bytes[i..j]);
                    }
                    i = j + 1;
                    prev_lower = false;
                    continue;
                }
            }
            let b = bytes[i];
            if b < 0x80 {
                i += 1;
                if b.is_ascii_alphanumeric() {
                    if b.is_ascii_uppercase() {
                        if prev_lower && n_splits < splits.len() {
                            splits[n_splits] = buf.len();
                            n_splits += 1;
                        }
                        prev_lower = false;
                        buf.push(b.to_ascii_lowercase());
                    } else {
                        prev_lower = b.is_ascii_lowercase();
                        buf.push(b);
                    }
                } else {
                    reference_flush(buf, &splits[..n_splits], &mut emit);
                    n_splits = 0;
                    prev_lower = false;
                }
                continue;
            }
            // Non-ASCII: decode one char (the input is valid UTF-8, so this cannot fail).
            let rest = &text[i..];
            let Some(c) = rest.chars().next() else { break };
            i += c.len_utf8();
            if c.is_alphanumeric() {
                // Only a letter that lowercasing changes starts a camelCase part ('𝔻' has no
                // lowercase, so folding text twice splits it the same way).
                let upper = c.is_uppercase() && c.to_lowercase().next() != Some(c);
                if upper && prev_lower && n_splits < splits.len() {
                    splits[n_splits] = buf.len();
                    n_splits += 1;
                }
                prev_lower = c.is_lowercase();
                // Lowercasing may add combining marks ('İ' → "i̇"); they are not word characters.
                for lc in c.to_lowercase().filter(|lc| lc.is_alphanumeric()) {
                    push_folded(lc, buf);
                }
            } else {
                reference_flush(buf, &splits[..n_splits], &mut emit);
                n_splits = 0;
                prev_lower = false;
            }
        }
        reference_flush(buf, &splits[..n_splits], &mut emit);
    }

    fn reference_flush(buf: &mut Vec<u8>, splits: &[usize], emit: &mut impl FnMut(&[u8])) {
        if buf.len() >= 2 {
            emit(buf);
            if !splits.is_empty() {
                let mut start = 0;
                for &s in splits.iter().chain(std::iter::once(&buf.len())) {
                    if s - start >= 2 {
                        emit(&buf[start..s]);
                    }
                    start = s;
                }
            }
        }
        buf.clear();
    }

    fn all_tokens(f: impl Fn(&str, &mut Vec<u8>, &mut dyn FnMut(&[u8])), s: &str) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut buf = Vec::new();
        f(s, &mut buf, &mut |t: &[u8]| out.push(t.to_vec()));
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        #[test]
        fn tokenize_matches_the_reference(
            s in "([a-zA-Z0-9]{0,12}|[ ./_:-]{1,2}|[A-Z][a-z]{1,5}|[éÉİßΣ𝔻ǅ]){0,24}",
        ) {
            let fast = all_tokens(|s, b, e| tokenize(s, b, e), &s);
            let slow = all_tokens(|s, b, e| reference_tokenize(s, b, e), &s);
            proptest::prop_assert_eq!(fast, slow, "{:?}", s);
        }

        /// The engine scans a checkpoint's tags (and its files) joined by spaces, and its
        /// branch after a newline: that must give the tokens of each value in turn.
        #[test]
        fn a_separator_makes_values_independent(
            values in proptest::collection::vec(
                "([a-zA-Z0-9]{0,8}|[./_:-]{1,2}|[A-Z][a-z]{1,4}|[éÉİßΣ𝔻ǅ\u{301}]){0,6}", 0..5),
            sep in proptest::sample::select(vec![" ", "\n"]),
        ) {
            let joined = values.join(sep);
            let one_by_one: Vec<Vec<u8>> = values
                .iter()
                .flat_map(|v| all_tokens(|s, b, e| tokenize(s, b, e), v))
                .collect();
            proptest::prop_assert_eq!(all_tokens(|s, b, e| tokenize(s, b, e), &joined), one_by_one);
        }
    }

    #[test]
    fn tokenize_matches_the_reference_on_the_evaluation_set() {
        let text = include_str!("../tests/fixtures/eval_checkpoints.jsonl");
        let fast = all_tokens(|s, b, e| tokenize(s, b, e), text);
        let slow = all_tokens(|s, b, e| reference_tokenize(s, b, e), text);
        assert!(fast.len() > 10_000);
        assert_eq!(fast, slow);
    }
}
