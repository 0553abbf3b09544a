//! Several phrasings of one need (`fixtures/nl_query_forms.jsonl`, 68 rows: a question of
//! the natural-language set as typed, the same need as 3–5 keywords, and as a question in
//! other words), each searched alone and fused as `recall` fuses them
//! (`goldfish_recall::fuse_phrasings` over each phrasing's first 30, the depth recall asks of
//! each), lexical engine, BM25 + Porter beside.
//!
//! The rule, written before the figures were looked at (see `eval/README.md`): the tool
//! description recommends passing the user's words with a keyword form; that pair fused must
//! rank at least as well as the user's words alone (MRR@10 and recall@10, −0.005). The other
//! rows are printed for the record.
//!
//! `cargo test -p goldfish-recall --release --test all forms -- --nocapture` prints the table.

use goldfish_recall::{SearchOptions, fuse_phrasings};

use crate::baseline::{Bm25, Figures, Judged, engine, figures, header, row};
use crate::eval::checkpoints;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// How deep each phrasing's list goes into the fusion (`recall` asks each phrasing for
/// three times the limit of 10).
const DEPTH: usize = 30;

#[derive(serde::Deserialize)]
struct Forms {
    query: String,
    keywords: String,
    question: String,
    expect: Vec<String>,
}

#[test]
fn phrasings_fused_against_each_alone() -> TestResult {
    let cps = checkpoints(include_str!("fixtures/nl_corpus.jsonl"))?;
    let rows: Vec<Forms> = include_str!("fixtures/nl_query_forms.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_eq!(rows.len(), 68);
    let opts = SearchOptions::default();
    let ours = engine(&cps, &opts);
    let porter = Bm25::porter(&cps);
    // One judged query per row; `figures` asks the ranker for that row's forms by its key.
    let judged: Vec<Judged> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| Judged {
            kind: "forms".into(),
            query: i.to_string(),
            expect: r.expect.clone(),
        })
        .collect();
    let refs: Vec<&Judged> = judged.iter().collect();
    let row_of = |key: &str| &rows[key.parse::<usize>().unwrap_or(0)];
    let fused = |forms: &dyn Fn(&Forms) -> Vec<String>| {
        figures(&cps, &refs, &|key: &str| {
            let lists: Vec<Vec<usize>> = forms(row_of(key))
                .iter()
                .map(|q| ours(q).into_iter().take(DEPTH).collect())
                .collect();
            fuse_phrasings(&lists).into_iter().map(|(i, _)| i).collect()
        })
    };
    let alone = |form: &dyn Fn(&Forms) -> String| {
        figures(&cps, &refs, &|key: &str| ours(&form(row_of(key))))
    };

    header();
    let query = alone(&|r| r.query.clone());
    row("the user's words", "goldfish-recall", &query);
    let query_porter = figures(&cps, &refs, &|key: &str| porter.rank(&row_of(key).query));
    row("the user's words", "BM25 + Porter", &query_porter);
    row(
        "keywords",
        "goldfish-recall",
        &alone(&|r| r.keywords.clone()),
    );
    row(
        "other question",
        "goldfish-recall",
        &alone(&|r| r.question.clone()),
    );
    let words_keywords = fused(&|r| vec![r.query.clone(), r.keywords.clone()]);
    row("words + keywords", "fused", &words_keywords);
    row(
        "keywords + question",
        "fused",
        &fused(&|r| vec![r.keywords.clone(), r.question.clone()]),
    );
    row(
        "all three",
        "fused",
        &fused(&|r| vec![r.query.clone(), r.keywords.clone(), r.question.clone()]),
    );
    at_least(&words_keywords, &query);
    Ok(())
}

fn at_least(fused: &Figures, alone: &Figures) {
    assert!(
        fused.mrr() >= alone.mrr() - 0.005 && fused.recall10() >= alone.recall10() - 0.005,
        "the user's words + keywords fused: MRR@10 {:.3} / recall@10 {:.3}, below the words alone {:.3} / {:.3}",
        fused.mrr(),
        fused.recall10(),
        alone.mrr(),
        alone.recall10()
    );
}
