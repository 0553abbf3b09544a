//! Files a hard tester planted: day files named like a date that does not exist, broken plan
//! files (the active one too), and temp files of killed writers. Each is reported with its
//! path (and line when there is one) or cleaned up, never silently dropped or counted as data.

use std::fs;

use chrono::{TimeDelta, Utc};
use goldfish_store::{CheckpointInput, PlanInput};

use crate::{TestResult, seed_time, store_at};

#[test]
fn day_files_whose_name_is_not_a_real_date_are_reported() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let mut input = CheckpointInput::new("a real checkpoint");
    input.workspace = Some("ws".into());
    store.save_checkpoint(input)?;
    let checkpoints = dir.path().join("ws/checkpoints");
    let entry = "# Checkpoints\n\n## 09:00 - lost unless reported\n";
    for bad in ["2025-13-45.md", "2025-02-30.md"] {
        fs::write(checkpoints.join(bad), entry)?;
    }
    // Not day files at all: ignored without a word.
    for other in ["notes.md", "2025-1-3.md", "README", ".2025-10-13.md.lock"] {
        fs::write(checkpoints.join(other), entry)?;
    }
    fs::write(checkpoints.join(".2025-10-13.md.77-ab-0.tmp"), entry)?;

    for days in [1, 400] {
        let from = seed_time() - TimeDelta::days(days);
        let range = store.checkpoints_between("ws", from, seed_time() + TimeDelta::days(1))?;
        let titles: Vec<_> = range.checkpoints.iter().map(|c| c.title()).collect();
        assert_eq!(titles, ["a real checkpoint"], "{days} days");
        let skipped: Vec<_> = range
            .skipped
            .iter()
            .map(|s| {
                let name = s.path.file_name().map(|n| n.to_string_lossy().into_owned());
                (name, s.line, s.message.contains("not a real date"))
            })
            .collect();
        assert_eq!(
            skipped,
            [
                (Some("2025-02-30.md".into()), None, true),
                (Some("2025-13-45.md".into()), None, true),
            ],
            "{days} days: {:?}",
            range.skipped
        );
    }
    // A whole-history read says the same, and the Display form names the path.
    let range = store.checkpoints_between(
        "ws",
        chrono::DateTime::<Utc>::MIN_UTC,
        chrono::DateTime::<Utc>::MAX_UTC,
    )?;
    assert_eq!(range.checkpoints.len(), 1);
    assert_eq!(range.skipped.len(), 2);
    assert!(range.skipped[0].to_string().contains("2025-02-30.md"));
    Ok(())
}

#[test]
fn plan_list_reads_what_it_can_when_plans_and_the_active_one_are_broken() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let mut good = PlanInput::new("Good plan", "- [ ] one\n");
    good.workspace = Some("ws".into());
    store.save_plan(good)?;
    let plans = dir.path().join("ws/plans");
    // Broken YAML on line 3; and a plan with no closing `---`.
    fs::write(
        plans.join("broken.md"),
        "---\nid: broken\ntitle: [unclosed\ncreated: 2025-10-13T09:00:00Z\n---\n\nbody\n",
    )?;
    fs::write(plans.join("unclosed.md"), "---\nid: unclosed\n")?;
    fs::write(dir.path().join("ws/.active-plan"), "broken\n")?;

    let list = store.list_plans("ws")?;
    let ids: Vec<_> = list.plans.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["good-plan"]);
    assert_eq!(list.active, None, "a broken active plan is not active");
    let skipped: Vec<_> = list
        .skipped
        .iter()
        .map(|s| (s.path.clone(), s.line))
        .collect();
    assert_eq!(
        skipped,
        [
            (plans.join("broken.md"), Some(3)),
            (plans.join("unclosed.md"), Some(1)),
        ],
        "{:?}",
        list.skipped
    );
    assert!(
        list.skipped[0].message.contains("YAML"),
        "{:?}",
        list.skipped
    );
    // The active plan's own reader still says what is wrong with it.
    let err = store.active_plan("ws").expect_err("broken active plan");
    assert_eq!(err.path(), Some(plans.join("broken.md").as_path()));

    fs::write(dir.path().join("ws/.active-plan"), "good-plan\n")?;
    assert_eq!(store.list_plans("ws")?.active.as_deref(), Some("good-plan"));
    store.complete_plan("ws", "good-plan")?;
    assert_eq!(
        store.list_plans("ws")?.active,
        None,
        "completed is not active"
    );
    Ok(())
}

/// Temp files planted in a workspace's directories are never read as data, and the next save
/// there removes them.
#[cfg(unix)]
#[test]
fn stray_temp_files_are_not_data_and_go_on_the_next_save() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let mut input = CheckpointInput::new("first");
    input.workspace = Some("ws".into());
    store.save_checkpoint(input.clone())?;
    let mut plan = PlanInput::new("P", "body\n");
    plan.workspace = Some("ws".into());
    store.save_plan(plan.clone())?;
    let day = store.day_file_path("ws", seed_time().date_naive())?;
    let checkpoints = day
        .parent()
        .ok_or("day file has a directory")?
        .to_path_buf();
    let plans = dir.path().join("ws/plans");
    let text = fs::read_to_string(&day)?;
    let planted = [
        checkpoints.join(format!(
            ".{}.123-abc-0.tmp",
            day.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        )),
        checkpoints.join(".2025-10-12.md.124-abd-1.tmp"),
        plans.join(".p.md.125-abe-2.tmp"),
    ];
    for p in &planted {
        fs::write(p, &text)?;
    }
    let range = store.read_day("ws", seed_time().date_naive())?;
    assert_eq!(range.checkpoints.len(), 1);
    assert_eq!(store.list_plans("ws")?.plans.len(), 1);

    input.description = "second".into();
    store.save_checkpoint(input)?;
    assert!(!planted[0].exists() && !planted[1].exists());
    assert!(
        planted[2].exists(),
        "only the directory written to is swept"
    );
    store.save_plan(plan)?;
    assert!(!planted[2].exists());
    assert_eq!(
        store
            .read_day("ws", seed_time().date_naive())?
            .checkpoints
            .len(),
        2
    );
    Ok(())
}
