//! Property tests: any checkpoint round-trips through a day file; any text parses.

use chrono::{DateTime, TimeZone, Utc};
use goldfish_store::{
    Actor, Checkpoint, MemoryType, Structured, format_day_file, parse_checkpoint_file,
    parse_day_bytes, parse_day_file,
};
use proptest::prelude::*;

/// Lines that look like day-file structure, mixed into descriptions on purpose.
fn tricky_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("## 10:00 - looks like a header".to_string()),
        Just("- **Tags**: not, tags".to_string()),
        Just("- **Branch**: not-a-branch".to_string()),
        Just("- **Files**: a.rs, b.rs".to_string()),
        Just("- **More files**: 3".to_string()),
        Just("- **Session**: x".to_string()),
        Just("- **Type**: decision".to_string()),
        Just("- **Alternatives**: a; b".to_string()),
        Just("- **Confidence**: 7".to_string()),
        Just("- **Supersedes**: a, , b%zz".to_string()),
        Just("- **Topic**: auth".to_string()),
        Just("## some heading".to_string()),
        Just("## Context".to_string()),
        Just("##no space".to_string()),
        Just("<!-- id: fake at: 2020-01-01T00:00:00Z -->".to_string()),
        Just("<!--".to_string()),
        Just("summary: x".to_string()),
        Just("-->".to_string()),
        Just("\\".to_string()),
        Just("# Checkpoints for 2020-01-01".to_string()),
        Just(String::new()),
        Just("   ".to_string()),
        "\\PC*",
        any::<String>().prop_map(|s| s.replace('\n', " ")),
    ]
}

/// A line Goldfish v4 could have written inside a description (it wrote them verbatim), except
/// the two shapes that are ambiguous in its format: an entry header `## HH:MM - …` and the
/// id line of our own entries.
fn v4_body_line() -> impl Strategy<Value = String> {
    tricky_line().prop_filter("not an entry header or an id line", |l| {
        let header = l.starts_with("## ")
            && l.as_bytes()
                .get(3..8)
                .is_some_and(|t| t[0].is_ascii_digit() && t[1].is_ascii_digit() && t[2] == b':');
        !header && !l.starts_with("<!-- id:") && !l.contains(['\n', '\r'])
    })
}

fn description() -> impl Strategy<Value = String> {
    prop::collection::vec(tricky_line(), 0..6).prop_map(|lines| lines.join("\n"))
}

fn timestamp() -> impl Strategy<Value = DateTime<Utc>> {
    (0i64..4_102_444_800_000)
        .prop_map(|ms| Utc.timestamp_millis_opt(ms).single().expect("in range"))
}

fn item() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("a, b\\c".to_string()),
        "[a-z/._ -]{1,12}",
        any::<String>()
    ]
}

/// A typed-field value: anything, and on purpose the characters the format escapes or
/// separates on, line breaks, and a leading `- ` that reads like a bullet.
fn typed_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("a; b\\; c".to_string()),
        Just("- **Tags**: x\n- **Type**: incident".to_string()),
        Just("line one\r\nline two\n".to_string()),
        "[a-z;, -]{1,12}",
        any::<String>(),
    ]
}

fn structured() -> impl Strategy<Value = (MemoryType, Structured)> {
    let text = || prop::option::of(typed_text());
    let list = || prop::collection::vec(typed_text(), 0..4);
    (
        prop::sample::select(MemoryType::ALL.to_vec()),
        (text(), text(), list(), text()),
        (list(), list(), text(), prop::option::of(1u8..=5), list()),
    )
        .prop_map(
            |(
                t,
                (context, decision, alternatives, impact),
                (evidence, symbols, next, confidence, unknowns),
            )| {
                let mut s = Structured::default();
                s.context = context;
                s.decision = decision;
                s.alternatives = alternatives;
                s.impact = impact;
                s.evidence = evidence;
                s.symbols = symbols;
                s.next = next;
                s.confidence = confidence;
                s.unknowns = unknowns;
                (t, s)
            },
        )
}

/// Who saved it: any text in any field, including what the format escapes.
fn actor() -> impl Strategy<Value = Actor> {
    let field = || prop::option::of(typed_text());
    (
        field(),
        field(),
        field(),
        field(),
        field(),
        field(),
        field(),
    )
        .prop_map(
            |(harness, model, session, user, git_user, git_email, host)| {
                let mut a = Actor::default();
                a.harness = harness;
                a.model = model;
                a.session = session;
                a.user = user;
                a.git_user = git_user;
                a.git_email = git_email;
                a.host = host;
                a
            },
        )
}

/// A tag: anything on one line, on purpose with the commas the tags line separates on and
/// escapes (`queue,broker` is one tag).
fn tag() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("queue,broker".to_string()),
        Just("a, b\\,c\\".to_string()),
        "[^\n\r]{0,10}",
    ]
}

/// An id a `Supersedes` bullet names: goldfish's shape, an imported one, or any text but
/// the empty string (commas, spaces and `%` included).
fn superseded_id() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("20251013T093012345Z-3fa9c1".to_string()),
        Just("a, b %zz-->".to_string()),
        "[A-Za-z0-9_.:-]{1,20}",
        "\\PC{1,10}",
    ]
}

fn checkpoint() -> impl Strategy<Value = Checkpoint> {
    (
        checkpoint_untyped(),
        structured(),
        actor(),
        prop::option::of(typed_text()),
        prop::collection::vec(superseded_id(), 0..3),
    )
        .prop_map(|(mut cp, (t, s), actor, topic, supersedes)| {
            cp.memory_type = t;
            cp.structured = s;
            cp.actor = actor;
            cp.topic = topic;
            cp.supersedes = supersedes;
            cp
        })
}

fn checkpoint_untyped() -> impl Strategy<Value = Checkpoint> {
    (
        "[A-Za-z0-9_.:-]{1,30}|\\PC{1,10}",
        timestamp(),
        description(),
        prop::collection::vec(tag(), 0..4),
        prop::option::of(any::<String>()),
        prop::option::of("[0-9a-f]{7}"),
        prop::collection::vec(item(), 0..4),
        0usize..100,
        prop::collection::btree_map("[A-Z][a-z ]{0,8}", any::<String>(), 0..3),
    )
        .prop_map(
            |(id, ts, description, tags, branch, commit, files, omitted, extra)| {
                let mut cp = Checkpoint::new(id, ts, "ws", description);
                cp.tags = tags;
                cp.branch = branch;
                cp.commit = commit;
                cp.files = files;
                cp.files_omitted = omitted;
                cp.extra = extra
                    .into_iter()
                    .filter(|(k, _)| {
                        ![
                            "Tags",
                            "Branch",
                            "Commit",
                            "Files",
                            "More files",
                            "Type",
                            "Context",
                            "Decision",
                            "Alternatives",
                            "Impact",
                            "Evidence",
                            "Symbols",
                            "Next",
                            "Confidence",
                            "Unknowns",
                            "Topic",
                            "Supersedes",
                            "Harness",
                            "Model",
                            "Session",
                            "User",
                            "Git user",
                            "Git email",
                        ]
                        .contains(&k.as_str())
                    })
                    .collect();
                cp
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_checkpoint_round_trips(cps in prop::collection::vec(checkpoint(), 1..4)) {
        // One day file per checkpoint date; all in one file when they share the first's date.
        let date = cps[0].timestamp.date_naive();
        let same_day: Vec<Checkpoint> = cps.into_iter().filter(|c| c.timestamp.date_naive() == date).collect();
        let text = format_day_file(date, &same_day);
        let back = parse_checkpoint_file(&text, "ws", date);
        prop_assert!(back.is_ok(), "{text}\n{back:?}");
        prop_assert_eq!(back.ok(), Some(same_day), "{}", text);
    }

    /// Goldfish v4 wrote descriptions verbatim: heading-like and bullet-like lines inside
    /// them are description, and only the final run of bullets is the entry's metadata.
    #[test]
    fn v4_entries_keep_structure_lookalikes_in_the_description(
        body in prop::collection::vec(v4_body_line(), 0..8),
        tags in prop::collection::vec("[a-z]{1,8}", 1..4),
        second in any::<bool>(),
    ) {
        let date = chrono::NaiveDate::from_ymd_opt(2025, 10, 13).expect("valid date");
        let mut description = String::from("title");
        for line in &body {
            description.push('\n');
            description.push_str(line);
        }
        description.push_str("\nend");
        let mut text = format!(
            "# Checkpoints for 2025-10-13\n\n## 09:00 - {description}\n\n- **Tags**: {}\n- **Branch**: main\n- **Commit**: abc1234\n",
            tags.join(", ")
        );
        if second {
            text.push_str("## 10:00 - second\n\n- **Tags**: z\n");
        }
        let day = parse_day_file(&text, "ws", date);
        prop_assert_eq!(&day.problems, &vec![], "{}", text);
        prop_assert_eq!(day.checkpoints.len(), 1 + usize::from(second), "{}", text);
        let cp = &day.checkpoints[0];
        prop_assert_eq!(&cp.description, &description, "{}", text);
        prop_assert_eq!(&cp.tags, &tags);
        prop_assert_eq!(cp.branch.as_deref(), Some("main"));
        prop_assert_eq!(cp.commit.as_deref(), Some("abc1234"));
        // Our writer keeps it unambiguous: it reads back whole in our format.
        let ours = format_day_file(date, &day.checkpoints);
        prop_assert_eq!(parse_checkpoint_file(&ours, "ws", date).ok(), Some(day.checkpoints), "{}", ours);
    }

    #[test]
    fn any_text_parses_without_panic(text in "(## [0-9:]{0,6}( - )?|<!-- id: |- \\*\\*|\\PC|\n){0,200}") {
        let date = chrono::NaiveDate::from_ymd_opt(2025, 10, 13).expect("valid date");
        let day = parse_day_file(&text, "ws", date);
        // Whatever was read formats and parses back the same.
        let again = format_day_file(date, &day.checkpoints);
        prop_assert_eq!(parse_checkpoint_file(&again, "ws", date).ok(), Some(day.checkpoints));
    }

    #[test]
    fn any_bytes_parse_without_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let date = chrono::NaiveDate::from_ymd_opt(2025, 10, 13).expect("valid date");
        let _ = parse_day_bytes(&bytes, "ws", date);
    }
}
