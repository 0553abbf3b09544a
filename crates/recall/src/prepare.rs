//! What every recall settles before reading: the options checked, the store's state, the
//! Goldfish 5–8 projects read in place, the window and the workspaces.

use std::path::Path;

use chrono::{DateTime, Utc};
use goldfish_store::{Store, resolve_workspace};

use crate::error::Error;
use crate::inplace::InPlace;
use crate::options::{RecallOptions, Scope};
use crate::result::StoreState;
use crate::window::TimeWindow;

/// What every recall settles before reading: the store's state, the Goldfish 5–8 projects
/// read in place, the window and the workspaces.
pub(crate) struct Prepared {
    pub(crate) now: DateTime<Utc>,
    pub(crate) state: StoreState,
    pub(crate) in_place: InPlace,
    pub(crate) window: TimeWindow,
    pub(crate) workspaces: Vec<String>,
    pub(crate) all: bool,
}

pub(crate) fn prepare(store: &Store, opts: &RecallOptions) -> Result<Prepared, Error> {
    check_window_options(opts)?;
    // Listing the root first makes an unreadable store an error, not an empty answer.
    let known = store.list_workspaces()?;
    let state = if known.is_empty() {
        if store.root().exists() {
            StoreState::Empty
        } else {
            StoreState::Missing
        }
    } else {
        StoreState::Populated
    };
    let in_place = if opts.goldfish_memories {
        InPlace::read(store, opts.cwd.as_deref())
    } else {
        InPlace::default()
    };
    let state = if state != StoreState::Populated && in_place.workspaces().next().is_some() {
        StoreState::Populated
    } else {
        state
    };
    let now = opts.now.unwrap_or_else(|| store.now());
    let window = TimeWindow::resolve(
        now,
        opts.days.unwrap_or(DEFAULT_DAYS),
        opts.since.as_deref(),
        opts.from.as_deref(),
        opts.to.as_deref(),
    )?;
    let workspaces = match &opts.workspace {
        Scope::All => {
            let mut all = known;
            all.extend(in_place.workspaces().cloned());
            all.sort();
            all.dedup();
            all
        }
        Scope::Current => vec![resolve_scope(None, opts.cwd.as_deref())?],
        Scope::Named(name) => vec![resolve_scope(Some(name), opts.cwd.as_deref())?],
    };
    Ok(Prepared {
        now,
        state,
        in_place,
        window,
        workspaces,
        all: opts.workspace == Scope::All,
    })
}

/// The window length when no start is given, in days.
const DEFAULT_DAYS: u32 = 2;

/// `days`, `since` and `from` each set the start of the window: two of them together are a
/// contradiction, not something to settle silently.
fn check_window_options(opts: &RecallOptions) -> Result<(), Error> {
    let given = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.trim().is_empty());
    let set: Vec<&str> = [
        ("days", opts.days.is_some()),
        ("since", given(&opts.since)),
        ("from", given(&opts.from)),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    if let [first, second, ..] = set[..] {
        return Err(Error::argument(
            second,
            format!(
                "`{first}` and `{second}` both set the start of the window; give only one of them"
            ),
        ));
    }
    Ok(())
}

/// Resolves a workspace: a name (validated), or the workspace of `cwd` when `None`; with
/// neither, an error (the process's directory is the binary's to pass, never read here).
pub(crate) fn resolve_scope(explicit: Option<&str>, cwd: Option<&Path>) -> Result<String, Error> {
    match (explicit, cwd) {
        (None, None) => Err(Error::argument(
            "cwd",
            "the current workspace needs a directory to detect it from: set `cwd` or name the \
             workspace",
        )),
        (explicit, cwd) => resolve_workspace(explicit.map(str::trim), cwd.unwrap_or(Path::new("")))
            .map_err(Error::from),
    }
}
