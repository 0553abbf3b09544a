//! Library crates read no process state (environment variables, the current directory, the
//! user's home) except in a `from_env` constructor that a binary calls: a program using them
//! gets what it passes and nothing else. Checked over the source of every crate but this one.

use std::path::{Path, PathBuf};

use crate::util::TestResult;

/// What reads the process's state. `std::env::consts` and `std::env::split_paths` are pure.
const READS: [&str; 8] = [
    "env::var(",
    "env::var_os(",
    "env::vars(",
    "env::vars_os(",
    "env::current_dir(",
    "env::home_dir(",
    "env::args(",
    "dirs::",
];

/// Each read of process state in `source` outside a function named `from_env` or
/// `*_from_env`, as `line: text` (1-based). The unit tests at the end of a file (from its
/// `#[cfg(test)]` module on) are left out: they are not the library.
fn reads_outside_from_env(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut function = String::new();
    let mut lines = source.lines().enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let code = line.trim_start();
        if code == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|(_, next)| next.trim_start().starts_with("mod tests"))
        {
            break;
        }
        if code.starts_with("//") {
            continue;
        }
        if let Some(at) = code.find("fn ") {
            let before = &code[..at];
            if before.is_empty() || before.ends_with(' ') || before.ends_with('(') {
                function = code[at + 3..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
            }
        }
        let allowed = function == "from_env" || function.ends_with("_from_env");
        if !allowed && READS.iter().any(|r| code.contains(r)) {
            found.push(format!("{}: {}", i + 1, code));
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

#[test]
fn the_checker_finds_reads_outside_from_env() {
    let source = "\
pub fn from_env() -> Options {
    let cwd = std::env::current_dir().ok();
}
/// Reads `std::env::var(\"X\")` in a doc comment: not code.
fn default_root() -> PathBuf {
    let s = 1;
    std::env::var_os(\"HOME\").map(PathBuf::from)
}
pub fn store_from_env() { let _ = std::env::var(\"GOLDFISH_HOME\"); }
fn exe() -> String { format!(\"x{}\", std::env::consts::EXE_SUFFIX) }
#[cfg(test)]
mod tests {
    fn t() { std::env::current_dir(); }
}
";
    assert_eq!(
        reads_outside_from_env(source),
        ["7: std::env::var_os(\"HOME\").map(PathBuf::from)"]
    );
}

#[test]
fn library_crates_read_the_environment_only_in_from_env() -> TestResult {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&crates)? {
        let dir = entry?.path();
        let binary = dir.file_name().is_some_and(|n| n == "cli");
        if !binary && dir.join("src").is_dir() {
            rust_files(&dir.join("src"), &mut files)?;
        }
    }
    assert!(files.len() > 50, "found only {} source files", files.len());
    let mut found = Vec::new();
    for file in &files {
        for read in reads_outside_from_env(&std::fs::read_to_string(file)?) {
            found.push(format!("{}:{read}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "library code reads the process's state outside a `from_env` constructor:\n{}",
        found.join("\n")
    );
    Ok(())
}
