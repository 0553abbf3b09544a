//! Tusk's last version's journal, compared with what Tusk itself reads back
//! (`manifest.json`), every row and every column.

use std::collections::BTreeMap;

use goldfish_import::{TuskCheckpoint, TuskPlan, read_tusk};
use serde_json::{Value, json};

use crate::{TestResult, assert_no_diffs, diff_fields, fixture, iso, read_json};

/// A checkpoint in the manifest's shape (Tusk's `CheckpointEntry`).
fn checkpoint_view(c: &TuskCheckpoint) -> Value {
    json!({
        "id": c.id,
        "workspaceId": c.workspace_id,
        "workspacePath": c.workspace_path,
        "workspaceName": c.workspace_name,
        "timestamp": iso(&c.timestamp),
        "description": c.description,
        "project": c.project,
        "gitBranch": c.git_branch,
        "gitCommit": c.git_commit,
        "tags": c.tags,
        "files": c.files,
        "sessionId": c.session_id,
        "entryType": c.entry_type,
        "confidenceScore": c.confidence_score,
        "syncStatus": c.sync_status,
        "remoteId": c.remote_id,
        "lastSyncedAt": c.last_synced_at,
        "version": c.version,
        "createdAt": c.created_at.as_ref().map(iso),
        "updatedAt": c.updated_at.as_ref().map(iso),
    })
}

/// A plan in the manifest's shape (the raw row): times back to epoch milliseconds,
/// `is_active` to 0/1, sub-tasks parsed on both sides.
fn plan_view(p: &TuskPlan) -> Value {
    let ms = |t: &chrono::DateTime<chrono::Utc>| t.timestamp_millis();
    let sub_tasks: Vec<Value> = p
        .sub_tasks
        .iter()
        .map(|t| {
            let mut o = json!({
                "id": t.id,
                "description": t.description,
                "completed": t.completed,
                "checkpointIds": t.checkpoint_ids,
            });
            if let Some(c) = &t.created_at {
                o["createdAt"] = json!(ms(c));
            }
            if let Some(c) = &t.completed_at {
                o["completedAt"] = json!(ms(c));
            }
            o
        })
        .collect();
    json!({
        "id": p.id,
        "workspace_id": p.workspace_id,
        "title": p.title,
        "content": p.content,
        "status": p.status,
        "progress_notes": p.progress_notes,
        "sub_tasks": sub_tasks,
        "checkpoint_count_at_last_update": p.checkpoint_count_at_last_update,
        "last_updated_checkpoint_id": p.last_updated_checkpoint_id,
        "created_at": ms(&p.created_at),
        "updated_at": ms(&p.updated_at),
        "completed_at": p.completed_at.as_ref().map(ms),
        "is_active": i32::from(p.is_active),
    })
}

#[test]
fn every_checkpoint_and_plan_matches_the_manifest() -> TestResult {
    let db = fixture("tusk/journal.db");
    let manifest = read_json(&fixture("tusk/manifest.json"))?;
    let journal = read_tusk(&db)?;
    let problems: Vec<String> = journal.problems.iter().map(ToString::to_string).collect();
    assert!(problems.is_empty(), "{problems:#?}");
    let mut diffs = Vec::new();

    let want = manifest["checkpoints"].as_array().ok_or("checkpoints")?;
    assert_eq!(want.len(), 40);
    assert_eq!(journal.checkpoints.len(), want.len());
    let got: BTreeMap<(&str, &str), &TuskCheckpoint> = journal
        .checkpoints
        .iter()
        .map(|c| ((c.workspace_id.as_str(), c.id.as_str()), c))
        .collect();
    for w in want {
        let key = (
            w["workspaceId"].as_str().ok_or("workspaceId")?,
            w["id"].as_str().ok_or("id")?,
        );
        match got.get(&key) {
            Some(c) => diff_fields(
                &format!("checkpoint {}", key.1),
                w,
                &checkpoint_view(c),
                &mut diffs,
            ),
            None => diffs.push(format!("checkpoint {key:?}: not read")),
        }
    }
    let times: Vec<_> = journal.checkpoints.iter().map(|c| c.timestamp).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first");

    let workspaces = journal.workspaces();
    let mut plan_count = 0;
    for w in manifest["workspaces"].as_array().ok_or("workspaces")? {
        let info = &w["workspaceInfo"];
        let id = info["workspaceId"].as_str().ok_or("workspaceId")?;
        match workspaces.iter().find(|ws| ws.id == id) {
            Some(ws) => {
                let got = json!({
                    "workspaceId": ws.id,
                    "workspacePath": ws.path,
                    "workspaceName": ws.name,
                });
                let mut want = info.clone();
                // How Tusk detected the workspace is not stored in the journal.
                want.as_object_mut().map(|o| o.remove("detectionMethod"));
                diff_fields(&format!("workspace {id}"), &want, &got, &mut diffs);
            }
            None => diffs.push(format!("workspace {id}: not read")),
        }
        let ids: Vec<&str> = journal
            .checkpoints
            .iter()
            .filter(|c| c.workspace_id == id)
            .map(|c| c.id.as_str())
            .collect();
        let mut want_ids: Vec<&str> = w["checkpointIds"]
            .as_array()
            .ok_or("checkpointIds")?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let mut got_ids = ids.clone();
        want_ids.sort_unstable();
        got_ids.sort_unstable();
        if want_ids != got_ids {
            diffs.push(format!(
                "workspace {id}: checkpoint ids {want_ids:?} / read {got_ids:?}"
            ));
        }
        for p in w["plans"].as_array().ok_or("plans")? {
            plan_count += 1;
            let pid = p["id"].as_str().ok_or("plan id")?;
            let Some(plan) = journal.plans.iter().find(|x| x.id == pid) else {
                diffs.push(format!("plan {pid}: not read"));
                continue;
            };
            let mut want = p.clone();
            let raw = want["sub_tasks"].as_str().unwrap_or("[]").to_string();
            want["sub_tasks"] = serde_json::from_str(&raw)?;
            diff_fields(&format!("plan {pid}"), &want, &plan_view(plan), &mut diffs);
        }
        let active = journal.active_plan(id).map(|p| p.id.as_str());
        if w["activePlanId"].as_str() != active {
            diffs.push(format!(
                "workspace {id}: active plan: manifest {} / read {active:?}",
                w["activePlanId"]
            ));
        }
    }
    assert_eq!(plan_count, 5);
    assert_eq!(journal.plans.len(), plan_count);
    assert_no_diffs(&diffs);

    // Progress notes, one per `[instant] text`; the multi-paragraph one stays whole.
    let notes: Vec<(String, &str)> = journal
        .plans
        .iter()
        .flat_map(|p| &p.notes)
        .map(|n| (n.at.as_ref().map(iso).unwrap_or_default(), n.text.as_str()))
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes
            .iter()
            .any(|(at, text)| at == "2026-04-10T09:30:00.000Z"
                && text.ends_with("\n\nMulti-line progress note with a `code` span."))
    );
    Ok(())
}
