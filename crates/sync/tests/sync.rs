//! Two homes sharing one bare remote: concurrent saves and syncs converge, plans and the
//! active plan merge by meaning.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use goldfish_store::{CheckpointInput, PlanInput, PlanUpdate, Store};
use goldfish_sync::{ErrorKind, SyncOptions, has_merge_conflict, init, status, sync};

use crate::util::{
    TestResult, all_checkpoints, assert_no_markers, bare_remote, git, store_at, tool,
};

const WS: &str = "shared";

/// A remote and two homes `a` and `b` set up to sync with it.
pub(crate) fn homes(dir: &Path) -> TestResult<(PathBuf, PathBuf)> {
    let remote = bare_remote(dir);
    let remote = remote.to_str().ok_or("utf8 path")?;
    let (a, b) = (dir.join("a"), dir.join("b"));
    init(&a, Some(remote), &tool())?;
    init(&b, Some(remote), &tool())?;
    // Idempotent.
    let head = git(&a, &["rev-parse", "HEAD"]);
    init(&a, Some(remote), &tool())?;
    assert_eq!(git(&a, &["rev-parse", "HEAD"]), head);
    Ok((a, b))
}

pub(crate) fn sync_ok(home: &Path) -> TestResult<goldfish_sync::SyncReport> {
    Ok(sync(home, &SyncOptions::default())?)
}

/// Both homes synced until each has the other's commits.
pub(crate) fn converge(a: &Path, b: &Path) -> TestResult {
    sync_ok(a)?;
    sync_ok(b)?;
    sync_ok(a)?;
    assert_eq!(
        git(a, &["rev-parse", "HEAD"]),
        git(b, &["rev-parse", "HEAD"])
    );
    for home in [a, b] {
        assert!(
            git(home, &["status", "--porcelain"]).is_empty(),
            "{}",
            home.display()
        );
        assert!(
            git(home, &["ls-files", "-u"]).is_empty(),
            "no unmerged files"
        );
        assert!(!home.join(".git/MERGE_HEAD").exists());
        let st = status(home)?;
        assert_eq!((st.ahead, st.behind), (0, 0));
        assert!(st.unsynced.is_empty(), "{:?}", st.unsynced);
    }
    Ok(())
}

#[test]
fn concurrent_saves_and_syncs_on_two_homes_converge() -> TestResult {
    const PROCESSES: usize = 4;
    const PER_PROCESS: usize = 50;
    const THREADS: usize = 2;
    const PER_THREAD: usize = 10;
    let dir = tempfile::tempdir()?;
    let (a, b) = homes(dir.path())?;
    let mut expected = BTreeSet::new();
    let mut sides = Vec::new();
    for (side, home) in [("a", a.clone()), ("b", b.clone())] {
        let mut children = Vec::new();
        for p in 0..PROCESSES {
            let prefix = format!("{side}-process-{p}");
            expected.extend((0..PER_PROCESS).map(|i| format!("{prefix} {i}")));
            children.push(
                Command::new(tool())
                    .arg("save")
                    .arg(&home)
                    .args([WS, &PER_PROCESS.to_string(), &prefix])
                    .spawn()?,
            );
        }
        let mut threads = Vec::new();
        for t in 0..THREADS {
            let prefix = format!("{side}-thread-{t}");
            expected.extend((0..PER_THREAD).map(|i| format!("{prefix} {i}")));
            let store = Store::open(&home)?;
            threads.push(std::thread::spawn(move || -> Result<(), String> {
                for i in 0..PER_THREAD {
                    let mut input = CheckpointInput::new(format!("{prefix} {i}"));
                    input.workspace = Some(WS.into());
                    store.save_checkpoint(input).map_err(|e| e.to_string())?;
                }
                Ok(())
            }));
        }
        let done = Arc::new(AtomicBool::new(false));
        let syncer = {
            let (home, done) = (home.clone(), Arc::clone(&done));
            std::thread::spawn(move || -> Result<usize, String> {
                let mut rounds = 0;
                // Runs while the savers do, and a few rounds at least.
                while !done.load(Ordering::SeqCst) || rounds < 3 {
                    match sync(&home, &SyncOptions::default()) {
                        Ok(_) => {}
                        // Both sides push all the time: the bounded retries may run out.
                        Err(e) if e.kind() == ErrorKind::PushRejected => {}
                        Err(e) => return Err(format!("{e} ({:?})", e.kind())),
                    }
                    rounds += 1;
                }
                Ok(rounds)
            })
        };
        sides.push((children, threads, done, syncer));
    }
    for (children, threads, done, syncer) in sides {
        for mut child in children {
            assert!(child.wait()?.success(), "a saving process failed");
        }
        for thread in threads {
            thread.join().map_err(|_| "saver panicked")??;
        }
        done.store(true, Ordering::SeqCst);
        let rounds = syncer.join().map_err(|_| "syncer panicked")??;
        assert!(rounds >= 3);
    }
    converge(&a, &b)?;
    let in_a = all_checkpoints(&a, WS);
    let in_b = all_checkpoints(&b, WS);
    assert_eq!(in_a, in_b, "both homes hold the same checkpoints");
    let descriptions: BTreeSet<String> = in_a.values().map(|c| c.description.clone()).collect();
    assert_eq!(
        in_a.len(),
        2 * (PROCESSES * PER_PROCESS + THREADS * PER_THREAD)
    );
    assert_eq!(descriptions, expected, "every save is there, exactly once");
    Ok(())
}

fn plan_text(home: &Path, id: &str) -> TestResult<String> {
    let text = std::fs::read_to_string(home.join(WS).join("plans").join(format!("{id}.md")))?;
    assert_no_markers(&text, Path::new(id));
    Ok(text)
}

#[test]
fn plans_edited_on_both_homes_keep_every_edit() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (a, b) = homes(dir.path())?;
    let mut plan = PlanInput::new("Roadmap", "- [ ] one\n- [ ] two\n- [ ] three\n- [ ] four\n");
    plan.workspace = Some(WS.into());
    plan.id = Some("roadmap".into());
    store_at(&a, "2025-10-13T09:00:00Z")?.save_plan(plan)?;
    converge(&a, &b)?;

    let mut edit = PlanUpdate::default();
    edit.content = Some("- [x] one\n- [ ] two\n- [ ] three\n- [ ] four\n".into());
    store_at(&a, "2025-10-13T10:00:00Z")?.update_plan(WS, "roadmap", edit)?;
    let mut edit = PlanUpdate::default();
    edit.content = Some("- [ ] one\n- [ ] two\n- [ ] three\n- [x] four\n".into());
    edit.tags = Some(vec!["q4".into()]);
    store_at(&b, "2025-10-13T11:00:00Z")?.update_plan(WS, "roadmap", edit)?;
    converge(&a, &b)?;
    for home in [&a, &b] {
        let plan = Store::open(home)?.get_plan(WS, "roadmap")?;
        assert_eq!(
            plan.content,
            "- [x] one\n- [ ] two\n- [ ] three\n- [x] four\n"
        );
        assert_eq!(plan.tags, ["q4"]);
        assert!(!has_merge_conflict(&plan));
    }
    assert_eq!(plan_text(&a, "roadmap")?, plan_text(&b, "roadmap")?);

    // The same line changed on both sides: both texts kept, the conflict reported.
    let mut edit = PlanUpdate::default();
    edit.content = Some("- [x] one\n- [ ] two, the A way\n- [ ] three\n- [x] four\n".into());
    store_at(&a, "2025-10-13T12:00:00Z")?.update_plan(WS, "roadmap", edit)?;
    let mut edit = PlanUpdate::default();
    edit.content = Some("- [x] one\n- [ ] two, the B way\n- [ ] three\n- [x] four\n".into());
    store_at(&b, "2025-10-13T12:30:00Z")?.update_plan(WS, "roadmap", edit)?;
    assert!(sync_ok(&a)?.plan_conflicts.is_empty());
    let report = sync_ok(&b)?;
    assert_eq!(
        report.plan_conflicts,
        [PathBuf::from("shared/plans/roadmap.md")]
    );
    converge(&a, &b)?;
    for home in [&a, &b] {
        let plan = Store::open(home)?.get_plan(WS, "roadmap")?;
        assert!(has_merge_conflict(&plan));
        assert!(plan.content.contains("the A way") && plan.content.contains("the B way"));
    }
    Ok(())
}

#[test]
fn the_newer_active_plan_wins_on_both_homes() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (a, b) = homes(dir.path())?;
    let choose = |home: &Path, now: &str, title: &str| -> TestResult {
        let mut plan = PlanInput::new(title, "- [ ] start\n");
        plan.workspace = Some(WS.into());
        plan.activate = true;
        store_at(home, now)?.save_plan(plan)?;
        Ok(())
    };
    let active = |home: &Path| -> TestResult<Option<String>> {
        Ok(Store::open(home)?.active_plan(WS)?.map(|p| p.id))
    };
    // Each round: both homes choose (saving a plan with `activate` updates it), A syncs
    // first, B merges A's choice into its own. The later choice must win on both.
    let rounds = [
        // Chosen on both sides with no common version.
        (
            ("2025-10-13T09:00:00Z", "Alpha"),
            ("2025-10-13T10:00:00Z", "Beta"),
            "beta",
        ),
        // B's own choice is newer: read from B's work tree.
        (
            ("2025-10-13T11:00:00Z", "Gamma"),
            ("2025-10-13T12:00:00Z", "Alpha"),
            "alpha",
        ),
        // A's choice is newer: read from the commit being merged in.
        (
            ("2025-10-13T14:00:00Z", "Delta"),
            ("2025-10-13T13:00:00Z", "Gamma"),
            "delta",
        ),
    ];
    for ((a_time, a_title), (b_time, b_title), winner) in rounds {
        choose(&a, a_time, a_title)?;
        choose(&b, b_time, b_title)?;
        converge(&a, &b)?;
        for home in [&a, &b] {
            assert_eq!(active(home)?.as_deref(), Some(winner), "{}", home.display());
        }
    }
    Ok(())
}

#[test]
fn status_shows_unsynced_files() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (a, b) = homes(dir.path())?;
    sync_ok(&a)?;
    let mut input = CheckpointInput::new("Unsynced work");
    input.workspace = Some(WS.into());
    let saved = store_at(&a, "2025-10-13T09:00:00Z")?.save_checkpoint(input)?;
    let st = status(&a)?;
    let day = PathBuf::from(format!(
        "{WS}/checkpoints/{}.md",
        saved.timestamp.date_naive()
    ));
    assert_eq!(st.unsynced, [day]);
    assert_eq!(st.branch, "main");
    assert!(st.remote_url.is_some());
    sync_ok(&a)?;
    let st = status(&a)?;
    assert!(st.unsynced.is_empty() && st.ahead == 0 && st.behind == 0);
    // B has not fetched yet; after a sync it holds A's checkpoint.
    sync_ok(&b)?;
    assert!(all_checkpoints(&b, WS).contains_key(&saved.id));
    Ok(())
}

/// SIGKILL of a sync (and of its git processes) at spread-out instants: the store stays
/// readable with every local entry, and a later sync completes and loses nothing.
// `setsid` (util-linux) runs the remote's side in a session of its own.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_sync_loses_nothing() -> TestResult {
    use std::os::unix::process::CommandExt;
    const ROUNDS: u64 = 20;
    let dir = tempfile::tempdir()?;
    let (a, b) = homes(dir.path())?;
    // The remote's receive-pack runs in a session of its own, so killing the sync's process
    // group kills the client side only, as when the machine running sync dies.
    git(
        &a,
        &[
            "config",
            "remote.origin.receivepack",
            "setsid git-receive-pack",
        ],
    );
    let mut expected = BTreeSet::new();
    let save = |home: &Path, text: String, expected: &mut BTreeSet<String>| -> TestResult {
        let mut input = CheckpointInput::new(text.clone());
        input.workspace = Some(WS.into());
        Store::open(home)?.save_checkpoint(input)?;
        expected.insert(text);
        Ok(())
    };
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for round in 0..ROUNDS {
        save(&b, format!("b {round}"), &mut expected)?;
        sync_ok(&b)?;
        save(&a, format!("a {round} one"), &mut expected)?;
        save(&a, format!("a {round} two"), &mut expected)?;
        let mut child = Command::new(tool())
            .arg("sync")
            .arg(&a)
            .process_group(0)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()?;
        // Where the kill lands: spread over a sync's run (not a synchronisation; every
        // instant must be safe).
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        std::thread::sleep(std::time::Duration::from_millis((seed >> 33) % 150));
        let pgid = format!("-{}", child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &pgid]).status()?;
        let _ = child.wait()?;
        // Readable, and every entry saved here is still here.
        let here: BTreeSet<String> = all_checkpoints(&a, WS)
            .into_values()
            .map(|c| c.description)
            .collect();
        for text in expected.iter().filter(|t| t.starts_with("a ")) {
            assert!(here.contains(text), "round {round}: {text} lost");
        }
    }
    converge(&a, &b)?;
    for home in [&a, &b] {
        let all: BTreeSet<String> = all_checkpoints(home, WS)
            .into_values()
            .map(|c| c.description)
            .collect();
        assert_eq!(all, expected, "{}", home.display());
    }
    Ok(())
}
