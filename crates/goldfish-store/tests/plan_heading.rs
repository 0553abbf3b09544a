//! Plan bodies as Goldfish v4 wrote and read them: the content is the whole body after the
//! frontmatter, a leading `# Title` heading included, and rewrites keep it byte for byte.

use chrono::{TimeZone, Utc};
use goldfish_store::{Plan, PlanStatus, PlanUpdate, format_plan, parse_plan};
use proptest::prelude::*;

use crate::{TestResult, store_at};

/// The body of a plan file: everything after the closing `---` line.
fn body_of(text: &str) -> &str {
    let after_open = text.strip_prefix("---\n").unwrap_or(text);
    after_open
        .split_once("\n---\n")
        .map_or(after_open, |(_, body)| body)
}

#[test]
fn hand_written_first_heading_survives_update_complete_activate() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let plans = dir.path().join("t/plans");
    std::fs::create_dir_all(&plans)?;
    let path = plans.join("p.md");
    let content = "# Phase 1\n- [ ] do x\n";
    std::fs::write(
        &path,
        format!(
            "---\nid: p\ntitle: My plan\nstatus: active\ncreated: 2025-10-13T09:00:00Z\n---\n\n{content}"
        ),
    )?;
    assert_eq!(store.get_plan("t", "p")?.content, content);

    let mut update = PlanUpdate::default();
    update.tags = Some(vec!["x".into()]);
    for step in ["update", "complete", "activate"] {
        let plan = match step {
            "update" => store.update_plan("t", "p", update.clone())?,
            "complete" => store.complete_plan("t", "p")?,
            _ => store.activate_plan("t", "p")?,
        };
        assert_eq!(plan.title, "My plan", "{step}");
        assert_eq!(plan.content, content, "{step}");
        let text = std::fs::read_to_string(&path)?;
        assert_eq!(body_of(&text), format!("\n{content}"), "{step}: {text}");
        assert_eq!(store.get_plan("t", "p")?, plan, "{step}");
    }
    assert_eq!(store.get_plan("t", "p")?.status, PlanStatus::Active);
    Ok(())
}

#[test]
fn title_heading_body_is_rewritten_byte_for_byte() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _) = store_at(dir.path())?;
    let plans = dir.path().join("t/plans");
    std::fs::create_dir_all(&plans)?;
    let path = plans.join("p.md");
    let body = "\n# My plan\n\n# Phase 1\n- [ ] do x\n\n# Phase 2\n";
    std::fs::write(
        &path,
        format!(
            "---\nid: p\n# a frontmatter comment\ntitle: My plan\ncreated: 2025-10-13T09:00:00Z\n---\n{body}"
        ),
    )?;
    let plan = store.complete_plan("t", "p")?;
    assert_eq!(
        plan.content,
        "# My plan\n\n# Phase 1\n- [ ] do x\n\n# Phase 2\n"
    );
    let text = std::fs::read_to_string(&path)?;
    assert_eq!(body_of(&text), body, "{text}");
    // Documented: frontmatter comments are not preserved on rewrite.
    assert!(!text.contains("# a frontmatter comment"), "{text}");
    Ok(())
}

fn plan(title: &str, content: &str) -> Plan {
    let t = Utc
        .with_ymd_and_hms(2025, 10, 13, 9, 0, 0)
        .single()
        .expect("valid time");
    Plan::new("p", title, content, "ws", t)
}

/// Titles, including ones that need YAML quoting and ones that look like markdown.
fn title() -> impl Strategy<Value = String> {
    "[A-Za-z0-9#:'\"-]([A-Za-z0-9 #:'\"-]{0,15}[A-Za-z0-9#:'\"-])?"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A file written by hand (or by v4) as frontmatter + `# heading` + content: the content
    /// is all of it, heading included, whatever the heading says, and parse → format → parse
    /// loses nothing.
    #[test]
    fn the_body_is_the_content_heading_included(
        t in title(),
        other in title(),
        same in any::<bool>(),
        content in "(\\PC|\n|\r\n|# |#){0,60}",
    ) {
        let heading = if same { t.clone() } else { other };
        let formatted = format_plan(&plan(&t, ""));
        let front_end = formatted.find("\n---\n").map(|i| i + 5);
        prop_assert!(front_end.is_some(), "{}", formatted);
        let front = &formatted[..front_end.unwrap_or(0)];
        let text = format!("{front}\n# {heading}\n{content}");
        let parsed = parse_plan(&text, "ws", "p");
        prop_assert!(parsed.is_ok(), "{text}\n{parsed:?}");
        let Ok(parsed) = parsed else { return Ok(()) };
        prop_assert_eq!(&parsed.title, &t);
        prop_assert_eq!(&parsed.content, &format!("# {heading}\n{content}"), "{}", text);
        let again = format_plan(&parsed);
        prop_assert_eq!(body_of(&again), format!("\n# {heading}\n{content}"));
        let back = parse_plan(&again, "ws", "p");
        prop_assert_eq!(back.ok(), Some(parsed), "{}", again);
    }
}
