//! What counts as a secret: the kinds and the pattern table, as data.
//!
//! Adding a kind of secret is two edits in this file: a variant of [`Kind`] (with its name
//! in [`Kind::ALL`], [`Kind::SECRETS`] and [`Kind::name`]) and one or more rows in
//! [`PATTERNS`]. The rest of the crate reads the table (private spans, the two kinds that
//! are not secrets, are found by `private.rs`). Every row needs a true-positive and a near-miss test in
//! `tests/table.rs`; `tests/kinds.rs` fails for a kind that has none.
//!
//! Conventions for the regexes:
//! - `(?-u:\b)` (an ASCII word boundary) where a token must start a word, so that the same
//!   letters inside an identifier or a base64 blob are not a token. Unicode word boundaries
//!   would push the regex engine off its fast path on non-ASCII text.
//! - A pattern may consume one character before or after the secret for context (the regex
//!   crate has no look-around); [`Pattern::group`] says which part is the secret.
//! - `(?i-u:…)` (ASCII case folding) for keywords: Unicode case folding (`k` also matches the
//!   Kelvin sign) costs ten times as much to compile, and a save compiles the triggers.
//! - A secret's extent is never cut by a length limit (`{36,}`, not `{36,251}`), and context
//!   around it never accepts `[` or `]`: otherwise the replacement, which starts with `[` and
//!   ends with `]`, could complete a match that the original text did not have (redaction
//!   must be idempotent; the property test and the fuzz target look for such cases).
//! - Character classes that make up a secret never contain `[` or `]`, so the replacement
//!   `[REDACTED:<kind>]` cannot be taken for a token; rows whose values may contain anything
//!   (assignments, URL passwords) are guarded by [`Check`], which refuses a value holding a
//!   replacement.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A kind of secret, named in the replacement text `[REDACTED:<name>]`, in findings and in
/// configuration.
///
/// Names are stable kebab-case strings (see [`Kind::name`]); serde uses the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Kind {
    /// A PEM or OpenSSH private key block, `-----BEGIN … PRIVATE KEY-----` to its `END` line.
    PrivateKey,
    /// An AWS access key id: `AKIA` (long-term) or `ASIA` (temporary) and 16 upper-case
    /// letters or digits.
    AwsAccessKeyId,
    /// An AWS secret access key: 40 base64 characters right after an `aws…secret`/`aws…key`
    /// or `secret_access_key` name.
    AwsSecretAccessKey,
    /// A GitHub token: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` or `github_pat_`.
    GithubToken,
    /// A GitLab personal access token: `glpat-`.
    GitlabToken,
    /// A Google OAuth 2.0 access token: `ya29.` and 20 or more base64url characters.
    GoogleOauthToken,
    /// A Slack token: `xoxa-`, `xoxb-`, `xoxp-`, `xoxr-` or `xoxs-`.
    SlackToken,
    /// The secret path of a Slack incoming webhook (`https://hooks.slack.com/services/…`).
    SlackWebhook,
    /// A Stripe secret or restricted key, live or test: `sk_live_`, `rk_live_`, `sk_test_`,
    /// `rk_test_`.
    StripeKey,
    /// A JSON Web Token: three base64url parts, the first starting `eyJ`.
    Jwt,
    /// The credentials of an HTTP `Authorization:` header (`Bearer`, `Token`, `Basic`) or a
    /// `Bearer <token>` anywhere.
    BearerToken,
    /// The password of a URL (`scheme://user:password@host`); the user and host stay.
    UrlCredentials,
    /// The value of a `password=`, `passwd:`, `secret=`, `api_key:`, `token=`… assignment,
    /// when it is not trivial (not empty, a placeholder, a variable or a file path).
    SecretAssignment,
    /// Not a secret found but text a person marked: `<private>` … `</private>`, tags
    /// included (nested tags make one span). Always dropped: no setting turns it off.
    Private,
    /// A `<private>` never closed: dropped to the end of its field, or of its line in a text
    /// written whole (see [`Redactor::redact_document`](crate::Redactor::redact_document)).
    PrivateUnclosed,
}

impl Kind {
    /// Every kind: the private spans, then the secrets ([`Kind::SECRETS`]), in order of
    /// priority: where two kinds find text starting at the same byte, the earlier one names
    /// the finding.
    pub const ALL: [Kind; 15] = {
        let mut all = [Kind::Private; 15];
        all[1] = Kind::PrivateUnclosed;
        let mut i = 0;
        while i < Kind::SECRETS.len() {
            all[i + 2] = Kind::SECRETS[i];
            i += 1;
        }
        all
    };

    /// The kinds of secret, the ones the pattern table finds and a setting may turn off, in
    /// order of priority.
    pub const SECRETS: [Kind; 13] = [
        Kind::PrivateKey,
        Kind::AwsAccessKeyId,
        Kind::AwsSecretAccessKey,
        Kind::GithubToken,
        Kind::GitlabToken,
        Kind::GoogleOauthToken,
        Kind::SlackToken,
        Kind::SlackWebhook,
        Kind::StripeKey,
        Kind::Jwt,
        Kind::BearerToken,
        Kind::UrlCredentials,
        Kind::SecretAssignment,
    ];

    /// The stable kebab-case name: `aws-access-key-id`, `github-token`…
    pub fn name(self) -> &'static str {
        match self {
            Kind::PrivateKey => "private-key",
            Kind::AwsAccessKeyId => "aws-access-key-id",
            Kind::AwsSecretAccessKey => "aws-secret-access-key",
            Kind::GithubToken => "github-token",
            Kind::GitlabToken => "gitlab-token",
            Kind::GoogleOauthToken => "google-oauth-token",
            Kind::SlackToken => "slack-token",
            Kind::SlackWebhook => "slack-webhook",
            Kind::StripeKey => "stripe-key",
            Kind::Jwt => "jwt",
            Kind::BearerToken => "bearer-token",
            Kind::UrlCredentials => "url-credentials",
            Kind::SecretAssignment => "secret-assignment",
            Kind::Private => "private",
            Kind::PrivateUnclosed => "private-unclosed",
        }
    }

    /// Whether this is a private span ([`Kind::Private`] or [`Kind::PrivateUnclosed`]):
    /// text a person marked, not a secret found.
    pub fn is_private(self) -> bool {
        matches!(self, Kind::Private | Kind::PrivateUnclosed)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kind {
    type Err = crate::Error;

    fn from_str(name: &str) -> Result<Kind, crate::Error> {
        Kind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
            .ok_or_else(|| crate::Error::unknown_kind(name))
    }
}

/// What a match must also satisfy, beyond its regex, to be a secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// The shape alone is distinctive enough (a fixed vendor prefix, a key block).
    Shape,
    /// A base64 key: not all hexadecimal (a commit hash or a digest is not a key) and at least
    /// two kinds of character.
    Base64Key,
    /// A token after `Bearer`/`Authorization:`: at least `min_len` characters, not a
    /// placeholder, and at least two kinds of character (words in prose are not tokens).
    Token {
        /// The shortest token accepted.
        min_len: usize,
    },
    /// A URL password: anything that is not a placeholder (`pass`, `****`, `${VAR}`…).
    UrlPassword,
    /// An assigned value: not trivial (see `check::assigned_value`).
    AssignedValue,
}

/// One row of the table: a regex for one kind.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pattern {
    /// The kind a match is reported as.
    pub(crate) kind: Kind,
    /// The regex (the `regex` crate's syntax).
    pub(crate) regex: &'static str,
    /// A cheap regex that matches inside every match of `regex` (a tested property): all the
    /// triggers run as one `RegexSet` pass, and `regex` is only compiled and run when its
    /// trigger matched. A save of text with no candidate compiles nothing else.
    pub(crate) trigger: &'static str,
    /// Which capture group is the secret (0: the whole match); the rest is context.
    pub(crate) group: usize,
    /// What the secret must also satisfy.
    pub(crate) check: Check,
    /// Why the row looks the way it does.
    #[allow(dead_code, reason = "documentation kept with the data it explains")]
    pub(crate) why: &'static str,
}

/// The table. Order is priority: where two rows find secrets starting at the same byte, the
/// earlier row names the finding (a GitHub token in `password=ghp_…` is a `github-token`).
pub(crate) const PATTERNS: &[Pattern] = &[
    Pattern {
        kind: Kind::PrivateKey,
        regex: r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?s:.*?)-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----",
        trigger: r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY",
        group: 0,
        check: Check::Shape,
        why: "RSA, EC, DSA, OpenSSH, PKCS#8 (ENCRYPTED too) and PGP key blocks, up to the first \
              END line, whatever is between (literal \\n escapes in JSON or .env values too)",
    },
    Pattern {
        kind: Kind::PrivateKey,
        regex: r"(-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[ \t]*(?:\r?\n|\\+r\\+n|\\+n)[ \t]*[A-Za-z][A-Za-z-]*: [^\r\n\\]*)*(?:[ \t]*(?:\r?\n|\\+r\\+n|\\+n)[ \t]*[A-Za-z0-9+/]{16,}={0,2})+(?:[ \t]*(?:\r?\n|\\+r\\+n|\\+n)[ \t]*[A-Za-z0-9+/]{1,15}={0,2})?)(?:[^A-Za-z0-9+/=]|$)",
        trigger: r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY",
        group: 1,
        check: Check::Shape,
        why: "a block pasted without its END line: the header, its `Name: value` lines and at \
              least one base64 line after it (lines broken by newlines or by `\\n` escapes, escaped \
              again any number of times, as JSON inside JSON or an escaping file format does; a line of 16+ base64 characters is key, prose is \
              not; the header alone, as in prose about keys, is nothing)",
    },
    Pattern {
        kind: Kind::AwsAccessKeyId,
        regex: r"(?-u:\b)((?:AKIA|ASIA)[A-Z0-9]{16})(?-u:\b)",
        trigger: r"(?:AKIA|ASIA)[A-Z0-9]{16}",
        group: 1,
        check: Check::Shape,
        why: "IAM user (AKIA) and STS (ASIA) key ids are always 20 upper-case characters",
    },
    Pattern {
        kind: Kind::AwsSecretAccessKey,
        regex: r#"(?i-u:aws[A-Za-z0-9_. -]{0,32}?(?:secret|key)|secret[_-]?access[_-]?key)[A-Za-z0-9_]{0,16}["']?(?:[ \t]*(?::=|=>|[:=])[ \t]*|[ \t]+(?i-u:is)[ \t]+|[ \t]+)["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        trigger: r"(?i-u:aws|secret[_-]?access)",
        group: 1,
        check: Check::Base64Key,
        why: "the secret key has no prefix of its own, so only 40 base64 characters right after \
              an AWS secret/key name and a separator are taken (a credentials file, an env var, \
              a sentence); the separator pins where the key starts, so it cannot slide to end \
              at whatever follows",
    },
    Pattern {
        kind: Kind::GithubToken,
        regex: r"(?-u:\b)(gh[pousr]_[A-Za-z0-9]{36,})",
        trigger: r"gh[pousr]_[A-Za-z0-9]{36}",
        group: 1,
        check: Check::Shape,
        why: "classic, OAuth, user-to-server, server-to-server and refresh tokens: a prefix and \
              36 or more base62 characters",
    },
    Pattern {
        kind: Kind::GithubToken,
        regex: r"(?-u:\b)(github_pat_[A-Za-z0-9_]{22,})",
        trigger: r"github_pat_",
        group: 1,
        check: Check::Shape,
        why: "fine-grained personal access tokens",
    },
    Pattern {
        kind: Kind::GitlabToken,
        regex: r"(?-u:\b)(glpat-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*)",
        trigger: r"glpat-",
        group: 1,
        check: Check::Shape,
        why: "personal access tokens: 20 characters, newer ones followed by dotted parts",
    },
    Pattern {
        kind: Kind::GoogleOauthToken,
        regex: r"(?-u:\b)(ya29\.[A-Za-z0-9_-]{20,})",
        trigger: r"ya29\.[A-Za-z0-9_-]{20}",
        group: 1,
        check: Check::Shape,
        why: "Google access tokens have their own prefix: found wherever they stand, also \
              after `token=` where the assignment rule takes a dotted value for a reference",
    },
    Pattern {
        kind: Kind::SlackToken,
        regex: r"(?-u:\b)(xox[abprs]-[A-Za-z0-9-]{10,})",
        trigger: r"xox[abprs]-",
        group: 1,
        check: Check::Shape,
        why: "bot, user, app-level, refresh and legacy tokens: `xox?-` and dash-separated parts",
    },
    Pattern {
        kind: Kind::SlackWebhook,
        regex: r"(?i-u:https?://hooks\.slack\.com/(?:services|workflows|triggers)/)([A-Za-z0-9_/-]{16,})",
        trigger: r"(?i-u:hooks\.slack\.com/)",
        group: 1,
        check: Check::Shape,
        why: "whoever has the path can post to the channel; the host stays so the text still \
              says what it was",
    },
    Pattern {
        kind: Kind::StripeKey,
        regex: r"(?-u:\b)((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})",
        trigger: r"[rs]k_(?:live|test)_",
        group: 1,
        check: Check::Shape,
        why: "secret and restricted keys; test keys too, they read test data and are often real \
              accounts' (publishable `pk_` keys are public and stay)",
    },
    Pattern {
        kind: Kind::Jwt,
        regex: r"(?-u:\b)(eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
        trigger: r"eyJ",
        group: 1,
        check: Check::Shape,
        why: "a JSON header always encodes to `eyJ`; three parts of real length, so `eyJ` alone \
              or a dotted word is not a token",
    },
    Pattern {
        kind: Kind::BearerToken,
        regex: r#"(?i-u:authorization)["']?[ \t]*[:=][ \t]*["']?(?i-u:bearer|token|basic)[ \t]+([A-Za-z0-9._~+/-]+=*)"#,
        trigger: r"(?i-u:authorization)",
        group: 1,
        check: Check::Token { min_len: 8 },
        why: "an Authorization header's credentials, whatever the scheme's token looks like",
    },
    Pattern {
        kind: Kind::BearerToken,
        regex: r"(?-u:\b)(?i-u:bearer)[ \t]+([A-Za-z0-9._~+/-]+=*)",
        trigger: r"(?i-u:bearer)",
        group: 1,
        check: Check::Token { min_len: 16 },
        why: "`Bearer <token>` outside a header (curl lines, logs); longer and mixed, so `bearer \
              tokens expire` in prose is not one",
    },
    Pattern {
        kind: Kind::UrlCredentials,
        regex: r"(?-u:\b)[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/@?#\[\]]*:([^\s/?#@]+)@(?:[A-Za-z0-9]|\[[0-9A-Fa-f:])",
        trigger: r"://[^\s/]*@",
        group: 1,
        check: Check::UrlPassword,
        why: "only the password is secret: the scheme, user and host stay readable; as in RFC 3986 \
              the password has no `@` (it is written `%40`), so where it ends never depends on \
              text further on, which a replacement may have changed",
    },
    Pattern {
        kind: Kind::SecretAssignment,
        regex: r#"(?:^|[^A-Za-z0-9_./\]-])(?i-u:[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|pwd|secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|private[_-]?key|token)|(?:[A-Za-z0-9.-]*[_.-])?pass)["']?[ \t]*(?::=|=>|[:=])[ \t]*("[^"\r\n]*"|'[^'\r\n]*'|`[^`\r\n]*`|[^\s"'`,;&<>=]{1,256}={0,2})"#,
        trigger: r#"(?i-u:pass|pwd|secret|key|token)[A-Za-z0-9_.-]*["']?[ \t]*[:=]"#,
        group: 1,
        check: Check::AssignedValue,
        why: "a name ending in a secret word (`DB_PASSWORD`, `clientSecret`, `api-key`, `token`), \
              `=`/`:`/`:=`/`=>`, and a value, quoted or not; the value decides (see Check). An \
              unquoted value has no `=` but base64's padding and is at most 256 bytes, so one \
              value never runs on over the next assignments (`token=token=…`) and a refused \
              match is cheap to search past. A name \
              right after `/` is a URL's user (`https://x-access-token:…@`), not an assignment; \
              nor is one right after `]`, where a replacement may end",
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::Strategy;
    use proptest::prop_oneof;

    #[test]
    fn every_row_compiles_and_every_kind_has_a_row() {
        for row in PATTERNS {
            let regex = regex::Regex::new(row.regex)
                .unwrap_or_else(|e| panic!("{} does not compile: {e}", row.kind));
            regex::Regex::new(row.trigger)
                .unwrap_or_else(|e| panic!("{}'s trigger does not compile: {e}", row.kind));
            assert!(
                row.group < regex.captures_len(),
                "{}: no group {}",
                row.kind,
                row.group
            );
            assert!(!row.why.is_empty());
            assert!(!row.kind.is_private(), "private spans are not table rows");
        }
        assert_eq!(
            Kind::ALL
                .iter()
                .filter(|k| !k.is_private())
                .copied()
                .collect::<Vec<_>>(),
            Kind::SECRETS
        );
        for kind in Kind::SECRETS {
            assert!(
                PATTERNS.iter().any(|row| row.kind == kind),
                "{kind} has no row"
            );
        }
    }

    /// Pieces of the table's secrets and their surroundings, to build texts from.
    fn piece() -> impl Strategy<Value = String> {
        let fixed: Vec<&str> = vec![
            "ghp_",
            "github_pat_",
            "glpat-",
            "xoxb-",
            "sk_live_",
            "rk_test_",
            "eyJ",
            "AKIA",
            "ASIA",
            "aws_secret_access_key",
            "AWS key is ",
            "secret-access-key",
            "password",
            "api_key",
            "Token",
            "pass",
            "SECRET",
            "=",
            ":",
            " = ",
            "=>",
            "\"",
            "'",
            "://",
            "@",
            "/",
            ".",
            "-",
            "_",
            " ",
            "\t",
            "\n",
            "\\n",
            "bearer ",
            "Authorization: Basic ",
            "https://u:",
            "HTTPS://hooks.slack.com/services/",
            "-----BEGIN RSA PRIVATE KEY-----",
            "-----END RSA PRIVATE KEY-----",
            "Proc-Type: 4,ENCRYPTED",
            "é",
        ];
        prop_oneof![
            3 => proptest::sample::select(fixed).prop_map(str::to_string),
            2 => "[A-Za-z0-9]{1,45}",
            1 => "[A-Za-z0-9+/=_.-]{1,45}",
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// Every match of a row contains a match of its trigger, so skipping the rows whose
        /// trigger did not match never misses a secret.
        #[test]
        fn triggers_match_inside_every_match(
            pieces in proptest::collection::vec(piece(), 1..16)
        ) {
            static COMPILED: std::sync::LazyLock<Vec<(Kind, regex::Regex, regex::Regex)>> =
                std::sync::LazyLock::new(|| {
                    PATTERNS
                        .iter()
                        .map(|row| {
                            let regex = regex::Regex::new(row.regex).unwrap();
                            (row.kind, regex, regex::Regex::new(row.trigger).unwrap())
                        })
                        .collect()
                });
            let text = pieces.concat();
            for (kind, regex, trigger) in COMPILED.iter() {
                for m in regex.find_iter(&text) {
                    proptest::prop_assert!(
                        trigger.is_match(m.as_str()),
                        "{}: {:?} has no trigger", kind, m.as_str()
                    );
                }
            }
        }
    }

    #[test]
    fn rows_are_in_kind_priority_order() {
        let order: Vec<usize> = PATTERNS
            .iter()
            .map(|row| Kind::ALL.iter().position(|k| *k == row.kind).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
    }

    #[test]
    fn names_round_trip_and_match_serde() {
        for kind in Kind::ALL {
            assert_eq!(kind.name().parse::<Kind>().unwrap(), kind);
            assert_eq!(kind.to_string(), kind.name());
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.name()));
            assert_eq!(serde_json::from_str::<Kind>(&json).unwrap(), kind);
        }
        let err = "github".parse::<Kind>().unwrap_err().to_string();
        assert!(
            err.contains("`github`") && err.contains("github-token"),
            "{err}"
        );
    }
}
