//! Fuzz target: the day-file parser never panics, whatever it reads formats and parses back
//! to the same checkpoints, and a typed memory whose fields are cut from the input (any
//! text: line breaks, `;`, `\`, leading `- `) round-trips through a day file, with an actor,
//! a topic and superseded ids cut from it too.
#![no_main]
use goldfish_store::{Checkpoint, MemoryType};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let date = goldfish_store::chrono::NaiveDate::from_ymd_opt(2025, 10, 13).expect("valid date");
    let day = goldfish_store::parse_day_bytes(data, "fuzz", date);
    let text = goldfish_store::format_day_file(date, &day.checkpoints);
    let again = goldfish_store::parse_checkpoint_file(&text, "fuzz", date)
        .expect("a formatted day file parses strictly");
    assert_eq!(again, day.checkpoints, "parse → format → parse is stable");

    // The input as the fields of a typed memory: parts separated by NUL bytes.
    let input = String::from_utf8_lossy(data);
    let mut parts = input.split('\0').map(str::to_string);
    let mut next = || parts.next();
    let at = date.and_hms_opt(9, 30, 0).expect("valid time").and_utc();
    let mut cp = Checkpoint::new("fuzz-1", at, "fuzz", next().unwrap_or_default());
    cp.memory_type = MemoryType::ALL[data.len() % MemoryType::ALL.len()];
    let list = |p: Option<String>| -> Vec<String> {
        p.map(|s| s.split('\u{1}').map(str::to_string).collect())
            .unwrap_or_default()
    };
    cp.structured.context = next();
    cp.structured.decision = next();
    cp.structured.alternatives = list(next());
    cp.structured.impact = next();
    cp.structured.evidence = list(next());
    cp.structured.symbols = list(next());
    cp.structured.next = next();
    cp.structured.confidence = (data.len() % 6 != 0).then(|| (data.len() % 5) as u8 + 1);
    cp.structured.unknowns = list(next());
    // Who saved it: any text, as the structured fields.
    cp.actor.harness = next();
    cp.actor.model = next();
    cp.actor.session = next();
    cp.actor.user = next();
    cp.actor.git_user = next();
    cp.actor.git_email = next();
    // Supersession: any topic, and ids cut from the input (none empty).
    cp.topic = next();
    cp.supersedes = list(next())
        .into_iter()
        .filter(|id| !id.is_empty())
        .collect();
    let text = goldfish_store::format_day_file(date, std::slice::from_ref(&cp));
    let back = goldfish_store::parse_checkpoint_file(&text, "fuzz", date)
        .expect("a formatted typed memory parses strictly");
    assert_eq!(back, vec![cp], "a typed memory round-trips");
});
