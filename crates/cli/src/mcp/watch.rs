//! The MCP server's early refresh of its recall indexes. File-system events on the store
//! (inotify, FSEvents or ReadDirectoryChangesW, through `notify`) say which workspace's day
//! files changed, and a background thread brings that workspace's index up to date
//! ([`goldfish_recall::RecallCache::refresh`]) before the next recall asks. Every recall still
//! checks the day files itself: an event that comes late, or never, costs time, never a
//! stale answer.
//!
//! The same events tell the client which subscribed resources changed
//! ([`crate::mcp::resources::changed_by`]): after a batch of events has been handled, one
//! `notifications/resources/updated` goes out per subscribed resource the batch touched
//! (in URI order), so a client reading it then finds the recall index already refreshed.
//! Only the store's own directory is watched: a workspace kept in a repository elsewhere
//! changes without an event.

use std::collections::BTreeSet;
use std::sync::Arc;

use goldfish_recall::RecallCache;
use goldfish_store::{Store, day_file_workspace};
use notify::Watcher as _;

use crate::mcp::outgoing::{self, Level};

/// What one changed path calls for.
struct Changed {
    /// The workspace whose recall index to refresh (a day file changed).
    refresh: Option<String>,
    /// The resources it may have changed.
    resources: Vec<String>,
}

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
    let (tx, rx) = std::sync::mpsc::channel::<Changed>();
    let events_root = root.clone();
    let watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        // Only what changes files: reads (opening, listing, closing unwritten) are events
        // too, and a refresh reads the day files.
        if let Ok(event) = res
            && !matches!(event.kind, notify::EventKind::Access(_))
        {
            for path in &event.paths {
                let changed = Changed {
                    refresh: day_file_workspace(&events_root, path),
                    resources: crate::mcp::resources::changed_by(&events_root, path),
                };
                if changed.refresh.is_some() || !changed.resources.is_empty() {
                    // The receiver is gone only when the server is stopping.
                    let _ = tx.send(changed);
                }
            }
        }
    })
    .and_then(|mut w| w.watch(&root, notify::RecursiveMode::Recursive).map(|()| w));
    let watcher = match watcher {
        Ok(w) => w,
        Err(e) => {
            outgoing::log(
                Level::Warning,
                format_args!(
                    "no file-system events for {} ({e}); each recall checks the day files \
                     itself, and subscribed resources are not told of changes",
                    root.display()
                ),
            );
            return None;
        }
    };
    std::thread::spawn(move || {
        while let Ok(first) = rx.recv() {
            // Every event that came meanwhile, each workspace and resource once.
            let mut refresh = BTreeSet::new();
            let mut resources = BTreeSet::new();
            for changed in std::iter::once(first).chain(rx.try_iter()) {
                refresh.extend(changed.refresh);
                resources.extend(changed.resources);
            }
            for ws in refresh {
                for note in cache.refresh(&store, &ws) {
                    outgoing::log(Level::Warning, note);
                }
            }
            outgoing::resources_changed(&resources);
        }
    });
    Some(Watch { _watcher: watcher })
}
