//! Forgetting across machines: two homes and a bare remote, the forget on one, edits on the
//! other, syncs in every order. The forgotten memory is gone from both and stays gone;
//! nothing else is lost.

use std::path::Path;

use goldfish_store::{
    CheckpointInput, Imported, PlanInput, PlanUpdate, Store, TOMBSTONE_FILE, parse_day_file,
};
use goldfish_sync::init;

use crate::sync::{converge, homes, sync_ok};
use crate::util::{TestResult, all_checkpoints, bare_remote, store_at, tool};

const WS: &str = "shared";

fn save(home: &Path, now: &str, text: &str) -> TestResult<String> {
    let mut input = CheckpointInput::new(text);
    input.workspace = Some(WS.into());
    Ok(store_at(home, now)?.save_checkpoint(input)?.id)
}

/// Edits entry `id` of the day file by hand, as a person (or a tool) would: a new last line
/// of its description and an `Edited` bullet.
fn edit_by_hand(home: &Path, id: &str) -> TestResult {
    let store = Store::open(home)?;
    let found = store
        .find_checkpoint(Some(WS), id)?
        .ok_or("entry to edit")?;
    let date = found.timestamp.date_naive();
    let path = store.day_file_path(WS, date)?;
    let text = std::fs::read_to_string(&path)?;
    let day = parse_day_file(&text, WS, date);
    let mut entries = day.checkpoints;
    for c in &mut entries {
        if c.id == id {
            c.description.push_str("\nedited on the other machine");
            c.extra
                .insert("Edited".into(), "2025-10-13T12:00:00.000Z".into());
        }
    }
    std::fs::write(&path, goldfish_store::format_day_file(date, &entries))?;
    Ok(())
}

fn ids(home: &Path) -> Vec<String> {
    all_checkpoints(home, WS).into_keys().collect()
}

#[test]
fn a_forgotten_memory_is_gone_everywhere_whatever_the_order_of_syncs() -> TestResult {
    for first in ["forgetter", "editor"] {
        let dir = tempfile::tempdir()?;
        let (a, b) = homes(dir.path())?;
        // A third machine that last synced before the forget, and edits the memory offline.
        let c = dir.path().join("c");
        let remote = dir.path().join("remote.git");
        init(&c, Some(remote.to_str().ok_or("utf8")?), &tool())?;

        let wrong = save(
            &a,
            "2025-10-13T09:00:00Z",
            "Decided to push straight to main",
        )?;
        let kept = save(
            &a,
            "2025-10-13T09:05:00Z",
            "Switched the retry policy to jittered backoff",
        )?;
        converge(&a, &b)?;
        sync_ok(&c)?;

        // A forgets; B and C edit the same memory and save new ones on the same day.
        let report = store_at(&a, "2025-10-13T10:00:00Z")?.forget_checkpoints(
            std::slice::from_ref(&wrong),
            Some(WS),
            "user=dev",
            false,
        )?;
        assert_eq!(report.forgotten.len(), 1);
        edit_by_hand(&b, &wrong)?;
        let from_b = save(
            &b,
            "2025-10-13T11:00:00Z",
            "Added a flaky-test quarantine list",
        )?;
        edit_by_hand(&c, &wrong)?;
        let from_c = save(&c, "2025-10-13T11:30:00Z", "Bumped the MSRV to 1.85")?;

        if first == "forgetter" {
            sync_ok(&a)?;
            sync_ok(&b)?;
        } else {
            sync_ok(&b)?;
            sync_ok(&a)?;
        }
        sync_ok(&c)?;
        converge(&a, &b)?;
        sync_ok(&c)?;
        converge(&a, &c)?;

        let mut want = vec![kept.clone(), from_b.clone(), from_c.clone()];
        want.sort();
        for home in [&a, &b, &c] {
            assert_eq!(ids(home), want, "{first} first: {}", home.display());
            let text = std::fs::read_to_string(home.join(WS).join(TOMBSTONE_FILE))?;
            assert!(text.contains(&wrong), "{text}");
            assert!(!text.contains("push straight"), "never the text: {text}");
            // It stays gone: an import of the old entry on any machine is refused.
            let mut old = goldfish_store::Checkpoint::new(
                wrong.clone(),
                crate::util::at("2025-10-13T09:00:00Z"),
                WS,
                "Decided to push straight to main",
            );
            old.tags.clear();
            assert_eq!(
                Store::open(home)?.import_checkpoint(&old)?,
                Imported::Forgotten
            );
            let day = std::fs::read_to_string(home.join(WS).join("checkpoints/2025-10-13.md"))?;
            assert!(!day.contains("push straight"), "{day}");
        }
        // And after more syncs in both directions.
        converge(&b, &a)?;
        assert_eq!(ids(&a), want);
    }
    Ok(())
}

#[test]
fn a_deleted_plan_edited_elsewhere_is_deleted_everywhere() -> TestResult {
    for first in ["deleter", "editor"] {
        let dir = tempfile::tempdir()?;
        let (a, b) = homes(dir.path())?;
        for id in ["roadmap", "other"] {
            let mut plan = PlanInput::new(id, "- [ ] one\n");
            plan.workspace = Some(WS.into());
            plan.id = Some(id.into());
            store_at(&a, "2025-10-13T09:00:00Z")?.save_plan(plan)?;
        }
        converge(&a, &b)?;
        store_at(&a, "2025-10-13T10:00:00Z")?.forget_plan(WS, "roadmap", "user=dev", false)?;
        let mut edit = PlanUpdate::default();
        edit.content = Some("- [x] one\n".into());
        store_at(&b, "2025-10-13T11:00:00Z")?.update_plan(WS, "roadmap", edit)?;
        if first == "deleter" {
            sync_ok(&a)?;
            sync_ok(&b)?;
        } else {
            sync_ok(&b)?;
            sync_ok(&a)?;
        }
        converge(&a, &b)?;
        for home in [&a, &b] {
            let store = Store::open(home)?;
            assert!(
                store
                    .get_plan(WS, "roadmap")
                    .expect_err("deleted")
                    .is_not_found(),
                "{first} first: {}",
                home.display()
            );
            assert!(store.get_plan(WS, "other").is_ok());
        }
    }
    Ok(())
}

#[test]
fn a_store_synced_before_tombstones_existed_gets_their_merge_rule() -> TestResult {
    let dir = tempfile::tempdir()?;
    let remote = bare_remote(dir.path());
    let a = dir.path().join("a");
    init(&a, Some(remote.to_str().ok_or("utf8")?), &tool())?;
    let attributes = a.join(".gitattributes");
    let old: String = std::fs::read_to_string(&attributes)?
        .lines()
        .filter(|l| !l.contains("forgotten.md"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&attributes, old)?;
    sync_ok(&a)?;
    assert!(std::fs::read_to_string(&attributes)?.contains("*/forgotten.md merge=union"));
    Ok(())
}
