//! Properties of the checkpoint-file parser: it never panics, and a well-formed file reads
//! back the fields it was written with.

use goldfish_memories::{MemoryType, parse_brief_file, parse_memory_file};
use proptest::prelude::*;
use serde::Serialize;

/// What JavaScript's `trim` removes (Goldfish trims descriptions and list items with it).
fn js_trim(s: &str) -> &str {
    s.trim_matches(|c: char| (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}')
}

#[derive(Serialize)]
struct Front {
    id: String,
    timestamp: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
    #[serde(rename = "briefId", skip_serializing_if = "Option::is_none")]
    brief_id: Option<String>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    memory_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    alternatives: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    confidence: Option<u8>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    symbols: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    impact: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    evidence: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unknowns: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    git: Option<Git>,
    #[serde(skip_serializing_if = "Option::is_none")]
    actor: Option<Actor>,
}

#[derive(Serialize, Clone, Debug)]
struct Git {
    branch: String,
    commit: String,
    worktree: String,
    files: Vec<String>,
}

#[derive(Serialize, Clone, Debug)]
struct Actor {
    harness: String,
    model: String,
    git_email: String,
}

/// Text without control characters other than newline and tab, any length up to 40.
fn text() -> impl Strategy<Value = String> {
    "[\\PC\n\t]{0,40}"
}

/// A non-empty single-line value without surrounding white space.
fn word() -> impl Strategy<Value = String> {
    "[\\PC]{1,20}".prop_filter("trimmed and non-empty", |s| {
        js_trim(s) == s.as_str() && !s.is_empty()
    })
}

fn yamlish() -> impl Strategy<Value = String> {
    let pieces = prop::collection::vec(
        prop_oneof![
            Just("---\n".to_string()),
            Just("id: x\n".to_string()),
            Just("timestamp: 2026-05-04T00:00:00Z\n".to_string()),
            Just("tags:\n  - a\n".to_string()),
            Just("git:\n  files:\n    - f\n".to_string()),
            Just("confidence: 4.5\n".to_string()),
            Just("context: |-\n  x\n  ---\n".to_string()),
            Just("\r\n".to_string()),
            Just("[{&*!|>'\"%@`".to_string()),
            "\\PC{0,10}",
        ],
        0..12,
    );
    pieces.prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parsing_never_panics(text in any::<String>(), yaml in yamlish()) {
        let _ = parse_memory_file(&text);
        let _ = parse_memory_file(&yaml);
        let _ = parse_brief_file(&text);
        let _ = parse_brief_file(&yaml);
    }

    #[test]
    fn a_well_formed_file_reads_back_its_fields(
        id in "checkpoint_[0-9a-f]{8}(_[1-9])?",
        millis in 0i64..4_102_444_800_000,
        tags in prop::collection::vec(text(), 0..5),
        brief in prop::option::of("[a-z0-9-]{1,20}"),
        kind in prop::option::of(0usize..4),
        context in prop::option::of(word()),
        alternatives in prop::collection::vec(word(), 0..4),
        next in prop::option::of(word()),
        confidence in prop::option::of(1u8..=5),
        symbols in prop::collection::vec(word(), 0..3),
        body in text(),
        crlf in any::<bool>(),
        (decision, impact, summary) in (
            // Not blank: the YAML writer used here puts a value of only line breaks in a
            // `|+` block holding nothing but empty lines, which the YAML reader returns as
            // "" (so the field reads as absent): a serde-saphyr round-trip quirk, left alone.
            prop::option::of(text().prop_filter("not blank", |s| !s.trim().is_empty())),
            prop::option::of(word()),
            prop::option::of(word()),
        ),
        (evidence, unknowns) in (
            prop::collection::vec(word(), 0..3),
            prop::collection::vec(word(), 0..3),
        ),
        git in prop::option::of((word(), "[0-9a-f]{7}", word(), prop::collection::vec(word(), 1..4))
            .prop_map(|(branch, commit, worktree, files)| Git { branch, commit, worktree, files })),
        actor in prop::option::of((word(), word(), word())
            .prop_map(|(harness, model, git_email)| Actor { harness, model, git_email })),
    ) {
        let timestamp = chrono::DateTime::from_timestamp_millis(millis).expect("in range");
        let front = Front {
            id: id.clone(),
            timestamp: timestamp.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
            tags: tags.clone(),
            brief_id: brief.clone(),
            memory_type: kind.map(|k| MemoryType::ALL[k].as_str()),
            context: context.clone(),
            alternatives: alternatives.clone(),
            next: next.clone(),
            confidence,
            symbols: symbols.clone(),
            decision: decision.clone(),
            impact: impact.clone(),
            evidence: evidence.clone(),
            unknowns: unknowns.clone(),
            summary: summary.clone(),
            git: git.clone(),
            actor: actor.clone(),
        };
        let yaml = serde_saphyr::to_string(&front).expect("serializable");
        let body = if crlf { body.replace('\n', "\r\n") } else { body };
        let file = format!("---\n{}\n---\n\n{body}\n", yaml.trim_end());
        let (record, unmapped) = parse_memory_file(&file)
            .map_err(|e| TestCaseError::fail(format!("{e:?}\n{file}")))?;
        prop_assert!(unmapped.is_empty(), "{unmapped:?}");
        prop_assert_eq!(&record.id, &id);
        prop_assert_eq!(record.timestamp, timestamp);
        let want_tags: Vec<String> = tags
            .iter()
            .map(|t| js_trim(t))
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect();
        prop_assert_eq!(&record.tags, &want_tags);
        prop_assert_eq!(&record.brief_id, &brief);
        prop_assert_eq!(record.memory_type, kind.map(|k| MemoryType::ALL[k]));
        prop_assert_eq!(&record.structured.context, &context);
        prop_assert_eq!(&record.structured.alternatives, &alternatives);
        prop_assert_eq!(&record.structured.next, &next);
        prop_assert_eq!(record.structured.confidence, confidence);
        prop_assert_eq!(&record.structured.symbols, &symbols);
        prop_assert_eq!(&record.structured.decision, &decision);
        prop_assert_eq!(&record.structured.impact, &impact);
        prop_assert_eq!(&record.structured.evidence, &evidence);
        prop_assert_eq!(&record.structured.unknowns, &unknowns);
        prop_assert_eq!(&record.summary, &summary);
        let got_git = record.git.as_ref().map(|g| {
            (g.branch.clone(), g.commit.clone(), g.worktree.clone(), g.files.clone())
        });
        let want_git = git.map(|g| (Some(g.branch), Some(g.commit), Some(g.worktree), g.files));
        prop_assert_eq!(got_git, want_git);
        let got_actor = record.actor.as_ref().map(|a| {
            (a.harness.clone(), a.model.clone(), a.git_email.clone(), a.user.clone())
        });
        let want_actor = actor.map(|a| (Some(a.harness), Some(a.model), Some(a.git_email), None));
        prop_assert_eq!(got_actor, want_actor);
        let lf = body.replace("\r\n", "\n");
        prop_assert_eq!(record.description.as_str(), js_trim(&lf));
    }
}
