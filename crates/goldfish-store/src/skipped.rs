//! What a read could not read: a file, and the line when the problem is at one. A leaf, so
//! that the day-file listing and the store's reads report in the same type.

use std::path::PathBuf;

/// Something [`Store::checkpoints_between`](crate::Store::checkpoints_between) or
/// [`Store::list_plans`](crate::Store::list_plans) could not read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skipped {
    /// The file concerned.
    pub path: PathBuf,
    /// The 1-based line, when the problem is at one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}
