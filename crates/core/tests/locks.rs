//! Locks and temporary files against real child processes: a child that shares a lock's
//! descriptor does not keep the lock after its guard is dropped, and temporary files of killed
//! writers are removed by the next write while a live writer's are kept.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

use goldfish_core::fs::{
    AtomicFile, WriteOptions, is_temp_file_name, lock_exclusive, try_lock_exclusive, write_atomic,
};

use crate::TestResult;

const DIR_VAR: &str = "GOLDFISH_CORE_TEST_LOCKS_DIR";

/// Kills the child when the test ends, however it ends.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The situation behind a lock that outlived its guard: while another thread spawns a
/// process, the child shares every open file description of the parent until it execs, and
/// an `flock` lock belongs to the description. Here the child keeps a copy of the lock's
/// descriptor for its whole life (as its stdout), which is the longest such window: dropping
/// the guard must still free the lock for everyone else at once.
#[cfg(unix)]
#[test]
fn a_child_holding_the_lock_descriptor_does_not_keep_the_lock() -> TestResult {
    use std::os::fd::AsFd;
    let dir = tempfile::tempdir()?;
    let target = dir.path().join("day.md");
    let options = WriteOptions::private();
    let lock = lock_exclusive(&target, &options)?;
    let copy = lock.as_fd().try_clone_to_owned()?;
    let child = Reaped(
        Command::new("sleep")
            .arg("600")
            .stdin(Stdio::null())
            .stdout(Stdio::from(copy))
            .spawn()?,
    );
    assert!(
        try_lock_exclusive(&target, &options)?.is_none(),
        "the lock is held while its guard lives"
    );
    drop(lock);
    let again = try_lock_exclusive(&target, &options)?;
    assert!(
        again.is_some(),
        "the lock is free once its guard is dropped, although the child still shares it"
    );
    drop(again);
    // A blocking lock from another process gets it too (the test binary, as a child).
    let status = Command::new(std::env::current_exe()?)
        .args([
            "--exact",
            "locks::child_takes_the_lock",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(DIR_VAR, dir.path())
        .stdout(Stdio::null())
        .status()?;
    assert!(status.success(), "another process took the lock");
    drop(child);
    Ok(())
}

/// The other process of the test above: takes the lock (blocking) and releases it.
#[test]
fn child_takes_the_lock() -> TestResult {
    let Ok(dir) = std::env::var(DIR_VAR) else {
        return Ok(());
    };
    drop(lock_exclusive(
        &Path::new(&dir).join("day.md"),
        &WriteOptions::private(),
    )?);
    Ok(())
}

/// Lock descriptors are close-on-exec: no program a child runs inherits them.
#[cfg(target_os = "linux")]
#[test]
fn lock_descriptors_are_close_on_exec() -> TestResult {
    use std::os::fd::{AsFd, AsRawFd};
    const O_CLOEXEC: u32 = 0o2_000_000;
    let dir = tempfile::tempdir()?;
    let lock = lock_exclusive(&dir.path().join("f"), &WriteOptions::private())?;
    let fd = lock.as_fd().as_raw_fd();
    let info = std::fs::read_to_string(format!("/proc/self/fdinfo/{fd}"))?;
    let flags = info
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .ok_or("no flags line")?;
    let flags = u32::from_str_radix(flags.trim(), 8)?;
    assert_ne!(flags & O_CLOEXEC, 0, "{info}");
    Ok(())
}

/// The child of the temp-file test: starts replacing `day.md`, says `ready` with its temp
/// file's name, then waits for its stdin to close and commits.
#[test]
fn child_writes_and_waits() -> TestResult {
    let Ok(dir) = std::env::var(DIR_VAR) else {
        return Ok(());
    };
    let target = PathBuf::from(dir).join("day.md");
    let mut file = AtomicFile::create(&target, &WriteOptions::private())?;
    file.write_all(format!("written by {}\n", std::process::id()).as_bytes())?;
    println!("\nwriter-ready");
    std::io::stdout().flush()?;
    let mut rest = String::new();
    while std::io::stdin().read_line(&mut rest)? > 0 {}
    file.commit()?;
    Ok(())
}

/// Starts a child writer and waits until its temp file exists.
fn start_writer(dir: &Path) -> Result<(Reaped, ChildStdin), Box<dyn std::error::Error>> {
    let mut child = Command::new(std::env::current_exe()?)
        .args([
            "--exact",
            "locks::child_writes_and_waits",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(DIR_VAR, dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let child = Reaped(child);
    let mut lines = BufReader::new(stdout).lines();
    loop {
        match lines.next() {
            Some(line) => {
                if line?.trim() == "writer-ready" {
                    break;
                }
            }
            None => return Err("the writer exited before it was ready".into()),
        }
    }
    // Keep reading, so the child's last lines (the harness's report) never hit a closed pipe.
    std::thread::spawn(move || lines.for_each(drop));
    Ok((child, stdin))
}

fn temps_of(dir: &Path, pid: u32) -> Result<Vec<PathBuf>, std::io::Error> {
    let prefix = format!(".day.md.{pid}-");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.starts_with(&prefix) && is_temp_file_name(&name) {
            out.push(dir.join(name));
        }
    }
    Ok(out)
}

#[cfg(unix)]
#[test]
fn temp_files_of_killed_writers_go_on_the_next_write_live_ones_stay() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path();
    write_atomic(&path.join("day.md"), b"first\n", &WriteOptions::private())?;
    // Planted by hand: what writers killed long ago left.
    let planted: Vec<PathBuf> = (0..5)
        .map(|i| path.join(format!(".day.md.{}-{i:x}-{i}.tmp", 4_000_000 + i)))
        .collect();
    for p in &planted {
        std::fs::write(p, "partial")?;
    }
    let (mut killed, _killed_stdin) = start_writer(path)?;
    let (live, live_stdin) = start_writer(path)?;
    let killed_temps = temps_of(path, killed.0.id())?;
    let live_temps = temps_of(path, live.0.id())?;
    assert_eq!((killed_temps.len(), live_temps.len()), (1, 1));
    killed.0.kill()?; // SIGKILL
    killed.0.wait()?;
    assert!(
        killed_temps[0].exists(),
        "a killed writer leaves its temp file"
    );

    write_atomic(&path.join("day.md"), b"second\n", &WriteOptions::private())?;
    for p in planted.iter().chain(&killed_temps) {
        assert!(!p.exists(), "{} was not cleaned", p.display());
    }
    assert!(live_temps[0].exists(), "a live writer's temp file is kept");
    assert_eq!(std::fs::read_to_string(path.join("day.md"))?, "second\n");

    // The live writer finishes normally.
    drop(live_stdin);
    let mut live = live;
    assert!(live.0.wait()?.success());
    assert_eq!(
        std::fs::read_to_string(path.join("day.md"))?,
        format!("written by {}\n", live.0.id())
    );
    let left: Vec<String> = std::fs::read_dir(path)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    assert!(left.iter().all(|n| !is_temp_file_name(n)), "{left:?}");
    Ok(())
}
