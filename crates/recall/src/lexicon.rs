//! The engine's word lists, kept as data in `src/lexicon.txt`: stop words (English function
//! words and the framing of a question), dropped from queries, and groups of synonyms and
//! abbreviations, searched for one another. Parsed once, at first use.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::text::{stem, tokenize};

/// The word lists.
pub(crate) struct Lexicon {
    stop: HashSet<Vec<u8>>,
    /// Each group's members, folded.
    groups: Vec<Vec<Vec<u8>>>,
    /// A member's stem → the groups it belongs to.
    by_stem: HashMap<Vec<u8>, Vec<usize>>,
}

/// The text of the lists.
const TEXT: &str = include_str!("lexicon.txt");

/// The lexicon, parsed on first use.
pub(crate) fn lexicon() -> &'static Lexicon {
    static LEXICON: OnceLock<Lexicon> = OnceLock::new();
    LEXICON.get_or_init(|| Lexicon::parse(TEXT))
}

/// The stem of a folded word, owned.
fn stem_of(word: &[u8]) -> Vec<u8> {
    let mut buf = [0u8; 64];
    stem(word, &mut buf).to_vec()
}

impl Lexicon {
    /// Reads the lists: `#` starts a comment, `[stop]` and `[synonyms]` start their sections;
    /// words are folded as the engine folds text.
    fn parse(text: &str) -> Lexicon {
        let mut lex = Lexicon {
            stop: HashSet::new(),
            groups: Vec::new(),
            by_stem: HashMap::new(),
        };
        let mut in_synonyms = false;
        let mut buf = Vec::new();
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            match line {
                "" => continue,
                "[stop]" => in_synonyms = false,
                "[synonyms]" => in_synonyms = true,
                _ => {
                    let mut words: Vec<Vec<u8>> = Vec::new();
                    tokenize(line, &mut buf, |w| {
                        if !words.iter().any(|x| x == w) {
                            words.push(w.to_vec());
                        }
                    });
                    if !in_synonyms {
                        lex.stop.extend(words);
                    } else if words.len() > 1 {
                        let g = lex.groups.len();
                        for w in &words {
                            let entry = lex.by_stem.entry(stem_of(w)).or_default();
                            if !entry.contains(&g) {
                                entry.push(g);
                            }
                        }
                        lex.groups.push(words);
                    }
                }
            }
        }
        lex
    }

    /// Whether a folded word carries no content in a query.
    pub(crate) fn is_stop_word(&self, word: &[u8]) -> bool {
        self.stop.contains(word)
    }

    /// The other members of the groups of a folded word (matched by stem), in the lists'
    /// order, without the word itself or anything with its stem.
    pub(crate) fn synonyms(&self, word: &[u8]) -> Vec<&[u8]> {
        let own = stem_of(word);
        let mut out: Vec<&[u8]> = Vec::new();
        for &g in self.by_stem.get(&own).map(Vec::as_slice).unwrap_or(&[]) {
            for m in &self.groups[g] {
                if stem_of(m) != own && !out.contains(&m.as_slice()) {
                    out.push(m);
                }
            }
        }
        out
    }

    /// The synonym groups, for tests.
    #[cfg(test)]
    pub(crate) fn groups(&self) -> &[Vec<Vec<u8>>] {
        &self.groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_and_question_framing() {
        let lex = lexicon();
        for w in [
            "the",
            "how",
            "did",
            "we",
            "what",
            "decide",
            "about",
            "is",
            "there",
            "why",
            "happened",
            "basically",
            "anymore",
            "figured",
        ] {
            assert!(lex.is_stop_word(w.as_bytes()), "{w}");
        }
        for w in [
            "auth",
            "migration",
            "backoff",
            "retry",
            "login",
            "timeout",
            "dfa",
        ] {
            assert!(!lex.is_stop_word(w.as_bytes()), "{w}");
        }
    }

    #[test]
    // Long: a test table.
    fn synonyms_by_stem() {
        let lex = lexicon();
        let syn = |w: &str| -> Vec<String> {
            lex.synonyms(w.as_bytes())
                .iter()
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect()
        };
        assert!(syn("auth").contains(&"login".to_string()));
        assert!(syn("logins").contains(&"authentication".to_string()));
        assert!(syn("db").contains(&"database".to_string()));
        assert!(syn("databases").contains(&"db".to_string()));
        assert!(syn("settings").contains(&"config".to_string()));
        assert!(syn("docs").contains(&"documentation".to_string()));
        assert!(syn("deps").contains(&"dependencies".to_string()));
        assert!(!syn("auth").contains(&"auth".to_string()));
        // Symptoms and their cures, said either way.
        for (a, b) in [
            ("slow", "performance"),
            ("latency", "faster"),
            ("sluggish", "speedup"),
            ("segfault", "panic"),
            ("aborted", "crash"),
            ("freeze", "deadlock"),
            ("sporadic", "flaky"),
            ("regression", "bug"),
            ("intermittent", "flaky"),
            ("allocations", "memory"),
            ("threads", "concurrency"),
            ("interrupted", "cancel"),
            ("garbled", "corruption"),
            ("rollback", "revert"),
        ] {
            assert!(syn(a).contains(&b.to_string()), "{a} ~ {b}");
        }
        // What a change did.
        for (a, b) in [
            ("strip", "remove"),
            ("trimmed", "delete"),
            ("updated", "upgrade"),
            ("support", "implement"),
            ("enhanced", "improve"),
            ("avoid", "prevent"),
            ("substitute", "replace"),
            ("transform", "convert"),
            ("recognize", "detect"),
            ("refused", "reject"),
            ("honour", "respect"),
            ("chosen", "select"),
            ("wipe", "reset"),
            ("erroneous", "wrong"),
        ] {
            assert!(syn(a).contains(&b.to_string()), "{a} ~ {b}");
        }
        // Names of things, abbreviations, platforms and formats.
        for (a, b) in [
            ("cfg", "configuration"),
            ("manpage", "documentation"),
            ("pattern", "regex"),
            ("encoding", "unicode"),
            ("dst", "timezone"),
            ("diagnostic", "message"),
            ("lib", "library"),
            ("pkg", "package"),
            ("semver", "version"),
            ("tmp", "temporary"),
            ("ctx", "context"),
            ("utils", "helper"),
            ("subprocess", "process"),
            ("delimiter", "separator"),
            ("crlf", "newline"),
            ("stdin", "input"),
            ("i18n", "localization"),
            ("ssl", "tls"),
            ("yml", "yaml"),
            ("markdown", "md"),
            ("stacktrace", "backtrace"),
            ("posix", "unix"),
            ("aarch64", "arm"),
            ("amd64", "x86"),
            ("vectorized", "simd"),
            ("filesystem", "fs"),
            ("zstd", "compression"),
            ("certificate", "cert"),
            ("datetime", "date"),
            ("span", "duration"),
            ("compatible", "compat"),
            ("hooks", "callback"),
            ("download", "fetch"),
            ("checksum", "hash"),
            ("rustc", "compiler"),
            ("tracing", "logging"),
            // Services, people, and what users see.
            ("expiry", "expired"),
            ("renew", "refresh"),
            ("verbose", "noisy"),
            ("quiet", "silence"),
            ("startup", "boot"),
            ("shutdown", "terminate"),
            ("diacritics", "accents"),
            ("sanitize", "redact"),
            ("privacy", "private"),
            ("highlighting", "bold"),
            ("spinner", "progress"),
            ("daemon", "server"),
            ("frontend", "client"),
            ("colleague", "teammate"),
            ("approval", "approve"),
            ("overview", "summary"),
            ("shorten", "shrink"),
        ] {
            assert!(syn(a).contains(&b.to_string()), "{a} ~ {b}");
        }
        // Symmetric: a group is searched from any member.
        assert!(syn("performance").contains(&"slow".to_string()));
        assert!(syn("library").contains(&"lib".to_string()));
        assert!(syn("kubernetes").is_empty());
    }

    /// Every group is well formed: at least two members, each folded as the engine folds
    /// text (one token), none a stop word, and no member in two groups.
    #[test]
    fn every_group_is_well_formed() {
        let lex = lexicon();
        assert!(lex.groups().len() >= 200);
        let mut seen = HashSet::new();
        for g in lex.groups() {
            assert!(g.len() >= 2, "{g:?}");
            for m in g {
                let mut toks = Vec::new();
                tokenize(std::str::from_utf8(m).unwrap(), &mut Vec::new(), |t| {
                    toks.push(t.to_vec())
                });
                assert_eq!(
                    toks,
                    std::slice::from_ref(m),
                    "{m:?} is not one folded word"
                );
                assert!(!lex.is_stop_word(m), "{m:?} is a stop word");
                assert!(seen.insert(m.clone()), "{m:?} is in two groups");
            }
        }
    }
}
