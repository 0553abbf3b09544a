//! `SignalDir`: the signal files of one worktree's `.goblin/` directory.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use goldfish_core::fs::{FsError, FsOp, WriteOptions, write_atomic};
use goldfish_core::time::{SharedClock, now_millis, system_clock};

use crate::{Error, ErrorKind, Signal, SignalKind};

/// The directory in a worktree that holds the signal files, `pipeline.json`, `cancel` and
/// `GOBLIN_NOTES.md`.
pub const GOBLIN_DIR: &str = ".goblin";

/// The signal files in `{worktree}/.goblin/`.
///
/// [`emit`](SignalDir::emit) writes atomically (a temporary file, `fsync`, rename, `fsync` of
/// the directory), so a reader never sees half a document and an emitted signal survives a
/// crash of the machine. Files follow the umask, as files in a worktree do. Only the six
/// signal files are ever read or removed: `pipeline.json`, `GOBLIN_NOTES.md` and anything
/// else in the directory are left alone.
///
/// # Example
///
/// ```
/// use goldfish_signals::{BuildComplete, Signal, SignalDir, SignalKind};
///
/// # fn main() -> Result<(), goldfish_signals::Error> {
/// # let tmp = tempfile::tempdir().expect("temp dir");
/// # let worktree = tmp.path();
/// let dir = SignalDir::new(worktree);
/// let mut body = BuildComplete::default();
/// body.commits = Some(5);
/// dir.emit(&Signal::from(body))?;
/// let read = dir.read(SignalKind::BuildComplete)?.expect("just emitted");
/// assert!(read.body().is_some());
/// dir.clear_all()?;
/// assert!(dir.read(SignalKind::BuildComplete)?.is_none());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SignalDir {
    dir: PathBuf,
    write: WriteOptions,
    clock: SharedClock,
}

/// A signal file found by [`SignalDir::present`]: its kind, where it is, and either the
/// signal or why it cannot be read.
#[derive(Debug)]
#[non_exhaustive]
pub struct PresentSignal {
    /// Which signal.
    pub kind: SignalKind,
    /// The file.
    pub path: PathBuf,
    /// Its size in bytes when it was read.
    pub len: u64,
    /// Its modification time, when the file system reports one.
    pub modified: Option<SystemTime>,
    /// The parsed signal, or an [`ErrorKind::InvalidSignal`] (with path, line and column) or
    /// I/O error. A signal that cannot be read must not advance a pipeline.
    pub signal: Result<Signal, Error>,
}

impl SignalDir {
    /// The signal directory of `worktree`: `{worktree}/.goblin/`.
    pub fn new(worktree: impl AsRef<Path>) -> SignalDir {
        SignalDir::at(worktree.as_ref().join(GOBLIN_DIR))
    }

    /// A signal directory at exactly `dir` (no `.goblin` appended).
    pub fn at(dir: impl Into<PathBuf>) -> SignalDir {
        SignalDir {
            dir: dir.into(),
            write: WriteOptions::umask(),
            clock: system_clock(),
        }
    }

    /// Uses `clock` for the `completed_at` that [`emit_stamped`](SignalDir::emit_stamped)
    /// fills in (default: the system clock).
    pub fn with_clock(mut self, clock: SharedClock) -> SignalDir {
        self.clock = clock;
        self
    }

    /// Uses `options` for [`emit`](SignalDir::emit) (default: [`WriteOptions::umask`], durable).
    pub fn with_write_options(mut self, options: WriteOptions) -> SignalDir {
        self.write = options;
        self
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The file of `kind`: `.goblin/<kind>`.
    pub fn signal_path(&self, kind: SignalKind) -> PathBuf {
        self.dir.join(kind.file_name())
    }

    /// Writes `signal` atomically (creating `.goblin/` if needed) and returns its path. An
    /// existing file of the same kind is replaced.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`] when the directory or file cannot be written.
    pub fn emit(&self, signal: &Signal) -> Result<PathBuf, Error> {
        let path = self.signal_path(signal.kind());
        write_atomic(&path, signal.to_json().as_bytes(), &self.write)?;
        Ok(path)
    }

    /// Emits `signal` as [`emit`](SignalDir::emit) does, after setting its `completed_at` to
    /// now (by this directory's clock, to the millisecond) when its body has none; returns
    /// the path and the signal as written. A signal with no body is written empty. This is
    /// what `goldfish signal emit` does.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`] when the directory or file cannot be written.
    pub fn emit_stamped(&self, mut signal: Signal) -> Result<(PathBuf, Signal), Error> {
        signal.stamp_completed_at(now_millis(self.clock.as_ref()));
        let path = self.emit(&signal)?;
        Ok((path, signal))
    }

    /// Reads the signal of `kind`; `Ok(None)` when its file does not exist.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidSignal`] with the path, line and column when the file is not valid
    /// UTF-8 or not a valid body; [`ErrorKind::Io`] when it cannot be read.
    pub fn read(&self, kind: SignalKind) -> Result<Option<Signal>, Error> {
        self.read_entry(kind).map(|entry| entry.signal).transpose()
    }

    /// Every signal file that exists, in pipeline order, each with its signal or its error.
    /// A missing directory has no signals.
    pub fn present(&self) -> Vec<PresentSignal> {
        SignalKind::ALL
            .into_iter()
            .filter_map(|kind| self.read_entry(kind))
            .collect()
    }

    /// Reads one signal file with its metadata; `None` when it does not exist.
    pub(crate) fn read_entry(&self, kind: SignalKind) -> Option<PresentSignal> {
        let path = self.signal_path(kind);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
            Err(e) => {
                let err = Error::from(FsError::new(FsOp::Read, &path, e));
                return Some(PresentSignal {
                    kind,
                    path,
                    len: 0,
                    modified: None,
                    signal: Err(err),
                });
            }
        };
        // The metadata is read after the contents: if the file changed in between, the newer
        // time only makes an empty file wait longer before it counts (see the runner).
        let modified = fs::metadata(&path).and_then(|m| m.modified()).ok();
        let signal = parse_bytes(kind, &bytes).map_err(|e| e.with_path(&path));
        Some(PresentSignal {
            kind,
            path,
            len: bytes.len() as u64,
            modified,
            signal,
        })
    }

    /// Removes the signal of `kind`; returns whether a file was removed.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`] when the file exists but cannot be removed.
    pub fn clear(&self, kind: SignalKind) -> Result<bool, Error> {
        let path = self.signal_path(kind);
        match fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(FsError::new(FsOp::Remove, &path, e).into()),
        }
    }

    /// Removes every signal file (only the six signals) and returns the kinds removed.
    ///
    /// # Errors
    ///
    /// The first [`ErrorKind::Io`] met; the other files are still tried.
    pub fn clear_all(&self) -> Result<Vec<SignalKind>, Error> {
        let mut removed = Vec::new();
        let mut first_error = None;
        for kind in SignalKind::ALL {
            match self.clear(kind) {
                Ok(true) => removed.push(kind),
                Ok(false) => {}
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(removed),
        }
    }
}

/// Decodes a signal file's bytes: invalid UTF-8 is an [`ErrorKind::InvalidSignal`] with the
/// line and column of the first bad byte.
pub(crate) fn parse_bytes(kind: SignalKind, bytes: &[u8]) -> Result<Signal, Error> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Signal::parse(kind, text),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let line = 1 + good.iter().filter(|&&b| b == b'\n').count();
            let column = 1 + good.iter().rev().take_while(|&&b| b != b'\n').count();
            Err(
                Error::new(ErrorKind::InvalidSignal { kind }, "not valid UTF-8")
                    .at(line, column)
                    .with_source(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_errors_have_position() {
        let cases: &[(&[u8], usize, usize)] = &[
            (b"\xff", 1, 1),
            (b"{\n  \"a\": \"\xfe\"", 2, 9),
            (b"ab\ncd\xc3", 2, 3),
        ];
        for &(bytes, line, column) in cases {
            let err = parse_bytes(SignalKind::TestFailed, bytes).unwrap_err();
            assert!(err.is_invalid_signal());
            assert_eq!(
                (err.line(), err.column()),
                (Some(line), Some(column)),
                "{bytes:?}"
            );
        }
    }
}
