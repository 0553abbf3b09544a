use std::collections::HashMap;
use std::sync::Arc;

use super::cache::{Caches, QueryState, Similar};
use super::cosine::{PreparedQuery, unit};
use super::vectors::{CHUNK_RECORDS, Vectors, read_records};
use super::*;
use crate::fusion::Fusion;
use crate::query::Query;

fn fused_keys(lexical: &[(u32, f32)], cosines: &[(u32, f32)], o: &SemanticOptions) -> Vec<u32> {
    fuse_channels(lexical, cosines, o)
        .iter()
        .map(|f| f.key)
        .collect()
}

#[test]
fn the_pool_decides_which_entries_the_semantic_channel_ranks() {
    let lexical = [(1, 9.0), (2, 8.0), (3, 7.0)];
    // Entry 3 is a lexical candidate, but not among the two nearest.
    let cosines = [(7, 0.9), (8, 0.8), (3, 0.5), (9, 0.1)];
    let mut o = SemanticOptions {
        candidates: 2,
        fusion: Fusion::mix(1.0),
        min_similarity: 0.2,
        ..SemanticOptions::default()
    };
    let sem = |o: &SemanticOptions| -> Vec<(u32, Option<f32>)> {
        let mut v: Vec<(u32, Option<f32>)> = fuse_channels(&lexical, &cosines, o)
            .iter()
            .map(|f| (f.key, f.semantic.map(|p| p.score)))
            .collect();
        v.sort_by_key(|e| e.0);
        v
    };
    // Nearest: the two nearest (7, 8) and the two best lexical (1, 2); 3 is cut.
    o.pool = Pool::Nearest;
    assert_eq!(
        sem(&o),
        [(1, None), (2, None), (7, Some(0.9)), (8, Some(0.8))]
    );
    // With the lexical candidates: 3 is still cut (only two lexical candidates).
    o.candidates = 3;
    o.pool = Pool::NearestAndLexical;
    assert_eq!(
        sem(&o),
        [
            (1, None),
            (2, None),
            (3, Some(0.5)),
            (7, Some(0.9)),
            (8, Some(0.8))
        ]
    );
    o.candidates = 2;
    let mut three = o;
    three.candidates = 3;
    three.pool = Pool::Nearest;
    // Nearest three: 7, 8, 3; 9 is under the threshold.
    assert_eq!(fused_keys(&lexical, &cosines, &three).len(), 5);
    three.min_similarity = -1.0;
    three.candidates = 4;
    assert_eq!(fused_keys(&lexical, &cosines, &three).len(), 6);
    // Lexical only: nothing by meaning alone, the candidates re-ranked.
    o.pool = Pool::Lexical;
    o.candidates = 3;
    assert_eq!(fused_keys(&lexical, &cosines, &o), [3, 1, 2]);
}

#[test]
fn short_queries_stay_lexical_under_a_minimum_of_words() {
    let mut o = SemanticOptions {
        min_query_words: 3,
        ..SemanticOptions::default()
    };
    assert!(!o.applies_to(&Query::parse("rolover plan")));
    assert!(!o.applies_to(&Query::parse("how did we fix the rolover?")));
    assert!(o.applies_to(&Query::parse("lazy dfa rolover")));
    o.min_query_words = 0;
    assert!(o.applies_to(&Query::parse("rolover")));
}

#[test]
fn vectors_round_trip_and_a_damaged_file_is_refused() {
    let mut v = Vectors::empty(3);
    v.insert(vec![(9, vec![1.0, 0.0, 0.0]), (2, vec![0.0, 3.0, 4.0])]);
    v.insert(vec![(9, vec![0.0, 1.0, 0.0])]);
    let bytes = v.encode("m@1");
    let back = Vectors::decode(&bytes, "m@1", 3).expect("decodes");
    assert_eq!(back.keys, [2, 9]);
    let q = PreparedQuery::new(vec![0.0, 1.0, 0.0]);
    assert!((back.cosine(9, &q).unwrap_or(0.0) - 1.0).abs() < 0.01);
    assert!((back.cosine(2, &q).unwrap_or(0.0) - 0.6).abs() < 0.01);
    assert!(back.cosine(5, &q).is_none());
    assert!(Vectors::decode(&bytes, "other", 3).is_none());
    assert!(Vectors::decode(&bytes, "m@1", 4).is_none());
    for cut in 0..bytes.len() {
        assert!(Vectors::decode(&bytes[..cut], "m@1", 3).is_none());
    }
    let mut flipped = bytes.clone();
    flipped[40] ^= 1;
    assert!(Vectors::decode(&flipped, "m@1", 3).is_none());
}

#[test]
fn quantized_cosine_is_close_to_the_exact_one() {
    let a: Vec<f32> = (0..384)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
        .collect();
    let b: Vec<f32> = (0..384)
        .map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0)
        .collect();
    let (ua, ub) = (unit(a), unit(b.clone()));
    let exact: f32 = ua.iter().zip(&ub).map(|(x, y)| x * y).sum();
    let mut v = Vectors::empty(384);
    v.insert(vec![(1, b)]);
    let got = v.cosine(1, &PreparedQuery::new(ua)).unwrap_or(f32::NAN);
    assert!((got - exact).abs() < 0.01, "{got} vs {exact}");
}

/// An embedder of an id and a dimension only, for the vector files (it embeds the query
/// as the first axis and every document as the second).
struct Shape(&'static str, usize);

impl Embedder for Shape {
    fn id(&self) -> &str {
        self.0
    }
    fn dimension(&self) -> usize {
        self.1
    }
    fn embed_query(&self, _: &str) -> Result<Vec<f32>, EmbedError> {
        Ok((0..self.1).map(|i| f32::from(u8::from(i == 0))).collect())
    }
    fn embed_documents(&self, t: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let v: Vec<f32> = (0..self.1).map(|i| f32::from(u8::from(i == 1))).collect();
        Ok(vec![v; t.len()])
    }
}

#[test]
fn a_recall_writes_back_what_it_embedded_beside_what_another_process_added() {
    // The recall read the file when it held key 1; another process then added key 2;
    // the recall embedded key 3. Saving keeps all three.
    let two = Shape("two@1", 2);
    let root = tempfile::tempdir().expect("a temporary directory");
    let channel = SemanticChannel::new(Arc::new(Shape("two@1", 2)));
    let q = PreparedQuery::new(vec![1.0, 0.0]);
    let mut v = Vectors::empty(2);
    v.insert(vec![(1, vec![1.0, 0.0])]);
    write_vectors(root.path(), "ws", &v, "two@1").expect("written");
    let mut caches = Caches {
        root: root.path(),
        channel: &channel,
        query: QueryState::Ready(q.clone()),
        by_workspace: HashMap::new(),
    };
    caches.read(&["ws"], &q);
    assert!((caches.get("ws").get(1).unwrap_or(0.0) - 1.0).abs() < 0.01);
    v.insert(vec![(2, vec![1.0, 1.0])]);
    write_vectors(root.path(), "ws", &v, "two@1").expect("written");
    let similar = caches.by_workspace.entry("ws".to_string()).or_default();
    similar.add(3, vec![0.0, 2.0], 2, &q);
    similar.add(4, vec![1.0, 2.0, 3.0], 2, &q);
    assert!(caches.get("ws").get(3).is_some_and(|s| s.abs() < 0.01));
    assert_eq!(
        caches.get("ws").get(4),
        None,
        "another dimension is not kept"
    );
    let mut notes = Vec::new();
    caches.save(&mut notes);
    assert!(notes.is_empty(), "{notes:?}");
    let saved = read_vectors(root.path(), "ws", &two);
    assert_eq!(saved.keys().collect::<Vec<_>>(), [1, 2, 3]);
}

#[test]
fn similarities_read_from_a_file_are_those_of_each_vector_looked_up() {
    // 1,500 vectors of a seeded walk (more than one chunk of records), written to a file,
    // and a query: each similarity read from the file equals the one looked up in the
    // decoded vectors, is within 0.01 of the exact one, and a vector's with itself is 1.
    // A damaged or foreign file gives no similarity at all.
    let walk = Shape("walk@1", 384);
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % 2001) as f32 / 1000.0 - 1.0
    };
    let count = CHUNK_RECORDS * 2 + 220;
    let vectors: Vec<Vec<f32>> = (0..count)
        .map(|_| (0..384).map(|_| next()).collect())
        .collect();
    let mut v = Vectors::empty(384);
    let key = |k: usize| (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    v.insert(
        vectors
            .iter()
            .cloned()
            .enumerate()
            .map(|(k, x)| (key(k), x))
            .collect(),
    );
    let root = tempfile::tempdir().expect("a temporary directory");
    write_vectors(root.path(), "ws", &v, "walk@1").expect("written");
    let query = vectors[3].clone();
    let q = PreparedQuery::new(query.clone());
    let mut buf = Vec::new();
    let read = Similar::read(root.path(), "ws", &walk, &q, &mut buf);
    assert_eq!(read.keys.len(), count);
    assert!(buf.len() <= CHUNK_RECORDS * (12 + 384), "{}", buf.len());
    let uq = unit(query);
    for (k, x) in vectors.iter().enumerate() {
        let sim = read.get(key(k)).expect("read");
        assert_eq!(Some(sim), v.cosine(key(k), &q), "{k}");
        let exact: f32 = unit(x.clone()).iter().zip(&uq).map(|(a, b)| a * b).sum();
        assert!((sim - exact).abs() < 0.01, "{k}: {sim} vs {exact}");
    }
    let own = read.get(key(3)).expect("read");
    assert!((own - 1.0).abs() < 0.01, "{own}");
    assert_eq!(read.get(1), None);
    let path = vectors_path(root.path(), "ws");
    let mut bytes = std::fs::read(&path).expect("the file");
    let last = bytes.len() - 10;
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).expect("damaged");
    assert!(
        Similar::read(root.path(), "ws", &walk, &q, &mut buf)
            .keys
            .is_empty()
    );
    write_vectors(root.path(), "ws", &v, "other@1").expect("written");
    assert!(
        Similar::read(root.path(), "ws", &walk, &q, &mut buf)
            .keys
            .is_empty()
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Vectors → file → vectors gives the same keys, scales and values, read whole or a
    /// chunk of records at a time; and the similarities read from the file are those of
    /// the decoded vectors.
    #[test]
    fn vector_files_round_trip(
        dim in 1usize..24,
        keys in proptest::collection::btree_set(0u64.., 0..(CHUNK_RECORDS + 40)),
        seed in 1u64..,
    ) {
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 2001) as f32 / 1000.0 - 1.0
        };
        let mut v = Vectors::empty(dim);
        v.insert(keys.iter().map(|&k| (k, (0..dim).map(|_| next()).collect())).collect());
        let bytes = v.encode("m@1");
        let back = Vectors::decode(&bytes, "m@1", dim).expect("decodes");
        proptest::prop_assert_eq!(&back.keys, &v.keys);
        proptest::prop_assert_eq!(&back.scales, &v.scales);
        proptest::prop_assert_eq!(&back.values, &v.values);
        proptest::prop_assert_eq!(back.encode("m@1"), bytes.clone());
        let q = PreparedQuery::new((0..dim).map(|_| next()).collect());
        let mut sims = Vec::new();
        let read = read_records(&bytes[..], bytes.len() as u64, "m@1", dim, &mut Vec::new(), |k, scale, values| {
            sims.push((k, q.cosine(scale, values)));
        });
        proptest::prop_assert!(read.is_some());
        for (k, sim) in sims {
            proptest::prop_assert_eq!(Some(sim), back.cosine(k, &q));
        }
    }

    /// A damaged file (a byte changed, or cut anywhere) is refused, never a panic.
    #[test]
    fn damaged_vector_files_are_refused(at in 0usize..8192, byte in 1u8.., cut in proptest::bool::ANY) {
        let mut v = Vectors::empty(8);
        v.insert((0..40u64).map(|k| (k * 3, (0..8).map(|i| (i as f32 - k as f32) / 7.0).collect())).collect());
        let mut bytes = v.encode("m@1");
        let at = at % bytes.len();
        if cut {
            bytes.truncate(at);
        } else {
            bytes[at] ^= byte;
        }
        proptest::prop_assert!(Vectors::decode(&bytes, "m@1", 8).is_none());
    }

    /// Arbitrary bytes never panic (what the fuzz target does, briefly).
    #[test]
    fn arbitrary_vector_bytes_never_panic(bytes in proptest::collection::vec(0u8.., 0..600)) {
        let _ = read_vector_bytes(&bytes);
    }
}
