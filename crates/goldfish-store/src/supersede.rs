//! Supersession: which checkpoints of a workspace replace which, read from the day files.
//!
//! A checkpoint lists the ids it replaces in its `- **Supersedes**:` bullet; a memory saved
//! with a `- **Topic**:` names what it is about, and a later save with the same topic
//! records the earlier one in its `Supersedes` bullet. The files are the only record: the
//! links of a workspace are the union of every entry's bullet, wherever in time the entry
//! lies, so a recall of last week knows that a checkpoint of last week was replaced today.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};

use crate::checkpoint::Checkpoint;
use crate::error::Error;

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

impl Link {
    /// A link to the checkpoint `id` titled `title`.
    pub fn new(id: impl Into<String>, title: impl Into<String>) -> Link {
        Link {
            id: id.into(),
            title: title.into(),
        }
    }
}

/// What one entry of a day file says about supersession: its id, title and time, its
/// topic and the ids it supersedes. [`Supersession::from_facts`] turns the facts of a
/// workspace into its links; the recall index keeps the facts of the entries that matter
/// ([`SupersessionFacts::says_something`], and every entry a link names) so that it can
/// run the same rule without reading the day files.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SupersessionFacts {
    /// The entry's id.
    pub id: String,
    /// Its title (the first line of its description).
    pub title: String,
    /// When it was saved.
    pub timestamp: DateTime<Utc>,
    /// Its `Topic` bullet, if any.
    pub topic: Option<String>,
    /// The ids of its `Supersedes` bullet, in the bullet's order.
    pub supersedes: Vec<String>,
}

impl SupersessionFacts {
    /// The facts of `checkpoint`.
    pub fn of(checkpoint: &Checkpoint) -> SupersessionFacts {
        SupersessionFacts {
            id: checkpoint.id.clone(),
            title: checkpoint.title().to_string(),
            timestamp: checkpoint.timestamp,
            topic: checkpoint.topic.clone(),
            supersedes: checkpoint.supersedes.clone(),
        }
    }

    /// The facts put together from their parts (for a reader of the recall index).
    pub fn new(
        id: String,
        title: String,
        timestamp: DateTime<Utc>,
        topic: Option<String>,
        supersedes: Vec<String>,
    ) -> SupersessionFacts {
        SupersessionFacts {
            id,
            title,
            timestamp,
            topic,
            supersedes,
        }
    }

    /// True when the entry has a `Supersedes` or `Topic` bullet: its facts make links.
    pub fn says_something(&self) -> bool {
        !self.supersedes.is_empty() || self.topic.is_some()
    }
}

/// The supersession links of one workspace.
///
/// The one rule of who replaces whom, for the day-file readers ([`Store::supersession`](crate::Store::supersession))
/// and the recall index alike: built by [`from_facts`](Self::from_facts) from the entries
/// of a workspace in reading order (directory, date, place in the file). Every entry's
/// `Supersedes` bullet counts, wherever in time it lies; a checkpoint is superseded when
/// any entry names its id; a link's title is that of the first entry in reading order with
/// that id. Ask it whether a checkpoint was replaced ([`is_superseded`](Self::is_superseded)),
/// by which ([`superseded_by`](Self::superseded_by)) and what a checkpoint replaced, with
/// titles ([`supersedes`](Self::supersedes)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Supersession {
    /// Superseded id → the checkpoints that supersede it, in reading order.
    by: HashMap<String, Vec<Link>>,
    /// The title of every superseded id that some entry holds.
    titles: HashMap<String, String>,
    /// Entries with a topic: (normalised topic, timestamp, id), in reading order.
    topics: Vec<(String, DateTime<Utc>, String)>,
}

impl Supersession {
    /// The links made by `facts`: the entries of one workspace in reading order — all of
    /// them, or at least every one that [says something](SupersessionFacts::says_something)
    /// and every one whose id such an entry names (the same answer either way).
    pub fn from_facts<'a>(facts: impl IntoIterator<Item = &'a SupersessionFacts>) -> Self {
        let mut s = Supersession::default();
        let mut first_title: Vec<(&str, &str)> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        for f in facts {
            if seen.insert(f.id.as_str()) {
                first_title.push((&f.id, &f.title));
            }
            for target in &f.supersedes {
                let list = s.by.entry(target.clone()).or_default();
                if !list.iter().any(|l| l.id == f.id) {
                    list.push(Link {
                        id: f.id.clone(),
                        title: f.title.clone(),
                    });
                }
            }
            if let Some(topic) = f.topic.as_deref().map(topic_key).filter(|t| !t.is_empty()) {
                s.topics.push((topic, f.timestamp, f.id.clone()));
            }
        }
        for (id, title) in first_title {
            if s.by.contains_key(id) {
                s.titles.insert(id.to_string(), title.to_string());
            }
        }
        s
    }

    /// The links of `checkpoints` (every checkpoint of one workspace in reading order, or
    /// at least those [`from_facts`](Self::from_facts) needs).
    pub fn from_checkpoints<'a>(checkpoints: impl IntoIterator<Item = &'a Checkpoint>) -> Self {
        let facts: Vec<SupersessionFacts> =
            checkpoints.into_iter().map(SupersessionFacts::of).collect();
        Supersession::from_facts(&facts)
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

    /// The checkpoints that supersede `id`, in reading order (empty when none does).
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
