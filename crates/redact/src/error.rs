//! The crate's one error type.

use crate::Kind;

/// An error from this crate: today only a kind name that is not one of [`Kind::ALL`].
#[derive(Debug, thiserror::Error)]
#[error("{kind}")]
pub struct Error {
    kind: ErrorKind,
}

/// What went wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
enum ErrorKind {
    /// A name that is no kind (from a setting or an argument).
    #[error("`{name}` is not a kind of secret; the kinds are: {}", known())]
    UnknownKind { name: String },
}

impl Error {
    pub(crate) fn unknown_kind(name: &str) -> Error {
        Error {
            kind: ErrorKind::UnknownKind {
                name: name.to_string(),
            },
        }
    }

    /// Whether this is a kind name that is not one of [`Kind::ALL`].
    pub fn is_unknown_kind(&self) -> bool {
        matches!(self.kind, ErrorKind::UnknownKind { .. })
    }

    /// The name that was not recognised, if that is the error.
    pub fn name(&self) -> Option<&str> {
        match &self.kind {
            ErrorKind::UnknownKind { name } => Some(name),
        }
    }
}

fn known() -> String {
    Kind::ALL.map(Kind::name).join(", ")
}
