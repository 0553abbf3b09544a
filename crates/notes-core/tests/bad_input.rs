//! Bad input: never a panic; an error naming file and line, or a lenient read; writes never
//! destroy what was not understood.

use std::fs;
use std::path::{Path, PathBuf};

use notes_core::{Notes, NotesManager, Stage};

use crate::{TestResult, read_fixture};

fn worktree_with(bytes: &[u8]) -> Result<(tempfile::TempDir, PathBuf), std::io::Error> {
    let dir = tempfile::tempdir()?;
    let path = NotesManager::path(dir.path());
    fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
    fs::write(&path, bytes)?;
    Ok((dir, path))
}

#[test]
fn not_utf8_names_file_and_line_and_is_left_alone() -> TestResult {
    let mut bytes = read_fixture("seed_build.md")?.into_bytes();
    bytes.splice(40..40, [0xff, 0xfe]);
    let (dir, path) = worktree_with(&bytes)?;
    for err in [
        NotesManager::read(dir.path()).expect_err("not UTF-8"),
        NotesManager::update(dir.path(), |n| n.set_stage(Stage::Done)).expect_err("not UTF-8"),
        NotesManager::write(
            dir.path(),
            &Notes::parse(&read_fixture("seed_initial.md")?)?,
        )
        .expect_err("refuses to overwrite"),
    ] {
        assert!(err.is_invalid_utf8(), "{err}");
        assert_eq!(err.line(), Some(3));
        assert_eq!(err.path(), Some(path.as_path()));
        assert!(err.to_string().contains("GOBLIN_NOTES.md"), "{err}");
    }
    assert_eq!(fs::read(&path)?, bytes, "the file is untouched");
    Ok(())
}

#[test]
fn every_truncation_parses_or_names_a_line() -> TestResult {
    let text = read_fixture("seed_build.md")?;
    for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
        match Notes::parse(&text[..cut]) {
            Ok(notes) => {
                let again = Notes::parse(&notes.format())?;
                assert_eq!(again.format(), notes.format(), "stable after cut at {cut}");
            }
            Err(e) => {
                let line = e.line().ok_or("parse errors name a line")?;
                assert!(
                    line >= 1 && line <= text[..cut].lines().count().max(1),
                    "cut {cut}: {e}"
                );
            }
        }
    }
    Ok(())
}

#[test]
fn truncated_stage_line_names_file_and_line() -> TestResult {
    let (dir, path) = worktree_with(b"# GOBLIN_NOTES\nIssue: ENG-1\nStage: BUI")?;
    let err = NotesManager::read(dir.path()).expect_err("BUI is not a stage");
    assert!(err.is_parse());
    assert_eq!(err.line(), Some(3));
    assert!(
        err.to_string()
            .starts_with(&format!("{}:3: ", path.display())),
        "{err}"
    );
    let err = NotesManager::update(dir.path(), |_| ()).expect_err("not parseable");
    assert!(err.is_parse(), "{err}");
    assert_eq!(
        fs::read_to_string(&path)?,
        "# GOBLIN_NOTES\nIssue: ENG-1\nStage: BUI"
    );
    Ok(())
}

#[test]
fn duplicated_sections_are_read_leniently_and_kept() -> TestResult {
    let text = "# GOBLIN_NOTES\nIssue: A\nStage: BUILD\nLast Updated: 2024-01-15T10:30:00Z\n\
        ## Current Objective\nO\n## Key Decisions\n- first: one\n## Key Decisions\n- second: two\n\
        ## Progress Log\n(None yet)\n## Files Changed\n(None yet)\n## Context for Next Session\nC\n\
        Issue: B\n";
    let notes = Notes::parse(text)?;
    assert_eq!(notes.decisions.len(), 1);
    assert_eq!(notes.decisions[0].decision, "first");
    assert_eq!(
        notes.context, "C\nIssue: B",
        "header-like lines in a section are text"
    );
    let warning = &notes.warnings()[0];
    assert_eq!(warning.line, 9);
    assert!(warning.message.contains("Key Decisions"), "{warning}");
    assert_eq!(notes.format(), text, "the repeat is kept verbatim");

    let (dir, path) = worktree_with(text.as_bytes())?;
    NotesManager::update(dir.path(), |n| n.add_decision("third", "three"))?;
    let after = fs::read_to_string(&path)?;
    assert!(
        after.contains("## Key Decisions\n- second: two\n"),
        "{after}"
    );
    assert!(after.contains("- first: one\n- third: three\n"), "{after}");
    Ok(())
}

#[test]
fn lenient_reads_fill_in_what_is_missing() -> TestResult {
    let cases = [
        ("# GOBLIN_NOTES\n", ""),
        ("Issue: X\n", "X"),
        ("## Key Decisions\n- a: b\n", ""),
        (
            "# GOBLIN_NOTES\nIssue: Y\nsome stray line\n## Progress Log\n- [x] done\n",
            "Y",
        ),
    ];
    for (text, issue) in cases {
        let notes = Notes::parse(text)?;
        assert_eq!(notes.issue, issue, "{text:?}");
        assert!(
            !notes.warnings().is_empty(),
            "{text:?} reports what was missing"
        );
        let formatted = notes.format();
        for heading in [
            "## Current Objective",
            "## Progress Log",
            "## Context for Next Session",
        ] {
            assert!(formatted.contains(heading), "{formatted}");
        }
        let again = Notes::parse(&formatted)?;
        assert_eq!(again, notes, "{formatted}");
        assert_eq!(again.format(), formatted);
    }
    Ok(())
}

#[test]
fn write_of_fresh_notes_keeps_hand_added_sections() -> TestResult {
    let text = read_fixture("hand_edited.md")?;
    let (dir, path) = worktree_with(text.as_bytes())?;
    let fresh = Notes::new("ENG-456", Stage::Test, "Test it", chrono::Utc::now());
    NotesManager::write(dir.path(), &fresh)?;
    let after = fs::read_to_string(&path)?;
    for kept in [
        "Owner: ada (hand-added header line)\n",
        "## Blockers\n\n- Waiting on staging credentials from ops.\n",
        "# not a heading: a shell comment\n",
        "### Open questions (hand-added subsection)\n",
    ] {
        assert!(after.contains(kept), "{kept:?} missing from:\n{after}");
    }
    let notes = NotesManager::read(dir.path())?;
    assert_eq!(notes.stage, Stage::Test);
    assert_eq!(notes.issue, "ENG-456");
    Ok(())
}

#[test]
fn missing_file_is_not_found_and_creates_nothing() -> TestResult {
    let dir = tempfile::tempdir()?;
    let err = NotesManager::read(dir.path()).expect_err("no file");
    assert!(err.is_not_found(), "{err}");
    let err = NotesManager::update(dir.path(), |_| ()).expect_err("no file");
    assert!(err.is_not_found(), "{err}");
    assert!(err.to_string().contains("create the notes first"), "{err}");
    assert!(!dir.path().join(".goblin").exists());
    Ok(())
}

/// Found by the `sections` fuzz target: with lone CR line endings pulldown-cmark reads
/// "```\r-\r" as a setext heading, but once an LF body is spliced in it reads the whole text as
/// a code fence. The splice itself must still be exact, and nothing may panic.
#[test]
fn lone_cr_setext_heading_splices_exactly() -> TestResult {
    let text = "```\r-\r`\r-";
    let doc = goldfish_core::Document::parse(text);
    assert_eq!(doc.parts().collect::<String>(), text);
    let first = doc
        .sections()
        .first()
        .ok_or("pulldown-cmark reports a heading here")?;
    let (start, end) = (first.body_range.start, first.body_range.end);
    let mut edited = doc.clone();
    edited.replace_section_body(0, "replaced\n");
    assert_eq!(
        edited.as_str(),
        format!("{}replaced\n{}", &text[..start], &text[end..])
    );
    let reparsed = goldfish_core::Document::parse(edited.as_str());
    assert_eq!(reparsed.parts().collect::<String>(), edited.as_str());
    Ok(())
}
