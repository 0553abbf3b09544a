//! Git context from one `git status --porcelain=v2 --branch -z` spawn, and the git user from
//! one `git config` spawn run beside it; freshness from one bounded `git log`.

use std::io::Read as _;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::checkpoint::Checkpoint;
use crate::freshness::{Freshness, GitLog, freshness_log_args};

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
    finish(spawn_status(dir)?).map(|out| parse_porcelain_v2(&out))
}

/// Who git says the user is in a directory: `user.name` and `user.email` as `git config`
/// reads them there (the repository's configuration over the user's and the system's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GitIdentity {
    /// `user.name`, if set.
    pub name: Option<String>,
    /// `user.email`, if set.
    pub email: Option<String>,
}

/// The git user of `dir` (see [`GitIdentity`]); empty when neither is set, `dir` does not
/// exist or git cannot run. Runs `git config -z --get-regexp` once.
pub fn git_identity(dir: &Path) -> GitIdentity {
    spawn_identity(dir)
        .and_then(finish)
        .map(|out| parse_identity(&out))
        .unwrap_or_default()
}

/// [`git_context`] (when `context`) and [`git_identity`] of `dir`, their two git processes
/// running at the same time, so that a save waits for the slower one rather than for both.
pub(crate) fn context_and_identity(dir: &Path, context: bool) -> (Option<GitContext>, GitIdentity) {
    let status = if context { spawn_status(dir) } else { None };
    let identity = spawn_identity(dir);
    let context = status.and_then(finish).map(|out| parse_porcelain_v2(&out));
    let identity = identity
        .and_then(finish)
        .map(|out| parse_identity(&out))
        .unwrap_or_default();
    (context, identity)
}

/// How long a recall's freshness log may run before it is stopped and no claim is made (the
/// hooks, with a budget of their own, pass a shorter time).
pub const FRESHNESS_TIMEOUT: Duration = Duration::from_millis(1500);

/// At most this many bytes of the freshness log are read; the rest is cut off.
pub const FRESHNESS_MAX_BYTES: u64 = 16 << 20;

/// Whether the files each hit names changed in the git repository around `dir` since the
/// hit's commit: one `git log` ([`crate::freshness_log_args`]: from HEAD back to the oldest
/// hit's commit, only the named files compared) for all of them, none when no hit has both a
/// commit and a file. Each hit is `(commit, files, saved at)`; the answer is in the same
/// order, `None` for no claim. No git, not a repository, a commit the history does not hold, a
/// log that fails or runs past `timeout` ([`FRESHNESS_TIMEOUT`] for a recall; zero runs no
/// git): no claim, never an error. The log's output is read up to [`FRESHNESS_MAX_BYTES`].
pub fn git_freshness(
    dir: &Path,
    hits: &[(&str, &[String], DateTime<Utc>)],
    timeout: Duration,
) -> Vec<Option<Freshness>> {
    if timeout.is_zero() {
        return vec![None; hits.len()];
    }
    let asking: Vec<&(&str, &[String], DateTime<Utc>)> = hits
        .iter()
        .filter(|(commit, files, _)| !commit.trim().is_empty() && !files.is_empty())
        .collect();
    let Some(&&(anchor, _, oldest)) = asking.iter().min_by_key(|h| h.2) else {
        return vec![None; hits.len()];
    };
    let mut files: Vec<&str> = asking
        .iter()
        .flat_map(|h| h.1.iter().map(String::as_str))
        .collect();
    files.sort_unstable();
    files.dedup();
    let Some(text) = run_bounded(
        git_in(dir).args(freshness_log_args(oldest, Some(anchor), &files)),
        timeout,
        FRESHNESS_MAX_BYTES,
    ) else {
        return vec![None; hits.len()];
    };
    let log = GitLog::parse(&text).with_anchor(anchor);
    hits.iter()
        .map(|(commit, files, _)| log.freshness(commit, files))
        .collect()
}

/// [`git_freshness`] of those `checkpoints` that belong to `workspace`, the one whose
/// repository is `dir` (the others: no claim), in their order, within `timeout`.
pub fn checkpoint_freshness<'a>(
    dir: &Path,
    workspace: &str,
    checkpoints: impl IntoIterator<Item = &'a Checkpoint>,
    timeout: Duration,
) -> Vec<Option<Freshness>> {
    let hits: Vec<(&str, &[String], DateTime<Utc>)> = checkpoints
        .into_iter()
        .map(|c| match &c.commit {
            Some(commit) if c.workspace == workspace => {
                (commit.as_str(), c.files.as_slice(), c.timestamp)
            }
            _ => ("", &[][..], c.timestamp),
        })
        .collect();
    git_freshness(dir, &hits, timeout)
}

/// Runs `command`, reading at most `max_bytes` of its stdout, for at most `timeout`: its
/// stdout when it exits with success in time (a cut-off output counts as success); `None`
/// when it cannot start, fails or is stopped for taking too long.
fn run_bounded(command: &mut Command, timeout: Duration, max_bytes: u64) -> Option<String> {
    let mut child = command.spawn().ok()?;
    let stdout = child.stdout.take()?;
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let read = stdout.take(max_bytes).read_to_end(&mut out);
        // The receiver may have given up already; nothing to do then.
        let _ = send.send(read.map(|_| out));
    });
    let out = receive.recv_timeout(timeout);
    let Ok(Ok(out)) = out else {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    };
    let cut = out.len() as u64 >= max_bytes;
    if cut {
        let _ = child.kill();
    }
    let status = child.wait().ok()?;
    (cut || status.success()).then(|| String::from_utf8_lossy(&out).into_owned())
}

fn git_in(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

fn spawn_status(dir: &Path) -> Option<Child> {
    git_in(dir)
        .args(["status", "--porcelain=v2", "--branch", "-z"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .spawn()
        .ok()
}

fn spawn_identity(dir: &Path) -> Option<Child> {
    git_in(dir)
        .args(["config", "-z", "--get-regexp", r"^user\.(name|email)$"])
        .spawn()
        .ok()
}

/// The child's stdout when it exits with success.
fn finish(child: Child) -> Option<String> {
    let Output { status, stdout, .. } = child.wait_with_output().ok()?;
    status
        .success()
        .then(|| String::from_utf8_lossy(&stdout).into_owned())
}

/// Parses `git config -z --get-regexp '^user\.(name|email)$'`: `key\nvalue\0` records; the
/// last value of a key wins, as it does for git.
pub fn parse_identity(output: &str) -> GitIdentity {
    let mut identity = GitIdentity::default();
    for record in output.split('\0') {
        let (key, value) = record.split_once('\n').unwrap_or((record, ""));
        // Keys are case-insensitive in git; it prints them lowercased, but be lenient.
        let slot = match key.to_ascii_lowercase().as_str() {
            "user.name" => &mut identity.name,
            "user.email" => &mut identity.email,
            _ => continue,
        };
        *slot = Some(value.to_string()).filter(|v| !v.trim().is_empty());
    }
    identity
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
    fn parses_identity_records() {
        let out =
            "user.name\nDev Eloper\0user.email\nold@example.com\0user.email\ndev@example.com\0";
        let id = parse_identity(out);
        assert_eq!(id.name.as_deref(), Some("Dev Eloper"));
        assert_eq!(id.email.as_deref(), Some("dev@example.com"));
        assert_eq!(parse_identity(""), GitIdentity::default());
        assert_eq!(parse_identity("user.name\n\0").name, None);
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
