//! Workspace names: normalise, validate, detect from a directory, resolve with overrides.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// The workspace used when a name normalises to nothing.
pub const DEFAULT_WORKSPACE: &str = "default";

/// Environment variable that overrides workspace detection.
pub const WORKSPACE_ENV: &str = "GOLDFISH_WORKSPACE";

/// Normalises a workspace name or path to `[a-z0-9-]+`.
///
/// A path becomes its last segment (Unix or Windows separators), a scoped package name
/// `@scope/pkg` becomes `scope-pkg`, letters are lower-cased, every other character becomes
/// a `-`, runs of `-` collapse and leading or trailing ones are dropped. A name that
/// normalises to nothing becomes `default`.
///
/// ```
/// use goldfish_store::normalize_workspace;
/// assert_eq!(normalize_workspace("/Users/murphy/source/goldfish"), "goldfish");
/// assert_eq!(normalize_workspace("C:\\source\\goldfish"), "goldfish");
/// assert_eq!(normalize_workspace("@coa/goldfish-mcp"), "coa-goldfish-mcp");
/// assert_eq!(normalize_workspace(""), "default");
/// ```
pub fn normalize_workspace(name_or_path: &str) -> String {
    let slug = slug_of_workspace(name_or_path);
    if slug.is_empty() {
        DEFAULT_WORKSPACE.to_string()
    } else {
        slug
    }
}

fn slug_of_workspace(name_or_path: &str) -> String {
    let trimmed = name_or_path.trim();
    let base = if let Some(package) = trimmed.strip_prefix('@') {
        // A scoped package name: keep the scope, it is part of the identity.
        package.to_string()
    } else {
        trimmed
            .split(['/', '\\'])
            .rfind(|s| !s.is_empty())
            .unwrap_or("")
            .to_string()
    };
    slugify(&base)
}

/// Transliterates other scripts to ASCII (`Über café` → `Uber cafe`), lower-cases ASCII
/// letters, keeps digits, turns everything else into single `-`s and trims `-`. ASCII input is
/// slugged exactly as it always was, so existing names keep their slug.
pub(crate) fn slugify(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut push = |c: char| {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    };
    for c in text.chars() {
        if c.is_ascii() {
            push(c);
        } else {
            // Letters of other scripts become their ASCII spelling; what has none (and
            // symbols spelled as words, such as emoji) separates words like punctuation.
            match deunicode::deunicode_char(c) {
                Some(ascii) if c.is_alphanumeric() => ascii.chars().for_each(&mut push),
                _ => push('-'),
            }
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// Refuses names that could escape a directory: `..`, `/`, `\` or NUL anywhere.
pub(crate) fn reject_escapes(what: &str, name: &str) -> Result<(), Error> {
    let bad = if name.contains('\0') {
        Some("a NUL character")
    } else if name.contains("..") {
        Some("`..`")
    } else if name.contains('/') {
        Some("`/`")
    } else if name.contains('\\') {
        Some("`\\`")
    } else {
        None
    };
    match bad {
        Some(bad) => Err(Error::invalid(format!(
            "{what} {name:?} contains {bad}; use a plain name such as `my-project`"
        ))),
        None => Ok(()),
    }
}

/// Validates an explicit workspace name and returns its normalised form.
///
/// Unlike [`normalize_workspace`], which accepts paths, an explicit name must not contain
/// `..`, `/`, `\` or NUL (except the one `/` of a scoped package name, `@scope/pkg` →
/// `scope-pkg`), and must not normalise to nothing (such as `""` or `"!!!"`).
///
/// ```
/// use goldfish_store::validate_workspace;
/// assert_eq!(validate_workspace("My Project").unwrap(), "my-project");
/// assert!(validate_workspace("../etc").is_err());
/// ```
pub fn validate_workspace(name: &str) -> Result<String, Error> {
    // A scoped package name (`@scope/pkg`) is a name, not a path: its one `/` is allowed and
    // becomes `-` (`scope-pkg`), as workspace names always have. Everything else that could escape the
    // store directory is refused.
    match scoped_package_parts(name) {
        Some((scope, package)) => {
            reject_escapes("workspace name", scope)?;
            reject_escapes("workspace name", package)?;
        }
        None => reject_escapes("workspace name", name)?,
    }
    let slug = slug_of_workspace(name);
    if slug.is_empty() {
        return Err(Error::invalid(format!(
            "workspace name {name:?} has no letters or digits; use a name such as `my-project`"
        )));
    }
    Ok(slug)
}

/// Splits `@scope/pkg` into its two non-empty parts; `None` for anything else.
fn scoped_package_parts(name: &str) -> Option<(&str, &str)> {
    let (scope, package) = name.trim().strip_prefix('@')?.split_once('/')?;
    (!scope.is_empty() && !package.is_empty()).then_some((scope, package))
}

/// Detects the workspace of a directory without spawning a process.
///
/// Walks up from `path` to the nearest directory holding `.git`. A `.git` directory makes
/// that directory the repository; a `.git` file (a linked worktree or submodule) is followed
/// to its git directory, and a worktree (git directory under `…/worktrees/`) resolves to its
/// main repository, so every worktree of one repository shares one memory. Without a
/// repository, the directory's own name is used. The result is normalised.
pub fn detect_workspace(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut dir: Option<&Path> = Some(&absolute);
    while let Some(current) = dir {
        let dot_git = current.join(".git");
        match std::fs::symlink_metadata(&dot_git) {
            Ok(meta) if meta.is_dir() => return name_of_dir(current),
            Ok(meta) if meta.is_file() => {
                if let Some(main) = main_repo_of_git_file(current, &dot_git) {
                    return name_of_dir(&main);
                }
                return name_of_dir(current);
            }
            _ => {}
        }
        dir = current.parent();
    }
    name_of_dir(&absolute)
}

fn name_of_dir(dir: &Path) -> String {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A bare repository used as the main repository of worktrees is often named `repo.git`.
    let name = name
        .strip_suffix(".git")
        .map(str::to_string)
        .unwrap_or(name);
    normalize_workspace(&name)
}

/// For a `.git` file (`gitdir: <path>`), the main repository's working directory when the git
/// directory is a linked worktree's (`<common>/worktrees/<name>`); `None` otherwise.
fn main_repo_of_git_file(worktree: &Path, dot_git: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(dot_git).ok()?;
    let gitdir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let gitdir = if Path::new(gitdir).is_absolute() {
        PathBuf::from(gitdir)
    } else {
        worktree.join(gitdir)
    };
    // `commondir` names the main repository's git directory (usually `../..`).
    let common = match std::fs::read_to_string(gitdir.join("commondir")) {
        Ok(rel) => {
            let rel = rel.trim();
            if Path::new(rel).is_absolute() {
                PathBuf::from(rel)
            } else {
                gitdir.join(rel)
            }
        }
        Err(_) => {
            let parent = gitdir.parent()?;
            if parent.file_name()? != "worktrees" {
                // A submodule or a separate git dir: the worktree itself is the repository.
                return None;
            }
            parent.parent()?.to_path_buf()
        }
    };
    let common = lexical_normalize(&common);
    if common.file_name()? == ".git" {
        common.parent().map(Path::to_path_buf)
    } else {
        // A bare repository (`repo.git`) is its own main repository.
        Some(common)
    }
}

/// Resolves `.` and `..` components without touching the file system.
fn lexical_normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The workspace to use: `explicit` (validated), else `$GOLDFISH_WORKSPACE` (validated), else
/// [`detect_workspace`] of `cwd`.
pub fn resolve_workspace(explicit: Option<&str>, cwd: &Path) -> Result<String, Error> {
    if let Some(name) = explicit {
        return validate_workspace(name);
    }
    match std::env::var(WORKSPACE_ENV) {
        Ok(name) if !name.trim().is_empty() => validate_workspace(&name).map_err(|e| {
            Error::invalid(format!("${WORKSPACE_ENV} is not usable: {}", e.message()))
        }),
        _ => Ok(detect_workspace(cwd)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_cases() {
        let cases = [
            ("/Users/murphy/source/goldfish", "goldfish"),
            ("C:\\source\\goldfish", "goldfish"),
            ("@coa/goldfish-mcp", "coa-goldfish-mcp"),
            ("", "default"),
            ("   ", "default"),
            ("/", "default"),
            ("/home/me/My Project/", "my-project"),
            ("Hello_World!!", "hello-world"),
            ("--a--b--", "a-b"),
            ("café", "cafe"),
            ("/home/me/Mon Projet Été", "mon-projet-ete"),
            ("日本", "ri-ben"),
            ("🦀", "default"),
            ("repo.v2", "repo-v2"),
        ];
        for (input, want) in cases {
            assert_eq!(normalize_workspace(input), want, "{input:?}");
        }
    }

    #[test]
    fn slugs_transliterate_other_scripts() {
        let cases = [
            ("Über café rewrite", "uber-cafe-rewrite"),
            ("Mon Projet Été", "mon-projet-ete"),
            ("Straße", "strasse"),
            ("Øresund bridge", "oresund-bridge"),
            ("naïve façade", "naive-facade"),
            ("Crème brûlée ½", "creme-brulee-1-2"),
            ("Привет мир", "privet-mir"),
            ("a—b", "a-b"),
            ("ship it 🚀 now", "ship-it-now"),
            ("日本", "ri-ben"),
            // ASCII names slug exactly as before.
            ("Auth System", "auth-system"),
            ("my-project", "my-project"),
            ("Hello_World!!", "hello-world"),
            ("v2.0 (draft)", "v2-0-draft"),
        ];
        for (input, want) in cases {
            assert_eq!(slugify(input), want, "{input:?}");
        }
    }

    #[test]
    fn ascii_slugs_are_unchanged_by_transliteration() {
        // Every printable ASCII string slugs as the ASCII-only rule always did.
        let old = |text: &str| {
            let mut out = String::new();
            for c in text.chars() {
                if c.is_ascii_alphanumeric() {
                    out.push(c.to_ascii_lowercase());
                } else if !out.is_empty() && !out.ends_with('-') {
                    out.push('-');
                }
            }
            out.trim_end_matches('-').to_string()
        };
        for a in 0x20u8..0x7f {
            for b in [b'a', b'-', b' ', b'Z', b'9', b'_'] {
                let text = format!("{}x{}{}", a as char, b as char, a as char);
                assert_eq!(slugify(&text), old(&text), "{text:?}");
            }
        }
    }

    #[test]
    fn validate_rejects_escapes_and_empty() {
        for bad in ["..", "../x", "a/b", "a\\b", "a\0b", "", "!!!", "---"] {
            let err = validate_workspace(bad).expect_err(bad);
            assert!(err.is_invalid_input(), "{bad:?}");
            assert!(err.to_string().contains("workspace name"), "{err}");
        }
        assert_eq!(
            validate_workspace("Goldfish").ok().as_deref(),
            Some("goldfish")
        );
        assert_eq!(validate_workspace("@coa").ok().as_deref(), Some("coa"));
        assert_eq!(
            validate_workspace("@coa/goldfish-mcp").ok().as_deref(),
            Some("coa-goldfish-mcp")
        );
        for bad in ["@coa/../x", "@/pkg", "@coa/", "@a/b/c", "@a\\b/c"] {
            assert!(validate_workspace(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn lexical_normalize_resolves_dots() {
        assert_eq!(
            lexical_normalize(Path::new("/a/b/./../c")),
            PathBuf::from("/a/c")
        );
    }
}
