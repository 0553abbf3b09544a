//! The `goldfish` binary.
fn main() {}
