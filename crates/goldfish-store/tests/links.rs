//! Links added after a save (`Store::add_supersedes`) and the record of returns
//! (`Store::note_returned`, `Store::returned`).

use goldfish_store::{Checkpoint, CheckpointInput, EDITED_KEY, Store};

use crate::{TestResult, seed_date, store_at};

fn save(store: &Store, ws: &str, text: &str) -> Result<Checkpoint, goldfish_store::Error> {
    let mut input = CheckpointInput::new(text);
    input.workspace = Some(ws.into());
    store.save_checkpoint(input)
}

#[test]
fn a_link_is_added_in_place_and_every_other_byte_is_kept() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, clock) = store_at(dir.path())?;
    let a = save(&store, "ws", "Use Postgres 14 for orders\nbody a")?;
    clock.advance(chrono::TimeDelta::seconds(60));
    let b = save(&store, "ws", "Upgrade orders to Postgres 16\nbody b")?;
    clock.advance(chrono::TimeDelta::seconds(60));
    let c = save(&store, "ws", "Third: untouched")?;
    let day = store.day_file_path("ws", seed_date())?;
    let before = std::fs::read_to_string(&day)?;

    clock.advance(chrono::TimeDelta::seconds(60));
    let added = store.add_supersedes("ws", &b.id, std::slice::from_ref(&a.id))?;
    assert_eq!(added, vec![a.id.clone()]);
    let after = std::fs::read_to_string(&day)?;
    // The entries before and after b are byte for byte what they were.
    let start_b = before.find(&format!("id: {}", b.id)).ok_or("b")?;
    let head_end = before[..start_b].rfind("## ").ok_or("b's header")?;
    assert_eq!(&after[..head_end], &before[..head_end]);
    let c_at = before.rfind("## ").ok_or("c")?;
    assert!(after.ends_with(&before[c_at..]), "{after}");
    assert!(
        after.contains(&format!("- **Supersedes**: {}", a.id)),
        "{after}"
    );
    assert!(
        after.contains("- **Edited**: 2025-10-13T09:33:00.000Z"),
        "{after}"
    );

    let back = store.read_day("ws", seed_date())?.checkpoints;
    assert_eq!(back.len(), 3);
    let b2 = back.iter().find(|x| x.id == b.id).ok_or("b back")?;
    assert_eq!(b2.supersedes, vec![a.id.clone()]);
    assert_eq!(b2.description, b.description);
    assert!(b2.extra.contains_key(EDITED_KEY));
    assert_eq!(back.iter().find(|x| x.id == c.id), Some(&c));
    assert!(store.supersession("ws")?.is_superseded(&a.id));

    // Again: nothing to add, nothing written.
    let bytes = std::fs::read(&day)?;
    assert!(
        store
            .add_supersedes("ws", &b.id, std::slice::from_ref(&a.id))?
            .is_empty()
    );
    assert_eq!(std::fs::read(&day)?, bytes);
    Ok(())
}

#[test]
fn a_link_to_itself_an_unknown_id_or_a_bad_id_is_refused() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, _clock) = store_at(dir.path())?;
    let a = save(&store, "ws", "A decision")?;
    let day = store.day_file_path("ws", seed_date())?;
    let bytes = std::fs::read(&day)?;
    let e = store
        .add_supersedes("ws", &a.id, std::slice::from_ref(&a.id))
        .unwrap_err();
    assert!(e.is_invalid_input(), "{e}");
    let e = store
        .add_supersedes("ws", &a.id, &["x, y".to_string()])
        .unwrap_err();
    assert!(e.is_invalid_input(), "{e}");
    let e = store
        .add_supersedes(
            "ws",
            "20200101T000000000Z-nope",
            std::slice::from_ref(&a.id),
        )
        .unwrap_err();
    assert!(e.is_not_found(), "{e}");
    let e = store
        .add_supersedes("other", &a.id, &["x".to_string()])
        .unwrap_err();
    assert!(e.is_not_found(), "{e}");
    assert_eq!(std::fs::read(&day)?, bytes);
    Ok(())
}

#[test]
fn the_record_of_returns_keeps_each_memorys_last_day_and_its_beginning() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, clock) = store_at(dir.path())?;
    assert_eq!(store.returned("ws")?, goldfish_store::Returns::default());
    store.note_returned("ws", &["a".into(), "b".into()])?;
    clock.advance(chrono::TimeDelta::days(3));
    store.note_returned("ws", &["a".into()])?;
    let r = store.returned("ws")?;
    assert_eq!(r.since, Some(seed_date()));
    assert_eq!(r.last["b"], seed_date());
    assert_eq!(r.last["a"], seed_date() + chrono::Days::new(3));
    let path = dir.path().join(goldfish_store::RETURNS_DIR).join("ws.txt");
    // The same memories again the same day: the file is not written (an atomic write would
    // give it a new inode).
    use std::os::unix::fs::MetadataExt as _;
    let inode = std::fs::metadata(&path)?.ino();
    store.note_returned("ws", &["a".into()])?;
    assert_eq!(std::fs::metadata(&path)?.ino(), inode);
    store.note_returned("ws", &["b".into()])?;
    assert_ne!(
        std::fs::metadata(&path)?.ino(),
        inode,
        "a change is written"
    );

    // A record that cannot be read: `returned` names the file and line; the next note
    // begins the record again.
    std::fs::write(&path, "since 2025-10-13\nnot a line at all\n")?;
    let e = store.returned("ws").unwrap_err();
    assert!(e.is_parse(), "{e}");
    assert!(
        e.to_string().contains("ws.txt") && e.to_string().contains('2'),
        "{e}"
    );
    store.note_returned("ws", &["c".into()])?;
    let r = store.returned("ws")?;
    assert_eq!(r.since, Some(seed_date() + chrono::Days::new(3)));
    assert_eq!(r.last.keys().collect::<Vec<_>>(), vec!["c"]);
    assert!(store.note_returned("../x", &["a".into()]).is_err());
    Ok(())
}

#[test]
fn a_crlf_day_file_keeps_its_line_endings_and_a_hand_edited_entry_is_left_alone() -> TestResult {
    let dir = tempfile::tempdir()?;
    let (store, clock) = store_at(dir.path())?;
    let a = save(&store, "ws", "Use Postgres 14 for orders")?;
    clock.advance(chrono::TimeDelta::seconds(60));
    let b = save(&store, "ws", "Upgrade orders to Postgres 16")?;
    let day = store.day_file_path("ws", seed_date())?;
    let lf = std::fs::read_to_string(&day)?;
    std::fs::write(&day, lf.replace('\n', "\r\n"))?;
    store.add_supersedes("ws", &b.id, std::slice::from_ref(&a.id))?;
    let after = std::fs::read_to_string(&day)?;
    assert!(
        !after.replace("\r\n", "").contains('\n'),
        "only CRLF: {after:?}"
    );
    assert!(after.contains(&format!("- **Supersedes**: {}\r\n", a.id)));
    assert!(store.supersession("ws")?.is_superseded(&a.id));

    // An entry edited by hand into something the formatter would not write back as it is.
    let c = {
        clock.advance(chrono::TimeDelta::seconds(60));
        save(&store, "other", "Chose Redis")?
    };
    clock.advance(chrono::TimeDelta::seconds(60));
    let d = save(&store, "other", "Chose Valkey over Redis")?;
    let path = store.day_file_path("other", seed_date())?;
    let text = std::fs::read_to_string(&path)?;
    let at = text.find(&format!("id: {} ", d.id)).ok_or("d")?;
    let line_end = at + text[at..].find('\n').ok_or("eol")?;
    // Trailing spaces on its id line: read the same, but not what the formatter writes.
    let edited = format!("{}   {}", &text[..line_end], &text[line_end..]);
    std::fs::write(&path, &edited)?;
    let e = store
        .add_supersedes("other", &d.id, std::slice::from_ref(&c.id))
        .unwrap_err();
    assert!(e.is_parse(), "{e}");
    assert!(e.to_string().contains("by hand"), "{e}");
    assert_eq!(std::fs::read_to_string(&path)?, edited, "nothing written");
    Ok(())
}
