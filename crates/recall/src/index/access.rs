//! Reading an index: from its file by positioned reads of the sections needed, or from
//! memory.

use super::*;

/// Where an index's bytes are: its file (read by position) or memory (just built, or held
/// by a [`RecallCache`](crate::RecallCache)).
#[derive(Debug, Clone)]
pub(super) enum Source {
    File(Arc<File>),
    Bytes(Arc<Vec<u8>>),
    /// The file, closed: [`WsIndex::reopen`] opens it again (a recall over thousands of
    /// workspaces, or a long-lived cache, holds no file descriptor per workspace).
    Closed,
}

impl Source {
    pub(super) fn read(&self, offset: u64, len: u64) -> io::Result<Vec<u8>> {
        let len = usize::try_from(len).map_err(|_| io::Error::other("section too large"))?;
        match self {
            Source::File(f) => {
                let mut buf = vec![0u8; len];
                read_exact_at(f, &mut buf, offset)?;
                Ok(buf)
            }
            Source::Closed => Err(io::Error::other("the index file is closed")),
            Source::Bytes(b) => usize::try_from(offset)
                .ok()
                .and_then(|o| b.get(o..o.checked_add(len)?))
                .map(<[u8]>::to_vec)
                .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof)),
        }
    }
}

/// Fills `buf` from `file` at `offset`: one positioned read on Unix (a search reads a few
/// sections of each workspace's index), a seek and a read elsewhere.
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(buf)
    }
}

/// A workspace's index, checked fresh against its day files.
#[derive(Debug, Clone)]
pub(crate) struct WsIndex {
    pub(super) source: Source,
    pub(super) header: Header,
    pub(super) meta: Meta,
    pub(super) files: Vec<FileRec>,
    pub(super) dirs: Vec<PathBuf>,
    /// Where it is (or would be) on disk.
    pub(crate) path: PathBuf,
}

impl WsIndex {
    pub(super) fn section(&self, which: usize) -> Result<Vec<u8>, Corrupt> {
        let s = self.header.sections[which];
        let bytes = self
            .source
            .read(s.offset, s.len)
            .map_err(|e| Corrupt(format!("cannot read section {which}: {e}")))?;
        format::check_section(&bytes, &s, which)?;
        Ok(bytes)
    }

    /// The entries' table, checked whole, decoded one entry at a time.
    pub(super) fn docs_view(&self) -> Result<DocsView, Corrupt> {
        let bytes = self.section(DOCS)?;
        Ok(DocsView {
            n: bytes.len() / format::DOC_LEN,
            bytes,
            files: self.files.len(),
        })
    }

    pub(super) fn docs(&self) -> Result<Vec<DocRec>, Corrupt> {
        format::decode_docs(&self.section(DOCS)?, self.files.len(), 0)
    }

    /// Entry `i` alone (a positioned read of its record).
    pub(super) fn doc(&self, i: u32) -> Result<DocRec, Corrupt> {
        let s = self.header.sections[DOCS];
        let len = format::DOC_LEN as u64;
        let bytes = self
            .source
            .read(s.offset + u64::from(i) * len, len)
            .map_err(|e| Corrupt(format!("cannot read entry {i}: {e}")))?;
        let mut docs = format::decode_docs(&bytes, self.files.len(), i as usize)?;
        docs.pop()
            .ok_or_else(|| Corrupt(format!("entry {i} missing")))
    }

    pub(super) fn vocab(&self) -> Result<Vocab, Corrupt> {
        Vocab::decode(self.section(VOCAB)?, self.header.sections[POSTINGS].len)
    }

    /// The supersession facts it keeps, in reading order (the section checked whole).
    pub(super) fn supersession_records(&self) -> Result<Vec<format::SupRec>, Corrupt> {
        format::decode_supersession(&self.section(SUPERSESSION)?, self.meta.docs as usize)
    }

    pub(super) fn postings(&self, at: &format::PostingsAt) -> Result<Vec<u8>, Corrupt> {
        let base = self.header.sections[POSTINGS].offset;
        self.source
            .read(base + at.offset, u64::from(at.len))
            .map_err(|e| Corrupt(format!("cannot read postings: {e}")))
    }

    /// The same index with its file closed (kept in memory when it is not a file).
    pub(super) fn close(self) -> WsIndex {
        match self.source {
            Source::File(_) => WsIndex {
                source: Source::Closed,
                ..self
            },
            _ => self,
        }
    }

    /// The same index readable again: a closed file is opened anew and must be the same
    /// index (the same header: lengths and checksums of every section), not one written
    /// since by another process.
    pub(super) fn reopen(&self) -> Result<WsIndex, Corrupt> {
        if !matches!(self.source, Source::Closed) {
            return Ok(self.clone());
        }
        let replaced = |why: String| Corrupt(format!("{}: {why}", self.path.display()));
        let file =
            File::open(&self.path).map_err(|e| replaced(format!("cannot reopen it: {e}")))?;
        let len = file
            .metadata()
            .map_err(|e| replaced(format!("cannot stat it: {e}")))?
            .len();
        let source = Source::File(Arc::new(file));
        let head = source
            .read(0, (HEADER_LEN as u64).min(len))
            .map_err(|e| replaced(format!("cannot read it: {e}")))?;
        if format::decode_header(&head, len).ok() != Some(self.header) {
            return Err(replaced(
                "replaced by another process during the search".into(),
            ));
        }
        Ok(WsIndex {
            source,
            ..self.clone()
        })
    }

    /// Entries indexed.
    pub(crate) fn entries(&self) -> usize {
        self.meta.docs as usize
    }

    /// Day files indexed.
    pub(crate) fn file_count(&self) -> usize {
        self.files.len()
    }

    /// When it was built.
    pub(crate) fn built(&self) -> Option<DateTime<Utc>> {
        DateTime::from_timestamp_nanos(self.meta.built_ns).into()
    }

    /// Its size in bytes.
    pub(crate) fn size(&self) -> u64 {
        self.header.total
    }
}

/// The entries' table of an index, decoded on demand.
pub(super) struct DocsView {
    pub(super) bytes: Vec<u8>,
    pub(super) n: usize,
    pub(super) files: usize,
}

impl DocsView {
    pub(super) fn len(&self) -> usize {
        self.n
    }

    pub(super) fn get(&self, i: usize) -> Result<DocRec, Corrupt> {
        let at = i * format::DOC_LEN;
        let bytes = self
            .bytes
            .get(at..at + format::DOC_LEN)
            .ok_or_else(|| Corrupt(format!("entry {i} outside the table")))?;
        let mut docs = format::decode_docs(bytes, self.files, i)?;
        docs.pop()
            .ok_or_else(|| Corrupt(format!("entry {i} missing")))
    }
}

/// Opens an index from its bytes' source: header, meta and files (checked).
pub(super) fn load(
    source: Source,
    len: u64,
    path: PathBuf,
    dirs: Vec<PathBuf>,
) -> Result<WsIndex, Corrupt> {
    let head = source
        .read(0, (HEADER_LEN as u64).min(len))
        .map_err(|e| Corrupt(format!("cannot read the header: {e}")))?;
    let header = format::decode_header(&head, len)?;
    let mut ix = WsIndex {
        source,
        header,
        meta: Meta::default(),
        files: Vec::new(),
        dirs,
        path,
    };
    ix.meta = format::decode_meta(&ix.section(META)?)?;
    ix.files = format::decode_files(&ix.section(FILES)?)?;
    if ix.meta.problems.iter().any(|p| {
        p.file != u32::MAX && p.file as usize >= ix.files.len()
            || p.dir as usize >= ix.meta.dirs.len()
    }) {
        return Err(Corrupt("a problem points outside the index".into()));
    }
    Ok(ix)
}
