//! Reading never changes a source: every file's bytes and modification time are the same
//! afterwards, and no file appears or disappears (no lock, journal or `-shm` file).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use goldfish_import::{read_memories, read_registered, read_registry, read_tusk};
use rusqlite::Connection;

use crate::{TestResult, copy_tree, fixture};

type Snapshot = BTreeMap<PathBuf, (Vec<u8>, SystemTime)>;

/// Every file under `dir` (hidden ones included), with its bytes and modification time.
fn snapshot(dir: &Path) -> std::io::Result<Snapshot> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let entry = entry?;
            let meta = entry.metadata()?;
            if meta.is_dir() {
                stack.push(entry.path());
                out.insert(entry.path(), (Vec::new(), meta.modified()?));
            } else {
                out.insert(
                    entry.path(),
                    (std::fs::read(entry.path())?, meta.modified()?),
                );
            }
        }
    }
    Ok(out)
}

fn assert_same(before: &Snapshot, after: &Snapshot) {
    let changed: Vec<_> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .collect();
    assert!(changed.is_empty(), "changed by reading: {changed:#?}");
}

#[test]
fn reading_goldfish_memories_changes_nothing() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let base = tmp.path().join("goldfish-v7");
    copy_tree(&fixture("goldfish-v7"), &base)?;
    let registry = base.join("goldfish-home/registry.json");
    let text = std::fs::read_to_string(&registry)?;
    std::fs::write(
        &registry,
        text.replace("{{FIXTURE_DIR}}", &base.to_string_lossy()),
    )?;

    let before = snapshot(&base)?;
    assert!(
        before.len() > 50,
        "the snapshot sees the hidden .memories files"
    );
    let read = read_memories(&base.join("tidepool"))?;
    assert_eq!(read.checkpoints.len(), 25);
    let (projects, problems) = read_registered(&read_registry(&registry)?);
    assert_eq!((projects.len(), problems.len()), (2, 0));
    assert_same(&before, &snapshot(&base)?);
    Ok(())
}

#[test]
fn reading_the_tusk_fixture_changes_nothing() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let db = tmp.path().join("journal.db");
    std::fs::copy(fixture("tusk/journal.db"), &db)?;
    let before = snapshot(tmp.path())?;
    assert_eq!(read_tusk(&db)?.checkpoints.len(), 40);
    assert_same(&before, &snapshot(tmp.path())?);
    Ok(())
}

/// A journal left as a running (or crashed) Tusk leaves it: recent commits only in the
/// `-wal` file. They are read, and neither file is touched.
#[test]
fn a_journal_with_a_live_wal_is_read_whole_and_left_alone() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let work = tmp.path().join("work");
    let source = tmp.path().join("tusk");
    std::fs::create_dir_all(&work)?;
    std::fs::create_dir_all(&source)?;
    std::fs::copy(fixture("tusk/journal.db"), work.join("journal.db"))?;
    {
        let conn = Connection::open(work.join("journal.db"))?;
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        assert_eq!(mode, "wal");
        conn.execute_batch(
            "PRAGMA wal_autocheckpoint = 0;
             INSERT INTO checkpoints (id, workspace_id, workspace_path, workspace_name, timestamp,
               description, tags, files, created_at, updated_at)
             VALUES ('20260415090000_walwal', 'b58128f065dc',
               '/tmp/tusk-fixture/home/dev/code/harbor-api', 'harbor-api',
               '2026-04-15T09:00:00.000Z', 'Only in the WAL', '[\"wal\"]', '[]',
               '2026-04-15T09:00:00.000Z', '2026-04-15T09:00:00.000Z');",
        )?;
        // Copied while the writer still has the database open: the new row is only in the WAL.
        for name in ["journal.db", "journal.db-wal", "journal.db-shm"] {
            std::fs::copy(work.join(name), source.join(name))?;
        }
    }
    let wal_len = std::fs::metadata(source.join("journal.db-wal"))?.len();
    assert!(wal_len > 0, "the WAL holds the new row");

    let before = snapshot(&source)?;
    let journal = read_tusk(&source.join("journal.db"))?;
    assert_eq!(journal.checkpoints.len(), 41);
    assert_eq!(journal.checkpoints[0].id, "20260415090000_walwal");
    assert_eq!(journal.checkpoints[0].tags, ["wal"]);
    assert_same(&before, &snapshot(&source)?);
    Ok(())
}
