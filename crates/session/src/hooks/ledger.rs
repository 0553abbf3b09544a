//! What the hooks remember between calls, in the store's cache directory
//! (`{store}/.cache/hooks/`, never synced): one small file per session (what was injected,
//! which files were seen, how many characters so far) and one capped log of every injection,
//! which `goldfish stats` reads. Private (0600 files, 0700 directories), bounded in size.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use goldfish_core::fs::{Update, WriteOptions, update_locked};
use serde::{Deserialize, Serialize};

use super::HookKind;

/// The hooks' directory under the store's root.
pub const HOOKS_DIR: &str = ".cache/hooks";

/// At most this many session files are kept; the least recently updated go first.
pub const MAX_SESSIONS: usize = 256;

/// A session file keeps at most this many injected ids and this many files.
pub const MAX_REMEMBERED: usize = 1_000;

/// The log is cut back to half of this many bytes when an entry would take it past it.
pub const MAX_LOG_BYTES: usize = 64 * 1024;

/// What one session has been given so far.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionState {
    /// The client's session id.
    pub session: String,
    /// When the first hook of this session ran.
    pub started: Option<DateTime<Utc>>,
    /// The ids of the checkpoints injected, oldest first.
    #[serde(default)]
    pub injected: Vec<String>,
    /// The files whose memories were injected (or looked for), oldest first.
    #[serde(default)]
    pub files: Vec<String>,
    /// The characters injected into this session in all.
    #[serde(default)]
    pub chars: usize,
}

/// What one injection gives a session: see [`Ledger::update`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Grant {
    /// The checkpoints given.
    pub ids: Vec<String>,
    /// The files looked at.
    pub files: Vec<String>,
    /// The characters given.
    pub chars: usize,
}

impl Grant {
    /// A grant of `ids`, `files` and `chars` characters.
    pub fn new(ids: Vec<String>, files: Vec<String>, chars: usize) -> Grant {
        Grant { ids, files, chars }
    }
}

/// One injection, as the log keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LogEntry {
    /// When.
    pub at: DateTime<Utc>,
    /// The client's session id ("" when the client gave none).
    pub session: String,
    /// The workspace.
    pub workspace: String,
    /// Which hook.
    pub hook: HookKind,
    /// How many characters it injected.
    pub chars: usize,
    /// The checkpoints it injected.
    #[serde(default)]
    pub ids: Vec<String>,
}

/// The hooks' state in one store.
#[derive(Debug, Clone)]
pub struct Ledger {
    dir: PathBuf,
}

/// A file name for a session id: its FNV-1a hash, so any id (slashes, dots) is a safe name.
fn session_file(session: &str) -> String {
    use std::hash::Hasher as _;
    let mut h = fnv::FnvHasher::default();
    h.write(session.as_bytes());
    format!("{:016x}.json", h.finish())
}

fn options() -> WriteOptions {
    // A record of what was shown, not memory: losing the last write to a power cut is
    // harmless, and a hook must stay fast.
    let mut o = WriteOptions::private();
    o.durable = false;
    o
}

impl Ledger {
    /// The ledger of the store at `home`.
    pub fn new(home: &Path) -> Ledger {
        Ledger {
            dir: home.join(HOOKS_DIR),
        }
    }

    fn session_path(&self, session: &str) -> PathBuf {
        self.dir.join("sessions").join(session_file(session))
    }

    fn log_path(&self) -> PathBuf {
        self.dir.join("log.jsonl")
    }

    /// What `session` has been given so far (empty for a session not seen yet, or whose
    /// file cannot be read as one: it is rewritten by the next record).
    pub fn session(&self, session: &str) -> Result<SessionState, goldfish_core::fs::FsError> {
        let path = self.session_path(session);
        let text = goldfish_core::fs::read_utf8_opt(&path)?;
        Ok(text
            .and_then(|t| serde_json::from_str::<SessionState>(&t).ok())
            .filter(|s| s.session == session)
            .unwrap_or_else(|| SessionState {
                session: session.to_string(),
                ..SessionState::default()
            }))
    }

    /// Decides an injection into `session` and records it, atomically: `decide` sees the
    /// session's state as it is under the session file's lock (so two hooks of one session
    /// running at once never both give the same checkpoint, nor both spend the same room)
    /// and returns its result with what it gives ([`Grant`]), which is added to the state.
    /// Returns the result and the state after. An empty session id is never recorded:
    /// `decide` sees an empty state.
    pub fn update<T>(
        &self,
        session: &str,
        now: DateTime<Utc>,
        decide: impl FnOnce(&SessionState) -> (T, Grant),
    ) -> Result<(T, SessionState), goldfish_core::fs::FsError> {
        let fresh = || SessionState {
            session: session.to_string(),
            ..SessionState::default()
        };
        if session.is_empty() {
            let mut state = fresh();
            let (value, grant) = decide(&state);
            state.chars += grant.chars;
            return Ok((value, state));
        }
        let path = self.session_path(session);
        let (value, state, created) = update_locked(&path, &options(), |old| {
            let mut state = old
                .and_then(|t| serde_json::from_str::<SessionState>(t).ok())
                .filter(|s| s.session == session)
                .unwrap_or_else(fresh);
            let (value, grant) = decide(&state);
            let created = state.started.is_none();
            state.started.get_or_insert(now);
            for id in grant.ids {
                if !state.injected.contains(&id) {
                    state.injected.push(id);
                }
            }
            for f in grant.files {
                if !state.files.contains(&f) {
                    state.files.push(f);
                }
            }
            cap(&mut state.injected);
            cap(&mut state.files);
            state.chars += grant.chars;
            let text = serde_json::to_string(&state).unwrap_or_default();
            Ok::<_, goldfish_core::fs::FsError>(Update::Write(text, (value, state, created)))
        })?;
        if created {
            self.prune_sessions();
        }
        Ok((value, state))
    }

    /// Appends `entry` to the log (nothing for an injection of nothing), cutting the log
    /// back to its newest half when it would pass [`MAX_LOG_BYTES`].
    pub fn append(&self, entry: &LogEntry) -> Result<(), goldfish_core::fs::FsError> {
        if entry.chars == 0 && entry.ids.is_empty() {
            return Ok(());
        }
        let line = serde_json::to_string(entry).unwrap_or_default();
        update_locked(&self.log_path(), &options(), |old| {
            let mut text = old.unwrap_or_default().to_string();
            if text.len() + line.len() + 1 > MAX_LOG_BYTES {
                // Keep the newest lines, within half the cap.
                let keep_from = text.len().saturating_sub(MAX_LOG_BYTES / 2);
                let start = text[keep_from..]
                    .find('\n')
                    .map_or(text.len(), |i| keep_from + i + 1);
                text.drain(..start);
            }
            text.push_str(&line);
            text.push('\n');
            Ok::<_, goldfish_core::fs::FsError>(Update::Write(text, ()))
        })
    }

    /// The log's entries, oldest first; lines that cannot be read are left out.
    pub fn log(&self) -> Result<Vec<LogEntry>, goldfish_core::fs::FsError> {
        let text = goldfish_core::fs::read_utf8_opt(&self.log_path())?.unwrap_or_default();
        Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect())
    }

    /// Removes the least recently updated session files beyond [`MAX_SESSIONS`].
    fn prune_sessions(&self) {
        let Ok(entries) = std::fs::read_dir(self.dir.join("sessions")) else {
            return;
        };
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        if files.len() <= MAX_SESSIONS {
            return;
        }
        files.sort();
        for (_, path) in &files[..files.len() - MAX_SESSIONS] {
            let _ = std::fs::remove_file(path);
            let _ = std::fs::remove_file(goldfish_core::fs::lock_path_for(path));
        }
    }
}

/// Keeps the newest [`MAX_REMEMBERED`] items.
fn cap(list: &mut Vec<String>) {
    if list.len() > MAX_REMEMBERED {
        list.drain(..list.len() - MAX_REMEMBERED);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_file_names_are_fnv1a_and_never_change() {
        // A changed name would forget what earlier hooks of a running session showed.
        assert_eq!(session_file("session-1"), "1688595dcf49184d.json");
        assert_ne!(session_file("a/b"), session_file("a.b"));
    }

    /// Records `entry` into its session as a hook does, and logs it.
    fn record(ledger: &Ledger, session: &str, entry: &LogEntry, files: &[String]) {
        let grant = Grant::new(entry.ids.clone(), files.to_vec(), entry.chars);
        ledger
            .update(session, entry.at, |_| ((), grant))
            .expect("update");
        ledger.append(entry).expect("append");
    }

    fn entry(session: &str, ids: &[&str], chars: usize) -> LogEntry {
        LogEntry {
            at: Utc::now(),
            session: session.into(),
            workspace: "ws".into(),
            hook: HookKind::Prompt,
            chars,
            ids: ids.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_session_remembers_ids_files_and_characters() {
        let home = tempfile::tempdir().expect("temp dir");
        let ledger = Ledger::new(home.path());
        record(&ledger, "s/1", &entry("s/1", &["a", "b"], 100), &[]);
        record(
            &ledger,
            "s/1",
            &entry("s/1", &["b", "c"], 50),
            &["src/x.rs".into()],
        );
        let s = ledger.session("s/1").expect("read");
        assert_eq!(s.injected, ["a", "b", "c"]);
        assert_eq!(s.files, ["src/x.rs"]);
        assert_eq!(s.chars, 150);
        assert_eq!(ledger.session("other").expect("read").chars, 0);
        assert_eq!(ledger.log().expect("log").len(), 2);
    }

    #[test]
    fn the_log_and_the_sessions_stay_bounded() {
        let home = tempfile::tempdir().expect("temp dir");
        let ledger = Ledger::new(home.path());
        for i in 0..2_000 {
            let id = format!("checkpoint-{i:04}");
            record(&ledger, "one", &entry("one", &[&id], 10), &[]);
        }
        let size = std::fs::metadata(home.path().join(HOOKS_DIR).join("log.jsonl"))
            .expect("log")
            .len();
        assert!(size as usize <= MAX_LOG_BYTES, "{size}");
        let log = ledger.log().expect("log");
        assert_eq!(
            log.last().map(|e| e.ids[0].as_str()),
            Some("checkpoint-1999")
        );
        let s = ledger.session("one").expect("read");
        assert_eq!(s.injected.len(), MAX_REMEMBERED);
        assert_eq!(
            s.injected.last().map(String::as_str),
            Some("checkpoint-1999")
        );
        for i in 0..MAX_SESSIONS + 5 {
            let id = format!("session-{i}");
            record(&ledger, &id, &entry(&id, &[], 0), &[]);
        }
        let kept = std::fs::read_dir(home.path().join(HOOKS_DIR).join("sessions"))
            .expect("dir")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .count();
        assert_eq!(kept, MAX_SESSIONS);
    }

    #[cfg(unix)]
    #[test]
    fn files_are_private() {
        use std::os::unix::fs::PermissionsExt as _;
        let home = tempfile::tempdir().expect("temp dir");
        let ledger = Ledger::new(home.path());
        record(&ledger, "p", &entry("p", &["x"], 5), &[]);
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&home.path().join(HOOKS_DIR).join("log.jsonl")), 0o600);
        assert_eq!(mode(&ledger.session_path("p")), 0o600);
        assert_eq!(mode(&home.path().join(HOOKS_DIR).join("sessions")), 0o700);
    }
}

/// What one session was given, from the log: see [`summarize`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SessionSummary {
    /// The client's session id ("" for hooks run without one).
    pub session: String,
    /// The workspace of its last injection.
    pub workspace: String,
    /// Its first and last injection.
    pub first: DateTime<Utc>,
    /// Its last injection.
    pub last: DateTime<Utc>,
    /// Characters injected in all.
    pub chars: usize,
    /// Per hook, in [`HookKind`] order: how many injections and how many characters.
    pub hooks: Vec<HookTotal>,
}

/// One hook's injections into one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HookTotal {
    /// The hook.
    pub hook: HookKind,
    /// How many injections.
    pub count: usize,
    /// Their characters.
    pub chars: usize,
}

/// The log's entries grouped by session, the most recently active first, at most `limit`
/// sessions.
pub fn summarize(entries: &[LogEntry], limit: usize) -> Vec<SessionSummary> {
    let mut out: Vec<SessionSummary> = Vec::new();
    for e in entries {
        let i = match out.iter().position(|s| s.session == e.session) {
            Some(i) => i,
            None => {
                out.push(SessionSummary {
                    session: e.session.clone(),
                    workspace: e.workspace.clone(),
                    first: e.at,
                    last: e.at,
                    chars: 0,
                    hooks: Vec::new(),
                });
                out.len() - 1
            }
        };
        let s = &mut out[i];
        s.workspace.clone_from(&e.workspace);
        s.first = s.first.min(e.at);
        s.last = s.last.max(e.at);
        s.chars += e.chars;
        match s.hooks.iter_mut().find(|h| h.hook == e.hook) {
            Some(h) => {
                h.count += 1;
                h.chars += e.chars;
            }
            None => s.hooks.push(HookTotal {
                hook: e.hook,
                count: 1,
                chars: e.chars,
            }),
        }
    }
    for s in &mut out {
        s.hooks.sort_by_key(|h| h.hook);
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.last));
    out.truncate(limit);
    out
}

#[cfg(test)]
mod summary_tests {
    use super::*;

    #[test]
    fn sessions_are_grouped_newest_first() {
        let t0 = Utc::now();
        let e = |session: &str, hook, chars, secs| LogEntry {
            at: t0 + chrono::Duration::seconds(secs),
            session: String::from(session),
            workspace: "ws".into(),
            hook,
            chars,
            ids: vec![],
        };
        let log = [
            e("a", HookKind::SessionStart, 900, 0),
            e("b", HookKind::Prompt, 200, 1),
            e("a", HookKind::Prompt, 300, 2),
            e("a", HookKind::Prompt, 100, 3),
        ];
        let s = summarize(&log, 10);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].session, "a");
        assert_eq!(s[0].chars, 1300);
        assert_eq!(s[0].hooks[1].count, 2);
        assert_eq!(s[0].hooks[1].chars, 400);
        assert_eq!(summarize(&log, 1).len(), 1);
    }
}
