//! The hooks' part of the store's `settings.json`: `{"hooks": {"session_budget": 6000}}`,
//! the characters goldfish may inject into one agent session in all.

use std::path::Path;

use goldfish_core::fs::read_utf8_opt;

use crate::error::Error;
use crate::redaction::SETTINGS_FILE;

/// The session budget the settings file of the store at `root` sets
/// (`hooks.session_budget`), or `None` when there is no file or it sets none.
///
/// Errors ([`Error::is_parse`]) name the file and the line: JSON that does not parse, or a
/// `hooks` that is not an object or a `session_budget` that is not a whole number.
pub fn hook_session_budget(root: &Path) -> Result<Option<usize>, Error> {
    let path = root.join(SETTINGS_FILE);
    let Some(text) = read_utf8_opt(&path)? else {
        return Ok(None);
    };
    parse(&text).map_err(|e| e.with_path(&path))
}

fn parse(text: &str) -> Result<Option<usize>, Error> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        Error::parse(
            Some(e.line()),
            format!("the settings are not valid JSON ({e})"),
        )
    })?;
    let line_of = |needle: &str| {
        text.find(needle)
            .map(|at| text[..at].matches('\n').count() + 1)
    };
    let Some(hooks) = value.get("hooks") else {
        return Ok(None);
    };
    let shape = || {
        Error::parse(
            line_of("\"hooks\""),
            "`hooks` must be an object such as {\"session_budget\": 6000} (the characters \
             goldfish may inject into one session)",
        )
    };
    let hooks = hooks.as_object().ok_or_else(shape)?;
    match hooks.get("session_budget") {
        None => Ok(None),
        Some(n) => n
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(shape),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_budget_and_names_a_bad_one() {
        assert_eq!(parse("{}").expect("parse"), None);
        assert_eq!(
            parse(r#"{"redact": {}, "hooks": {"session_budget": 2500}}"#).expect("parse"),
            Some(2500)
        );
        let err = parse("{\n\"hooks\": {\"session_budget\": \"lots\"}}").expect_err("bad");
        assert!(err.to_string().contains("line 2"), "{err}");
        assert!(parse("{\"hooks\": 3}").is_err());
        let dir = tempfile::tempdir().expect("dir");
        assert_eq!(hook_session_budget(dir.path()).expect("none"), None);
        std::fs::write(dir.path().join(SETTINGS_FILE), "{oops").expect("write");
        let err = hook_session_budget(dir.path()).expect_err("bad");
        assert!(err.to_string().contains(SETTINGS_FILE), "{err}");
    }
}
