//! `goldfish hook file`: what the workspace's memory says about a file the agent just read
//! or changed.

use std::path::Path;

use goldfish_store::{MemoryType, Store};

use super::{HookKind, HookOptions, Injection, entries_of, inject, state_of};
use crate::Error;

/// At most this many memories are considered per file (and as many for its directory).
const CANDIDATES: usize = 20;

/// `file` as the checkpoints name files: relative to `cwd` when it lies under it, with `/`.
fn relative(file: &str, cwd: &Path) -> String {
    let path = Path::new(file);
    let rel = path.strip_prefix(cwd).unwrap_or(path);
    let s = rel.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

/// The decisions, incidents and learnings of `opts.workspace` that name one of `files`
/// (among the files they record), then those that name its directory, newest first; each
/// file once per session (a file already looked at in this session is passed over, found
/// or not) and each memory once per session, within the room left. The injection and the
/// files looked at are recorded in the session's ledger.
pub fn file_context(
    store: &Store,
    opts: &HookOptions,
    files: &[String],
) -> Result<Injection, Error> {
    let state = state_of(opts)?;
    let none = Injection::empty(HookKind::File, &state, opts.session_budget);
    let mut new_files: Vec<String> = Vec::new();
    for f in files {
        let rel = relative(f, &opts.cwd);
        if !rel.is_empty() && !state.files.contains(&rel) && !new_files.contains(&rel) {
            new_files.push(rel);
        }
    }
    if new_files.is_empty() {
        return Ok(none);
    }
    let mut found: Vec<goldfish_store::Checkpoint> = Vec::new();
    let mut now = None;
    let mut names = Vec::new();
    for rel in &new_files {
        let dir = rel.rsplit_once('/').map(|(d, _)| format!("{d}/"));
        for pattern in std::iter::once(rel.clone()).chain(dir) {
            let mut o = super::recall_options(opts);
            o.filter.file = Some(pattern);
            o.limit = CANDIDATES;
            let result = goldfish_recall::recall(store, &o)?;
            now = Some(result.now);
            for c in result.hits.into_iter().map(|h| h.checkpoint) {
                if c.memory_type != MemoryType::Checkpoint && !found.iter().any(|f| f.id == c.id) {
                    found.push(c);
                }
            }
        }
        // A path is the agent's or the store's text: shown escaped, like stored text.
        names.push(format!("`{}`", goldfish_core::inert(rel)));
    }
    let found: Vec<&goldfish_store::Checkpoint> = found.iter().collect();
    let entries = match now {
        Some(now) => entries_of(opts, &state, &found, now),
        None => Vec::new(),
    };
    let head = format!(
        "goldfish memory about {} (decisions, incidents and learnings that name it or its \
         directory; `goldfish show ID` opens one):\n",
        names.join(", ")
    );
    // The files are remembered even when nothing was found: once per session per file.
    inject(opts, none, &head, &entries, &new_files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_made_relative_to_the_project() {
        let cwd = Path::new("/p");
        assert_eq!(relative("/p/src/a.rs", cwd), "src/a.rs");
        assert_eq!(relative("./src/a.rs", cwd), "src/a.rs");
        assert_eq!(relative("/elsewhere/b.rs", cwd), "/elsewhere/b.rs");
    }
}
