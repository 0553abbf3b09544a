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

mod merge_with_tombstones {
    //! The merge with tombstones, over random day files: whatever both sides hold and edit,
    //! and whichever side is ours, the merge followed by the tombstones (what every sync
    //! does) leaves exactly the merged entries that no tombstone names, each unchanged.

    use std::collections::{BTreeMap, BTreeSet};

    use goldfish_store::{
        Forgotten, Store, TOMBSTONE_FILE, Tombstone, format_tombstone, format_tombstone_header,
        parse_day_file,
    };
    use goldfish_sync::merge_day_file;
    use proptest::prelude::*;

    use crate::merge::{Spec, checkpoint, date, day, spec};
    use crate::util::at;

    const WS: &str = "ws";

    fn sides(specs: &[Spec]) -> (String, String, String) {
        let (mut base, mut ours, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
        for (i, s) in specs.iter().enumerate() {
            let oe = s.ours_edit.as_ref().filter(|_| s.in_base);
            let te = s.theirs_edit.as_ref().filter(|_| s.in_base);
            if s.in_base {
                base.push(checkpoint(i, s, None));
            }
            if s.in_ours {
                ours.push(checkpoint(i, s, oe));
            }
            if s.in_theirs {
                theirs.push(checkpoint(i, s, te));
            }
        }
        (day(base), day(ours), day(theirs))
    }

    /// The merged day file after the tombstones of `gone` are applied, through a store in a
    /// temp directory.
    fn applied(
        merged: &str,
        gone: &BTreeSet<String>,
    ) -> Result<String, Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = Store::open(dir.path())?;
        let path = store.day_file_path(WS, date())?;
        std::fs::create_dir_all(path.parent().ok_or("parent")?)?;
        std::fs::write(&path, merged)?;
        let mut stones = format_tombstone_header(WS);
        for id in gone {
            let what = Forgotten::Checkpoint {
                id: id.clone(),
                day: date(),
            };
            stones.push_str(&format_tombstone(&Tombstone::new(
                what,
                at("2025-10-14T00:00:00Z"),
                "test",
            )));
        }
        std::fs::write(dir.path().join(WS).join(TOMBSTONE_FILE), stones)?;
        store.apply_tombstones()?;
        Ok(std::fs::read_to_string(&path)?)
    }

    fn entries(text: &str) -> BTreeMap<String, goldfish_store::Checkpoint> {
        let parsed = parse_day_file(text, WS, date());
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        parsed
            .checkpoints
            .into_iter()
            .map(|c| (c.id.clone(), c))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn what_a_tombstone_names_never_survives_and_nothing_else_goes(
            specs in proptest::collection::vec(spec(), 0..10),
            forget in proptest::collection::vec(any::<bool>(), 10),
        ) {
            let (b, o, t) = sides(&specs);
            let gone: BTreeSet<String> = (0..specs.len())
                .filter(|&i| forget[i])
                .map(|i| format!("20251013-{i:03}"))
                .collect();
            let mut results = Vec::new();
            for (ours, theirs) in [(&o, &t), (&t, &o)] {
                let merged = merge_day_file(&b, ours, theirs, WS, date()).expect("merges");
                let merged = String::from_utf8(merged.text).expect("utf8");
                let after = applied(&merged, &gone).expect("applied");
                let before = entries(&merged);
                let kept = entries(&after);
                for (id, c) in &before {
                    let named = gone.contains(id)
                        || c.extra.get("Merge conflict").is_some_and(|of| gone.contains(of));
                    if named {
                        prop_assert!(!kept.contains_key(id), "{} survived", id);
                    } else {
                        prop_assert_eq!(kept.get(id), Some(c), "{} lost or changed", id);
                    }
                }
                prop_assert!(kept.keys().all(|id| before.contains_key(id)));
                results.push(kept.into_keys().collect::<BTreeSet<_>>());
            }
            // Whichever side is ours, the same memories remain.
            prop_assert_eq!(&results[0], &results[1]);
        }
    }
}

#[test]
fn a_link_added_by_tidy_reaches_every_machine_and_an_edit_elsewhere_is_kept() -> TestResult {
    for first in ["linker", "other"] {
        let dir = tempfile::tempdir()?;
        let (a, b) = homes(dir.path())?;
        let save_decision = |home: &Path, now: &str, text: &str| -> TestResult<String> {
            let mut input = CheckpointInput::new(text);
            input.workspace = Some(WS.into());
            input.memory_type = goldfish_store::MemoryType::Decision;
            Ok(store_at(home, now)?.save_checkpoint(input)?.id)
        };
        let old = save_decision(&a, "2025-10-13T09:00:00Z", "Use Postgres 14 for orders")?;
        let new = save_decision(&a, "2025-10-13T09:30:00Z", "Upgrade orders to Postgres 16")?;
        let other = save(&a, "2025-10-13T09:40:00Z", "Switched the retry policy")?;
        converge(&a, &b)?;

        // A links the decisions (what `goldfish tidy --apply` does); B edits another entry
        // of the same day file and saves a new one.
        let added = store_at(&a, "2025-10-13T10:00:00Z")?.add_supersedes(
            WS,
            &new,
            std::slice::from_ref(&old),
        )?;
        assert_eq!(added, vec![old.clone()]);
        edit_by_hand(&b, &other)?;
        let from_b = save(
            &b,
            "2025-10-13T11:00:00Z",
            "Added a flaky-test quarantine list",
        )?;

        if first == "linker" {
            sync_ok(&a)?;
            sync_ok(&b)?;
        } else {
            sync_ok(&b)?;
            sync_ok(&a)?;
        }
        converge(&a, &b)?;
        for home in [&a, &b] {
            let all = all_checkpoints(home, WS);
            assert_eq!(all.len(), 4, "{first} first: {:?}", all.keys());
            assert_eq!(all[&new].supersedes, vec![old.clone()], "{first} first");
            assert!(
                all[&other]
                    .description
                    .ends_with("edited on the other machine")
            );
            assert!(all.contains_key(&from_b));
            assert!(Store::open(home)?.supersession(WS)?.is_superseded(&old));
        }
    }
    Ok(())
}
