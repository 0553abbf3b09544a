//! The MCP server's early refresh of its recall indexes. File-system events on the store
//! (inotify, FSEvents or ReadDirectoryChangesW, through `notify`) say which workspace's day
//! files changed, and a background thread brings that workspace's index up to date
//! ([`goldfish_recall::RecallCache::refresh`]) before the next recall asks. Every recall still
//! checks the day files itself: an event that comes late, or never, costs time, never a
//! stale answer.

use std::collections::BTreeSet;
use std::sync::Arc;

use goldfish_recall::RecallCache;
use goldfish_store::{Store, day_file_workspace};
use notify::Watcher as _;

/// Keeps the watch alive; dropping it stops the events (the refresh thread then ends).
pub(crate) struct Watch {
    _watcher: notify::RecommendedWatcher,
}

/// Watches `store`'s root for changes to day files and refreshes `cache` as they come. A
/// store that does not exist yet is not watched (nothing is created); a watch that cannot be
/// set up is said on stderr, and recalls work as without it.
pub(crate) fn start(store: Store, cache: Arc<RecallCache>) -> Option<Watch> {
    let root = store.root().to_path_buf();
    if !root.is_dir() {
        return None;
    }
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let events_root = root.clone();
    let watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        // Only what changes files: reads (opening, listing, closing unwritten) are events
        // too, and a refresh reads the day files.
        if let Ok(event) = res
            && !matches!(event.kind, notify::EventKind::Access(_))
        {
            for path in &event.paths {
                if let Some(ws) = day_file_workspace(&events_root, path) {
                    // The receiver is gone only when the server is stopping.
                    let _ = tx.send(ws);
                }
            }
        }
    })
    .and_then(|mut w| w.watch(&root, notify::RecursiveMode::Recursive).map(|()| w));
    let watcher = match watcher {
        Ok(w) => w,
        Err(e) => {
            eprintln!(
                "goldfish mcp: no file-system events for {} ({e}); each recall checks the day files itself",
                root.display()
            );
            return None;
        }
    };
    std::thread::spawn(move || {
        while let Ok(first) = rx.recv() {
            // Every event that came meanwhile, each workspace once.
            let mut pending = BTreeSet::from([first]);
            pending.extend(rx.try_iter());
            for ws in pending {
                for note in cache.refresh(&store, &ws) {
                    eprintln!("goldfish mcp: {note}");
                }
            }
        }
    });
    Some(Watch { _watcher: watcher })
}
