//! Goldfish's cross-project registry: `~/.goldfish/registry.json`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind};
use crate::memories::{MemoriesDir, read_memories};

/// One project Goldfish knows about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RegisteredProject {
    /// The project directory (absolute, with `/` separators), which holds `.memories/`.
    pub path: PathBuf,
    /// Goldfish's workspace name for it (`coral-reef-ui` for `…/@coral/reef-ui`).
    pub name: String,
    /// When Goldfish first saved a checkpoint there, as written (an ISO 8601 instant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registered: Option<String>,
}

/// The registry: the projects Goldfish knows about, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Registry {
    /// The registered projects.
    pub projects: Vec<RegisteredProject>,
}

/// Parses `registry.json` text. The error carries the 1-based line and what is wrong.
pub fn parse_registry(text: &str) -> Result<Registry, (usize, String)> {
    serde_json::from_str(text).map_err(|e| {
        (
            e.line().max(1),
            format!("not a Goldfish registry ({{\"projects\": [{{\"path\", \"name\"}}]}}): {e}"),
        )
    })
}

/// Reads a `registry.json`.
pub fn read_registry(path: &Path) -> Result<Registry, Error> {
    let text = crate::memories::read_text(path)?;
    parse_registry(&text).map_err(|(line, message)| {
        Error::new(ErrorKind::Malformed, path, message).at_line(Some(line))
    })
}

/// Reads every registered project's `.memories/`, in registry order.
///
/// A project whose directory is gone or unreadable is left out of the list and reported in
/// the second value; the others are read.
pub fn read_registered(registry: &Registry) -> (Vec<(RegisteredProject, MemoriesDir)>, Vec<Error>) {
    let mut read = Vec::new();
    let mut problems = Vec::new();
    for project in &registry.projects {
        let dir = project.path.join(".memories");
        if !dir.is_dir() {
            problems.push(Error::new(
                ErrorKind::Io,
                &dir,
                format!(
                    "project {:?} is registered but has no `.memories` directory here; \
                     it is left out",
                    project.name
                ),
            ));
            continue;
        }
        match read_memories(&dir) {
            Ok(m) => read.push((project.clone(), m)),
            Err(e) => problems.push(e),
        }
    }
    (read, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_parses_and_reports_lines() {
        let r = parse_registry(
            r#"{"projects":[{"path":"/p/a","name":"a","registered":"2026-05-04T09:14:07.250Z"},{"path":"/p/b","name":"b"}]}"#,
        )
        .expect("valid");
        assert_eq!(r.projects.len(), 2);
        assert_eq!(r.projects[1].registered, None);
        let (line, msg) = parse_registry("{\n\"projects\": [\n{\"path\": 3}]}").expect_err("bad");
        assert_eq!(line, 3);
        assert!(msg.contains("registry"), "{msg}");
    }
}
