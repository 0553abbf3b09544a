//! Keeps the evaluation sets written before any ranking was looked at honest (see
//! `eval/README.md`): every file parses, every expected id is a checkpoint of the
//! natural-language corpus (and of the workspace the line names), ids are unique per line, the
//! counts hold, the query forms repeat `nl_queries.jsonl`'s questions verbatim and the dated
//! set's spans hold the timestamps of their answers. Each check returns the problems it found,
//! so the tests at the end can show that a wrong line is caught.
//!
//! Nothing here ranks: the sets are checked against the corpus as text.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use serde_json::Value;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const CORPUS: &str = include_str!("fixtures/nl_corpus.jsonl");
const NL_QUERIES: &str = include_str!("fixtures/nl_queries.jsonl");
const KEYWORD: &str = include_str!("fixtures/nl_keyword_queries.jsonl");
const DATED: &str = include_str!("fixtures/nl_dated_queries.jsonl");
const FORMS: &str = include_str!("fixtures/nl_query_forms.jsonl");
const PAIRS: &str = include_str!("fixtures/same_subject_pairs.jsonl");

const WORKSPACES: [&str; 6] = ["gitoxide", "jiff", "regex", "ripgrep", "goldfish", "nucleo"];

/// What the checks need of a corpus checkpoint.
struct Entry {
    workspace: String,
    timestamp: DateTime<Utc>,
}

/// The natural-language corpus by id.
fn corpus() -> Result<HashMap<String, Entry>, Box<dyn std::error::Error>> {
    let mut out = HashMap::new();
    for line in CORPUS.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)?;
        let id = v["id"].as_str().ok_or("corpus line without id")?;
        let workspace = v["workspace"]
            .as_str()
            .ok_or("corpus line without workspace")?;
        let timestamp = v["timestamp"]
            .as_str()
            .ok_or("corpus line without timestamp")?;
        let entry = Entry {
            workspace: workspace.to_string(),
            timestamp: DateTime::parse_from_rfc3339(timestamp)?.with_timezone(&Utc),
        };
        out.insert(id.to_string(), entry);
    }
    Ok(out)
}

/// The non-empty lines of a JSONL text, numbered from 1, parsed; a line that does not parse
/// is a problem naming the file and line.
fn lines(name: &str, text: &str, problems: &mut Vec<String>) -> Vec<(usize, Value)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(v) => out.push((i + 1, v)),
            Err(e) => problems.push(format!("{name}:{}: does not parse: {e}", i + 1)),
        }
    }
    out
}

fn str_field<'a>(v: &'a Value, key: &str, at: &str, problems: &mut Vec<String>) -> Option<&'a str> {
    let s = v[key].as_str();
    if s.is_none_or(|s| s.trim().is_empty()) {
        problems.push(format!("{at}: no `{key}`"));
        return None;
    }
    s
}

/// The `expect` ids of a line, checked: a non-empty array of strings (when `nonempty`), no id
/// twice, each a corpus checkpoint, of `workspace` when one is given.
fn expect_ids(
    v: &Value,
    at: &str,
    workspace: Option<&str>,
    nonempty: bool,
    corpus: &HashMap<String, Entry>,
    problems: &mut Vec<String>,
) -> Vec<String> {
    let Some(arr) = v["expect"].as_array() else {
        problems.push(format!("{at}: `expect` is not an array"));
        return Vec::new();
    };
    if nonempty && arr.is_empty() {
        problems.push(format!("{at}: `expect` is empty"));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for id in arr {
        let Some(id) = id.as_str() else {
            problems.push(format!("{at}: an expected id is not a string"));
            continue;
        };
        if !seen.insert(id) {
            problems.push(format!("{at}: {id} expected twice"));
        }
        match corpus.get(id) {
            None => problems.push(format!("{at}: {id} is no corpus checkpoint")),
            Some(e) => {
                if let Some(ws) = workspace
                    && e.workspace != ws
                {
                    problems.push(format!("{at}: {id} is of {}, not {ws}", e.workspace));
                }
            }
        }
        out.push(id.to_string());
    }
    out
}

fn workspace<'a>(v: &'a Value, at: &str, problems: &mut Vec<String>) -> Option<&'a str> {
    let ws = str_field(v, "workspace", at, problems)?;
    if !WORKSPACES.contains(&ws) {
        problems.push(format!("{at}: unknown workspace {ws}"));
        return None;
    }
    Some(ws)
}

fn kind_in(v: &Value, at: &str, kinds: &[&str], problems: &mut Vec<String>) -> Option<String> {
    let kind = str_field(v, "kind", at, problems)?;
    if !kinds.contains(&kind) {
        problems.push(format!("{at}: kind {kind} is none of {kinds:?}"));
        return None;
    }
    Some(kind.to_string())
}

/// `nl_keyword_queries.jsonl`: at least `min` queries of 3–6 words over all six workspaces.
fn check_keyword(text: &str, corpus: &HashMap<String, Entry>, min: usize) -> Vec<String> {
    let mut p = Vec::new();
    let rows = lines("nl_keyword_queries.jsonl", text, &mut p);
    let mut spread = HashSet::new();
    for (n, v) in &rows {
        let at = format!("nl_keyword_queries.jsonl:{n}");
        kind_in(v, &at, &["keyword", "typo", "identifier"], &mut p);
        if let Some(q) = str_field(v, "query", &at, &mut p) {
            let words = q.split_whitespace().count();
            if !(3..=6).contains(&words) {
                p.push(format!("{at}: {words} words, not 3-6"));
            }
        }
        let ws = workspace(v, &at, &mut p);
        if let Some(ws) = ws {
            spread.insert(ws.to_string());
        }
        expect_ids(v, &at, ws, true, corpus, &mut p);
    }
    if rows.len() < min {
        p.push(format!(
            "nl_keyword_queries.jsonl: {} queries, fewer than {min}",
            rows.len()
        ));
    }
    if spread.len() < WORKSPACES.len() {
        p.push(format!(
            "nl_keyword_queries.jsonl: only workspaces {spread:?}"
        ));
    }
    p
}

fn instant(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// `nl_dated_queries.jsonl`: a `{"now"}` header after every checkpoint of the workspaces the
/// set uses, then at least `min` questions; a span is `from` before `to`, relative spans end
/// by `now`, and every expected id's timestamp lies in `[from, to)`.
fn check_dated(text: &str, corpus: &HashMap<String, Entry>, min: usize) -> Vec<String> {
    let mut p = Vec::new();
    let rows = lines("nl_dated_queries.jsonl", text, &mut p);
    let Some(((_, header), rows)) = rows.split_first() else {
        p.push("nl_dated_queries.jsonl: empty".to_string());
        return p;
    };
    let Some(now) = header["now"].as_str().and_then(instant) else {
        p.push("nl_dated_queries.jsonl:1: no header {\"now\": <RFC 3339>}".to_string());
        return p;
    };
    let mut used = HashSet::new();
    for (n, v) in rows {
        let at = format!("nl_dated_queries.jsonl:{n}");
        let kind = kind_in(v, &at, &["when", "relative", "absolute", "ordinal"], &mut p);
        str_field(v, "query", &at, &mut p);
        let ws = workspace(v, &at, &mut p);
        if let Some(ws) = ws {
            used.insert(ws.to_string());
        }
        let ids = expect_ids(v, &at, ws, true, corpus, &mut p);
        if v.get("span").is_none() {
            if kind.as_deref() == Some("relative") || kind.as_deref() == Some("absolute") {
                p.push(format!("{at}: a {kind:?} question without its span"));
            }
            continue;
        }
        let (Some(from), Some(to)) = (
            v["span"]["from"].as_str().and_then(instant),
            v["span"]["to"].as_str().and_then(instant),
        ) else {
            p.push(format!("{at}: span without RFC 3339 `from` and `to`"));
            continue;
        };
        if from >= to {
            p.push(format!("{at}: span from {from} is not before {to}"));
        }
        if kind.as_deref() == Some("relative") && to > now {
            p.push(format!("{at}: relative span ends at {to}, after now {now}"));
        }
        for id in &ids {
            if let Some(e) = corpus.get(id)
                && !(from <= e.timestamp && e.timestamp < to)
            {
                p.push(format!("{at}: {id} at {} is outside its span", e.timestamp));
            }
        }
    }
    for (id, e) in corpus {
        if used.contains(&e.workspace) && e.timestamp >= now {
            p.push(format!(
                "nl_dated_queries.jsonl:1: now {now} is not after {id}"
            ));
        }
    }
    if rows.len() < min {
        p.push(format!(
            "nl_dated_queries.jsonl: {} questions, fewer than {min}",
            rows.len()
        ));
    }
    p
}

/// `nl_query_forms.jsonl`: one line per `question` of `nl_queries.jsonl`, in its order, with
/// its query and expect verbatim, 3–5 keywords and a question of its own.
fn check_forms(text: &str, nl_queries: &str) -> Vec<String> {
    let mut p = Vec::new();
    let questions: Vec<Value> = lines("nl_queries.jsonl", nl_queries, &mut p)
        .into_iter()
        .map(|(_, v)| v)
        .filter(|v| v["kind"] == "question")
        .collect();
    let rows = lines("nl_query_forms.jsonl", text, &mut p);
    if rows.len() != questions.len() {
        p.push(format!(
            "nl_query_forms.jsonl: {} lines for {} questions",
            rows.len(),
            questions.len()
        ));
    }
    for ((n, v), q) in rows.iter().zip(&questions) {
        let at = format!("nl_query_forms.jsonl:{n}");
        if v["query"] != q["query"] {
            p.push(format!(
                "{at}: query is not the question {} verbatim",
                q["query"]
            ));
        }
        if v["expect"] != q["expect"] {
            p.push(format!("{at}: expect is not the question's"));
        }
        if let Some(k) = str_field(v, "keywords", &at, &mut p) {
            let words = k.split_whitespace().count();
            if !(3..=5).contains(&words) {
                p.push(format!("{at}: {words} keywords, not 3-5"));
            }
        }
        if let Some(other) = str_field(v, "question", &at, &mut p)
            && Some(other) == q["query"].as_str()
        {
            p.push(format!("{at}: the rephrased question is the original"));
        }
    }
    p
}

/// `same_subject_pairs.jsonl`: at least `min` pairs, half of them the same subject; `same` is
/// true exactly for duplicates and reversals.
fn check_pairs(text: &str, corpus: &HashMap<String, Entry>, min: usize) -> Vec<String> {
    let mut p = Vec::new();
    let rows = lines("same_subject_pairs.jsonl", text, &mut p);
    let kinds = ["duplicate", "reversal", "followup", "related", "unrelated"];
    let mut same = 0;
    for (n, v) in &rows {
        let at = format!("same_subject_pairs.jsonl:{n}");
        if let Some(id) = str_field(v, "existing", &at, &mut p)
            && !corpus.contains_key(id)
        {
            p.push(format!("{at}: {id} is no corpus checkpoint"));
        }
        str_field(&v["new"], "description", &at, &mut p);
        let tags_ok = v["new"]["tags"]
            .as_array()
            .is_some_and(|t| t.iter().all(Value::is_string));
        if !tags_ok {
            p.push(format!("{at}: new.tags is not an array of strings"));
        }
        let kind = kind_in(v, &at, &kinds, &mut p);
        let Some(is_same) = v["same"].as_bool() else {
            p.push(format!("{at}: `same` is not a boolean"));
            continue;
        };
        same += usize::from(is_same);
        if let Some(kind) = kind
            && is_same != (kind == "duplicate" || kind == "reversal")
        {
            p.push(format!("{at}: kind {kind} with same: {is_same}"));
        }
    }
    if rows.len() < min {
        p.push(format!(
            "same_subject_pairs.jsonl: {} pairs, fewer than {min}",
            rows.len()
        ));
    }
    let other = rows.len() - same;
    if same.abs_diff(other) > 2 {
        p.push(format!(
            "same_subject_pairs.jsonl: {same} same against {other} not, not half"
        ));
    }
    p
}

fn assert_clean(problems: &[String]) {
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn eval_sets_keyword_set_holds() -> TestResult {
    assert_clean(&check_keyword(KEYWORD, &corpus()?, 70));
    Ok(())
}

#[test]
fn eval_sets_dated_set_holds() -> TestResult {
    assert_clean(&check_dated(DATED, &corpus()?, 40));
    Ok(())
}

#[test]
fn eval_sets_query_forms_repeat_every_question() {
    assert_clean(&check_forms(FORMS, NL_QUERIES));
    assert_eq!(FORMS.lines().filter(|l| !l.trim().is_empty()).count(), 68);
}

#[test]
fn eval_sets_same_subject_pairs_hold() -> TestResult {
    assert_clean(&check_pairs(PAIRS, &corpus()?, 80));
    Ok(())
}

/// The first line of `text` holding `needle`, with it replaced by `with`.
fn spoil(text: &str, needle: &str, with: &str) -> String {
    let mut done = false;
    text.lines()
        .map(|l| {
            if !done && l.contains(needle) {
                done = true;
                l.replacen(needle, with, 1)
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn eval_sets_checks_catch_wrong_lines() -> TestResult {
    let corpus = corpus()?;
    // An id that is no checkpoint, and one of another workspace.
    let first = KEYWORD.lines().next().ok_or("empty keyword set")?;
    let v: Value = serde_json::from_str(first)?;
    let id = v["expect"][0].as_str().ok_or("no first id")?;
    let bad = spoil(KEYWORD, id, "ripgrep@2000-01-01T00:00:00Z#0000000");
    assert!(!check_keyword(&bad, &corpus, 70).is_empty());
    let other = corpus
        .iter()
        .find(|(_, e)| e.workspace != v["workspace"])
        .map(|(id, _)| id.clone())
        .ok_or("one workspace only")?;
    assert!(!check_keyword(&spoil(KEYWORD, id, &other), &corpus, 70).is_empty());
    // The same id twice on a line.
    assert!(
        !check_keyword(&spoil(KEYWORD, id, &format!("{id}\", \"{id}")), &corpus, 70).is_empty()
    );
    // Too few queries.
    assert!(!check_keyword(KEYWORD, &corpus, 1000).is_empty());
    // A span that misses its answer: the first span's end moved before its start.
    let dated: Vec<&str> = DATED.lines().collect();
    let line = dated
        .iter()
        .find(|l| l.contains("\"span\""))
        .ok_or("no span")?;
    let v: Value = serde_json::from_str(line)?;
    let from = v["span"]["from"].as_str().ok_or("no from")?;
    let moved = spoil(
        DATED,
        &format!("\"from\": \"{from}\""),
        "\"from\": \"2030-01-01T00:00:00Z\"",
    );
    assert!(!check_dated(&moved, &corpus, 40).is_empty());
    // A clock before the newest checkpoint.
    let early = spoil(DATED, "\"now\": \"2026-", "\"now\": \"2020-");
    assert!(!check_dated(&early, &corpus, 40).is_empty());
    // A question that is no longer verbatim.
    assert!(
        !check_forms(
            &spoil(FORMS, "?\", \"keywords\"", "!\", \"keywords\""),
            NL_QUERIES
        )
        .is_empty()
    );
    // A pair whose `same` disagrees with its kind.
    let flipped = spoil(PAIRS, "\"same\": true", "\"same\": false");
    assert!(!check_pairs(&flipped, &corpus, 80).is_empty());
    Ok(())
}
