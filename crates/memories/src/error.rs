//! The one error type of goldfish's readers (this crate's and `goldfish-import`'s).

use std::fmt;
use std::path::{Path, PathBuf};

/// What kind of failure an [`Error`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A file or directory could not be read (missing, unreadable, not UTF-8).
    Io,
    /// A file's contents could not be parsed: broken frontmatter, invalid YAML or JSON, a
    /// missing `id` or an unreadable timestamp. The item is skipped.
    Malformed,
    /// A value was read but has no place in goldfish (an unknown memory type, a confidence
    /// outside 1–5, an unknown brief status). The item is kept without it.
    Unmapped,
    /// The file given as a Tusk journal is not an SQLite database.
    NotSqlite,
    /// The SQLite database does not have Tusk's tables and columns.
    ForeignSchema,
    /// One row of a Tusk table could not be read (bad JSON in a column, an unreadable
    /// timestamp). The row is skipped; the others are read.
    BadRow,
    /// The goldfish store refused a record (a value it cannot hold) or could not be written.
    /// The record is skipped; the others are imported.
    Store,
}

/// An error from a reader: what went wrong, the file, and the line (text files) or the table
/// and rowid (SQLite) it concerns.
#[derive(Debug, thiserror::Error)]
pub struct Error {
    kind: ErrorKind,
    path: PathBuf,
    line: Option<usize>,
    row: Option<(String, i64)>,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some((table, rowid)) = &self.row {
            write!(f, ": table {table}, rowid {rowid}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl Error {
    /// An error of `kind` about `path`.
    pub fn new(kind: ErrorKind, path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error {
            kind,
            path: path.into(),
            line: None,
            row: None,
            message: message.into(),
            source: None,
        }
    }

    /// An I/O error while doing `what` ("read this file") with `path`, keeping `err` as the source.
    pub fn io(path: impl Into<PathBuf>, what: &str, err: std::io::Error) -> Self {
        let message = format!("cannot {what}: {err}");
        let mut e = Error::new(ErrorKind::Io, path, message);
        e.source = Some(Box::new(err));
        e
    }

    /// The store refused or failed to write something read from `path`.
    pub fn store(path: impl Into<PathBuf>, err: goldfish_store::Error) -> Self {
        let message = err.to_string();
        Error::new(ErrorKind::Store, path, message).with_source(err)
    }

    /// The same error at a 1-based line of its file.
    #[must_use]
    pub fn at_line(mut self, line: Option<usize>) -> Self {
        self.line = line;
        self
    }

    /// The same error at a table and rowid of an SQLite database.
    #[must_use]
    pub fn at_row(mut self, table: &str, rowid: i64) -> Self {
        self.row = Some((table.to_string(), rowid));
        self
    }

    /// The same error with the underlying error it was caused by.
    #[must_use]
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// The kind of the I/O error behind this one, when a file-system operation failed: the
    /// same question, answered the same way, in every goldfish crate.
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        goldfish_core::fs::io_kind_in(self)
    }

    /// True when a file could not be read because it is not valid UTF-8 (the message names
    /// the file and line): the same question, answered the same way, in every goldfish crate.
    pub fn is_invalid_utf8(&self) -> bool {
        goldfish_core::fs::invalid_utf8_in(self)
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The file or directory the error concerns.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The 1-based line of [`path`](Self::path) the error concerns, for text files.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// The table and rowid the error concerns, for SQLite databases.
    pub fn row(&self) -> Option<(&str, i64)> {
        self.row.as_ref().map(|(t, r)| (t.as_str(), *r))
    }

    /// The message without the path, line and row prefix.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// True when an item was skipped because its file could not be parsed.
    pub fn is_malformed(&self) -> bool {
        self.kind == ErrorKind::Malformed
    }

    /// True when an item was kept but one of its values had no place in goldfish.
    pub fn is_unmapped(&self) -> bool {
        self.kind == ErrorKind::Unmapped
    }

    /// True when a file given as a Tusk journal is not an SQLite database.
    pub fn is_not_sqlite(&self) -> bool {
        self.kind == ErrorKind::NotSqlite
    }

    /// True when an SQLite database is not Tusk's.
    pub fn is_foreign_schema(&self) -> bool {
        self.kind == ErrorKind::ForeignSchema
    }

    /// True when one row of a Tusk table was skipped.
    pub fn is_bad_row(&self) -> bool {
        self.kind == ErrorKind::BadRow
    }

    /// True when a file could not be read at all.
    pub fn is_io(&self) -> bool {
        self.kind == ErrorKind::Io
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_path_line_and_row() {
        let cases = [
            (
                Error::new(ErrorKind::Malformed, "/m/a.md", "bad").at_line(Some(3)),
                "/m/a.md:3: bad",
            ),
            (
                Error::new(ErrorKind::BadRow, "/t/journal.db", "bad tags").at_row("checkpoints", 7),
                "/t/journal.db: table checkpoints, rowid 7: bad tags",
            ),
            (
                Error::new(ErrorKind::NotSqlite, "/t/x.db", "no"),
                "/t/x.db: no",
            ),
        ];
        for (err, want) in cases {
            assert_eq!(err.to_string(), want);
        }
    }
}
