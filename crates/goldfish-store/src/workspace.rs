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

/// The words a [`WorkspaceSelector`] gives a meaning of its own: `current` and `all`. No
/// workspace of that name is ever written to (see [`check_writable_workspace`]), so a name on
/// a command line or in a tool call always means one thing.
pub const RESERVED_WORKSPACE_NAMES: [&str; 2] = ["current", "all"];

/// Refuses a normalised workspace name that is reserved ([`RESERVED_WORKSPACE_NAMES`]); every
/// write of the store calls it. Reads still find such a workspace when an older version wrote
/// one.
///
/// ```
/// use goldfish_store::check_writable_workspace;
/// assert!(check_writable_workspace("api").is_ok());
/// let e = check_writable_workspace("all").unwrap_err();
/// assert!(e.is_invalid_input());
/// ```
pub fn check_writable_workspace(name: &str) -> Result<(), Error> {
    match RESERVED_WORKSPACE_NAMES
        .iter()
        .find(|r| name.trim().eq_ignore_ascii_case(r))
    {
        Some(reserved) => Err(Error::invalid(format!(
            "`{reserved}` is a reserved word, not a workspace name (`current` is the workspace of the directory, `all` every workspace when reading); nothing is saved to a workspace of that name: name another one"
        ))),
        None => Ok(()),
    }
}

/// Which workspace (or workspaces) an operation uses, parsed once from what a person or a
/// program named.
///
/// `current` (any case) is [`Current`](Self::Current), `all` is [`All`](Self::All), anything
/// else [`Named`](Self::Named): a workspace name (validated and normalised when parsed) or a
/// project's absolute path (kept as given, resolved by [`choose_workspace`]). Blank text is
/// refused: an empty value is a mistake (an unset shell variable), not "the current one".
/// [`All`](Self::All) is for reads only; every write refuses it, and refuses a workspace
/// *named* `current` or `all` ([`check_writable_workspace`]).
///
/// ```
/// use goldfish_store::WorkspaceSelector;
/// let parse = |s: &str| s.parse::<WorkspaceSelector>();
/// assert_eq!(parse("current")?, WorkspaceSelector::Current);
/// assert_eq!(parse("ALL")?, WorkspaceSelector::All);
/// assert_eq!(parse(" My Project ")?, WorkspaceSelector::Named("my-project".into()));
/// assert!(parse("").is_err());
/// assert!(parse("../etc").is_err());
/// # Ok::<(), goldfish_store::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WorkspaceSelector {
    /// The workspace of the directory the operation runs from (see [`choose_workspace`]).
    #[default]
    Current,
    /// One workspace: its normalised name, or a project's absolute path.
    Named(String),
    /// Every workspace of the store; reads only.
    All,
}

impl WorkspaceSelector {
    /// One workspace by name (not parsed: the store validates it when it is used).
    pub fn named(name: impl Into<String>) -> Self {
        WorkspaceSelector::Named(name.into())
    }

    /// The one workspace this names, if it names one (a name or a path), else `None`.
    pub fn name(&self) -> Option<&str> {
        match self {
            WorkspaceSelector::Named(n) => Some(n),
            _ => None,
        }
    }

    /// True for [`All`](Self::All).
    pub fn is_all(&self) -> bool {
        matches!(self, WorkspaceSelector::All)
    }

    /// What a single-workspace operation passes to [`WorkspaceQuery::given`]: the name or path,
    /// `None` for [`Current`](Self::Current), and an error of kind
    /// [`InvalidInput`](crate::ErrorKind::InvalidInput) for [`All`](Self::All).
    pub fn single(&self) -> Result<Option<&str>, Error> {
        match self {
            WorkspaceSelector::Current => Ok(None),
            WorkspaceSelector::Named(n) => Ok(Some(n)),
            WorkspaceSelector::All => Err(Error::invalid(
                "`all` selects every workspace, which only reads of many workspaces (recall) take; this needs one workspace: name it, or leave it out for the current one",
            )),
        }
    }
}

impl std::str::FromStr for WorkspaceSelector {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        let t = s.trim();
        if t.is_empty() {
            return Err(Error::invalid(
                "the workspace is empty; give a name such as `my-project`, `current` or `all`",
            ));
        }
        if t.eq_ignore_ascii_case("current") {
            Ok(WorkspaceSelector::Current)
        } else if t.eq_ignore_ascii_case("all") {
            Ok(WorkspaceSelector::All)
        } else if Path::new(t).is_absolute() {
            Ok(WorkspaceSelector::Named(t.to_string()))
        } else {
            validate_workspace(t).map(WorkspaceSelector::Named)
        }
    }
}

/// The infallible reading, for code that sets a selector from a literal
/// (`opts.workspace = "api".into()`): blank or `current` is [`WorkspaceSelector::Current`],
/// `all` is [`WorkspaceSelector::All`], anything else [`WorkspaceSelector::Named`] as given,
/// validated when it is used. Text from a person goes through [`str::parse`] instead, which
/// refuses blank and invalid names at once.
impl From<&str> for WorkspaceSelector {
    fn from(s: &str) -> Self {
        let t = s.trim();
        if t.is_empty() || t.eq_ignore_ascii_case("current") {
            WorkspaceSelector::Current
        } else if t.eq_ignore_ascii_case("all") {
            WorkspaceSelector::All
        } else {
            WorkspaceSelector::Named(t.to_string())
        }
    }
}

/// As [`From<&str>`](#impl-From%3C%26str%3E-for-WorkspaceSelector).
impl From<String> for WorkspaceSelector {
    fn from(s: String) -> Self {
        WorkspaceSelector::from(s.as_str())
    }
}

impl std::fmt::Display for WorkspaceSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkspaceSelector::Current => f.write_str("current"),
            WorkspaceSelector::Named(n) => f.write_str(n),
            WorkspaceSelector::All => f.write_str("all"),
        }
    }
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

/// The workspace to use: `explicit`, else the workspace of `cwd` — [`choose_workspace`]'s
/// name, a guess included (the user's home is not known here, so it is not set apart).
/// `explicit` is a name (validated) or a project's absolute path. Reads no environment
/// variable: [`resolve_workspace_from_env`] also honours `$GOLDFISH_WORKSPACE`.
pub fn resolve_workspace(explicit: Option<&str>, cwd: &Path) -> Result<String, Error> {
    let mut query = WorkspaceQuery {
        dir: cwd.to_path_buf(),
        ..WorkspaceQuery::default()
    };
    if let Some(name) = explicit {
        if name.trim().is_empty() {
            // Given but blank is a mistake, not "detect it".
            return validate_workspace(name);
        }
        query.given = Some(name.to_string());
        return choose_workspace(&query).map(|c| c.name);
    }
    choose_workspace(&query).map(|c| c.name)
}

/// [`resolve_workspace`] for a binary: `explicit`, else `$GOLDFISH_WORKSPACE` when set and
/// not blank, else the workspace of `cwd`. The one reader of the variable in the libraries.
pub fn resolve_workspace_from_env(explicit: Option<&str>, cwd: &Path) -> Result<String, Error> {
    if explicit.is_some() {
        return resolve_workspace(explicit, cwd);
    }
    match std::env::var(WORKSPACE_ENV) {
        Ok(name) if !name.trim().is_empty() => {
            let query = WorkspaceQuery {
                dir: cwd.to_path_buf(),
                given: Some(name),
                ..WorkspaceQuery::default()
            };
            choose_workspace(&query).map(|c| c.name).map_err(|e| {
                Error::invalid(format!("${WORKSPACE_ENV} is not usable: {}", e.message()))
            })
        }
        _ => resolve_workspace(None, cwd),
    }
}

/// The directory that marks a project besides a git work tree (and holds memory kept in
/// the repository, see [`IN_REPO_DIR`](crate::IN_REPO_DIR)).
const PROJECT_MARKER: &str = ".goldfish";

/// What decides the workspace of one operation; see [`choose_workspace`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WorkspaceQuery {
    /// What the caller named: an argument, `--workspace` or `$GOLDFISH_WORKSPACE` (the binary
    /// reads the variable and passes it here). A name, or an absolute path to a project
    /// directory. Blank counts as not given.
    pub given: Option<String>,
    /// The directory the operation runs from: the process's working directory, or the
    /// client's root.
    pub dir: PathBuf,
    /// `dir` is the root an MCP client named, not a directory the server happens to run in:
    /// it is the workspace's directory even when it is not a project (unless it is the
    /// user's home or `/`).
    pub dir_is_client_root: bool,
    /// The user's home directory. It and `/` never count as a project, even when they hold
    /// `.git` (a dotfiles repository) or `.goldfish/` (the default store).
    pub user_home: Option<PathBuf>,
}

/// How [`choose_workspace`] chose a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum WorkspaceSource {
    /// The caller named it.
    Named,
    /// The caller gave this project directory.
    Path(PathBuf),
    /// The MCP client's root, this directory.
    ClientRoot(PathBuf),
    /// The project around the working directory; this is the project's top directory.
    Project(PathBuf),
    /// Nothing named a workspace and this directory is not inside a project: the name is
    /// only a guess from the directory, good enough to read from but never to write to.
    Guess(PathBuf),
}

/// A workspace and how it was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WorkspaceChoice {
    /// The workspace's name (validated and normalised).
    pub name: String,
    /// How it was chosen.
    pub source: WorkspaceSource,
}

/// A workspace offered when a save names none; see [`WorkspaceChoice::for_writing`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WorkspaceCandidate {
    /// The workspace's name.
    pub name: String,
    /// The day of its newest day file, if it has one.
    pub last_saved: Option<chrono::NaiveDate>,
    /// The project directory it belongs to, when known (a registered project).
    pub path: Option<PathBuf>,
}

impl WorkspaceCandidate {
    /// A candidate with only a name.
    pub fn new(name: impl Into<String>) -> Self {
        WorkspaceCandidate {
            name: name.into(),
            last_saved: None,
            path: None,
        }
    }
}

impl WorkspaceChoice {
    /// The note a read shows when its workspace was only guessed; `None` otherwise.
    pub fn guess_note(&self) -> Option<String> {
        match &self.source {
            WorkspaceSource::Guess(dir) => Some(format!(
                "workspace `{}` is a guess from {}, which is not inside a project; pass `workspace` (a name or the project's absolute path) to choose another",
                self.name,
                dir.display()
            )),
            _ => None,
        }
    }

    /// The workspace to write to. A guess is refused with an error that says how to name the
    /// workspace and lists `candidates` (recent workspaces, registered projects), so that
    /// nothing lands in a workspace named after a directory such as a plugin cache.
    pub fn for_writing(self, candidates: &[WorkspaceCandidate]) -> Result<String, Error> {
        let WorkspaceSource::Guess(dir) = &self.source else {
            return Ok(self.name);
        };
        let mut message = format!(
            "no workspace to save to: {} is not inside a project (a git work tree or a directory holding `{PROJECT_MARKER}/`; the home directory and `/` never count). Name the workspace: pass `workspace` (a name, or the project's absolute path), `--workspace`, or set ${WORKSPACE_ENV}",
            dir.display()
        );
        if candidates.is_empty() {
            message.push_str(". The store has no workspace yet.");
        } else {
            message.push_str(". Candidates: ");
            let listed: Vec<String> = candidates.iter().map(candidate_line).collect();
            message.push_str(&listed.join("; "));
            message.push('.');
        }
        Err(Error::invalid(message))
    }
}

fn candidate_line(c: &WorkspaceCandidate) -> String {
    let mut line = format!("`{}`", c.name);
    match (&c.path, c.last_saved) {
        (Some(path), Some(day)) => {
            line.push_str(&format!(" ({}, last saved {day})", path.display()))
        }
        (Some(path), None) => line.push_str(&format!(" ({})", path.display())),
        (None, Some(day)) => line.push_str(&format!(" (last saved {day})")),
        (None, None) => {}
    }
    line
}

/// The one decision of which workspace an operation uses.
///
/// In order: what the caller named ([`WorkspaceQuery::given`]: a name is validated; an
/// absolute path must be a directory, neither the home directory nor `/`, and names the
/// project around it, else itself); else the project around [`WorkspaceQuery::dir`]; else
/// the client's root; else a [`WorkspaceSource::Guess`] from the directory
/// ([`detect_workspace`]), which reads may use and [`WorkspaceChoice::for_writing`] refuses.
///
/// A *project* is the nearest directory at or above `dir`, below the home directory and
/// other than `/`, that holds `.git` (a git work tree, a linked worktree or a submodule) or
/// a `.goldfish/` directory. A git project is named as [`detect_workspace`] names it (a
/// linked worktree after its main repository); a `.goldfish/` one after its directory.
/// Reads only metadata; spawns no process.
pub fn choose_workspace(query: &WorkspaceQuery) -> Result<WorkspaceChoice, Error> {
    let home = query.user_home.as_deref();
    if let Some(given) = query
        .given
        .as_deref()
        .map(str::trim)
        .filter(|g| !g.is_empty())
    {
        let path = Path::new(given);
        if !path.is_absolute() {
            return Ok(WorkspaceChoice {
                name: validate_workspace(given)?,
                source: WorkspaceSource::Named,
            });
        }
        if !path.is_dir() {
            return Err(Error::invalid(format!(
                "workspace path {given:?} is not a directory; give a project's absolute path or a workspace name such as `my-project`"
            )));
        }
        if never_a_project(path, home) {
            return Err(Error::invalid(format!(
                "workspace path {given:?} is the home directory or `/`, not a project; give the project's directory or a workspace name"
            )));
        }
        let name = match find_project(path, home) {
            Some(root) => project_name(&root),
            None => name_of_dir(&lexical_normalize(&absolute(path))),
        };
        return Ok(WorkspaceChoice {
            name,
            source: WorkspaceSource::Path(path.to_path_buf()),
        });
    }
    let dir = absolute(&query.dir);
    if let Some(root) = find_project(&dir, home) {
        return Ok(WorkspaceChoice {
            name: project_name(&root),
            source: WorkspaceSource::Project(root),
        });
    }
    if query.dir_is_client_root && !never_a_project(&dir, home) {
        return Ok(WorkspaceChoice {
            name: name_of_dir(&lexical_normalize(&dir)),
            source: WorkspaceSource::ClientRoot(dir),
        });
    }
    Ok(WorkspaceChoice {
        name: detect_workspace(&dir),
        source: WorkspaceSource::Guess(dir),
    })
}

/// The top directory of the project around `dir` (see [`choose_workspace`]), if any.
pub fn find_project(dir: &Path, user_home: Option<&Path>) -> Option<PathBuf> {
    let dir = lexical_normalize(&absolute(dir));
    let mut current: Option<&Path> = Some(&dir);
    while let Some(d) = current {
        if never_a_project(d, user_home) {
            return None;
        }
        if std::fs::symlink_metadata(d.join(".git")).is_ok() || d.join(PROJECT_MARKER).is_dir() {
            return Some(d.to_path_buf());
        }
        current = d.parent();
    }
    None
}

/// `/` (any root) or the user's home directory.
fn never_a_project(dir: &Path, user_home: Option<&Path>) -> bool {
    let dir = lexical_normalize(&absolute(dir));
    if dir.parent().is_none() {
        return true;
    }
    let Some(home) = user_home.filter(|h| !h.as_os_str().is_empty()) else {
        return false;
    };
    let home = lexical_normalize(&absolute(home));
    if dir == home {
        return true;
    }
    // The same directory under another spelling (a symlinked home, `/private/var` on macOS).
    matches!(
        (std::fs::canonicalize(&dir), std::fs::canonicalize(&home)),
        (Ok(a), Ok(b)) if a == b
    )
}

/// The workspace of a project's top directory.
fn project_name(root: &Path) -> String {
    if std::fs::symlink_metadata(root.join(".git")).is_ok() {
        detect_workspace(root)
    } else {
        name_of_dir(root)
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
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
