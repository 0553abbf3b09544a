//! Supersession: which checkpoints of a workspace replace which, read from the day files.
//!
//! A checkpoint lists the ids it replaces in its `- **Supersedes**:` bullet; a memory saved
//! with a `- **Topic**:` names what it is about, and a later save with the same topic
//! records the earlier one in its `Supersedes` bullet. The files are the only record: the
//! links of a workspace are the union of every entry's bullet, wherever in time the entry
//! lies, so a recall of last week knows that a checkpoint of last week was replaced today.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use chrono::{DateTime, NaiveDate, Utc};

use crate::checkpoint::Checkpoint;
use crate::days;
use crate::error::Error;
use crate::store::Store;
use crate::workspace::validate_workspace;

/// The longest topic, in characters: a topic is a short key, not a description.
pub const MAX_TOPIC_CHARS: usize = 100;

/// One end of a supersession link: a checkpoint's id and title.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Link {
    /// The checkpoint's id.
    pub id: String,
    /// Its title (the first line of its description); empty when no day file of the
    /// workspace holds that id any more.
    pub title: String,
}

/// The supersession links of one workspace, read from every one of its day files.
///
/// Built by [`Store::supersession`]; ask it whether a checkpoint was replaced
/// ([`is_superseded`](Self::is_superseded)), by which ([`superseded_by`](Self::superseded_by))
/// and what a checkpoint replaced, with titles ([`supersedes`](Self::supersedes)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Supersession {
    /// Superseded id → the checkpoints that supersede it, oldest first.
    by: HashMap<String, Vec<Link>>,
    /// The title of every checkpoint named by a link (either end).
    titles: HashMap<String, String>,
    /// Entries with a topic: (normalised topic, timestamp, id), in no particular order.
    topics: Vec<(String, DateTime<Utc>, String)>,
}

impl Supersession {
    /// The links of `checkpoints` (every checkpoint of one workspace, or at least every one
    /// with a `Supersedes` or `Topic` bullet and every one such a bullet names).
    pub fn from_checkpoints<'a>(checkpoints: impl IntoIterator<Item = &'a Checkpoint>) -> Self {
        let mut s = Supersession::default();
        let mut all_titles: HashMap<&str, &str> = HashMap::new();
        let mut seen = HashSet::new();
        for c in checkpoints {
            if !seen.insert(c.id.as_str()) {
                continue;
            }
            all_titles.insert(&c.id, c.title());
            s.add_links(c);
        }
        let wanted: Vec<String> = s.by.keys().cloned().collect();
        for id in wanted {
            if let Some(title) = all_titles.get(id.as_str()) {
                s.titles.insert(id, (*title).to_string());
            }
        }
        s
    }

    /// Records what `c` says: its `Supersedes` ids and its topic.
    fn add_links(&mut self, c: &Checkpoint) {
        for target in &c.supersedes {
            let list = self.by.entry(target.clone()).or_default();
            if !list.iter().any(|l| l.id == c.id) {
                list.push(Link {
                    id: c.id.clone(),
                    title: c.title().to_string(),
                });
            }
        }
        if !c.supersedes.is_empty() {
            self.titles.insert(c.id.clone(), c.title().to_string());
        }
        if let Some(topic) = c.topic.as_deref().map(topic_key).filter(|t| !t.is_empty()) {
            self.topics.push((topic, c.timestamp, c.id.clone()));
        }
    }

    /// True when no checkpoint of the workspace supersedes another.
    pub fn is_empty(&self) -> bool {
        self.by.is_empty()
    }

    /// True when some checkpoint supersedes the one with this id.
    pub fn is_superseded(&self, id: &str) -> bool {
        self.by.contains_key(id)
    }

    /// The ids of every superseded checkpoint.
    pub fn superseded_ids(&self) -> impl Iterator<Item = &str> {
        self.by.keys().map(String::as_str)
    }

    /// The checkpoints that supersede `id`, oldest first (empty when none does).
    pub fn superseded_by(&self, id: &str) -> &[Link] {
        self.by.get(id).map(Vec::as_slice).unwrap_or(&[])
    }

    /// What `checkpoint` supersedes, with titles, in its bullet's order.
    pub fn supersedes(&self, checkpoint: &Checkpoint) -> Vec<Link> {
        checkpoint
            .supersedes
            .iter()
            .map(|id| Link {
                id: id.clone(),
                title: self.titles.get(id).cloned().unwrap_or_default(),
            })
            .collect()
    }

    /// The newest checkpoint with this topic (compared ignoring case and surrounding
    /// spaces) that nothing supersedes, if any.
    pub fn current_for_topic(&self, topic: &str) -> Option<&str> {
        let key = topic_key(topic);
        self.topics
            .iter()
            .filter(|(t, _, id)| *t == key && !self.is_superseded(id))
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| a.2.cmp(&b.2)))
            .map(|(_, _, id)| id.as_str())
    }
}

/// How topics are compared: trimmed, lowercase.
fn topic_key(topic: &str) -> String {
    topic.trim().to_lowercase()
}

/// Checks and trims a topic: one line of at most [`MAX_TOPIC_CHARS`] characters; blank is
/// no topic.
pub(crate) fn clean_topic(topic: Option<&str>) -> Result<Option<String>, Error> {
    let Some(topic) = topic.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    if topic.contains(['\n', '\r']) {
        return Err(Error::invalid(format!(
            "topic {topic:?} contains a line break: a topic is a short key on one line"
        )));
    }
    if topic.chars().count() > MAX_TOPIC_CHARS {
        return Err(Error::invalid(format!(
            "topic {topic:?} is longer than {MAX_TOPIC_CHARS} characters: a topic is a short key \
             (`auth-token-rotation`); put the rest in the description"
        )));
    }
    Ok(Some(topic.to_string()))
}

/// The bytes that mark a day file with a link or a topic: only such files are parsed.
const MARKERS: [&[u8]; 2] = [b"**Supersedes**:", b"**Topic**:"];

impl Store {
    /// The supersession links of `workspace`, from all of its day files (in every place it
    /// is kept).
    ///
    /// Cheap on a store that uses it little: every day file is read, but only those holding
    /// a `Supersedes` or `Topic` bullet are parsed, and the titles of the superseded
    /// checkpoints are then looked for in the day of their id (an id made by goldfish begins
    /// with its UTC date), or in every file for an id of another shape. Unreadable files and
    /// entries are passed over, as [`checkpoints_between`](Self::checkpoints_between) passes
    /// them over.
    ///
    /// Errors: a bad workspace name ([`Error::is_invalid_input`]).
    pub fn supersession(&self, workspace: &str) -> Result<Supersession, Error> {
        let workspace = validate_workspace(workspace)?;
        let mut files: Vec<(NaiveDate, PathBuf)> = Vec::new();
        for dir in self.workspace_dirs(&workspace) {
            days::list_day_files(&days::checkpoints_dir(&dir), |f| {
                files.push((f.date, f.path()));
            });
        }
        let mut s = Supersession::default();
        let mut seen: HashSet<String> = HashSet::new();
        let mut read: Vec<(NaiveDate, Vec<u8>)> = Vec::new();
        for (date, path) in files {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            if !MARKERS
                .iter()
                .any(|m| memchr::memmem::find(&bytes, m).is_some())
            {
                read.push((date, bytes));
                continue;
            }
            for c in crate::parse_day_bytes(&bytes, &workspace, date).checkpoints {
                if seen.insert(c.id.clone()) {
                    s.add_links(&c);
                }
            }
            read.push((date, bytes));
        }
        // Titles of the superseded checkpoints: the file of their id's date first.
        let mut missing: HashSet<String> =
            s.by.keys()
                .filter(|id| !s.titles.contains_key(*id))
                .cloned()
                .collect();
        if !missing.is_empty() {
            let wanted_dates: HashSet<NaiveDate> = missing
                .iter()
                .filter_map(|id| crate::find::id_date(id))
                .collect();
            let any_other_shape = missing.iter().any(|id| crate::find::id_date(id).is_none());
            for (date, bytes) in &read {
                if missing.is_empty() {
                    break;
                }
                if !any_other_shape && !wanted_dates.contains(date) {
                    continue;
                }
                for c in crate::parse_day_bytes(bytes, &workspace, *date).checkpoints {
                    if missing.remove(&c.id) {
                        s.titles.insert(c.id.clone(), c.title().to_string());
                    }
                }
            }
        }
        Ok(s)
    }

    /// The checkpoint of `workspace` whose id is `id`, if any (see
    /// [`find_checkpoint`](Self::find_checkpoint), which looks in every workspace).
    pub fn find_in_workspace(
        &self,
        workspace: &str,
        id: &str,
    ) -> Result<Option<Checkpoint>, Error> {
        let workspace = validate_workspace(workspace)?;
        self.find_checkpoint_in(&workspace, id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(minute: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2025, 10, 13, 9, minute, 0)
            .single()
            .expect("a valid time")
    }

    fn cp(id: &str, minute: u32, title: &str) -> Checkpoint {
        Checkpoint::new(id, at(minute), "ws", title)
    }

    #[test]
    fn links_both_ways_and_topics_skip_the_superseded() {
        let mut a = cp("a", 1, "First take");
        a.topic = Some("Auth".into());
        let mut b = cp("b", 2, "Second take");
        b.topic = Some(" auth ".into());
        b.supersedes = vec!["a".into()];
        let mut c = cp("c", 3, "Replaces b by hand");
        c.supersedes = vec!["b".into(), "gone".into()];
        let s = Supersession::from_checkpoints([&a, &b, &c]);
        assert!(s.is_superseded("a") && s.is_superseded("b") && !s.is_superseded("c"));
        assert_eq!(s.superseded_by("a")[0].id, "b");
        assert_eq!(s.superseded_by("b")[0].title, "Replaces b by hand");
        let links = s.supersedes(&c);
        assert_eq!(links[0].title, "Second take");
        assert_eq!(
            (links[1].id.as_str(), links[1].title.as_str()),
            ("gone", "")
        );
        // Both auth memories are superseded: no current one.
        assert_eq!(s.current_for_topic("AUTH"), None);
        let s = Supersession::from_checkpoints([&a, &b]);
        assert_eq!(s.current_for_topic("auth"), Some("b"));
        assert_eq!(s.current_for_topic("other"), None);
    }

    #[test]
    fn topics_are_checked() {
        assert_eq!(clean_topic(Some("  ")).expect("blank"), None);
        assert_eq!(
            clean_topic(Some(" auth ")).expect("ok").as_deref(),
            Some("auth")
        );
        let err = clean_topic(Some("a\nb")).expect_err("line break");
        assert!(err.is_invalid_input() && err.to_string().contains("line break"));
        let long = "x".repeat(MAX_TOPIC_CHARS + 1);
        assert!(clean_topic(Some(&long)).is_err());
    }
}
