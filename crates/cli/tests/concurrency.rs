//! Many `goldfish checkpoint` processes at once.

use crate::util::{Env, TestResult};

#[test]
fn twenty_processes_twenty_checkpoints() -> TestResult {
    let env = Env::new()?;
    let children = (0..20)
        .map(|i| {
            env.cmd(&["checkpoint", &format!("parallel checkpoint {i}")])
                .stdout(std::process::Stdio::null())
                .spawn()
        })
        .collect::<Result<Vec<_>, _>>()?;
    for mut child in children {
        assert!(child.wait()?.success());
    }
    let v = env.json(&["recall", "--limit", "100"])?;
    let mut got: Vec<String> = v["checkpoints"]
        .as_array()
        .ok_or("checkpoints")?
        .iter()
        .filter_map(|c| c["description"].as_str().map(str::to_string))
        .collect();
    got.sort();
    let mut want: Vec<String> = (0..20)
        .map(|i| format!("parallel checkpoint {i}"))
        .collect();
    want.sort();
    assert_eq!(got, want);
    let ids: std::collections::BTreeSet<&str> = v["checkpoints"]
        .as_array()
        .ok_or("checkpoints")?
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(ids.len(), 20, "ids are unique");
    Ok(())
}

/// The lock waiters of the file with inode `ino`, by `/proc/locks` (Linux; 0 elsewhere).
fn lock_waiters(ino: u64) -> usize {
    let needle = format!(":{ino} ");
    std::fs::read_to_string("/proc/locks")
        .map(|t| {
            t.lines()
                .filter(|l| l.contains("->") && l.contains(&needle))
                .count()
        })
        .unwrap_or(0)
}

/// Eight processes save the same checkpoint at once: one entry, seven replies naming it.
/// The test holds the day file's lock while they start, so every one of them has built its
/// entry before any can write: a check made before the lock, or on the file as read before
/// it, would let them all write.
#[cfg(unix)]
#[test]
fn eight_identical_saves_at_once_make_one_entry() -> TestResult {
    use std::os::unix::fs::MetadataExt as _;
    let env = Env::new()?;
    let dir = env.home().join("test/checkpoints");
    std::fs::create_dir_all(&dir)?;
    let date = chrono::Utc::now().date_naive();
    let lock = std::fs::File::create(dir.join(format!(".{date}.md.lock")))?;
    lock.lock()?;
    let args = [
        "--json",
        "checkpoint",
        "Rotate refresh tokens on every use",
        "--type",
        "decision",
        "--decision",
        "rotate on use",
        "--tags",
        "auth,security",
    ];
    let children = (0..8)
        .map(|_| {
            env.cmd(&args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Until all eight wait on the lock (where /proc/locks says so; a bound in case the date
    // turned, whatever the test then sees is still right).
    let ino = lock.metadata()?.ino();
    let start = std::time::Instant::now();
    let proc_locks = std::path::Path::new("/proc/locks").exists();
    while proc_locks
        && lock_waiters(ino) < 8
        && start.elapsed() < std::time::Duration::from_secs(120)
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    lock.unlock()?;
    let mut replies = Vec::new();
    for child in children {
        let out = child.wait_with_output()?;
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        replies.push(serde_json::from_slice::<serde_json::Value>(&out.stdout)?);
    }
    let firsts: Vec<&serde_json::Value> = replies
        .iter()
        .filter(|r| r["duplicate_of"].is_null())
        .collect();
    assert_eq!(firsts.len(), 1, "{replies:#?}");
    let id = firsts[0]["id"].as_str().ok_or("id")?;
    for r in &replies {
        assert_eq!(r["id"].as_str(), Some(id), "{r}");
    }
    assert_eq!(
        replies
            .iter()
            .filter(|r| r["duplicate_of"].as_str() == Some(id))
            .count(),
        7
    );
    let v = env.json(&["recall", "--limit", "100"])?;
    assert_eq!(v["checkpoints"].as_array().ok_or("checkpoints")?.len(), 1);
    Ok(())
}
