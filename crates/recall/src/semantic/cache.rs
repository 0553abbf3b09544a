//! The vector cache of one recall: the query embedded on a thread of its own, which then
//! reads the searched workspaces' vector files into similarities; the entries embedded by
//! the recall, written back at its end.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::channel::SemanticChannel;
use super::cosine::PreparedQuery;
use super::embedder::{EmbedError, Embedder};
use super::vectors::{quantize, read_records, read_vectors, vectors_path, write_vectors};

/// One workspace's vectors as a recall uses them: each key's cosine similarity with the
/// query, computed as its file is read (the vectors themselves are not kept), and the vectors
/// this recall embedded, written back by [`Caches::save`].
#[derive(Debug, Default)]
pub(crate) struct Similar {
    /// Sorted, unique, as in the file; `sims` in the same order.
    pub(super) keys: Vec<u64>,
    pub(super) sims: Vec<f32>,
    /// Embedded by this recall: the key, its similarity, and the vector to keep.
    pub(super) added: Vec<(u64, f32, Vec<f32>)>,
}

impl Similar {
    const NONE: Similar = Similar {
        keys: Vec::new(),
        sims: Vec::new(),
        added: Vec::new(),
    };

    /// The similarities of the query with the vectors of `workspace`'s file under `root`
    /// (none when it has no file, or one of another model or damaged: its entries are then
    /// embedded again). `buf` is the reading buffer, kept from one file to the next.
    pub(super) fn read(
        root: &Path,
        workspace: &str,
        embedder: &dyn Embedder,
        query: &PreparedQuery,
        buf: &mut Vec<u8>,
    ) -> Similar {
        let mut read = || -> Option<Similar> {
            let file = std::fs::File::open(vectors_path(root, workspace)).ok()?;
            let len = file.metadata().ok()?.len();
            let mut s = Similar::default();
            let (id, dim) = (embedder.id(), embedder.dimension());
            read_records(file, len, id, dim, buf, |key, scale, values| {
                s.keys.push(key);
                s.sims.push(query.cosine(scale, values));
            })?;
            Some(s)
        };
        read().unwrap_or_default()
    }

    /// The similarity of the query with `key`'s vector, if it has one.
    pub(crate) fn get(&self, key: u64) -> Option<f32> {
        match self.keys.binary_search(&key) {
            Ok(i) => Some(self.sims[i]),
            Err(_) => self.added.iter().rev().find(|a| a.0 == key).map(|a| a.1),
        }
    }

    /// Adds `key`'s vector `v`, just embedded (ignored when not of dimension `dim`).
    pub(super) fn add(&mut self, key: u64, v: Vec<f32>, dim: usize, query: &PreparedQuery) {
        if v.len() == dim {
            let (scale, q) = quantize(&v);
            self.added.push((key, query.cosine(scale, &q), v));
        }
    }
}

/// The vectors of the workspaces one recall reads, compared with its query as they are
/// read, and those it embedded, written back (atomic replace) at the end.
///
/// The query is embedded on a thread of its own, which then reads the searched workspaces'
/// vector files, while the recall's lexical search runs: loading a model, embedding a query
/// and reading vectors cost about as much as the lexical search itself. The semantic ranking
/// waits for it ([`Caches::query`]).
pub(crate) struct Caches<'a> {
    pub(super) root: &'a Path,
    pub(crate) channel: &'a SemanticChannel,
    pub(super) query: QueryState,
    pub(super) by_workspace: HashMap<String, Similar>,
}

impl Drop for Caches<'_> {
    /// A recall that never ranked by meaning (nothing to search) leaves the query's thread to
    /// finish its embedding (a lazily loaded model stays loaded) but read no more files.
    fn drop(&mut self) {
        if let QueryState::Pending { stop, .. } = &self.query {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// What the query's thread gives back: the query, and the vector files it read.
pub(super) type Embedded = Result<(PreparedQuery, Vec<(String, Similar)>), EmbedError>;

pub(super) enum QueryState {
    /// Being embedded: `stop` asks the thread to read no more vector files.
    Pending {
        thread: std::thread::JoinHandle<Embedded>,
        stop: Arc<std::sync::atomic::AtomicBool>,
    },
    Ready(PreparedQuery),
    /// The model failed; no note given yet.
    Error(EmbedError),
    /// The model failed; the note is given.
    Failed,
}

/// Embeds `query` with `embedder` and checks its length; then reads the vector files of
/// `workspaces` under `root`, until `stop` is set.
fn embed_and_read(
    embedder: &dyn Embedder,
    query: &str,
    root: &Path,
    workspaces: &[String],
    stop: &std::sync::atomic::AtomicBool,
) -> Embedded {
    let v = embedder.embed_query(query)?;
    if v.len() != embedder.dimension() {
        return Err(format!(
            "the model gave a vector of {} numbers, not its dimension {}",
            v.len(),
            embedder.dimension()
        )
        .into());
    }
    let query = PreparedQuery::new(v);
    let mut read = Vec::new();
    let mut buf = Vec::new();
    for ws in workspaces {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let similar = Similar::read(root, ws, embedder, &query, &mut buf);
        read.push((ws.clone(), similar));
    }
    Ok((query, read))
}

impl<'a> Caches<'a> {
    /// Starts embedding `query` (and reading the vectors of `workspaces`) beside the caller.
    pub(crate) fn new(
        root: &'a Path,
        channel: &'a SemanticChannel,
        query: &str,
        workspaces: &[String],
    ) -> Self {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (embedder, text, dir, list, flag) = (
            channel.embedder.clone(),
            query.to_string(),
            root.to_path_buf(),
            workspaces.to_vec(),
            stop.clone(),
        );
        let spawned = std::thread::Builder::new()
            .name("goldfish-query".into())
            .spawn(move || embed_and_read(embedder.as_ref(), &text, &dir, &list, &flag));
        let query = match spawned {
            Ok(thread) => QueryState::Pending { thread, stop },
            // No thread to be had: the query is embedded here, the files read when needed.
            Err(_) => match embed_and_read(channel.embedder.as_ref(), query, root, &[], &stop) {
                Ok((q, _)) => QueryState::Ready(q),
                Err(e) => QueryState::Error(e),
            },
        };
        Caches {
            root,
            channel,
            query,
            by_workspace: HashMap::new(),
        }
    }

    /// The query, once embedded; `None` when the model failed (then said once in `notes`,
    /// and the search stays lexical).
    pub(crate) fn query(&mut self, notes: &mut Vec<String>) -> Option<&PreparedQuery> {
        let result =
            match std::mem::replace(&mut self.query, QueryState::Failed) {
                QueryState::Pending { thread, stop } => {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    Some(thread.join().unwrap_or_else(|_| {
                        Err("the model panicked while embedding the query".into())
                    }))
                }
                QueryState::Error(e) => Some(Err(e)),
                state => {
                    self.query = state;
                    None
                }
            };
        if let Some(result) = result {
            match result {
                Ok((q, read)) => {
                    for (ws, v) in read {
                        self.by_workspace.entry(ws).or_insert(v);
                    }
                    self.query = QueryState::Ready(q);
                }
                Err(e) => notes.push(format!(
                    "the semantic channel is off for this search ({e}); ranked lexically"
                )),
            }
        }
        match &self.query {
            QueryState::Ready(q) => Some(q),
            _ => None,
        }
    }

    /// Whether the semantic channel ranked this search: its query was embedded (waited for
    /// when nothing asked for it yet, such as a search with no entry in its window).
    pub(crate) fn ranked(&mut self, notes: &mut Vec<String>) -> bool {
        self.query(notes).is_some()
    }

    /// The similarities of `workspace` read by [`Caches::read`] (none if it has none).
    pub(super) fn get(&self, workspace: &str) -> &Similar {
        static NONE: Similar = Similar::NONE;
        self.by_workspace.get(workspace).unwrap_or(&NONE)
    }

    /// Reads the vectors of `workspaces` that the query's thread did not (it was asked to
    /// stop), comparing them with `query`.
    pub(super) fn read(&mut self, workspaces: &[&str], query: &PreparedQuery) {
        let mut buf = Vec::new();
        for &ws in workspaces {
            if !self.by_workspace.contains_key(ws) {
                let embedder = self.channel.embedder.as_ref();
                let similar = Similar::read(self.root, ws, embedder, query, &mut buf);
                self.by_workspace.insert(ws.to_string(), similar);
            }
        }
    }

    /// Writes back the workspaces' files that gained vectors (read again, so that vectors
    /// another process added meanwhile are kept); what could not be written is noted.
    pub(crate) fn save(mut self, notes: &mut Vec<String>) {
        let embedder = self.channel.embedder.as_ref();
        for (ws, similar) in std::mem::take(&mut self.by_workspace) {
            if similar.added.is_empty() {
                continue;
            }
            let mut v = read_vectors(self.root, &ws, embedder);
            v.insert(similar.added.into_iter().map(|(k, _, v)| (k, v)).collect());
            if let Err(e) = write_vectors(self.root, &ws, &v, embedder.id()) {
                notes.push(format!(
                    "the vectors of {ws} could not be saved ({e}); they are computed again next time"
                ));
            }
        }
    }
}
