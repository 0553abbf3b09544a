//! Git context from one `git status --porcelain=v2 --branch -z` spawn.

use std::path::Path;
use std::process::{Command, Stdio};

/// At most this many changed files are kept; the rest are counted in `files_omitted`.
pub const MAX_FILES: usize = 30;

/// The git state of a directory at save time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GitContext {
    /// The current branch; `None` on a detached HEAD.
    pub branch: Option<String>,
    /// The short (7 hex digit) commit of HEAD; `None` on an unborn branch (no commit yet).
    pub commit: Option<String>,
    /// Changed files: tracked changes (staged or not), conflicts and untracked files (not
    /// ignored ones), in git's order, at most [`MAX_FILES`].
    pub files: Vec<String>,
    /// How many more changed files there were beyond `files`.
    pub files_omitted: usize,
}

/// The git context of `dir`, or `None` when `dir` is not in a repository or git cannot run.
///
/// Runs `git status --porcelain=v2 --branch -z` once in `dir`, with `GIT_OPTIONAL_LOCKS=0`
/// so that it never takes the index lock another git command might be holding (and never
/// makes that command fail).
pub fn git_context(dir: &Path) -> Option<GitContext> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["status", "--porcelain=v2", "--branch", "-z"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    Some(parse_porcelain_v2(&String::from_utf8_lossy(&output.stdout)))
}

/// Parses the output of `git status --porcelain=v2 --branch -z`.
pub fn parse_porcelain_v2(output: &str) -> GitContext {
    let mut context = GitContext::default();
    let mut files = Vec::new();
    let mut records = output.split('\0');
    while let Some(record) = records.next() {
        if let Some(oid) = record.strip_prefix("# branch.oid ") {
            if oid != "(initial)" {
                context.commit = Some(oid.chars().take(7).collect());
            }
        } else if let Some(head) = record.strip_prefix("# branch.head ") {
            if head != "(detached)" {
                context.branch = Some(head.to_string());
            }
        } else if let Some(rest) = record.strip_prefix("1 ") {
            // 1 XY sub mH mI mW hH hI path
            if let Some(path) = rest.splitn(8, ' ').nth(7) {
                files.push(path.to_string());
            }
        } else if let Some(rest) = record.strip_prefix("2 ") {
            // 2 XY sub mH mI mW hH hI Xscore path, then the original path as its own record.
            if let Some(path) = rest.splitn(9, ' ').nth(8) {
                files.push(path.to_string());
            }
            records.next();
        } else if let Some(rest) = record.strip_prefix("u ") {
            // u XY sub m1 m2 m3 mW h1 h2 h3 path
            if let Some(path) = rest.splitn(10, ' ').nth(9) {
                files.push(path.to_string());
            }
        } else if let Some(path) = record.strip_prefix("? ") {
            files.push(path.to_string());
        }
    }
    if files.len() > MAX_FILES {
        context.files_omitted = files.len() - MAX_FILES;
        files.truncate(MAX_FILES);
    }
    context.files = files;
    context
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_records() {
        let out = "# branch.oid 0123456789abcdef0123456789abcdef01234567\0\
                   # branch.head main\0\
                   # branch.upstream origin/main\0\
                   1 .M N... 100644 100644 100644 aaa bbb src/with space.rs\0\
                   2 R. N... 100644 100644 100644 aaa bbb R100 new.rs\0old.rs\0\
                   u UU N... 100644 100644 100644 100644 a b c conflict.rs\0\
                   ? untracked.txt\0\
                   ! ignored.txt\0";
        let ctx = parse_porcelain_v2(out);
        assert_eq!(ctx.branch.as_deref(), Some("main"));
        assert_eq!(ctx.commit.as_deref(), Some("0123456"));
        assert_eq!(
            ctx.files,
            [
                "src/with space.rs",
                "new.rs",
                "conflict.rs",
                "untracked.txt"
            ]
        );
        assert_eq!(ctx.files_omitted, 0);
    }

    #[test]
    fn detached_and_unborn() {
        let cases = [
            (
                "# branch.oid (initial)\0# branch.head main\0",
                Some("main"),
                None,
            ),
            (
                "# branch.oid abcdef0123\0# branch.head (detached)\0",
                None,
                Some("abcdef0"),
            ),
        ];
        for (out, branch, commit) in cases {
            let ctx = parse_porcelain_v2(out);
            assert_eq!(ctx.branch.as_deref(), branch, "{out}");
            assert_eq!(ctx.commit.as_deref(), commit, "{out}");
        }
    }

    #[test]
    fn caps_files() {
        let out: String = (0..45).map(|i| format!("? f{i}\0")).collect();
        let ctx = parse_porcelain_v2(&out);
        assert_eq!(ctx.files.len(), MAX_FILES);
        assert_eq!(ctx.files_omitted, 15);
        assert_eq!(ctx.files[0], "f0");
    }
}
