//! Which repository around a directory keeps goldfish memory and so needs the merge driver
//! registered (for `goldfish doctor`).

use std::path::{Path, PathBuf};

use crate::sync::{DRIVER_NAME, IN_REPO_DIR};

/// The top of the git repository holding `dir` (the nearest ancestor with a `.git` entry),
/// when that repository keeps goldfish memory: it has a `.goldfish/` directory, or its
/// `.gitattributes` sends files to the goldfish merge driver (`merge=goldfish`). Such a
/// repository needs the driver in its own config ([`fix_driver_config`](crate::fix_driver_config)),
/// which a clone does not copy. Only reads; no process is started.
pub fn repository_with_memory(dir: &Path) -> Option<PathBuf> {
    let top = dir.ancestors().find(|d| d.join(".git").exists())?;
    let attributes = std::fs::read_to_string(top.join(".gitattributes")).unwrap_or_default();
    let wanted = format!("merge={DRIVER_NAME}");
    let maps = attributes
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .any(|l| l.split_whitespace().skip(1).any(|a| a == wanted));
    (maps || top.join(IN_REPO_DIR).is_dir()).then(|| top.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_repository_with_memory_only() {
        let dir = tempfile::tempdir().expect("temp dir");
        let top = dir.path();
        let sub = top.join("src/deep");
        std::fs::create_dir_all(&sub).expect("mkdir");
        std::fs::create_dir(top.join(".git")).expect("mkdir .git");
        assert_eq!(repository_with_memory(&sub), None);
        std::fs::write(top.join(".gitattributes"), "# merge=goldfish\n*.md text\n").expect("write");
        assert_eq!(repository_with_memory(&sub), None);
        std::fs::write(top.join(".gitattributes"), "JOURNAL.md merge=goldfish\n").expect("write");
        assert_eq!(repository_with_memory(&sub), Some(top.to_path_buf()));
        std::fs::remove_file(top.join(".gitattributes")).expect("rm");
        std::fs::create_dir(top.join(".goldfish")).expect("mkdir");
        assert_eq!(repository_with_memory(&sub), Some(top.to_path_buf()));
    }
}
