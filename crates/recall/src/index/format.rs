//! The bytes of a workspace's index file, and their decoding.
//!
//! ```text
//! header   magic "GFINDEX\0", format version (u32), checksum algorithm (4 ASCII bytes:
//!          "CR32", CRC-32/ISO-HDLC as zlib computes it), total length (u64),
//!          six sections (offset u64, length u64, checksum u64), the header's checksum (u64)
//! meta     workspace, its directories, build time, listing problems, per-file problems,
//!          field-length totals, the span of timestamps and dates
//! files    per day file: directory, date, length, mtime (ns), inode, content hash if racy
//! docs     per entry (fixed 52 bytes): timestamp (seconds, nanoseconds), file, ordinal in
//!          the file, duplicate group, the five field lengths, the key of its embedded text
//! vocab    term count; per term (fixed 20 bytes): text offset, postings offset and length,
//!          postings checksum; then the texts, sorted
//! postings per term: (doc delta, tf << 3 | field) as LEB128 varints, by doc then field
//! supersession
//!          record count; per record, in reading order (directory, date, place in the
//!          file): entry (u32), timestamp (seconds i64, nanoseconds u32), id, title,
//!          topic (u8 0/1, then the text), superseded ids (count u32, then each): the
//!          facts of every entry with a `Supersedes` or `Topic` bullet and of every entry
//!          whose id such a bullet names (texts: u32 length, UTF-8)
//! ```
//!
//! Everything is little-endian. Every section but the postings is checked whole when read;
//! each term's postings carry their own checksum, so a search checks what it reads and no
//! more. Every checksum is the CRC-32 the header names, zero-extended where the field is 64
//! bits. Any mismatch, a short file, an unknown version or checksum algorithm: [`Corrupt`].
//! Version 1 (a hand-written 64-bit hash, no algorithm named), version 2 (no text keys) and
//! version 3 (no supersession section) are read as unknown and rebuilt.

use std::fmt;

use chrono::DateTime;
use goldfish_store::SupersessionFacts;

use crate::fields::FIELDS;

/// The directory under the store's root that holds the index files (and the semantic
/// channel's vector files).
pub const INDEX_DIR: &str = ".index";

/// The first eight bytes of every index file.
pub(crate) const MAGIC: [u8; 8] = *b"GFINDEX\0";
/// The format this code writes and reads; any other is rebuilt.
pub(crate) const VERSION: u32 = 4;
/// The checksum algorithm this code writes and reads, as the header names it: CRC-32.
pub(crate) const CHECKSUM_ALGORITHM: [u8; 4] = *b"CR32";
/// Sections, in file order.
pub(crate) const SECTIONS: usize = 6;
/// Bytes of the header: magic, version, checksum algorithm, total length, sections, checksum.
pub(crate) const HEADER_LEN: usize = 8 + 4 + 4 + 8 + SECTIONS * 24 + 8;
/// Bytes of one entry of the docs section.
pub(crate) const DOC_LEN: usize = 8 + 4 + 4 + 4 + 4 + 4 * FIELDS + 8;
/// Bytes of one entry of the vocabulary's table.
const TERM_LEN: usize = 4 + 8 + 4 + 4;

/// The section numbers.
pub(crate) const META: usize = 0;
pub(crate) const FILES: usize = 1;
pub(crate) const DOCS: usize = 2;
pub(crate) const VOCAB: usize = 3;
pub(crate) const POSTINGS: usize = 4;
pub(crate) const SUPERSESSION: usize = 5;

/// Why an index file cannot be used (then it is rebuilt).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Corrupt(pub(crate) String);

impl fmt::Display for Corrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn corrupt(what: impl Into<String>) -> Corrupt {
    Corrupt(what.into())
}

/// The checksum of [`CHECKSUM_ALGORITHM`] (CRC-32), zero-extended: catches truncation,
/// garbage and torn writes, not malice.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    u64::from(crc32fast::hash(bytes))
}

/// Where a section is and its checksum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Section {
    pub(crate) offset: u64,
    pub(crate) len: u64,
    pub(crate) sum: u64,
}

/// The decoded header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) total: u64,
    pub(crate) sections: [Section; SECTIONS],
}

/// Encodes the header for sections laid out after it.
pub(crate) fn encode_header(sections: &[Section; SECTIONS], total: u64) -> Vec<u8> {
    let mut w = Writer::default();
    w.bytes(&MAGIC);
    w.u32(VERSION);
    w.bytes(&CHECKSUM_ALGORITHM);
    w.u64(total);
    for s in sections {
        w.u64(s.offset);
        w.u64(s.len);
        w.u64(s.sum);
    }
    let sum = checksum(&w.0);
    w.u64(sum);
    w.0
}

/// Decodes and checks a header read from a file of `file_len` bytes.
pub(crate) fn decode_header(bytes: &[u8], file_len: u64) -> Result<Header, Corrupt> {
    if bytes.len() < HEADER_LEN {
        return Err(corrupt(format!(
            "truncated: {} bytes, shorter than the header",
            bytes.len()
        )));
    }
    let mut r = Reader::new(&bytes[..HEADER_LEN]);
    if r.take(8)? != MAGIC {
        return Err(corrupt("not an index file (bad magic)"));
    }
    let version = r.u32()?;
    if version != VERSION {
        return Err(corrupt(format!(
            "format version {version}, this goldfish reads {VERSION}"
        )));
    }
    let algorithm = r.take(4)?;
    if algorithm != CHECKSUM_ALGORITHM {
        return Err(corrupt(format!(
            "checksum algorithm {:?}, this goldfish reads {:?}",
            String::from_utf8_lossy(algorithm),
            String::from_utf8_lossy(&CHECKSUM_ALGORITHM)
        )));
    }
    let total = r.u64()?;
    let mut sections = [Section::default(); SECTIONS];
    for s in &mut sections {
        *s = Section {
            offset: r.u64()?,
            len: r.u64()?,
            sum: r.u64()?,
        };
    }
    let sum = r.u64()?;
    if sum != checksum(&bytes[..HEADER_LEN - 8]) {
        return Err(corrupt("header checksum mismatch"));
    }
    if total != file_len {
        return Err(corrupt(format!(
            "truncated or extended: {file_len} bytes, the header says {total}"
        )));
    }
    for (i, s) in sections.iter().enumerate() {
        let end = s.offset.checked_add(s.len);
        if s.offset < HEADER_LEN as u64 || end.is_none_or(|e| e > total) {
            return Err(corrupt(format!("section {i} lies outside the file")));
        }
    }
    Ok(Header { total, sections })
}

/// Checks a whole section's bytes against the header.
pub(crate) fn check_section(bytes: &[u8], s: &Section, which: usize) -> Result<(), Corrupt> {
    if bytes.len() as u64 != s.len || checksum(bytes) != s.sum {
        return Err(corrupt(format!("section {which} checksum mismatch")));
    }
    Ok(())
}

/// One day file as indexed: what identifies its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileRec {
    /// Which of the workspace's directories.
    pub(crate) dir: u32,
    /// Its date (days from the common era, as chrono counts them).
    pub(crate) date: i32,
    pub(crate) len: u64,
    pub(crate) mtime_ns: i64,
    pub(crate) ino: u64,
    /// The content's checksum when its mtime was too close to the build to trust (0: not
    /// kept).
    pub(crate) hash: u64,
}

/// One checkpoint as indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DocRec {
    /// Timestamp: seconds since the Unix epoch and nanoseconds.
    pub(crate) secs: i64,
    pub(crate) nanos: u32,
    /// Its day file (index into the files).
    pub(crate) file: u32,
    /// Its place among the checkpoints parsed from that file.
    pub(crate) ordinal: u32,
    /// The first entry with the same id (itself when unique): the same entry kept in two
    /// directories counts once.
    pub(crate) group: u32,
    /// Tokens per field.
    pub(crate) lens: [u32; FIELDS],
    /// The key of its embedded text ([`crate::semantic::text_key`]): what finds its vector.
    pub(crate) text: u64,
}

/// A problem found when indexing, reported by every recall whose window covers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProblemRec {
    /// The day file (index into the files), or `u32::MAX` for a listing problem of directory
    /// `dir`.
    pub(crate) file: u32,
    pub(crate) dir: u32,
    /// 1-based line; 0 when none.
    pub(crate) line: u32,
    /// The path shown.
    pub(crate) path: String,
    pub(crate) message: String,
}

/// The meta section.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Meta {
    pub(crate) workspace: String,
    /// The workspace's directories, in reading order.
    pub(crate) dirs: Vec<String>,
    /// When it was built (ns since the Unix epoch).
    pub(crate) built_ns: i64,
    /// Problems: listing ones first (in listing order), then per file in file order.
    pub(crate) problems: Vec<ProblemRec>,
    /// Field-length totals over every entry.
    pub(crate) totals: [u64; FIELDS],
    /// Entries.
    pub(crate) docs: u32,
    /// Earliest and latest timestamps (seconds, nanoseconds), earliest and latest dates of
    /// the files holding entries.
    pub(crate) min_ts: (i64, u32),
    pub(crate) max_ts: (i64, u32),
    pub(crate) min_date: i32,
    pub(crate) max_date: i32,
}

/// What one entry says about supersession (goldfish-store's facts), with its entry number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SupRec {
    /// The entry (index into the docs).
    pub(crate) doc: u32,
    pub(crate) facts: SupersessionFacts,
}

/// A term's postings: `(entry, field, count)`, by entry then field.
pub(crate) type Postings = Vec<(u32, u8, u32)>;

/// Terms with their postings, sorted by text.
pub(crate) type Terms = Vec<(Vec<u8>, Postings)>;

/// Everything a workspace's index holds, decoded (what a build produces).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Contents {
    pub(crate) meta: Meta,
    pub(crate) files: Vec<FileRec>,
    pub(crate) docs: Vec<DocRec>,
    /// Sorted distinct texts, each with its postings `(doc, field, tf)` by doc then field.
    pub(crate) terms: Terms,
    /// The supersession facts that matter, in reading order.
    pub(crate) supersession: Vec<SupRec>,
}

/// Encodes `contents` as a whole index file.
pub(crate) fn encode(c: &Contents) -> Vec<u8> {
    let mut sections: [Vec<u8>; SECTIONS] = Default::default();
    sections[META] = encode_meta(&c.meta);
    sections[FILES] = encode_files(&c.files);
    sections[DOCS] = encode_docs(&c.docs);
    let (vocab, postings) = encode_terms(&c.terms);
    sections[VOCAB] = vocab;
    sections[POSTINGS] = postings;
    sections[SUPERSESSION] = encode_supersession(&c.supersession);
    let mut table = [Section::default(); SECTIONS];
    let mut offset = HEADER_LEN as u64;
    for (s, bytes) in table.iter_mut().zip(&sections) {
        *s = Section {
            offset,
            len: bytes.len() as u64,
            sum: checksum(bytes),
        };
        offset += bytes.len() as u64;
    }
    let mut out = encode_header(&table, offset);
    for bytes in &sections {
        out.extend_from_slice(bytes);
    }
    out
}

fn encode_meta(m: &Meta) -> Vec<u8> {
    let mut w = Writer::default();
    w.str(&m.workspace);
    w.u32(m.dirs.len() as u32);
    for d in &m.dirs {
        w.str(d);
    }
    w.i64(m.built_ns);
    w.u32(m.problems.len() as u32);
    for p in &m.problems {
        w.u32(p.file);
        w.u32(p.dir);
        w.u32(p.line);
        w.str(&p.path);
        w.str(&p.message);
    }
    for t in m.totals {
        w.u64(t);
    }
    w.u32(m.docs);
    w.i64(m.min_ts.0);
    w.u32(m.min_ts.1);
    w.i64(m.max_ts.0);
    w.u32(m.max_ts.1);
    w.i32(m.min_date);
    w.i32(m.max_date);
    w.0
}

/// Decodes the meta section.
pub(crate) fn decode_meta(bytes: &[u8]) -> Result<Meta, Corrupt> {
    let mut r = Reader::new(bytes);
    let workspace = r.str()?;
    let n = r.count(4)?;
    let mut dirs = Vec::with_capacity(n);
    for _ in 0..n {
        dirs.push(r.str()?);
    }
    let built_ns = r.i64()?;
    let n = r.count(12)?;
    let mut problems = Vec::with_capacity(n);
    for _ in 0..n {
        problems.push(ProblemRec {
            file: r.u32()?,
            dir: r.u32()?,
            line: r.u32()?,
            path: r.str()?,
            message: r.str()?,
        });
    }
    let mut totals = [0u64; FIELDS];
    for t in &mut totals {
        *t = r.u64()?;
    }
    let meta = Meta {
        workspace,
        dirs,
        built_ns,
        problems,
        totals,
        docs: r.u32()?,
        min_ts: (r.i64()?, r.u32()?),
        max_ts: (r.i64()?, r.u32()?),
        min_date: r.i32()?,
        max_date: r.i32()?,
    };
    r.end()?;
    Ok(meta)
}

fn encode_files(files: &[FileRec]) -> Vec<u8> {
    let mut w = Writer::default();
    w.u32(files.len() as u32);
    for f in files {
        w.u32(f.dir);
        w.i32(f.date);
        w.u64(f.len);
        w.i64(f.mtime_ns);
        w.u64(f.ino);
        w.u64(f.hash);
    }
    w.0
}

/// Decodes the files section.
pub(crate) fn decode_files(bytes: &[u8]) -> Result<Vec<FileRec>, Corrupt> {
    let mut r = Reader::new(bytes);
    let n = r.count(40)?;
    let mut files = Vec::with_capacity(n);
    for _ in 0..n {
        files.push(FileRec {
            dir: r.u32()?,
            date: r.i32()?,
            len: r.u64()?,
            mtime_ns: r.i64()?,
            ino: r.u64()?,
            hash: r.u64()?,
        });
    }
    r.end()?;
    Ok(files)
}

fn encode_docs(docs: &[DocRec]) -> Vec<u8> {
    let mut w = Writer::default();
    for d in docs {
        w.i64(d.secs);
        w.u32(d.nanos);
        w.u32(d.file);
        w.u32(d.ordinal);
        w.u32(d.group);
        for l in d.lens {
            w.u32(l);
        }
        w.u64(d.text);
    }
    w.0
}

/// Decodes entries of the docs section, the first being entry `first` (checked: each file
/// and group number in range).
pub(crate) fn decode_docs(
    bytes: &[u8],
    files: usize,
    first: usize,
) -> Result<Vec<DocRec>, Corrupt> {
    if !bytes.len().is_multiple_of(DOC_LEN) {
        return Err(corrupt("docs section of a partial length"));
    }
    let n = bytes.len() / DOC_LEN;
    let mut r = Reader::new(bytes);
    let mut docs = Vec::with_capacity(n);
    for i in 0..n {
        let mut d = DocRec {
            secs: r.i64()?,
            nanos: r.u32()?,
            file: r.u32()?,
            ordinal: r.u32()?,
            group: r.u32()?,
            lens: [0; FIELDS],
            text: 0,
        };
        for l in &mut d.lens {
            *l = r.u32()?;
        }
        d.text = r.u64()?;
        if d.file as usize >= files || d.group as usize > first + i {
            return Err(corrupt(format!("entry {i} points outside the index")));
        }
        docs.push(d);
    }
    Ok(docs)
}

fn encode_supersession(records: &[SupRec]) -> Vec<u8> {
    let mut w = Writer::default();
    w.u32(records.len() as u32);
    for r in records {
        let f = &r.facts;
        w.u32(r.doc);
        w.i64(f.timestamp.timestamp());
        w.u32(f.timestamp.timestamp_subsec_nanos());
        w.str(&f.id);
        w.str(&f.title);
        match &f.topic {
            Some(topic) => {
                w.bytes(&[1]);
                w.str(topic);
            }
            None => w.bytes(&[0]),
        }
        w.u32(f.supersedes.len() as u32);
        for id in &f.supersedes {
            w.str(id);
        }
    }
    w.0
}

/// Decodes the supersession section (checked: each entry number below `docs`).
pub(crate) fn decode_supersession(bytes: &[u8], docs: usize) -> Result<Vec<SupRec>, Corrupt> {
    let mut r = Reader::new(bytes);
    // A record is at least 4 + 12 + 4 + 4 + 1 + 4 bytes.
    let n = r.count(29)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let doc = r.u32()?;
        let (secs, nanos) = (r.i64()?, r.u32()?);
        let timestamp = DateTime::from_timestamp(secs, nanos)
            .ok_or_else(|| corrupt(format!("supersession record {i} has a bad timestamp")))?;
        let id = r.str()?;
        let title = r.str()?;
        let topic = match r.arr::<1>()?[0] {
            0 => None,
            1 => Some(r.str()?),
            _ => {
                return Err(corrupt(format!(
                    "supersession record {i} has a bad topic flag"
                )));
            }
        };
        let k = r.count(4)?;
        let mut supersedes = Vec::with_capacity(k);
        for _ in 0..k {
            supersedes.push(r.str()?);
        }
        if doc as usize >= docs {
            return Err(corrupt(format!(
                "supersession record {i} points outside the index"
            )));
        }
        out.push(SupRec {
            doc,
            facts: SupersessionFacts::new(id, title, timestamp, topic, supersedes),
        });
    }
    r.end()?;
    Ok(out)
}

fn encode_terms(terms: &[(Vec<u8>, Postings)]) -> (Vec<u8>, Vec<u8>) {
    let mut table = Writer::default();
    let mut texts = Vec::new();
    let mut postings = Vec::new();
    table.u32(terms.len() as u32);
    for (text, list) in terms {
        let start = postings.len();
        let mut prev = 0u32;
        for &(doc, field, tf) in list {
            varint(&mut postings, u64::from(doc - prev));
            varint(&mut postings, (u64::from(tf) << 3) | u64::from(field));
            prev = doc;
        }
        table.u32(texts.len() as u32);
        table.u64(start as u64);
        table.u32((postings.len() - start) as u32);
        table.u32(checksum(&postings[start..]) as u32);
        texts.extend_from_slice(text);
    }
    table.u32(texts.len() as u32);
    table.bytes(&texts);
    (table.0, postings)
}

/// The vocabulary: sorted texts and where each term's postings are.
#[derive(Debug, Clone, Default)]
pub(crate) struct Vocab {
    table: Vec<u8>,
    n: usize,
    texts_at: usize,
    texts_len: usize,
}

/// Where one term's postings are.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PostingsAt {
    pub(crate) offset: u64,
    pub(crate) len: u32,
    pub(crate) sum: u32,
}

impl Vocab {
    /// Decodes (and checks the layout of) the vocab section.
    pub(crate) fn decode(bytes: Vec<u8>, postings_len: u64) -> Result<Vocab, Corrupt> {
        let mut r = Reader::new(&bytes);
        let n = r.count(TERM_LEN)?;
        let table_end = 4 + n * TERM_LEN;
        r.take(n * TERM_LEN)?;
        let texts_len = r.u32()? as usize;
        let texts_at = table_end + 4;
        if texts_at + texts_len != bytes.len() {
            return Err(corrupt("vocabulary of a wrong length"));
        }
        let v = Vocab {
            table: bytes,
            n,
            texts_at,
            texts_len,
        };
        let mut prev_end = 0usize;
        for i in 0..n {
            let (start, _) = v.entry(i);
            let end = v.text_end(i);
            let p = v.postings(i);
            if start != prev_end || end < start || end > texts_len {
                return Err(corrupt(format!("vocabulary term {i} out of order")));
            }
            if p.offset.saturating_add(u64::from(p.len)) > postings_len {
                return Err(corrupt(format!("postings of term {i} outside the section")));
            }
            prev_end = end;
        }
        if prev_end != texts_len {
            return Err(corrupt("vocabulary texts of a wrong length"));
        }
        Ok(v)
    }

    /// Number of terms.
    pub(crate) fn len(&self) -> usize {
        self.n
    }

    fn entry(&self, i: usize) -> (usize, usize) {
        let at = 4 + i * TERM_LEN;
        let start = u32::from_le_bytes(
            self.table[at..at + 4]
                .try_into()
                .expect("a 4-byte slice of a checked table"),
        );
        (start as usize, at)
    }

    fn text_end(&self, i: usize) -> usize {
        if i + 1 < self.n {
            self.entry(i + 1).0
        } else {
            self.texts_len
        }
    }

    /// Term `i`'s text.
    pub(crate) fn text(&self, i: usize) -> &[u8] {
        let (start, _) = self.entry(i);
        let end = self.text_end(i).max(start);
        &self.table[self.texts_at + start..self.texts_at + end]
    }

    /// Where term `i`'s postings are.
    pub(crate) fn postings(&self, i: usize) -> PostingsAt {
        let (_, at) = self.entry(i);
        let b = &self.table[at + 4..at + TERM_LEN];
        let u = |r: std::ops::Range<usize>| -> u64 {
            let mut x = [0u8; 8];
            x[..r.len()].copy_from_slice(&b[r]);
            u64::from_le_bytes(x)
        };
        PostingsAt {
            offset: u(0..8),
            len: u(8..12) as u32,
            sum: u(12..16) as u32,
        }
    }
}

/// Decodes one term's postings (checked against its checksum and `docs`), calling `each`
/// with `(doc, field, tf)`.
pub(crate) fn decode_postings(
    bytes: &[u8],
    at: &PostingsAt,
    docs: usize,
    mut each: impl FnMut(u32, u8, u32),
) -> Result<(), Corrupt> {
    if checksum(bytes) as u32 != at.sum {
        return Err(corrupt("postings checksum mismatch"));
    }
    let mut i = 0;
    let mut doc = 0u64;
    while i < bytes.len() {
        doc = doc
            .checked_add(read_varint(bytes, &mut i)?)
            .ok_or_else(|| corrupt("a posting points outside the index"))?;
        let v = read_varint(bytes, &mut i)?;
        let (field, tf) = ((v & 7) as u8, v >> 3);
        if doc >= docs as u64 || usize::from(field) >= FIELDS || tf == 0 || tf > u64::from(u32::MAX)
        {
            return Err(corrupt("a posting points outside the index"));
        }
        each(doc as u32, field, tf as u32);
    }
    Ok(())
}

/// Decodes every term with its postings (for verification and tests).
pub(crate) fn decode_terms(vocab: &Vocab, postings: &[u8], docs: usize) -> Result<Terms, Corrupt> {
    let mut out = Vec::with_capacity(vocab.len());
    for i in 0..vocab.len() {
        let at = vocab.postings(i);
        let start = at.offset as usize;
        let bytes = postings
            .get(start..start + at.len as usize)
            .ok_or_else(|| corrupt("postings outside the section"))?;
        let mut list = Vec::new();
        decode_postings(bytes, &at, docs, |d, f, tf| list.push((d, f, tf)))?;
        out.push((vocab.text(i).to_vec(), list));
    }
    Ok(out)
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn read_varint(bytes: &[u8], i: &mut usize) -> Result<u64, Corrupt> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes
            .get(*i)
            .ok_or_else(|| corrupt("a posting cut short"))?;
        *i += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok(v);
        }
    }
    Err(corrupt("a posting's number is too long"))
}

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.bytes(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.bytes(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.bytes(s.as_bytes());
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], Corrupt> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| corrupt("a section cut short"))?;
        let b = &self.bytes[self.at..end];
        self.at = end;
        Ok(b)
    }
    fn arr<const N: usize>(&mut self) -> Result<[u8; N], Corrupt> {
        Ok(self.take(N)?.try_into().expect("take returns N bytes"))
    }
    fn u32(&mut self) -> Result<u32, Corrupt> {
        Ok(u32::from_le_bytes(self.arr()?))
    }
    fn i32(&mut self) -> Result<i32, Corrupt> {
        Ok(i32::from_le_bytes(self.arr()?))
    }
    fn u64(&mut self) -> Result<u64, Corrupt> {
        Ok(u64::from_le_bytes(self.arr()?))
    }
    fn i64(&mut self) -> Result<i64, Corrupt> {
        Ok(i64::from_le_bytes(self.arr()?))
    }
    /// A count of items of at least `min` bytes each (refused when they cannot fit).
    fn count(&mut self, min: usize) -> Result<usize, Corrupt> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min.max(1)) > self.bytes.len() - self.at {
            return Err(corrupt("a count larger than its section"));
        }
        Ok(n)
    }
    fn str(&mut self) -> Result<String, Corrupt> {
        let n = self.u32()? as usize;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| corrupt("text that is not UTF-8"))
    }
    fn end(&self) -> Result<(), Corrupt> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(corrupt("trailing bytes in a section"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Long: a test's generator of random index contents.
    fn contents(seed: u64, n_docs: usize, n_terms: usize) -> Contents {
        let mut x = seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let files = vec![FileRec {
            dir: 0,
            date: 739_000,
            len: 10,
            mtime_ns: 5,
            ino: 7,
            hash: 0,
        }];
        let docs: Vec<DocRec> = (0..n_docs)
            .map(|i| DocRec {
                secs: next() as i64,
                nanos: (next() % 1_000_000_000) as u32,
                file: 0,
                ordinal: i as u32,
                group: i as u32,
                lens: [1, 2, 3, 4, 5],
                text: next(),
            })
            .collect();
        let mut terms: Terms = (0..n_terms)
            .map(|t| {
                let mut list: Vec<(u32, u8, u32)> = (0..next() % 5)
                    .map(|_| {
                        (
                            (next() % n_docs.max(1) as u64) as u32,
                            (next() % 5) as u8,
                            1 + (next() % 300) as u32,
                        )
                    })
                    .collect();
                list.sort_unstable();
                list.dedup_by_key(|p| (p.0, p.1));
                (format!("t{t}é{}", next() % 1000).into_bytes(), list)
            })
            .collect();
        if n_docs == 0 {
            terms.iter_mut().for_each(|t| t.1.clear());
        }
        terms.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        terms.dedup_by(|a, b| a.0 == b.0);
        let supersession = (0..n_docs.min(3))
            .map(|i| SupRec {
                doc: i as u32,
                facts: SupersessionFacts::new(
                    format!("id{i}"),
                    format!("Title {i} é"),
                    DateTime::from_timestamp(1_760_000_000 + i as i64, 7).expect("a time"),
                    (i % 2 == 0).then(|| format!("topic{i}")),
                    (0..i).map(|k| format!("id{k}")).collect(),
                ),
            })
            .collect();
        Contents {
            supersession,
            meta: Meta {
                workspace: "ws".into(),
                dirs: vec!["/a".into()],
                built_ns: 1,
                problems: vec![ProblemRec {
                    file: 0,
                    dir: 0,
                    line: 3,
                    path: "/a/checkpoints/x.md".into(),
                    message: "bad".into(),
                }],
                totals: [1, 2, 3, 4, 5],
                docs: n_docs as u32,
                min_ts: (1, 2),
                max_ts: (3, 4),
                min_date: 5,
                max_date: 6,
            },
            files,
            docs,
            terms,
        }
    }

    /// Every part decodes as it was encoded.
    fn decode_all(bytes: &[u8]) -> Result<Contents, Corrupt> {
        let header = decode_header(bytes, bytes.len() as u64)?;
        let sec = |i: usize| {
            let s = header.sections[i];
            let b = &bytes[s.offset as usize..(s.offset + s.len) as usize];
            check_section(b, &s, i).map(|()| b)
        };
        let meta = decode_meta(sec(META)?)?;
        let files = decode_files(sec(FILES)?)?;
        let docs = decode_docs(sec(DOCS)?, files.len(), 0)?;
        let vocab = Vocab::decode(sec(VOCAB)?.to_vec(), header.sections[POSTINGS].len)?;
        let terms = decode_terms(&vocab, sec(POSTINGS)?, docs.len())?;
        let supersession = decode_supersession(sec(SUPERSESSION)?, docs.len())?;
        Ok(Contents {
            meta,
            files,
            docs,
            terms,
            supersession,
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
        /// Build → encode → decode gives the same contents.
        #[test]
        fn round_trip(seed in 1u64.., n_docs in 0usize..50, n_terms in 0usize..60) {
            let c = contents(seed, n_docs, n_terms);
            let bytes = encode(&c);
            proptest::prop_assert_eq!(decode_all(&bytes), Ok(c));
        }

        /// A damaged file (any byte changed, or cut anywhere) never panics: it decodes to an
        /// error, or — for a byte of a posting's count — to some contents.
        #[test]
        fn damage_never_panics(seed in 1u64.., at in 0usize..4096, byte in 0u8.., cut in proptest::bool::ANY) {
            let c = contents(seed, 20, 30);
            let mut bytes = encode(&c);
            let at = at % bytes.len();
            if cut {
                bytes.truncate(at);
                proptest::prop_assert!(decode_all(&bytes).is_err());
            } else {
                bytes[at] ^= byte;
                let _ = decode_all(&bytes);
            }
        }

        /// Arbitrary bytes never panic (what the fuzz target does, briefly).
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(0u8.., 0..600)) {
            let _ = crate::index::read_index_bytes(&bytes);
            let mut with_magic = MAGIC.to_vec();
            with_magic.extend_from_slice(&VERSION.to_le_bytes());
            with_magic.extend_from_slice(&CHECKSUM_ALGORITHM);
            with_magic.extend_from_slice(&bytes);
            let _ = crate::index::read_index_bytes(&with_magic);
        }
    }
}
