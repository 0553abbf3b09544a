//! A thin runner over the `git` executable: builds commands, runs them, and turns their
//! failures into [`Error`]s of the right kind.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::error::{Error, ErrorKind, Result};

/// Runs `git` in one directory.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    dir: PathBuf,
    /// `-c` settings added to commands that commit (an identity when none is configured).
    commit_config: Vec<String>,
}

/// The output of a git command that ran (whatever its exit status).
pub(crate) struct Ran {
    pub(crate) ok: bool,
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    /// Standard output as bytes (`stdout` is its lossy UTF-8 reading).
    pub(crate) stdout_bytes: Vec<u8>,
    pub(crate) stderr: String,
}

impl Git {
    pub(crate) fn new(dir: &Path) -> Git {
        Git {
            dir: dir.to_path_buf(),
            commit_config: Vec::new(),
        }
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new("git");
        cmd.arg("-C").arg(&self.dir).args(args);
        // Never wait for a password on a terminal nobody watches; English messages, so that
        // failures can be told apart; and no repository forced on us by the environment.
        cmd.env("GIT_TERMINAL_PROMPT", "0")
            .env("GCM_INTERACTIVE", "never")
            .env("LC_ALL", "C")
            .env("LANGUAGE", "C")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .stdin(Stdio::null());
        cmd
    }

    /// Runs git and returns what it printed, whatever its exit status; only a git that cannot
    /// be started is an error.
    pub(crate) fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<Ran> {
        self.run_env(args, &[])
    }

    fn run_env<S: AsRef<OsStr>>(&self, args: &[S], env: &[(&str, &str)]) -> Result<Ran> {
        let mut cmd = self.command(args);
        cmd.envs(env.iter().copied());
        let output: Output = cmd.output().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                git_missing().with_source(e)
            } else {
                Error::new(ErrorKind::Git, format!("cannot run git: {e}"))
                    .with_source(e)
                    .with_path(&self.dir)
            }
        })?;
        Ok(Ran {
            ok: output.status.success(),
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stdout_bytes: output.stdout,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }

    /// Runs git and returns its standard output; a failure becomes an error whose kind is
    /// read from git's message.
    pub(crate) fn ok<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<String> {
        let ran = self.run(args)?;
        if ran.ok {
            Ok(ran.stdout)
        } else {
            Err(self.failure(args, &ran))
        }
    }

    /// Runs a command that writes commits (commit, merge), with the fallback identity.
    pub(crate) fn commit_cmd<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<Ran> {
        self.commit_cmd_env(args, &[])
    }

    /// [`commit_cmd`](Self::commit_cmd) with extra environment variables.
    pub(crate) fn commit_cmd_env<S: AsRef<OsStr>>(
        &self,
        args: &[S],
        env: &[(&str, &str)],
    ) -> Result<Ran> {
        let mut all: Vec<&OsStr> = Vec::new();
        for c in &self.commit_config {
            all.push(OsStr::new("-c"));
            all.push(OsStr::new(c));
        }
        all.extend(args.iter().map(AsRef::as_ref));
        self.run_env(&all, env)
    }

    /// Gives commits an identity when git has none configured (a fresh machine or CI), so a
    /// sync never fails on "Please tell me who you are".
    pub(crate) fn ensure_identity(&mut self) -> Result<()> {
        self.commit_config.clear();
        for (key, fallback) in [
            ("user.name", "goldfish"),
            ("user.email", "goldfish@localhost"),
        ] {
            let ran = self.run(&["config", "--get", key])?;
            if !ran.ok || ran.stdout.trim().is_empty() {
                self.commit_config.push(format!("{key}={fallback}"));
            }
        }
        Ok(())
    }

    /// The error for a failed command, its kind read from git's message.
    pub(crate) fn failure<S: AsRef<OsStr>>(&self, args: &[S], ran: &Ran) -> Error {
        let shown: Vec<String> = args
            .iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect();
        let detail = ran.stderr.trim();
        let detail = if detail.is_empty() {
            ran.stdout.trim()
        } else {
            detail
        };
        let kind = classify_failure(detail);
        let advice = match kind {
            ErrorKind::NotARepository => "this is not a git repository",
            ErrorKind::RemoteUnreachable => {
                "the remote cannot be reached: check its URL (`git remote -v`), the network, and that the repository exists"
            }
            ErrorKind::Authentication => {
                "the remote refused our credentials: set up an SSH key or a credential helper that works without a prompt, then run sync again"
            }
            ErrorKind::PushRejected => {
                "the remote rejected the push (a hook or a protected branch): see its message above, fix that on the remote, then run sync again"
            }
            _ => "see git's message above",
        };
        Error::new(
            kind,
            format!("`git {}` failed: {detail}\n{advice}", shown.join(" ")),
        )
        .with_path(&self.dir)
    }
}

pub(crate) fn git_missing() -> Error {
    Error::new(
        ErrorKind::GitMissing,
        "cannot run `git`: it is not installed or not on PATH; install git (https://git-scm.com) and run again",
    )
}

/// Reads the kind of a failure from git's (English) message.
fn classify_failure(message: &str) -> ErrorKind {
    let m = message.to_ascii_lowercase();
    let has = |needles: &[&str]| needles.iter().any(|n| m.contains(n));
    if has(&["not a git repository"]) {
        ErrorKind::NotARepository
    } else if has(&[
        "authentication failed",
        "permission denied (publickey",
        "could not read username",
        "could not read password",
        "terminal prompts disabled",
        "invalid username or password",
        "http basic: access denied",
        "the requested url returned error: 403",
        "the requested url returned error: 401",
    ]) {
        ErrorKind::Authentication
    } else if has(&[
        "pre-receive hook declined",
        "[remote rejected]",
        "protected branch",
    ]) {
        ErrorKind::PushRejected
    } else if has(&[
        "does not appear to be a git repository",
        "could not read from remote repository",
        "could not resolve host",
        "connection refused",
        "connection timed out",
        "unable to access",
        "repository not found",
        "no such file or directory",
        "network is unreachable",
    ]) {
        ErrorKind::RemoteUnreachable
    } else {
        ErrorKind::Git
    }
}

/// True when git's push output says the remote moved on (a retry after merging may succeed).
pub(crate) fn is_non_fast_forward(ran: &Ran) -> bool {
    push_lost_a_race(&ran.stderr)
}

/// True when a push's stderr says the remote moved on: a non-fast-forward, or a push that
/// lost the race for the remote's ref to another push landing at the same moment (git
/// reports that as `[remote rejected] … (failed to update ref)` with `cannot lock ref`,
/// e.g. when two machines create the branch at once). Any other remote rejection (a hook, a
/// protected branch) is final.
fn push_lost_a_race(stderr: &str) -> bool {
    let m = stderr.to_ascii_lowercase();
    let lost_ref_race = m.contains("cannot lock ref") || m.contains("(failed to update ref)");
    let refused = m.contains("[remote rejected]") && !lost_ref_race;
    !refused
        && (m.contains("non-fast-forward")
            || m.contains("fetch first")
            || m.contains("[rejected]")
            || lost_ref_race)
}

/// Splits `-z` output into paths.
pub(crate) fn split_z(out: &str) -> Vec<String> {
    out.split('\0')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Quotes `s` for the POSIX shell git runs merge drivers with.
pub(crate) fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_classified() {
        let cases = [
            (
                "fatal: not a git repository (or any of the parent directories): .git",
                ErrorKind::NotARepository,
            ),
            (
                "fatal: '/tmp/x' does not appear to be a git repository\nfatal: Could not read from remote repository.",
                ErrorKind::RemoteUnreachable,
            ),
            (
                "fatal: unable to access 'https://nope.invalid/': Could not resolve host: nope.invalid",
                ErrorKind::RemoteUnreachable,
            ),
            (
                "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.",
                ErrorKind::Authentication,
            ),
            (
                "fatal: could not read Username for 'https://github.com': terminal prompts disabled",
                ErrorKind::Authentication,
            ),
            (
                " ! [remote rejected] main -> main (pre-receive hook declined)",
                ErrorKind::PushRejected,
            ),
            ("fatal: bad revision 'x'", ErrorKind::Git),
        ];
        for (message, kind) in cases {
            assert_eq!(classify_failure(message), kind, "{message}");
        }
    }

    #[test]
    fn pushes_that_lost_a_race_are_retried() {
        let cases = [
            (
                " ! [rejected]        HEAD -> main (fetch first)\nerror: failed to push some refs",
                true,
            ),
            (" ! [rejected]        HEAD -> main (non-fast-forward)", true),
            (
                "remote: error: cannot lock ref 'refs/heads/main': reference already exists\n ! [remote rejected] HEAD -> main (failed to update ref)",
                true,
            ),
            (
                "remote: error: cannot lock ref 'refs/heads/main': is at 1a2b but expected 3c4d\n ! [remote rejected] HEAD -> main (failed to update ref)",
                true,
            ),
            (
                " ! [remote rejected] HEAD -> main (pre-receive hook declined)",
                false,
            ),
            (
                " ! [remote rejected] HEAD -> main (protected branch hook declined)",
                false,
            ),
            ("fatal: Could not read from remote repository.", false),
        ];
        for (stderr, retried) in cases {
            assert_eq!(push_lost_a_race(stderr), retried, "{stderr}");
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/a b/c"), "'/a b/c'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
