//! Who is superseded, and the links both ways: from the recall index when it is used (its
//! supersession facts, checked fresh), else from every day file; one rule either way
//! (goldfish-store's [`Supersession::from_facts`](goldfish_store::Supersession::from_facts)).

use goldfish_store::{Checkpoint, Link, Store, Supersession};

use crate::error::Error;
use crate::index::{self, RecallCache};
use crate::options::RecallOptions;
use crate::result::Links;

/// The supersession links of one checkpoint of `store`, for a view of that checkpoint
/// alone: `goldfish show`, the `recall` tool's `id`, the web view's checkpoint page. Read as
/// a recall reads them: from its workspace's index (checked fresh against the day files,
/// rebuilt when they changed) when `opts.use_index`, else from every day file of the
/// workspace; `opts`' other fields are not used. What a person should know (an index
/// rebuilt or not written) is added to `notes`.
///
/// Errors: the checkpoint's workspace name is invalid.
pub fn links_of(
    store: &Store,
    opts: &RecallOptions,
    checkpoint: &Checkpoint,
    notes: &mut Vec<String>,
) -> Result<Links, Error> {
    let workspaces = [goldfish_store::validate_workspace(&checkpoint.workspace)?];
    let known = supersession_of(store, opts.use_index, &workspaces, None, true, notes)?;
    Ok(Links::of(&known.links[0], checkpoint))
}

/// The links of a checkpoint just saved, for the save's reply: what it supersedes, each
/// title read from the day of its id (the save checked that each exists); nothing can
/// supersede it yet. Reads no day file when it supersedes nothing, and never the index
/// (a save writes none).
///
/// Errors: the checkpoint's workspace name is invalid.
pub fn links_of_saved(store: &Store, saved: &Checkpoint) -> Result<Links, Error> {
    let mut supersedes = Vec::with_capacity(saved.supersedes.len());
    for id in &saved.supersedes {
        let title = store
            .find_in_workspace(&saved.workspace, id)?
            .map(|c| c.title().to_string())
            .unwrap_or_default();
        supersedes.push(Link::new(id.clone(), title));
    }
    Ok(Links {
        supersedes,
        superseded_by: Vec::new(),
    })
}

/// What a recall knows of its workspaces' supersession, in the order of the workspaces.
pub(crate) struct Known {
    /// Each workspace's links.
    pub(crate) links: Vec<Supersession>,
    /// With the fresh indexes: each workspace's index and the entries it hides. `None`:
    /// recall reads the day files.
    pub(crate) indexed: Option<Vec<(index::WsIndex, Vec<u32>)>>,
}

/// The supersession of `workspaces`: from their indexes (checked fresh, rebuilt when the
/// day files changed) when `use_index` ([`RecallOptions::use_index`]), else — or when an
/// index cannot say — from every day file ([`Store::supersession`]). The same rule either
/// way ([`Supersession::from_facts`]). Without `build`, only indexes that are current
/// already are used, never built.
pub(crate) fn supersession_of(
    store: &Store,
    use_index: bool,
    workspaces: &[String],
    cache: Option<&RecallCache>,
    build: bool,
    notes: &mut Vec<String>,
) -> Result<Known, Error> {
    // Without `build`, the indexes are used only when they are current: building one holds
    // a workspace's whole index in memory, which a long-lived process must not pay for a
    // timeline (its memory would grow with the store); the day files are then read one at a
    // time instead, and the next search builds the index.
    let indexes = match use_index {
        false => None,
        true if !build => index::current_all(store, workspaces, cache),
        true => Some(index::fresh_all(store, workspaces, cache, notes)),
    };
    if let Some(indexes) = indexes {
        let known: Result<Vec<index::Indexed>, index::Fallback> =
            indexes.iter().map(index::supersession).collect();
        match known {
            Ok(known) => {
                let mut links = Vec::with_capacity(known.len());
                let mut indexed = Vec::with_capacity(known.len());
                for (ix, k) in indexes.into_iter().zip(known) {
                    links.push(k.links);
                    indexed.push((ix, k.hidden));
                }
                return Ok(Known {
                    links,
                    indexed: Some(indexed),
                });
            }
            Err(why) => notes.push(format!(
                "recall index not used ({}); answered from the day files",
                why.0
            )),
        }
    }
    let links = workspaces
        .iter()
        .map(|ws| store.supersession(ws))
        .collect::<Result<_, _>>()?;
    Ok(Known {
        links,
        indexed: None,
    })
}
