//! Recall and standup over real stores in temp dirs.

use goldfish_recall::{
    FormatOptions, RecallOptions, StandupOptions, format_recall, format_standup, recall,
    standup_with,
};
use goldfish_store::PlanInput;

use crate::util::{TestResult, TestStore, t};

fn all_opts(now: &str) -> RecallOptions {
    let mut o = RecallOptions::default();
    o.workspace = "all".into();
    o.now = Some(t(now));
    o
}

#[test]
fn all_counts_per_workspace_under_one_limit() -> TestResult {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    for (i, ws) in ["alpha", "beta", "gamma"].iter().enumerate() {
        for k in 0..5 {
            s.save_at(
                &format!("2025-10-13T0{k}:{i}0:00Z"),
                ws,
                &format!("{ws} step {k}"),
                &[],
            )?;
        }
    }
    let mut o = all_opts("2025-10-13T12:00:00Z");
    o.limit = 4;
    let r = recall(&s.store, &o)?;
    assert_eq!(r.hits.len(), 4);
    assert_eq!(r.total, 15);
    let titles: Vec<&str> = r.checkpoints().map(|c| c.title()).collect();
    assert_eq!(
        titles,
        [
            "gamma step 4",
            "beta step 4",
            "alpha step 4",
            "gamma step 3"
        ]
    );
    let counts: Vec<(&str, usize, usize)> = r
        .workspaces
        .iter()
        .map(|w| (w.workspace.as_str(), w.matched, w.shown))
        .collect();
    assert_eq!(counts, [("alpha", 5, 1), ("beta", 5, 1), ("gamma", 5, 2)]);

    // Searching across workspaces ranks the union by relevance: the checkpoints that say both
    // words first, then those that say one (no cut-off drops them).
    o.search = Some("beta stpe".into());
    o.limit = 5;
    let r = recall(&s.store, &o)?;
    assert_eq!(r.total, 15);
    assert!(r.checkpoints().all(|c| c.workspace == "beta"));
    Ok(())
}

#[test]
fn limit_zero_returns_only_the_plan() -> TestResult {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    s.save_at("2025-10-13T09:00:00Z", "ws", "Something", &[])?;
    let mut plan = PlanInput::new("Ship it", "- [ ] ship\n");
    plan.workspace = Some("ws".into());
    plan.activate = true;
    s.store.save_plan(plan)?;
    let mut o = RecallOptions::default();
    o.workspace = "ws".into();
    o.limit = 0;
    o.now = Some(t("2025-10-13T10:00:00Z"));
    let r = recall(&s.store, &o)?;
    assert!(r.hits.is_empty());
    assert_eq!(r.total, 1);
    assert_eq!(r.active_plan.map(|p| p.id), Some("ship-it".to_string()));
    Ok(())
}

#[test]
fn corrupt_files_are_skipped_and_reported() -> TestResult {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    s.save_at("2025-10-13T09:00:00Z", "ws", "Good entry", &[])?;
    let dir = s.dir.path().join("ws").join("checkpoints");
    std::fs::write(
        dir.join("2025-10-12.md"),
        b"\xff\xfe not utf-8 \x00\n## garbage\n",
    )?;
    let mut o = RecallOptions::default();
    o.workspace = "ws".into();
    o.days = Some(7);
    o.now = Some(t("2025-10-13T10:00:00Z"));
    let r = recall(&s.store, &o)?;
    assert_eq!(r.hits.len(), 1);
    assert!(!r.skipped.is_empty());
    assert!(
        r.skipped[0].path.ends_with("2025-10-12.md"),
        "{:?}",
        r.skipped
    );
    let text = format_recall(&r, &FormatOptions::default());
    assert!(text.contains("skipped"), "{text}");
    Ok(())
}

#[test]
fn bad_arguments_are_named() -> TestResult {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    let cases = [
        ("since", "yesterday-ish"),
        ("from", "13/10/2025"),
        ("to", "soon"),
        ("workspace", "../etc"),
    ];
    for (arg, value) in cases {
        let mut o = RecallOptions::default();
        o.now = Some(t("2025-10-13T10:00:00Z"));
        match arg {
            "since" => o.since = Some(value.into()),
            "from" => o.from = Some(value.into()),
            "to" => o.to = Some(value.into()),
            _ => o.workspace = value.into(),
        }
        let e = recall(&s.store, &o).err().ok_or("expected an error")?;
        assert!(e.is_invalid_argument(), "{arg}: {e}");
        assert_eq!(e.argument_name(), Some(arg), "{arg}: {e}");
    }
    Ok(())
}

#[test]
fn two_window_starts_are_refused_naming_both() -> TestResult {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    type Set = fn(&mut RecallOptions);
    let cases: [(Set, &str, &str); 3] = [
        (
            |o| {
                o.days = Some(3);
                o.since = Some("1h".into());
            },
            "days",
            "since",
        ),
        (
            |o| {
                o.since = Some("1h".into());
                o.from = Some("2025-10-01".into());
            },
            "since",
            "from",
        ),
        (
            |o| {
                o.days = Some(3);
                o.from = Some("2025-10-01".into());
            },
            "days",
            "from",
        ),
    ];
    for (set, first, second) in cases {
        let mut o = RecallOptions::default();
        o.workspace = "ws".into();
        set(&mut o);
        let e = recall(&s.store, &o).err().ok_or("expected an error")?;
        assert!(e.is_invalid_argument(), "{e}");
        let text = e.to_string();
        assert!(
            text.contains(&format!("`{first}`")) && text.contains(&format!("`{second}`")),
            "{text}"
        );
    }
    // A blank value does not count as given.
    let mut o = RecallOptions::default();
    o.workspace = "ws".into();
    o.days = Some(3);
    o.since = Some("  ".into());
    recall(&s.store, &o)?;
    Ok(())
}

#[test]
fn scope_parses_current_all_and_names() {
    use goldfish_recall::Scope;
    assert_eq!(Scope::from(""), Scope::Current);
    assert_eq!(Scope::from("Current"), Scope::Current);
    assert_eq!(Scope::from("ALL"), Scope::All);
    assert_eq!(Scope::from(" api "), Scope::Named("api".into()));
}

#[test]
fn an_empty_or_missing_store_says_so() -> TestResult {
    let dir = tempfile::tempdir()?;
    for (root, want) in [
        (dir.path().join("not-yet"), "does not exist yet"),
        (dir.path().to_path_buf(), "holds no checkpoints yet"),
    ] {
        let store = goldfish_store::Store::open(&root)?;
        let mut o = RecallOptions::default();
        o.workspace = "ws".into();
        let r = recall(&store, &o)?;
        let text = format_recall(&r, &FormatOptions::default());
        assert!(
            text.contains(want) && text.contains(&root.display().to_string()),
            "{text}"
        );
        assert!(text.contains("goldfish checkpoint"), "{text}");
    }
    Ok(())
}

#[test]
fn limit_zero_shows_the_plan_and_counts_nothing_as_left_out() -> TestResult {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    s.save_at("2025-10-13T08:00:00Z", "ws", "one", &[])?;
    s.save_at("2025-10-13T08:30:00Z", "ws", "two", &[])?;
    let mut o = RecallOptions::default();
    o.workspace = "ws".into();
    o.now = Some(t("2025-10-13T09:00:00Z"));
    o.limit = 0;
    let r = recall(&s.store, &o)?;
    assert_eq!((r.hits.len(), r.total), (0, 2));
    let text = format_recall(&r, &FormatOptions::default());
    assert!(!text.contains("not shown"), "{text}");
    Ok(())
}

#[test]
fn standup_reports_active_workspaces_with_plan_progress() -> TestResult {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    s.save_at("2025-10-13T08:00:00Z", "busy", "First thing", &[])?;
    s.save_at("2025-10-13T09:00:00Z", "busy", "Second thing", &[])?;
    s.save_at("2025-10-01T09:00:00Z", "quiet", "Long ago", &[])?;
    let mut plan = PlanInput::new("Auth", "- [x] JWT\n- [ ] OAuth2\n- [ ] Sessions\n");
    plan.workspace = Some("busy".into());
    plan.activate = true;
    s.store.save_plan(plan)?;
    let mut o = StandupOptions::default();
    o.days = 1;
    o.now = Some(t("2025-10-13T10:00:00Z"));
    let st = standup_with(&s.store, &o)?;
    assert_eq!(st.workspaces.len(), 1);
    assert_eq!(st.quiet, 1);
    let busy = &st.workspaces[0];
    assert_eq!((busy.workspace.as_str(), busy.checkpoints), ("busy", 2));
    assert_eq!(busy.recent[0].title(), "Second thing");
    let plan = busy.plan.as_ref().ok_or("plan")?;
    assert_eq!((plan.done, plan.open), (1, 2));
    let text = format_standup(&st, &FormatOptions::default());
    assert!(
        text.contains("## busy — 2 checkpoints") && text.contains("1 done, 2 open"),
        "{text}"
    );
    assert!(!text.contains("Long ago"));
    Ok(())
}

/// The child half of `results_do_not_depend_on_tz`: prints recall and standup of the store
/// named by the environment to the file it names.
#[test]
fn tz_child() -> TestResult {
    let (Ok(store), Ok(out)) = (
        std::env::var("GOLDFISH_RECALL_TZ_STORE"),
        std::env::var("GOLDFISH_RECALL_TZ_OUT"),
    ) else {
        return Ok(());
    };
    std::fs::write(out, render(&goldfish_store::Store::open(store)?)?)?;
    Ok(())
}

fn render(store: &goldfish_store::Store) -> Result<String, Box<dyn std::error::Error>> {
    let mut text = String::new();
    for (from, to) in [(None, None), (Some("2025-10-13"), Some("2025-10-13"))] {
        let mut o = all_opts("2025-10-14T02:00:00Z");
        o.from = from.map(Into::into);
        o.to = to.map(Into::into);
        let mut f = FormatOptions::default();
        f.full = true;
        text.push_str(&format_recall(&recall(store, &o)?, &f));
    }
    let mut so = StandupOptions::default();
    so.now = Some(t("2025-10-14T02:00:00Z"));
    text.push_str(&format_standup(
        &standup_with(store, &so)?,
        &FormatOptions::default(),
    ));
    Ok(text)
}

#[test]
fn results_do_not_depend_on_tz() -> TestResult {
    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    // Around midnight UTC, which is 05:30 in Kolkata: a local-time bug moves these a day.
    for at in [
        "2025-10-12T20:00:00Z",
        "2025-10-13T00:10:00Z",
        "2025-10-13T23:50:00Z",
        "2025-10-14T01:00:00Z",
    ] {
        s.save_at(at, "ws", &format!("entry at {at}"), &[])?;
    }
    let here = render(&s.store)?;
    assert!(here.contains("entry at 2025-10-13T23:50:00Z"));
    let out = s.dir.path().join("child.md");
    let status = std::process::Command::new(std::env::current_exe()?)
        .args([
            "--exact",
            "store::tz_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TZ", "Asia/Kolkata")
        .env("GOLDFISH_RECALL_TZ_STORE", s.dir.path())
        .env("GOLDFISH_RECALL_TZ_OUT", &out)
        .status()?;
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&out)?, here);
    Ok(())
}

/// A day file written directly, so checkpoints can carry files and typed fields.
fn typed_store() -> Result<TestStore, Box<dyn std::error::Error>> {
    use goldfish_store::{Checkpoint, MemoryType, format_day_file};
    let s = TestStore::new("2025-10-13T12:00:00Z")?;
    let mk = |id: &str, hh: u32, desc: &str, t: MemoryType, tags: &[&str], files: &[&str]| {
        let mut c = Checkpoint::new(id, t_at(hh), "api", desc);
        c.memory_type = t;
        c.tags = tags.iter().map(|s| s.to_string()).collect();
        c.files = files.iter().map(|s| s.to_string()).collect();
        c
    };
    let mut decision = mk(
        "d1",
        8,
        "Token policy",
        MemoryType::Decision,
        &["auth", "security"],
        &["src/auth/jwt.rs"],
    );
    decision.structured.decision = Some("Rotate refresh tokens on every use".into());
    decision.structured.alternatives = vec!["Sliding expiry".into()];
    decision.structured.symbols = vec!["TokenStore::rotate".into()];
    let mut incident = mk(
        "i1",
        9,
        "Login outage",
        MemoryType::Incident,
        &["auth"],
        &["src/db/pool.rs"],
    );
    incident.structured.impact = Some("Nobody could sign in for 20 minutes".into());
    let plain = mk(
        "c1",
        10,
        "Tidied the README",
        MemoryType::Checkpoint,
        &["docs"],
        &["README.md"],
    );
    let dir = s.dir.path().join("api/checkpoints");
    std::fs::create_dir_all(&dir)?;
    let date = t_at(0).date_naive();
    std::fs::write(
        dir.join("2025-10-13.md"),
        format_day_file(date, &[decision, incident, plain]),
    )?;
    Ok(s)
}

fn t_at(hour: u32) -> chrono::DateTime<chrono::Utc> {
    t(&format!("2025-10-13T{hour:02}:00:00Z"))
}

fn ids(r: &goldfish_recall::RecallResult) -> Vec<&str> {
    r.checkpoints().map(|c| c.id.as_str()).collect()
}

#[test]
fn filters_by_type_tag_file_and_symbol_with_search_and_window() -> TestResult {
    use goldfish_store::MemoryType;
    let s = typed_store()?;
    let base = || {
        let mut o = RecallOptions::default();
        o.workspace = "api".into();
        o.now = Some(t("2025-10-13T12:00:00Z"));
        o
    };
    let r = recall(&s.store, &base())?;
    assert_eq!(ids(&r), ["c1", "i1", "d1"]);

    type SetUp = Box<dyn Fn(&mut RecallOptions)>;
    let cases: Vec<(&str, SetUp, Vec<&str>)> = vec![
        (
            "type",
            Box::new(|o| o.filter.memory_type = Some(MemoryType::Decision)),
            vec!["d1"],
        ),
        (
            "one tag",
            Box::new(|o| o.filter.tags = vec!["auth".into()]),
            vec!["i1", "d1"],
        ),
        (
            "all tags must match",
            Box::new(|o| o.filter.tags = vec!["auth".into(), "SECURITY".into()]),
            vec!["d1"],
        ),
        (
            "directory",
            Box::new(|o| o.filter.file = Some("src/auth/".into())),
            vec!["d1"],
        ),
        (
            "suffix",
            Box::new(|o| o.filter.file = Some("pool.rs".into())),
            vec!["i1"],
        ),
        (
            "prefix of everything under src",
            Box::new(|o| o.filter.file = Some("src".into())),
            vec!["i1", "d1"],
        ),
        (
            "symbol",
            Box::new(|o| o.filter.symbol = Some("rotate".into())),
            vec!["d1"],
        ),
        (
            "filter and search",
            Box::new(|o| {
                o.filter.tags = vec!["auth".into()];
                o.search = Some("sign in".into());
            }),
            vec!["i1"],
        ),
        (
            "filter and window",
            Box::new(|o| {
                o.filter.tags = vec!["auth".into()];
                o.since = Some("150m".into());
            }),
            vec![],
        ),
        (
            "filter and a window that holds one",
            Box::new(|o| {
                o.filter.tags = vec!["auth".into()];
                o.from = Some("2025-10-13T08:30:00Z".into());
            }),
            vec!["i1"],
        ),
        (
            "nothing matches",
            Box::new(|o| o.filter.memory_type = Some(MemoryType::Learning)),
            vec![],
        ),
    ];
    for (name, set, want) in cases {
        let mut o = base();
        set(&mut o);
        let r = match recall(&s.store, &o) {
            Ok(r) => r,
            Err(e) => panic!("{name}: {e}"),
        };
        assert_eq!(ids(&r), want, "{name}");
        assert_eq!(r.total, want.len(), "{name}");
    }
    Ok(())
}

#[test]
fn search_finds_structured_fields() -> TestResult {
    let s = typed_store()?;
    let mut o = RecallOptions::default();
    o.workspace = "api".into();
    o.now = Some(t("2025-10-13T12:00:00Z"));
    for (query, want) in [
        ("sliding expiry", "d1"),
        ("rotate refresh", "d1"),
        ("nobody sign", "i1"),
        ("incident", "i1"),
    ] {
        o.search = Some(query.into());
        let r = recall(&s.store, &o)?;
        assert_eq!(ids(&r).first().copied(), Some(want), "{query}");
        // The search text never leaks into what is returned.
        assert!(
            r.checkpoints().all(|c| !c.description.contains('\n')),
            "{query}"
        );
    }
    let text = format_recall(&recall(&s.store, &o)?, &FormatOptions::default());
    assert!(text.contains("[incident] Login outage"), "{text}");
    Ok(())
}

#[test]
fn standup_lists_decisions_and_incidents_apart() -> TestResult {
    let s = typed_store()?;
    let mut o = StandupOptions::default();
    o.now = Some(t("2025-10-13T12:00:00Z"));
    let st = standup_with(&s.store, &o)?;
    let ws = &st.workspaces[0];
    assert_eq!(
        ws.decisions
            .iter()
            .map(|c| c.id.as_str())
            .collect::<Vec<_>>(),
        ["d1"]
    );
    assert_eq!(
        ws.incidents
            .iter()
            .map(|c| c.id.as_str())
            .collect::<Vec<_>>(),
        ["i1"]
    );
    let text = format_standup(&st, &FormatOptions::default());
    assert!(
        text.contains(
            "Decisions:\n- 2025-10-13 08:00 Token policy — Rotate refresh tokens on every use\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "Incidents:\n- 2025-10-13 09:00 Login outage — Nobody could sign in for 20 minutes\n"
        ),
        "{text}"
    );
    Ok(())
}

/// A typed memory is searched the same way by [`search`] over the checkpoints in memory and
/// by [`recall`] (through the index and over the files): its type and structured fields are
/// part of its body for both, with the same scores.
#[test]
fn search_and_recall_rank_a_typed_memory_alike() -> TestResult {
    use goldfish_recall::{Query, SearchOptions, search};
    use goldfish_store::{CheckpointInput, MemoryType};

    let s = TestStore::new("2025-10-13T09:00:00Z")?;
    s.save_at("2025-10-13T08:00:00Z", "ws", "Compared queue backends", &[])?;
    s.save_at(
        "2025-10-13T08:10:00Z",
        "ws",
        "Chose postgres for the queue\nLatency measured under load.",
        &[],
    )?;
    s.clock.set(t("2025-10-13T08:20:00Z"));
    let mut input = CheckpointInput::new("Queue storage settled");
    input.workspace = Some("ws".into());
    input.memory_type = MemoryType::Decision;
    input.structured.decision = Some("postgres with skip locked rows".into());
    input.structured.alternatives = vec!["redis streams".into()];
    s.store.save_checkpoint(input)?;
    s.save_at("2025-10-13T08:30:00Z", "ws", "Redis cache warmed", &[])?;

    let mut o = all_opts("2025-10-13T12:00:00Z");
    o.explain = true;
    let from = t("2025-10-12T00:00:00Z");
    let to = t("2025-10-14T00:00:00Z");
    let cps = s.store.checkpoints_between("ws", from, to)?.checkpoints;
    let mut search_opts = SearchOptions::default();
    search_opts.explain = true;
    for text in ["postgres decision", "skip locked", "redis alternatives"] {
        let hits = search(&Query::parse(text), &cps, &search_opts);
        let by_search: Vec<(&str, f32)> = hits
            .iter()
            .map(|h| (cps[h.index].title(), h.score))
            .collect();
        assert!(
            by_search
                .iter()
                .any(|(title, _)| *title == "Queue storage settled"),
            "{text}: search() finds the typed memory by its typed text: {by_search:?}"
        );
        for use_index in [true, false] {
            o.search = Some(text.into());
            o.use_index = use_index;
            let r = recall(&s.store, &o)?;
            // Each hit carries its score, and its explanation (asked for) the same score.
            for h in &r.hits {
                assert_eq!(h.explanation.as_ref().map(|e| e.score), h.score, "{text}");
            }
            let by_recall: Vec<(&str, f32)> = r
                .hits
                .iter()
                .filter_map(|h| Some((h.checkpoint.title(), h.score?)))
                .collect();
            assert_eq!(
                by_recall, by_search,
                "{text} (index {use_index}): recall() and search() agree"
            );
        }
    }
    Ok(())
}
