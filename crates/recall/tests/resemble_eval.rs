//! The save-time resemblance rule on the same-subject pairs (`fixtures/same_subject_pairs.jsonl`,
//! written before any rule was run on them; see `eval/README.md`): an existing memory of the
//! corpus and a new one as an agent would save it, 41 on the same subject (reworded
//! duplicates and reversals) and 41 not (follow-ups, related work, unrelated). The rule names
//! the existing memory when the pair's similarity reaches the threshold; precision is the
//! share of named pairs that are on the same subject, recall the share of same-subject pairs
//! named. Each test prints the table its threshold was chosen from and asserts the floor.

use std::collections::HashMap;

use goldfish_recall::semantic::embedding_text;
use goldfish_recall::{MEANING_THRESHOLD, WORDS_THRESHOLD, word_similarity};
use goldfish_store::Checkpoint;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const PAIRS: &str = include_str!("fixtures/same_subject_pairs.jsonl");
const CORPUS: &str = include_str!("fixtures/nl_corpus.jsonl");

/// One pair: the texts compared (as [`embedding_text`] makes them) and whether it is on the
/// same subject.
struct Pair {
    existing: String,
    new: String,
    same: bool,
}

fn text_of(v: &serde_json::Value) -> Result<String, Box<dyn std::error::Error>> {
    let description = v["description"].as_str().ok_or("no description")?;
    let mut c = Checkpoint::new("x", chrono::Utc::now(), "ws", description);
    c.tags = v["tags"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok(embedding_text(&c))
}

fn pairs() -> Result<Vec<Pair>, Box<dyn std::error::Error>> {
    let mut corpus: HashMap<String, serde_json::Value> = HashMap::new();
    for line in CORPUS.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        corpus.insert(v["id"].as_str().ok_or("no id")?.to_string(), v);
    }
    let mut out = Vec::new();
    for line in PAIRS.lines().filter(|l| !l.trim().is_empty()) {
        let p: serde_json::Value = serde_json::from_str(line)?;
        let id = p["existing"].as_str().ok_or("no existing")?;
        let existing = corpus
            .get(id)
            .ok_or_else(|| format!("{id} not in the corpus"))?;
        out.push(Pair {
            existing: text_of(existing)?,
            new: text_of(&p["new"])?,
            same: p["same"].as_bool().ok_or("no same")?,
        });
    }
    assert_eq!(out.len(), 82, "the set has 82 pairs");
    Ok(out)
}

/// (precision, recall, named) of "named when `score >= threshold`".
fn figures(scores: &[(f32, bool)], threshold: f32) -> (f64, f64, usize) {
    let named: Vec<bool> = scores
        .iter()
        .filter(|(s, _)| *s >= threshold)
        .map(|&(_, same)| same)
        .collect();
    let right = named.iter().filter(|&&same| same).count();
    let same = scores.iter().filter(|(_, same)| *same).count();
    let precision = if named.is_empty() {
        1.0
    } else {
        right as f64 / named.len() as f64
    };
    (precision, right as f64 / same as f64, named.len())
}

fn table(name: &str, scores: &[(f32, bool)], grid: &[f32], chosen: f32) -> (f64, f64) {
    println!("{name}: threshold  precision  recall  named");
    for &t in grid {
        let (p, r, n) = figures(scores, t);
        let mark = if (t - chosen).abs() < 1e-6 {
            "  ← chosen"
        } else {
            ""
        };
        println!("{name}: {t:9.2}  {p:9.2}  {r:6.2}  {n:5}{mark}");
    }
    let (p, r, _) = figures(scores, chosen);
    (p, r)
}

/// Words alone: what every save uses (the CLI's, and the MCP server's without a model).
#[test]
fn resemble_eval_words() -> TestResult {
    let scores: Vec<(f32, bool)> = pairs()?
        .iter()
        .map(|p| (word_similarity(&p.existing, &p.new), p.same))
        .collect();
    let grid = [
        0.1, 0.15, 0.18, 0.19, 0.2, 0.21, 0.22, 0.23, 0.24, 0.25, 0.3, 0.4,
    ];
    let (precision, recall) = table("words", &scores, &grid, WORDS_THRESHOLD);
    println!("words at {WORDS_THRESHOLD}: precision {precision:.2}, recall {recall:.2}");
    assert!(precision >= 0.9, "precision {precision:.2}");
    assert!(recall >= 0.7, "recall {recall:.2}");
    Ok(())
}

/// Words or meaning (all-MiniLM-L6-v2 cosine): what the MCP server with the model uses.
/// Ignored: embeds the pairs with the real model (downloaded once under the target
/// directory; a minute in a debug build):
/// `cargo test -p goldfish-recall --test all resemble_eval_meaning -- --ignored --nocapture`.
#[test]
#[ignore = "embeds the pairs with the real model"]
fn resemble_eval_meaning() -> TestResult {
    let pairs = pairs()?;
    let texts: Vec<String> = pairs
        .iter()
        .flat_map(|p| [p.existing.clone(), p.new.clone()])
        .collect();
    let vectors = crate::hybrid::vectors(&texts)?;
    let cosine = |a: &[f32], b: &[f32]| {
        let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        dot / (norm(a) * norm(b))
    };
    let meaning: Vec<(f32, bool)> = pairs
        .iter()
        .enumerate()
        .map(|(i, p)| (cosine(&vectors[2 * i], &vectors[2 * i + 1]), p.same))
        .collect();
    let grid = [0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85];
    // Meaning alone, for the record: a save never uses it without words.
    table("meaning", &meaning, &grid, MEANING_THRESHOLD);
    // The rule as a save runs it: either measure at its threshold.
    let either: Vec<(f32, bool)> = pairs
        .iter()
        .zip(&meaning)
        .map(|(p, &(m, same))| {
            let w = word_similarity(&p.existing, &p.new);
            ((w / WORDS_THRESHOLD).max(m / MEANING_THRESHOLD), same)
        })
        .collect();
    let (precision, recall, _) = figures(&either, 1.0);
    println!(
        "words ≥ {WORDS_THRESHOLD} or meaning ≥ {MEANING_THRESHOLD}: precision {precision:.2}, \
         recall {recall:.2}"
    );
    // The grid the pair of thresholds was chosen from (with `resemble_eval_words`' table):
    // the most pairs named by words alone and by either, at a precision of at least 0.9 in
    // both.
    for w in [0.2, 0.21, 0.22, 0.25, 0.3] {
        for t in [0.6, 0.65, 0.7, 0.75, 0.8, 0.85] {
            let either: Vec<(f32, bool)> = pairs
                .iter()
                .zip(&meaning)
                .map(|(p, &(m, same))| {
                    let words = word_similarity(&p.existing, &p.new);
                    ((words / w).max(m / t), same)
                })
                .collect();
            let (p, r, n) = figures(&either, 1.0);
            println!(
                "either: words {w:.2} meaning {t:.2}: precision {p:.2}, recall {r:.2}, named {n}"
            );
        }
    }
    assert!(precision >= 0.9, "precision {precision:.2}");
    assert!(recall >= 0.9, "recall {recall:.2}");
    Ok(())
}
