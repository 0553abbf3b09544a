//! The workspace's layout: the design card's paths exist and hold the packages it names, every
//! other crate lives where ARCHITECTURE.md's one rule puts it, and every `crates/…` path the
//! top-level docs name exists. Read from the files themselves, so a moved crate or a stale
//! path in the docs fails here.

use std::path::{Path, PathBuf};

use crate::util::TestResult;

/// The design card's paths and the packages they hold.
const CARD: [(&str, &str); 5] = [
    ("crates/notes-core", "notes-core"),
    ("crates/goldfish-store", "goldfish-store"),
    ("crates/signals", "goldfish-signals"),
    ("crates/journal", "goldfish-journal"),
    ("crates/recall", "goldfish-recall"),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `name = "…"` of a manifest's `[package]` table.
fn package_name(manifest: &str) -> Option<&str> {
    let mut in_package = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package && let Some(rest) = line.strip_prefix("name") {
            let value = rest.trim_start().strip_prefix('=')?.trim();
            return value.strip_prefix('"')?.strip_suffix('"');
        }
    }
    None
}

/// Every directory under `crates/` with its package name.
fn crates() -> std::io::Result<Vec<(String, String)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(root().join("crates"))? {
        let path = entry?.path();
        let manifest = path.join("Cargo.toml");
        if !manifest.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&manifest)?;
        let name = package_name(&text).ok_or_else(|| {
            std::io::Error::other(format!("{}: no package name", manifest.display()))
        })?;
        let dir = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| std::io::Error::other(format!("{}: not UTF-8", path.display())))?;
        found.push((format!("crates/{dir}"), name.to_owned()));
    }
    found.sort();
    Ok(found)
}

#[test]
fn the_cards_paths_hold_the_cards_packages() -> TestResult {
    let crates = crates()?;
    for (path, package) in CARD {
        assert!(
            crates.iter().any(|(p, n)| p == path && n == package),
            "{path} should hold package {package}; the workspace has {crates:?}"
        );
    }
    Ok(())
}

#[test]
fn every_other_crate_lives_under_its_short_name() -> TestResult {
    for (path, package) in crates()? {
        if CARD.iter().any(|(p, _)| *p == path) {
            continue;
        }
        let short = package.strip_prefix("goldfish-").unwrap_or(&package);
        assert_eq!(
            path,
            format!("crates/{short}"),
            "package {package} should live in crates/{short} (ARCHITECTURE.md, \"Where a crate lives\")"
        );
    }
    Ok(())
}

/// `crates/x` or `crates/x/…` paths written in a document, up to the first character that
/// cannot be part of a path.
fn crate_paths(doc: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = doc;
    while let Some(at) = rest.find("crates/") {
        let before = rest[..at].chars().next_back();
        let tail = &rest[at..];
        let len = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || "/_-.".contains(c)))
            .unwrap_or(tail.len());
        let path = tail[..len].trim_end_matches(['.', '/']);
        // `../crates/x` and `/crates/x` are the same paths; a word like `subcrates/` is not one.
        if before.is_none_or(|c| !c.is_ascii_alphanumeric()) && path.len() > "crates/".len() {
            paths.push(path.to_owned());
        }
        rest = &tail[len.max(1)..];
    }
    paths
}

#[test]
fn the_top_level_docs_name_only_paths_that_exist() -> TestResult {
    let root = root();
    for doc in ["ARCHITECTURE.md", "README.md", "RELEASING.md"] {
        let text = std::fs::read_to_string(root.join(doc))?;
        let missing: Vec<String> = crate_paths(&text)
            .into_iter()
            // Glob-like placeholders (`crates/{name}`, `crates/*`) are rules, not paths.
            .filter(|p| !p.contains('{') && !p.contains('*'))
            .filter(|p| !root.join(p).exists())
            .collect();
        assert!(
            missing.is_empty(),
            "{doc} names paths that do not exist: {missing:?}"
        );
    }
    Ok(())
}

#[test]
fn crate_paths_are_read_as_written() {
    assert_eq!(
        crate_paths("see `crates/recall/src/score.rs`, crates/cli. and subcrates/x"),
        ["crates/recall/src/score.rs", "crates/cli"]
    );
}
