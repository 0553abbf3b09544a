//! The evaluation corpora as checkpoints, for the benches that need real-looking text.

use goldfish_store::Checkpoint;

/// Checkpoints from JSON Lines, one `{id, workspace, timestamp, description, tags, branch,
/// commit, files}` object a line, as the recall crate's evaluation fixtures hold them.
pub(crate) fn checkpoints(text: &str) -> Vec<Checkpoint> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("corpus line is JSON");
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
            let list = |k: &str| -> Vec<String> {
                v[k].as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let ts = notes_core::time::parse_utc(&s("timestamp")).expect("corpus timestamp");
            let mut c = Checkpoint::new(s("id"), ts, s("workspace"), s("description"));
            c.tags = list("tags");
            c.files = list("files");
            c.branch = Some(s("branch")).filter(|b| !b.is_empty());
            c.commit = Some(s("commit")).filter(|b| !b.is_empty());
            c
        })
        .collect()
}
