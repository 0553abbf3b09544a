//! The writer side: every source mapped to goldfish checkpoints and plans, written through
//! `goldfish-store`, idempotently, and checked by counts afterwards.
//!
//! Each source is first turned into a [`Batch`] (pure mapping, no writes); [`apply`] then
//! writes the batch with [`Store::import_checkpoint`] and [`Store::import_plan`], which skip
//! an id that is already there with the same content (a checkpoint whose id is taken by
//! different content is kept under a derived id and reported in `adjusted`). Ids are derived from the origin (`tusk-<id>`, the Goldfish
//! id, …), so running an import twice, or again after it was killed, adds nothing twice.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use goldfish_store::{
    Checkpoint, Imported, MemoryType, Plan, PlanStatus, Redaction, Store, normalize_workspace,
    validate_plan_id,
};

use goldfish_memories::{Batch, Error, ErrorKind, PlanItem, clean_tags, one_line};

use crate::tusk::{TuskJournal, read_tusk};

/// How many checkpoints go to the store at once.
const IMPORT_CHUNK: usize = 256;

/// What an import should do besides writing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportOptions {
    /// Map and count everything, write nothing.
    pub dry_run: bool,
    /// Bring back records that were forgotten on purpose: the tombstones naming them are
    /// taken back before they are written. Without it, a forgotten record is counted in
    /// [`WorkspaceImport::checkpoints_forgotten`] (or `plans_forgotten`) and not written.
    pub resurrect: bool,
}

/// Counts for one workspace of an import.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct WorkspaceImport {
    /// The goldfish workspace written to.
    pub workspace: String,
    /// Checkpoints found in the source (that could be mapped).
    pub checkpoints: usize,
    /// Of those, how many were written by this run.
    pub checkpoints_added: usize,
    /// Of those, how many were already in the store (an earlier import).
    pub checkpoints_present: usize,
    /// Of those, how many were forgotten on purpose and so not written (see
    /// [`ImportOptions::resurrect`]).
    pub checkpoints_forgotten: usize,
    /// Plans found in the source.
    pub plans: usize,
    /// Of those, how many were written by this run.
    pub plans_added: usize,
    /// Of those, how many were already in the store.
    pub plans_present: usize,
    /// Of those, how many were forgotten on purpose and so not written.
    pub plans_forgotten: usize,
    /// After writing: how many of the source's checkpoints the store now holds (equal to
    /// `checkpoints` unless something was refused). `None` on a dry run.
    pub verified_checkpoints: Option<usize>,
    /// After writing: how many of the source's plans the store now holds.
    pub verified_plans: Option<usize>,
}

/// What an import did.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct ImportReport {
    /// The source that was read.
    pub source: PathBuf,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// Per workspace, in name order.
    pub workspaces: Vec<WorkspaceImport>,
    /// Everything skipped or left out, each with its file and line (or table and rowid).
    pub problems: Vec<Error>,
    /// Values changed to fit goldfish and kept; nothing was lost.
    pub adjusted: Vec<Error>,
    /// Records whose secrets the store replaced by `[REDACTED:<kind>]` as it wrote them (the
    /// same step as every save), in the order written. Empty on a dry run.
    pub redacted: Vec<RedactedRecord>,
}

/// One imported record that had secrets replaced: which record, and the fields and kinds
/// (never the secrets themselves).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct RedactedRecord {
    /// `checkpoint` or `plan`.
    pub record: &'static str,
    /// The record's id (a checkpoint id or a plan id).
    pub id: String,
    /// The workspace it was written to.
    pub workspace: String,
    /// What was replaced, in field order.
    pub redacted: Vec<Redaction>,
}

impl ImportReport {
    /// All the redactions of the import, for
    /// [`redaction_summary`](goldfish_store::redaction_summary)
    /// (`redacted 2 secrets: aws-access-key-id, github-token`).
    pub fn redactions(&self) -> Vec<Redaction> {
        self.redacted
            .iter()
            .flat_map(|r| r.redacted.iter().cloned())
            .collect()
    }
}

impl ImportReport {
    /// True when some record or value could not be imported.
    pub fn skipped_anything(&self) -> bool {
        !self.problems.is_empty()
    }

    /// True when the counts after writing match the source: every mapped checkpoint and
    /// plan is in the store. Always true for a dry run.
    pub fn verified(&self) -> bool {
        self.workspaces.iter().all(|w| {
            w.verified_checkpoints
                .is_none_or(|n| n == w.checkpoints - w.checkpoints_forgotten)
                && w.verified_plans
                    .is_none_or(|n| n == w.plans - w.plans_forgotten)
        })
    }
}

/// Writes `batch` into `store` (or only counts, with [`ImportOptions::dry_run`]), calling
/// `progress(done, total)` after each record, then checks by reading back that every record
/// is there.
pub fn apply(
    store: &Store,
    mut batch: Batch,
    opts: &ImportOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> ImportReport {
    // Grouped by day file (a stable sort: records of one day keep their order, which decides
    // which of two records with one id keeps it), so that each day file is rewritten once
    // per chunk whatever order the source lists its records in: a source ordered round-robin
    // over many days would otherwise rewrite a day file once per record.
    batch.checkpoints.sort_by(|a, b| {
        a.workspace
            .cmp(&b.workspace)
            .then_with(|| a.timestamp.date_naive().cmp(&b.timestamp.date_naive()))
    });
    let total = batch.checkpoints.len() + batch.plans.len();
    let mut report = ImportReport {
        source: batch.source.clone(),
        dry_run: opts.dry_run,
        workspaces: Vec::new(),
        problems: batch.problems,
        adjusted: batch.adjusted,
        redacted: Vec::new(),
    };
    let mut per: BTreeMap<String, WorkspaceImport> = BTreeMap::new();
    let entry = |per: &mut BTreeMap<String, WorkspaceImport>, ws: &str| {
        per.entry(ws.to_string())
            .or_insert_with(|| WorkspaceImport {
                workspace: ws.to_string(),
                ..WorkspaceImport::default()
            })
            .workspace
            .clone()
    };
    if opts.resurrect && !opts.dry_run {
        resurrect(store, &batch.checkpoints, &batch.plans, &mut report);
    }
    let mut done = 0;
    // Checkpoints kept under a derived id, by (workspace, id): what `verify` looks for.
    let mut renamed: HashMap<(String, String), String> = HashMap::new();
    let mut renamed_plans: HashMap<(String, String), String> = HashMap::new();
    // Chunks: the store writes each day file of a chunk once, and progress is reported
    // between chunks.
    for chunk in batch.checkpoints.chunks(IMPORT_CHUNK) {
        let results = if opts.dry_run {
            Vec::new()
        } else {
            store.import_checkpoints_reported(chunk)
        };
        for (k, c) in chunk.iter().enumerate() {
            let ws = entry(&mut per, &c.workspace);
            let counts = per.get_mut(&ws).expect("inserted above");
            match results.get(k) {
                None => counts.checkpoints += 1,
                Some(Ok(saved)) => {
                    counts.checkpoints += 1;
                    if !saved.redacted.is_empty() {
                        report.redacted.push(RedactedRecord {
                            record: "checkpoint",
                            id: c.id.clone(),
                            workspace: ws.clone(),
                            redacted: saved.redacted.clone(),
                        });
                    }
                    let imported = &saved.value;
                    if *imported == Imported::Forgotten {
                        counts.checkpoints_forgotten += 1;
                    } else if imported.added() {
                        counts.checkpoints_added += 1;
                    } else {
                        counts.checkpoints_present += 1;
                    }
                    if let Imported::AddedAs(id) = imported {
                        report.adjusted.push(Error::new(
                            ErrorKind::Unmapped,
                            &batch.source,
                            format!(
                                "checkpoint {} ({}) has the id of an entry with different \
                                 content; kept as {id}",
                                c.id, c.workspace
                            ),
                        ));
                        renamed.insert((c.workspace.clone(), c.id.clone()), id.clone());
                    }
                }
                Some(Err(e)) => report.problems.push(Error::new(
                    ErrorKind::Store,
                    &batch.source,
                    format!("checkpoint {} ({}) skipped: {e}", c.id, c.workspace),
                )),
            }
        }
        done += chunk.len();
        progress(done, total);
    }
    for item in &batch.plans {
        let ws = entry(&mut per, &item.plan.workspace);
        let counts = per.get_mut(&ws).expect("inserted above");
        if opts.dry_run {
            counts.plans += 1;
        } else {
            match store.import_plan_reported(&item.plan, item.active) {
                Ok(saved) => {
                    counts.plans += 1;
                    if !saved.redacted.is_empty() {
                        report.redacted.push(RedactedRecord {
                            record: "plan",
                            id: item.plan.id.clone(),
                            workspace: ws.clone(),
                            redacted: saved.redacted.clone(),
                        });
                    }
                    let imported = saved.value;
                    if imported == Imported::Forgotten {
                        counts.plans_forgotten += 1;
                    } else if imported.added() {
                        counts.plans_added += 1;
                    } else {
                        counts.plans_present += 1;
                    }
                    if let Imported::AddedAs(id) = imported {
                        report.adjusted.push(Error::new(
                            ErrorKind::Unmapped,
                            &batch.source,
                            format!(
                                "plan {} ({}) has the id of a plan with different content; \
                                 kept as {id}",
                                item.plan.id, item.plan.workspace
                            ),
                        ));
                        renamed_plans
                            .insert((item.plan.workspace.clone(), item.plan.id.clone()), id);
                    }
                }
                Err(e) => report.problems.push(Error::new(
                    ErrorKind::Store,
                    &batch.source,
                    format!(
                        "plan {} ({}) skipped: {e}",
                        item.plan.id, item.plan.workspace
                    ),
                )),
            }
        }
        done += 1;
        progress(done, total);
    }
    if !opts.dry_run {
        verify(
            store,
            &batch.checkpoints,
            &renamed,
            &batch.plans,
            &renamed_plans,
            &mut per,
        );
    }
    report.workspaces = per.into_values().collect();
    report
}

/// Takes back the tombstones of every record of the batch that was forgotten, so that
/// the import writes them again (a person asked for it: [`ImportOptions::resurrect`]).
fn resurrect(
    store: &Store,
    checkpoints: &[Checkpoint],
    plans: &[PlanItem],
    report: &mut ImportReport,
) {
    let mut ids: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for c in checkpoints {
        ids.entry(&c.workspace).or_default().push(c.id.clone());
    }
    for p in plans {
        ids.entry(&p.plan.workspace)
            .or_default()
            .push(p.plan.id.clone());
    }
    for (ws, ids) in ids {
        if let Err(e) = store.unforget(ws, &ids) {
            report.problems.push(Error::new(
                ErrorKind::Store,
                &report.source,
                format!("the forgotten records of {ws} could not be brought back: {e}"),
            ));
        }
    }
}

/// Reads back what the store holds of the batch: each workspace's mapped checkpoints (by id,
/// in their day files) and plans (by id).
fn verify(
    store: &Store,
    checkpoints: &[Checkpoint],
    renamed: &HashMap<(String, String), String>,
    plans: &[PlanItem],
    renamed_plans: &HashMap<(String, String), String>,
    per: &mut BTreeMap<String, WorkspaceImport>,
) {
    let mut days: HashMap<(String, chrono::NaiveDate), Vec<String>> = HashMap::new();
    for c in checkpoints {
        let key = (c.workspace.clone(), c.timestamp.date_naive());
        if !days.contains_key(&key) {
            let ids = store
                .read_day(&key.0, key.1)
                .map(|r| r.checkpoints.into_iter().map(|c| c.id).collect())
                .unwrap_or_default();
            days.insert(key.clone(), ids);
        }
        let id = renamed
            .get(&(c.workspace.clone(), c.id.clone()))
            .unwrap_or(&c.id);
        if days[&key].contains(id)
            && let Some(w) = per.get_mut(&c.workspace)
        {
            *w.verified_checkpoints.get_or_insert(0) += 1;
        }
    }
    for item in plans {
        let p = &item.plan;
        let id = renamed_plans
            .get(&(p.workspace.clone(), p.id.clone()))
            .unwrap_or(&p.id);
        if store.get_plan(&p.workspace, id).is_ok()
            && let Some(w) = per.get_mut(&p.workspace)
        {
            *w.verified_plans.get_or_insert(0) += 1;
        }
    }
    for w in per.values_mut() {
        w.verified_checkpoints.get_or_insert(0);
        w.verified_plans.get_or_insert(0);
    }
}

// ----- Tusk -------------------------------------------------------------------------------

/// Maps a Tusk `journal.db` to a [`Batch`]: checkpoints as checkpoints (`tusk-<id>`), plans
/// with their sub-tasks as checkboxes and their progress notes in a `## Notes` section.
/// The database is read from a copy; the original is never modified.
pub fn tusk_batch(path: &Path) -> Result<Batch, Error> {
    let journal = read_tusk(path)?;
    Ok(map_tusk(journal))
}

fn map_tusk(journal: TuskJournal) -> Batch {
    let mut batch = Batch::new(journal.path.clone());
    let names: HashMap<String, String> = journal
        .workspaces()
        .into_iter()
        .map(|w| {
            let name = w
                .name
                .clone()
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| {
                    if w.path.is_empty() {
                        w.id.clone()
                    } else {
                        w.path.clone()
                    }
                });
            (w.id, normalize_workspace(&name))
        })
        .collect();
    let ws_of = |id: &str| {
        names
            .get(id)
            .cloned()
            .unwrap_or_else(|| normalize_workspace(id))
    };
    batch.problems.extend(journal.problems);
    let source = journal.path.clone();
    let mut rows = journal.checkpoints;
    rows.sort_by(|a, b| a.timestamp.cmp(&b.timestamp).then(a.rowid.cmp(&b.rowid)));
    for t in rows {
        if t.description.trim().is_empty() {
            batch.problems.push(
                Error::new(
                    ErrorKind::Unmapped,
                    &source,
                    format!("checkpoint {} has no description; skipped", t.id),
                )
                .at_row("checkpoints", t.rowid),
            );
            continue;
        }
        let ws = ws_of(&t.workspace_id);
        let mut c = Checkpoint::new(format!("tusk-{}", t.id), t.timestamp, ws, t.description);
        c.tags = clean_tags(&t.tags, &source, &mut batch.adjusted);
        c.branch = t.git_branch;
        c.commit = t.git_commit;
        c.files = t.files;
        // Tusk's session is the agent session that saved it: the actor's.
        c.actor.session = t.session_id;
        let mut put = |key: &str, v: Option<String>| {
            if let Some(v) = v {
                c.extra.insert(key.to_string(), v);
            }
        };
        put("Workspace path", Some(t.workspace_path));
        put("Workspace name", t.workspace_name);
        put("Project", t.project);
        put("Sync status", t.sync_status);
        put("Remote id", t.remote_id);
        put("Last synced", t.last_synced_at);
        put("Version", t.version.map(|v| v.to_string()));
        put("Created", t.created_at.map(|d| notes_time(&d)));
        put("Updated", t.updated_at.map(|d| notes_time(&d)));
        put("Tusk confidence", t.confidence_score.map(|v| v.to_string()));
        match t.entry_type.as_deref().map(str::parse::<MemoryType>) {
            Some(Ok(kind)) => c.memory_type = kind,
            Some(Err(_)) => put("Entry type", t.entry_type.clone()),
            None => {}
        }
        c.extra
            .insert("Origin".into(), format!("tusk:{}:{}", t.workspace_id, t.id));
        batch.checkpoints.push(c);
    }
    for p in journal.plans {
        let ws = ws_of(&p.workspace_id);
        let id = match validate_plan_id(&format!("tusk-{}", p.id)) {
            Ok(id) => id,
            Err(e) => {
                batch.problems.push(
                    Error::new(ErrorKind::Unmapped, &source, e.message().to_string())
                        .at_row("plans", p.rowid),
                );
                continue;
            }
        };
        let mut content = p.content.clone();
        if !p.sub_tasks.is_empty() {
            ensure_blank_line(&mut content);
            content.push_str("## Sub-tasks\n\n");
            for task in &p.sub_tasks {
                let mark = if task.completed { 'x' } else { ' ' };
                content.push_str(&format!("- [{mark}] {}\n", one_line(&task.description)));
            }
        }
        if !p.notes.is_empty() {
            ensure_blank_line(&mut content);
            content.push_str("## Notes\n\n");
            for note in &p.notes {
                let at = note
                    .at
                    .map(|a| format!("{} ", notes_time(&a)))
                    .unwrap_or_default();
                content.push_str(&format!("- {at}{}\n", note.text.replace('\n', "\n  ")));
            }
        }
        let mut plan = Plan::new(id, one_line(&p.title), content, ws, p.created_at);
        plan.updated = p.updated_at;
        plan.status = match p.status.parse::<PlanStatus>() {
            Ok(s) => s,
            Err(_) => {
                batch.problems.push(
                    Error::new(
                        ErrorKind::Unmapped,
                        &source,
                        format!(
                            "plan {}: unknown status {:?}, imported as active",
                            p.id, p.status
                        ),
                    )
                    .at_row("plans", p.rowid),
                );
                PlanStatus::Active
            }
        };
        let mut extra = BTreeMap::new();
        extra.insert(
            "origin".to_string(),
            format!("tusk:{}:{}", p.workspace_id, p.id).into(),
        );
        if let Some(done) = p.completed_at {
            extra.insert("completed".to_string(), notes_time(&done).into());
        }
        plan.extra = extra;
        batch.plans.push(PlanItem::new(plan, p.is_active));
    }
    batch
}

// ----- Goldfish v4 ------------------------------------------------------------------------

/// Maps a Goldfish v4 store (`{workspace}/checkpoints/*.md`, `{workspace}/plans/*.md`) to a
/// [`Batch`]. Entries keep their ids (v4 entries get stable derived ids), so importing a store
/// into itself adds nothing.
pub fn v4_batch(dir: &Path) -> Result<Batch, Error> {
    if !dir.is_dir() {
        return Err(Error::new(
            ErrorKind::Io,
            dir,
            "not a directory: give a Goldfish v4 store (such as ~/.goldfish)",
        ));
    }
    let source = Store::open(dir).map_err(|e| Error::store(dir, e))?;
    let mut batch = Batch::new(dir.to_path_buf());
    let workspaces = source.list_workspaces().map_err(|e| Error::store(dir, e))?;
    let (from, to) = (DateTime::UNIX_EPOCH, DateTime::<Utc>::MAX_UTC);
    for ws in workspaces {
        match source.checkpoints_between(&ws, from, to) {
            Ok(range) => {
                batch.checkpoints.extend(range.checkpoints);
                for s in range.skipped {
                    batch
                        .problems
                        .push(Error::new(ErrorKind::Malformed, &s.path, s.message).at_line(s.line));
                }
            }
            Err(e) => batch.problems.push(Error::store(dir, e)),
        }
        match source.list_plans(&ws) {
            Ok(list) => {
                let active = list.active.clone();
                for s in &list.skipped {
                    batch.problems.push(
                        Error::new(ErrorKind::Malformed, &s.path, s.message.clone())
                            .at_line(s.line),
                    );
                }
                for plan in list.plans {
                    let is_active = active.as_deref() == Some(plan.id.as_str());
                    batch.plans.push(PlanItem::new(plan, is_active));
                }
            }
            Err(e) => batch.problems.push(Error::store(dir, e)),
        }
    }
    Ok(batch)
}

// ----- helpers ----------------------------------------------------------------------------

fn ensure_blank_line(text: &mut String) {
    if text.is_empty() {
        return;
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if !text.ends_with("\n\n") {
        text.push('\n');
    }
}

fn notes_time(at: &DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}
