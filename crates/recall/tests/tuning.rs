//! The tuning sets together, as `eval/README.md` chooses on them: LoCoMo conversations 1–5,
//! the natural-language set and the keyword set, each with the engine and BM25 + Porter.
//! `tuning_sweep` (ignored) prints the figures of the engine under other settings; run it
//! with `cargo test -p goldfish-recall --test all tuning_sweep -- --ignored --nocapture`.

use goldfish_recall::SearchOptions;
use goldfish_store::Checkpoint;

use crate::baseline::{Bm25, Figures, Judged, engine, figures, judged};
use crate::eval::checkpoints;
use crate::locomo::{Conversation, conversations};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The three tuning sets, read once.
pub(crate) struct TuningSets {
    locomo: Vec<Conversation>,
    nl: (Vec<Checkpoint>, Vec<Judged>),
    kw: (Vec<Checkpoint>, Vec<Judged>),
}

impl TuningSets {
    /// Reads the sets (LoCoMo's tuning half only).
    pub(crate) fn read() -> Result<TuningSets, Box<dyn std::error::Error>> {
        let mut locomo = conversations()?;
        locomo.truncate(5);
        Ok(TuningSets {
            locomo,
            nl: (
                checkpoints(include_str!("fixtures/nl_corpus.jsonl"))?,
                judged(include_str!("fixtures/nl_queries.jsonl"))?,
            ),
            kw: (
                checkpoints(include_str!("fixtures/eval_checkpoints.jsonl"))?,
                judged(include_str!("fixtures/eval_queries.jsonl"))?,
            ),
        })
    }

    /// The engine's figures with `opts` on LoCoMo 1–5, the natural-language set and the
    /// keyword set, in that order.
    pub(crate) fn engine(&self, opts: &SearchOptions) -> [Figures; 3] {
        let mut lo = Figures::default();
        for c in &self.locomo {
            let qs: Vec<&Judged> = c.questions.iter().collect();
            lo.add(&figures(&c.checkpoints, &qs, &engine(&c.checkpoints, opts)));
        }
        let set = |(cps, qs): &(Vec<Checkpoint>, Vec<Judged>)| {
            let qs: Vec<&Judged> = qs.iter().collect();
            figures(cps, &qs, &engine(cps, opts))
        };
        [lo, set(&self.nl), set(&self.kw)]
    }

    /// Over the three sets, the hits in the engine's top 10 that a query expects and those it
    /// does not: what a matching rule adds or takes away, in precision and recall.
    pub(crate) fn top10(&self, opts: &SearchOptions) -> (usize, usize) {
        let (mut good, mut bad) = (0, 0);
        let mut count = |cps: &[Checkpoint], qs: &[Judged]| {
            let rank = engine(cps, opts);
            for q in qs.iter().filter(|q| !q.expect.is_empty()) {
                for i in rank(&q.query).into_iter().take(10) {
                    if q.expect.contains(&cps[i].id) {
                        good += 1;
                    } else {
                        bad += 1;
                    }
                }
            }
        };
        for c in &self.locomo {
            count(&c.checkpoints, &c.questions);
        }
        count(&self.nl.0, &self.nl.1);
        count(&self.kw.0, &self.kw.1);
        (good, bad)
    }

    /// BM25 + Porter's figures on the same sets.
    pub(crate) fn porter(&self) -> [Figures; 3] {
        let mut lo = Figures::default();
        for c in &self.locomo {
            let qs: Vec<&Judged> = c.questions.iter().collect();
            let bm = Bm25::porter(&c.checkpoints);
            lo.add(&figures(&c.checkpoints, &qs, &|q| bm.rank(q)));
        }
        let set = |(cps, qs): &(Vec<Checkpoint>, Vec<Judged>)| {
            let qs: Vec<&Judged> = qs.iter().collect();
            let bm = Bm25::porter(cps);
            figures(cps, &qs, &|q| bm.rank(q))
        };
        [lo, set(&self.nl), set(&self.kw)]
    }
}

/// One line of the sweep: recall@10 and MRR@10 per set, empty answers, and the sum of
/// recall@10 and MRR@10 over the sets that `eval/README.md` chooses on.
pub(crate) fn line(label: &str, f: &[Figures; 3]) {
    let sum: f64 = f.iter().map(|f| f.recall10() + f.mrr()).sum();
    let empty: usize = f.iter().map(|f| f.empty).sum();
    println!(
        "{label:<44} | {:.3} {:.3} | {:.3} {:.3} | {:.3} {:.3} | {empty:>3} | {sum:.4}",
        f[0].recall10(),
        f[0].mrr(),
        f[1].recall10(),
        f[1].mrr(),
        f[2].recall10(),
        f[2].mrr(),
    );
}

/// Prints the tuning figures of the engine under other cut-offs (the rules in
/// `eval/README.md` choose among them), with BM25 + Porter first.
#[test]
#[ignore = "a tuning aid, not a check"]
fn tuning_sweep() -> TestResult {
    let sets = TuningSets::read()?;
    println!(
        "setting                      | LoCoMo 1-5 r10 mrr | NL r10 mrr | keyword r10 mrr | empty | sum"
    );
    line("BM25 + Porter", &sets.porter());
    line("defaults", &sets.engine(&SearchOptions::default()));
    let (good, bad) = sets.top10(&SearchOptions::default());
    println!("defaults: top 10s hold {good} expected hits and {bad} others");
    let mut no_syn = SearchOptions::default();
    no_syn.synonym_weight = 0.0;
    line("without the lexicon", &sets.engine(&no_syn));
    let (good, bad) = sets.top10(&no_syn);
    println!("without the lexicon: top 10s hold {good} expected hits and {bad} others");
    for cover in [0.0f32, 0.3, 0.5] {
        for cutoff in [0.0f32, 0.1, 0.2] {
            let mut o = SearchOptions::default();
            o.min_coverage = cover;
            o.relative_cutoff = cutoff;
            line(
                &format!("coverage {cover} cut-off {cutoff}"),
                &sets.engine(&o),
            );
        }
    }
    Ok(())
}
