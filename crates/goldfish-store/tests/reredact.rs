//! `Store::redact_stored`: today's redaction over the files already stored — a leak written
//! by hand or by an older version, and text wrapped in `<private>` tags afterwards — reported
//! per file by kind, rewritten only with `apply`, and idempotent.

use std::fs;

use goldfish_store::goldfish_redact::Kind;
use goldfish_store::{CheckpointInput, KindCount, PlanInput, Store, StoredFile, StoredFileKind};

use crate::TestResult;

const AWS: &str = "AKIAIOSFODNN7EXAMPLE";

#[test]
fn stored_leaks_are_reported_then_rewritten_once() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::open(dir.path().join("store"))?;
    let mut input = CheckpointInput::new("shipped the billing fix\n\nbody line here");
    input.workspace = Some("shop".into());
    let saved = store.save_checkpoint(input)?;
    let mut plan = PlanInput::new("Billing", "- [ ] ship");
    plan.workspace = Some("shop".into());
    let plan = store.save_plan(plan)?;
    let day = store.day_file_path("shop", saved.timestamp.date_naive())?;
    let plan_path = store
        .workspace_dir("shop")?
        .join("plans")
        .join(format!("{}.md", plan.id));

    // A leak and a private span written by hand (an editor, an older goldfish).
    let text = fs::read_to_string(&day)?;
    let leaked = text.replace(
        "body line here",
        &format!("body line here with {AWS} for <private>the customer Initech</private>\n<private>unclosed Initech line"),
    );
    fs::write(&day, &leaked)?;
    let plan_text = fs::read_to_string(&plan_path)?;
    fs::write(
        &plan_path,
        plan_text.replace("- [ ] ship", &format!("- [ ] ship {AWS}")),
    )?;
    // A worktree's journal, which the store does not know of.
    let worktree = dir.path().join("wt");
    fs::create_dir_all(&worktree)?;
    let journal = worktree.join("JOURNAL.md");
    fs::write(
        &journal,
        "# Journal\n\n- called <private>Initech</private>\n",
    )?;
    let also = [
        StoredFile::new(&journal, StoredFileKind::Journal),
        StoredFile::new(
            worktree.join(".goblin/GOBLIN_NOTES.md"),
            StoredFileKind::Notes,
        ),
    ];

    // Report only: counts by kind, never the text, nothing written.
    let report = store.redact_stored(&also, false)?;
    assert!(!report.applied);
    assert_eq!(report.scanned, 3, "{report:?}");
    let found: Vec<(StoredFileKind, Vec<KindCount>)> = report
        .files
        .iter()
        .map(|f| (f.kind, f.found.clone()))
        .collect();
    let count = |kind, count| KindCount { kind, count };
    assert!(
        found.contains(&(
            StoredFileKind::DayFile,
            vec![
                count(Kind::Private, 1),
                count(Kind::PrivateUnclosed, 1),
                count(Kind::AwsAccessKeyId, 1)
            ]
        )),
        "{found:?}"
    );
    assert!(found.contains(&(StoredFileKind::Plan, vec![count(Kind::AwsAccessKeyId, 1)])));
    assert!(found.contains(&(StoredFileKind::Journal, vec![count(Kind::Private, 1)])));
    assert!(
        report
            .files
            .iter()
            .all(|f| !f.rewritten && f.error.is_none())
    );
    assert!(!format!("{report:?}").contains("Initech"));
    assert_eq!(fs::read_to_string(&day)?, leaked, "a report wrote the file");

    // Apply: every file rewritten, the checkpoint still there, the index's workspace named.
    let report = store.redact_stored(&also, true)?;
    assert_eq!(report.rewritten(), 3, "{report:?}");
    assert_eq!(report.workspaces_changed, ["shop"]);
    for path in [&day, &plan_path, &journal] {
        let text = fs::read_to_string(path)?;
        assert!(!text.contains("Initech") && !text.contains(AWS), "{text}");
        assert!(!text.contains("<private>"), "{text}");
    }
    let day_text = fs::read_to_string(&day)?;
    assert!(day_text.contains("body line here with [REDACTED:aws-access-key-id] for [REDACTED:private]\n[REDACTED:private-unclosed]"), "{day_text}");
    let back = store.checkpoints_for_day("shop", saved.timestamp.date_naive())?;
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].id, saved.id);
    assert_eq!(
        store.get_plan("shop", &plan.id)?.content,
        "- [ ] ship [REDACTED:aws-access-key-id]"
    );

    // Again: nothing left, nothing written.
    let before = fs::metadata(&day)?.modified()?;
    let again = store.redact_stored(&also, true)?;
    assert!(again.files.is_empty(), "{again:?}");
    assert_eq!(again.scanned, 3);
    assert_eq!(fs::metadata(&day)?.modified()?, before);
    Ok(())
}

#[test]
fn a_rewrite_that_would_lose_a_checkpoint_is_refused() -> TestResult {
    let dir = tempfile::tempdir()?;
    let store = Store::open(dir.path().join("store"))?;
    let mut input = CheckpointInput::new("first");
    input.workspace = Some("shop".into());
    let saved = store.save_checkpoint(input)?;
    let day = store.day_file_path("shop", saved.timestamp.date_naive())?;
    // A private span opened before a checkpoint's header and closed on it: redacted, the
    // file would hold one checkpoint fewer.
    let text = fs::read_to_string(&day)?;
    let header_line = text
        .lines()
        .find(|l| l.starts_with("## "))
        .ok_or("header")?;
    let broken = text.replace(
        header_line,
        &format!("<private>note\n{header_line}</private>"),
    );
    fs::write(&day, &broken)?;
    let report = store.redact_stored(&[], true)?;
    assert_eq!(report.files.len(), 1, "{report:?}");
    let file = &report.files[0];
    assert!(!file.rewritten);
    assert!(
        file.error
            .as_deref()
            .is_some_and(|e| e.contains("no longer read back the same checkpoints")),
        "{file:?}"
    );
    assert!(report.has_errors());
    assert_eq!(
        fs::read_to_string(&day)?,
        broken,
        "a refused file was written"
    );
    Ok(())
}
