//! The merge driver entry point: git's `%O %A %B %P` in, the merged file in `%A` out.

use std::path::Path;

use chrono::{DateTime, Utc};
use goldfish_core::fs::{WriteOptions, write_atomic};

use crate::error::{Error, ErrorKind, Result};
use crate::git::Git;
use crate::merge::{MergeOutcome, merge_file};

/// Runs the merge driver as git calls it (`driver %O %A %B %P`): merges the ancestor `base`,
/// `ours` and `theirs` (temporary files git made) for the store file `path_name` (its path in
/// the repository) by meaning, and writes the result into `ours`, atomically (a temporary
/// file renamed over it).
///
/// When the file cannot be merged by meaning (one side does not parse, or it is not a store
/// file), git's own line merge with conflict markers is written instead (`git merge-file`)
/// and the outcome is [`MergeOutcome::Conflict`]: exit with
/// [`MergeOutcome::exit_code`] (1) so that git records a conflict and sync stops, naming the
/// file. Sync never writes such a result into the store: it merges nothing and names the file.
///
/// A missing `base` reads as empty (a file added on both sides). For `.active-plan`, the
/// plans' `updated` times are read from `plans/` beside `path_name`: our version in the work
/// tree (git runs drivers at its top), and theirs from the commit `theirs_commit` when given
/// (sync sets `$GOLDFISH_MERGE_THEIRS` to the remote branch it merges, and the binary passes
/// that variable's value here); the later of the two counts.
///
/// Errors: a file that cannot be read or written ([`ErrorKind::Io`]); for the fallback, a
/// `git` that cannot be run ([`ErrorKind::GitMissing`]). `ours` is untouched on error.
pub fn run_merge_driver(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    path_name: &str,
    theirs_commit: Option<&str>,
) -> Result<MergeOutcome> {
    let read = |path: &Path, missing_ok: bool| match std::fs::read(path) {
        Ok(bytes) => Ok(bytes),
        Err(e) if missing_ok && e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(Error::new(
            ErrorKind::Io,
            format!("cannot read the version git gave for {path_name}: {e}"),
        )
        .with_path(path)
        .with_source(e)),
    };
    let base_bytes = read(base, true)?;
    let ours_bytes = read(ours, false)?;
    let theirs_bytes = read(theirs, false)?;
    let plans_dir = Path::new(path_name)
        .parent()
        .map(|p| p.join("plans"))
        .unwrap_or_else(|| Path::new("plans").to_path_buf());
    let plan_updated = |id: &str| plan_updated_in(&plans_dir, id, theirs_commit);
    let (text, outcome) = match merge_file(
        path_name,
        &base_bytes,
        &ours_bytes,
        &theirs_bytes,
        &plan_updated,
    ) {
        Ok(merged) => (merged.text, merged.outcome),
        Err(why) => {
            let text = git_merge_file(base, ours, theirs, path_name)?;
            (
                text,
                MergeOutcome::Conflict {
                    reason: format!(
                        "{path_name}: {why}; git's conflict markers were written instead, so resolve this file by hand (keep every entry, remove the markers) and commit it"
                    ),
                },
            )
        }
    };
    let text = redact_merged(text);
    write_atomic(ours, &text, &WriteOptions::umask())?;
    Ok(outcome)
}

/// The merged file with its secrets replaced by `[REDACTED:<kind>]`, as every other write of
/// the store does: a version written by hand or by an older goldfish on another machine
/// could bring one in. The setting is the store's `settings.json` at the top of the work
/// tree, where git runs the driver (a store's root; a project keeping memory in
/// `.goldfish/` has none, so every kind is on); a setting that does not parse turns every
/// kind on rather than none. Bytes that are not UTF-8 are left to the store's reader. Private
/// spans are dropped too, as a document: a `<private>` never closed (from such a version)
/// drops the rest of its line, never the entries after it.
fn redact_merged(text: Vec<u8>) -> Vec<u8> {
    let text = match String::from_utf8(text) {
        Ok(text) => text,
        Err(e) => return e.into_bytes(),
    };
    let config = goldfish_store::redaction_config(Path::new(".")).unwrap_or_default();
    let redactor = goldfish_store::goldfish_redact::Redactor::new(&config);
    redactor
        .redact_document(&text)
        .text
        .into_owned()
        .into_bytes()
}

/// The environment variable naming the commit being merged in (theirs), which the merge
/// driver reads plans from when choosing the newer `.active-plan`. Set by [`sync`](crate::sync)
/// on the `git merge` it runs; the binary git starts as the driver reads it and passes it to
/// [`run_merge_driver`].
pub const MERGE_THEIRS_ENV: &str = "GOLDFISH_MERGE_THEIRS";

/// When plan `id` in `plans_dir` was last updated: the later of the work tree's version and
/// theirs (see [`run_merge_driver`]), if either is there and parses.
fn plan_updated_in(
    plans_dir: &Path,
    id: &str,
    theirs_commit: Option<&str>,
) -> Option<DateTime<Utc>> {
    if id.contains(['/', '\\', '\0']) || id.contains("..") {
        return None;
    }
    let file = plans_dir.join(format!("{id}.md"));
    let parse = |text: &str| {
        goldfish_store::parse_plan(text, "", id)
            .ok()
            .map(|p| p.updated)
    };
    let here = std::fs::read_to_string(&file).ok().and_then(|t| parse(&t));
    let theirs = theirs_commit.and_then(|commit| {
        let spec = format!("{commit}:{}", file.to_string_lossy().replace('\\', "/"));
        let ran = Git::new(Path::new("."))
            .run(&["show", spec.as_str()])
            .ok()?;
        if ran.ok { parse(&ran.stdout) } else { None }
    });
    here.max(theirs)
}

/// git's line merge of the three files with conflict markers, as bytes.
fn git_merge_file(base: &Path, ours: &Path, theirs: &Path, path_name: &str) -> Result<Vec<u8>> {
    let git = Git::new(Path::new("."));
    let ours_label = format!("ours:{path_name}");
    let theirs_label = format!("theirs:{path_name}");
    let args = [
        "merge-file".as_ref(),
        "-p".as_ref(),
        "-L".as_ref(),
        ours_label.as_ref(),
        "-L".as_ref(),
        "base".as_ref(),
        "-L".as_ref(),
        theirs_label.as_ref(),
        ours.as_os_str(),
        base.as_os_str(),
        theirs.as_os_str(),
    ];
    let ran = git.run(&args)?;
    // merge-file exits with the number of conflicts (capped at 127); above that it failed.
    match ran.code {
        Some(0..=127) => Ok(ran.stdout_bytes),
        _ => Err(git.failure(&args, &ran)),
    }
}
