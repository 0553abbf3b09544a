//! Where models live: resolving the directory, installing, status, removal.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::Error;
use crate::bert::{BertEmbedder, ModelFiles};

/// The model goldfish's semantic recall uses: sentence-transformers' all-MiniLM-L6-v2
/// (384 dimensions, 256 tokens, about 90 MB).
pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2";

/// How far an install has got, for a progress bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    /// The file being copied or downloaded, relative to the model directory.
    pub file: String,
    /// Bytes done over all files.
    pub done: u64,
    /// Bytes to do over all files, when known.
    pub total: Option<u64>,
}

/// An installed model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelStatus {
    /// Its name (the directory's name under the root).
    pub model: String,
    /// Its directory.
    pub path: PathBuf,
    /// The bytes of its files.
    pub size: u64,
    /// The dimension of its vectors.
    pub dimension: usize,
}

/// The directory holding the models, one sub-directory per model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelDir {
    root: PathBuf,
}

impl ModelDir {
    /// The models under `root`.
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The root from the values the caller read from its environment: `GOLDFISH_MODEL_DIR`
    /// when set and not empty, else `$XDG_CACHE_HOME/goldfish/models`, else
    /// `$HOME/.cache/goldfish/models`.
    ///
    /// # Errors
    /// [`Error::NoModelDir`] when none of the three is set.
    pub fn resolve(
        goldfish_model_dir: Option<OsString>,
        xdg_cache_home: Option<OsString>,
        home: Option<OsString>,
    ) -> Result<Self, Error> {
        let set = |v: Option<OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
        if let Some(dir) = set(goldfish_model_dir) {
            return Ok(Self::new(dir));
        }
        if let Some(cache) = set(xdg_cache_home).filter(|p| p.is_absolute()) {
            return Ok(Self::new(cache.join("goldfish").join("models")));
        }
        set(home)
            .map(|home| Self::new(home.join(".cache").join("goldfish").join("models")))
            .ok_or(Error::NoModelDir)
    }

    /// The root directory.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory of model `name` (installed or not).
    #[must_use]
    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// The installed model `name`, checked; `None` when it is not installed.
    ///
    /// # Errors
    /// A missing, corrupt or unsupported file of the installed model, named.
    pub fn status(&self, name: &str) -> Result<Option<ModelStatus>, Error> {
        let path = self.path(name);
        if !path.exists() {
            return Ok(None);
        }
        let dimension = ModelFiles::new(&path).check()?;
        let mut size = 0;
        for file in ModelFiles::REQUIRED.iter().chain(&ModelFiles::OPTIONAL) {
            let file = path.join(file);
            match std::fs::metadata(&file) {
                Ok(meta) => size += meta.len(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(file, e)),
            }
        }
        Ok(Some(ModelStatus {
            model: name.to_owned(),
            path,
            size,
            dimension,
        }))
    }

    /// Loads the installed model `name`.
    ///
    /// # Errors
    /// When it is not installed or a file is missing or corrupt, named.
    pub fn load(&self, name: &str) -> Result<BertEmbedder, Error> {
        let path = self.path(name);
        if !path.exists() {
            return Err(Error::Missing { path });
        }
        BertEmbedder::load(&path)
    }

    /// Removes the model `name`; false when it was not installed.
    ///
    /// # Errors
    /// When the directory cannot be removed.
    pub fn remove(&self, name: &str) -> Result<bool, Error> {
        let path = self.path(name);
        match std::fs::remove_dir_all(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Installs model `name` from a local sentence-transformers directory `source` (with the
    /// files [`ModelFiles::REQUIRED`], and those of [`ModelFiles::OPTIONAL`] when present).
    ///
    /// The files are copied into a new directory beside the final one, the model is loaded
    /// from there, and only then renamed into place: an interrupted or failed install leaves the
    /// previous model, if any, whole.
    ///
    /// # Errors
    /// A missing, corrupt or unsupported source file, named; an I/O failure.
    pub fn install_from_dir(
        &self,
        name: &str,
        source: &Path,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<ModelStatus, Error> {
        ModelFiles::new(source).check()?;
        let mut files = Vec::new();
        let mut total = 0;
        for file in ModelFiles::REQUIRED.iter().chain(&ModelFiles::OPTIONAL) {
            let path = source.join(file);
            match std::fs::metadata(&path) {
                Ok(meta) => {
                    total += meta.len();
                    files.push(*file);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(path, e)),
            }
        }
        self.install_with(name, |staging| {
            let mut done = 0;
            for file in files {
                let from = source.join(file);
                let reader = std::fs::File::open(&from).map_err(|e| Error::io(&from, e))?;
                let copy = Copy {
                    staging,
                    file,
                    total,
                };
                copy.run(reader, &mut done, progress, &|e| Error::io(&from, e))?;
            }
            Ok(())
        })
    }

    /// Fills a fresh staging directory with `fill`, checks the model loads from it, then
    /// renames it over `name`'s directory; the staging directory is removed on failure.
    pub(crate) fn install_with(
        &self,
        name: &str,
        fill: impl FnOnce(&Path) -> Result<(), Error>,
    ) -> Result<ModelStatus, Error> {
        std::fs::create_dir_all(&self.root).map_err(|e| Error::io(&self.root, e))?;
        let staging = self
            .root
            .join(format!(".{name}.partial-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        let result = (|| {
            std::fs::create_dir_all(staging.join("1_Pooling"))
                .map_err(|e| Error::io(&staging, e))?;
            fill(&staging)?;
            BertEmbedder::load(&staging)?;
            let target = self.path(name);
            if target.exists() {
                let old = self
                    .root
                    .join(format!(".{name}.old-{}", std::process::id()));
                std::fs::rename(&target, &old).map_err(|e| Error::io(&target, e))?;
                std::fs::rename(&staging, &target).map_err(|e| Error::io(&target, e))?;
                std::fs::remove_dir_all(&old).map_err(|e| Error::io(&old, e))?;
            } else {
                std::fs::rename(&staging, &target).map_err(|e| Error::io(&target, e))?;
            }
            Ok(())
        })();
        if let Err(e) = result {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
        self.status(name)?.ok_or_else(|| Error::Missing {
            path: self.path(name),
        })
    }
}

/// One file copied into the staging directory, with progress over all files.
pub(crate) struct Copy<'a> {
    /// The staging directory.
    pub(crate) staging: &'a Path,
    /// The file, relative to the model directory.
    pub(crate) file: &'a str,
    /// Bytes to do over all files.
    pub(crate) total: u64,
}

impl Copy<'_> {
    /// Copies `reader` into the new file (synced to disk), adding each chunk to `done` and
    /// reporting it; a read error is turned into an error by `read_error`.
    pub(crate) fn run(
        &self,
        mut reader: impl Read,
        done: &mut u64,
        progress: &mut dyn FnMut(&Progress),
        read_error: &dyn Fn(std::io::Error) -> Error,
    ) -> Result<(), Error> {
        let to = self.staging.join(self.file);
        let mut out = std::fs::File::create(&to).map_err(|e| Error::io(&to, e))?;
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(read_error(e)),
            };
            out.write_all(&buf[..n]).map_err(|e| Error::io(&to, e))?;
            *done += n as u64;
            progress(&Progress {
                file: self.file.to_owned(),
                done: *done,
                total: Some(self.total),
            });
        }
        out.sync_all().map_err(|e| Error::io(&to, e))
    }
}
