//! LoCoMo (Maharana et al., ACL 2024: ten very long conversations with judged questions) as a
//! recall benchmark, as memory tools publish theirs. The data, `eval/locomo/locomo10.json` at
//! the repository's root, is the benchmark's own file (see `eval/locomo/README.md`).
//!
//! - **Checkpoints**: every observation of every session (a sentence such as "Caroline
//!   attended an LGBTQ support group recently…", with the dialogue ids it comes from), one
//!   workspace per conversation, timestamped from its session's date (a second apart in
//!   order).
//! - **Questions**: every question of categories 1–4 with its evidence dialogue ids;
//!   category 5 (adversarial: the premise is false, nothing should answer) is left out. The
//!   expected checkpoints are the observations made from an evidence dialogue; a question
//!   none of whose evidence has an observation is left out and counted.
//! - **Rankers**, each over the question's own conversation: the engine (`search` with the
//!   default options), plain BM25 and BM25 + Porter (`baseline.rs`).
//! - **Halves**: settings are chosen on conversations 1–5 only (the tuning half); 6–10 are
//!   held back and reported on their own, then the whole.
//!
//! Run with `cargo test -p goldfish-recall --test all locomo -- --nocapture` for the table.

use std::collections::HashSet;

use chrono::{NaiveDateTime, TimeDelta};
use goldfish_recall::SearchOptions;
use goldfish_store::Checkpoint;
use serde_json::Value;

use crate::baseline::{Bm25, Figures, Judged, engine, figures, header, row};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// One conversation: its observations as checkpoints and its judged questions.
pub(crate) struct Conversation {
    pub(crate) id: String,
    pub(crate) checkpoints: Vec<Checkpoint>,
    pub(crate) questions: Vec<Judged>,
    /// Questions left out because no observation carries their evidence.
    pub(crate) unanswerable: usize,
}

/// `D3:12` and the like, however a list of them is written (`D8:6; D9:17`, `D9:1 D4:4`).
fn dialogue_ids(text: &str) -> Vec<String> {
    text.split(|c: char| c == ';' || c == ',' || c.is_whitespace())
        .filter(|w| {
            w.strip_prefix('D')
                .and_then(|r| r.split_once(':'))
                .is_some_and(|(a, b)| {
                    !a.is_empty()
                        && !b.is_empty()
                        && a.chars().all(|c| c.is_ascii_digit())
                        && b.chars().all(|c| c.is_ascii_digit())
                })
        })
        .map(str::to_string)
        .collect()
}

/// The ten conversations of `locomo10.json`, in file order.
pub(crate) fn conversations() -> Result<Vec<Conversation>, Box<dyn std::error::Error>> {
    let data: Value = serde_json::from_str(include_str!("../../../eval/locomo/locomo10.json"))?;
    let mut out = Vec::new();
    for conv in data.as_array().ok_or("locomo10.json: not an array")? {
        let id = conv["sample_id"]
            .as_str()
            .ok_or("a conversation without sample_id")?
            .to_string();
        let mut checkpoints = Vec::new();
        // Dialogue id → the checkpoints (by index) made from it.
        let mut by_dialogue: std::collections::HashMap<String, Vec<usize>> =
            std::collections::HashMap::new();
        let observations = conv["observation"]
            .as_object()
            .ok_or_else(|| format!("{id}: no observations"))?;
        let mut sessions: Vec<(u32, &Value)> = observations
            .iter()
            .filter_map(|(k, v)| {
                let n = k.strip_prefix("session_")?.strip_suffix("_observation")?;
                Some((n.parse().ok()?, v))
            })
            .collect();
        sessions.sort_by_key(|(n, _)| *n);
        for (n, session) in sessions {
            let when = conv["conversation"][format!("session_{n}_date_time")]
                .as_str()
                .ok_or_else(|| format!("{id}: session {n} has no date"))?;
            let start = NaiveDateTime::parse_from_str(when, "%I:%M %p on %d %B, %Y")
                .map_err(|e| format!("{id}: session {n} date {when:?}: {e}"))?
                .and_utc();
            let speakers = session
                .as_object()
                .ok_or_else(|| format!("{id}: session {n}: observations not an object"))?;
            for list in speakers.values() {
                for item in list.as_array().into_iter().flatten() {
                    let text = item[0]
                        .as_str()
                        .ok_or_else(|| format!("{id}: session {n}: an observation without text"))?;
                    let ids: Vec<String> = match &item[1] {
                        Value::String(s) => dialogue_ids(s),
                        Value::Array(a) => a
                            .iter()
                            .filter_map(Value::as_str)
                            .flat_map(dialogue_ids)
                            .collect(),
                        _ => Vec::new(),
                    };
                    let index = checkpoints.len();
                    let at = start + TimeDelta::seconds(i64::try_from(index)?);
                    checkpoints.push(Checkpoint::new(
                        format!("{id}-o{index}"),
                        at,
                        id.clone(),
                        text.to_string(),
                    ));
                    for d in ids {
                        by_dialogue.entry(d).or_default().push(index);
                    }
                }
            }
        }
        let mut questions = Vec::new();
        let mut unanswerable = 0;
        for qa in conv["qa"]
            .as_array()
            .ok_or_else(|| format!("{id}: no qa"))?
        {
            if qa["category"].as_u64() == Some(5) {
                continue;
            }
            let query = qa["question"]
                .as_str()
                .ok_or_else(|| format!("{id}: a question without text"))?
                .to_string();
            let mut expect: Vec<String> = qa["evidence"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .flat_map(dialogue_ids)
                .flat_map(|d| by_dialogue.get(&d).cloned().unwrap_or_default())
                .map(|i| checkpoints[i].id.clone())
                .collect::<HashSet<_>>()
                .into_iter()
                .collect();
            expect.sort();
            if expect.is_empty() {
                unanswerable += 1;
                continue;
            }
            questions.push(Judged {
                kind: format!("category {}", qa["category"]),
                query,
                expect,
            });
        }
        out.push(Conversation {
            id,
            checkpoints,
            questions,
            unanswerable,
        });
    }
    Ok(out)
}

/// The three rankers' figures over some conversations.
pub(crate) fn halves_figures(convs: &[Conversation], opts: &SearchOptions) -> [Figures; 3] {
    let mut f = [Figures::default(); 3];
    for c in convs {
        let qs: Vec<&Judged> = c.questions.iter().collect();
        let (bm25, porter) = (Bm25::new(&c.checkpoints), Bm25::porter(&c.checkpoints));
        f[0].add(&figures(&c.checkpoints, &qs, &engine(&c.checkpoints, opts)));
        f[1].add(&figures(&c.checkpoints, &qs, &|q| bm25.rank(q)));
        f[2].add(&figures(&c.checkpoints, &qs, &|q| porter.rank(q)));
    }
    f
}

#[test]
fn locomo_figures() -> TestResult {
    let convs = conversations()?;
    assert_eq!(convs.len(), 10, "locomo10.json holds ten conversations");
    let observations: usize = convs.iter().map(|c| c.checkpoints.len()).sum();
    let questions: usize = convs.iter().map(|c| c.questions.len()).sum();
    let unanswerable: usize = convs.iter().map(|c| c.unanswerable).sum();
    println!(
        "LoCoMo: {observations} observations as checkpoints in {} workspaces ({}), {questions} questions (categories 1-4), {unanswerable} left out (no observation of their evidence)",
        convs.len(),
        convs
            .iter()
            .map(|c| c.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert!(
        observations >= 2500 && questions >= 1300,
        "the whole benchmark is read"
    );
    let opts = SearchOptions::default();
    let (tuning, held) = convs.split_at(5);
    let names = |h: &[Conversation]| {
        h.iter()
            .map(|c| c.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!("tuning half: {}; held back: {}", names(tuning), names(held));
    header();
    let mut whole = [Figures::default(); 3];
    for (name, half) in [("tuning (1-5)", tuning), ("held back (6-10)", held)] {
        let f = halves_figures(half, &opts);
        // The target: recall@10 and MRR@10 at least stemmed BM25's, on each half.
        assert!(
            f[0].recall10() >= f[2].recall10() && f[0].mrr() >= f[2].mrr(),
            "LoCoMo {name}: recall@10 {:.3} / MRR@10 {:.3} below BM25 + Porter's {:.3} / {:.3}",
            f[0].recall10(),
            f[0].mrr(),
            f[2].recall10(),
            f[2].mrr()
        );
        for (i, ranker) in ["goldfish-recall", "plain BM25", "BM25 + Porter"]
            .iter()
            .enumerate()
        {
            row(name, ranker, &f[i]);
            whole[i].add(&f[i]);
        }
    }
    for (i, ranker) in ["goldfish-recall", "plain BM25", "BM25 + Porter"]
        .iter()
        .enumerate()
    {
        row("whole", ranker, &whole[i]);
    }
    // Regression floors just under what the engine reaches (whole: recall@10 0.683, MRR@10
    // 0.583, against BM25 + Porter's 0.659 and 0.544).
    let [ours, _, _] = whole;
    assert!(
        ours.recall10() >= 0.675 && ours.mrr() >= 0.575,
        "LoCoMo recall@10 {:.3} / MRR@10 {:.3} fell below the floors 0.675 / 0.575",
        ours.recall10(),
        ours.mrr()
    );
    Ok(())
}
