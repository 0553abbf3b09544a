//! The page functions without a socket.

use goldfish_web::{App, TimelineQuery, timeline, workspace};

use crate::util::{TestResult, now, sample};

#[test]
fn pages_render_without_a_server() -> TestResult {
    let dir = tempfile::tempdir()?;
    sample(dir.path());
    let app = App::new(dir.path()).with_now(now());
    let page = timeline(&app, &TimelineQuery::default());
    assert_eq!(page.status, 200);
    assert!(page.html.starts_with("<!DOCTYPE html>"));
    assert!(page.html.contains("Login page redesign"));
    assert_eq!(workspace(&app, "web").status, 200);
    assert_eq!(workspace(&app, "nope").status, 404);
    Ok(())
}

#[test]
fn an_empty_or_missing_store_is_not_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("not-yet");
    let page = timeline(&App::new(&missing), &TimelineQuery::default());
    assert_eq!(page.status, 200);
    assert!(page.html.contains("Nothing here."), "{}", page.html);
    assert!(!missing.exists(), "nothing was created");
}
