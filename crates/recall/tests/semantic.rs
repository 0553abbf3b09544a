//! The semantic channel's plumbing, with a model of the test's own (what a Rust agent that
//! brings its own model does): vectors cached beside the index and computed only for new
//! or changed entries, a bounded number per recall, fused answers the same through the
//! index and through the day files, and a failing model that leaves recall lexical.
//!
//! The model is a bag of concepts: each word maps to a concept (synonyms share one), and a
//! text's vector counts its concepts. It knows that a cat is a feline, which the lexical
//! engine does not, so a search for one finds the other only by meaning.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use goldfish_recall::semantic::EmbedError;
use goldfish_recall::{
    Embedder, RecallOptions, RecallResult, Scope, SemanticChannel, SemanticOptions, embed_vectors,
    recall,
};

use crate::util::{TestResult, TestStore};

const DIM: usize = 16;

#[derive(Default)]
struct Concepts {
    documents: AtomicUsize,
    queries: AtomicUsize,
    broken: AtomicBool,
}

impl Concepts {
    fn vector(text: &str) -> Vec<f32> {
        let mut v = vec![0.0; DIM];
        for word in text.split(|c: char| !c.is_alphanumeric()) {
            let word = word.to_lowercase();
            let concept = match word.as_str() {
                "" => continue,
                "cat" | "cats" | "feline" | "kitten" => 1,
                "dog" | "dogs" | "canine" | "puppy" => 2,
                "car" | "vehicle" | "automobile" => 3,
                "rain" | "storm" | "weather" => 4,
                _ => 5 + word.bytes().map(usize::from).sum::<usize>() % (DIM - 5),
            };
            v[concept] += 1.0;
        }
        v
    }

    fn check(&self) -> Result<(), EmbedError> {
        if self.broken.load(Ordering::SeqCst) {
            Err("the test model is broken".into())
        } else {
            Ok(())
        }
    }
}

impl Embedder for Concepts {
    fn id(&self) -> &str {
        "concepts@1"
    }
    fn dimension(&self) -> usize {
        DIM
    }
    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        self.check()?;
        self.queries.fetch_add(1, Ordering::SeqCst);
        Ok(Self::vector(text))
    }
    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.check()?;
        self.documents.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts.iter().map(|t| Self::vector(t)).collect())
    }
}

fn store() -> Result<TestStore, Box<dyn std::error::Error>> {
    let s = TestStore::new("2026-05-02T10:00:00Z")?;
    s.save_at(
        "2026-04-01T09:00:00Z",
        "pets",
        "Adopted a kitten for the office",
        &[],
    )?;
    s.save_at(
        "2026-04-02T09:00:00Z",
        "pets",
        "Walked the puppy twice a day",
        &[],
    )?;
    s.save_at(
        "2026-04-03T09:00:00Z",
        "pets",
        "Washed the car before the storm",
        &[],
    )?;
    s.save_at(
        "2026-04-04T09:00:00Z",
        "pets",
        "Fed the feline at noon",
        &[],
    )?;
    s.save_at("2026-05-01T09:00:00Z", "pets", "Bought office chairs", &[])?;
    Ok(s)
}

fn channel(model: &Arc<Concepts>, embed_missing: usize) -> SemanticChannel {
    let mut c = SemanticChannel::new(model.clone());
    let mut o = SemanticOptions::default();
    o.embed_missing = embed_missing;
    o.min_similarity = 0.3;
    // One-word queries here: the channel takes part in every search.
    o.min_query_words = 0;
    c.options = o;
    c
}

fn opts(search: &str, semantic: Option<SemanticChannel>, use_index: bool) -> RecallOptions {
    let mut o = RecallOptions::default();
    o.workspace = Scope::from("pets");
    o.search = Some(search.into());
    o.from = Some("2000-01-01".into());
    o.explain = true;
    o.goldfish_memories = false;
    o.use_index = use_index;
    o.semantic = semantic;
    o
}

/// The first hit's explanation.
fn explanation(r: &RecallResult) -> &goldfish_recall::Explanation {
    r.hits[0]
        .explanation
        .as_ref()
        .expect("an explained first hit")
}

fn titles(r: &RecallResult) -> Vec<&str> {
    r.checkpoints().map(|c| c.title()).collect()
}

/// Whether `r`'s notes say the test model failed.
fn said_broken(r: &RecallResult) -> bool {
    r.notes
        .iter()
        .any(|n| n.contains("the test model is broken"))
}

#[test]
fn a_checkpoint_found_only_by_meaning_is_fused_in() -> TestResult {
    let s = store()?;
    let model = Arc::new(Concepts::default());
    // Lexically, "cat" is in no checkpoint: nothing.
    let lexical = recall(&s.store, &opts("cat", None, true))?;
    assert!(lexical.hits.is_empty());
    assert_eq!(lexical.channels, ["lexical"]);

    let r = recall(&s.store, &opts("cat", Some(channel(&model, 100)), true))?;
    assert_eq!(r.channels, ["lexical", "semantic"]);
    let mut found = titles(&r);
    found.sort_unstable();
    assert_eq!(
        found,
        ["Adopted a kitten for the office", "Fed the feline at noon"]
    );
    let fusion = explanation(&r).fusion.expect("a fused explanation");
    assert!(fusion.lexical.is_none());
    let semantic = fusion.semantic.expect("its semantic part");
    assert_eq!(semantic.rank, 1);
    assert!(semantic.score > 0.3 && fusion.score > 0.0);
    assert!(goldfish_recall::format_explanation(explanation(&r)).contains("semantic #1"));

    // A word both channels see: the checkpoint they agree on is first.
    let r = recall(
        &s.store,
        &opts("office kitten", Some(channel(&model, 100)), true),
    )?;
    assert_eq!(titles(&r)[0], "Adopted a kitten for the office");
    let f = explanation(&r).fusion.expect("fused");
    assert_eq!(
        (f.lexical.map(|p| p.rank), f.semantic.map(|p| p.rank)),
        (Some(1), Some(1))
    );
    Ok(())
}

#[test]
fn vectors_are_computed_once_and_again_only_for_what_changed() -> TestResult {
    let s = store()?;
    let model = Arc::new(Concepts::default());
    let o = opts("feline", Some(channel(&model, 100)), true);
    recall(&s.store, &o)?;
    assert_eq!(model.documents.load(Ordering::SeqCst), 5);
    let vectors = s.dir.path().join(".index/pets.gfv");
    assert!(vectors.is_file());

    recall(&s.store, &o)?;
    assert_eq!(
        model.documents.load(Ordering::SeqCst),
        5,
        "nothing new to embed"
    );

    // One entry edited by hand: only it is embedded again, and found under its new text.
    let day = s.dir.path().join("pets/checkpoints/2026-04-02.md");
    let text = std::fs::read_to_string(&day)?;
    std::fs::write(&day, text.replace("Walked the puppy", "Walked the cat"))?;
    let r = recall(&s.store, &o)?;
    assert_eq!(model.documents.load(Ordering::SeqCst), 6);
    assert!(titles(&r).contains(&"Walked the cat twice a day"));

    // The cache deleted: everything is computed again, and the answer is the same.
    std::fs::remove_file(&vectors)?;
    let again = recall(&s.store, &o)?;
    assert_eq!(model.documents.load(Ordering::SeqCst), 11);
    assert_eq!(titles(&again), titles(&r));

    // A damaged cache is not trusted: computed again.
    let mut bytes = std::fs::read(&vectors)?;
    let last = bytes.len() - 10;
    bytes[last] ^= 0x55;
    std::fs::write(&vectors, bytes)?;
    recall(&s.store, &o)?;
    assert_eq!(model.documents.load(Ordering::SeqCst), 16);
    Ok(())
}

/// The index and the vectors hold the words and the meaning of private checkpoints: they are
/// as private as the day files (0600 in a 0700 directory).
#[cfg(unix)]
#[test]
fn the_index_and_its_vectors_are_private() -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    let s = store()?;
    let model = Arc::new(Concepts::default());
    recall(&s.store, &opts("feline", Some(channel(&model, 100)), true))?;
    let mode = |path: &str| -> std::io::Result<u32> {
        Ok(std::fs::metadata(s.dir.path().join(path))?
            .permissions()
            .mode()
            & 0o777)
    };
    assert_eq!(mode(".index")?, 0o700);
    assert_eq!(mode(".index/pets.gfi")?, 0o600);
    assert_eq!(mode(".index/pets.gfv")?, 0o600);
    Ok(())
}

#[test]
fn a_recall_embeds_a_bounded_number_newest_first() -> TestResult {
    let s = store()?;
    let model = Arc::new(Concepts::default());
    let o = opts("cat", Some(channel(&model, 2)), true);
    let r = recall(&s.store, &o)?;
    assert_eq!(model.documents.load(Ordering::SeqCst), 2);
    // The two newest have vectors: the feline is one of them; the kitten, older, has none
    // yet and no word of the query, so it is not found yet.
    assert_eq!(titles(&r), ["Fed the feline at noon"]);
    // Each later recall embeds two more, until all have vectors.
    recall(&s.store, &o)?;
    let r = recall(&s.store, &o)?;
    assert_eq!(titles(&r).len(), 2);
    recall(&s.store, &o)?;
    assert_eq!(model.documents.load(Ordering::SeqCst), 5);
    Ok(())
}

#[test]
fn the_index_and_the_day_files_give_the_same_fused_answer() -> TestResult {
    let s = store()?;
    let model = Arc::new(Concepts::default());
    for query in ["cat", "office kitten", "storm vehicle", "noon"] {
        let through_index = recall(&s.store, &opts(query, Some(channel(&model, 100)), true))?;
        let from_files = recall(&s.store, &opts(query, Some(channel(&model, 100)), false))?;
        assert_eq!(titles(&through_index), titles(&from_files), "{query}");
        assert_eq!(through_index.total, from_files.total, "{query}");
        assert_eq!(
            serde_json::to_string(&through_index.hits)?,
            serde_json::to_string(&from_files.hits)?,
            "{query}"
        );
    }
    Ok(())
}

#[test]
fn a_failing_model_leaves_recall_lexical_with_a_note() -> TestResult {
    let s = store()?;
    let model = Arc::new(Concepts::default());
    model.broken.store(true, Ordering::SeqCst);
    let r = recall(&s.store, &opts("office", Some(channel(&model, 100)), true))?;
    let lexical = recall(&s.store, &opts("office", None, true))?;
    assert_eq!(r.channels, ["lexical"]);
    assert_eq!(titles(&r), titles(&lexical));
    assert!(said_broken(&r), "{:?}", r.notes);
    // A search with no entry in its window ranks nothing by meaning either: the broken
    // model is still found out, and not claimed to have ranked.
    for use_index in [true, false] {
        let mut o = opts("office", Some(channel(&model, 100)), use_index);
        o.from = Some("2026-04-20".into());
        o.to = Some("2026-04-25".into());
        let r = recall(&s.store, &o)?;
        assert!(r.hits.is_empty());
        assert_eq!(r.channels, ["lexical"], "index: {use_index}");
        assert!(said_broken(&r), "{:?}", r.notes);
    }
    Ok(())
}

#[test]
fn embed_vectors_fills_what_is_missing_and_prunes_what_is_gone() -> TestResult {
    let s = store()?;
    let model = Arc::new(Concepts::default());
    let c = channel(&model, 0);
    let mut calls = Vec::new();
    let report = embed_vectors(&s.store, &Scope::All, None, &c, &mut |d, t| {
        calls.push((d, t))
    })?;
    assert_eq!((report.embedded, report.kept, report.removed), (5, 0, 0));
    assert_eq!(calls.first(), Some(&(0, 5)));
    assert_eq!(calls.last(), Some(&(5, 5)));

    let day = s.dir.path().join("pets/checkpoints/2026-05-01.md");
    std::fs::remove_file(day)?;
    let report = embed_vectors(&s.store, &Scope::All, None, &c, &mut |_, _| {})?;
    assert_eq!((report.embedded, report.kept, report.removed), (0, 4, 1));
    // With every vector there, a recall embeds no document, only its query.
    let before = model.documents.load(Ordering::SeqCst);
    let r = recall(&s.store, &opts("cat", Some(channel(&model, 100)), true))?;
    assert_eq!(model.documents.load(Ordering::SeqCst), before);
    assert_eq!(titles(&r).len(), 2);
    Ok(())
}

#[test]
fn a_text_in_several_workspaces_is_embedded_once() -> TestResult {
    let s = store()?;
    // "pets" has five texts; "zoo" repeats two of them and has one of its own; "farm" repeats
    // one of "zoo"'s.
    s.save_at(
        "2026-04-10T09:00:00Z",
        "zoo",
        "Adopted a kitten for the office",
        &[],
    )?;
    s.save_at("2026-04-11T09:00:00Z", "zoo", "Fed the feline at noon", &[])?;
    s.save_at("2026-04-12T09:00:00Z", "zoo", "Counted the penguins", &[])?;
    s.save_at("2026-04-13T09:00:00Z", "farm", "Counted the penguins", &[])?;
    let model = Arc::new(Concepts::default());
    let c = channel(&model, 0);
    // `goldfish index rebuild`: (embedded, shared, kept).
    let rebuild = || -> Result<(usize, usize, usize), Box<dyn std::error::Error>> {
        let report = embed_vectors(&s.store, &Scope::All, None, &c, &mut |_, _| {})?;
        Ok((report.embedded, report.shared, report.kept))
    };
    let gfv = |ws: &str| s.dir.path().join(format!(".index/{ws}.gfv"));
    assert_eq!(rebuild()?, (6, 3, 0));
    assert_eq!(model.documents.load(Ordering::SeqCst), 6);

    // Every workspace ranks by meaning with its copies, embedding nothing more.
    for ws in ["zoo", "pets"] {
        let mut o = opts("cat", Some(channel(&model, 0)), true);
        o.workspace = Scope::from(ws);
        let r = recall(&s.store, &o)?;
        let mut found = titles(&r);
        found.sort_unstable();
        assert_eq!(
            found,
            ["Adopted a kitten for the office", "Fed the feline at noon"],
            "{ws}"
        );
    }
    assert_eq!(model.documents.load(Ordering::SeqCst), 6);

    // A workspace whose vectors are lost is given copies from the files of the others.
    std::fs::remove_file(gfv("zoo"))?;
    assert_eq!(rebuild()?, (0, 3, 6));
    assert_eq!(model.documents.load(Ordering::SeqCst), 6);
    // And the copies are the vectors themselves: the file equals the one embedded first.
    let again = std::fs::read(gfv("zoo"))?;
    for ws in ["zoo", "pets", "farm"] {
        std::fs::remove_file(gfv(ws))?;
    }
    rebuild()?;
    assert_eq!(std::fs::read(gfv("zoo"))?, again);
    Ok(())
}

/// A save's resemblances by meaning: with the model, an earlier decision that shares no
/// content word but means the same is named (`may_supersede`, by meaning) from the cached
/// vectors; without it, or for an entry without a cached vector, nothing is.
#[test]
fn a_save_resembles_by_meaning_only_with_the_model_and_a_cached_vector() -> TestResult {
    use goldfish_recall::{ResembleBy, resemblances};
    use goldfish_store::{CheckpointInput, MemoryType};
    let s = store()?;
    let decide = |at: &str, text: &str| -> Result<_, Box<dyn std::error::Error>> {
        s.clock.set(goldfish_core::time::parse_utc(at)?);
        let mut input = CheckpointInput::new(text);
        input.workspace = Some("pets".into());
        input.memory_type = MemoryType::Decision;
        Ok(s.store.save_checkpoint(input)?)
    };
    let kitten = decide("2026-05-01T10:00:00Z", "Kitten")?;
    let model = Arc::new(Concepts::default());
    let channel = channel(&model, 4);
    embed_vectors(
        &s.store,
        &Scope::from("pets"),
        None,
        &channel,
        &mut |_, _| {},
    )?;
    // Saved after the vectors were computed: no vector of its own yet.
    let puppy = decide("2026-05-01T11:00:00Z", "Puppy")?;
    let new = decide("2026-05-02T09:00:00Z", "Cats")?;
    assert!(resemblances(&s.store, &new, None)?.is_empty());
    let found = resemblances(&s.store, &new, Some(&channel))?;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].id, kitten.id);
    assert_eq!(found[0].by, ResembleBy::Meaning);
    assert!(found[0].may_supersede);
    assert!((found[0].similarity - 1.0).abs() < 0.02, "{found:?}");
    // "Dog canine" means what "Puppy" does, but "Puppy" has no cached vector yet.
    let dog = decide("2026-05-02T09:30:00Z", "dog canine")?;
    let found = resemblances(&s.store, &dog, Some(&channel))?;
    assert!(found.iter().all(|r| r.id != puppy.id), "{found:?}");
    Ok(())
}
