//! Malformed input: each problem is reported with its file and line (or table and rowid),
//! and everything else is still read.

use std::path::Path;

use goldfish_import::{ErrorKind, read_memories, read_registry, read_tusk};
use rusqlite::Connection;

use crate::{TestResult, copy_tree, fixture};

#[test]
fn a_broken_checkpoint_file_is_reported_with_path_and_line_and_the_rest_read() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let project = tmp.path().join("tidepool");
    copy_tree(&fixture("goldfish-v7/tidepool"), &project)?;
    let day = project.join(".memories/2026-05-06");
    // Line 4 opens a flow list that is never closed.
    let broken = day.join("120000_bad0.md");
    std::fs::write(
        &broken,
        "---\nid: checkpoint_bad00000\ntimestamp: 2026-05-06T12:00:00.000Z\ntags: [auth, oauth\n\
         git:\n  branch: main\n---\n\nBroken frontmatter.\n",
    )?;
    let unclosed = day.join("120100_bad1.md");
    std::fs::write(
        &unclosed,
        "---\nid: checkpoint_bad1\ntimestamp: 2026-05-06T12:01:00Z\n\nNo closing line.\n",
    )?;
    let bad_time = day.join("120200_bad2.md");
    std::fs::write(
        &bad_time,
        "---\nid: checkpoint_bad2\ntags:\n  - x\ntimestamp: last tuesday\n---\n\nb\n",
    )?;
    let not_utf8 = day.join("120300_bad3.md");
    std::fs::write(&not_utf8, b"---\nid: checkpoint_bad3\n---\n\n\xff\xfe\n")?;
    let bad_brief = project.join(".memories/briefs/broken.md");
    std::fs::write(&bad_brief, "---\nid: broken\ntitle: [x\n---\n\nbody\n")?;

    let read = read_memories(&project)?;
    assert_eq!(
        read.checkpoints.len(),
        25,
        "every good checkpoint is still read"
    );
    assert_eq!(read.briefs.len(), 3, "every good brief is still read");
    let mut got: Vec<(String, Option<usize>, ErrorKind)> = read
        .problems
        .iter()
        .map(|e| {
            let name = e
                .path()
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            (name.unwrap_or_default(), e.line(), e.kind())
        })
        .collect();
    got.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        got,
        [
            ("120000_bad0.md".to_string(), Some(5), ErrorKind::Malformed),
            ("120100_bad1.md".to_string(), Some(1), ErrorKind::Malformed),
            ("120200_bad2.md".to_string(), Some(5), ErrorKind::Malformed),
            ("120300_bad3.md".to_string(), Some(5), ErrorKind::Malformed),
            ("broken.md".to_string(), Some(3), ErrorKind::Malformed),
        ],
        "{:#?}",
        read.problems
    );
    for e in &read.problems {
        let shown = e.to_string();
        assert!(
            shown.starts_with(&e.path().display().to_string()),
            "{shown}"
        );
    }
    assert!(
        read.problems[0].to_string().contains("skipped"),
        "{}",
        read.problems[0]
    );
    Ok(())
}

#[test]
fn unmapped_values_are_reported_and_the_checkpoint_kept() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let day = tmp.path().join(".memories/2026-05-06");
    std::fs::create_dir_all(&day)?;
    let file = day.join("120000_0001.md");
    std::fs::write(
        &file,
        "---\nid: c1\ntimestamp: 2026-05-06T12:00:00.000Z\ntags: auth\ntype: rant\nconfidence: 7\n---\n\nbody\n",
    )?;
    std::fs::write(day.join("legacy.json"), "{}")?;
    let read = read_memories(tmp.path())?;
    assert_eq!(read.checkpoints.len(), 1);
    let mut lines: Vec<(Option<usize>, ErrorKind)> =
        read.problems.iter().map(|e| (e.line(), e.kind())).collect();
    lines.sort_by_key(|l| l.0);
    assert_eq!(
        lines,
        [
            (None, ErrorKind::Unmapped),
            (Some(4), ErrorKind::Unmapped),
            (Some(5), ErrorKind::Unmapped),
            (Some(6), ErrorKind::Unmapped),
        ],
        "{:#?}",
        read.problems
    );
    Ok(())
}

#[test]
fn a_text_file_named_journal_db_is_not_sqlite() -> TestResult {
    let tmp = tempfile::tempdir()?;
    for (name, bytes) in [("text", &b"just some notes\n"[..]), ("empty", b"")] {
        let path = tmp.path().join(name).join("journal.db");
        std::fs::create_dir_all(path.parent().ok_or("parent")?)?;
        std::fs::write(&path, bytes)?;
        let err = read_tusk(&path).expect_err("not SQLite");
        assert!(err.is_not_sqlite(), "{name}: {err}");
        assert_eq!(err.path(), path);
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );
    }
    let missing = tmp.path().join("none/journal.db");
    let err = read_tusk(&missing).expect_err("missing");
    assert!(err.is_io(), "{err}");
    assert!(err.to_string().contains("none/journal.db"), "{err}");
    Ok(())
}

fn make_db(path: &Path, sql: &str) -> rusqlite::Result<()> {
    let conn = Connection::open(path)?;
    conn.execute_batch(sql)
}

#[test]
fn an_sqlite_database_with_a_foreign_schema_is_refused_by_name() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let cases = [
        (
            "notes.db",
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);",
            "no `checkpoints` table",
        ),
        ("empty.db", "PRAGMA user_version = 1;", "tables: none"),
        (
            "old.db",
            "CREATE TABLE checkpoints (id TEXT, workspace_id TEXT, timestamp TEXT);",
            "lacks workspace_path, description",
        ),
        (
            "plans.db",
            "CREATE TABLE checkpoints (id TEXT, workspace_id TEXT, workspace_path TEXT, \
             timestamp TEXT, description TEXT); CREATE TABLE plans (id TEXT, body TEXT);",
            "the `plans` table lacks",
        ),
    ];
    for (name, sql, want) in cases {
        let path = tmp.path().join(name);
        make_db(&path, sql)?;
        let err = read_tusk(&path).expect_err(name);
        assert!(err.is_foreign_schema(), "{name}: {err}");
        assert_eq!(err.path(), path);
        assert!(err.to_string().contains(want), "{name}: {err}");
    }

    // The first columns are enough: the others read as absent.
    let path = tmp.path().join("minimal.db");
    make_db(
        &path,
        "CREATE TABLE checkpoints (id TEXT, workspace_id TEXT, workspace_path TEXT, \
         timestamp TEXT, description TEXT);\
         INSERT INTO checkpoints VALUES ('c1', 'w1', '/w', '2026-04-06T09:00:00.000Z', 'hi');",
    )?;
    let journal = read_tusk(&path)?;
    assert_eq!(journal.checkpoints.len(), 1);
    assert!(journal.checkpoints[0].tags.is_empty());
    assert!(journal.plans.is_empty());
    Ok(())
}

#[test]
fn a_bad_row_is_reported_with_table_and_rowid_and_the_rest_read() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let path = tmp.path().join("journal.db");
    std::fs::copy(fixture("tusk/journal.db"), &path)?;
    let (bad_checkpoint, bad_time, bad_plan) = {
        let conn = Connection::open(&path)?;
        let row = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0));
        let a = row("SELECT rowid FROM checkpoints WHERE id = '20260410090000_oza609'")?;
        let b = row("SELECT rowid FROM checkpoints WHERE id = '20260406090000_vcvj0q'")?;
        let c = row("SELECT rowid FROM plans WHERE title = 'Migrate to Postgres 16'")?;
        conn.execute(
            "UPDATE checkpoints SET tags = '[\"a\",' WHERE rowid = ?1",
            [a],
        )?;
        conn.execute(
            "UPDATE checkpoints SET timestamp = 'yesterday' WHERE rowid = ?1",
            [b],
        )?;
        conn.execute("UPDATE plans SET sub_tasks = '{oops' WHERE rowid = ?1", [c])?;
        (a, b, c)
    };
    let journal = read_tusk(&path)?;
    assert_eq!(journal.checkpoints.len(), 38);
    assert_eq!(journal.plans.len(), 4);
    let mut got: Vec<(&str, i64)> = journal.problems.iter().filter_map(|e| e.row()).collect();
    got.sort();
    let mut want = vec![
        ("checkpoints", bad_checkpoint),
        ("checkpoints", bad_time),
        ("plans", bad_plan),
    ];
    want.sort();
    assert_eq!(got, want, "{:#?}", journal.problems);
    for e in &journal.problems {
        assert!(e.is_bad_row(), "{e}");
        assert_eq!(e.path(), path);
    }
    let shown: Vec<String> = journal.problems.iter().map(ToString::to_string).collect();
    assert!(
        shown.iter().any(|s| s.contains(&format!(
            "table checkpoints, rowid {bad_checkpoint}: column tags"
        ))),
        "{shown:#?}"
    );
    assert!(
        shown.iter().any(|s| s.contains("column timestamp")),
        "{shown:#?}"
    );
    assert!(
        shown.iter().any(|s| s.contains("column sub_tasks")),
        "{shown:#?}"
    );
    Ok(())
}

#[test]
fn a_broken_registry_names_its_line() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let path = tmp.path().join("registry.json");
    std::fs::write(
        &path,
        "{\n  \"projects\": [\n    {\"path\": \"/p\", \"name\": 3}\n  ]\n}\n",
    )?;
    let err = read_registry(&path).expect_err("name is not text");
    assert_eq!(err.kind(), ErrorKind::Malformed);
    assert_eq!(err.line(), Some(3));
    assert_eq!(err.path(), path);

    // A registered project whose directory is gone is reported; the others are read.
    std::fs::write(
        &path,
        format!(
            r#"{{"projects":[{{"path":"{}","name":"gone"}},{{"path":"{}","name":"tidepool"}}]}}"#,
            tmp.path().join("gone").display(),
            fixture("goldfish-v7/tidepool").display()
        ),
    )?;
    let (read, problems) = goldfish_import::read_registered(&read_registry(&path)?);
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].1.checkpoints.len(), 25);
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].to_string().contains("\"gone\""),
        "{}",
        problems[0]
    );
    Ok(())
}

#[test]
fn a_directory_without_memories_is_an_error_naming_it() -> TestResult {
    let tmp = tempfile::tempdir()?;
    std::fs::write(tmp.path().join("README.md"), "a project without goldfish")?;
    for path in [tmp.path().to_path_buf(), tmp.path().join("missing")] {
        let err = read_memories(&path).expect_err("no .memories");
        assert!(err.is_io(), "{err}");
        assert_eq!(err.path(), path);
        assert!(err.to_string().contains(".memories"), "{err}");
    }
    // An empty `.memories` (a project that has not saved anything yet) is an empty store.
    std::fs::create_dir(tmp.path().join(".memories"))?;
    let read = read_memories(tmp.path())?;
    assert!(read.checkpoints.is_empty() && read.briefs.is_empty() && read.problems.is_empty());
    Ok(())
}
