//! Forgetting: the entry leaves its day file (every other byte kept), a tombstone names it
//! (never its text), imports skip it, and `apply_tombstones` removes it when it comes back.

use goldfish_store::{
    Checkpoint, CheckpointInput, Forgotten, Imported, PlanInput, Store, TOMBSTONE_FILE,
    parse_tombstones,
};

use crate::{TestResult, seed_date, store_at};

fn save(store: &Store, ws: &str, text: &str) -> Result<Checkpoint, goldfish_store::Error> {
    let mut input = CheckpointInput::new(text);
    input.workspace = Some(ws.into());
    store.save_checkpoint(input)
}

#[test]
fn forgetting_removes_the_entry_and_keeps_every_other_byte() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, clock) = store_at(dir.path())?;
    let a = save(&store, "ws", "First: kept\nbody a")?;
    clock.advance(chrono::TimeDelta::seconds(60));
    let b = save(
        &store,
        "ws",
        "Second: the secret plan to forget\nhome address 1 Main St",
    )?;
    clock.advance(chrono::TimeDelta::seconds(60));
    let c = save(&store, "ws", "Third: kept too")?;
    let day = store.day_file_path("ws", seed_date())?;
    let before = std::fs::read_to_string(&day)?;

    let dry = store.forget_checkpoints(
        std::slice::from_ref(&b.id),
        Some("ws"),
        "harness=test",
        true,
    )?;
    assert!(dry.dry_run);
    assert_eq!(dry.forgotten.len(), 1);
    assert_eq!(
        std::fs::read_to_string(&day)?,
        before,
        "a dry run writes nothing"
    );
    assert!(!dir.path().join("ws").join(TOMBSTONE_FILE).exists());

    let report =
        store.forget_checkpoints(std::slice::from_ref(&b.id), None, "harness=test", false)?;
    assert_eq!(report.forgotten.len(), 1);
    assert_eq!(
        report.forgotten[0].title,
        "Second: the secret plan to forget"
    );
    let after = std::fs::read_to_string(&day)?;
    assert!(
        !after.contains("secret plan") && !after.contains("1 Main St"),
        "{after}"
    );
    let ids: Vec<String> = store
        .checkpoints_for_day("ws", seed_date())?
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(ids, [a.id.clone(), c.id.clone()]);
    // Every other byte is kept: the file is the old one less the entry's block.
    let start = before.find("## 09:31").ok_or("entry b")?;
    let end = before.find("## 09:32").ok_or("entry c")?;
    assert_eq!(after, format!("{}{}", &before[..start], &before[end..]));

    let tomb = std::fs::read_to_string(dir.path().join("ws").join(TOMBSTONE_FILE))?;
    assert!(
        !tomb.contains("secret") && !tomb.contains("Main St"),
        "{tomb}"
    );
    let stones = parse_tombstones(&tomb)?;
    assert_eq!(stones.len(), 1);
    assert_eq!(
        stones[0].what,
        Forgotten::Checkpoint {
            id: b.id.clone(),
            day: seed_date()
        }
    );
    assert_eq!(stones[0].by, "harness=test");

    // Again: already forgotten, nothing written.
    let again = store.forget_checkpoints(std::slice::from_ref(&b.id), Some("ws"), "x", false)?;
    assert!(again.forgotten.is_empty());
    assert_eq!(again.already_forgotten, vec![b.id.clone()]);
    assert_eq!(std::fs::read_to_string(&day)?, after);

    // The last entries: the day file keeps its header.
    store.forget_checkpoints(&[a.id, c.id], Some("ws"), "x", false)?;
    assert_eq!(
        std::fs::read_to_string(&day)?,
        "# Checkpoints for 2025-10-13\n"
    );
    Ok(())
}

#[test]
fn an_unknown_id_forgets_nothing() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let a = save(&store, "ws", "Kept")?;
    let day = store.day_file_path("ws", seed_date())?;
    let before = std::fs::read_to_string(&day)?;
    let err = store
        .forget_checkpoints(
            &[a.id.clone(), "20251013T000000000Z-nothere".into()],
            None,
            "x",
            false,
        )
        .expect_err("unknown id");
    assert!(err.is_not_found(), "{err}");
    assert!(err.to_string().contains("nothing was forgotten"), "{err}");
    assert_eq!(std::fs::read_to_string(&day)?, before);
    assert!(!dir.path().join("ws").join(TOMBSTONE_FILE).exists());
    Ok(())
}

#[test]
fn imports_skip_what_was_forgotten_until_it_is_taken_back() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let a = save(&store, "ws", "Wrong memory")?;
    store.forget_checkpoints(std::slice::from_ref(&a.id), Some("ws"), "x", false)?;
    assert_eq!(store.import_checkpoint(&a)?, Imported::Forgotten);
    assert!(store.checkpoints_for_day("ws", seed_date())?.is_empty());
    assert_eq!(store.unforget("ws", std::slice::from_ref(&a.id))?, 1);
    assert_eq!(store.import_checkpoint(&a)?, Imported::Added);
    assert_eq!(store.checkpoints_for_day("ws", seed_date())?, vec![a]);
    Ok(())
}

#[test]
fn a_forgotten_entry_that_comes_back_is_removed_again() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let a = save(&store, "ws", "Forget me")?;
    let day = store.day_file_path("ws", seed_date())?;
    let with_it = std::fs::read_to_string(&day)?;
    store.forget_checkpoints(std::slice::from_ref(&a.id), Some("ws"), "x", false)?;
    // A sync (or a hand) brings the old file back, with a preserved merge version of it.
    let mut version = a.clone();
    version.id = format!("{}.merge-conflict", a.id);
    version.extra.insert("Merge conflict".into(), a.id.clone());
    let back = format!("{with_it}\n{}", goldfish_store::format_checkpoint(&version));
    std::fs::write(&day, back)?;
    assert_eq!(store.checkpoints_for_day("ws", seed_date())?.len(), 2);
    let applied = store.apply_tombstones()?;
    assert_eq!(applied.len(), 1);
    assert_eq!(applied[0].0, "ws");
    assert!(store.checkpoints_for_day("ws", seed_date())?.is_empty());
    assert!(store.apply_tombstones()?.is_empty(), "idempotent");
    Ok(())
}

#[test]
fn a_deleted_plan_is_gone_and_stays_gone() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let mut plan = PlanInput::new("Auth redesign", "- [ ] OAuth2\n");
    plan.workspace = Some("ws".into());
    plan.activate = true;
    let saved = store.save_plan(plan)?;
    let report = store.forget_plan("ws", &saved.id, "x", false)?;
    assert_eq!(report.forgotten.len(), 1);
    assert!(
        store
            .get_plan("ws", &saved.id)
            .expect_err("gone")
            .is_not_found()
    );
    assert_eq!(store.active_plan("ws")?, None);
    assert_eq!(store.import_plan(&saved, true)?, Imported::Forgotten);
    let again = store.forget_plan("ws", &saved.id, "x", false)?;
    assert_eq!(again.already_forgotten, vec![saved.id.clone()]);
    Ok(())
}

#[test]
fn a_broken_tombstone_line_is_an_error_naming_its_line() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    save(&store, "ws", "x")?;
    std::fs::write(
        dir.path().join("ws").join(TOMBSTONE_FILE),
        "# Forgotten in ws\n\n- checkpoint garbled\n",
    )?;
    let err = store.tombstones("ws").expect_err("refused");
    assert!(err.is_parse(), "{err}");
    assert!(err.to_string().contains("forgotten.md:3"), "{err}");
    Ok(())
}
