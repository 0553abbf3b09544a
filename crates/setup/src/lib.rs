//! x
#![allow(missing_docs)]
mod client;
mod error;
mod json;
mod server;
mod toml;
pub use client::{Client, Env, Format};
pub use error::{Error, ErrorKind};
pub use server::{SERVER_NAME, Server, print_snippet};
