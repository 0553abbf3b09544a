//! Integration tests: they drive the real `goldfish` binary in temporary homes.

mod util;

mod actor;
mod agent;
mod browser;
mod checkpoint;
mod concurrency;
mod errors;
mod explain;
mod faults;
mod freshness;
mod hooks;
mod import;
mod index;
mod index_processes;
mod journal;
mod mcp;
mod mcp_conformance;
mod mcp_inspector;
mod mcp_replies;
mod mcp_session;
mod model;
mod notes;
mod plan;
mod plugin;
mod real_clients;
mod recall;
mod redaction;
mod secrets;
mod show;
mod signals;
mod sync;
mod thin;
mod typed;
mod web_memory;
mod workspace;
