//! The writer side: imports into real stores in temp dirs, twice, with bad input, and the
//! JSON Lines round trip.

use std::path::Path;

use goldfish_import::{
    ErrorKind, ImportOptions, ImportReport, apply, export_jsonl, export_schema, jsonl_batch,
    memories_batch, tusk_batch, v4_batch,
};
use goldfish_store::{MemoryType, Store};

use crate::{TestResult, copy_tree, fixture};

fn run(store: &Store, batch: goldfish_import::Batch) -> ImportReport {
    apply(store, batch, &ImportOptions::default(), &mut |_, _| {})
}

fn counts(r: &ImportReport) -> Vec<(String, usize, usize, usize, usize)> {
    r.workspaces
        .iter()
        .map(|w| {
            (
                w.workspace.clone(),
                w.checkpoints,
                w.checkpoints_added,
                w.plans,
                w.plans_added,
            )
        })
        .collect()
}

fn export(store: &Store) -> Result<String, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    let (_, problems) = export_jsonl(store, &[], &mut out)?;
    assert!(problems.is_empty(), "{problems:?}");
    Ok(String::from_utf8(out)?)
}

/// The v7 fixture with its registry's placeholders filled in.
fn v7_copy(dir: &Path) -> Result<std::path::PathBuf, Box<dyn std::error::Error>> {
    copy_tree(&fixture("goldfish-v7"), dir)?;
    let registry = dir.join("goldfish-home/registry.json");
    let text = std::fs::read_to_string(&registry)?;
    std::fs::write(
        &registry,
        text.replace("{{FIXTURE_DIR}}", &dir.to_string_lossy()),
    )?;
    Ok(registry)
}

#[test]
fn goldfish_memories_import_every_record_once() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let registry = v7_copy(&tmp.path().join("src"))?;
    let store = Store::open(tmp.path().join("home"))?;

    let mut dry = ImportOptions::default();
    dry.dry_run = true;
    let r = apply(&store, memories_batch(&registry)?, &dry, &mut |_, _| {});
    assert_eq!(
        counts(&r),
        [
            ("reef-ui".into(), 15, 0, 1, 0),
            ("tidepool".into(), 25, 0, 3, 0)
        ]
    );
    assert!(!store.root().exists(), "a dry run writes nothing");

    let mut calls = 0;
    let r = apply(
        &store,
        memories_batch(&registry)?,
        &ImportOptions::default(),
        &mut |done, total| {
            calls += 1;
            assert!(done <= total);
        },
    );
    assert_eq!(
        calls,
        1 + 4,
        "one call per chunk of checkpoints, one per plan"
    );
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    assert!(r.verified());
    assert_eq!(
        counts(&r),
        [
            ("reef-ui".into(), 15, 15, 1, 1),
            ("tidepool".into(), 25, 25, 3, 3)
        ]
    );
    let first = export(&store)?;

    // Again, through the project directory this time: nothing new.
    let r = run(&store, memories_batch(&tmp.path().join("src/tidepool"))?);
    assert_eq!(counts(&r), [("tidepool".into(), 25, 0, 3, 0)]);
    assert_eq!(r.workspaces[0].checkpoints_present, 25);
    assert!(r.verified());
    assert_eq!(export(&store)?, first, "a second import changes nothing");

    // Every field of a typed memory came through, and the active brief is the active plan.
    let all =
        store.checkpoints_between("tidepool", chrono::DateTime::UNIX_EPOCH, chrono::Utc::now())?;
    let d = all
        .checkpoints
        .iter()
        .find(|c| c.id == "checkpoint_9dfedc66")
        .ok_or("the decision")?;
    assert_eq!(d.memory_type, MemoryType::Decision);
    assert_eq!(d.structured.confidence, Some(4));
    assert_eq!(
        d.structured.symbols,
        ["TokenStore::rotate", "SessionMiddleware"]
    );
    assert_eq!(d.extra["Origin"], "goldfish:checkpoint_9dfedc66");
    assert!(store.active_plan("tidepool")?.is_some());
    Ok(())
}

#[test]
fn tusk_imports_plans_with_checkboxes_and_notes_once() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let store = Store::open(tmp.path().join("home"))?;
    let db = fixture("tusk/journal.db");
    let r = run(&store, tusk_batch(&db)?);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    assert_eq!(
        counts(&r),
        [
            ("harbor-api".into(), 21, 21, 3, 3),
            ("kelp-scripts".into(), 8, 8, 0, 0),
            ("lighthouse-docs".into(), 11, 11, 2, 2),
        ]
    );
    // Tusk's blank tags were left out, and it says so; its tags with a comma are one tag each.
    assert!(
        r.adjusted
            .iter()
            .any(|a| a.to_string().contains("blank tag")),
        "{:?}",
        r.adjusted
    );
    assert!(!r.adjusted.iter().any(|a| a.to_string().contains("comma")));
    let plan = store.get_plan("harbor-api", "tusk-20260406090500-rpxukc")?;
    assert!(
        plan.content
            .contains("## Sub-tasks\n\n- [x] Parallel pg_restore (-j 8)\n- [ ] ")
    );
    assert!(
        plan.content
            .contains("## Notes\n\n- 2026-04-07T09:30:00.000Z Restore rehearsal")
    );
    assert_eq!(plan.progress().done, 1);
    let first = export(&store)?;
    let r = run(&store, tusk_batch(&db)?);
    assert!(
        r.workspaces
            .iter()
            .all(|w| w.checkpoints_added == 0 && w.plans_added == 0)
    );
    assert_eq!(export(&store)?, first);
    Ok(())
}

#[test]
fn export_import_export_is_byte_identical() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let registry = v7_copy(&tmp.path().join("src"))?;
    let a = Store::open(tmp.path().join("a"))?;
    run(&a, memories_batch(&registry)?);
    run(&a, tusk_batch(&fixture("tusk/journal.db"))?);
    let first = export(&a)?;
    assert_eq!(first.lines().count(), 40 + 4 + 40 + 5);
    // Tusk's tag `a,b` is one tag after import and export.
    assert!(first.contains(r#""tags":["a,b","#), "{first}");
    let file = tmp.path().join("export.jsonl");
    std::fs::write(&file, &first)?;

    let b = Store::open(tmp.path().join("b"))?;
    let r = run(&b, jsonl_batch(&file)?);
    assert!(r.problems.is_empty() && r.verified(), "{:?}", r.problems);
    assert_eq!(export(&b)?, first);

    // The v4 reader of the store directory gives the same store again.
    let c = Store::open(tmp.path().join("c"))?;
    let r = run(&c, v4_batch(&tmp.path().join("a"))?);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    assert_eq!(export(&c)?, first);
    Ok(())
}

#[test]
fn malformed_inputs_are_reported_by_line_and_the_rest_imported() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let store = Store::open(tmp.path().join("home"))?;

    // A JSON Lines file with a line that is not JSON and one that is not a record.
    let a = Store::open(tmp.path().join("a"))?;
    run(&a, tusk_batch(&fixture("tusk/journal.db"))?);
    let good = export(&a)?;
    let mut lines: Vec<&str> = good.lines().collect();
    lines.insert(2, "{not json");
    lines.insert(5, r#"{"kind":"note","text":"x"}"#);
    let file = tmp.path().join("bad.jsonl");
    std::fs::write(&file, lines.join("\n"))?;
    let r = run(&store, jsonl_batch(&file)?);
    let at: Vec<(Option<usize>, ErrorKind)> =
        r.problems.iter().map(|p| (p.line(), p.kind())).collect();
    assert_eq!(
        at,
        [
            (Some(3), ErrorKind::Malformed),
            (Some(6), ErrorKind::Malformed)
        ]
    );
    assert!(r.problems.iter().all(|p| p.path() == file));
    assert_eq!(
        r.workspaces
            .iter()
            .map(|w| w.checkpoints + w.plans)
            .sum::<usize>(),
        45
    );

    // A broken `.memories/` file: reported with its line, the other 24 imported.
    let project = tmp.path().join("tidepool");
    copy_tree(&fixture("goldfish-v7/tidepool"), &project)?;
    std::fs::write(
        project.join(".memories/2026-05-06/120000_bad0.md"),
        "---\nid: checkpoint_bad\ntimestamp: 2026-05-06T12:00:00Z\ntags: [a, b\n---\n\nx\n",
    )?;
    let r = run(&store, memories_batch(&project)?);
    assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
    assert!(r.problems[0].path().ends_with("120000_bad0.md"));
    assert!(r.problems[0].line().is_some());
    assert_eq!(r.workspaces[0].checkpoints, 25);

    // Not SQLite, and SQLite without Tusk's tables: errors naming the file.
    let not_db = tmp.path().join("journal.db");
    std::fs::write(&not_db, "just text")?;
    let err = tusk_batch(&not_db).expect_err("not sqlite");
    assert!(err.is_not_sqlite() && err.path() == not_db, "{err}");
    let foreign = tmp.path().join("foreign.db");
    rusqlite::Connection::open(&foreign)?.execute_batch("CREATE TABLE t (x);")?;
    let err = tusk_batch(&foreign).expect_err("foreign");
    assert!(err.is_foreign_schema() && err.path() == foreign, "{err}");
    Ok(())
}

#[test]
fn the_published_schema_is_up_to_date() -> TestResult {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/export.schema.json");
    let want = export_schema();
    if std::env::var_os("GOLDFISH_BLESS").is_some() {
        std::fs::write(&path, &want)?;
    }
    let got = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{}: {e} (run the tests with GOLDFISH_BLESS=1)",
            path.display()
        )
    })?;
    assert_eq!(
        got, want,
        "schema/export.schema.json is stale: run the tests with GOLDFISH_BLESS=1"
    );
    // Every line of an export validates against it, at least by its required keys.
    let schema: serde_json::Value = serde_json::from_str(&got)?;
    assert!(
        schema["oneOf"].as_array().is_some_and(|v| v.len() == 2),
        "{schema}"
    );
    Ok(())
}

/// An imported checkpoint in the shape of the fixture's manifest: the fields Goldfish has no
/// field for come back from their bullets (`Worktree`, `Summary`, `Brief`); the actor from
/// the checkpoint's own.
fn imported_view(c: &goldfish_store::Checkpoint, file: &str) -> serde_json::Value {
    use serde_json::{Map, Value, json};
    let mut o = Map::new();
    o.insert("id".into(), json!(c.id));
    o.insert("timestamp".into(), json!(crate::iso(&c.timestamp)));
    o.insert("description".into(), json!(c.description));
    let list = |o: &mut Map<String, Value>, k: &str, v: &Vec<String>| {
        if !v.is_empty() {
            o.insert(k.into(), json!(v));
        }
    };
    let text = |o: &mut Map<String, Value>, k: &str, v: Option<&String>| {
        if let Some(v) = v {
            o.insert(k.into(), json!(v));
        }
    };
    list(&mut o, "tags", &c.tags);
    let mut g = Map::new();
    text(&mut g, "branch", c.branch.as_ref());
    text(&mut g, "commit", c.commit.as_ref());
    text(&mut g, "worktree", c.extra.get("Worktree"));
    list(&mut g, "files", &c.files);
    if !g.is_empty() {
        o.insert("git".into(), Value::Object(g));
    }
    if !c.actor.is_empty() {
        o.insert(
            "actor".into(),
            serde_json::to_value(&c.actor).unwrap_or(Value::Null),
        );
    }
    text(&mut o, "summary", c.extra.get("Summary"));
    text(&mut o, "briefId", c.extra.get("Brief"));
    text(&mut o, "planId", c.extra.get("Brief"));
    if c.memory_type != MemoryType::Checkpoint || c.extra.contains_key("x-type") {
        o.insert("type".into(), json!(c.memory_type.as_str()));
    }
    let s = &c.structured;
    text(&mut o, "context", s.context.as_ref());
    text(&mut o, "decision", s.decision.as_ref());
    list(&mut o, "alternatives", &s.alternatives);
    text(&mut o, "impact", s.impact.as_ref());
    list(&mut o, "evidence", &s.evidence);
    list(&mut o, "symbols", &s.symbols);
    text(&mut o, "next", s.next.as_ref());
    if let Some(n) = s.confidence {
        o.insert("confidence".into(), json!(n));
    }
    list(&mut o, "unknowns", &s.unknowns);
    o.insert("filePath".into(), json!(file));
    Value::Object(o)
}

#[test]
fn imported_goldfish_memories_match_the_manifest_field_by_field() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let registry = v7_copy(&tmp.path().join("src"))?;
    let store = Store::open(tmp.path().join("home"))?;
    let r = run(&store, memories_batch(&registry)?);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    let adjusted: Vec<String> = r.adjusted.iter().map(|a| a.message().to_string()).collect();
    assert_eq!(adjusted, ["tag \"dup\" given twice; kept once"]);
    let manifest = crate::read_json(&fixture("goldfish-v7/manifest.json"))?;
    let mut diffs = Vec::new();
    let mut compared = 0;
    for project in manifest["projects"].as_array().ok_or("projects")? {
        let dir = tmp
            .path()
            .join("src")
            .join(project["dir"].as_str().ok_or("dir")?);
        let ws = goldfish_store::detect_workspace(&dir);
        let got =
            store.checkpoints_between(&ws, chrono::DateTime::UNIX_EPOCH, chrono::Utc::now())?;
        assert!(got.skipped.is_empty(), "{:?}", got.skipped);
        for want in project["checkpoints"].as_array().ok_or("checkpoints")? {
            let id = want["id"].as_str().ok_or("id")?;
            let file = want["filePath"].as_str().unwrap_or_default();
            // The documented normalisations: an explicit `type: checkpoint` is the default type
            // (not stored), and tags are a set (a repeated tag is kept once, and reported).
            let mut want = want.clone();
            if want["type"] == "checkpoint" {
                want.as_object_mut().ok_or("object")?.remove("type");
            }
            if let Some(tags) = want.get_mut("tags").and_then(|t| t.as_array_mut()) {
                let mut seen = Vec::new();
                tags.retain(|t| {
                    let new = !seen.contains(t);
                    seen.push(t.clone());
                    new
                });
            }
            match got.checkpoints.iter().find(|c| c.id == id) {
                Some(c) => crate::diff_fields(
                    &format!("{ws}/{id}"),
                    &want,
                    &imported_view(c, file),
                    &mut diffs,
                ),
                None => diffs.push(format!("{ws}/{id}: not imported")),
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 40);
    crate::assert_no_diffs(&diffs);
    Ok(())
}

#[test]
fn imported_tusk_checkpoints_match_the_manifest_field_by_field() -> TestResult {
    use serde_json::{Map, Value, json};
    let tmp = tempfile::tempdir()?;
    let store = Store::open(tmp.path().join("home"))?;
    let r = run(&store, tusk_batch(&fixture("tusk/journal.db"))?);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    let manifest = crate::read_json(&fixture("tusk/manifest.json"))?;
    let mut imported = Vec::new();
    for ws in store.list_workspaces()? {
        imported.extend(
            store
                .checkpoints_between(&ws, chrono::DateTime::UNIX_EPOCH, chrono::Utc::now())?
                .checkpoints,
        );
    }
    let mut diffs = Vec::new();
    let want_all = manifest["checkpoints"].as_array().ok_or("checkpoints")?;
    assert_eq!(want_all.len(), 40);
    assert_eq!(imported.len(), 40);
    for want in want_all {
        let id = want["id"].as_str().ok_or("id")?;
        let Some(c) = imported.iter().find(|c| c.id == format!("tusk-{id}")) else {
            diffs.push(format!("{id}: not imported"));
            continue;
        };
        let origin = c.extra.get("Origin").cloned().unwrap_or_default();
        let ws_id = origin.split(':').nth(1).unwrap_or_default();
        let text = |k: &str| c.extra.get(k).map_or(Value::Null, |v| json!(v));
        let number = |k: &str| {
            c.extra
                .get(k)
                .and_then(|v| v.parse::<f64>().ok())
                .map_or(Value::Null, |v| json!(v))
        };
        let mut got = Map::new();
        got.insert("id".into(), json!(id));
        got.insert("workspaceId".into(), json!(ws_id));
        got.insert("workspacePath".into(), text("Workspace path"));
        got.insert("workspaceName".into(), text("Workspace name"));
        got.insert("timestamp".into(), json!(crate::iso(&c.timestamp)));
        got.insert("description".into(), json!(c.description));
        got.insert("project".into(), text("Project"));
        got.insert("gitBranch".into(), json!(c.branch));
        got.insert("gitCommit".into(), json!(c.commit));
        got.insert("tags".into(), json!(c.tags));
        got.insert("files".into(), json!(c.files));
        got.insert("sessionId".into(), json!(c.actor.session));
        got.insert(
            "entryType".into(),
            match c.memory_type {
                MemoryType::Checkpoint => text("Entry type"),
                t => json!(t.as_str()),
            },
        );
        got.insert("confidenceScore".into(), number("Tusk confidence"));
        got.insert("syncStatus".into(), text("Sync status"));
        got.insert("remoteId".into(), text("Remote id"));
        got.insert("lastSyncedAt".into(), text("Last synced"));
        got.insert("version".into(), number("Version"));
        got.insert("createdAt".into(), text("Created"));
        got.insert("updatedAt".into(), text("Updated"));
        // The documented normalisation: a blank tag is left out, a repeated one kept once; a
        // tag holding a comma stays one tag.
        let mut want = want.clone();
        if let Some(tags) = want.get_mut("tags").and_then(|t| t.as_array_mut()) {
            let mut kept: Vec<Value> = Vec::new();
            for tag in tags.iter().filter_map(Value::as_str).map(str::trim) {
                if !tag.is_empty() && !kept.iter().any(|k| k == tag) {
                    kept.push(json!(tag));
                }
            }
            *tags = kept;
        }
        crate::diff_fields(id, &want, &Value::Object(got), &mut diffs);
    }
    crate::assert_no_diffs(&diffs);
    Ok(())
}

#[test]
fn a_goldfish_8_actor_is_kept_as_the_checkpoints_actor_through_export() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let project = tmp.path().join("shop");
    let day = project.join(".memories/2026-09-01");
    std::fs::create_dir_all(&day)?;
    std::fs::write(
        day.join("101500_ab12.md"),
        "---\nid: checkpoint_ab12cd34\ntimestamp: 2026-09-01T10:15:00.000Z\nactor:\n  \
         harness: claude-code\n  model: opus\n  session: s-42\n  user: dev\n  git_user: Dev \
         Eloper\n  git_email: dev@example.com\n---\n\nSaved by an agent.\n",
    )?;
    let store = Store::open(tmp.path().join("home"))?;
    let r = run(&store, memories_batch(&project)?);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    let workspace = r.workspaces.first().ok_or("a workspace")?.workspace.clone();
    let date = chrono::NaiveDate::from_ymd_opt(2026, 9, 1).ok_or("date")?;
    let saved = store.checkpoints_for_day(&workspace, date)?;
    let want = serde_json::json!({"harness": "claude-code", "model": "opus", "session": "s-42",
        "user": "dev", "git_user": "Dev Eloper", "git_email": "dev@example.com"});
    assert_eq!(serde_json::to_value(&saved[0].actor)?, want);
    assert!(
        !saved[0].extra.contains_key("Actor"),
        "{:?}",
        saved[0].extra
    );
    // Ordinary bullets in the day file.
    let text = std::fs::read_to_string(store.day_file_path(&workspace, date)?)?;
    assert!(
        text.contains("- **Harness**: claude-code\n- **Model**: opus\n"),
        "{text}"
    );
    // An export carries it, and importing that export into another store keeps it.
    let line = export(&store)?;
    let record: serde_json::Value = serde_json::from_str(line.lines().next().ok_or("a line")?)?;
    assert_eq!(record["actor"], want, "{record}");
    let other = Store::open(tmp.path().join("other"))?;
    let path = tmp.path().join("export.jsonl");
    std::fs::write(&path, &line)?;
    let r = run(&other, jsonl_batch(&path)?);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    assert_eq!(other.checkpoints_for_day(&workspace, date)?, saved);
    // A misspelt actor key is a malformed line, named by its number, not a lost field.
    let misspelt = line.replacen("\"harness\"", "\"harnes\"", 1);
    let batch = goldfish_import::parse_jsonl(&misspelt, &path);
    assert!(batch.checkpoints.is_empty());
    let problem = batch.problems.first().ok_or("a problem")?.to_string();
    assert!(
        problem.contains("export.jsonl:1:") && problem.contains("`harnes`"),
        "{problem}"
    );
    Ok(())
}
