//! Shared helpers for the goldfish benches and the target check.
