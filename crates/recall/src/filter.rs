//! Which checkpoints a recall keeps ([`Filter`]): type, tags, file, symbol, and the
//! superseded ones it hides.

use std::collections::HashSet;

use goldfish_store::{Checkpoint, MemoryType, Supersession};

/// Which checkpoints a recall keeps; every part is optional and all given parts must match.
///
/// Matching ignores case. `files` matches a checkpoint that touched a file equal to the
/// pattern, under it (`src/auth/` or `src/auth` → `src/auth/jwt.rs`) or ending with it
/// (`jwt.rs`, `auth/jwt.rs`). `symbol` matches a symbol equal to it or ending with it after
/// `::` or `.` (`rotate` → `TokenStore::rotate`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Filter {
    /// Only this kind of memory.
    pub memory_type: Option<MemoryType>,
    /// Only checkpoints carrying every one of these tags.
    pub tags: Vec<String>,
    /// Only checkpoints that touched a file matching this path (see above).
    pub file: Option<String>,
    /// Only checkpoints naming this symbol (see above).
    pub symbol: Option<String>,
    /// `(workspace, id)` of the checkpoints a recall hides because another supersedes them:
    /// set by [`recall`](fn@crate::recall) itself, never by its caller.
    hidden: HashSet<(String, String)>,
}

impl Filter {
    /// Also leaves out the checkpoints that `links` (one per workspace, in the order of
    /// `workspaces`) say another supersedes.
    pub(crate) fn hide_superseded(&mut self, workspaces: &[String], links: &[Supersession]) {
        for (ws, s) in workspaces.iter().zip(links) {
            self.hidden
                .extend(s.superseded_ids().map(|id| (ws.clone(), id.to_string())));
        }
    }

    /// True when no part is given: every checkpoint matches.
    pub fn is_empty(&self) -> bool {
        self.memory_type.is_none()
            && self.tags.iter().all(|t| t.trim().is_empty())
            && self.file.as_deref().is_none_or(|f| f.trim().is_empty())
            && self.symbol.as_deref().is_none_or(|s| s.trim().is_empty())
            && self.hidden.is_empty()
    }

    /// True when `checkpoint` matches every given part.
    pub fn matches(&self, checkpoint: &Checkpoint) -> bool {
        if !self.hidden.is_empty()
            && self
                .hidden
                .contains(&(checkpoint.workspace.clone(), checkpoint.id.clone()))
        {
            return false;
        }
        if self
            .memory_type
            .is_some_and(|t| t != checkpoint.memory_type)
        {
            return false;
        }
        let tags_ok = self
            .tags
            .iter()
            .map(|t| t.trim())
            .filter(|t| !t.is_empty())
            .all(|want| checkpoint.tags.iter().any(|t| t.eq_ignore_ascii_case(want)));
        if !tags_ok {
            return false;
        }
        if let Some(pattern) = self
            .file
            .as_deref()
            .map(str::trim)
            .filter(|f| !f.is_empty())
            && !checkpoint.files.iter().any(|f| file_matches(f, pattern))
        {
            return false;
        }
        if let Some(symbol) = self
            .symbol
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            && !checkpoint
                .structured
                .symbols
                .iter()
                .any(|s| symbol_matches(s, symbol))
        {
            return false;
        }
        true
    }
}

/// A path matches a pattern equal to it, a directory above it, or a suffix of it that starts
/// at a path component. Separators `\` count as `/`; a leading `./` is ignored; case is
/// ignored.
fn file_matches(path: &str, pattern: &str) -> bool {
    let norm = |s: &str| {
        let s = s.replace('\\', "/").to_lowercase();
        s.strip_prefix("./").map(str::to_string).unwrap_or(s)
    };
    let path = norm(path);
    let pattern = norm(pattern);
    let dir = pattern.trim_end_matches('/');
    if dir.is_empty() {
        return false;
    }
    if path == dir || path.starts_with(&format!("{dir}/")) {
        return true;
    }
    // A suffix starting at a component: `jwt.rs` or `auth/jwt.rs` in `src/auth/jwt.rs`, and
    // a directory inside: `auth/` in `src/auth/jwt.rs`.
    let inner = format!("/{dir}");
    path.ends_with(&inner) || path.contains(&format!("{inner}/"))
}

/// A symbol matches a name equal to it or ending with `::name` or `.name`, ignoring case.
fn symbol_matches(symbol: &str, wanted: &str) -> bool {
    let symbol = symbol.to_lowercase();
    let wanted = wanted.to_lowercase();
    symbol == wanted
        || symbol.ends_with(&format!("::{wanted}"))
        || symbol.ends_with(&format!(".{wanted}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_patterns() {
        let cases: [(&str, &str, bool); 14] = [
            ("src/auth/jwt.rs", "src/auth/", true),
            ("src/auth/jwt.rs", "src/auth", true),
            ("src/auth/jwt.rs", "src/auth/jwt.rs", true),
            ("src/auth/jwt.rs", "./src/auth/jwt.rs", true),
            ("src/auth/jwt.rs", "jwt.rs", true),
            ("src/auth/jwt.rs", "auth/jwt.rs", true),
            ("src/auth/jwt.rs", "auth/", true),
            ("src/auth/jwt.rs", "SRC/Auth", true),
            ("src\\auth\\jwt.rs", "src/auth", true),
            ("src/auth/jwt.rs", "wt.rs", false),
            ("src/authn/jwt.rs", "src/auth", false),
            ("src/auth/jwt.rs", "src/au", false),
            ("src/auth/jwt.rs", "/", false),
            ("src/auth/jwt.rs", "lib", false),
        ];
        for (path, pattern, want) in cases {
            assert_eq!(file_matches(path, pattern), want, "{path} ~ {pattern}");
        }
    }

    #[test]
    fn symbol_patterns() {
        assert!(symbol_matches("TokenStore::rotate", "rotate"));
        assert!(symbol_matches("TokenStore::rotate", "tokenstore::ROTATE"));
        assert!(symbol_matches("auth.detectReuse", "detectreuse"));
        assert!(!symbol_matches("TokenStore::rotate_all", "rotate"));
        assert!(!symbol_matches("rotate", "TokenStore::rotate"));
    }
}
