//! `SignalDir` over real files.

use std::fs;

use goldfish_signals::{BuildComplete, Signal, SignalDir, SignalKind};

use crate::util::TestResult;

fn names(dir: &std::path::Path) -> Result<Vec<String>, std::io::Error> {
    let mut names: Vec<String> = fs::read_dir(dir)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    names.sort();
    Ok(names)
}

#[test]
fn emit_read_present_clear() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let dir = SignalDir::new(tmp.path());
    assert!(
        dir.present().is_empty(),
        "a missing directory has no signals"
    );
    assert_eq!(dir.read(SignalKind::BuildComplete)?, None);

    let mut body = BuildComplete::default();
    body.commits = Some(5);
    let signal = Signal::from(body);
    let path = dir.emit(&signal)?;
    assert_eq!(path, tmp.path().join(".goblin/build-complete"));
    assert_eq!(fs::read_to_string(&path)?, "{\n  \"commits\": 5\n}\n");
    dir.emit(&Signal::empty(SignalKind::ScopeComplete))?;
    assert_eq!(fs::read(dir.signal_path(SignalKind::ScopeComplete))?, b"");
    assert_eq!(
        names(dir.path())?,
        ["build-complete", "scope-complete"],
        "no temp files left"
    );

    assert_eq!(dir.read(SignalKind::BuildComplete)?, Some(signal.clone()));
    let present = dir.present();
    let kinds: Vec<SignalKind> = present.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [SignalKind::ScopeComplete, SignalKind::BuildComplete],
        "pipeline order"
    );
    assert!(
        present
            .iter()
            .all(|p| p.signal.is_ok() && p.modified.is_some())
    );

    assert!(dir.clear(SignalKind::ScopeComplete)?);
    assert!(
        !dir.clear(SignalKind::ScopeComplete)?,
        "clearing twice is fine"
    );
    fs::write(dir.path().join("GOBLIN_NOTES.md"), "# notes\n")?;
    fs::write(dir.path().join("pipeline.json"), "{}")?;
    dir.emit(&Signal::empty(SignalKind::TestFailed))?;
    assert_eq!(
        dir.clear_all()?,
        [SignalKind::BuildComplete, SignalKind::TestFailed]
    );
    assert_eq!(
        names(dir.path())?,
        ["GOBLIN_NOTES.md", "pipeline.json"],
        "only signals go"
    );
    Ok(())
}

#[test]
fn invalid_bodies_are_reported_with_position_and_left_in_place() -> TestResult {
    let tmp = tempfile::tempdir()?;
    let dir = SignalDir::new(tmp.path());
    fs::create_dir_all(dir.path())?;
    // (kind, bytes, line)
    let cases: [(SignalKind, &[u8], usize); 4] = [
        (SignalKind::BuildComplete, b"{\"commits\":", 1),
        (
            SignalKind::ReviewApproved,
            b"{\n  \"critical_issues\": -3\n}",
            2,
        ),
        (
            SignalKind::TestPassed,
            b"{\n\n  \"screenshots\": [\"a\xff\"]}",
            3,
        ),
        (SignalKind::TestFailed, b"{\"reason\": \"x\"} trailing", 1),
    ];
    for (kind, bytes, line) in cases {
        let path = dir.signal_path(kind);
        fs::write(&path, bytes)?;
        let err = dir.read(kind).expect_err("invalid body");
        assert!(err.is_invalid_signal(), "{kind}: {err}");
        assert_eq!(err.path(), Some(path.as_path()));
        assert_eq!(err.line(), Some(line), "{kind}: {err}");
        assert!(err.column().is_some());
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("{}:{line}:", path.display())),
            "{msg}"
        );
        assert_eq!(fs::read(&path)?, bytes, "left in place untouched");
    }
    let present = dir.present();
    assert_eq!(present.len(), 4);
    assert!(present.iter().all(|p| p.signal.is_err()));
    Ok(())
}

#[cfg(unix)]
#[test]
fn emitted_files_follow_the_umask() -> TestResult {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir()?;
    let dir = SignalDir::new(tmp.path());
    let path = dir.emit(&Signal::empty(SignalKind::BuildComplete))?;
    let mode = |p: &std::path::Path| -> std::io::Result<u32> {
        Ok(fs::metadata(p)?.permissions().mode() & 0o777)
    };
    // A file created plainly in the same directory gets 0666 minus the umask: the same.
    let plain = dir.path().join("plain");
    fs::File::create(&plain)?;
    assert_eq!(mode(&path)?, mode(&plain)?);
    Ok(())
}

#[test]
fn invalid_utf8_and_io_kind_are_asked_the_same_way_as_everywhere() -> TestResult {
    let dir = tempfile::tempdir()?;
    let signals = SignalDir::new(dir.path());
    signals.emit(&Signal::from(BuildComplete::default()))?;
    let path = dir.path().join(".goblin").join("build-complete");
    fs::write(&path, b"{\"commits\": \xff}")?;
    let e = signals
        .read(SignalKind::BuildComplete)
        .err()
        .ok_or("read a bad file")?;
    assert!(e.is_invalid_utf8(), "{e}");
    assert!(matches!(
        e.kind(),
        goldfish_signals::ErrorKind::InvalidSignal { .. }
    ));
    assert_eq!(e.path(), Some(path.as_path()));
    assert_eq!(e.io_kind(), Some(std::io::ErrorKind::InvalidData));
    Ok(())
}
