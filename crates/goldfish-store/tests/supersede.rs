//! Supersession through the store: `supersedes` ids checked on save, topics that supersede
//! the current memory of their topic, links read back from the day files.

use chrono::Duration;
use goldfish_store::{CheckpointInput, MemoryType, Store};

use crate::{TestResult, store_at};

fn save(
    store: &Store,
    text: &str,
    topic: Option<&str>,
    supersedes: &[&str],
) -> Result<goldfish_store::Checkpoint, goldfish_store::Error> {
    let mut input = CheckpointInput::new(text);
    input.workspace = Some("proj".into());
    input.memory_type = MemoryType::Decision;
    input.topic = topic.map(str::to_string);
    input.supersedes = supersedes.iter().map(|s| s.to_string()).collect();
    store.save_checkpoint(input)
}

#[test]
fn an_unknown_id_is_refused_by_name_and_nothing_is_saved() -> TestResult {
    let home = tempfile::tempdir()?;
    let (store, _clock) = store_at(home.path())?;
    let first = save(&store, "First", None, &[])?;
    let err = save(
        &store,
        "Second",
        None,
        &[&first.id, "20250101T000000000Z-nothere"],
    )
    .expect_err("unknown id");
    assert!(err.is_not_found(), "{err}");
    assert!(
        err.to_string().contains("20250101T000000000Z-nothere"),
        "{err}"
    );
    assert!(err.to_string().contains("nothing was saved"), "{err}");
    let day = store.checkpoints_for_day("proj", first.timestamp.date_naive())?;
    assert_eq!(day.len(), 1);
    // An id of another workspace is not one of this workspace's.
    let mut other = CheckpointInput::new("Elsewhere");
    other.workspace = Some("other".into());
    let elsewhere = store.save_checkpoint(other)?;
    assert!(save(&store, "Third", None, &[&elsewhere.id]).is_err());
    Ok(())
}

#[test]
fn a_topic_supersedes_the_current_memory_of_that_topic() -> TestResult {
    let home = tempfile::tempdir()?;
    let (store, clock) = store_at(home.path())?;
    let a = save(&store, "Tokens live 30 days", Some("auth-tokens"), &[])?;
    assert!(a.supersedes.is_empty());
    clock.advance(Duration::days(3));
    let unrelated = save(&store, "Use Postgres", Some("database"), &[])?;
    clock.advance(Duration::days(3));
    let b = save(&store, "Tokens rotate daily", Some(" Auth-Tokens "), &[])?;
    assert_eq!(b.topic.as_deref(), Some("Auth-Tokens"));
    assert_eq!(b.supersedes, std::slice::from_ref(&a.id));
    // The file says it, as an ordinary bullet.
    let text = std::fs::read_to_string(
        home.path()
            .join("proj/checkpoints")
            .join(format!("{}.md", b.timestamp.format("%Y-%m-%d"))),
    )?;
    assert!(
        text.contains(&format!(
            "- **Topic**: Auth-Tokens\n- **Supersedes**: {}\n",
            a.id
        )),
        "{text}"
    );
    // An explicit id and the topic's current memory together; repeated ids once.
    clock.advance(Duration::minutes(1));
    let c = save(
        &store,
        "Tokens rotate hourly",
        Some("auth-tokens"),
        &[&unrelated.id, &unrelated.id],
    )?;
    assert_eq!(c.supersedes, [unrelated.id.clone(), b.id.clone()]);
    let links = store.supersession("proj")?;
    for old in [&a.id, &b.id, &unrelated.id] {
        assert!(links.is_superseded(old), "{old}");
    }
    assert!(!links.is_superseded(&c.id));
    assert_eq!(links.superseded_by(&a.id)[0].title, "Tokens rotate daily");
    let shown = links.supersedes(&c);
    assert_eq!(shown[0].title, "Use Postgres");
    assert_eq!(shown[1].title, "Tokens rotate daily");
    // Every memory of the topic is superseded now but the newest.
    assert_eq!(links.current_for_topic("AUTH-TOKENS"), Some(c.id.as_str()));
    Ok(())
}
