//! `goldfish tidy`: what a person may want to clean up in one workspace, and, when asked,
//! the two clean-ups that lose nothing.
//!
//! [`tidy`] only reads. It names:
//! - **near-duplicates**: clusters of checkpoints of one type that say nearly the same thing
//!   (their content words overlap by at least [`NEAR_DUPLICATE_WORDS`]), and within them the
//!   **exact copies** (the same description, type, typed fields, topic and tags, saved within
//!   [`EXACT_COPY_WINDOW`] of the first);
//! - **unlinked chains**: decisions (or incidents) on one subject, by the measures and
//!   thresholds a save's reply uses ([`crate::resemble`]), that no supersession link joins:
//!   the newest of each would supersede the others;
//! - **unreturned** memories: older than [`TidyOptions::older_than_days`] and not returned by
//!   a recall or a hook in [`TidyOptions::unreturned_days`] (from the store's record of
//!   returns, which says since when it knows).
//!
//! [`apply_tidy`] does only what loses nothing: it forgets the exact copies (the first of
//! each is kept; a copy must also have the same links, files, branch and commit, and one that
//! some entry names in its `Supersedes` bullet stays) and adds the chains' supersession links.
//! Two decisions that name different topics are never chained: each is current for its own. Near-duplicates that are not exact copies and unreturned
//! memories are for a person to judge: they are named, never changed.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, NaiveDate, Utc};
use goldfish_store::{Checkpoint, ForgetReport, MemoryType, Store, Supersession};
use serde::Serialize;

use crate::error::Error;
use crate::lexicon::lexicon;
use crate::resemble::{
    MEANING_THRESHOLD, ResembleBy, WORDS_THRESHOLD, content_words, jaccard as content_jaccard,
};
use crate::semantic::{PreparedQuery, SemanticChannel, embedding_text, read_vectors, text_key};
use crate::text::stem;

/// Two checkpoints are near-duplicates when the share of words they have in common (Jaccard
/// over stems, numbers included, stop words left out) is at least this: most of what either
/// says, the other says in the same words.
pub const NEAR_DUPLICATE_WORDS: f32 = 0.8;

/// An identical checkpoint saved within this long of an older one is a copy of it (a retried
/// save, a hand-off saved twice); saved later, the same words are a new occurrence (a weekly
/// release, a recurring incident): named among the near-duplicates, never forgotten.
pub const EXACT_COPY_WINDOW: Duration = Duration::hours(24);

/// What [`tidy`] looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TidyOptions {
    /// A memory is named as unreturned only when it is older than this many days.
    pub older_than_days: u32,
    /// … and no recall or hook returned it in this many days.
    pub unreturned_days: u32,
}

impl Default for TidyOptions {
    fn default() -> Self {
        TidyOptions {
            older_than_days: 90,
            unreturned_days: 60,
        }
    }
}

/// A checkpoint as tidy names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TidyMemory {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its type.
    #[serde(rename = "type")]
    pub memory_type: MemoryType,
    /// When it was saved.
    pub timestamp: DateTime<Utc>,
}

impl TidyMemory {
    fn of(c: &Checkpoint) -> TidyMemory {
        TidyMemory {
            id: c.id.clone(),
            title: c.title().to_string(),
            memory_type: c.memory_type,
            timestamp: c.timestamp,
        }
    }
}

/// Checkpoints that say nearly the same thing.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct DuplicateCluster {
    /// Its checkpoints, oldest first.
    pub members: Vec<TidyMemory>,
    /// The lowest word similarity of a member to the oldest (1 when all say the same).
    pub similarity: f32,
    /// The exact copies [`apply_tidy`] forgets: each says the same as an older member saved
    /// within [`EXACT_COPY_WINDOW`] before it, which is kept, and no entry names it in a
    /// `Supersedes` bullet.
    pub copies_to_forget: Vec<String>,
}

/// A decision (or incident) and the older ones on the same subject that nothing links to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct UnlinkedChain {
    /// The newest: [`apply_tidy`] records the others in its `Supersedes` bullet.
    pub newest: TidyMemory,
    /// The older ones, newest first, each with how similar it is to the newest.
    pub older: Vec<ChainLink>,
}

/// One older memory of an [`UnlinkedChain`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ChainLink {
    /// The memory.
    #[serde(flatten)]
    pub memory: TidyMemory,
    /// How similar to the chain's newest, by `by` (0–1).
    pub similarity: f32,
    /// The measure: shared words, or meaning (cached vectors, when a model is given).
    pub by: ResembleBy,
}

/// Memories nobody has been shown for a long time.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Unreturned {
    /// The day the record of returns began (`None`: no recall or hook has returned anything
    /// of this workspace since goldfish began keeping it).
    pub record_since: Option<NaiveDate>,
    /// Whether the record reaches back [`TidyOptions::unreturned_days`]: only then are
    /// memories named (before, an unreturned memory may have been returned before the record
    /// began).
    pub known: bool,
    /// The first day the record will reach back far enough, when it does not yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known_from: Option<NaiveDate>,
    /// The memories (not superseded) older than the limit that no recall or hook returned in
    /// the window, oldest first; empty unless `known`.
    pub memories: Vec<TidyMemory>,
}

/// What [`tidy`] found in one workspace.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TidyReport {
    /// The workspace.
    pub workspace: String,
    /// How many checkpoints it holds.
    pub checkpoints: usize,
    /// The options it ran with.
    pub older_than_days: u32,
    /// The options it ran with.
    pub unreturned_days: u32,
    /// Whether chains were also looked for by meaning (cached vectors and a model).
    pub by_meaning: bool,
    /// Near-duplicate clusters, the largest first.
    pub duplicates: Vec<DuplicateCluster>,
    /// Unlinked chains, the newest first.
    pub chains: Vec<UnlinkedChain>,
    /// Memories not returned in a long time.
    pub unreturned: Unreturned,
    /// What could not be read (day files, the record of returns): passed over, named here.
    pub problems: Vec<String>,
}

impl TidyReport {
    /// Whether [`apply_tidy`] would change anything.
    pub fn has_changes(&self) -> bool {
        self.duplicates
            .iter()
            .any(|d| !d.copies_to_forget.is_empty())
            || !self.chains.is_empty()
    }
}

/// What [`apply_tidy`] did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TidyApplied {
    /// The exact copies forgotten (with their tombstones).
    pub forgotten: ForgetReport,
    /// The links added.
    pub linked: Vec<Linked>,
    /// What could not be done, one sentence each (naming the ids and the reason).
    pub failed: Vec<String>,
}

/// Links [`apply_tidy`] added to one checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Linked {
    /// The checkpoint whose `Supersedes` bullet gained ids.
    pub id: String,
    /// The ids it now supersedes that it did not before.
    pub supersedes: Vec<String>,
}

/// The words of a text as near-duplicates compare them: every run of letters and digits,
/// lowercased, numbers included (`grep 0.3.1` and `grep 0.3.2` are two releases, not one
/// said twice), stop words left out, words stemmed; as sorted ids (interned in `words`).
fn exact_word_ids(text: &str, words: &mut HashMap<Vec<u8>, u32>) -> Vec<u32> {
    let lex = lexicon();
    let mut out = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        if run.is_empty() {
            continue;
        }
        let lower = run.to_lowercase();
        let t = lower.as_bytes();
        if lex.is_stop_word(t) {
            continue;
        }
        let mut s = [0u8; 64];
        let stemmed = if t.len() <= 64 {
            stem(t, &mut s).to_vec()
        } else {
            t.to_vec()
        };
        let next = words.len() as u32;
        out.push(*words.entry(stemmed).or_insert(next));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Jaccard of two sorted id lists.
fn jaccard(a: &[u32], b: &[u32]) -> f32 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let all = a.len() + b.len() - common;
    if all == 0 {
        0.0
    } else {
        common as f32 / all as f32
    }
}

/// A bound on the Jaccard of two sets of these sizes.
fn jaccard_bound(a: usize, b: usize) -> f32 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    if hi == 0 { 0.0 } else { lo as f32 / hi as f32 }
}

/// What a person may want to tidy in `workspace` (see the module documentation). Reads every
/// day file of the workspace, its supersession links and its record of returns; writes
/// nothing. With `semantic`, chains are also found by meaning, from the vectors the recall
/// index's cache holds (its model is loaded to check the vectors are its own; no text is
/// embedded).
///
/// Errors: a bad workspace name.
pub fn tidy(
    store: &Store,
    workspace: &str,
    options: &TidyOptions,
    semantic: Option<&SemanticChannel>,
) -> Result<TidyReport, Error> {
    let mut problems = Vec::new();
    let mut all: Vec<Checkpoint> = Vec::new();
    store.for_each_day_between(
        workspace,
        DateTime::<Utc>::MIN_UTC,
        DateTime::<Utc>::MAX_UTC,
        |day| {
            all.extend(day.checkpoints);
            problems.extend(day.skipped.iter().map(ToString::to_string));
        },
    )?;
    all.sort_by(|a, b| a.timestamp.cmp(&b.timestamp).then_with(|| a.id.cmp(&b.id)));
    let links = Supersession::from_checkpoints(&all);
    let named: HashSet<&str> = all
        .iter()
        .flat_map(|c| c.supersedes.iter().map(String::as_str))
        .collect();
    let texts: Vec<String> = all.iter().map(crate::resemble::words_text).collect();
    // The save reply's measure for chains; near-duplicates count numbers too.
    let words: Vec<HashSet<Vec<u8>>> = texts.iter().map(|t| content_words(t)).collect();
    let mut interned = HashMap::new();
    let exact_words: Vec<Vec<u32>> = texts
        .iter()
        .map(|t| exact_word_ids(t, &mut interned))
        .collect();

    let duplicates = near_duplicates(&all, &exact_words, &named);
    let exact: HashSet<&str> = duplicates
        .iter()
        .flat_map(|d| d.copies_to_forget.iter().map(String::as_str))
        .collect();

    // Meaning: the cached vector of each checkpoint, when a model is given and has them.
    let vectors = semantic.map(|s| read_vectors(store.root(), workspace, s.embedder.as_ref()));
    let by_meaning = vectors.as_ref().is_some_and(|v| v.len() > 0);
    // Each stored vector once; the newest of a chain is compared as a prepared query.
    let stored: Vec<Option<(f32, Vec<u8>)>> = all
        .iter()
        .map(|c| {
            let v = vectors.as_ref()?;
            let (scale, values) = v.get(text_key(&embedding_text(c)))?;
            Some((scale, values.to_vec()))
        })
        .collect();
    let prepared: Vec<Option<PreparedQuery>> = stored
        .iter()
        .map(|v| {
            v.as_ref().map(|(scale, values)| {
                PreparedQuery::new(values.iter().map(|&x| f32::from(x as i8) * scale).collect())
            })
        })
        .collect();
    let chains = unlinked_chains(&all, &words, &prepared, &stored, &links, &exact);

    let now = store.now();
    let unreturned = match store.returned(workspace) {
        Ok(record) => unreturned(&all, &links, &record, options, now),
        Err(e) => {
            problems.push(format!("the record of returns cannot be read: {e}"));
            unreturned(
                &all,
                &links,
                &goldfish_store::Returns::default(),
                options,
                now,
            )
        }
    };
    Ok(TidyReport {
        workspace: goldfish_store::validate_workspace(workspace)?,
        checkpoints: all.len(),
        older_than_days: options.older_than_days,
        unreturned_days: options.unreturned_days,
        by_meaning,
        duplicates,
        chains,
        unreturned,
        problems,
    })
}

/// The near-duplicate clusters of `all` (oldest first), the largest first. Each cluster
/// grows around its oldest checkpoint: a later one joins the first cluster whose oldest it
/// nearly duplicates (same type, and [`NEAR_DUPLICATE_WORDS`]), so that a run of similar
/// entries does not chain into one cluster of things that only resemble their neighbours.
fn near_duplicates(
    all: &[Checkpoint],
    words: &[Vec<u32>],
    named: &HashSet<&str>,
) -> Vec<DuplicateCluster> {
    // (leader, members, lowest similarity)
    let mut clusters: Vec<(usize, Vec<usize>, f32)> = Vec::new();
    for i in 0..all.len() {
        let joined = clusters.iter_mut().find_map(|(leader, members, lowest)| {
            let l = *leader;
            if all[l].memory_type != all[i].memory_type {
                return None;
            }
            let s = if all[l].says_the_same_as(&all[i]) {
                1.0
            } else if jaccard_bound(words[l].len(), words[i].len()) < NEAR_DUPLICATE_WORDS {
                return None;
            } else {
                jaccard(&words[l], &words[i])
            };
            (s >= NEAR_DUPLICATE_WORDS).then(|| {
                members.push(i);
                *lowest = lowest.min(s);
            })
        });
        if joined.is_none() {
            clusters.push((i, vec![i], 1.0));
        }
    }
    let mut out: Vec<DuplicateCluster> = clusters
        .into_iter()
        .filter(|(_, members, _)| members.len() > 1)
        .map(|(_, members, lowest)| {
            // Oldest first (`all` is in time order): a member that says the same as an older
            // one saved within [`EXACT_COPY_WINDOW`] is a copy; the oldest of each is kept.
            // Only a kept member is compared with: copies of copies do not reach further than
            // the window from the one that stays.
            let mut copies = Vec::new();
            let mut kept: Vec<usize> = Vec::new();
            for &m in &members {
                let copy_of_kept = kept.iter().any(|&o| is_exact_copy(&all[o], &all[m]));
                if copy_of_kept && !named.contains(all[m].id.as_str()) {
                    copies.push(all[m].id.clone());
                } else {
                    kept.push(m);
                }
            }
            DuplicateCluster {
                members: members.iter().map(|&m| TidyMemory::of(&all[m])).collect(),
                similarity: lowest,
                copies_to_forget: copies,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then_with(|| a.members[0].timestamp.cmp(&b.members[0].timestamp))
    });
    out
}

/// Whether `later` is an exact copy of `kept`: saved within [`EXACT_COPY_WINDOW`] after it,
/// saying the same ([`Checkpoint::says_the_same_as`]), with the same links, files, branch and
/// commit (so that forgetting it loses nothing that a freshness check or a link reads).
fn is_exact_copy(kept: &Checkpoint, later: &Checkpoint) -> bool {
    later.timestamp - kept.timestamp <= EXACT_COPY_WINDOW
        && kept.says_the_same_as(later)
        && kept.supersedes == later.supersedes
        && kept.files == later.files
        && kept.files_omitted == later.files_omitted
        && kept.branch == later.branch
        && kept.commit == later.commit
}

/// Decisions and incidents on one subject that no link joins: newest first, each memory not
/// superseded takes the older ones of its type that resemble it and that nothing supersedes
/// yet (nor an earlier chain took).
fn unlinked_chains(
    all: &[Checkpoint],
    words: &[HashSet<Vec<u8>>],
    prepared: &[Option<PreparedQuery>],
    stored: &[Option<(f32, Vec<u8>)>],
    links: &Supersession,
    exact: &HashSet<&str>,
) -> Vec<UnlinkedChain> {
    let candidates: Vec<usize> = (0..all.len())
        .rev()
        .filter(|&i| {
            matches!(
                all[i].memory_type,
                MemoryType::Decision | MemoryType::Incident
            ) && !links.is_superseded(&all[i].id)
                && !exact.contains(all[i].id.as_str())
        })
        .collect();
    let mut taken: HashSet<usize> = HashSet::new();
    let mut out = Vec::new();
    for (k, &head) in candidates.iter().enumerate() {
        if taken.contains(&head) {
            continue;
        }
        let mut older = Vec::new();
        for &o in &candidates[k + 1..] {
            if taken.contains(&o)
                || all[o].memory_type != all[head].memory_type
                || all[o].timestamp >= all[head].timestamp
                || different_topics(&all[o], &all[head])
            {
                continue;
            }
            let by_words = content_jaccard(&words[head], &words[o]);
            let mut best = (by_words / WORDS_THRESHOLD, by_words, ResembleBy::Words);
            if let (Some(q), Some((scale, values))) = (&prepared[head], &stored[o]) {
                let m = q.cosine(*scale, values);
                if m / MEANING_THRESHOLD > best.0 {
                    best = (m / MEANING_THRESHOLD, m, ResembleBy::Meaning);
                }
            }
            if best.0 >= 1.0 {
                older.push(ChainLink {
                    memory: TidyMemory::of(&all[o]),
                    similarity: best.1,
                    by: best.2,
                });
                taken.insert(o);
            }
        }
        if !older.is_empty() {
            taken.insert(head);
            out.push(UnlinkedChain {
                newest: TidyMemory::of(&all[head]),
                older,
            });
        }
    }
    out
}

/// Whether both name a topic, and not the same one (compared as supersession compares them:
/// trimmed, ignoring case): each is the current memory of its own subject.
fn different_topics(a: &Checkpoint, b: &Checkpoint) -> bool {
    match (&a.topic, &b.topic) {
        (Some(x), Some(y)) => x.trim().to_lowercase() != y.trim().to_lowercase(),
        _ => false,
    }
}

/// The memories older than the limit, not superseded, that the record does not show
/// returned within the window.
fn unreturned(
    all: &[Checkpoint],
    links: &Supersession,
    record: &goldfish_store::Returns,
    options: &TidyOptions,
    now: DateTime<Utc>,
) -> Unreturned {
    // Days far beyond any calendar reach back to its beginning (no overflow).
    let unreturned = Duration::days(i64::from(options.unreturned_days));
    let today = now.date_naive();
    let window_start = today
        .checked_sub_signed(unreturned)
        .unwrap_or(NaiveDate::MIN);
    let known = record.since.is_some_and(|s| s <= window_start);
    let known_from = match record.since {
        Some(s) if !known => Some(s.checked_add_signed(unreturned).unwrap_or(NaiveDate::MAX)),
        _ => None,
    };
    let cutoff = now
        .checked_sub_signed(Duration::days(i64::from(options.older_than_days)))
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    let memories = if known {
        all.iter()
            .filter(|c| c.timestamp < cutoff && !links.is_superseded(&c.id))
            .filter(|c| record.last.get(&c.id).is_none_or(|d| *d < window_start))
            .map(TidyMemory::of)
            .collect()
    } else {
        Vec::new()
    };
    Unreturned {
        record_since: record.since,
        known,
        known_from,
        memories,
    }
}

/// Does what loses nothing of `report` (see the module documentation): forgets the exact
/// copies (`by` names who, in their tombstones; the forget refreshes the workspace's index and
/// vectors) and adds the chains' supersession links (the index sees the changed day files at
/// its next use). Returns what it did. What cannot be done (a copy or an entry that changed
/// since the report, an entry not written as goldfish writes entries) is named in
/// [`TidyApplied::failed`], and the rest is still done.
pub fn apply_tidy(store: &Store, report: &TidyReport, by: &str) -> TidyApplied {
    let mut applied = TidyApplied::default();
    let copies: Vec<String> = report
        .duplicates
        .iter()
        .flat_map(|d| d.copies_to_forget.iter().cloned())
        .collect();
    if !copies.is_empty() {
        match crate::forget(store, &copies, Some(&report.workspace), by, false) {
            Ok(done) => applied.forgotten = done,
            Err(e) => applied.failed.push(format!(
                "forgetting the exact copies {}: {e}",
                copies.join(", ")
            )),
        }
    }
    for chain in &report.chains {
        let older: Vec<String> = chain.older.iter().map(|l| l.memory.id.clone()).collect();
        match store.add_supersedes(&report.workspace, &chain.newest.id, &older) {
            Ok(added) if added.is_empty() => {}
            Ok(added) => applied.linked.push(Linked {
                id: chain.newest.id.clone(),
                supersedes: added,
            }),
            Err(e) => applied.failed.push(format!(
                "linking {} to {}: {e}",
                chain.newest.id,
                older.join(", ")
            )),
        }
    }
    applied
}

/// Records in the store's record of returns ([`Store::note_returned`]) the checkpoints a
/// recall returned, so that [`tidy`] knows which memories are still in use. The CLI's
/// `recall` and the MCP server's call this after each recall; the hooks record what they
/// inject themselves.
///
/// Errors: the record cannot be written.
pub fn note_returned(store: &Store, result: &crate::RecallResult) -> Result<(), Error> {
    let mut by_workspace: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    for hit in &result.hits {
        by_workspace
            .entry(hit.checkpoint.workspace.as_str())
            .or_default()
            .push(hit.checkpoint.id.clone());
    }
    for (ws, ids) in by_workspace {
        store.note_returned(ws, &ids)?;
    }
    Ok(())
}
