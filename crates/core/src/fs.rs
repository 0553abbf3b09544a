//! Atomic file primitives: the only module of this crate that does I/O.
//!
//! Two operations cover every write goldfish makes:
//!
//! - [`AtomicFile`] / [`write_atomic`]: replace a file's contents so that a reader sees either
//!   the old bytes or the new ones, never a mix, even if the process is killed at any instant.
//!   The new bytes go to a temporary file in the same directory, which is `fsync`ed, renamed
//!   over the target, and then the directory itself is `fsync`ed so the rename is durable.
//! - [`update_locked`]: a read–modify–write of a shared file (a day file, a journal, a notes
//!   file) under an exclusive [`File::lock`] taken on a *sidecar* lock file
//!   (`.{name}.lock` beside the target). The lock is never taken on the file being renamed,
//!   because a rename swaps the inode and a lock on the old inode would protect nothing.
//!
//! Temporary files are named `.{target}.{unique}.tmp` ([`is_temp_file_name`]); readers that
//! list directories skip them. A writer holds an exclusive lock on its own temporary file for
//! as long as the file exists, so a temporary file nobody holds locked belongs to a writer that
//! was killed: the next [`AtomicFile`] created in that directory removes it
//! ([`remove_abandoned_temp_files`]).
//!
//! # Locks and child processes
//!
//! `flock` locks belong to an *open file description*, which a child process shares with its
//! parent from `fork` until it `exec`s or exits (or for its whole life, when it inherits the
//! descriptor). Every lock in this module is therefore released with an explicit unlock before
//! its descriptor is closed: that frees the lock at once, even while a child spawned by another
//! thread still holds a copy of the descriptor. The descriptors are opened close-on-exec (what
//! `std` always does), so no program a child runs keeps them.

use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// What a failed file operation was doing; part of [`FsError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FsOp {
    /// Reading a file.
    Read,
    /// Creating or writing a (temporary) file.
    Write,
    /// Creating a directory.
    CreateDir,
    /// Opening or locking a sidecar lock file.
    Lock,
    /// Renaming a temporary file over its target.
    Rename,
    /// Flushing a file or directory to stable storage.
    Sync,
    /// Removing a file.
    Remove,
    /// Reading or changing permissions.
    Permissions,
    /// Listing a directory.
    ListDir,
}

impl fmt::Display for FsOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FsOp::Read => "read",
            FsOp::Write => "write",
            FsOp::CreateDir => "create directory",
            FsOp::Lock => "lock",
            FsOp::Rename => "rename onto",
            FsOp::Sync => "sync",
            FsOp::Remove => "remove",
            FsOp::Permissions => "set permissions of",
            FsOp::ListDir => "list directory",
        })
    }
}

/// A file-system operation failed; names the operation and the path it concerned.
#[derive(Debug, thiserror::Error)]
#[error("cannot {op} {}: {source}", path.display())]
pub struct FsError {
    op: FsOp,
    path: PathBuf,
    line: Option<usize>,
    #[source]
    source: io::Error,
}

impl FsError {
    /// Builds an error for `op` on `path`.
    pub fn new(op: FsOp, path: impl Into<PathBuf>, source: io::Error) -> Self {
        FsError {
            op,
            path: path.into(),
            line: None,
            source,
        }
    }

    /// The 1-based line concerned, when known (the first bad line of a non-UTF-8 file).
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// The operation that failed.
    pub fn op(&self) -> FsOp {
        self.op
    }

    /// The path the operation concerned.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The underlying I/O error.
    pub fn io_error(&self) -> &io::Error {
        &self.source
    }

    /// The kind of the underlying I/O error.
    pub fn kind(&self) -> io::ErrorKind {
        self.source.kind()
    }

    /// True when the file or directory does not exist.
    pub fn is_not_found(&self) -> bool {
        self.kind() == io::ErrorKind::NotFound
    }

    /// True when the file system refused for lack of permission (for example a read-only store).
    pub fn is_permission_denied(&self) -> bool {
        matches!(
            self.kind(),
            io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
        )
    }

    /// True when the file exists but is not valid UTF-8 (the message names the line).
    pub fn is_invalid_utf8(&self) -> bool {
        self.op == FsOp::Read && self.kind() == io::ErrorKind::InvalidData
    }
}

/// The kind of the first I/O error in `err`'s chain of sources (`err` itself included): what
/// every crate's `Error::io_kind` answers, so a caller reaches [`io::ErrorKind`] without
/// depending on this crate.
pub fn io_kind_in(err: &(dyn std::error::Error + 'static)) -> Option<io::ErrorKind> {
    let mut next = Some(err);
    while let Some(e) = next {
        if let Some(fs) = e.downcast_ref::<FsError>() {
            return Some(fs.kind());
        }
        if let Some(io) = e.downcast_ref::<io::Error>() {
            return Some(io.kind());
        }
        next = e.source();
    }
    None
}

/// True when `err`'s chain of sources (`err` itself included) holds a read of a file that is
/// not valid UTF-8: what every crate's `Error::is_invalid_utf8` answers, however the crate
/// classifies the failure otherwise.
pub fn invalid_utf8_in(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(err);
    while let Some(e) = next {
        if let Some(fs) = e.downcast_ref::<FsError>() {
            return fs.is_invalid_utf8();
        }
        let is_utf8 = |e: &(dyn std::error::Error + 'static)| {
            e.is::<std::str::Utf8Error>() || e.is::<std::string::FromUtf8Error>()
        };
        if is_utf8(e) {
            return true;
        }
        // An I/O error made from a UTF-8 error hides it from `source()`: look inside.
        if let Some(io) = e.downcast_ref::<io::Error>()
            && io.get_ref().is_some_and(|inner| is_utf8(inner))
        {
            return true;
        }
        next = e.source();
    }
    false
}

/// How new files and directories are created by the writers in this module.
///
/// Files that already exist always keep their permissions when they are replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteOptions {
    /// Unix mode for a file created by this write; `None` follows the process umask.
    pub file_mode: Option<u32>,
    /// Unix mode for directories created on the way to the file; `None` follows the umask.
    pub dir_mode: Option<u32>,
    /// Create missing parent directories (default: yes).
    pub create_parents: bool,
    /// Flush the file and its directory to stable storage before returning (default: yes).
    /// Turning this off keeps atomicity against crashes of the process but not of the machine.
    pub durable: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            file_mode: None,
            dir_mode: None,
            create_parents: true,
            durable: true,
        }
    }
}

impl WriteOptions {
    /// Private files: new files 0600, new directories 0700 (the goldfish store's policy).
    pub fn private() -> Self {
        WriteOptions {
            file_mode: Some(0o600),
            dir_mode: Some(0o700),
            ..WriteOptions::default()
        }
    }

    /// Files that follow the umask, as in a worktree (`.goblin/`, `JOURNAL.md`).
    pub fn umask() -> Self {
        WriteOptions::default()
    }
}

/// The environment variable that names the goldfish home directory (the store).
pub const GOLDFISH_HOME_ENV: &str = "GOLDFISH_HOME";

/// The goldfish home directory: `$GOLDFISH_HOME` when set and not empty, else `.goldfish` in
/// the user's home (`$HOME`, or `%USERPROFILE%` on Windows); `None` when neither is known.
///
/// Reads the process environment: for a binary's `from_env` constructors (the store's,
/// the journal archive's); library code takes the directory as an argument. Every such
/// constructor resolves the home here, so they always agree.
pub fn goldfish_home_from_env() -> Option<PathBuf> {
    goldfish_home_from(
        std::env::var_os(GOLDFISH_HOME_ENV),
        std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")),
    )
}

/// [`goldfish_home_from_env`] from explicit values of `$GOLDFISH_HOME` and the user's home (empty
/// values count as unset).
pub fn goldfish_home_from(
    goldfish_home: Option<OsString>,
    user_home: Option<OsString>,
) -> Option<PathBuf> {
    match goldfish_home.filter(|h| !h.is_empty()) {
        Some(home) => Some(PathBuf::from(home)),
        None => user_home
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".goldfish")),
    }
}

/// Suffix of every temporary file this module creates.
const TEMP_SUFFIX: &str = ".tmp";

/// How many times [`AtomicFile::create`] tries a new temporary name when a sweep removed the
/// file it had just created (only possible in the instant between creating and locking it).
const TEMP_ATTEMPTS: usize = 16;

/// True for names of temporary files made by [`AtomicFile`] (`.{target}.{unique}.tmp`).
/// Readers listing a directory must skip these.
pub fn is_temp_file_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(TEMP_SUFFIX)
}

/// True for names made by [`AtomicFile`] exactly: `.{target}.{pid}-{hex}-{n}.tmp`. Only such
/// files are ever removed by [`remove_abandoned_temp_files`], so a person's own `.notes.tmp`
/// in a worktree is never touched.
fn is_own_temp_name(name: &str) -> bool {
    let Some(inner) = name
        .strip_prefix('.')
        .and_then(|n| n.strip_suffix(TEMP_SUFFIX))
    else {
        return false;
    };
    let Some((target, unique)) = inner.rsplit_once('.') else {
        return false;
    };
    let mut parts = unique.split('-');
    let (Some(pid), Some(nanos), Some(n), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let all = |s: &str, f: fn(&u8) -> bool| !s.is_empty() && s.bytes().all(|b| f(&b));
    !target.is_empty()
        && all(pid, u8::is_ascii_digit)
        && all(nanos, u8::is_ascii_hexdigit)
        && all(n, u8::is_ascii_digit)
}

/// True for names of sidecar lock files made by [`lock_exclusive`] (`.{target}.lock`).
pub fn is_lock_file_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".lock")
}

/// Creates `dir` and its missing parents with `mode` (Unix) or the umask.
pub fn create_dir_all(dir: &Path, mode: Option<u32>) -> Result<(), FsError> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    builder
        .create(dir)
        .map_err(|e| FsError::new(FsOp::CreateDir, dir, e))
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn file_name_of(path: &Path) -> Result<&str, FsError> {
    path.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
        FsError::new(
            FsOp::Write,
            path,
            io::Error::new(io::ErrorKind::InvalidInput, "path has no UTF-8 file name"),
        )
    })
}

fn unique_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{}-{nanos:x}-{n}", std::process::id())
}

/// Flushes a directory's entries (a rename inside it) to stable storage. A no-op off Unix.
pub fn sync_dir(dir: &Path) -> Result<(), FsError> {
    #[cfg(unix)]
    {
        let handle = File::open(dir).map_err(|e| FsError::new(FsOp::Sync, dir, e))?;
        handle
            .sync_all()
            .map_err(|e| FsError::new(FsOp::Sync, dir, e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// A replacement for a file that becomes visible all at once on [`commit`](AtomicFile::commit).
///
/// Write the new contents through [`std::io::Write`], then commit. Dropping an `AtomicFile`
/// without committing removes its temporary file and leaves the target untouched.
///
/// # Example
///
/// ```
/// use std::io::Write;
/// use goldfish_core::fs::{AtomicFile, WriteOptions};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("notes.md");
/// let mut file = AtomicFile::create(&path, &WriteOptions::private())?;
/// file.write_all(b"# Notes\n")?;
/// file.commit()?;
/// assert_eq!(std::fs::read_to_string(&path)?, "# Notes\n");
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    file: Option<File>,
    options: WriteOptions,
}

impl AtomicFile {
    /// Starts replacing `target`: creates the temporary file beside it (and missing parent
    /// directories when the options say so).
    pub fn create(target: impl AsRef<Path>, options: &WriteOptions) -> Result<Self, FsError> {
        let target = target.as_ref().to_path_buf();
        let dir = parent_of(&target).to_path_buf();
        let name = file_name_of(&target)?;
        if options.create_parents && !dir.exists() {
            create_dir_all(&dir, options.dir_mode)?;
        }
        // Best effort: temp files of killed writers are harmless to readers, so a failed sweep
        // must not fail the write.
        let _ = remove_abandoned_temp_files(&dir);
        let mut attempts = 0;
        loop {
            let temp = dir.join(format!(".{name}.{}{TEMP_SUFFIX}", unique_suffix()));
            let mut open = OpenOptions::new();
            open.write(true).create_new(true);
            #[cfg(unix)]
            if let Some(mode) = options.file_mode {
                use std::os::unix::fs::OpenOptionsExt;
                open.mode(mode);
            }
            let file = open
                .open(&temp)
                .map_err(|e| FsError::new(FsOp::Write, &target, e))?;
            if hold_temp(&file, &temp).map_err(|e| FsError::new(FsOp::Lock, &temp, e))? {
                return Ok(AtomicFile {
                    target,
                    temp,
                    file: Some(file),
                    options: *options,
                });
            }
            // A sweep took the file between its creation and our lock: it is gone, try a
            // new name.
            attempts += 1;
            if attempts >= TEMP_ATTEMPTS {
                return Err(FsError::new(
                    FsOp::Write,
                    &target,
                    io::Error::other("temporary files keep disappearing from this directory"),
                ));
            }
        }
    }

    /// The file this will replace.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Makes the new contents visible: sync, carry over permissions, rename, sync the directory.
    pub fn commit(mut self) -> Result<(), FsError> {
        let file = self.file.take().ok_or_else(|| {
            FsError::new(
                FsOp::Write,
                &self.target,
                io::Error::other("already committed"),
            )
        })?;
        let result = self.finish(file);
        if result.is_err() {
            // The temp file is useless now; the target is untouched.
            let _ = fs::remove_file(&self.temp);
        }
        result
    }

    fn finish(&self, mut file: File) -> Result<(), FsError> {
        file.flush()
            .map_err(|e| FsError::new(FsOp::Write, &self.target, e))?;
        // Permissions: an existing file keeps its own; a new one gets exactly the mode asked
        // for (the umask may have narrowed what `open` applied).
        match fs::metadata(&self.target) {
            Ok(meta) => fs::set_permissions(&self.temp, meta.permissions())
                .map_err(|e| FsError::new(FsOp::Permissions, &self.target, e))?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                #[cfg(unix)]
                if let Some(mode) = self.options.file_mode {
                    use std::os::unix::fs::PermissionsExt;
                    fs::set_permissions(&self.temp, fs::Permissions::from_mode(mode))
                        .map_err(|e| FsError::new(FsOp::Permissions, &self.target, e))?;
                }
            }
            Err(e) => return Err(FsError::new(FsOp::Permissions, &self.target, e)),
        }
        if self.options.durable {
            file.sync_all()
                .map_err(|e| FsError::new(FsOp::Sync, &self.target, e))?;
        }
        // The temp file stays open (and locked) until it has its new name, so a sweep never
        // sees it unlocked under its temporary name.
        #[cfg(not(unix))]
        drop_temp(file);
        let renamed = fs::rename(&self.temp, &self.target)
            .map_err(|e| FsError::new(FsOp::Rename, &self.target, e));
        #[cfg(unix)]
        drop_temp(file);
        renamed?;
        if self.options.durable {
            sync_dir(parent_of(&self.target))?;
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.file.as_mut() {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("AtomicFile already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self.file.as_mut() {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            // Removed while still locked, so no sweep can see it abandoned first.
            let _ = fs::remove_file(&self.temp);
            drop_temp(file);
        }
    }
}

/// Locks a freshly created temp file and checks that `path` still names it. `Ok(false)` when a
/// sweep removed it before the lock was taken (the caller tries another name).
#[cfg(unix)]
fn hold_temp(file: &File, path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    if file.lock().is_err() {
        // A file system without locks: no sweep can lock the file either, so none removes it.
        return Ok(true);
    }
    let ours = file.metadata()?;
    let same = match fs::symlink_metadata(path) {
        Ok(named) => named.dev() == ours.dev() && named.ino() == ours.ino(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(e),
    };
    if !same {
        let _ = file.unlock();
    }
    Ok(same)
}

/// Off Unix an open file cannot be removed, so no sweep can take it: nothing to hold.
#[cfg(not(unix))]
fn hold_temp(_file: &File, _path: &Path) -> io::Result<bool> {
    Ok(true)
}

/// Releases a temp file's lock explicitly (see "Locks and child processes") and closes it.
fn drop_temp(file: File) {
    #[cfg(unix)]
    let _ = file.unlock();
    drop(file);
}

/// Replaces `path` with `contents` atomically (see [`AtomicFile`]).
pub fn write_atomic(path: &Path, contents: &[u8], options: &WriteOptions) -> Result<(), FsError> {
    let mut file = AtomicFile::create(path, options)?;
    file.write_all(contents)
        .map_err(|e| FsError::new(FsOp::Write, path, e))?;
    file.commit()
}

/// Reads `path` as UTF-8. Invalid UTF-8 is an [`FsError`] whose message names the line and
/// byte offset of the first bad byte.
pub fn read_utf8(path: &Path) -> Result<String, FsError> {
    let bytes = fs::read(path).map_err(|e| FsError::new(FsOp::Read, path, e))?;
    decode_utf8(path, bytes)
}

/// Like [`read_utf8`], but a missing file is `Ok(None)`.
pub fn read_utf8_opt(path: &Path) -> Result<Option<String>, FsError> {
    match fs::read(path) {
        Ok(bytes) => decode_utf8(path, bytes).map(Some),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(FsError::new(FsOp::Read, path, e)),
    }
}

fn decode_utf8(path: &Path, bytes: Vec<u8>) -> Result<String, FsError> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        let mut err = FsError::new(
            FsOp::Read,
            path,
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("not valid UTF-8 at line {line} (byte {at})"),
            ),
        );
        err.line = Some(line);
        err
    })
}

/// The sidecar lock file that guards `target`: `.{name}.lock` in the same directory.
pub fn lock_path_for(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    parent_of(target).join(format!(".{name}.lock"))
}

/// An exclusive lock on a sidecar lock file, released when dropped.
///
/// Dropping unlocks explicitly before closing the descriptor. Closing alone would not be
/// enough: while a child process forked by another thread still shares the descriptor (until
/// it `exec`s), the lock would stay held and every other locker would wait for the child.
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
}

impl FileLock {
    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(unix)]
impl std::os::fd::AsFd for FileLock {
    /// The lock file's descriptor (opened close-on-exec), for inspection; the lock still ends
    /// when this guard is dropped, whoever holds a copy of the descriptor.
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.file.as_fd()
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // The explicit unlock releases the lock of the whole open file description, including
        // copies that forked children still hold; closing our descriptor would not.
        let _ = self.file.unlock();
    }
}

fn open_lock_file(target: &Path, options: &WriteOptions) -> Result<(File, PathBuf), FsError> {
    let path = lock_path_for(target);
    let dir = parent_of(&path);
    if options.create_parents && !dir.exists() {
        create_dir_all(dir, options.dir_mode)?;
    }
    let mut open = OpenOptions::new();
    open.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    if let Some(mode) = options.file_mode {
        use std::os::unix::fs::OpenOptionsExt;
        open.mode(mode);
    }
    let file = open
        .open(&path)
        .map_err(|e| FsError::new(FsOp::Lock, &path, e))?;
    Ok((file, path))
}

/// Takes an exclusive lock guarding `target` (on its sidecar lock file, see [`lock_path_for`]),
/// blocking until other holders release it. Creates the lock file (and missing parents when the
/// options say so). A directory that cannot be written fails at once, without waiting.
pub fn lock_exclusive(target: &Path, options: &WriteOptions) -> Result<FileLock, FsError> {
    let (file, path) = open_lock_file(target, options)?;
    file.lock()
        .map_err(|e| FsError::new(FsOp::Lock, &path, e))?;
    Ok(FileLock { file, path })
}

/// Like [`lock_exclusive`], but without waiting: `Ok(None)` when another holder has the lock.
pub fn try_lock_exclusive(
    target: &Path,
    options: &WriteOptions,
) -> Result<Option<FileLock>, FsError> {
    let (file, path) = open_lock_file(target, options)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(FileLock { file, path })),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(FsError::new(FsOp::Lock, &path, e)),
    }
}

/// What an [`update_locked`] closure decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update<T> {
    /// Replace the file with these contents, then return the value.
    Write(String, T),
    /// Leave the file as it is and return the value.
    Keep(T),
}

/// Read–modify–write of `target` under its exclusive sidecar lock.
///
/// `f` receives the current contents (`None` when the file does not exist) and decides whether
/// to replace them. Any number of threads and processes may call this on the same file at once:
/// each sees the result of all the updates before it, so no update is lost. The replacement is
/// atomic ([`AtomicFile`]), so a process killed at any instant leaves the old or the new file.
/// If `f` fails, nothing is written. Temporary files left behind in the directory by killed
/// writers are removed when the new contents are written ([`AtomicFile::create`]).
pub fn update_locked<T, E>(
    target: &Path,
    options: &WriteOptions,
    f: impl FnOnce(Option<&str>) -> Result<Update<T>, E>,
) -> Result<T, E>
where
    E: From<FsError>,
{
    let _lock = lock_exclusive(target, options)?;
    let current = read_utf8_opt(target)?;
    match f(current.as_deref())? {
        Update::Keep(value) => Ok(value),
        Update::Write(contents, value) => {
            write_atomic(target, contents.as_bytes(), options)?;
            Ok(value)
        }
    }
}

/// Removes the temporary files in `dir` that writers killed mid-write left behind; returns
/// how many were removed.
///
/// A writer holds an exclusive lock on its temporary file from just after creating it until
/// it is renamed or removed, so a temporary file that can be locked belongs to no live
/// writer. Files of a writer still at work are never touched, however old. Only names made by
/// [`AtomicFile`] (`.{target}.{pid}-{hex}-{n}.tmp`) are considered. [`AtomicFile::create`]
/// calls this for its directory, so strays are cleaned by the next write there. Off Unix this
/// removes nothing (an open file cannot be removed there, and no lock is held on temp files).
pub fn remove_abandoned_temp_files(dir: &Path) -> Result<usize, FsError> {
    remove_temps(dir, None)
}

/// Removes the abandoned temporary files in `dir` (see [`remove_abandoned_temp_files`]) that
/// are also at least `max_age` old; returns how many were removed.
pub fn remove_stale_temp_files(dir: &Path, max_age: Duration) -> Result<usize, FsError> {
    remove_temps(dir, Some(max_age))
}

fn remove_temps(dir: &Path, max_age: Option<Duration>) -> Result<usize, FsError> {
    let entries = fs::read_dir(dir).map_err(|e| FsError::new(FsOp::ListDir, dir, e))?;
    let now = SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_own_temp_name) {
            continue;
        }
        if let Some(max_age) = max_age {
            let age = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|m| now.duration_since(m).ok());
            if age.is_none_or(|a| a < max_age) {
                continue;
            }
        }
        if remove_if_abandoned(&entry.path()) {
            removed += 1;
        }
    }
    Ok(removed)
}

/// Removes the temp file at `path` when no writer holds its lock. The lock is held while
/// removing, so a writer that created the file but has not locked it yet finds it gone and
/// picks another name ([`hold_temp`]).
#[cfg(unix)]
fn remove_if_abandoned(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    if file.try_lock().is_err() {
        return false;
    }
    let removed = fs::remove_file(path).is_ok();
    let _ = file.unlock();
    removed
}

#[cfg(not(unix))]
fn remove_if_abandoned(_path: &Path) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_creates_and_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/file.md");
        write_atomic(&path, b"one", &WriteOptions::private()).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "one");
        write_atomic(&path, b"two", &WriteOptions::private()).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        let names: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(
            names,
            vec!["file.md".to_string()],
            "no temp file left behind"
        );
    }

    #[cfg(unix)]
    #[test]
    fn modes_new_private_and_existing_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store/ws/file.md");
        write_atomic(&path, b"x", &WriteOptions::private()).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"y", &WriteOptions::private()).unwrap();
        assert_eq!(mode(&path), 0o640, "a replaced file keeps its permissions");
    }

    #[test]
    fn drop_without_commit_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        {
            let mut f = AtomicFile::create(&path, &WriteOptions::default()).unwrap();
            f.write_all(b"partial").unwrap();
        }
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn update_locked_sees_previous_and_keeps_on_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.md");
        for i in 0..3 {
            update_locked::<_, FsError>(&path, &WriteOptions::default(), |cur| {
                Ok(Update::Write(format!("{}{i}\n", cur.unwrap_or("")), ()))
            })
            .unwrap();
        }
        assert_eq!(fs::read_to_string(&path).unwrap(), "0\n1\n2\n");
        let err = update_locked::<(), FsError>(&path, &WriteOptions::default(), |_| {
            Err(FsError::new(FsOp::Write, "x", io::Error::other("refused")))
        });
        assert!(err.is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), "0\n1\n2\n");
    }

    #[test]
    fn invalid_utf8_names_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.md");
        fs::write(&path, b"ok\nstill ok\n\xff\xfe").unwrap();
        let err = read_utf8(&path).unwrap_err();
        assert!(err.is_invalid_utf8());
        assert_eq!(err.line(), Some(3));
        let msg = err.to_string();
        assert!(msg.contains("line 3"), "{msg}");
        assert!(msg.contains("bad.md"), "{msg}");
    }

    #[test]
    fn goldfish_home_resolution() {
        let cases: [(Option<&str>, Option<&str>, Option<&str>); 5] = [
            (Some("/g"), Some("/h"), Some("/g")),
            (None, Some("/h"), Some("/h/.goldfish")),
            (Some(""), Some("/h"), Some("/h/.goldfish")),
            (None, None, None),
            (Some(""), Some(""), None),
        ];
        for (gh, home, want) in cases {
            let got = goldfish_home_from(gh.map(OsString::from), home.map(OsString::from));
            assert_eq!(got, want.map(PathBuf::from), "{gh:?} {home:?}");
        }
    }

    #[test]
    fn abandoned_temp_files_are_removed_by_the_next_write_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("day.md");
        let abandoned = [
            dir.path().join(".day.md.1-a-0.tmp"),
            dir.path().join(".other.md.3-c-0.tmp"),
        ];
        for p in &abandoned {
            fs::write(p, b"partial").unwrap();
        }
        // Not a name this module makes: a person's file, never touched.
        let foreign = dir.path().join(".notes.tmp");
        fs::write(&foreign, b"mine").unwrap();
        // A live writer in the middle of its write (its temp file is locked).
        let mut live =
            AtomicFile::create(dir.path().join("live.md"), &WriteOptions::default()).unwrap();
        live.write_all(b"in progress").unwrap();
        let live_temp = live.temp.clone();
        update_locked::<_, FsError>(&target, &WriteOptions::default(), |_| {
            Ok(Update::Write("x".into(), ()))
        })
        .unwrap();
        for p in &abandoned {
            assert!(!p.exists(), "{} was left", p.display());
        }
        assert!(foreign.exists() && live_temp.exists());
        live.commit().unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("live.md")).unwrap(),
            "in progress"
        );
        assert_eq!(fs::read_to_string(&target).unwrap(), "x");
        // The age-limited sweep keeps young abandoned files.
        let young = dir.path().join(".day.md.4-d-0.tmp");
        fs::write(&young, b"partial").unwrap();
        assert_eq!(
            remove_stale_temp_files(dir.path(), Duration::from_secs(300)).unwrap(),
            0
        );
        assert_eq!(remove_abandoned_temp_files(dir.path()).unwrap(), 1);
        assert!(!young.exists() && foreign.exists());
    }

    #[test]
    fn temp_names_are_recognised() {
        assert!(is_temp_file_name(".2025-01-01.md.123-abc-0.tmp"));
        assert!(is_own_temp_name(".2025-01-01.md.123-abc-0.tmp"));
        for foreign in [
            ".notes.tmp",
            ".a.1-2.tmp",
            ".a.1-xyz-0.tmp",
            "..1-a-0.tmp",
            "a.1-a-0.tmp",
        ] {
            assert!(!is_own_temp_name(foreign), "{foreign}");
        }
        assert!(!is_temp_file_name("2025-01-01.md"));
        assert!(is_lock_file_name(".2025-01-01.md.lock"));
    }
}
