//! Tusk's journal: `~/.tusk/journal.db`, SQLite in WAL mode.
//!
//! # How the database is opened
//!
//! The file is **copied** (with its `-wal` and `-shm` files when present) into a temporary
//! directory, and the copy is opened. The original is only ever read as bytes, so its
//! contents and modification times cannot change, and a read-only directory is no obstacle.
//!
//! Opening the original read-only is not enough: in WAL mode SQLite must create or write the
//! `-shm` file beside the database even to read. Opening it with `immutable=1` avoids that,
//! but then SQLite ignores the `-wal` file entirely, so everything Tusk committed since its
//! last checkpoint (all of it, while Tusk is running) would be silently missing. The copy
//! keeps the WAL, and SQLite replays it when the copy is opened.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, Row};
use serde::{Deserialize, Serialize};

use goldfish_memories::{Error, ErrorKind};

/// One Tusk checkpoint row, every column.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TuskCheckpoint {
    /// Tusk's id (`20260406094012_oy44ga`), unique within its workspace.
    pub id: String,
    /// `sha256(workspace_path)[:12]`.
    pub workspace_id: String,
    /// The workspace directory, absolute.
    pub workspace_path: String,
    /// The workspace's display name (git root or `package.json` name).
    pub workspace_name: Option<String>,
    /// When it was saved.
    pub timestamp: DateTime<Utc>,
    /// What was done, stored as given (not trimmed, CRLF kept).
    pub description: String,
    /// The project (git remote name or directory).
    pub project: Option<String>,
    /// Git branch, `None` when detached or outside git.
    pub git_branch: Option<String>,
    /// Short git commit.
    pub git_commit: Option<String>,
    /// Tags, as stored (empty ones kept).
    pub tags: Vec<String>,
    /// Files, as stored.
    pub files: Vec<String>,
    /// The agent session.
    pub session_id: Option<String>,
    /// `user-request`, `session-marker`, `auto-save`, `progress` or `completion`.
    pub entry_type: Option<String>,
    /// 0.0–1.0, lower for automatic captures.
    pub confidence_score: Option<f64>,
    /// Sync state (`local`).
    pub sync_status: Option<String>,
    /// Remote id, never set by Tusk.
    pub remote_id: Option<String>,
    /// Last sync, never set by Tusk.
    pub last_synced_at: Option<String>,
    /// Row version.
    pub version: Option<i64>,
    /// When the row was created.
    pub created_at: Option<DateTime<Utc>>,
    /// When the row was last updated.
    pub updated_at: Option<DateTime<Utc>>,
    /// The row's SQLite rowid.
    pub rowid: i64,
}

/// A plan's sub-task.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SubTask {
    /// Tusk's id for it: the first 8 characters of a generated id, i.e. the date, so
    /// sub-tasks created the same day share it.
    pub id: String,
    /// What to do.
    pub description: String,
    /// Whether it is done.
    pub completed: bool,
    /// Checkpoints linked to it.
    pub checkpoint_ids: Vec<String>,
    /// When it was added.
    pub created_at: Option<DateTime<Utc>>,
    /// When it was done.
    pub completed_at: Option<DateTime<Utc>>,
}

/// One note of a plan's progress log: `[ISO instant] text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ProgressNote {
    /// When it was written; `None` for text before the first `[instant]` (hand edits).
    pub at: Option<DateTime<Utc>>,
    /// The note.
    pub text: String,
}

/// One Tusk plan row, every column.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TuskPlan {
    /// Tusk's id.
    pub id: String,
    /// The workspace it belongs to.
    pub workspace_id: String,
    /// Title.
    pub title: String,
    /// Markdown body.
    pub content: String,
    /// `active`, `completed` or `archived`, as stored.
    pub status: String,
    /// The progress log as stored: notes separated by blank lines.
    pub progress_notes: Option<String>,
    /// The progress log, one entry per note.
    pub notes: Vec<ProgressNote>,
    /// Sub-tasks, in order.
    pub sub_tasks: Vec<SubTask>,
    /// Tusk's staleness counter.
    pub checkpoint_count_at_last_update: Option<i64>,
    /// Tusk's last linked checkpoint.
    pub last_updated_checkpoint_id: Option<String>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it was last changed.
    pub updated_at: DateTime<Utc>,
    /// When it was completed.
    pub completed_at: Option<DateTime<Utc>>,
    /// Whether it is its workspace's active plan (`is_active = 1`). A plan may have status
    /// `active` without being the active one.
    pub is_active: bool,
    /// The row's SQLite rowid.
    pub rowid: i64,
}

/// A workspace, as its checkpoints name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TuskWorkspace {
    /// `sha256(path)[:12]`.
    pub id: String,
    /// The directory, absolute.
    pub path: String,
    /// The display name.
    pub name: Option<String>,
}

/// Everything read from a Tusk journal.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct TuskJournal {
    /// The database that was read.
    pub path: PathBuf,
    /// Every checkpoint, newest first (ties by rowid).
    pub checkpoints: Vec<TuskCheckpoint>,
    /// Every plan, most recently updated first (ties by rowid).
    pub plans: Vec<TuskPlan>,
    /// Rows that could not be read ([`ErrorKind::BadRow`]), each with its table and rowid.
    pub problems: Vec<Error>,
}

impl TuskJournal {
    /// The workspaces, in order of first appearance in [`checkpoints`](Self::checkpoints).
    /// A workspace with plans but no checkpoints is listed by id alone (empty path).
    pub fn workspaces(&self) -> Vec<TuskWorkspace> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for c in &self.checkpoints {
            if seen.insert(c.workspace_id.clone()) {
                out.push(TuskWorkspace {
                    id: c.workspace_id.clone(),
                    path: c.workspace_path.clone(),
                    name: c.workspace_name.clone(),
                });
            }
        }
        for p in &self.plans {
            if seen.insert(p.workspace_id.clone()) {
                out.push(TuskWorkspace {
                    id: p.workspace_id.clone(),
                    path: String::new(),
                    name: None,
                });
            }
        }
        out
    }

    /// The active plan of a workspace (`is_active = 1`), if any.
    pub fn active_plan(&self, workspace_id: &str) -> Option<&TuskPlan> {
        self.plans
            .iter()
            .find(|p| p.is_active && p.workspace_id == workspace_id)
    }
}

/// Splits a progress log into notes. Tusk appends `[ISO instant] text` separated by a blank
/// line; a note's own text may contain blank lines, so a new note starts only where a blank
/// line is followed by `[` and a valid instant and `] `.
pub fn parse_progress_notes(log: &str) -> Vec<ProgressNote> {
    fn header(s: &str) -> Option<(DateTime<Utc>, &str)> {
        let rest = s.strip_prefix('[')?;
        let close = rest.find("] ")?;
        let at = DateTime::parse_from_rfc3339(&rest[..close]).ok()?;
        Some((at.with_timezone(&Utc), &rest[close + 2..]))
    }
    let mut notes: Vec<ProgressNote> = Vec::new();
    let mut start = 0;
    let mut chunks = Vec::new();
    let mut search = 0;
    while let Some(i) = log[search..].find("\n\n[") {
        let at = search + i;
        if header(&log[at + 2..]).is_some() {
            chunks.push(&log[start..at]);
            start = at + 2;
        }
        search = at + 2;
    }
    chunks.push(&log[start..]);
    for chunk in chunks {
        match header(chunk) {
            Some((at, text)) => notes.push(ProgressNote {
                at: Some(at),
                text: text.to_string(),
            }),
            None if chunk.is_empty() => {}
            None => notes.push(ProgressNote {
                at: None,
                text: chunk.to_string(),
            }),
        }
    }
    notes
}

/// The SQLite file header: the first 16 bytes of every database.
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// The columns this reader reads; the first ones are required (Tusk has always had them),
/// the others are read as NULL when an older Tusk did not have them yet.
const CHECKPOINT_COLUMNS: [&str; 20] = [
    "id",
    "workspace_id",
    "workspace_path",
    "timestamp",
    "description",
    "workspace_name",
    "project",
    "git_branch",
    "git_commit",
    "tags",
    "files",
    "session_id",
    "entry_type",
    "confidence_score",
    "sync_status",
    "remote_id",
    "last_synced_at",
    "version",
    "created_at",
    "updated_at",
];
const CHECKPOINT_REQUIRED: usize = 5;

const PLAN_COLUMNS: [&str; 13] = [
    "id",
    "workspace_id",
    "title",
    "content",
    "created_at",
    "updated_at",
    "status",
    "progress_notes",
    "sub_tasks",
    "checkpoint_count_at_last_update",
    "last_updated_checkpoint_id",
    "completed_at",
    "is_active",
];
const PLAN_REQUIRED: usize = 6;

/// A temporary copy of the database and its WAL files; removed when dropped.
struct Snapshot {
    // Dropped after the connection (fields drop in declaration order).
    conn: Connection,
    _dir: tempfile::TempDir,
}

fn snapshot(path: &Path) -> Result<Snapshot, Error> {
    let mut magic = [0u8; 16];
    {
        use std::io::Read;
        let mut file =
            std::fs::File::open(path).map_err(|e| Error::io(path, "open the Tusk journal", e))?;
        let mut read = 0;
        while read < magic.len() {
            match file.read(&mut magic[read..]) {
                Ok(0) => break,
                Ok(n) => read += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(path, "read the Tusk journal", e)),
            }
        }
    }
    if &magic != SQLITE_MAGIC {
        return Err(Error::new(
            ErrorKind::NotSqlite,
            path,
            "not an SQLite database (no `SQLite format 3` header): give the path of Tusk's \
             journal.db, usually ~/.tusk/journal.db",
        ));
    }
    let dir = tempfile::Builder::new()
        .prefix("goldfish-import-tusk-")
        .tempdir()
        .map_err(|e| Error::io(path, "create a temporary directory for a copy of", e))?;
    let copy = dir.path().join("journal.db");
    std::fs::copy(path, &copy).map_err(|e| Error::io(path, "copy the Tusk journal", e))?;
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        let side = PathBuf::from(side);
        let mut target = copy.as_os_str().to_owned();
        target.push(suffix);
        match std::fs::copy(&side, PathBuf::from(target)) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&side, "copy the Tusk journal's WAL file", e)),
        }
    }
    let conn = Connection::open_with_flags(
        &copy,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| sqlite_error(path, "open", e))?;
    Ok(Snapshot { conn, _dir: dir })
}

fn sqlite_error(path: &Path, what: &str, e: rusqlite::Error) -> Error {
    let not_db = matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
    );
    let (kind, message) = if not_db {
        (
            ErrorKind::NotSqlite,
            format!("cannot {what} the Tusk journal: not a readable SQLite database ({e})"),
        )
    } else {
        (
            ErrorKind::Io,
            format!("cannot {what} the Tusk journal: {e}"),
        )
    };
    Error::new(kind, path, message).with_source(e)
}

/// The columns of `table`, or `None` when there is no such table.
fn columns(conn: &Connection, path: &Path, table: &str) -> Result<Option<Vec<String>>, Error> {
    let mut stmt = conn
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .map_err(|e| sqlite_error(path, "read the schema of", e))?;
    let names = stmt
        .query_map([table], |row| row.get::<_, String>(0))
        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        .map_err(|e| sqlite_error(path, "read the schema of", e))?;
    Ok((!names.is_empty()).then_some(names))
}

fn tables(conn: &Connection, path: &Path) -> Result<Vec<String>, Error> {
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .map_err(|e| sqlite_error(path, "read the schema of", e))?;
    stmt.query_map([], |row| row.get::<_, String>(0))
        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        .map_err(|e| sqlite_error(path, "read the schema of", e))
}

/// `SELECT rowid, a, b, NULL AS c …`: the columns this reader knows, NULL for the optional
/// ones the table lacks. Fails with the names of the missing required columns.
fn select(
    table: &str,
    have: &[String],
    wanted: &[&str],
    required: usize,
    order: &str,
) -> Result<String, Vec<String>> {
    let missing: Vec<String> = wanted[..required]
        .iter()
        .filter(|c| !have.iter().any(|h| h == *c))
        .map(|c| c.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(missing);
    }
    let cols: Vec<String> = wanted
        .iter()
        .map(|c| {
            if have.iter().any(|h| h == c) {
                format!("\"{c}\"")
            } else {
                format!("NULL AS \"{c}\"")
            }
        })
        .collect();
    Ok(format!(
        "SELECT rowid, {} FROM \"{table}\" ORDER BY {order}",
        cols.join(", ")
    ))
}

/// Reads column `i` (0 is the rowid) as text: TEXT as is, numbers as their decimal text.
fn text(row: &Row<'_>, i: usize, name: &str) -> Result<Option<String>, String> {
    match row.get_ref(i).map_err(|e| format!("column {name}: {e}"))? {
        ValueRef::Null => Ok(None),
        ValueRef::Text(t) => String::from_utf8(t.to_vec())
            .map(Some)
            .map_err(|_| format!("column {name} is not UTF-8 text")),
        ValueRef::Integer(n) => Ok(Some(n.to_string())),
        ValueRef::Real(f) => Ok(Some(f.to_string())),
        ValueRef::Blob(_) => Err(format!("column {name} holds a blob, not text")),
    }
}

fn required_text(row: &Row<'_>, i: usize, name: &str) -> Result<String, String> {
    text(row, i, name)?.ok_or_else(|| format!("column {name} is NULL"))
}

fn integer(row: &Row<'_>, i: usize, name: &str) -> Result<Option<i64>, String> {
    match row.get_ref(i).map_err(|e| format!("column {name}: {e}"))? {
        ValueRef::Null => Ok(None),
        ValueRef::Integer(n) => Ok(Some(n)),
        ValueRef::Real(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Some(f as i64)),
        ValueRef::Text(t) => std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .map(Some)
            .ok_or_else(|| format!("column {name} is not a whole number")),
        _ => Err(format!("column {name} is not a whole number")),
    }
}

fn real(row: &Row<'_>, i: usize, name: &str) -> Result<Option<f64>, String> {
    match row.get_ref(i).map_err(|e| format!("column {name}: {e}"))? {
        ValueRef::Null => Ok(None),
        ValueRef::Integer(n) => Ok(Some(n as f64)),
        ValueRef::Real(f) => Ok(Some(f)),
        ValueRef::Text(t) => std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .map(Some)
            .ok_or_else(|| format!("column {name} is not a number")),
        ValueRef::Blob(_) => Err(format!("column {name} is not a number")),
    }
}

fn iso(value: &str, name: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(value.trim())
        .map(|d| d.with_timezone(&Utc))
        .map_err(|e| format!("column {name}: {value:?} is not an ISO 8601 instant ({e})"))
}

fn epoch_ms(ms: i64, name: &str) -> Result<DateTime<Utc>, String> {
    Utc.timestamp_millis_opt(ms)
        .single()
        .ok_or_else(|| format!("column {name}: {ms} is not a time in epoch milliseconds"))
}

fn json_list(value: Option<String>, name: &str) -> Result<Vec<String>, String> {
    match value {
        None => Ok(Vec::new()),
        Some(s) if s.is_empty() => Ok(Vec::new()),
        Some(s) => serde_json::from_str::<Vec<String>>(&s)
            .map_err(|e| format!("column {name} is not a JSON list of strings ({e}): {s:?}")),
    }
}

fn checkpoint_row(row: &Row<'_>) -> Result<TuskCheckpoint, String> {
    let col = |name: &str| {
        CHECKPOINT_COLUMNS
            .iter()
            .position(|c| *c == name)
            .map_or(0, |i| i + 1)
    };
    let t = |name: &str| text(row, col(name), name);
    let time = |name: &str| -> Result<Option<DateTime<Utc>>, String> {
        t(name)?.map(|v| iso(&v, name)).transpose()
    };
    Ok(TuskCheckpoint {
        id: required_text(row, col("id"), "id")?,
        workspace_id: required_text(row, col("workspace_id"), "workspace_id")?,
        workspace_path: required_text(row, col("workspace_path"), "workspace_path")?,
        workspace_name: t("workspace_name")?,
        timestamp: iso(
            &required_text(row, col("timestamp"), "timestamp")?,
            "timestamp",
        )?,
        description: required_text(row, col("description"), "description")?,
        project: t("project")?,
        git_branch: t("git_branch")?,
        git_commit: t("git_commit")?,
        tags: json_list(t("tags")?, "tags")?,
        files: json_list(t("files")?, "files")?,
        session_id: t("session_id")?,
        entry_type: t("entry_type")?,
        confidence_score: real(row, col("confidence_score"), "confidence_score")?,
        sync_status: t("sync_status")?,
        remote_id: t("remote_id")?,
        last_synced_at: t("last_synced_at")?,
        version: integer(row, col("version"), "version")?,
        created_at: time("created_at")?,
        updated_at: time("updated_at")?,
        rowid: row.get::<_, i64>(0).map_err(|e| format!("rowid: {e}"))?,
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SubTaskIn {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    completed: bool,
    #[serde(default)]
    checkpoint_ids: Vec<String>,
    #[serde(default)]
    created_at: Option<i64>,
    #[serde(default)]
    completed_at: Option<i64>,
}

fn sub_tasks(value: Option<String>) -> Result<Vec<SubTask>, String> {
    let Some(s) = value.filter(|s| !s.is_empty()) else {
        return Ok(Vec::new());
    };
    let raw: Vec<SubTaskIn> = serde_json::from_str(&s)
        .map_err(|e| format!("column sub_tasks is not a JSON list of sub-tasks ({e})"))?;
    raw.into_iter()
        .map(|t| {
            Ok(SubTask {
                id: t.id.unwrap_or_default(),
                description: t.description.unwrap_or_default(),
                completed: t.completed,
                checkpoint_ids: t.checkpoint_ids,
                created_at: t
                    .created_at
                    .map(|ms| epoch_ms(ms, "sub_tasks.createdAt"))
                    .transpose()?,
                completed_at: t
                    .completed_at
                    .map(|ms| epoch_ms(ms, "sub_tasks.completedAt"))
                    .transpose()?,
            })
        })
        .collect()
}

fn plan_row(row: &Row<'_>) -> Result<TuskPlan, String> {
    let col = |name: &str| {
        PLAN_COLUMNS
            .iter()
            .position(|c| *c == name)
            .map_or(0, |i| i + 1)
    };
    let t = |name: &str| text(row, col(name), name);
    let ms = |name: &str| -> Result<Option<DateTime<Utc>>, String> {
        integer(row, col(name), name)?
            .map(|v| epoch_ms(v, name))
            .transpose()
    };
    let progress_notes = t("progress_notes")?;
    Ok(TuskPlan {
        id: required_text(row, col("id"), "id")?,
        workspace_id: required_text(row, col("workspace_id"), "workspace_id")?,
        title: required_text(row, col("title"), "title")?,
        content: required_text(row, col("content"), "content")?,
        status: t("status")?.unwrap_or_else(|| "active".to_string()),
        notes: progress_notes
            .as_deref()
            .map(parse_progress_notes)
            .unwrap_or_default(),
        progress_notes,
        sub_tasks: sub_tasks(t("sub_tasks")?)?,
        checkpoint_count_at_last_update: integer(
            row,
            col("checkpoint_count_at_last_update"),
            "checkpoint_count_at_last_update",
        )?,
        last_updated_checkpoint_id: t("last_updated_checkpoint_id")?,
        created_at: ms("created_at")?.ok_or("column created_at is NULL")?,
        updated_at: ms("updated_at")?.ok_or("column updated_at is NULL")?,
        completed_at: ms("completed_at")?,
        is_active: integer(row, col("is_active"), "is_active")?.is_some_and(|v| v != 0),
        rowid: row.get::<_, i64>(0).map_err(|e| format!("rowid: {e}"))?,
    })
}

/// Reads every row of `table` with `read`; a row that fails is reported with the table and
/// rowid, and the others are read.
fn read_rows<T>(
    conn: &Connection,
    path: &Path,
    table: &str,
    sql: &str,
    read: fn(&Row<'_>) -> Result<T, String>,
    problems: &mut Vec<Error>,
) -> Result<Vec<T>, Error> {
    let mut stmt = conn
        .prepare(sql)
        .map_err(|e| sqlite_error(path, "read", e))?;
    let mut rows = stmt.query([]).map_err(|e| sqlite_error(path, "read", e))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(|e| sqlite_error(path, "read", e))? {
        match read(row) {
            Ok(v) => out.push(v),
            Err(message) => {
                let rowid = row.get::<_, i64>(0).unwrap_or(-1);
                problems.push(
                    Error::new(
                        ErrorKind::BadRow,
                        path,
                        format!("{message}; the row is skipped"),
                    )
                    .at_row(table, rowid),
                );
            }
        }
    }
    Ok(out)
}

/// Reads every checkpoint and plan of a Tusk `journal.db`, never modifying it (see the
/// module docs: the database is read from a temporary copy).
///
/// A file that is not SQLite, or an SQLite database without Tusk's `checkpoints` table and
/// columns, is an error naming the file. A row that cannot be read is reported in
/// [`TuskJournal::problems`] with its table and rowid, and the other rows are read.
pub fn read_tusk(path: &Path) -> Result<TuskJournal, Error> {
    let snap = snapshot(path)?;
    let conn = &snap.conn;
    let found = tables(conn, path)?;
    let foreign = |detail: String| {
        Error::new(
            ErrorKind::ForeignSchema,
            path,
            format!(
                "an SQLite database, but not a Tusk journal: {detail} (tables: {})",
                if found.is_empty() {
                    "none".to_string()
                } else {
                    found.join(", ")
                }
            ),
        )
    };
    let Some(have) = columns(conn, path, "checkpoints")? else {
        return Err(foreign("no `checkpoints` table".to_string()));
    };
    let sql = select(
        "checkpoints",
        &have,
        &CHECKPOINT_COLUMNS,
        CHECKPOINT_REQUIRED,
        "timestamp DESC, rowid",
    )
    .map_err(|missing| {
        foreign(format!(
            "the `checkpoints` table lacks {}",
            missing.join(", ")
        ))
    })?;
    let mut problems = Vec::new();
    let checkpoints = read_rows(
        conn,
        path,
        "checkpoints",
        &sql,
        checkpoint_row,
        &mut problems,
    )?;

    // The first Tusk versions had no plans: a journal without the table has none.
    let plans = match columns(conn, path, "plans")? {
        None => Vec::new(),
        Some(have) => {
            let sql = select(
                "plans",
                &have,
                &PLAN_COLUMNS,
                PLAN_REQUIRED,
                "updated_at DESC, rowid",
            )
            .map_err(|missing| {
                foreign(format!("the `plans` table lacks {}", missing.join(", ")))
            })?;
            read_rows(conn, path, "plans", &sql, plan_row, &mut problems)?
        }
    };
    Ok(TuskJournal {
        path: path.to_path_buf(),
        checkpoints,
        plans,
        problems,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_notes_split_on_timestamped_paragraphs() {
        let log = "[2026-04-07T09:30:00.000Z] first\n\n[not a time] still first\n\n\
                   [2026-04-10T09:30:00.000Z] second\n\nsecond paragraph";
        let notes = parse_progress_notes(log);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert_eq!(notes[0].text, "first\n\n[not a time] still first");
        assert_eq!(notes[1].text, "second\n\nsecond paragraph");
        assert_eq!(
            notes[1].at.map(|t| t.timestamp_millis()),
            Some(1_775_813_400_000)
        );
        let hand = parse_progress_notes("hand-written\n\n[2026-04-07T09:30:00Z] x");
        assert_eq!(hand[0].at, None);
        assert_eq!(hand[1].text, "x");
        assert!(parse_progress_notes("").is_empty());
    }

    #[test]
    fn select_fills_missing_optional_columns_with_null() {
        let have: Vec<String> = [
            "id",
            "workspace_id",
            "title",
            "content",
            "created_at",
            "updated_at",
        ]
        .map(String::from)
        .to_vec();
        let sql = select("plans", &have, &PLAN_COLUMNS, PLAN_REQUIRED, "rowid").expect("ok");
        assert!(sql.contains("NULL AS \"sub_tasks\""), "{sql}");
        let missing =
            select("plans", &have[1..], &PLAN_COLUMNS, PLAN_REQUIRED, "rowid").expect_err("no id");
        assert_eq!(missing, ["id"]);
    }
}
