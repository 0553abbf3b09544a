//! Skeleton: filled in by its issue.
#![deny(missing_docs)]
#![forbid(unsafe_code)]
