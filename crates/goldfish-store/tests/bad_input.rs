//! Bad input: refused with a clear error, never a panic, never a lost or overwritten file.

use std::path::Path;
use std::time::{Duration, Instant};

use goldfish_store::{CheckpointInput, Imported, PlanInput, Store, validate_workspace};

use crate::{TestResult, seed_date, seed_time, store_at};

#[test]
fn escaping_workspace_and_plan_ids_are_refused() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    for bad in ["..", "../etc", "a/b", "a\\b", "nul\0", "", "!!!"] {
        let mut input = CheckpointInput::new("x");
        input.workspace = Some(bad.into());
        let err = store.save_checkpoint(input).expect_err(bad);
        assert!(err.is_invalid_input(), "{bad:?}: {err}");
        assert!(err.to_string().contains("workspace name"), "{err}");
        assert!(
            store.checkpoints_for_day(bad, seed_date()).is_err(),
            "{bad:?}"
        );
        assert!(store.list_plans(bad).is_err(), "{bad:?}");

        let mut plan = PlanInput::new("Title", "body");
        plan.workspace = Some("ws".into());
        plan.id = Some(bad.into());
        let err = store.save_plan(plan).expect_err(bad);
        assert!(
            err.is_invalid_input() && err.to_string().contains("plan id"),
            "{bad:?}: {err}"
        );
        assert!(store.get_plan("ws", bad).expect_err(bad).is_invalid_input());
    }
    assert!(validate_workspace("ok-name").is_ok());
    // Nothing escaped the store.
    let names: Vec<_> = std::fs::read_dir(dir.path())?
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(names.is_empty(), "{names:?}");
    Ok(())
}

#[test]
fn bad_checkpoint_inputs_are_refused() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let cases: [(&str, Vec<String>, &str); 3] = [
        ("", vec![], "description"),
        ("  \n ", vec![], "description"),
        ("ok", vec!["a\nb".into()], "line break"),
    ];
    for (description, tags, needle) in cases {
        let mut input = CheckpointInput::new(description);
        input.workspace = Some("ws".into());
        input.tags = tags;
        let err = store.save_checkpoint(input).expect_err(needle);
        assert!(err.is_invalid_input());
        assert!(err.to_string().contains(needle), "{err}");
    }
    Ok(())
}

/// True when this process can write to a directory made read-only (root can).
fn permissions_enforced(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let probe = dir.join("probe");
    let _ = std::fs::create_dir(&probe);
    let _ = std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o500));
    let enforced = std::fs::write(probe.join("x"), b"x").is_err();
    let _ = std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o700));
    let _ = std::fs::remove_dir_all(&probe);
    enforced
}

#[test]
fn read_only_store_fails_at_once_with_a_clear_error() -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir()?;
    // As root, permissions are not enforced: use a directory of a read-only file system.
    let root = if permissions_enforced(dir.path()) {
        let root = dir.path().join("store");
        let (store, _) = store_at(&root)?;
        let mut input = CheckpointInput::new("before");
        input.workspace = Some("ws".into());
        store.save_checkpoint(input)?;
        for d in [root.join("ws/checkpoints"), root.join("ws"), root.clone()] {
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o500))?;
        }
        root
    } else {
        Path::new("/sys/goldfish-test-store").to_path_buf()
    };
    let store = Store::open(&root)?;
    let started = Instant::now();
    let mut input = CheckpointInput::new("after");
    input.workspace = Some("ws".into());
    let err = store.save_checkpoint(input).expect_err("read-only store");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "must not wait on a lock"
    );
    assert!(err.is_permission_denied(), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("read-only") && msg.contains("GOLDFISH_HOME"),
        "{msg}"
    );
    let mut plan = PlanInput::new("P", "");
    plan.workspace = Some("ws".into());
    assert!(
        store
            .save_plan(plan)
            .expect_err("read-only")
            .is_permission_denied()
    );
    // Reading still works.
    let _ = store.checkpoints_for_day("ws", seed_date())?;
    for d in [root.clone(), root.join("ws"), root.join("ws/checkpoints")] {
        let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700));
    }
    Ok(())
}

#[test]
fn invalid_utf8_and_garbage_are_reported_and_the_rest_stays_readable() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, clock) = store_at(dir.path())?;
    let mut input = CheckpointInput::new("good one");
    input.workspace = Some("ws".into());
    let good = store.save_checkpoint(input.clone())?;
    let day_dir = dir.path().join("ws/checkpoints");
    // Another day with a garbage block before its first entry and invalid UTF-8 in its second
    // entry. (Inside an entry written by Goldfish v4, a `## nonsense` line would be part of the
    // description.)
    let bad_day = day_dir.join("2025-10-12.md");
    let mut bytes = b"# Checkpoints for 2025-10-12\n\n## nonsense\nrandom junk\n\n".to_vec();
    bytes.extend_from_slice(b"## 08:00 - readable\n\n## 09:00 - broken \xff\xfe\n\n");
    bytes.extend_from_slice(b"## 10:00 - also readable\n");
    std::fs::write(&bad_day, &bytes)?;
    let from = seed_time() - chrono::TimeDelta::days(2);
    let range = store.checkpoints_between("ws", from, seed_time())?;
    let titles: Vec<&str> = range.checkpoints.iter().map(|c| c.title()).collect();
    assert_eq!(titles, ["readable", "also readable", "good one"]);
    let lines: Vec<_> = range
        .skipped
        .iter()
        .map(|s| (s.path.clone(), s.line))
        .collect();
    assert_eq!(
        lines,
        [(bad_day.clone(), Some(3)), (bad_day.clone(), Some(8))],
        "{:?}",
        range.skipped
    );
    assert!(range.skipped[1].message.contains("UTF-8"));
    assert!(range.skipped[1].to_string().contains("2025-10-12.md:8"));

    // Saving into the broken day keeps its bytes and adds the entry.
    clock.set(seed_time() - chrono::TimeDelta::days(1));
    let saved = store.save_checkpoint(input)?;
    let after = std::fs::read(&bad_day)?;
    assert!(after.starts_with(&bytes), "existing bytes kept");
    let day = store.read_day("ws", saved.timestamp.date_naive())?;
    assert_eq!(day.checkpoints.len(), 3);
    assert_eq!(day.checkpoints[2], saved);
    assert_eq!(store.checkpoints_for_day("ws", seed_date())?, vec![good]);
    Ok(())
}

#[test]
fn broken_plan_is_reported_and_not_overwritten() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let mut plan = PlanInput::new("Good", "fine");
    plan.workspace = Some("ws".into());
    store.save_plan(plan)?;
    let broken = dir.path().join("ws/plans/broken.md");
    let text = "---\nid: broken\ncreated: 2025-10-13T09:00:00Z\ntags: [unclosed\n---\n\n# Broken\n";
    std::fs::write(&broken, text)?;
    let list = store.list_plans("ws")?;
    assert_eq!(
        list.plans.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        ["good"]
    );
    assert_eq!(list.skipped.len(), 1);
    assert_eq!(list.skipped[0].path, broken);
    assert_eq!(list.skipped[0].line, Some(4));
    let err = store.get_plan("ws", "broken").expect_err("broken");
    assert!(
        err.is_parse() && err.path() == Some(broken.as_path()),
        "{err}"
    );
    let mut again = PlanInput::new("Broken", "new");
    again.workspace = Some("ws".into());
    assert!(
        store
            .save_plan(again)
            .expect_err("must not overwrite")
            .is_parse()
    );
    assert_eq!(std::fs::read_to_string(&broken)?, text);
    Ok(())
}

#[cfg(unix)]
#[test]
fn new_files_are_private() -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("home");
    let (store, _) = store_at(&root)?;
    let mut input = CheckpointInput::new("x");
    input.workspace = Some("ws".into());
    store.save_checkpoint(input)?;
    let mut plan = PlanInput::new("P", "");
    plan.workspace = Some("ws".into());
    plan.activate = true;
    store.save_plan(plan)?;
    let mode = |p: &Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777);
    for d in [
        root.clone(),
        root.join("ws"),
        root.join("ws/checkpoints"),
        root.join("ws/plans"),
    ] {
        assert_eq!(mode(&d)?, 0o700, "{}", d.display());
    }
    for f in [
        root.join("ws/checkpoints/2025-10-13.md"),
        root.join("ws/plans/p.md"),
        root.join("ws/.active-plan"),
    ] {
        assert_eq!(mode(&f)?, 0o600, "{}", f.display());
    }
    Ok(())
}

/// Two titles with the same slug: the second save must not silently replace the first plan.
#[test]
fn a_title_slug_collision_does_not_overwrite_another_plan() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::open(dir.path())?;
    let mut first = PlanInput::new("Fix: auth bug", "first plan content");
    first.workspace = Some("ws".into());
    store.save_plan(first)?;

    let mut second = PlanInput::new("fix auth bug", "second");
    second.workspace = Some("ws".into());
    let err = store
        .save_plan(second)
        .expect_err("same slug, different title");
    assert!(err.to_string().contains("already exists"), "{err}");
    assert_eq!(
        store.get_plan("ws", "fix-auth-bug")?.content,
        "first plan content"
    );

    // Saving again under the same title updates it; an explicit id replaces on purpose.
    let mut again = PlanInput::new("Fix: auth bug", "first plan, revised");
    again.workspace = Some("ws".into());
    store.save_plan(again)?;
    assert_eq!(
        store.get_plan("ws", "fix-auth-bug")?.content,
        "first plan, revised"
    );
    let mut explicit = PlanInput::new("fix auth bug", "replaced on purpose");
    explicit.workspace = Some("ws".into());
    explicit.id = Some("fix-auth-bug".into());
    store.save_plan(explicit)?;
    assert_eq!(store.get_plan("ws", "fix-auth-bug")?.title, "fix auth bug");
    Ok(())
}

#[test]
fn typed_memories_are_saved_cleaned_and_checked() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let mut input = CheckpointInput::new("Chose rotation");
    input.workspace = Some("ws".into());
    input.memory_type = goldfish_store::MemoryType::Decision;
    input.structured.decision = Some("Rotate refresh tokens".into());
    input.structured.alternatives = vec![" a ".into(), "".into(), "b; c".into()];
    input.structured.next = Some("  ".into());
    input.structured.confidence = Some(4);
    let saved = store.save_checkpoint(input)?;
    assert_eq!(saved.structured.alternatives, ["a", "b; c"]);
    assert_eq!(saved.structured.next, None);
    let read = store.checkpoints_for_day("ws", saved.timestamp.date_naive())?;
    assert_eq!(read, vec![saved]);

    let mut bad = CheckpointInput::new("x");
    bad.workspace = Some("ws".into());
    bad.structured.confidence = Some(7);
    let err = store.save_checkpoint(bad).expect_err("confidence 7");
    assert!(err.is_invalid_input(), "{err}");
    assert!(err.to_string().contains("confidence 7"), "{err}");
    Ok(())
}

#[test]
fn imported_checkpoints_keep_their_fields_order_and_ids_once() -> TestResult {
    use goldfish_store::Checkpoint;
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let at = |h: u32| {
        chrono::NaiveDate::from_ymd_opt(2025, 10, 13)
            .and_then(|d| d.and_hms_opt(h, 0, 0))
            .map(|t| t.and_utc())
            .expect("valid time")
    };
    let mk = |id: &str, h: u32| {
        let mut c = Checkpoint::new(id, at(h), "ws", format!("entry {id}"));
        c.extra.insert("Origin".into(), format!("test:{id}"));
        c
    };
    // Appended, then one earlier than all (inserted in place), a repeat, and a bad one.
    let first = store.import_checkpoints(&[mk("b", 10), mk("c", 11)]);
    assert!(
        first.iter().all(|r| matches!(r, Ok(Imported::Added))),
        "{first:?}"
    );
    let mut blank = mk("d", 12);
    blank.description = " ".into();
    let second = store.import_checkpoints(&[mk("a", 9), mk("b", 10), mk("a", 9), blank]);
    assert!(matches!(second[0], Ok(Imported::Added)), "{second:?}");
    assert!(matches!(second[1], Ok(Imported::Present)), "{second:?}");
    assert!(matches!(second[2], Ok(Imported::Present)), "{second:?}");
    assert!(
        second[3].as_ref().is_err_and(|e| e.is_invalid_input()),
        "{second:?}"
    );
    let read = store.checkpoints_for_day("ws", at(0).date_naive())?;
    let ids: Vec<&str> = read.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert_eq!(read[0], mk("a", 9));
    Ok(())
}

#[test]
fn an_imported_id_taken_by_other_content_is_kept_under_a_derived_id() -> TestResult {
    use goldfish_store::Checkpoint;
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let at = chrono::NaiveDate::from_ymd_opt(2025, 10, 13)
        .and_then(|d| d.and_hms_opt(10, 0, 0))
        .map(|t| t.and_utc())
        .expect("valid time");
    let mk = |text: &str| Checkpoint::new("same", at, "ws", text);
    // In one batch, and then again in a later one: kept once each, never dropped.
    let first = store.import_checkpoints(&[mk("first text"), mk("second text")]);
    let Ok(Imported::AddedAs(derived)) = &first[1] else {
        panic!("{first:?}");
    };
    assert!(derived.starts_with("same-dup-"), "{derived}");
    assert!(matches!(first[0], Ok(Imported::Added)), "{first:?}");
    let again = store.import_checkpoints(&[mk("first text"), mk("second text")]);
    assert!(
        again.iter().all(|r| matches!(r, Ok(Imported::Present))),
        "{again:?}"
    );
    let third = store.import_checkpoint(&mk("third text"))?;
    assert!(
        matches!(&third, Imported::AddedAs(id) if id != derived),
        "{third:?}"
    );
    let read = store.checkpoints_for_day("ws", at.date_naive())?;
    let texts: Vec<&str> = read.iter().map(|c| c.description.as_str()).collect();
    assert_eq!(texts, ["first text", "second text", "third text"]);
    assert_eq!(read[1].id, *derived);
    Ok(())
}

#[test]
fn an_imported_plan_id_taken_by_other_content_is_kept_under_a_derived_id() -> TestResult {
    use goldfish_store::Plan;
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let at = chrono::DateTime::from_timestamp(1_760_000_000, 0).expect("valid time");
    let mk = |content: &str| Plan::new("migrate", "Migrate", content, "ws", at);
    assert_eq!(store.import_plan(&mk("one"), true)?, Imported::Added);
    assert_eq!(store.import_plan(&mk("one"), true)?, Imported::Present);
    let Imported::AddedAs(derived) = store.import_plan(&mk("two"), true)? else {
        panic!("the second plan was not kept");
    };
    assert_eq!(store.import_plan(&mk("two"), true)?, Imported::Present);
    assert_eq!(store.get_plan("ws", "migrate")?.content, "one");
    assert_eq!(store.get_plan("ws", &derived)?.content, "two");
    Ok(())
}

#[test]
fn an_imported_extra_bullet_the_day_file_cannot_hold_is_refused_by_name() -> TestResult {
    use goldfish_store::Checkpoint;
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let at = chrono::DateTime::from_timestamp(1_760_000_000, 0).expect("valid time");
    for key in ["Tags", "two\nlines"] {
        let mut c = Checkpoint::new(format!("id-{}", key.len()), at, "ws", "text");
        c.extra.insert(key.into(), "value".into());
        let err = store.import_checkpoint(&c).expect_err(key);
        assert!(err.is_invalid_input(), "{err}");
        assert!(err.to_string().contains(&format!("{key:?}")), "{err}");
    }
    assert!(store.checkpoints_for_day("ws", at.date_naive())?.is_empty());
    Ok(())
}
