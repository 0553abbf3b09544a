//! Stored text made inert for a terminal: [`inert`].
//!
//! A checkpoint, a plan or a journal holds whatever text was saved, by this machine, by a
//! teammate through sync, or by an agent copying a tool's output. Printed as it is, an
//! `ESC [ 3 1 m` recolours the terminal, an `ESC ] 0 ; … BEL` sets its title, an OSC 52 can
//! write the user's clipboard, a `\r` or a cursor move hides a line, and a bidi override
//! shows text in another order than it is read. Every human-readable output passes stored
//! text through [`inert`] where it is printed; JSON output and the files themselves keep the
//! exact bytes.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is shown escaped by [`inert`]: every C0 control but `\n` and `\t`, DEL, every
/// C1 control (U+0080–U+009F, which some terminals read as 8-bit CSI, OSC or DCS) and the
/// Unicode bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
pub fn is_escaped(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}'
        | '\u{b}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// `text` with every character [`is_escaped`] names written visibly: an ASCII control as
/// `\x` and two lowercase hex digits (ESC is `\x1b`, `\r` is `\x0d`, DEL is `\x7f`), any
/// other as `\u{…}` with its hex code point (the 8-bit CSI is `\u{9b}`, the right-to-left
/// override `\u{202e}`). `\n` and `\t` stay, as the layout of multi-line text; everything
/// else, a backslash included, is kept as it is, so applying it twice changes nothing.
///
/// The escaping is for eyes, not for parsing back: stored text that spells `\x1b` shows the
/// same, but what is printed is never the control itself. Text with nothing to escape (the
/// common case) comes back borrowed, without an allocation.
///
/// ```
/// use goldfish_core::inert;
///
/// assert_eq!(inert("red \u{1b}[31mtext\u{7}"), "red \\x1b[31mtext\\x07");
/// assert_eq!(inert("abc\u{202e}def"), "abc\\u{202e}def");
/// assert!(matches!(inert("plain\n\ttext"), std::borrow::Cow::Borrowed(_)));
/// ```
pub fn inert(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find(is_escaped) else {
        return Cow::Borrowed(text);
    };
    // Most escapes take 4 characters for 1; a little room avoids the first regrowths.
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if !is_escaped(c) {
            out.push(c);
        } else if c.is_ascii() {
            // Writing into a String cannot fail.
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_each_kind_of_control() {
        assert_eq!(inert("\u{0}"), "\\x00");
        assert_eq!(inert("a\rb"), "a\\x0db");
        assert_eq!(inert("\u{1b}]0;title\u{7}"), "\\x1b]0;title\\x07");
        assert_eq!(inert("\u{1b}P1$r\u{1b}\\"), "\\x1bP1$r\\x1b\\");
        assert_eq!(inert("\u{8}\u{7f}"), "\\x08\\x7f");
        assert_eq!(inert("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(inert("\u{80}\u{9f}"), "\\u{80}\\u{9f}");
        assert_eq!(
            inert("\u{61c}\u{200e}\u{200f}\u{202a}\u{202e}\u{2066}\u{2069}"),
            "\\u{61c}\\u{200e}\\u{200f}\\u{202a}\\u{202e}\\u{2066}\\u{2069}"
        );
    }

    #[test]
    fn keeps_layout_text_and_backslashes() {
        for text in [
            "",
            "line one\nline two\n\tindented",
            "C:\\path\\x1b is text",
            "é ü 日本 🐟 \u{a0} \u{200b} \u{2028}",
        ] {
            assert!(matches!(inert(text), Cow::Borrowed(t) if t == text));
        }
    }

    #[test]
    fn every_escaped_char_is_listed() {
        let escaped: Vec<u32> = (0..=0x10ffff)
            .filter_map(char::from_u32)
            .filter(|c| is_escaped(*c))
            .map(u32::from)
            .collect();
        let mut want: Vec<u32> = (0..0x20).filter(|c| *c != 0x09 && *c != 0x0a).collect();
        want.extend(0x7f..=0x9f);
        want.extend([0x61c, 0x200e, 0x200f]);
        want.extend(0x202a..=0x202e);
        want.extend(0x2066..=0x2069);
        assert_eq!(escaped, want);
    }
}
