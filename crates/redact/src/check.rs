//! The rules a candidate must pass beyond its regex: what makes a value "non-trivial".
//!
//! Vendor tokens are recognised by their shape alone. Assigned values, URL passwords and
//! bearer tokens can be anything, so these rules tell a secret from the placeholders,
//! variables, file paths and words that sit in the same places in documentation and notes.

use std::ops::Range;

use crate::patterns::Check;

/// The replacement's opening: a value holding it has been redacted already.
pub(crate) const MARKER: &str = "[REDACTED:";

/// Narrows `range` (the pattern's secret group in `text`) to the secret itself, or `None`
/// when the candidate is not a secret.
pub(crate) fn accept(check: Check, text: &str, range: Range<usize>) -> Option<Range<usize>> {
    let value = &text[range.clone()];
    if value.is_empty() || value.contains(MARKER) || touches_marker(text, &range) {
        return None;
    }
    match check {
        Check::Shape => Some(range),
        Check::Base64Key => base64_key(value).then_some(range),
        Check::Token { min_len } => token(value, min_len).then_some(range),
        Check::UrlPassword => url_password(value).then_some(range),
        Check::AssignedValue => assigned_value(text, range),
    }
}

/// Whether `range` ends where a replacement starts or starts where one ends.
///
/// Such a candidate is a piece of a text that was judged whole before its other part was
/// replaced: `Bearer 0a1B2c3D/AKIAIOSFODNN7EXAMPLE` is no bearer token (its value contains
/// `EXAMPLE`, a placeholder), but once the key id is replaced, `Bearer 0a1B2c3D/` before
/// `[REDACTED:…]` would be one. Refusing such pieces keeps redaction idempotent.
fn touches_marker(text: &str, range: &Range<usize>) -> bool {
    let before = &text[..range.start];
    let closes_marker = before.ends_with(']')
        && before.rfind(MARKER).is_some_and(|at| {
            let kind = &before[at + MARKER.len()..before.len() - 1];
            !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
        });
    text[range.end..].starts_with(MARKER) || closes_marker
}

/// A 40-character key of base64: mixed, and not a hexadecimal hash.
fn base64_key(value: &str) -> bool {
    !value.bytes().all(|b| b.is_ascii_hexdigit()) && classes(value) >= 2
}

/// A token after `Bearer`: long enough, not a placeholder, and not a word (tokens mix in
/// digits; `authenticationMiddleware` does not).
fn token(value: &str, min_len: usize) -> bool {
    let digit = value.bytes().any(|b| b.is_ascii_digit());
    value.len() >= min_len
        && !placeholder(value)
        && distinct(value) >= 6
        && ((digit && classes(value) >= 2) || classes(value) >= 3)
}

/// A URL password: anything that is not a placeholder.
fn url_password(value: &str) -> bool {
    value.chars().count() >= 3 && !placeholder(value) && !reference(value)
}

/// The secret part of an assigned value, or `None` when the value is trivial.
///
/// Quotes around the value stay (only what is between them is secret); an unquoted value
/// loses the sentence punctuation that closes it (`token=abc123def.` ends a sentence).
fn assigned_value(text: &str, range: Range<usize>) -> Option<Range<usize>> {
    let raw = &text[range.clone()];
    let first = raw.as_bytes()[0];
    let quoted = matches!(first, b'"' | b'\'' | b'`') && raw.len() >= 2;
    let range = if quoted {
        // The regex only takes a quoted value up to its closing quote.
        range.start + 1..range.end - 1
    } else {
        let kept = raw.trim_end_matches(['.', ',', ')', ']', '}', '>', '!', '?', ':']);
        range.start..range.start + kept.len()
    };
    let value = &text[range.clone()];
    // A reference or a path is judged whole, before its closing `)` was trimmed.
    let trivial = reference(raw.trim_matches(['"', '\'', '`']))
        || value.chars().count() < 6
        || distinct(value) < 4
        || placeholder(value)
        || reference(value)
        || path(value)
        || !(classes(value) >= 2 || (value.chars().count() >= 16 && entropy(value) >= 3.0));
    (!trivial).then_some(range)
}

/// Placeholders written where a secret would go: `****`, `<your-password>`, `changeme`,
/// `xxxxxxxx`, `[redacted]`, `your_api_key_here`…
fn placeholder(value: &str) -> bool {
    const WORDS: &[&str] = &[
        "password",
        "passwd",
        "pass",
        "secret",
        "token",
        "changeme",
        "change-me",
        "change_me",
        "none",
        "null",
        "nil",
        "true",
        "false",
        "undefined",
        "empty",
        "required",
        "optional",
        "hidden",
        "masked",
        "dummy",
        "test",
        "sample",
        "string",
        "value",
        "todo",
        "fixme",
    ];
    const INSIDE: &[&str] = &[
        "redacted",
        "your_",
        "your-",
        "yourpass",
        "yourtoken",
        "yoursecret",
        "_here",
        "-here",
        "placeholder",
        "replace_me",
        "replace-me",
        "replaceme",
        "example",
        "xxxx",
        "****",
        "...",
        "•",
        "…",
    ];
    let lower = value.to_ascii_lowercase();
    WORDS.contains(&lower.as_str())
        || INSIDE.iter().any(|part| lower.contains(part))
        || lower.starts_with('<')
        || lower.ends_with('>')
        || value.chars().all(|c| !c.is_alphanumeric())
}

/// A reference to a secret kept elsewhere, not the secret: `$VAR`, `${VAR}`, `%(var)s`,
/// `{{ var }}`, `os.environ[…`, `config.password`, `get_password()`.
fn reference(value: &str) -> bool {
    let dotted_identifier = value.contains('.')
        && value.split('.').all(|part| {
            part.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    value.starts_with(['$', '%', '{', '@'])
        || value.contains("{{")
        || value.contains("${")
        || value.contains("environ")
        || value.contains("getenv")
        || value.ends_with("()")
        || (value.ends_with(')') && value.contains('('))
        || value.contains('[') && !value.contains(']')
        || dotted_identifier
}

/// A file path: absolute, home- or dot-relative, or slash-separated lower-case segments
/// (`src/auth/token.rs`); base64 tokens with slashes nearly always mix cases.
fn path(value: &str) -> bool {
    value.starts_with(['/', '~', '\\'])
        || value.starts_with("./")
        || value.starts_with("../")
        || value.get(1..3) == Some(":\\")
        || (value.contains('/')
            && value
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "/._-".contains(c)))
}

/// How many of lower case, upper case, digits and other characters `value` uses.
fn classes(value: &str) -> usize {
    let mut seen = [false; 4];
    for c in value.chars() {
        let class = if c.is_lowercase() {
            0
        } else if c.is_uppercase() {
            1
        } else if c.is_numeric() {
            2
        } else {
            3
        };
        seen[class] = true;
    }
    seen.iter().filter(|s| **s).count()
}

/// How many different characters `value` has (`aaaaaa` and `******` have one).
fn distinct(value: &str) -> usize {
    let mut chars: Vec<char> = value.chars().collect();
    chars.sort_unstable();
    chars.dedup();
    chars.len()
}

/// Shannon entropy in bits per character: a long single-case value counts as a secret only
/// when its letters are varied, as a passphrase's are.
fn entropy(value: &str) -> f64 {
    let mut chars: Vec<char> = value.chars().collect();
    let n = chars.len() as f64;
    chars.sort_unstable();
    let mut bits = 0.0;
    for run in chars.chunk_by(|a, b| a == b) {
        let p = run.len() as f64 / n;
        bits -= p * p.log2();
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assigned(value: &str) -> Option<String> {
        let text = format!("password={value}");
        assigned_value(&text, 9..text.len()).map(|r| text[r].to_string())
    }

    #[test]
    fn assigned_values() {
        let secret = [
            ("hunter2abc", "hunter2abc"),
            ("\"s3cr3t pass phrase\"", "s3cr3t pass phrase"),
            ("'Tr0ub4dor&3'", "Tr0ub4dor&3"),
            ("Zq9xW2pLm4.", "Zq9xW2pLm4"),
            ("correcthorsebatterystaple", "correcthorsebatterystaple"),
            ("a1b2c3d4e5f6a7b8", "a1b2c3d4e5f6a7b8"),
        ];
        for (value, kept) in secret {
            assert_eq!(assigned(value).as_deref(), Some(kept), "{value}");
        }
        let trivial = [
            "****",
            "********",
            "xxxxxxxxxx",
            "\"\"",
            "changeme",
            "CHANGEME",
            "<your-password>",
            "${DB_PASSWORD}",
            "$DB_PASSWORD",
            "%(password)s",
            "{{ vault_password }}",
            "os.environ[",
            "config.db.password",
            "get_password()",
            "your_password_here",
            "[redacted]",
            "[REDACTED:secret-assignment]",
            "required",
            "notsecret",
            "/run/secrets/db",
            "~/.aws/credentials",
            "./secrets/token.txt",
            "src/auth/token.rs",
            "123456",
            "aaaaaaaaaaaaaaaaaaaa",
            "true",
        ];
        for value in trivial {
            assert_eq!(assigned(value), None, "{value}");
        }
    }

    #[test]
    fn keys_tokens_and_url_passwords() {
        assert!(base64_key("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"));
        assert!(!base64_key("da39a3ee5e6b4b0d3255bfef95601890afd80709"));
        assert!(token("mF_9.B5f-4.1JqM", 8));
        assert!(!token("authenticationMiddleware", 16));
        assert!(!token("YOUR_TOKEN_HERE", 8));
        assert!(url_password("s3cr3t"));
        assert!(url_password("postgres"));
        assert!(!url_password("pass"));
        assert!(!url_password("****"));
        assert!(!url_password("${PGPASSWORD}"));
    }

    #[test]
    fn pieces_next_to_a_replacement_are_refused() {
        let text = "Bearer 0a1B2c3D4e/[REDACTED:jwt]";
        assert_eq!(accept(Check::Shape, text, 7..18), None);
        assert_eq!(accept(Check::Shape, text, 7..17), Some(7..17));
        let text = "[REDACTED:github-token]abc [x]abc";
        assert_eq!(accept(Check::Shape, text, 23..26), None);
        assert_eq!(accept(Check::Shape, text, 30..33), Some(30..33));
    }

    #[test]
    fn measures() {
        assert_eq!(classes("abc"), 1);
        assert_eq!(classes("aB3-"), 4);
        assert_eq!(distinct("aaab"), 2);
        assert!(entropy("aaaa") < 0.01);
        assert!((entropy("abcd") - 2.0).abs() < 1e-9);
    }
}
