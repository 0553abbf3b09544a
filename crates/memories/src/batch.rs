//! Goldfish 5–8 projects mapped to goldfish checkpoints and plans (a [`Batch`], nothing
//! written), and the projects read in place: what `goldfish-import` writes and what recall
//! shows beside the store's own workspaces.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::DateTime;
use goldfish_store::{Checkpoint, MemoryType, Plan, detect_workspace, validate_plan_id};

use crate::error::{Error, ErrorKind};
use crate::memories::{MemoriesDir, MemoryRecord, read_memories};
use crate::registry::{read_registered, read_registry};

/// A plan to import and whether its source marked it active.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PlanItem {
    /// The plan, as it will be written.
    pub plan: Plan,
    /// Whether the source marked it as its workspace's active plan.
    pub active: bool,
}

impl PlanItem {
    /// `plan`, marked by its source as its workspace's active plan or not.
    pub fn new(plan: Plan, active: bool) -> PlanItem {
        PlanItem { plan, active }
    }
}

/// Everything one source maps to, before anything is written.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Batch {
    /// The source that was read.
    pub source: PathBuf,
    /// Checkpoints, each with its derived, stable id.
    pub checkpoints: Vec<Checkpoint>,
    /// Plans, each with its derived, stable id.
    pub plans: Vec<PlanItem>,
    /// What could not be read or mapped: records skipped, values left out (each with its
    /// file and line, or table and rowid).
    pub problems: Vec<Error>,
    /// Values changed to fit goldfish and kept (a tag holding a comma becomes two tags).
    pub adjusted: Vec<Error>,
}

impl Batch {
    /// An empty batch read from `source`.
    pub fn new(source: impl Into<PathBuf>) -> Batch {
        Batch {
            source: source.into(),
            ..Batch::default()
        }
    }
}

// ----- Goldfish 5–8 `.memories/` -------------------------------------------------------------

/// Maps a Goldfish 5–8 project (its directory or its `.memories/`), or a `registry.json`
/// (every registered project), to a [`Batch`]. Never writes to the source.
pub fn memories_batch(path: &Path) -> Result<Batch, Error> {
    let mut batch = Batch {
        source: path.to_path_buf(),
        ..Batch::default()
    };
    if path.is_file() {
        let registry = read_registry(path)?;
        let (projects, problems) = read_registered(&registry);
        batch.problems.extend(problems);
        for (project, dir) in projects {
            let ws = detect_workspace(&project.path);
            map_memories(dir, &ws, &mut batch);
        }
    } else {
        let dir = read_memories(path)?;
        let project = if dir.dir.file_name().is_some_and(|n| n == ".memories") {
            dir.dir.parent().unwrap_or(&dir.dir).to_path_buf()
        } else {
            dir.dir.clone()
        };
        // The workspace goldfish itself gives the project's directory, so that a recall run
        // there finds what was imported (and a registry import names it the same way).
        let ws = detect_workspace(&project);
        map_memories(dir, &ws, &mut batch);
    }
    Ok(batch)
}

fn map_memories(dir: MemoriesDir, workspace: &str, batch: &mut Batch) {
    batch.problems.extend(dir.problems);
    // Goldfish ids are unique in practice; two files with one id are both kept, the later
    // (in file order) with its file name added, so that neither is lost.
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut records = dir.checkpoints;
    records.sort_by(|a, b| a.timestamp.cmp(&b.timestamp).then(a.path.cmp(&b.path)));
    for r in records {
        let n = seen.entry(r.id.clone()).or_insert(0);
        *n += 1;
        let id = if *n == 1 {
            r.id.clone()
        } else {
            let stem = r
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{}-{stem}", r.id)
        };
        match memory_checkpoint(&r, id, workspace, &mut batch.problems, &mut batch.adjusted) {
            Some(c) => batch.checkpoints.push(c),
            None => continue,
        }
    }
    for b in dir.briefs {
        let id = match validate_plan_id(&b.id) {
            Ok(id) => id,
            Err(e) => {
                batch.problems.push(Error::new(
                    ErrorKind::Unmapped,
                    &b.path,
                    format!("brief {:?} skipped: {}", b.id, e.message()),
                ));
                continue;
            }
        };
        let created = b.created.or(b.updated).unwrap_or(DateTime::UNIX_EPOCH);
        let mut plan = Plan::new(id, one_line(&b.title), b.body.clone(), workspace, created);
        plan.updated = b.updated.unwrap_or(created);
        plan.status = b.status;
        plan.tags = clean_tags(&b.tags, &b.path, &mut batch.adjusted);
        plan.extra = b.extra.clone();
        if b.id != plan.id {
            plan.extra
                .insert("origin".into(), serde_json::Value::String(b.id.clone()));
        }
        batch.plans.push(PlanItem {
            plan,
            active: b.active,
        });
    }
}

fn memory_checkpoint(
    r: &MemoryRecord,
    id: String,
    workspace: &str,
    problems: &mut Vec<Error>,
    adjusted: &mut Vec<Error>,
) -> Option<Checkpoint> {
    if r.description.trim().is_empty() {
        problems.push(Error::new(
            ErrorKind::Unmapped,
            &r.path,
            format!("checkpoint {} has no description; skipped", r.id),
        ));
        return None;
    }
    let mut c = Checkpoint::new(id, r.timestamp, workspace, r.description.clone());
    c.memory_type = r.memory_type.unwrap_or(MemoryType::Checkpoint);
    c.structured = r.structured.clone();
    c.tags = clean_tags(&r.tags, &r.path, adjusted);
    if let Some(git) = &r.git {
        c.branch = git.branch.clone();
        c.commit = git.commit.clone();
        c.files = git.files.clone();
        if let Some(w) = &git.worktree {
            c.extra.insert("Worktree".into(), w.clone());
        }
    }
    if let Some(summary) = &r.summary {
        c.extra.insert("Summary".into(), summary.clone());
    }
    c.actor = r.actor.clone().unwrap_or_default();
    if let Some(brief) = &r.brief_id {
        c.extra.insert("Brief".into(), brief.clone());
    }
    for (key, value) in &r.extra {
        let text = match value {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        c.extra.insert(format!("x-{key}"), text);
    }
    c.extra
        .insert("Origin".into(), format!("goldfish:{}", r.id));
    Some(c)
}

// ----- helpers shared with the other importers ----------------------------------------------

/// Tags as goldfish holds them (a set): a tag holding line breaks becomes one tag per line,
/// a blank one is left out and a repeated one kept once, each reported in `adjusted`. A
/// comma is part of its tag (`queue,broker` stays one tag; the day file escapes it).
pub fn clean_tags(tags: &[String], path: &Path, adjusted: &mut Vec<Error>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for tag in tags {
        let parts: Vec<&str> = tag
            .split(['\n', '\r'])
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        if parts.len() > 1 {
            adjusted.push(Error::new(
                ErrorKind::Unmapped,
                path,
                format!("tag {tag:?} holds a line break; imported as the tags {parts:?}"),
            ));
        }
        if parts.is_empty() {
            adjusted.push(Error::new(
                ErrorKind::Unmapped,
                path,
                format!("blank tag {tag:?} left out"),
            ));
        }
        for part in parts {
            if out.iter().any(|t| t == part) {
                adjusted.push(Error::new(
                    ErrorKind::Unmapped,
                    path,
                    format!("tag {part:?} given twice; kept once"),
                ));
            } else {
                out.push(part.to_string());
            }
        }
    }
    out
}

/// The lines of `text`, trimmed, blank ones left out, joined by one space: a title.
pub fn one_line(text: &str) -> String {
    text.split(['\n', '\r'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

// ----- Goldfish stores read in place ------------------------------------------------------

/// A Goldfish 5–8 project whose `.memories/` is read in place, as a goldfish workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InPlaceProject {
    /// The workspace it is shown as: the one goldfish detects for the project's directory
    /// (so its memories and goldfish's own for that project are one workspace).
    pub workspace: String,
    /// The project directory (holding `.memories/`).
    pub path: PathBuf,
}

/// The Goldfish projects to read in place: every project of `registry` (Goldfish's
/// `registry.json`, which lives beside goldfish's own workspace directories when both use
/// `~/.goldfish`) whose `.memories/` exists, and, when `cwd` is given, the nearest directory
/// at or above it holding a `.memories/` directory. Nothing is written. A registry that
/// cannot be read is reported, not fatal.
pub fn in_place_projects(registry: &Path, cwd: Option<&Path>) -> (Vec<InPlaceProject>, Vec<Error>) {
    let mut out: Vec<InPlaceProject> = Vec::new();
    let mut problems = Vec::new();
    let push = |path: PathBuf, out: &mut Vec<InPlaceProject>| {
        if path.join(".memories").is_dir() && !out.iter().any(|p| p.path == path) {
            out.push(InPlaceProject {
                workspace: detect_workspace(&path),
                path,
            });
        }
    };
    if registry.is_file() {
        match read_registry(registry) {
            Ok(r) => {
                for p in r.projects {
                    push(p.path, &mut out);
                }
            }
            Err(e) => problems.push(e),
        }
    }
    if let Some(cwd) = cwd {
        let absolute = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        if let Some(dir) = absolute.ancestors().find(|d| d.join(".memories").is_dir()) {
            push(dir.to_path_buf(), &mut out);
        }
    }
    (out, problems)
}
