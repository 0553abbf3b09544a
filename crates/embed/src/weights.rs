//! The weights file (safetensors), read without a memory map: its header once, each tensor
//! the model needs by one positioned read straight into the buffer that holds it, and the
//! rows of the word-embedding table only when a text uses them.
//!
//! The word-embedding table is half of all-MiniLM-L6-v2's 90 MB and a query uses a dozen of its
//! 30,522 rows: reading it whole (as candle's memory-mapped loader copies every tensor out of
//! the map) was most of a one-shot recall's time. The rest (the encoder's layers, 42 MB) is
//! read by the kernel into the buffers the tensors use (see the `encoder` module for when).

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Shape, Tensor};

use crate::Error;

/// Where one tensor's bytes are in the file.
#[derive(Debug, Clone)]
struct TensorAt {
    dtype: DType,
    shape: Vec<usize>,
    /// Byte offset of its data in the file.
    start: u64,
    /// Its byte length (`shape`'s product times the element size).
    len: usize,
}

/// A safetensors file: its header read and checked, the file kept open for reads.
pub(crate) struct Weights {
    path: PathBuf,
    file: File,
    tensors: HashMap<String, TensorAt>,
}

impl std::fmt::Debug for Weights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Weights")
            .field("path", &self.path)
            .field("tensors", &self.tensors.len())
            .finish_non_exhaustive()
    }
}

/// The element types a weights file may hold (converted to `f32` when read).
fn dtype(name: &str) -> Option<DType> {
    Some(match name {
        "F32" => DType::F32,
        "F16" => DType::F16,
        "BF16" => DType::BF16,
        "F64" => DType::F64,
        _ => return None,
    })
}

impl Weights {
    /// Opens `path` and reads its header (8-byte little-endian length, then JSON); checks that
    /// every tensor's data lies inside the file and matches its shape and type: a truncated
    /// download is caught here, by name.
    pub(crate) fn open(path: &Path) -> Result<Self, Error> {
        use std::io::Read;
        let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
        let size = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let mut len = [0u8; 8];
        file.read_exact(&mut len)
            .map_err(|_| Error::corrupt(path, "shorter than a safetensors header"))?;
        let len = u64::from_le_bytes(len);
        if len > size.saturating_sub(8) || len > 100 << 20 {
            return Err(Error::corrupt(
                path,
                format!("header length {len} exceeds the file ({size} bytes)"),
            ));
        }
        let mut header =
            vec![0u8; usize::try_from(len).map_err(|_| Error::corrupt(path, "header too long"))?];
        file.read_exact(&mut header)
            .map_err(|e| Error::io(path, e))?;
        let header: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&header)
            .map_err(|e| Error::corrupt(path, format!("safetensors header is not JSON: {e}")))?;
        let data = size - 8 - len;
        let mut tensors = HashMap::with_capacity(header.len());
        for (name, tensor) in &header {
            if name == "__metadata__" {
                continue;
            }
            let bad = |what: &str| Error::corrupt(path, format!("tensor {name} {what}"));
            let offsets = tensor
                .get("data_offsets")
                .and_then(serde_json::Value::as_array)
                .and_then(|o| Some((o.first()?.as_u64()?, o.get(1)?.as_u64()?)))
                .ok_or_else(|| bad("has no data_offsets"))?;
            let (begin, end) = offsets;
            if end > data {
                return Err(Error::corrupt(
                    path,
                    format!("truncated: tensor {name} ends at byte {end} of {data} bytes of data"),
                ));
            }
            let type_name = tensor
                .get("dtype")
                .and_then(serde_json::Value::as_str)
                .ok_or_else(|| bad("has no dtype"))?;
            let shape = tensor
                .get("shape")
                .and_then(serde_json::Value::as_array)
                .and_then(|s| {
                    s.iter()
                        .map(|d| d.as_u64().and_then(|d| usize::try_from(d).ok()))
                        .collect::<Option<Vec<usize>>>()
                })
                .ok_or_else(|| bad("has no shape"))?;
            let Some(dtype) = dtype(type_name) else {
                // Not a weight the model can use (an integer buffer, say): it stays unread,
                // and asking for it is an error naming it.
                continue;
            };
            let elements = shape
                .iter()
                .try_fold(1usize, |n, &d| n.checked_mul(d))
                .ok_or_else(|| bad("has a shape too large"))?;
            let bytes = elements
                .checked_mul(dtype.size_in_bytes())
                .ok_or_else(|| bad("has a shape too large"))?;
            if begin > end || end - begin != bytes as u64 {
                return Err(bad(&format!(
                    "has data_offsets {begin}..{end} that do not hold its shape {shape:?} of {type_name}"
                )));
            }
            tensors.insert(
                name.clone(),
                TensorAt {
                    dtype,
                    shape,
                    start: 8 + len + begin,
                    len: bytes,
                },
            );
        }
        Ok(Weights {
            path: path.to_path_buf(),
            file,
            tensors,
        })
    }

    /// Whether the file holds tensor `name`.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.tensors.contains_key(name)
    }

    /// The shape of tensor `name`.
    pub(crate) fn shape(&self, name: &str) -> Option<&[usize]> {
        self.tensors.get(name).map(|t| t.shape.as_slice())
    }

    fn at(&self, name: &str) -> candle_core::Result<&TensorAt> {
        self.tensors.get(name).ok_or_else(|| {
            candle_core::Error::Msg(format!(
                "{}: no tensor {name} of a floating-point type",
                self.path.display()
            ))
        })
    }

    fn read_error(&self, e: &std::io::Error) -> candle_core::Error {
        candle_core::Error::Msg(format!("{}: cannot read it: {e}", self.path.display()))
    }

    /// Tensor `name` as `f32`, on the CPU: one read into the buffer the tensor owns.
    pub(crate) fn load(&self, name: &str) -> candle_core::Result<Tensor> {
        let t = self.at(name)?;
        if t.dtype == DType::F32 && cfg!(target_endian = "little") {
            let mut values = vec![0f32; t.len / 4];
            read_at(
                &self.file,
                bytemuck::cast_slice_mut(values.as_mut_slice()),
                t.start,
            )
            .map_err(|e| self.read_error(&e))?;
            return Tensor::from_vec(values, t.shape.as_slice(), &Device::Cpu);
        }
        let mut bytes = vec![0u8; t.len];
        read_at(&self.file, &mut bytes, t.start).map_err(|e| self.read_error(&e))?;
        from_le_bytes(&mut bytes, t.dtype, &t.shape)
    }

    /// Tensor `name` as `f32` into `out` (of its number of elements): an `f32` tensor is read
    /// straight into it, another type read and converted.
    pub(crate) fn load_into(&self, name: &str, out: &mut [f32]) -> candle_core::Result<()> {
        let t = self.at(name)?;
        if t.len / t.dtype.size_in_bytes() != out.len() {
            candle_core::bail!(
                "{}: tensor {name} has {} values, not {}",
                self.path.display(),
                t.len / t.dtype.size_in_bytes(),
                out.len()
            );
        }
        if t.dtype == DType::F32 && cfg!(target_endian = "little") {
            return read_at(&self.file, bytemuck::cast_slice_mut(out), t.start)
                .map_err(|e| self.read_error(&e));
        }
        let values = self.load(name)?.flatten_all()?.to_vec1::<f32>()?;
        out.copy_from_slice(&values);
        Ok(())
    }

    /// Rows `ids` of the two-dimensional tensor `name`, as one `f32` tensor of shape
    /// `(ids.len(), columns)`: only those rows are read.
    pub(crate) fn rows(&self, name: &str, ids: &[u32]) -> candle_core::Result<Tensor> {
        let t = self.at(name)?;
        let [rows, columns] = t.shape[..] else {
            candle_core::bail!("{}: tensor {name} is not a table", self.path.display());
        };
        let row_bytes = columns * t.dtype.size_in_bytes();
        let mut bytes = vec![0u8; ids.len() * row_bytes];
        for (&id, out) in ids.iter().zip(bytes.chunks_exact_mut(row_bytes.max(1))) {
            let id = usize::try_from(id).unwrap_or(usize::MAX);
            if id >= rows {
                candle_core::bail!(
                    "token id {id} is outside the {rows} rows of {name} in {}",
                    self.path.display()
                );
            }
            read_at(&self.file, out, t.start + (id * row_bytes) as u64)
                .map_err(|e| self.read_error(&e))?;
        }
        from_le_bytes(&mut bytes, t.dtype, &[ids.len(), columns])
    }
}

/// Little-endian values of `dtype` (the safetensors byte order) as an `f32` tensor.
fn from_le_bytes(bytes: &mut [u8], dtype: DType, shape: &[usize]) -> candle_core::Result<Tensor> {
    if cfg!(target_endian = "big") {
        for value in bytes.chunks_exact_mut(dtype.size_in_bytes()) {
            value.reverse();
        }
    }
    Tensor::from_raw_buffer(bytes, dtype, shape, &Device::Cpu)?.to_dtype(DType::F32)
}

/// Fills `buf` from `file` at `offset`, without moving a shared cursor (batches read the
/// word-embedding rows from several threads at once).
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < buf.len() {
            let n = std::os::windows::fs::FileExt::seek_read(
                file,
                &mut buf[done..],
                offset + done as u64,
            )?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            done += n;
        }
        Ok(())
    }
    #[cfg(not(any(unix, windows)))]
    {
        let _ = (file, buf, offset);
        Err(std::io::Error::other(
            "positioned reads are not supported on this platform",
        ))
    }
}

/// `tensor` when it has the shape `s` candle's `VarBuilder` asks for tensor `name` to have;
/// else the error it expects.
pub(crate) fn of_shape(tensor: Tensor, s: Shape, name: &str) -> candle_core::Result<Tensor> {
    if tensor.shape() != &s {
        Err(candle_core::Error::UnexpectedShape {
            msg: format!("shape mismatch for {name}"),
            expected: s,
            got: tensor.shape().clone(),
        })?;
    }
    Ok(tensor)
}

/// The encoder's tensors, each read when the model asks for it (by candle's `VarBuilder`).
impl candle_nn::var_builder::SimpleBackend for &Weights {
    fn get(
        &self,
        s: Shape,
        name: &str,
        _: candle_nn::Init,
        dtype: DType,
        dev: &Device,
    ) -> candle_core::Result<Tensor> {
        of_shape(self.get_unchecked(name, dtype, dev)?, s, name)
    }

    fn get_unchecked(&self, name: &str, dtype: DType, dev: &Device) -> candle_core::Result<Tensor> {
        self.load(name)?.to_dtype(dtype)?.to_device(dev)
    }

    fn contains_tensor(&self, name: &str) -> bool {
        self.contains(name)
    }
}
