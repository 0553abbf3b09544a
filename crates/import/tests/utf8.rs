//! Invalid UTF-8 deep inside a large source: every text reader names the file, the 1-based
//! line and the byte offset of the first bad byte, and imports nothing of what it refused.

use std::path::Path;

use goldfish_import::{
    ImportOptions, apply, export_jsonl, jsonl_batch, memories_batch, read_memories, v4_batch,
};
use goldfish_store::{Checkpoint, Store};

use crate::TestResult;

/// The line (1-based) given one bad byte.
const BAD_LINE: usize = 73_412;

/// A JSON Lines export of 100,000 checkpoints, the line [`BAD_LINE`] holding a byte that is
/// not UTF-8 in its description; returns the byte's offset in the file.
fn big_jsonl(path: &Path) -> std::io::Result<usize> {
    let mut bytes = Vec::new();
    let mut offset = 0;
    for i in 1..=100_000 {
        let line = format!(
            r#"{{"kind":"checkpoint","workspace":"big","id":"c{i:06}","timestamp":"2026-03-01T10:00:00Z","type":"checkpoint","description":"Entry {i} caf"#
        );
        bytes.extend_from_slice(line.as_bytes());
        if i == BAD_LINE {
            offset = bytes.len();
            // Latin-1 `é`, as an editor set to the wrong encoding writes it.
            bytes.push(0xe9);
        } else {
            bytes.extend_from_slice("é".as_bytes());
        }
        bytes.extend_from_slice(b"\"}\n");
    }
    std::fs::write(path, bytes)?;
    Ok(offset)
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> std::io::Result<Vec<(std::path::PathBuf, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            if e.file_type()?.is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), std::fs::read(e.path())?));
            }
        }
    }
    out.sort();
    Ok(out)
}

#[test]
fn a_jsonl_file_with_one_bad_byte_deep_inside_is_refused_naming_line_and_byte() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let store = Store::open(tmp.path().join("store"))?;
    let mut seed = Checkpoint::new(
        "seed",
        chrono::DateTime::UNIX_EPOCH,
        "big",
        "Already in the store",
    );
    seed.tags = vec!["seed".into()];
    store.import_checkpoint(&seed)?;
    let before = snapshot(store.root())?;

    let file = tmp.path().join("big.jsonl");
    let offset = big_jsonl(&file)?;
    let err = jsonl_batch(&file).expect_err("not UTF-8");
    assert!(err.is_invalid_utf8(), "{err}");
    assert_eq!(err.path(), file);
    assert_eq!(err.line(), Some(BAD_LINE));
    let shown = err.to_string();
    assert!(
        shown.starts_with(&format!(
            "{}:{BAD_LINE}: not valid UTF-8 at byte offset {offset} (",
            file.display()
        )),
        "{shown}"
    );
    // Refused whole: no batch, so none of the 73,411 valid lines before it is imported.
    assert_eq!(snapshot(store.root())?, before, "the store is unchanged");
    Ok(())
}

#[test]
fn a_goldfish_memories_file_with_a_bad_byte_is_skipped_naming_line_and_byte() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let day = tmp.path().join("proj/.memories/2026-05-06");
    std::fs::create_dir_all(&day)?;
    std::fs::write(
        day.join("120000_good.md"),
        "---\nid: good\ntimestamp: 2026-05-06T12:00:00Z\n---\n\nGood one\n",
    )?;
    let mut bad = b"---\nid: bad\ntimestamp: 2026-05-06T12:01:00Z\n---\n\n".to_vec();
    for i in 0..5_000 {
        bad.extend_from_slice(format!("line {i} of a long body\n").as_bytes());
    }
    let offset = bad.len() + "caf".len();
    bad.extend_from_slice(b"caf\xe9 au lait\n");
    let bad_line = 1 + bad[..offset].iter().filter(|&&b| b == b'\n').count();
    let bad_path = day.join("120100_bad.md");
    std::fs::write(&bad_path, &bad)?;

    let read = read_memories(&tmp.path().join("proj"))?;
    assert_eq!(read.checkpoints.len(), 1);
    assert_eq!(read.problems.len(), 1, "{:?}", read.problems);
    let p = &read.problems[0];
    assert!(p.is_invalid_utf8(), "{p}");
    assert_eq!(p.path(), bad_path);
    assert_eq!(p.line(), Some(bad_line));
    assert_eq!(bad_line, 5 + 5_000 + 1);
    assert!(
        p.to_string().contains(&format!(
            ":{bad_line}: not valid UTF-8 at byte offset {offset} ("
        )),
        "{p}"
    );

    // Imported: the good file, none of the bad one.
    let store = Store::open(tmp.path().join("store"))?;
    let r = apply(
        &store,
        memories_batch(&tmp.path().join("proj"))?,
        &ImportOptions::default(),
        &mut |_, _| {},
    );
    assert_eq!(r.workspaces[0].checkpoints, 1);
    assert_eq!(r.problems.len(), 1);
    let mut out = Vec::new();
    export_jsonl(&store, &[], &mut out)?;
    let text = String::from_utf8(out)?;
    assert!(
        text.contains("Good one") && !text.contains("long body"),
        "{text}"
    );
    Ok(())
}

#[test]
fn a_v4_day_file_with_a_bad_byte_skips_its_checkpoint_naming_line_and_byte() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let v4 = Store::open(tmp.path().join("v4"))?;
    let day = chrono::DateTime::parse_from_rfc3339("2026-03-01T00:00:00Z")?.to_utc();
    for i in 0..300 {
        let at = day + chrono::TimeDelta::seconds(60 * i);
        v4.import_checkpoint(&Checkpoint::new(
            format!("c{i:03}"),
            at,
            "old",
            format!("Entry {i} café"),
        ))?;
    }
    // One byte of entry 200's `é` broken: Latin-1 where UTF-8 was.
    let files: Vec<_> = snapshot(v4.root())?
        .into_iter()
        .filter(|(p, _)| {
            p.extension().is_some_and(|e| e == "md") && p.to_string_lossy().contains("2026-03-01")
        })
        .collect();
    assert_eq!(files.len(), 1, "one day file: {files:?}");
    let (path, mut bytes) = files.into_iter().next().ok_or("no day file")?;
    let needle = "Entry 200 caf\u{e9}".as_bytes();
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .ok_or("entry 200 not in the day file")?
        + needle.len()
        - 2;
    bytes.splice(at..at + 2, [0xe9]);
    let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
    std::fs::write(&path, &bytes)?;

    let batch = v4_batch(v4.root())?;
    assert_eq!(batch.checkpoints.len(), 299);
    assert_eq!(batch.problems.len(), 1, "{:?}", batch.problems);
    let p = &batch.problems[0];
    assert_eq!(p.path(), path);
    assert_eq!(p.line(), Some(line));
    assert!(
        p.message().starts_with(&format!(
            "not valid UTF-8 at line {line} (byte offset {at});"
        )),
        "{p}"
    );
    assert!(batch.checkpoints.iter().all(|c| c.id != "c200"));
    Ok(())
}
