//! ARCHITECTURE.md's code map stays true to the crate: every `crates/recall/src/...` path it
//! names exists, and every source file of the crate is named there.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The repository's root: two levels above this crate.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `crates/recall/src/...` paths the text names (a path ends at the first character
/// that cannot be part of one).
fn named_paths(text: &str) -> BTreeSet<String> {
    let prefix = "crates/recall/src/";
    let mut named = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let tail = &rest[at..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_-./".contains(c)))
            .unwrap_or(tail.len());
        named.insert(tail[..end].trim_end_matches('.').to_string());
        rest = &tail[end..];
    }
    named
}

/// Every `.rs` file under `dir`, as a path from the repository's root.
fn source_files(dir: &Path, root: &Path, out: &mut BTreeSet<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            source_files(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under the root");
            out.insert(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn the_code_map_names_every_module_of_the_crate_and_nothing_else() {
    let root = root();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let named = named_paths(&text);
    assert!(
        !named.is_empty(),
        "ARCHITECTURE.md names no crates/recall/src path"
    );
    let missing: Vec<&String> = named.iter().filter(|p| !root.join(p).exists()).collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
    let mut files = BTreeSet::new();
    source_files(&root.join("crates/recall/src"), &root, &mut files);
    // `semantic/tests.rs` is the semantic channel's unit tests, not a module of the crate.
    files.remove("crates/recall/src/semantic/tests.rs");
    let unnamed: Vec<&String> = files.iter().filter(|f| !named.contains(*f)).collect();
    assert!(
        unnamed.is_empty(),
        "modules of the crate that ARCHITECTURE.md's code map does not name: {unnamed:?}"
    );
}

#[test]
fn paths_are_read_up_to_their_end() {
    let named = named_paths("see `crates/recall/src/score.rs` and crates/recall/src/index/.");
    let want: BTreeSet<String> = ["crates/recall/src/score.rs", "crates/recall/src/index/"]
        .map(String::from)
        .into();
    assert_eq!(named, want);
}
