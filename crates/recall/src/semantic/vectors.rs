//! The vectors on disk: one `.gfv` file per workspace beside the recall index, its bytes,
//! their checks, and reading it a chunk of records at a time.

use std::path::{Path, PathBuf};

use super::cosine::PreparedQuery;
use super::embedder::Embedder;
use crate::index::format::INDEX_DIR;

/// The vector cache file of a workspace.
pub(crate) fn vectors_path(root: &Path, workspace: &str) -> PathBuf {
    root.join(INDEX_DIR).join(format!("{workspace}.gfv"))
}

const MAGIC: [u8; 8] = *b"GFVECT\0\0";
const VERSION: u32 = 1;

/// One workspace's vectors: sorted by key, quantized.
#[derive(Debug, Clone, Default)]
pub(crate) struct Vectors {
    dim: usize,
    /// `(key, scale, quantized)`, sorted by key, keys unique; the quantized values as stored
    /// (8-bit two's complement, [`quantize`]).
    pub(super) keys: Vec<u64>,
    pub(super) scales: Vec<f32>,
    pub(super) values: Vec<u8>,
    /// Added since read: the file is to be written.
    pub(crate) dirty: bool,
}

impl Vectors {
    pub(super) fn empty(dim: usize) -> Self {
        Vectors {
            dim,
            ..Vectors::default()
        }
    }

    /// How many vectors.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether `key` has a vector.
    pub(crate) fn contains(&self, key: u64) -> bool {
        self.keys.binary_search(&key).is_ok()
    }

    /// The keys that have a vector, in order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.keys.iter().copied()
    }

    /// The place of `key`'s vector, if it has one.
    pub(crate) fn position(&self, key: u64) -> Option<usize> {
        self.keys.binary_search(&key).ok()
    }

    /// The cosine similarity of the query with `key`'s vector.
    #[cfg(test)]
    pub(crate) fn cosine(&self, key: u64, query: &PreparedQuery) -> Option<f32> {
        let i = self.position(key)?;
        Some(query.cosine(self.scales[i], self.row(i)))
    }

    /// `key`'s vector as stored: its scale and quantized values.
    pub(crate) fn get(&self, key: u64) -> Option<(f32, &[u8])> {
        let i = self.position(key)?;
        Some((self.scales[i], self.row(i)))
    }

    /// The quantized values of the vector at `i`.
    fn row(&self, i: usize) -> &[u8] {
        &self.values[i * self.dim..(i + 1) * self.dim]
    }

    /// Adds vectors (normalised and quantized here).
    pub(crate) fn insert(&mut self, new: Vec<(u64, Vec<f32>)>) {
        let quantized = new
            .into_iter()
            .filter(|(_, v)| v.len() == self.dim)
            .map(|(key, v)| {
                let (scale, q) = quantize(&v);
                (key, scale, q)
            })
            .collect();
        self.insert_quantized(quantized);
    }

    /// Adds vectors as stored (`(key, scale, quantized)`, from [`Vectors::get`] of another
    /// workspace's vectors of the same model); those of another dimension are ignored.
    pub(crate) fn insert_quantized(&mut self, new: Vec<(u64, f32, Vec<u8>)>) {
        if new.is_empty() {
            return;
        }
        let mut all: Vec<(u64, f32, Vec<u8>)> = Vec::with_capacity(self.keys.len() + new.len());
        for (i, &key) in self.keys.iter().enumerate() {
            let v = self.values[i * self.dim..(i + 1) * self.dim].to_vec();
            all.push((key, self.scales[i], v));
        }
        all.extend(new.into_iter().filter(|r| r.2.len() == self.dim));
        // The newest vector of a key wins: a stable sort keeps the later one last.
        all.sort_by_key(|r| r.0);
        all.dedup_by(|later, earlier| {
            if later.0 == earlier.0 {
                std::mem::swap(later, earlier);
                true
            } else {
                false
            }
        });
        self.keys = all.iter().map(|r| r.0).collect();
        self.scales = all.iter().map(|r| r.1).collect();
        self.values = all.into_iter().flat_map(|r| r.2).collect();
        self.dirty = true;
    }

    /// Keeps only the vectors whose keys `keep` says.
    pub(crate) fn retain(&mut self, keep: impl Fn(u64) -> bool) {
        let before = self.keys.len();
        let mut keys = Vec::new();
        let mut scales = Vec::new();
        let mut values = Vec::new();
        for (i, &key) in self.keys.iter().enumerate() {
            if keep(key) {
                keys.push(key);
                scales.push(self.scales[i]);
                values.extend_from_slice(&self.values[i * self.dim..(i + 1) * self.dim]);
            }
        }
        if keys.len() != before {
            self.dirty = true;
        }
        (self.keys, self.scales, self.values) = (keys, scales, values);
    }

    /// The file's bytes: header (magic, version, dimension, the model id), the records
    /// (key u64, scale f32, the quantized values), a CRC-32 of everything before it.
    pub(crate) fn encode(&self, model: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + model.len() + self.keys.len() * (12 + self.dim));
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.dim as u32).to_le_bytes());
        out.extend_from_slice(&(model.len() as u32).to_le_bytes());
        out.extend_from_slice(model.as_bytes());
        out.extend_from_slice(&(self.keys.len() as u64).to_le_bytes());
        for (i, key) in self.keys.iter().enumerate() {
            out.extend_from_slice(&key.to_le_bytes());
            out.extend_from_slice(&self.scales[i].to_le_bytes());
            out.extend_from_slice(self.row(i));
        }
        let sum = crc32fast::hash(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Decodes a file written by [`Vectors::encode`] for `model` of dimension `dim`; `None`
    /// when it is of another model, version or dimension, or damaged (then it is rebuilt).
    pub(crate) fn decode(bytes: &[u8], model: &str, dim: usize) -> Option<Vectors> {
        let mut v = Vectors::empty(dim);
        let records = bytes.len() / (12 + dim);
        v.keys.reserve(records);
        v.scales.reserve(records);
        v.values.reserve(records * dim);
        read_records(
            bytes,
            bytes.len() as u64,
            model,
            dim,
            &mut Vec::new(),
            |key, scale, values| {
                v.keys.push(key);
                v.scales.push(scale);
                v.values.extend_from_slice(values);
            },
        )?;
        Some(v)
    }
}

/// Records read per call of `read` by [`read_records`] (about 256 KiB for 384 numbers).
pub(super) const CHUNK_RECORDS: usize = 640;

/// Reads a vector file (see [`Vectors::encode`]) of `len` bytes from `r`, for `model` of
/// dimension `dim`, giving `each` every record in order: its key, scale and quantized values.
/// `buf` holds a chunk of records at a time (kept by the caller for the next file), so a file
/// is never in memory whole. `None` when the file is of another model, version or dimension,
/// or damaged (a wrong length, keys out of order, a checksum that differs, a failed read):
/// found before the records or after them (the checksum), so a caller keeps what `each`
/// gathered only on `Some`.
pub(super) fn read_records(
    mut r: impl std::io::Read,
    len: u64,
    model: &str,
    dim: usize,
    buf: &mut Vec<u8>,
    mut each: impl FnMut(u64, f32, &[u8]),
) -> Option<()> {
    let header_len = 8 + 4 + 4 + 4 + model.len() + 8;
    let record = 12 + dim;
    let mut header = vec![0u8; header_len];
    r.read_exact(&mut header).ok()?;
    let mut sum = crc32fast::Hasher::new();
    sum.update(&header);
    let u32_at = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(header.get(at..at + 4)?.try_into().ok()?))
    };
    if header[..8] != MAGIC || u32_at(8)? != VERSION || u32_at(12)? as usize != dim {
        return None;
    }
    if u32_at(16)? as usize != model.len() || &header[20..20 + model.len()] != model.as_bytes() {
        return None;
    }
    let count = u64::from_le_bytes(header[header_len - 8..].try_into().ok()?);
    let body = u64::try_from(record)
        .ok()?
        .checked_mul(count)?
        .checked_add(header_len as u64)?;
    if body.checked_add(4)? != len {
        return None;
    }
    let mut left = usize::try_from(count).ok()?;
    let mut last: Option<u64> = None;
    buf.resize(record * CHUNK_RECORDS.min(left.max(1)), 0);
    while left > 0 {
        let n = left.min(CHUNK_RECORDS);
        let chunk = &mut buf[..n * record];
        r.read_exact(chunk).ok()?;
        sum.update(chunk);
        for rec in chunk.chunks_exact(record) {
            let key = u64::from_le_bytes(rec[..8].try_into().ok()?);
            if last.is_some_and(|last| last >= key) {
                return None;
            }
            last = Some(key);
            each(
                key,
                f32::from_le_bytes(rec[8..12].try_into().ok()?),
                &rec[12..],
            );
        }
        left -= n;
    }
    let mut stored = [0u8; 4];
    r.read_exact(&mut stored).ok()?;
    (sum.finalize() == u32::from_le_bytes(stored)).then_some(())
}

/// Reads arbitrary bytes as a vector file, as a recall would (for the fuzz target): the
/// first byte is the dimension (at least 1), the second the length of the model id that
/// follows, the rest the file. Never panics; the number of vectors read, or `None` when the
/// file is refused.
#[doc(hidden)]
pub fn read_vector_bytes(data: &[u8]) -> Option<usize> {
    let (&dim, rest) = data.split_first()?;
    let (&id_len, rest) = rest.split_first()?;
    let (model, file) = rest.split_at_checked(usize::from(id_len))?;
    let model = std::str::from_utf8(model).ok()?;
    let dim = usize::from(dim.max(1));
    let query = PreparedQuery::new(vec![1.0; dim]);
    let mut count = 0;
    let mut buf = Vec::new();
    read_records(
        file,
        file.len() as u64,
        model,
        dim,
        &mut buf,
        |_, scale, values| {
            std::hint::black_box(query.cosine(scale, values));
            count += 1;
        },
    )?;
    Some(count)
}

/// Unit length, then 8-bit integers with one scale, `v[i] ≈ q[i] × scale`, stored as their
/// two's complement bytes.
pub(super) fn quantize(v: &[f32]) -> (f32, Vec<u8>) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let norm = if norm > 0.0 { norm } else { 1.0 };
    let max = v.iter().fold(0f32, |m, x| m.max((x / norm).abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let q = v
        .iter()
        .map(|x| (x / norm / scale).round().clamp(-127.0, 127.0) as i8 as u8)
        .collect();
    (scale, q)
}

pub(crate) fn read_vectors(root: &Path, workspace: &str, embedder: &dyn Embedder) -> Vectors {
    std::fs::read(vectors_path(root, workspace))
        .ok()
        .and_then(|b| Vectors::decode(&b, embedder.id(), embedder.dimension()))
        .unwrap_or_else(|| Vectors::empty(embedder.dimension()))
}

pub(crate) fn write_vectors(
    root: &Path,
    workspace: &str,
    v: &Vectors,
    model: &str,
) -> Result<(), goldfish_core::fs::FsError> {
    let path = vectors_path(root, workspace);
    // Private like the rest of the store (0600 in a 0700 directory): vectors of private text.
    let private = goldfish_core::fs::WriteOptions::private();
    if let Some(dir) = path.parent() {
        goldfish_core::fs::create_dir_all(dir, private.dir_mode)?;
    }
    goldfish_core::fs::write_atomic(&path, &v.encode(model), &private)
}

/// Keeps in `workspace`'s vector file only the vectors whose key `keep` says, whatever model
/// wrote it (the file names its model and dimension), without loading a model: what
/// forgetting a memory does to the cache. A file that does not decode is removed (it is a
/// cache, rebuilt on demand). Returns how many vectors went.
pub(crate) fn retain_keys(
    root: &Path,
    workspace: &str,
    keep: impl Fn(u64) -> bool,
) -> Result<usize, goldfish_core::fs::FsError> {
    let path = vectors_path(root, workspace);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => {
            return Err(goldfish_core::fs::FsError::new(
                goldfish_core::fs::FsOp::Read,
                &path,
                e,
            ));
        }
    };
    let header = |at: usize| -> Option<usize> {
        Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize)
    };
    let decoded = header(12).zip(header(16)).and_then(|(dim, len)| {
        let model = std::str::from_utf8(bytes.get(20..20 + len)?).ok()?;
        Some((Vectors::decode(&bytes, model, dim)?, model.to_string()))
    });
    let Some((mut vectors, model)) = decoded else {
        return match std::fs::remove_file(&path) {
            Ok(()) => Ok(0),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(goldfish_core::fs::FsError::new(
                goldfish_core::fs::FsOp::Write,
                &path,
                e,
            )),
        };
    };
    let before = vectors.len();
    vectors.retain(keep);
    let dropped = before - vectors.len();
    if dropped > 0 {
        write_vectors(root, workspace, &vectors, &model)?;
    }
    Ok(dropped)
}
