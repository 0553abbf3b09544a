//! The Goldfish 7.6.1 fixture, compared with what Goldfish itself reads back
//! (`manifest.json`), every record and every field.

use std::collections::BTreeMap;
use std::path::Path;

use goldfish_import::{Brief, MemoryRecord, read_memories, read_registered, read_registry};
use serde_json::{Map, Value, json};

use crate::{TestResult, assert_no_diffs, copy_tree, diff_fields, fixture, iso, read_json};

/// A record in the manifest's shape (Goldfish's `Checkpoint` object): absent and empty
/// fields are left out, `briefId` is repeated as `planId`, `filePath` is relative to the
/// fixture directory.
fn manifest_view(record: &MemoryRecord, base: &Path) -> Value {
    let mut o = Map::new();
    o.insert("id".into(), json!(record.id));
    o.insert("timestamp".into(), json!(iso(&record.timestamp)));
    o.insert("description".into(), json!(record.description));
    let list = |o: &mut Map<String, Value>, k: &str, v: &Vec<String>| {
        if !v.is_empty() {
            o.insert(k.into(), json!(v));
        }
    };
    let text = |o: &mut Map<String, Value>, k: &str, v: &Option<String>| {
        if let Some(v) = v {
            o.insert(k.into(), json!(v));
        }
    };
    list(&mut o, "tags", &record.tags);
    if let Some(git) = &record.git {
        let mut g = Map::new();
        text(&mut g, "branch", &git.branch);
        text(&mut g, "commit", &git.commit);
        text(&mut g, "worktree", &git.worktree);
        list(&mut g, "files", &git.files);
        o.insert("git".into(), Value::Object(g));
    }
    if let Some(actor) = &record.actor {
        o.insert(
            "actor".into(),
            serde_json::to_value(actor).unwrap_or_default(),
        );
    }
    text(&mut o, "summary", &record.summary);
    text(&mut o, "briefId", &record.brief_id);
    text(&mut o, "planId", &record.brief_id);
    if let Some(t) = record.memory_type {
        o.insert("type".into(), json!(t.as_str()));
    }
    let s = &record.structured;
    text(&mut o, "context", &s.context);
    text(&mut o, "decision", &s.decision);
    list(&mut o, "alternatives", &s.alternatives);
    text(&mut o, "impact", &s.impact);
    list(&mut o, "evidence", &s.evidence);
    list(&mut o, "symbols", &s.symbols);
    text(&mut o, "next", &s.next);
    if let Some(c) = s.confidence {
        o.insert("confidence".into(), json!(c));
    }
    list(&mut o, "unknowns", &s.unknowns);
    let rel = record.path.strip_prefix(base).unwrap_or(&record.path);
    o.insert("filePath".into(), json!(rel.to_string_lossy()));
    Value::Object(o)
}

fn brief_view(b: &Brief) -> Value {
    json!({
        "id": b.id,
        "title": b.title,
        "content": b.body,
        "status": b.status.as_str(),
        "created": b.created.as_ref().map(iso),
        "updated": b.updated.as_ref().map(iso),
        "tags": b.tags,
    })
}

#[test]
fn every_checkpoint_and_brief_matches_the_manifest() -> TestResult {
    let base = fixture("goldfish-v7");
    let manifest = read_json(&base.join("manifest.json"))?;
    let mut diffs = Vec::new();
    let projects = manifest["projects"].as_array().ok_or("projects")?;
    assert_eq!(projects.len(), 2);
    let mut total = 0;
    for project in projects {
        let name = project["workspaceName"].as_str().ok_or("workspaceName")?;
        let dir = base.join(project["dir"].as_str().ok_or("dir")?);
        let read = read_memories(&dir)?;
        let problems: Vec<String> = read.problems.iter().map(ToString::to_string).collect();
        assert!(problems.is_empty(), "{name}: {problems:#?}");

        let want = project["checkpoints"].as_array().ok_or("checkpoints")?;
        assert_eq!(project["checkpointCount"], want.len());
        if want.len() != read.checkpoints.len() {
            diffs.push(format!(
                "{name}: manifest has {} checkpoints, read {}",
                want.len(),
                read.checkpoints.len()
            ));
        }
        let got: BTreeMap<&str, &MemoryRecord> = read
            .checkpoints
            .iter()
            .map(|c| (c.id.as_str(), c))
            .collect();
        assert_eq!(got.len(), read.checkpoints.len(), "{name}: ids are unique");
        for w in want {
            let id = w["id"].as_str().ok_or("id")?;
            match got.get(id) {
                Some(record) => diff_fields(
                    &format!("{name}/{id}"),
                    w,
                    &manifest_view(record, &base),
                    &mut diffs,
                ),
                None => diffs.push(format!("{name}/{id}: not read")),
            }
            total += 1;
        }
        // Newest first, as Goldfish lists them (ties have no defined order).
        let times: Vec<_> = read.checkpoints.iter().map(|c| c.timestamp).collect();
        assert!(
            times.windows(2).all(|w| w[0] >= w[1]),
            "{name}: newest first"
        );

        let want_briefs = project["briefs"].as_array().ok_or("briefs")?;
        if want_briefs.len() != read.briefs.len() {
            diffs.push(format!(
                "{name}: manifest has {} briefs, read {}",
                want_briefs.len(),
                read.briefs.len()
            ));
        }
        for w in want_briefs {
            let id = w["id"].as_str().ok_or("brief id")?;
            match read.briefs.iter().find(|b| b.id == id) {
                Some(b) => {
                    diff_fields(&format!("{name}/brief {id}"), w, &brief_view(b), &mut diffs)
                }
                None => diffs.push(format!("{name}/brief {id}: not read")),
            }
        }
        let active = read.active_brief().map(|b| b.id.as_str());
        if project["activeBriefId"].as_str() != active {
            diffs.push(format!(
                "{name}: active brief: manifest {} / read {active:?}",
                project["activeBriefId"]
            ));
        }
        if project["activeBriefMarkerRaw"].as_str() != read.active_marker.as_deref() {
            diffs.push(format!(
                "{name}: .active-brief: manifest {} / read {:?}",
                project["activeBriefMarkerRaw"], read.active_marker
            ));
        }
    }
    assert_eq!(total, 40);
    assert_no_diffs(&diffs);
    Ok(())
}

#[test]
fn the_registry_finds_both_projects() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let base = tmp.path().join("goldfish-v7");
    copy_tree(&fixture("goldfish-v7"), &base)?;
    let manifest = read_json(&base.join("manifest.json"))?;
    // The registry holds absolute paths; the fixture writes `{{FIXTURE_DIR}}` in their place.
    let registry_path = base.join("goldfish-home/registry.json");
    let text = std::fs::read_to_string(&registry_path)?;
    std::fs::write(
        &registry_path,
        text.replace("{{FIXTURE_DIR}}", &base.to_string_lossy()),
    )?;

    let registry = read_registry(&registry_path)?;
    let as_written = manifest["registryAsWritten"]["projects"]
        .as_array()
        .ok_or("registryAsWritten")?;
    let mut diffs = Vec::new();
    assert_eq!(registry.projects.len(), as_written.len());
    for (got, want) in registry.projects.iter().zip(as_written) {
        let got = json!({
            "path": got.path.to_string_lossy().replace(&*base.to_string_lossy(), "{{FIXTURE_DIR}}"),
            "name": got.name,
            "registered": got.registered,
        });
        diff_fields("registry", want, &got, &mut diffs);
    }

    let (read, problems) = read_registered(&registry);
    assert!(problems.is_empty(), "{problems:?}");
    let workspaces = manifest["recallAll"]["workspaces"]
        .as_array()
        .ok_or("workspaces")?;
    for w in workspaces {
        let name = w["name"].as_str().ok_or("name")?;
        let Some((project, memories)) = read.iter().find(|(p, _)| p.name == name) else {
            diffs.push(format!("recallAll: workspace {name} not read"));
            continue;
        };
        let got = json!({
            "name": project.name,
            "path": project.path.strip_prefix(&base)?.to_string_lossy(),
            "checkpointCount": memories.checkpoints.len(),
            "lastActivity": memories.checkpoints.first().map(|c| iso(&c.timestamp)),
        });
        diff_fields(&format!("recallAll/{name}"), w, &got, &mut diffs);
    }
    // The cross-project view: every checkpoint with its workspace and type.
    let all = manifest["recallAll"]["checkpoints"]
        .as_array()
        .ok_or("checkpoints")?;
    assert_eq!(all.len(), 40);
    for c in all {
        let (ws, id) = (c["workspace"].as_str(), c["id"].as_str());
        let found = read
            .iter()
            .filter(|(p, _)| Some(p.name.as_str()) == ws)
            .flat_map(|(_, m)| &m.checkpoints)
            .find(|r| Some(r.id.as_str()) == id);
        match found {
            Some(r) => {
                let got = json!({
                    "workspace": ws,
                    "id": r.id,
                    "timestamp": iso(&r.timestamp),
                    "type": r.memory_type.map(|t| t.as_str()),
                });
                diff_fields(&format!("recallAll/{ws:?}/{id:?}"), c, &got, &mut diffs);
            }
            None => diffs.push(format!("recallAll: {ws:?}/{id:?} not read")),
        }
    }
    assert_no_diffs(&diffs);
    Ok(())
}

#[test]
fn goldfish_8_actor_and_worktree_are_read() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let day = tmp.path().join(".memories/2026-09-01");
    std::fs::create_dir_all(&day)?;
    std::fs::write(
        day.join("101500_ab12.md"),
        "---\nid: checkpoint_ab12cd34\ntimestamp: 2026-09-01T10:15:00.000Z\ngit:\n  branch: feat/x\n  \
         commit: 1a2b3c4\n  worktree: /home/dev/wt/feat-x\n  files:\n    - src/a.rs\nactor:\n  \
         harness: claude-code\n  model: opus\n  session: s-42\n  user: dev\n  git_user: Dev \
         Eloper\n  git_email: dev@example.com\n  mood: sunny\n---\n\nWorked in a worktree.\n",
    )?;
    std::fs::write(
        day.join("101600_ef56.md"),
        "---\nid: checkpoint_ef56\ntimestamp: 2026-09-01T10:16:00.000Z\ngit:\n  worktree: /wt/only\n---\n\nOnly a worktree.\n",
    )?;
    let read = read_memories(tmp.path())?;
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    let first = &read.checkpoints[1];
    let git = first.git.as_ref().ok_or("git")?;
    assert_eq!(git.worktree.as_deref(), Some("/home/dev/wt/feat-x"));
    assert_eq!(git.branch.as_deref(), Some("feat/x"));
    let actor = first.actor.as_ref().ok_or("actor")?;
    assert_eq!(
        serde_json::to_value(actor)?,
        json!({"harness": "claude-code", "model": "opus", "session": "s-42", "user": "dev",
               "git_user": "Dev Eloper", "git_email": "dev@example.com"})
    );
    let only = read.checkpoints[0].git.as_ref().ok_or("git")?;
    assert_eq!(only.worktree.as_deref(), Some("/wt/only"));
    assert_eq!((only.branch.as_ref(), only.files.len()), (None, 0));
    Ok(())
}
