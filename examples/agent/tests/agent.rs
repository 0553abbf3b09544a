//! Runs the example agent's binary in a temporary directory, with an empty environment, and
//! checks what it reports and the files it leaves; and that its source reads no process state.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Runs the agent with `args` and no environment variable at all (no `HOME`, no
/// `GOLDFISH_HOME`, no `PATH`): whatever it needs must come from its argument.
fn agent(args: &[&Path]) -> std::io::Result<Output> {
    Command::new(env!("CARGO_BIN_EXE_goldfish-example-agent"))
        .args(args)
        .env_clear()
        .output()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The contents of every file directly in `dir` whose name ends with `suffix`, in name order.
fn files_ending(dir: &Path, suffix: &str) -> std::io::Result<Vec<(PathBuf, String)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.is_some_and(|n| n.ends_with(suffix) && !n.starts_with('.')) {
            let content = std::fs::read_to_string(&path)?;
            found.push((path, content));
        }
    }
    found.sort();
    Ok(found)
}

/// The names in `dir`, sorted; those starting with a dot (locks, caches) left out unless
/// `dots`.
fn names(dir: &Path, dots: bool) -> std::io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if dots || !name.starts_with('.') {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// Fails, showing `text`, unless it contains every one of `parts`.
fn assert_contains_all(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "{part:?} not in:\n{text}");
    }
}

#[test]
fn runs_the_seven_tasks_with_an_empty_environment() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let dir = tmp.path().join("run");
    let out = agent(&[&dir])?;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stderr, "");

    // What it reports.
    assert_contains_all(
        &stdout,
        &[
            "1. save typed checkpoints",
            "redacted 1 secret: aws-access-key-id",
            "keyword \"migratoin\": 1 found",
            "\"migratoin\" matched \"migration\"",
            "question: 2 found\n      decision   Retry backoff: exponential with full jitter",
            "learnings about \"database\": 1 found\n      learning   The staging database refuses",
            "by meaning (lexical + semantic): 1 found\n      decision   Retry backoff: exponential",
            "lexical rank none, semantic rank #1",
            "status active, the workspace's active plan: none",
            "unchecked 1 item: 1/3 done",
            "the workspace's active plan is retry-backoff-rollout",
            "issue ENG-42, stage SCOPE: 1 completed, 1 in progress, 1 decision(s), 1 file(s)",
            "REVIEW -> BUILD  on review-changes-requested",
            "ended DONE after 6 transitions, 1 retry",
            "failure 3 of \"patch every call site\"",
            "a fourth attempt is refused (MutationRequired)",
            "mutation M5 (Reduce Scope)",
            "1 correction(s), 1 pattern(s)",
            "missing plan: NotFound, file ",
            "empty search: NothingToSearch",
            "no notes: NotFound, io Some(NotFound)",
            "bad signal: InvalidSignal { kind: BuildComplete } at line 1, column",
            "all 7 tasks done",
        ],
    );
    let store = dir.join("store");
    let project = dir.join("project");
    let missing_plan = store.join("example-agent/plans/no-such-plan.md");
    assert!(stdout.contains(&format!("file {}", missing_plan.display())));

    // The day file(s) hold the typed checkpoints, the secret replaced.
    let days = files_ending(&store.join("example-agent/checkpoints"), ".md")?;
    assert!(!days.is_empty() && days.len() <= 2, "{days:?}"); // two if saved across midnight
    let day: String = days.into_iter().map(|(_, text)| text).collect();
    assert_contains_all(
        &day,
        &[
            "- **Type**: decision\n- **Decision**: Exponential backoff from 100 ms to 30 s, full jitter\n\
             - **Alternatives**: Fixed 1 s delay; Linear backoff\n- **Confidence**: 4\n",
            "- **Type**: incident\n- **Impact**: Every user was logged out\n",
            "replayed with key [REDACTED:aws-access-key-id]",
            "- **Type**: learning\n",
            "- **Next**: Run it on production after the load test\n",
            "- **Harness**: goldfish-example-agent ",
        ],
    );
    assert_eq!(day.matches("## ").count(), 4, "{day}");
    assert!(!day.contains("AKIAIOSFODNN7EXAMPLE"));
    // Recall's caches beside the day files: the index, and the vectors of the agent's model.
    for cache in ["example-agent.gfi", "example-agent.gfv"] {
        assert!(store.join(".index").join(cache).is_file(), "no {cache}");
    }

    // The plan: its checkboxes as the agent left them, and activated.
    let plan = std::fs::read_to_string(store.join("example-agent/plans/retry-backoff-rollout.md"))?;
    assert!(
        plan.ends_with(
            "\n## Steps\n- [x] Backoff helper with jitter\n- [ ] Use it in the HTTP client\n\
             - [ ] Load test against staging\n"
        ),
        "{plan}"
    );
    assert!(plan.contains("\nstatus: active\n"), "{plan}");
    let active = std::fs::read_to_string(store.join("example-agent/.active-plan"))?;
    assert_eq!(active.trim(), "retry-backoff-rollout");

    // GOBLIN_NOTES.md, whose stage the pipeline moved to DONE.
    let notes = std::fs::read_to_string(project.join(".goblin/GOBLIN_NOTES.md"))?;
    assert_contains_all(
        &notes,
        &[
            "Issue: ENG-42\nStage: DONE\n",
            "- [x] Completed: Wrote the backoff helper\n",
            "- [ ] In Progress: Use the helper in the HTTP client\n",
            "- Full jitter: spreads retries out after an outage\n",
            "- `src/retry.rs` - exponential backoff with jitter\n",
        ],
    );

    // The pipeline's state: DONE, after a retry; no signal file left behind.
    let state = std::fs::read_to_string(project.join(".goblin/pipeline.json"))?;
    assert_contains_all(
        &state,
        &[
            "\"stage\": \"DONE\"",
            "\"retries\": 1",
            "\"signal\": \"review-changes-requested\"",
            "\"signal\": \"test-passed\"",
        ],
    );
    assert_eq!(state.matches("\"from\":").count(), 6, "{state}");
    let goblin = names(&project.join(".goblin"), false)?;
    assert_eq!(goblin, ["GOBLIN_NOTES.md", "pipeline.json"]);

    // The journal, and its archive beside the store (not a workspace of it).
    let journal = std::fs::read_to_string(project.join("JOURNAL.md"))?;
    assert!(
        journal.starts_with("# JOURNAL — retry-backoff\n"),
        "{journal}"
    );
    assert_eq!(journal.matches("❌ Failed").count(), 3, "{journal}");
    assert!(
        journal.contains("## MUTATION: M5 (Reduce Scope)\nFailed 3x on: patch every call site\n")
    );
    let archive = store.join(".self-improving");
    let copies = files_ending(&archive.join("journals"), ".md")?;
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert_eq!(copies[0].1, journal);
    let corrections = std::fs::read_to_string(archive.join("corrections.md"))?;
    assert!(
        corrections.contains("one retry layer in the HTTP client"),
        "{corrections}"
    );
    let patterns = std::fs::read_to_string(archive.join("patterns.jsonl"))?;
    assert_eq!(patterns.lines().count(), 1, "{patterns}");
    assert!(patterns.contains("\"code\":\"M5\""), "{patterns}");
    assert!(patterns.contains("\"outcome\":\"success\""), "{patterns}");

    // The store holds one workspace; everything else it has is a dot directory.
    assert_eq!(names(&store, false)?, ["example-agent"]);
    // And nothing was written outside the directory it was given.
    assert_eq!(names(tmp.path(), true)?, ["run"]);
    Ok(())
}

#[test]
fn refuses_a_directory_that_is_not_empty() -> TestResult {
    let tmp = tempfile::tempdir()?;
    std::fs::write(tmp.path().join("keep.txt"), "mine")?;
    let out = agent(&[tmp.path()])?;
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("{} is not empty", tmp.path().display())),
        "{stderr}"
    );
    assert_eq!(text(&out.stdout), "");
    assert_eq!(names(tmp.path(), true)?, ["keep.txt"]);
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("keep.txt"))?,
        "mine"
    );
    Ok(())
}

#[test]
fn a_file_for_a_directory_is_an_error_naming_it() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let file = tmp.path().join("file");
    std::fs::write(&file, "")?;
    let out = agent(&[&file])?;
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "goldfish-example-agent: cannot use {}: ",
            file.display()
        )),
        "{stderr}"
    );
    Ok(())
}

#[test]
fn without_one_directory_it_prints_its_usage() -> TestResult {
    for args in [&[][..], &[Path::new("a"), Path::new("b")][..]] {
        let out = agent(args)?;
        assert_eq!(out.status.code(), Some(2));
        assert!(text(&out.stderr).starts_with("usage: goldfish-example-agent DIR"));
        assert_eq!(text(&out.stdout), "");
    }
    Ok(())
}

/// What reads the process's state, beside the arguments: environment variables, the current
/// directory, the home directory, and the libraries' `from_env` constructors built on them.
const READS: [&str; 7] = [
    "env::var",
    "env::vars",
    "current_dir",
    "home_dir",
    "from_env",
    "set_current_dir",
    "env!(\"HOME",
];

/// Each line of code (not a comment) in `source` that reads process state, as `line: text`.
fn reads(source: &str) -> Vec<String> {
    source
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .filter(|(_, line)| READS.iter().any(|r| line.contains(r)))
        .map(|(i, line)| format!("{}: {}", i + 1, line.trim()))
        .collect()
}

#[test]
fn the_checker_finds_reads_in_code_not_in_comments() {
    let source = "\
// Never Store::from_env: it reads $GOLDFISH_HOME.
let home = std::env::var_os(\"HOME\");
let store = Store::from_env()?;
let dir = std::env::current_dir()?;
let args = std::env::args_os();
";
    assert_eq!(
        reads(source),
        [
            "2: let home = std::env::var_os(\"HOME\");",
            "3: let store = Store::from_env()?;",
            "4: let dir = std::env::current_dir()?;",
        ]
    );
}

#[test]
fn the_agent_reads_no_environment_variable_and_no_current_directory() -> TestResult {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = files_ending(&src, ".rs")?;
    assert!(files.len() >= 9, "{} source files", files.len());
    let mut found = Vec::new();
    for (path, source) in &files {
        found.extend(
            reads(source)
                .into_iter()
                .map(|r| format!("{}:{r}", path.display())),
        );
    }
    assert!(
        found.is_empty(),
        "the agent reads process state:\n{}",
        found.join("\n")
    );
    Ok(())
}

/// The lines of `text`, trimmed, blank ones left out: what an excerpt must match.
fn code_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

/// The ```rust blocks of a markdown text.
fn rust_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim()) {
            (None, "```rust") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// Whether `block` is an excerpt of `source`: its parts, separated by `// …` lines, each
/// appear in `source` line for line (indentation aside), in order.
fn is_excerpt(block: &str, source: &str) -> bool {
    let source = code_lines(source);
    let lines = code_lines(block);
    let mut from = 0;
    for part in lines.split(|l| *l == "// …") {
        let found = (from..=source.len().saturating_sub(part.len()))
            .find(|&i| source.get(i..i + part.len()) == Some(part));
        match found {
            Some(i) => from = i + part.len(),
            None => return false,
        }
    }
    true
}

#[test]
fn the_excerpt_checker_wants_every_part_in_order() {
    let source = "fn a() {\n    one();\n    two();\n}\n\nfn b() {\n    three();\n}\n";
    assert!(is_excerpt("one();\ntwo();\n// …\nthree();\n", source));
    assert!(is_excerpt("  fn b() {\n      three();\n", source));
    assert!(!is_excerpt("three();\n// …\none();\n", source));
    assert!(!is_excerpt("one();\nthree();\n", source));
    assert!(!is_excerpt("one();\n// …\nfour();\n", source));
    assert_eq!(
        rust_blocks("text\n```rust\nx();\n```\n```sh\nls\n```\n"),
        ["x();\n"]
    );
}

/// The guide (README.md) quotes the example's code: each of its Rust blocks is an excerpt of
/// one file of `src/`, so what it shows is what this crate's test runs.
#[test]
fn the_guide_quotes_the_source() -> TestResult {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let guide = std::fs::read_to_string(root.join("README.md"))?;
    let sources = files_ending(&root.join("src"), ".rs")?;
    let blocks = rust_blocks(&guide);
    assert!(blocks.len() >= 9, "{} Rust blocks", blocks.len());
    for block in &blocks {
        assert!(
            sources.iter().any(|(_, source)| is_excerpt(block, source)),
            "this block of README.md is not in src/:\n{block}"
        );
    }
    Ok(())
}
