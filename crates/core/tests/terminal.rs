//! `inert`: properties over arbitrary text rich in controls, and the escaped forms.
//!
//! The controls are listed here again, on their own, rather than taken from
//! `terminal::is_escaped`: a test that asked the function what to check could not catch a
//! control it forgets.

use std::borrow::Cow;

use goldfish_core::inert;
use proptest::prelude::*;

/// What must never reach a terminal from stored text.
fn is_control(c: char) -> bool {
    let n = u32::from(c);
    (n < 0x20 && c != '\n' && c != '\t')
        || (0x7f..=0x9f).contains(&n)
        || matches!(n, 0x61c | 0x200e | 0x200f | 0x202a..=0x202e | 0x2066..=0x2069)
}

/// Characters weighted towards the ones that matter: C0, DEL and C1, bidi controls, the
/// backslash and the letters of an escape, then anything.
fn a_char() -> impl Strategy<Value = char> {
    prop_oneof![
        (0u32..0xa0).prop_map(|n| char::from_u32(n).unwrap_or('?')),
        prop::sample::select(vec![
            '\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
            '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\\', 'x', 'u', '{', '}',
            '\u{2028}', '\u{200b}', '\u{feff}',
        ]),
        any::<char>(),
    ]
}

fn a_text() -> impl Strategy<Value = String> {
    prop::collection::vec(a_char(), 0..80).prop_map(|cs| cs.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// Whatever the text, the result holds no control but `\n` and `\t`.
    #[test]
    fn the_result_holds_no_control(text in a_text()) {
        let out = inert(&text);
        prop_assert!(!out.chars().any(is_control), "{out:?}");
    }

    /// Text without controls comes back as it is, borrowed; text with one comes back owned.
    #[test]
    fn text_without_controls_is_borrowed_unchanged(text in a_text()) {
        let clean: String = text.chars().filter(|c| !is_control(*c)).collect();
        prop_assert!(matches!(inert(&clean), Cow::Borrowed(t) if t == clean));
        let has_control = text.chars().any(is_control);
        prop_assert_eq!(matches!(inert(&text), Cow::Owned(_)), has_control);
    }

    /// Each character is escaped on its own (nothing depends on its neighbours), and the
    /// result of one pass passes unchanged through a second: nothing is escaped twice.
    #[test]
    fn per_character_and_idempotent(a in a_text(), b in a_text()) {
        let joined = format!("{a}{b}");
        prop_assert_eq!(inert(&joined), format!("{}{}", inert(&a), inert(&b)));
        let once = inert(&joined).into_owned();
        prop_assert!(matches!(inert(&once), Cow::Borrowed(t) if t == once));
    }

    /// Every other character is kept: removing the escapes from the result gives back the
    /// text without its controls.
    #[test]
    fn only_controls_change(text in a_text()) {
        let out = inert(&text).into_owned();
        let mut rest = out.as_str();
        let mut kept = String::new();
        for c in text.chars() {
            if is_control(c) {
                let escape = if c.is_ascii() {
                    format!("\\x{:02x}", u32::from(c))
                } else {
                    format!("\\u{{{:x}}}", u32::from(c))
                };
                prop_assert!(rest.starts_with(&escape), "{c:?} not as {escape} in {out:?}");
                rest = &rest[escape.len()..];
            } else {
                prop_assert!(rest.starts_with(c));
                rest = &rest[c.len_utf8()..];
                kept.push(c);
            }
        }
        prop_assert_eq!(rest, "");
        let clean: String = text.chars().filter(|c| !is_control(*c)).collect();
        prop_assert_eq!(kept, clean);
    }
}

/// The sequences a hostile text would carry, as they are shown.
#[test]
fn terminal_sequences_are_shown_escaped() {
    let cases = [
        ("\u{1b}[31mred\u{1b}[0m", "\\x1b[31mred\\x1b[0m"),
        ("\u{1b}[2J\u{1b}[1A", "\\x1b[2J\\x1b[1A"),
        ("\u{1b}]0;pwned\u{7}", "\\x1b]0;pwned\\x07"),
        ("\u{1b}]52;c;Y3VybA==\u{7}", "\\x1b]52;c;Y3VybA==\\x07"),
        ("\u{1b}]8;;http://x\u{1b}\\", "\\x1b]8;;http://x\\x1b\\"),
        ("\u{1b}P+q\u{1b}\\", "\\x1bP+q\\x1b\\"),
        ("\u{9b}2J", "\\u{9b}2J"),
        ("done\rhidden", "done\\x0dhidden"),
        ("abc\u{202e}fed", "abc\\u{202e}fed"),
        ("one\n\ttwo", "one\n\ttwo"),
    ];
    for (text, shown) in cases {
        assert_eq!(inert(text), shown, "{text:?}");
    }
}
