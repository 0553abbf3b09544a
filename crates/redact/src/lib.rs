//! Finds recognisable secrets in text and replaces each with `[REDACTED:<kind>]`, so that
//! what an agent writes into its memory never holds a credential.
//!
//! A [`Redactor`] is built once from a [`Config`] (which kinds are turned off, if any) and then
//! [redacts](Redactor::redact) any number of texts. The result is the text — borrowed, with
//! nothing allocated, when there was nothing to redact — and the [findings](Finding): the
//! [kind](Kind) and byte range of each secret in the original, for the caller to report
//! ([`Redacted::summary`], or serde for JSON).
//!
//! Text a person wraps in `<private>` … `</private>` is dropped whole, tags included, whatever
//! it holds: it becomes `[REDACTED:private]` and is reported as a finding of
//! [`Kind::Private`] (the rules for nested and unclosed tags are on [`Redactor::redact`]).
//!
//! What is recognised as a secret ([`Kind`] has the details): private key blocks, AWS access key ids and
//! secret keys, GitHub, GitLab, Slack and Stripe tokens, Slack webhook URLs, JWTs, bearer
//! tokens and `Authorization:` headers, passwords in URLs, and `password=`/`api_key:`-style
//! assignments whose value is not trivial. Commit hashes, UUIDs, file paths, version strings,
//! e-mail addresses and URLs without a password are never touched.
//!
//! # Example
//!
//! ```
//! use goldfish_redact::{Config, Kind, Redactor};
//! use std::borrow::Cow;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let redactor = Redactor::new(&Config::default());
//!
//! let note = "deploy with AKIAIOSFODNN7EXAMPLE, then https://ci:hunter2hunter@ci.local/run";
//! let redacted = redactor.redact(note);
//! assert_eq!(
//!     redacted.text,
//!     "deploy with [REDACTED:aws-access-key-id], then https://ci:[REDACTED:url-credentials]@ci.local/run",
//! );
//! assert_eq!(redacted.summary(), "redacted 2 secrets: aws-access-key-id, url-credentials");
//! assert_eq!(redacted.findings[0].kind, Kind::AwsAccessKeyId);
//! assert_eq!(&note[redacted.findings[0].range.clone()], "AKIAIOSFODNN7EXAMPLE");
//!
//! // Nothing to redact: the text comes back borrowed.
//! let clean = redactor.redact("fixed src/auth/token.rs in 3f2a9c1, see v1.4.2");
//! assert!(matches!(clean.text, Cow::Borrowed(_)) && clean.findings.is_empty());
//!
//! // A kind is turned off by name, explicitly (for instance from a store setting).
//! let mut config = Config::default();
//! config.disabled.push("jwt".parse::<Kind>()?);
//! assert_eq!(Redactor::new(&config).disabled(), [Kind::Jwt]);
//! # Ok(())
//! # }
//! ```
//!
//! # Guarantees
//!
//! - **Idempotent**: redacting redacted text changes nothing; `[REDACTED:<kind>]` is never
//!   taken for a secret.
//! - **Whole secrets**: where two patterns find overlapping secrets the replacement covers
//!   both, so no part of either is left.
//! - **Linear time**: every pattern runs on the `regex` crate's finite automata and the work per
//!   match is bounded; a pasted log cannot make redaction slow. A 16 KiB text takes well under
//!   a millisecond.
//! - **No panics**: any UTF-8 text is accepted, and every range is on character boundaries.
//!
//! # Crate features
//!
//! None: everything is always available.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

mod check;
mod error;
mod patterns;
mod private;

use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::Range;
use std::sync::OnceLock;

use regex::{Regex, RegexSet};
use serde::{Deserialize, Serialize};

pub use error::Error;
pub use patterns::Kind;

use patterns::{PATTERNS, Pattern};

/// What a [`Redactor`] leaves out.
///
/// Every kind is redacted by default. Turning one off means naming it here, which a store
/// setting does explicitly; there is no switch that turns redaction off as a whole. Private
/// spans ([`Kind::is_private`]) cannot be turned off: the tags are a person's explicit
/// request, so a config naming them still drops them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Config {
    /// Kinds that are not redacted. Names parse with [`str::parse`] (`"jwt".parse::<Kind>()`).
    pub disabled: Vec<Kind>,
}

/// Finds and replaces secrets. Build it once; [`redact`](Redactor::redact) takes `&self`, so
/// one redactor can be shared between threads.
#[derive(Debug, Clone)]
pub struct Redactor {
    /// The enabled rows' triggers: one pass over the text that says which rows can match.
    set: RegexSet,
    /// The enabled rows (same order as `set`), each with its regex, compiled the first time
    /// its trigger matches: building every regex up front would cost a process that saves one
    /// clean checkpoint a millisecond and a half.
    rows: Vec<(Pattern, OnceLock<Regex>)>,
    /// The kinds turned off, sorted and without duplicates.
    disabled: Vec<Kind>,
}

/// One secret found: its kind and where it was.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Finding {
    /// What was found.
    pub kind: Kind,
    /// The secret's byte range in the original text (not in the redacted text), on character
    /// boundaries.
    pub range: Range<usize>,
}

/// The outcome of [`Redactor::redact`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted<'a> {
    /// The text with every finding replaced by `[REDACTED:<kind>]`; borrowed from the input
    /// when there was nothing to replace.
    pub text: Cow<'a, str>,
    /// The secrets replaced, in the order they appeared; never overlapping.
    pub findings: Vec<Finding>,
}

impl Redactor {
    /// A redactor for every kind not turned off in `config`.
    pub fn new(config: &Config) -> Redactor {
        let mut disabled = config.disabled.clone();
        disabled.retain(|kind| !kind.is_private());
        disabled.sort_unstable();
        disabled.dedup();
        let enabled: Vec<Pattern> = PATTERNS
            .iter()
            .filter(|row| !disabled.contains(&row.kind))
            .copied()
            .collect();
        // The table is constant and a unit test compiles every row, so this cannot fail.
        let set = RegexSet::new(enabled.iter().map(|row| row.trigger))
            .expect("the pattern table compiles (checked by patterns::tests)");
        let rows = enabled
            .into_iter()
            .map(|row| (row, OnceLock::new()))
            .collect();
        Redactor {
            set,
            rows,
            disabled,
        }
    }

    /// The redactor with every kind on, built the first time it is asked for and then shared
    /// by the whole process: what a writer without a store setting (a worktree's journal or
    /// notes) uses, and what a store without disabled kinds uses, so that building it (most
    /// of a fresh process's cost) happens at most once.
    pub fn everything() -> &'static Redactor {
        static EVERYTHING: OnceLock<Redactor> = OnceLock::new();
        EVERYTHING.get_or_init(|| Redactor::new(&Config::default()))
    }

    /// The kinds this redactor leaves alone, sorted, for the caller to report.
    pub fn disabled(&self) -> &[Kind] {
        &self.disabled
    }

    /// Finds the secrets and private spans in `text` and replaces each with
    /// `[REDACTED:<kind>]`. `text` is one field (a description, a plan's body).
    ///
    /// A private span runs from `<private>` to the `</private>` that closes it, tags
    /// included and matched exactly as written (lower case); tags nest, so the span ends
    /// where the first open tag is closed; tags inside code fences count (markdown is not
    /// parsed); a `</private>` with nothing open is text. A `<private>` never closed drops
    /// the rest of the field and is reported as [`Kind::PrivateUnclosed`]. The replacement
    /// cannot join the text around it into a new tag, so no text between tags survives.
    pub fn redact<'a>(&self, text: &'a str) -> Redacted<'a> {
        self.redact_with(text, private::Until::EndOfText)
    }

    /// [`redact`](Self::redact) for a text written whole (a notes file, a journal block, a
    /// stored file redacted again): the same, except that a `<private>` never closed drops
    /// the rest of its *line* only (and on to the close of any tag opened on that line), so
    /// one forgotten close tag never empties the rest of a file that is not the writer's to
    /// lose.
    pub fn redact_document<'a>(&self, text: &'a str) -> Redacted<'a> {
        self.redact_with(text, private::Until::EndOfLine)
    }

    fn redact_with<'a>(&self, text: &'a str, until: private::Until) -> Redacted<'a> {
        let findings = self.find_with(text, until);
        if findings.is_empty() {
            return Redacted {
                text: Cow::Borrowed(text),
                findings,
            };
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for finding in &findings {
            out.push_str(&text[at..finding.range.start]);
            // Writing into a String cannot fail.
            let _ = write!(out, "{}{}]", check::MARKER, finding.kind);
            at = finding.range.end;
        }
        out.push_str(&text[at..]);
        Redacted {
            text: Cow::Owned(out),
            findings,
        }
    }

    /// Redacts an owned field where it is, for a caller that keeps its fields as `String`s (a
    /// checkpoint's description, a plan's body): nothing is copied when nothing is found.
    /// Returns the findings, with ranges in the text as it was.
    pub fn redact_in_place(&self, text: &mut String) -> Vec<Finding> {
        let redacted = self.redact(text);
        if redacted.findings.is_empty() {
            return redacted.findings;
        }
        let Redacted {
            text: new,
            findings,
        } = redacted;
        *text = new.into_owned();
        findings
    }

    /// The secrets and private spans in `text` (one field, as for [`redact`](Self::redact)),
    /// in order, without overlaps (overlapping candidates merge into one finding, named by
    /// the one that starts first, or by the earlier kind of [`Kind::ALL`]).
    pub fn find(&self, text: &str) -> Vec<Finding> {
        self.find_with(text, private::Until::EndOfText)
    }

    fn find_with(&self, text: &str, until: private::Until) -> Vec<Finding> {
        // (start, priority, end, kind) of every candidate: private spans first (priority 0),
        // then every row that passed its check (priority 1 + its index in the table).
        let mut candidates: Vec<(usize, usize, usize, Kind)> = private::spans(text, until)
            .into_iter()
            .map(|(range, kind)| (range.start, 0, range.end, kind))
            .collect();
        let matched = self.set.matches(text);
        if !matched.matched_any() && candidates.is_empty() {
            return Vec::new();
        }
        for index in matched.iter() {
            let (row, regex) = &self.rows[index];
            let regex = regex.get_or_init(|| {
                Regex::new(row.regex)
                    .expect("the pattern table compiles (checked by patterns::tests)")
            });
            let mut from = 0;
            while from <= text.len() {
                let Some(caps) = regex.captures_at(text, from) else {
                    break;
                };
                let Some(group) = caps.get(row.group) else {
                    break;
                };
                match check::accept(row.check, text, group.range()) {
                    Some(secret) => {
                        candidates.push((secret.start, 1 + index, secret.end, row.kind));
                        // Go on from the secret's last character, not after it: a quoted
                        // value's closing quote is the character before the next name
                        // (`password='…'token=…`), and the regex needs to see it.
                        let last = text[..group.end()]
                            .chars()
                            .next_back()
                            .map_or(group.end(), |c| group.end() - c.len_utf8());
                        from = last.max(next_char(text, group.start()));
                    }
                    // The regex took the leftmost match only; a later start may still hold a
                    // secret inside this one (the refused value of one assignment can be the
                    // name of the next: `api_key = cfg.api_key = s3cr3tV4lue`). Matches stay short (an
                    // assignment's value stops at `=` and is at most 256 bytes), so searching
                    // again from the next character is linear in the text's length.
                    None => {
                        let start = caps.get(0).map_or(group.start(), |m| m.start());
                        from = next_char(text, start);
                    }
                }
            }
        }
        candidates.sort_unstable();
        let mut findings: Vec<Finding> = Vec::with_capacity(candidates.len());
        for (start, _, end, kind) in candidates {
            match findings.last_mut() {
                Some(last) if start < last.range.end => {
                    last.range.end = last.range.end.max(end);
                }
                _ => findings.push(Finding {
                    kind,
                    range: start..end,
                }),
            }
        }
        findings
    }
}

impl Default for Redactor {
    /// A redactor for every kind.
    fn default() -> Redactor {
        Redactor::new(&Config::default())
    }
}

impl Redacted<'_> {
    /// Whether nothing was redacted.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }

    /// The kinds found, each once, in the order first found.
    pub fn kinds(&self) -> Vec<Kind> {
        kinds(&self.findings)
    }

    /// A one-line report for a save's message: `redacted 2 secrets: aws-access-key-id,
    /// github-token` (a kind found more than once says so: `github-token ×2`), `dropped 1
    /// private span`, both joined by `; `, or `nothing redacted`. See [`summary`] for findings gathered from several fields.
    pub fn summary(&self) -> String {
        summary(&self.findings)
    }

    /// The redacted text, owned.
    pub fn into_text(self) -> String {
        self.text.into_owned()
    }
}

/// The kinds in `findings`, each once, in the order first found.
pub fn kinds(findings: &[Finding]) -> Vec<Kind> {
    let mut kinds: Vec<Kind> = Vec::new();
    for finding in findings {
        if !kinds.contains(&finding.kind) {
            kinds.push(finding.kind);
        }
    }
    kinds
}

/// The one-line report of [`Redacted::summary`] for findings gathered from several texts (a
/// checkpoint's description and tags, a plan's title and body): the secrets, then the private
/// spans — `redacted 1 secret: github-token; dropped 2 private spans (1 unclosed, dropped to
/// the end of its field or line)` — or `nothing redacted`.
pub fn summary(findings: &[Finding]) -> String {
    let (private, secrets): (Vec<&Finding>, Vec<&Finding>) =
        findings.iter().partition(|f| f.kind.is_private());
    let mut parts: Vec<String> = Vec::new();
    if !secrets.is_empty() {
        let n = secrets.len();
        let mut out = format!("redacted {n} secret{}: ", if n == 1 { "" } else { "s" });
        let mut seen: Vec<Kind> = Vec::new();
        for finding in &secrets {
            if seen.contains(&finding.kind) {
                continue;
            }
            seen.push(finding.kind);
            if seen.len() > 1 {
                out.push_str(", ");
            }
            out.push_str(finding.kind.name());
            let times = secrets.iter().filter(|f| f.kind == finding.kind).count();
            if times > 1 {
                // Writing into a String cannot fail.
                let _ = write!(out, " ×{times}");
            }
        }
        parts.push(out);
    }
    if !private.is_empty() {
        let n = private.len();
        let mut out = format!("dropped {n} private span{}", if n == 1 { "" } else { "s" });
        let unclosed = private
            .iter()
            .filter(|f| f.kind == Kind::PrivateUnclosed)
            .count();
        if unclosed > 0 {
            // Writing into a String cannot fail.
            let _ = write!(
                out,
                " ({unclosed} unclosed, dropped to the end of its field or line)"
            );
        }
        parts.push(out);
    }
    if parts.is_empty() {
        return "nothing redacted".to_string();
    }
    parts.join("; ")
}

/// The byte index of the character after the one at `at` (or one past the end).
fn next_char(text: &str, at: usize) -> usize {
    text[at..]
        .chars()
        .next()
        .map_or(at + 1, |c| at + c.len_utf8())
}

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
