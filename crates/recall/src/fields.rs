//! The searched fields of a checkpoint, in one place: which fields there are, what text of a
//! checkpoint each one holds (its typed text included), how much each weighs and how its
//! length is normalised. The pass, the index, the reference engine, scoring and explanations
//! all take the fields from here, so that adding or changing a field is one edit and every
//! way of searching (in memory with [`search`](crate::search), or through the index with
//! [`recall`](crate::recall())) sees the same text.

use goldfish_store::{Checkpoint, MemoryType};

use crate::search_options::FieldWeights;
use crate::text::tokenize;

/// A checkpoint's field, as the engine weighs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Field {
    /// The first line of the description.
    Title,
    /// The rest of the description, then the memory's type (when not a plain checkpoint)
    /// and its structured fields (decision, alternatives, impact, symbols, …): typed text is
    /// written by the same person, about the same moment, as the description, and deserves
    /// the same weight.
    Body,
    /// A tag.
    Tags,
    /// The git branch.
    Branch,
    /// A changed file's path.
    Files,
}

/// The fields in the engine's order (its field numbers).
const ORDER: [Field; FIELDS] = [
    Field::Title,
    Field::Body,
    Field::Tags,
    Field::Branch,
    Field::Files,
];

/// Number of searched fields.
pub(crate) const FIELDS: usize = 5;

/// The field number of the changed files (a word found only there, and only approximately,
/// adds score but no coverage).
pub(crate) const FILES: usize = 4;

/// BM25 length normalisation per field, in field order.
pub(crate) const B: [f32; FIELDS] = [0.5, 0.75, 0.5, 0.0, 0.75];

impl Field {
    /// The field of the engine's field number.
    pub(crate) fn of(f: usize) -> Field {
        ORDER[f.min(FIELDS - 1)]
    }

    /// Its name, as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Field::Title => "title",
            Field::Body => "body",
            Field::Tags => "tags",
            Field::Branch => "branch",
            Field::Files => "files",
        }
    }
}

impl FieldWeights {
    /// The weights in field order (a new field gets its member in [`FieldWeights`] and its
    /// place here).
    pub(crate) fn by_field(&self) -> [f32; FIELDS] {
        [
            self.title,
            self.description,
            self.tags,
            self.branch,
            self.files,
        ]
    }
}

/// Calls `emit` with each piece of a checkpoint's typed text, in order: its type when it is
/// not a plain checkpoint, then its structured fields' text. They belong to the body.
pub(crate) fn typed_text(cp: &Checkpoint, mut emit: impl FnMut(&str)) {
    if cp.memory_type != MemoryType::Checkpoint {
        emit(cp.memory_type.as_str());
    }
    for (_, text) in cp.structured_text() {
        emit(&text);
    }
}

/// Calls `emit(field, token)` with every token of a checkpoint's fields in field order
/// (title — the description's first line —, body and typed text, tags, branch, files), each
/// value tokenized alone: the tokens the search pass finds in [`checkpoint_text`] (the
/// property tests pin the two equal). The index and the reference engine tokenize with this.
pub(crate) fn checkpoint_tokens(
    cp: &Checkpoint,
    buf: &mut Vec<u8>,
    mut emit: impl FnMut(usize, &[u8]),
) {
    let (title, body) = match cp.description.split_once('\n') {
        Some((t, b)) => (t, b),
        None => (cp.description.as_str(), ""),
    };
    tokenize(title, buf, |t| emit(0, t));
    tokenize(body, buf, |t| emit(1, t));
    typed_text(cp, |text| tokenize(text, buf, |t| emit(1, t)));
    for tag in &cp.tags {
        tokenize(tag, buf, |t| emit(2, t));
    }
    if let Some(branch) = cp.branch.as_deref() {
        tokenize(branch, buf, |t| emit(3, t));
    }
    for file in &cp.files {
        tokenize(file, buf, |t| emit(FILES, t));
    }
}

/// Writes `cp` to `out` as one text for the scanner's `scan_fields`, followed by `pad` zero
/// bytes, and returns its length and where its fields begin: the description and typed text
/// (the title, then the body, which the scanner finds after the first newline), the tags,
/// the branch and the files. Each field follows a newline and each value a space or a
/// newline, separators that make its tokens those of each field, and of each value, alone.
pub(crate) fn checkpoint_text(
    cp: &Checkpoint,
    out: &mut String,
    pad: &str,
) -> (usize, [usize; FIELDS]) {
    out.clear();
    out.push_str(&cp.description);
    typed_text(cp, |text| {
        out.push('\n');
        out.push_str(text);
    });
    out.push('\n');
    let tags = out.len();
    for tag in &cp.tags {
        out.push_str(tag);
        out.push(' ');
    }
    out.push('\n');
    let branch = out.len();
    out.push_str(cp.branch.as_deref().unwrap_or(""));
    out.push('\n');
    let files = out.len();
    for file in &cp.files {
        out.push_str(file);
        out.push(' ');
    }
    let len = out.len();
    out.push_str(pad);
    (len, [0, tags, tags, branch, files])
}
