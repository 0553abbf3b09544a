//! Secrets are never written: the store's redaction setting, and the one step every save
//! runs before it writes (see [`redact_checkpoint`] and [`redact_plan_text`]).

use std::path::Path;
use std::sync::Arc;

use goldfish_core::fs::read_utf8_opt;
use goldfish_redact::{Config, Finding, Kind, Redactor};

use crate::checkpoint::Checkpoint;
use crate::error::Error;

/// The store's settings file, `$GOLDFISH_HOME/settings.json`.
///
/// Its only setting today turns kinds of secret off, by name:
/// `{"redact": {"disabled": ["jwt"]}}`. Without the file every kind is redacted; there is no
/// other way to turn redaction off.
pub const SETTINGS_FILE: &str = "settings.json";

/// One secret or private span a save replaced by `[REDACTED:<kind>]`: the field it was in
/// and its kind, never the text itself.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Redaction {
    /// The field: `description`, `tags`, `branch`, `files`, an extra bullet's or the actor's
    /// bullet key such as `Session` (checkpoints); `title`, `content`, `tags` (plans).
    pub field: String,
    /// What was found.
    pub kind: Kind,
}

impl Redaction {
    /// A redaction of a `kind` secret in `field`.
    pub fn new(field: impl Into<String>, kind: Kind) -> Self {
        Redaction {
            field: field.into(),
            kind,
        }
    }
}

/// One line for people about what a save redacted: `redacted 2 secrets: aws-access-key-id,
/// github-token`, `dropped 1 private span`, or both (the format of
/// [`goldfish_redact::summary`]), or `None` when nothing was.
pub fn redaction_summary(redacted: &[Redaction]) -> Option<String> {
    if redacted.is_empty() {
        return None;
    }
    let findings: Vec<Finding> = redacted
        .iter()
        .map(|r| Finding {
            kind: r.kind,
            range: 0..0,
        })
        .collect();
    Some(goldfish_redact::summary(&findings))
}

/// A value as saved, and the secrets the save replaced in it (empty when there were none).
///
/// Returned by [`Store::save_checkpoint_reported`](crate::Store::save_checkpoint_reported)
/// and the plan equivalents; [`Store::save_checkpoint`](crate::Store::save_checkpoint) and
/// friends return only the value (the secrets are replaced all the same).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Saved<T> {
    /// The value as written (with `[REDACTED:<kind>]` where a secret was).
    pub value: T,
    /// What was replaced, in field order.
    pub redacted: Vec<Redaction>,
    /// For a checkpoint: the id of the identical one saved moments before (see
    /// [`DUPLICATE_WINDOW`](crate::DUPLICATE_WINDOW)), which is then the value, and nothing
    /// was written. `None` for a new entry, and always for plans.
    pub duplicate_of: Option<String>,
}

impl<T> Saved<T> {
    pub(crate) fn new(value: T, redacted: Vec<Redaction>) -> Self {
        Saved {
            value,
            redacted,
            duplicate_of: None,
        }
    }

    /// [`redaction_summary`] of this save.
    pub fn summary(&self) -> Option<String> {
        redaction_summary(&self.redacted)
    }
}

impl Saved<Checkpoint> {
    /// The answer of a save that found `earlier`, the same checkpoint, already there.
    pub(crate) fn duplicate(earlier: Checkpoint, redacted: Vec<Redaction>) -> Self {
        Saved {
            duplicate_of: Some(earlier.id.clone()),
            value: earlier,
            redacted,
        }
    }
}

/// The redaction setting of the store at `root`: the kinds its `settings.json` turns off, or
/// none when there is no such file.
///
/// Errors ([`Error::is_parse`]) name the file and the line: JSON that does not parse, a
/// `redact` or `disabled` of the wrong shape, or a kind that is not one of [`Kind::ALL`] (the
/// message lists them).
pub fn redaction_config(root: &Path) -> Result<Config, Error> {
    let path = root.join(SETTINGS_FILE);
    let Some(text) = read_utf8_opt(&path)? else {
        return Ok(Config::default());
    };
    parse_settings(&text).map_err(|e| e.with_path(&path))
}

/// The kinds a setting may turn off: the secrets, never the private spans.
fn valid_kinds() -> String {
    Kind::SECRETS.map(Kind::name).join(", ")
}

/// The redaction part of a settings file's text.
fn parse_settings(text: &str) -> Result<Config, Error> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        Error::parse(
            Some(e.line()),
            format!(
                "the settings are not valid JSON ({e}); write {{\"redact\": {{\"disabled\": [\"jwt\"]}}}} \
                 to turn a kind of secret off (the kinds: {})",
                valid_kinds()
            ),
        )
    })?;
    let mut config = Config::default();
    let Some(settings) = value.as_object() else {
        return Err(Error::parse(
            Some(1),
            "the settings must be a JSON object such as {\"redact\": {\"disabled\": [\"jwt\"]}}",
        ));
    };
    let Some(redact) = settings.get("redact") else {
        return Ok(config);
    };
    let line_of = |needle: &str| {
        text.find(needle)
            .map(|at| text[..at].matches('\n').count() + 1)
    };
    let shape = || {
        Error::parse(
            line_of("\"redact\""),
            format!(
                "`redact` must be {{\"disabled\": [kind, …]}}, the kinds of secret not to redact (the kinds: {})",
                valid_kinds()
            ),
        )
    };
    let redact = redact.as_object().ok_or_else(shape)?;
    for key in redact.keys() {
        if key != "disabled" {
            return Err(Error::parse(
                line_of(&format!("\"{key}\"")),
                format!("`redact` has no setting `{key}`; its only setting is `disabled`"),
            ));
        }
    }
    let Some(disabled) = redact.get("disabled") else {
        return Ok(config);
    };
    for name in disabled.as_array().ok_or_else(shape)? {
        let name = name.as_str().ok_or_else(shape)?;
        let kind = name.parse::<Kind>().ok().filter(|kind| kind.is_private());
        if let Some(kind) = kind {
            return Err(Error::parse(
                line_of(&format!("\"{name}\"")),
                format!(
                    "`{kind}` in `redact.disabled` cannot be turned off: text between <private> \
                     and </private> is always dropped (remove the tags to keep it); the kinds \
                     of secret are: {}",
                    valid_kinds()
                ),
            ));
        }
        let kind = name.parse::<Kind>().map_err(|_| {
            Error::parse(
                line_of(&format!("\"{name}\"")),
                format!(
                    "`{name}` in `redact.disabled` is not a kind of secret; the kinds are: {}",
                    valid_kinds()
                ),
            )
        })?;
        config.disabled.push(kind);
    }
    Ok(config)
}

/// The redactor of a store's setting: the process's shared one when nothing is turned off.
#[derive(Debug, Clone)]
pub(crate) enum StoreRedactor {
    /// Every kind on: [`Redactor::everything`].
    Everything,
    /// Some kinds turned off by the setting.
    Configured(Arc<Redactor>),
}

impl StoreRedactor {
    pub(crate) fn load(root: &Path) -> Result<StoreRedactor, Error> {
        let config = redaction_config(root)?;
        Ok(if config.disabled.is_empty() {
            StoreRedactor::Everything
        } else {
            StoreRedactor::Configured(Arc::new(Redactor::new(&config)))
        })
    }

    pub(crate) fn get(&self) -> &Redactor {
        match self {
            StoreRedactor::Everything => Redactor::everything(),
            StoreRedactor::Configured(r) => r,
        }
    }
}

/// Replaces the secrets in `text` in place, recording each under `field`.
pub(crate) fn redact_field(
    redactor: &Redactor,
    field: &str,
    text: &mut String,
    out: &mut Vec<Redaction>,
) {
    for finding in redactor.redact_in_place(text) {
        out.push(Redaction::new(field, finding.kind));
    }
}

/// Replaces the secrets in every string inside a JSON value (a plan's frontmatter keys that
/// goldfish does not know, kept as they came), reporting them under `field`.
pub(crate) fn redact_json(
    redactor: &Redactor,
    field: &str,
    value: &mut serde_json::Value,
    out: &mut Vec<Redaction>,
) {
    match value {
        serde_json::Value::String(text) => redact_field(redactor, field, text, out),
        serde_json::Value::Array(items) => {
            for item in items {
                redact_json(redactor, field, item, out);
            }
        }
        serde_json::Value::Object(members) => {
            for member in members.values_mut() {
                redact_json(redactor, field, member, out);
            }
        }
        _ => {}
    }
}

/// Replaces the secrets in every text field of a checkpoint about to be written: the
/// description, tags, branch, commit, files, extra bullets and actor. The one step every
/// checkpoint save runs, after the checkpoint is complete and before it is formatted.
pub(crate) fn redact_checkpoint(redactor: &Redactor, c: &mut Checkpoint) -> Vec<Redaction> {
    let mut out = Vec::new();
    redact_field(redactor, "description", &mut c.description, &mut out);
    for tag in &mut c.tags {
        redact_field(redactor, "tags", tag, &mut out);
    }
    if let Some(branch) = &mut c.branch {
        redact_field(redactor, "branch", branch, &mut out);
    }
    if let Some(commit) = &mut c.commit {
        redact_field(redactor, "commit", commit, &mut out);
    }
    for file in &mut c.files {
        redact_field(redactor, "files", file, &mut out);
    }
    if let Some(topic) = &mut c.topic {
        redact_field(redactor, "topic", topic, &mut out);
    }
    for (key, value) in &mut c.extra {
        redact_field(redactor, key, value, &mut out);
    }
    // A typed memory's structured fields are written as bullets too: the same rule.
    let s = &mut c.structured;
    for (name, value) in [
        ("context", &mut s.context),
        ("decision", &mut s.decision),
        ("impact", &mut s.impact),
        ("next", &mut s.next),
    ] {
        if let Some(value) = value {
            redact_field(redactor, name, value, &mut out);
        }
    }
    for (name, list) in [
        ("alternatives", &mut s.alternatives),
        ("evidence", &mut s.evidence),
        ("symbols", &mut s.symbols),
        ("unknowns", &mut s.unknowns),
    ] {
        for value in list {
            redact_field(redactor, name, value, &mut out);
        }
    }
    // Who saved it is written as bullets too; a client's session id could be anything.
    for (name, value) in c.actor.fields_mut() {
        if let Some(value) = value {
            redact_field(redactor, name, value, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_or_name_the_line() {
        let ok = [
            ("{}", vec![]),
            ("{\"other\": 1}", vec![]),
            ("{\"redact\": {}}", vec![]),
            ("{\"redact\": {\"disabled\": []}}", vec![]),
            (
                "{\n  \"redact\": {\"disabled\": [\"jwt\", \"bearer-token\"]}\n}",
                vec![Kind::Jwt, Kind::BearerToken],
            ),
        ];
        for (text, want) in ok {
            assert_eq!(parse_settings(text).expect(text).disabled, want, "{text}");
        }
        let bad = [
            ("{\"redact\": ", Some(1), "not valid JSON"),
            ("[]", Some(1), "must be a JSON object"),
            ("{\n\"redact\": true}", Some(2), "`redact` must be"),
            (
                "{\"redact\": {\"disabled\": \"jwt\"}}",
                Some(1),
                "`redact` must be",
            ),
            ("{\"redact\": {\"off\": []}}", Some(1), "no setting `off`"),
            (
                "{\n  \"redact\": {\n    \"disabled\": [\"jwt\",\n \"jwtx\"]}}",
                Some(4),
                "`jwtx` in `redact.disabled` is not a kind of secret; the kinds are: private-key",
            ),
            (
                "{\"redact\": {\"disabled\": [\"private\"]}}",
                Some(1),
                "`private` in `redact.disabled` cannot be turned off",
            ),
        ];
        for (text, line, message) in bad {
            let e = parse_settings(text).expect_err(text);
            assert!(e.is_parse(), "{text}: {e}");
            assert_eq!(e.line(), line, "{text}: {e}");
            assert!(e.message().contains(message), "{text}: {e}");
        }
    }

    #[test]
    fn summary_counts_kinds() {
        assert_eq!(redaction_summary(&[]), None);
        let r = [
            Redaction::new("description", Kind::AwsAccessKeyId),
            Redaction::new("tags", Kind::GithubToken),
        ];
        assert_eq!(
            redaction_summary(&r).as_deref(),
            Some("redacted 2 secrets: aws-access-key-id, github-token")
        );
    }
}
