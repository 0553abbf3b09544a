//! Freshness: whether the files a checkpoint names changed in git since its commit.
//!
//! The pure part: the arguments of the one `git log` a recall runs ([`freshness_log_args`]),
//! the parsing of its output ([`GitLog::parse`]) and the claim for each hit
//! ([`GitLog::freshness`]). Running git is [`crate::git_freshness`]'s.
//!
//! The log walks back from HEAD to the commit of the oldest hit (the *anchor*: that commit is
//! listed, its ancestors are not), and no further than a margin before the oldest hit's save
//! time, with each commit's parents and, of the files it touched, only those the hits name
//! (a pathspec: git compares only those paths, not whole trees). For a hit saved at commit
//! `c`, the commits "since" are those of the log that are not `c` and not ancestors of `c`
//! (reachability computed here, over the log's parents): every logged commit is reachable
//! from HEAD, so they are the commits of `c..HEAD`. A claim is made only for a `c` the log
//! holds and, when the log holds the anchor, only for a `c` that descends from it (the others'
//! "since" may reach past the anchor, which the log does not cover). A `c` the log does not
//! hold (never on HEAD's history, history rewritten, a shallow clone without it) gives no
//! claim either way.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, TimeDelta, Utc};

/// How far before the oldest hit's save time the log starts: a checkpoint's commit is the HEAD
/// of its save, usually made some time before it.
pub const FRESHNESS_MARGIN_DAYS: i64 = 90;

/// At most this many commits are read (a bound on git's work and output).
pub const FRESHNESS_MAX_COMMITS: usize = 5000;

/// The marker that starts each commit's record in the log's output: a control character, which
/// git quotes in any file name that holds it, so no file line can start with it.
const RECORD: &str = "\u{1}";

/// One named file and how many commits changed it since the checkpoint's commit.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct FileFreshness {
    /// The file, as the checkpoint names it (relative to the repository's top).
    pub path: String,
    /// Commits since the checkpoint's commit that changed it (merges not counted); 0 when
    /// unchanged.
    pub commits: usize,
}

/// What git says about a checkpoint's files since its commit. As JSON it also carries the
/// verdict and the line an agent reads: `{"commit", "stale", "summary", "files"}` (see
/// [`Freshness::is_stale`], [`Freshness::text`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Freshness {
    /// The checkpoint's commit, as it names it.
    pub commit: String,
    /// Each file it names, in its order, with the commits that changed it since.
    pub files: Vec<FileFreshness>,
}

impl Freshness {
    /// Whether any named file changed since the commit.
    pub fn is_stale(&self) -> bool {
        self.files.iter().any(|f| f.commits > 0)
    }

    /// One short line for an agent: `src/auth.rs changed in 4 commits since abc1234`,
    /// `changed since abc1234: a.rs (2 commits), b.rs (1 commit)` or
    /// `files unchanged since abc1234`.
    pub fn text(&self) -> String {
        let changed: Vec<&FileFreshness> = self.files.iter().filter(|f| f.commits > 0).collect();
        let commits = |n: usize| format!("{n} commit{}", if n == 1 { "" } else { "s" });
        match changed.as_slice() {
            [] => format!("files unchanged since {}", self.commit),
            [one] => format!(
                "{} changed in {} since {}",
                one.path,
                commits(one.commits),
                self.commit
            ),
            many => format!(
                "changed since {}: {}",
                self.commit,
                many.iter()
                    .map(|f| format!("{} ({})", f.path, commits(f.commits)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl serde::Serialize for Freshness {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut s = serializer.serialize_struct("Freshness", 4)?;
        s.serialize_field("commit", &self.commit)?;
        s.serialize_field("stale", &self.is_stale())?;
        s.serialize_field("summary", &self.text())?;
        s.serialize_field("files", &self.files)?;
        s.end()
    }
}

/// Which recalled memories to keep by their freshness.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FreshnessFilter {
    /// Every memory.
    #[default]
    Any,
    /// Only memories whose named files changed since their commit (no claim: left out).
    Stale,
    /// Every memory but those whose named files changed since their commit (no claim: kept).
    Fresh,
}

impl FreshnessFilter {
    /// Whether a memory with this freshness (or none) is kept.
    pub fn keeps(self, freshness: Option<&Freshness>) -> bool {
        let stale = freshness.is_some_and(Freshness::is_stale);
        match self {
            FreshnessFilter::Any => true,
            FreshnessFilter::Stale => stale,
            FreshnessFilter::Fresh => !stale,
        }
    }
}

/// The arguments (after `git`) of the one `git log` that answers for hits saved at
/// `oldest` or later naming `files`: every commit from HEAD back to `anchor` (the oldest hit's
/// commit, included; ignored unless it is 4 to 64 hex digits, and skipped by git when the
/// repository does not hold it), and no older than [`FRESHNESS_MARGIN_DAYS`] before `oldest`,
/// at most [`FRESHNESS_MAX_COMMITS`], each as `\x01<hash> <parents…>` then those of `files` it
/// changed, one a line. Each file is a literal pathspec from the repository's top.
pub fn freshness_log_args(
    oldest: DateTime<Utc>,
    anchor: Option<&str>,
    files: &[&str],
) -> Vec<String> {
    let since = oldest - TimeDelta::days(FRESHNESS_MARGIN_DAYS);
    let mut args: Vec<String> = vec![
        "-c".into(),
        "core.quotePath=false".into(),
        "log".into(),
        "--ignore-missing".into(),
        "--no-color".into(),
        "--no-renames".into(),
        "--format=%x01%H %P".into(),
        "--name-only".into(),
        // Every commit listed (not only those touching `files`), each with its real parents.
        "--full-history".into(),
        "--sparse".into(),
        format!("--max-count={FRESHNESS_MAX_COMMITS}"),
        format!("--since={}", since.format("%Y-%m-%d %H:%M:%S +0000")),
        "HEAD".into(),
    ];
    if let Some(anchor) = anchor.map(str::trim).filter(|a| is_commit(a)) {
        args.push("--not".into());
        args.push(format!("{anchor}^@"));
    }
    args.push("--".into());
    args.extend(files.iter().map(|f| format!(":(top,literal){f}")));
    args
}

/// One commit of the log: its parents and the files it changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct LogCommit {
    parents: Vec<String>,
    files: Vec<String>,
}

/// The parsed output of [`freshness_log_args`]' log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitLog {
    /// Full hashes in log order.
    order: Vec<String>,
    commits: HashMap<String, LogCommit>,
    /// The full hash of the commit the log stops at ([`GitLog::with_anchor`]), when it holds it.
    anchor: Option<String>,
}

impl GitLog {
    /// Parses the log's text; lines before the first record and a last record cut short are
    /// read as far as they go (a cut record only loses files, never invents any).
    pub fn parse(text: &str) -> GitLog {
        let mut log = GitLog::default();
        let mut current: Option<String> = None;
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix(RECORD) {
                let mut hashes = rest.split_whitespace();
                let Some(hash) = hashes.next().filter(|h| is_hex(h)) else {
                    current = None;
                    continue;
                };
                let entry = LogCommit {
                    parents: hashes.filter(|h| is_hex(h)).map(str::to_string).collect(),
                    files: Vec::new(),
                };
                if log.commits.insert(hash.to_string(), entry).is_none() {
                    log.order.push(hash.to_string());
                }
                current = Some(hash.to_string());
            } else if let Some(c) = current
                .as_ref()
                .filter(|_| !line.is_empty())
                .and_then(|h| log.commits.get_mut(h))
            {
                c.files.push(line.to_string());
            }
        }
        log
    }

    /// The log of [`freshness_log_args`] with this `anchor`: when the log holds it, a claim is
    /// made only for commits that descend from it (or are it).
    pub fn with_anchor(mut self, anchor: &str) -> GitLog {
        self.anchor = self.resolve(anchor).map(str::to_string);
        self
    }

    /// How many commits the log holds.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the log holds no commit.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The full hash of the one commit `commit` (a hash or a prefix of at least 4 hex digits)
    /// names, if the log holds exactly one.
    fn resolve(&self, commit: &str) -> Option<&str> {
        let commit = commit.trim().to_ascii_lowercase();
        if !is_commit(&commit) {
            return None;
        }
        let mut found = self.order.iter().filter(|h| h.starts_with(&commit));
        let one = found.next()?;
        found.next().is_none().then_some(one.as_str())
    }

    /// The claim for a checkpoint saved at `commit` naming `files`: `None` (no claim either
    /// way) when it names no file, the log does not hold its commit, or that commit does not
    /// descend from the log's anchor.
    pub fn freshness(&self, commit: &str, files: &[String]) -> Option<Freshness> {
        if files.is_empty() {
            return None;
        }
        let start = self.resolve(commit)?;
        // `start` and its ancestors within the log: not "since".
        let mut before: HashSet<&str> = HashSet::new();
        let mut stack = vec![start];
        while let Some(hash) = stack.pop() {
            if !before.insert(hash) {
                continue;
            }
            if let Some(c) = self.commits.get(hash) {
                stack.extend(c.parents.iter().map(String::as_str));
            }
        }
        if self.anchor.as_deref().is_some_and(|a| !before.contains(a)) {
            return None;
        }
        let mut counts = vec![0usize; files.len()];
        for hash in &self.order {
            if before.contains(hash.as_str()) {
                continue;
            }
            let Some(c) = self.commits.get(hash) else {
                continue;
            };
            for (count, file) in counts.iter_mut().zip(files) {
                if c.files.iter().any(|f| f == file) {
                    *count += 1;
                }
            }
        }
        Some(Freshness {
            commit: commit.trim().to_string(),
            files: files
                .iter()
                .zip(counts)
                .map(|(path, commits)| FileFreshness {
                    path: path.clone(),
                    commits,
                })
                .collect(),
        })
    }
}

fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `s` can be a commit's hash or abbreviation: 4 to 64 hex digits (SHA-1 or SHA-256).
/// Anything else is never given to git.
fn is_commit(s: &str) -> bool {
    (4..=64).contains(&s.len()) && is_hex(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn files(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    /// A linear history d → c → b → a (newest first), then a branch merged in.
    const LOG: &str = "\u{1}dddd0000 cccc0000 eeee0000\n\
        \n\
        \u{1}eeee0000 bbbb0000\n\
        \n\
        src/auth.rs\n\
        \u{1}cccc0000 bbbb0000\n\
        \n\
        src/auth.rs\n\
        README.md\n\
        \u{1}bbbb0000 aaaa0000\n\
        \n\
        src/auth.rs\n\
        \u{1}aaaa0000\n\
        \n\
        src/lib.rs\n";

    #[test]
    fn counts_commits_since_not_before_or_merges() {
        let log = GitLog::parse(LOG);
        assert_eq!(log.len(), 5);
        let f = log
            .freshness("bbbb", &files(&["src/auth.rs", "src/lib.rs"]))
            .unwrap();
        assert_eq!(
            f.files[0].commits, 2,
            "c and e, not b itself, not the merge d"
        );
        assert_eq!(f.files[1].commits, 0);
        assert!(f.is_stale());
        assert_eq!(f.text(), "src/auth.rs changed in 2 commits since bbbb");
        // From the side branch's commit, c (not its ancestor) is since.
        let f = log.freshness("eeee0000", &files(&["src/auth.rs"])).unwrap();
        assert_eq!(f.files[0].commits, 1);
        let f = log.freshness("dddd", &files(&["src/auth.rs"])).unwrap();
        assert!(!f.is_stale());
        assert_eq!(f.text(), "files unchanged since dddd");
        let f = log
            .freshness("aaaa", &files(&["src/auth.rs", "README.md"]))
            .unwrap();
        assert_eq!(
            f.text(),
            "changed since aaaa: src/auth.rs (3 commits), README.md (1 commit)"
        );
    }

    #[test]
    fn unknown_ambiguous_or_fileless_makes_no_claim() {
        let log = GitLog::parse(LOG);
        assert_eq!(log.freshness("ffff", &files(&["src/auth.rs"])), None);
        assert_eq!(log.freshness("0000", &files(&["src/auth.rs"])), None);
        assert_eq!(log.freshness("a", &files(&["src/auth.rs"])), None);
        assert_eq!(log.freshness("zzzz", &files(&["src/auth.rs"])), None);
        assert_eq!(log.freshness("bbbb", &[]), None);
        assert_eq!(GitLog::parse("").freshness("bbbb", &files(&["x"])), None);
    }

    #[test]
    fn json_carries_the_verdict_and_the_line() {
        let log = GitLog::parse(LOG);
        let f = log.freshness("bbbb", &files(&["src/auth.rs"])).unwrap();
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "commit": "bbbb",
                "stale": true,
                "summary": "src/auth.rs changed in 2 commits since bbbb",
                "files": [{"path": "src/auth.rs", "commits": 2}],
            })
        );
    }

    #[test]
    fn filters_keep_what_they_say() {
        let log = GitLog::parse(LOG);
        let stale = log.freshness("bbbb", &files(&["src/auth.rs"]));
        let fresh = log.freshness("dddd", &files(&["src/auth.rs"]));
        for (filter, kept) in [
            (FreshnessFilter::Any, [true, true, true]),
            (FreshnessFilter::Stale, [true, false, false]),
            (FreshnessFilter::Fresh, [false, true, true]),
        ] {
            let got = [
                filter.keeps(stale.as_ref()),
                filter.keeps(fresh.as_ref()),
                filter.keeps(None),
            ];
            assert_eq!(got, kept, "{filter:?}");
        }
    }

    #[test]
    fn log_args_bound_the_window_and_count() {
        let at = "2026-04-01T12:00:00Z".parse().unwrap();
        let args = freshness_log_args(at, Some("abc1234"), &["src/a b.rs", "*.rs"]);
        assert!(args.contains(&"--since=2026-01-01 12:00:00 +0000".to_string()));
        assert!(args.contains(&format!("--max-count={FRESHNESS_MAX_COMMITS}")));
        let tail = &args[args.iter().position(|a| a == "HEAD").unwrap()..];
        assert_eq!(
            tail,
            [
                "HEAD",
                "--not",
                "abc1234^@",
                "--",
                ":(top,literal)src/a b.rs",
                ":(top,literal)*.rs"
            ]
        );
        // What is not a hash never reaches git's command line.
        for bad in ["--output=/tmp/x", "abc", "HEAD~1", "abcd efgh", ""] {
            let args = freshness_log_args(at, Some(bad), &[]);
            assert!(!args.contains(&"--not".to_string()), "{bad}");
            assert_eq!(args.last().map(String::as_str), Some("--"));
        }
    }

    #[test]
    fn an_anchor_limits_claims_to_its_descendants() {
        // The log of `HEAD --not bbbb^@` over LOG's history: everything but a.
        let text = LOG.split("\u{1}aaaa0000").next().unwrap();
        let log = GitLog::parse(text).with_anchor("bbbb");
        let f = log.freshness("cccc", &files(&["src/auth.rs"])).unwrap();
        assert_eq!(f.files[0].commits, 1, "e, on the side branch");
        assert!(
            log.freshness("bbbb0000", &files(&["src/auth.rs"]))
                .is_some()
        );
        // An anchor the log does not hold leaves the window by date.
        let log = GitLog::parse(text).with_anchor("ffff");
        assert!(log.freshness("cccc", &files(&["src/auth.rs"])).is_some());
        // A commit that does not descend from the anchor: its "since" may reach past it.
        let log = GitLog::parse(LOG).with_anchor("cccc");
        assert_eq!(log.freshness("eeee", &files(&["src/auth.rs"])), None);
        assert_eq!(log.freshness("bbbb", &files(&["src/auth.rs"])), None);
        assert!(log.freshness("dddd", &files(&["src/auth.rs"])).is_some());
    }

    proptest! {
        /// On a random linear history, a file's count since commit i is the number of
        /// newer commits that touched it; any text parses without a panic.
        #[test]
        fn linear_history_counts(touches in proptest::collection::vec(any::<bool>(), 1..30), at in 0usize..30, junk in ".{0,200}") {
            let n = touches.len();
            let at = at % n;
            let hash = |i: usize| format!("{i:08x}");
            // Commit i's parent is i - 1; the log lists newest first.
            let mut text = String::new();
            for i in (0..n).rev() {
                let parent = if i == 0 { String::new() } else { hash(i - 1) };
                text.push_str(&format!("\u{1}{} {parent}\n\n", hash(i)));
                if touches[i] {
                    text.push_str("f.rs\n");
                }
            }
            let log = GitLog::parse(&text);
            let f = log.freshness(&hash(at), &files(&["f.rs"])).unwrap();
            let expected = touches[at + 1..].iter().filter(|t| **t).count();
            prop_assert_eq!(f.files[0].commits, expected);
            let _ = GitLog::parse(&junk).freshness("abcd", &files(&["f.rs"]));
        }
    }
}
