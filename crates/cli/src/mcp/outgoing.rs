//! What the MCP server tells the client unasked: log messages (`notifications/message`) and
//! changes of subscribed resources (`notifications/resources/updated`).
//!
//! The lines the server writes to stderr come from places that hold no handle on the client
//! (the stdin reader, the file-system watch's thread, a recall's notes), so they all go
//! through this module's one hub: [`log`] writes the line to stderr as before and, when the
//! client asked for messages of that level (`logging/setLevel`), queues it for the client.
//! A task started by the server ([`run`]) sends what is queued, in order. The same queue
//! carries the updates of the resources the client subscribed to ([`resources_changed`]), so
//! a message and an update are never reordered against each other.
//!
//! No log message is sent before the client sets a level: clients show a server's messages
//! to their user, the protocol lets a client ask for them, and a client that does not ask
//! has said nothing about wanting them. The choice is made when a line is logged: a line
//! logged before `logging/setLevel` is never sent, even if it is still queued then.
//!
//! One server runs per process (`goldfish mcp`), so the hub is a process-wide static.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard, PoisonError};

#[allow(deprecated)] // see the `From<Level>` conversion
use rmcp::model::LoggingMessageNotificationParam;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::{Peer, RoleServer};
use tokio::sync::mpsc;

/// The name the server's log messages carry (`logger`).
pub(crate) const LOGGER: &str = "goldfish";

/// A log message's severity: the syslog severities of RFC 5424, least severe first, the
/// eight the MCP logging utility names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    /// Detailed debugging information.
    Debug,
    /// What the server is doing.
    Info,
    /// Normal but significant.
    Notice,
    /// Something went wrong and was worked around.
    Warning,
    /// An operation failed.
    Error,
    /// A part of the server failed.
    Critical,
    /// Act now.
    Alert,
    /// The server cannot work.
    Emergency,
}

// rmcp marks its logging types deprecated (a draft of the next protocol revision deprecates
// the logging utility); the revisions clients speak today have it, so they are used here, in
// these two conversions only.
#[allow(deprecated)]
impl From<rmcp::model::LoggingLevel> for Level {
    fn from(level: rmcp::model::LoggingLevel) -> Self {
        use rmcp::model::LoggingLevel as L;
        match level {
            L::Debug => Level::Debug,
            L::Info => Level::Info,
            L::Notice => Level::Notice,
            L::Warning => Level::Warning,
            L::Error => Level::Error,
            L::Critical => Level::Critical,
            L::Alert => Level::Alert,
            L::Emergency => Level::Emergency,
        }
    }
}

#[allow(deprecated)]
impl From<Level> for rmcp::model::LoggingLevel {
    fn from(level: Level) -> Self {
        use rmcp::model::LoggingLevel as L;
        match level {
            Level::Debug => L::Debug,
            Level::Info => L::Info,
            Level::Notice => L::Notice,
            Level::Warning => L::Warning,
            Level::Error => L::Error,
            Level::Critical => L::Critical,
            Level::Alert => L::Alert,
            Level::Emergency => L::Emergency,
        }
    }
}

/// Whether a message at `level` goes to a client that set `threshold` (`None`: it set none).
pub(crate) fn passes(threshold: Option<Level>, level: Level) -> bool {
    threshold.is_some_and(|t| level >= t)
}

/// One thing to tell the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outgoing {
    /// `notifications/message`.
    Log(Level, String),
    /// `notifications/resources/updated` for this URI.
    Updated(String),
}

/// The notification state: what the client asked for, and the queue to [`run`].
#[derive(Debug)]
struct Hub {
    /// The level the client set; `None` until it sets one.
    threshold: Option<Level>,
    /// The URIs the client subscribed to.
    subscribed: BTreeSet<String>,
    /// The queue [`run`] sends from; `None` before [`queue`] and after the server stopped.
    out: Option<mpsc::UnboundedSender<Outgoing>>,
}

impl Hub {
    const fn new() -> Self {
        Hub {
            threshold: None,
            subscribed: BTreeSet::new(),
            out: None,
        }
    }

    /// A fresh queue, with no level and no subscriptions.
    fn reset(&mut self) -> mpsc::UnboundedReceiver<Outgoing> {
        let (tx, rx) = mpsc::unbounded_channel();
        *self = Hub {
            out: Some(tx),
            ..Hub::new()
        };
        rx
    }

    /// Queues `text` when the client asked for messages at `level`.
    fn message(&self, level: Level, text: String) {
        if passes(self.threshold, level)
            && let Some(out) = &self.out
        {
            // The receiver is gone only when the server has stopped.
            let _ = out.send(Outgoing::Log(level, text));
        }
    }

    /// Queues an update for each of `uris` subscribed to, in the order given.
    fn changed<'a>(&self, uris: impl IntoIterator<Item = &'a String>) {
        let Some(out) = &self.out else { return };
        for uri in uris {
            if self.subscribed.contains(uri) {
                let _ = out.send(Outgoing::Updated(uri.clone()));
            }
        }
    }
}

/// The process's hub (one server per process).
static HUB: Mutex<Hub> = Mutex::new(Hub::new());

/// The hub; a panic while it was held leaves plain data behind, still usable.
fn hub() -> MutexGuard<'static, Hub> {
    HUB.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Starts a fresh queue (levels and subscriptions forgotten) and returns its receiving end,
/// for [`run`].
pub(crate) fn queue() -> mpsc::UnboundedReceiver<Outgoing> {
    hub().reset()
}

/// Sends what is queued to the client until the queue or the connection closes.
pub(crate) async fn run(mut rx: mpsc::UnboundedReceiver<Outgoing>, peer: Peer<RoleServer>) {
    while let Some(item) = rx.recv().await {
        // A notification that cannot be sent means the client has gone: nothing more to say
        // (and nobody to say it to but stderr, which the server's end reports anyway).
        #[allow(deprecated)] // see the `From<Level>` conversion
        let sent = match item {
            Outgoing::Log(level, text) => {
                peer.notify_logging_message(
                    LoggingMessageNotificationParam::new(level.into(), text.into())
                        .with_logger(LOGGER),
                )
                .await
            }
            Outgoing::Updated(uri) => {
                peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                    .await
            }
        };
        if sent.is_err() {
            break;
        }
    }
    hub().out = None;
}

/// Writes `goldfish mcp: {text}` to stderr, and queues `text` for the client when it asked
/// for messages at `level`.
pub(crate) fn log(level: Level, text: impl std::fmt::Display) {
    let text = text.to_string();
    eprintln!("goldfish mcp: {text}");
    to_client(level, text);
}

/// Queues `text` for the client when it asked for messages at `level` (nothing on stderr).
pub(crate) fn to_client(level: Level, text: String) {
    hub().message(level, text);
}

/// `logging/setLevel`: messages at `level` and above go to the client from now on.
pub(crate) fn set_level(level: Level) {
    hub().threshold = Some(level);
}

/// `resources/subscribe` of a URI already checked.
pub(crate) fn subscribe(uri: String) {
    hub().subscribed.insert(uri);
}

/// `resources/unsubscribe`; unsubscribing a URI not subscribed to does nothing.
pub(crate) fn unsubscribe(uri: &str) {
    hub().subscribed.remove(uri);
}

/// The resources at `uris` changed: queues an update for each one subscribed to, in the
/// order given.
pub(crate) fn resources_changed<'a>(uris: impl IntoIterator<Item = &'a String>) {
    hub().changed(uris);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_passes_at_or_above_the_level_set_and_never_before_one_is_set() {
        let all = [
            Level::Debug,
            Level::Info,
            Level::Notice,
            Level::Warning,
            Level::Error,
            Level::Critical,
            Level::Alert,
            Level::Emergency,
        ];
        for level in all {
            assert!(!passes(None, level), "{level:?} with no level set");
        }
        for (i, threshold) in all.iter().enumerate() {
            for (j, level) in all.iter().enumerate() {
                assert_eq!(
                    passes(Some(*threshold), *level),
                    j >= i,
                    "{level:?} at {threshold:?}"
                );
            }
        }
        for level in all {
            #[allow(deprecated)]
            let round_trip = Level::from(rmcp::model::LoggingLevel::from(level));
            assert_eq!(round_trip, level);
        }
    }

    #[test]
    fn only_subscribed_uris_and_passing_messages_are_queued_in_order() {
        // A hub of the test's own: the process's one is shared with every other test.
        let mut hub = Hub::new();
        let mut rx = hub.reset();
        hub.message(Level::Error, "before any level".into());
        hub.threshold = Some(Level::Warning);
        hub.message(Level::Info, "below the level".into());
        hub.message(Level::Warning, "at the level".into());
        hub.subscribed.insert("goldfish://a/plan".into());
        let changed = [
            "goldfish://b/plan".to_string(),
            "goldfish://a/checkpoints".into(),
            "goldfish://a/plan".into(),
        ];
        hub.changed(&changed);
        hub.message(Level::Emergency, "after".into());
        let mut got = Vec::new();
        while let Ok(item) = rx.try_recv() {
            got.push(item);
        }
        assert_eq!(
            got,
            [
                Outgoing::Log(Level::Warning, "at the level".into()),
                Outgoing::Updated("goldfish://a/plan".into()),
                Outgoing::Log(Level::Emergency, "after".into()),
            ]
        );
        // A new queue starts with no level and no subscriptions.
        let mut rx = hub.reset();
        hub.message(Level::Emergency, "fresh".into());
        hub.changed(&changed);
        assert!(rx.try_recv().is_err());
    }
}
