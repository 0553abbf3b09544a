//! Property tests: section split/join identity on any string; Notes format → parse identity
//! on arbitrary values; formatting is idempotent on arbitrary markdown-like input.

use proptest::prelude::*;

use goldfish_core::Document;

use notes_core::{Decision, FileChange, Notes, Stage, Step, StepStatus};

/// Fragments that stress the escaping and the markdown structure.
const FRAGMENTS: &[&str] = &[
    "#",
    "## ",
    "- [x] ",
    "- [ ] ",
    "Completed: ",
    "In Progress: ",
    "Pending: ",
    "`",
    "``",
    "\n",
    "\r",
    "\r\n",
    "\\",
    ": ",
    " - ",
    "(None yet)",
    "## Key Decisions",
    "---",
    "===",
    "```",
    "~~~",
    "<!--",
    "-->",
    "<div>",
    " ",
    "\t",
    "é",
    "😀",
    "a",
    "word",
    "-",
    "> ",
    "    ",
    "Issue: ",
    "Stage: ",
    "\u{0}",
    "[x]",
];

fn tricky_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(prop::sample::select(FRAGMENTS), 0..12).prop_map(|v| v.concat()),
    ]
}

fn markdown_lines() -> impl Strategy<Value = String> {
    const LINES: &[&str] = &[
        "# GOBLIN_NOTES\n",
        "Issue: X-1\n",
        "Stage: BUILD\n",
        "Last Updated: 2024-01-15T10:30:00Z\n",
        "## Current Objective\n",
        "## Progress Log\n",
        "## Key Decisions\n",
        "## Files Changed\n",
        "## Context for Next Session\n",
        "## Blockers\n",
        "### Sub\n",
        "- [x] Completed: a\n",
        "- [ ] Pending: b\n",
        "- d: r\n",
        "- `p` - d\n",
        "(None yet)\n",
        "text\n",
        "\n",
        "---\n",
        "===\n",
        "```\n",
        "<!--\n",
        "  indented\n",
        "Owner: z\n",
        "- \n",
        "\r\n",
        "> quote\n",
        "---\ntitle: x\n---\n",
        "no newline",
    ];
    prop::collection::vec(prop::sample::select(LINES), 0..24).prop_map(|v| v.concat())
}

fn timestamp() -> impl Strategy<Value = chrono::DateTime<chrono::Utc>> {
    (0i64..4_102_444_800_000)
        .prop_map(|ms| chrono::DateTime::from_timestamp_millis(ms).expect("in range"))
}

fn notes() -> impl Strategy<Value = Notes> {
    let status = prop::sample::select(
        &[
            StepStatus::Completed,
            StepStatus::InProgress,
            StepStatus::Pending,
        ][..],
    );
    (
        (
            tricky_text(),
            prop::sample::select(&Stage::ALL[..]),
            timestamp(),
            tricky_text(),
        ),
        prop::collection::vec((status, tricky_text()), 0..6),
        prop::collection::vec((tricky_text(), tricky_text()), 0..5),
        prop::collection::vec((tricky_text(), tricky_text()), 0..5),
        tricky_text(),
    )
        .prop_map(
            |((issue, stage, t, objective), steps, decisions, files, context)| {
                let mut n = Notes::new(issue, stage, objective, t);
                n.progress = steps
                    .into_iter()
                    .map(|(s, text)| Step::new(s, text))
                    .collect();
                n.decisions = decisions
                    .into_iter()
                    .map(|(decision, reason)| Decision { decision, reason })
                    .collect();
                n.files_changed = files
                    .into_iter()
                    .map(|(path, description)| FileChange { path, description })
                    .collect();
                n.context = context;
                n
            },
        )
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

proptest! {
    // 256 cases by default; PROPTEST_CASES=20000 for a longer hunt.
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn sections_join_to_the_input(text in prop_oneof![any::<String>(), markdown_lines()]) {
        let doc = Document::parse(&text);
        prop_assert_eq!(doc.parts().collect::<String>(), text.clone());
        let mut at = doc.preamble_range().end;
        for s in doc.sections() {
            prop_assert_eq!(s.heading_range.start, at);
            prop_assert_eq!(s.heading_range.end, s.body_range.start);
            at = s.body_range.end;
        }
        prop_assert_eq!(at, text.len());
    }

    #[test]
    fn splicing_a_body_keeps_everything_else(text in markdown_lines(), body in tricky_text()) {
        let doc = Document::parse(&text);
        if let Some(last) = doc.sections().len().checked_sub(1) {
            let before = doc.as_str()[..doc.sections()[last].body_range.start].to_string();
            let mut edited = doc.clone();
            edited.replace_section_body(last, &body);
            prop_assert!(edited.as_str().starts_with(&before));
            prop_assert!(edited.as_str().ends_with(&body));
        }
    }

    #[test]
    fn notes_format_parse_identity(notes in notes()) {
        let text = notes.format();
        let back = Notes::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&back, &notes, "{}", text);
        prop_assert_eq!(back.format(), text);
    }

    #[test]
    fn formatting_is_idempotent(text in prop_oneof![markdown_lines(), tricky_text(), markdown_lines().prop_flat_map(|a| tricky_text().prop_map(move |b| format!("{a}{b}")))]) {
        if let Ok(first) = Notes::parse(&text) {
            let f1 = first.format();
            let second = Notes::parse(&f1).map_err(|e| TestCaseError::fail(format!("{e}\n{f1}")))?;
            let f2 = second.format();
            prop_assert_eq!(&f2, &f1);
            prop_assert_eq!(Notes::parse(&f2).ok(), Some(second.clone()));
            // Edits through the API keep it readable.
            let mut edited = second;
            edited.add_decision("x: y", "a\nb");
            edited.add_file_changed("`odd` path", "");
            edited.add_completed_step("# step");
            // Whatever a person left in the file, an edited value is either written so that
            // it reads back equal, or refused (NotesManager writes through format_checked).
            if let Ok(f3) = edited.format_checked() {
                prop_assert_eq!(Notes::parse(&f3).ok(), Some(edited), "{}", f3);
            }
        }
    }
}

/// Inputs the property hunts found; kept as permanent cases.
#[test]
fn found_cases_are_stable() -> crate::TestResult {
    let cases = [
        "## Key Decisions\n- [ ] Pending: b\n---\ntitle: x\n---\n- d: r\n### Sub\n",
        "## Key Decisions\n- `p` - d\n(None yet)\n  indented\n- `p` - d\n",
        "# GOBLIN_NOTES\n# GOBLIN_NOTES\n## Context for Next Session\n## Files Changed\n```\n\
         - [x] Completed: a\n(None yet)\n- [ ] Pending: b\n\r\n- [x] Completed: a\n# GOBLIN_NOTES\n",
        "# GOBLIN_NOTES\n---\n",
    ];
    for text in cases {
        let f1 = Notes::parse(text)?.format();
        let f2 = Notes::parse(&f1)?.format();
        assert_eq!(f2, f1, "{text:?}");
    }
    Ok(())
}
