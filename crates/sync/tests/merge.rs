//! The pure merges: properties over random day files, and plan merges by example.

use std::collections::{BTreeMap, BTreeSet};

use goldfish_store::chrono::{NaiveDate, TimeDelta};
use goldfish_store::{Checkpoint, Plan, format_day_file, format_plan, parse_day_file, parse_plan};
use goldfish_sync::{
    MERGE_CONFLICT_TAG, MergeOutcome, has_merge_conflict, merge_day_file, merge_file, merge_plan,
};
use proptest::prelude::*;

use crate::util::{TestResult, at};

const WS: &str = "ws";

pub(crate) fn date() -> NaiveDate {
    NaiveDate::from_ymd_opt(2025, 10, 13).expect("date")
}

/// One entry of a random scenario: on which sides it is, and who edited it.
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    pub(crate) millis: i64,
    description: String,
    tags: Vec<String>,
    pub(crate) in_base: bool,
    pub(crate) in_ours: bool,
    pub(crate) in_theirs: bool,
    pub(crate) ours_edit: Option<String>,
    pub(crate) theirs_edit: Option<String>,
}

pub(crate) fn spec() -> impl Strategy<Value = Spec> {
    (
        0i64..86_400_000,
        "[A-Za-z][A-Za-z #*-]{0,20}(\n[a-z #]{0,12}){0,2}",
        proptest::collection::vec("[a-z]{1,6}", 0..3),
        any::<(bool, bool, bool)>(),
        proptest::option::of("[a-z ]{1,10}"),
        proptest::option::of("[A-Z ]{1,10}"),
    )
        .prop_map(|(millis, description, tags, (b, o, t), oe, te)| Spec {
            millis,
            description,
            tags,
            in_base: b,
            in_ours: o || !(b || t),
            in_theirs: t,
            ours_edit: oe,
            theirs_edit: te,
        })
}

pub(crate) fn checkpoint(i: usize, spec: &Spec, edit: Option<&String>) -> Checkpoint {
    let start = at("2025-10-13T00:00:00Z");
    let mut c = Checkpoint::new(
        format!("20251013-{i:03}"),
        start + TimeDelta::milliseconds(spec.millis),
        WS,
        match edit {
            Some(e) => format!("{} {e}", spec.description),
            None => spec.description.clone(),
        },
    );
    c.tags = spec.tags.clone();
    c
}

pub(crate) fn day(mut entries: Vec<Checkpoint>) -> String {
    entries.sort_by_key(|c| c.timestamp);
    format_day_file(date(), &entries)
}

fn ids(text: &str) -> Vec<String> {
    let parsed = parse_day_file(text, WS, date());
    assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
    parsed.checkpoints.into_iter().map(|c| c.id).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The union minus three-way deletions, every edit kept, the other version of a double
    /// edit preserved as a note; the result parses, is in time order, and is deterministic.
    #[test]
    fn day_file_merge_is_the_union(specs in proptest::collection::vec(spec(), 0..14)) {
        let (mut base, mut ours, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
        let mut expected: BTreeMap<String, String> = BTreeMap::new();
        let mut notes: BTreeMap<String, String> = BTreeMap::new();
        for (i, s) in specs.iter().enumerate() {
            let original = checkpoint(i, s, None);
            // Edits only make sense for entries that were in the base.
            let oe = s.ours_edit.as_ref().filter(|_| s.in_base);
            let te = s.theirs_edit.as_ref().filter(|_| s.in_base);
            let o = checkpoint(i, s, oe);
            let t = checkpoint(i, s, te);
            if s.in_base { base.push(original.clone()); }
            if s.in_ours { ours.push(o.clone()); }
            if s.in_theirs { theirs.push(t.clone()); }
            let id = original.id.clone();
            match (s.in_base, s.in_ours, s.in_theirs) {
                (_, true, true) => {
                    match (oe, te) {
                        (Some(_), Some(_)) if o != t => {
                            expected.insert(id.clone(), o.description.clone());
                            notes.insert(format!("{id}.merge-conflict"), t.description.clone());
                        }
                        (None, Some(_)) => { expected.insert(id, t.description.clone()); }
                        _ => { expected.insert(id, o.description.clone()); }
                    }
                }
                // Deleted on one side: gone unless the other side edited it.
                (true, true, false) if oe.is_some() => { expected.insert(id, o.description.clone()); }
                (true, false, true) if te.is_some() => { expected.insert(id, t.description.clone()); }
                (false, true, false) => { expected.insert(id, o.description.clone()); }
                (false, false, true) => { expected.insert(id, t.description.clone()); }
                _ => {}
            }
        }
        let (b, o, t) = (day(base), day(ours), day(theirs));
        let merged = merge_day_file(&b, &o, &t, WS, date()).expect("merges");
        let text = String::from_utf8(merged.text.clone()).expect("utf8");
        let parsed = parse_day_file(&text, WS, date());
        prop_assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        let mut got: BTreeMap<String, String> = BTreeMap::new();
        let mut got_notes: BTreeMap<String, String> = BTreeMap::new();
        for c in &parsed.checkpoints {
            if c.tags.iter().any(|t| t == MERGE_CONFLICT_TAG) {
                got_notes.insert(c.id.clone(), c.description.clone());
            } else {
                got.insert(c.id.clone(), c.description.clone());
            }
        }
        prop_assert_eq!(&got, &expected);
        prop_assert_eq!(&got_notes, &notes);
        let times: Vec<_> = parsed.checkpoints.iter().map(|c| c.timestamp).collect();
        let mut sorted = times.clone();
        sorted.sort();
        prop_assert_eq!(times, sorted);
        let count = notes.len();
        let outcome = if count == 0 { MergeOutcome::Clean } else { MergeOutcome::Preserved { count } };
        prop_assert_eq!(&merged.outcome, &outcome);
        // Deterministic, and the same through the path-dispatching entry point.
        let again = merge_file("ws/checkpoints/2025-10-13.md", b.as_bytes(), o.as_bytes(), t.as_bytes(), &|_| None)
            .expect("merges");
        prop_assert_eq!(&again.text, &merged.text);
        // Swapping the sides merges the same set of ids.
        let swapped = merge_day_file(&b, &t, &o, WS, date()).expect("merges");
        let swapped_ids: BTreeSet<String> = ids(&String::from_utf8(swapped.text).expect("utf8")).into_iter().collect();
        let merged_ids: BTreeSet<String> = ids(&text).into_iter().collect();
        prop_assert_eq!(swapped_ids, merged_ids);
        // Merging the result with itself changes nothing.
        let idem = merge_file("ws/checkpoints/2025-10-13.md", &merged.text, &merged.text, &merged.text, &|_| None)
            .expect("merges");
        prop_assert_eq!(&idem.text, &merged.text);
    }

    /// merge(x, x, x) == x, byte for byte, for any bytes and any kind of path.
    #[test]
    fn merging_a_file_with_itself_is_the_file(
        bytes in proptest::collection::vec(any::<u8>(), 0..200),
        path in prop_oneof![
            Just("ws/checkpoints/2025-10-13.md"), Just("ws/plans/p.md"), Just("ws/.active-plan"),
            Just("JOURNAL.md"), Just("other.txt")
        ],
    ) {
        let merged = merge_file(path, &bytes, &bytes, &bytes, &|_| None).expect("trivial merge");
        prop_assert_eq!(merged.text, bytes);
        prop_assert_eq!(merged.outcome, MergeOutcome::Clean);
    }

    /// Append-only logs: both sides' appended blocks are all there, ours first, none twice.
    #[test]
    fn append_only_keeps_every_block(
        base in proptest::collection::vec("[a-z]{1,8}", 0..4),
        ours in proptest::collection::vec("[a-m]{1,8}", 0..4),
        theirs in proptest::collection::vec("[n-z]{1,8}", 0..4),
    ) {
        let text = |blocks: &[String]| blocks.iter().map(|b| format!("{b}\n\n")).collect::<String>();
        let b = text(&base);
        let o = format!("{b}{}", text(&ours));
        let t = format!("{b}{}", text(&theirs));
        let merged = goldfish_sync::merge_append_only(&b, &o, &t);
        prop_assert!(merged.starts_with(&o));
        for block in ours.iter().chain(&theirs) {
            prop_assert!(merged.contains(&format!("{block}\n")), "{} missing", block);
        }
        let want = merged.len();
        prop_assert_eq!(goldfish_sync::merge_append_only(&b, &o, &t).len(), want);
    }
}

#[test]
fn unreadable_day_file_is_unmergeable() {
    let good = day(vec![]);
    let bad = format!("{good}\nnot an entry\n");
    let result = merge_day_file(&good, &bad, &format!("{good}\n## 10:00 - x\n"), WS, date());
    let err = result.expect_err("garbage cannot be merged by meaning");
    assert!(err.reason.contains("line"), "{}", err.reason);
}

fn plan(now: &str, content: &str) -> Plan {
    Plan::new("p", "The plan", content, WS, at(now))
}

#[test]
fn plans_merge_per_key_and_body() -> TestResult {
    let mut base = plan(
        "2025-10-01T00:00:00Z",
        "- [ ] one\n- [ ] two\n- [ ] three\n",
    );
    base.extra.insert("owner".into(), serde_json_value("ann"));
    let mut ours = base.clone();
    ours.updated = at("2025-10-02T00:00:00Z");
    ours.content = "- [x] one\n- [ ] two\n- [ ] three\n".into();
    ours.title = "Ours renamed it".into();
    ours.extra.insert("mine".into(), serde_json_value("1"));
    let mut theirs = base.clone();
    theirs.updated = at("2025-10-03T00:00:00Z");
    theirs.content = "- [ ] one\n- [ ] two\n- [x] three\n".into();
    theirs.tags = vec!["theirs".into()];
    theirs.extra.remove("owner");
    theirs.extra.insert("yours".into(), serde_json_value("2"));
    let merged = merge_plan(
        &format_plan(&base),
        &format_plan(&ours),
        &format_plan(&theirs),
        WS,
        "p",
    )
    .map_err(|e| e.reason)?;
    assert_eq!(merged.outcome, MergeOutcome::Clean);
    let got = parse_plan(std::str::from_utf8(&merged.text)?, WS, "p")?;
    assert_eq!(got.content, "- [x] one\n- [ ] two\n- [x] three\n");
    assert_eq!(got.title, "Ours renamed it");
    assert_eq!(got.tags, ["theirs"]);
    assert_eq!(got.updated, theirs.updated);
    assert!(
        !got.extra.contains_key("owner"),
        "removed on one side, unchanged on the other"
    );
    assert!(got.extra.contains_key("mine") && got.extra.contains_key("yours"));
    assert!(!has_merge_conflict(&got));

    // Both renamed: the newer `updated` wins.
    let mut theirs2 = theirs.clone();
    theirs2.title = "Theirs renamed it".into();
    let merged = merge_plan(
        &format_plan(&base),
        &format_plan(&ours),
        &format_plan(&theirs2),
        WS,
        "p",
    )
    .map_err(|e| e.reason)?;
    let got = parse_plan(std::str::from_utf8(&merged.text)?, WS, "p")?;
    assert_eq!(got.title, "Theirs renamed it");
    Ok(())
}

#[test]
fn plan_body_conflict_keeps_both_texts_and_reads() -> TestResult {
    let base = plan("2025-10-01T00:00:00Z", "Intro\n\n- [ ] step\n");
    let mut ours = base.clone();
    ours.content = "Intro\n\n- [ ] step, done our way\n".into();
    ours.updated = at("2025-10-02T00:00:00Z");
    let mut theirs = base.clone();
    theirs.content = "Intro\n\n- [ ] step, done their way\n".into();
    theirs.updated = at("2025-10-02T00:00:01Z");
    let merged = merge_plan(
        &format_plan(&base),
        &format_plan(&ours),
        &format_plan(&theirs),
        WS,
        "p",
    )
    .map_err(|e| e.reason)?;
    assert_eq!(merged.outcome, MergeOutcome::PlanConflict);
    let text = String::from_utf8(merged.text)?;
    let got = parse_plan(&text, WS, "p")?;
    assert!(has_merge_conflict(&got));
    assert!(got.content.contains("done our way") && got.content.contains("done their way"));
    assert!(got.content.starts_with("Intro\n"));
    crate::util::assert_no_markers(&text, std::path::Path::new("p.md"));
    // Merging it again with itself keeps it as it is.
    let again = merge_plan(&text, &text, &text, WS, "p").map_err(|e| e.reason)?;
    assert_eq!(String::from_utf8(again.text)?, text);
    Ok(())
}

#[test]
fn plan_added_on_both_sides_without_base() -> TestResult {
    let ours = plan("2025-10-02T00:00:00Z", "- [ ] a\n");
    let theirs = plan("2025-10-03T00:00:00Z", "- [ ] a\n");
    let merged = merge_plan("", &format_plan(&ours), &format_plan(&theirs), WS, "p")
        .map_err(|e| e.reason)?;
    assert_eq!(merged.outcome, MergeOutcome::Clean);
    let got = parse_plan(std::str::from_utf8(&merged.text)?, WS, "p")?;
    assert_eq!(got.updated, theirs.updated);
    Ok(())
}

fn serde_json_value(s: &str) -> serde_json::Value {
    serde_json::Value::String(s.to_string())
}

#[test]
fn goblin_notes_changed_on_both_sides_still_read() -> TestResult {
    use notes_core::{Notes, Stage};
    let mut base = Notes::new("#7", Stage::Build, "Ship sync", at("2025-10-13T09:00:00Z"));
    base.add_completed_step("Wrote the driver");
    let mut ours = base.clone();
    ours.add_completed_step("Ours: tests");
    ours.add_decision("Use merge-tree", "no half-merged work tree");
    ours.touch(at("2025-10-13T10:00:00Z"));
    let mut theirs = base.clone();
    theirs.add_completed_step("Theirs: docs");
    theirs.set_stage(Stage::Review);
    theirs.touch(at("2025-10-13T11:00:00Z"));
    let (b, o, t) = (base.format(), ours.format(), theirs.format());
    let merged = merge_file(
        ".goblin/GOBLIN_NOTES.md",
        b.as_bytes(),
        o.as_bytes(),
        t.as_bytes(),
        &|_| None,
    )
    .map_err(|e| e.reason)?;
    let text = String::from_utf8(merged.text)?;
    let notes = Notes::parse(&text)?;
    let steps: Vec<&str> = notes.completed_steps().collect();
    for step in ["Wrote the driver", "Ours: tests", "Theirs: docs"] {
        assert!(
            steps.iter().any(|s| s.contains(step)) || text.contains(step),
            "{step}\n{text}"
        );
    }
    assert!(text.contains("Use merge-tree"));
    Ok(())
}
