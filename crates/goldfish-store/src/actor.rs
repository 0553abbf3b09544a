//! Who saved a checkpoint: the client, model and session that asked for it, the person
//! behind them (OS user, git user and e-mail) and the machine it was saved on.
//!
//! The actor is observed by goldfish, never taken from what an agent writes: the binary fills
//! in the client (the MCP client's name and version, or its own environment), the model, the
//! session and the OS user; the store adds the git identity when it saves (see
//! [`Store::save_checkpoint`](crate::Store::save_checkpoint)). Field names follow Goldfish 8's
//! `actor` block (`harness`, `model`, `session`, `user`, `git_user`, `git_email`), so a
//! checkpoint imported from there keeps it as it was; `host` is goldfish's own addition,
//! which tells a memory saved on another machine (see [`crate::frame`]).

use serde::{Deserialize, Serialize};

/// The longest value an actor field keeps, in characters; longer values are cut.
pub const MAX_ACTOR_VALUE_CHARS: usize = 200;

/// Who saved a checkpoint. Every field is optional; an actor with none is empty.
///
/// In a day file each field is one ordinary bullet after the typed fields: `Harness`,
/// `Model`, `Session`, `User`, `Git user`, `Git email`, `Host`. A file written before `Host`
/// was recorded simply has no such bullet: its actor's `host` is `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Actor {
    /// The client (agent harness) that saved it, such as `claude-code 2.1.197`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<String>,
    /// The model, when the client says which.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The client's session id, when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The operating-system user that ran goldfish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// `git config user.name` where the checkpoint was saved from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_user: Option<String>,
    /// `git config user.email` where the checkpoint was saved from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_email: Option<String>,
    /// The name of the machine it was saved on (its host name), when goldfish saw it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

impl Actor {
    /// True when no field is set.
    pub fn is_empty(&self) -> bool {
        self.fields().iter().all(|(_, v)| v.is_none())
    }

    /// The fields as `(label, value)` in their day-file order, unset ones included; the
    /// labels are the day file's bullet keys (`Harness`, …, `Git email`).
    pub fn fields(&self) -> [(&'static str, Option<&str>); 7] {
        [
            (HARNESS, self.harness.as_deref()),
            (MODEL, self.model.as_deref()),
            (SESSION, self.session.as_deref()),
            (USER, self.user.as_deref()),
            (GIT_USER, self.git_user.as_deref()),
            (GIT_EMAIL, self.git_email.as_deref()),
            (HOST, self.host.as_deref()),
        ]
    }

    /// The set fields as one line, `harness=… model=… git_email=…` (Goldfish 8's form),
    /// or `None` when the actor is empty.
    pub fn summary(&self) -> Option<String> {
        let pairs: Vec<String> = self
            .fields()
            .iter()
            .zip(JSON_NAMES)
            .filter_map(|((_, v), name)| v.map(|v| format!("{name}={v}")))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join(" "))
    }

    /// [`fields`](Self::fields), to change: for the parser and the redaction step.
    pub(crate) fn fields_mut(&mut self) -> [(&'static str, &mut Option<String>); 7] {
        [
            (HARNESS, &mut self.harness),
            (MODEL, &mut self.model),
            (SESSION, &mut self.session),
            (USER, &mut self.user),
            (GIT_USER, &mut self.git_user),
            (GIT_EMAIL, &mut self.git_email),
            (HOST, &mut self.host),
        ]
    }

    /// The field a day-file bullet key names, for the parser.
    pub(crate) fn field_mut(&mut self, key: &str) -> Option<&mut Option<String>> {
        self.fields_mut()
            .into_iter()
            .find_map(|(label, field)| (label == key).then_some(field))
    }

    /// Fills every unset field of `self` from `other`.
    pub fn or(mut self, other: Actor) -> Actor {
        let fill = |a: &mut Option<String>, b: Option<String>| {
            if a.is_none() {
                *a = b;
            }
        };
        fill(&mut self.harness, other.harness);
        fill(&mut self.model, other.model);
        fill(&mut self.session, other.session);
        fill(&mut self.user, other.user);
        fill(&mut self.git_user, other.git_user);
        fill(&mut self.git_email, other.git_email);
        fill(&mut self.host, other.host);
        self
    }

    /// The actor as it is recorded: each value with control characters (line breaks, tabs,
    /// …) turned into one space, trimmed and cut to [`MAX_ACTOR_VALUE_CHARS`]; blank values
    /// dropped. Values come from clients and git configuration, which a repository controls:
    /// this keeps each one a single line of reasonable length.
    pub fn cleaned(self) -> Actor {
        Actor {
            harness: clean_value(self.harness),
            model: clean_value(self.model),
            session: clean_value(self.session),
            user: clean_value(self.user),
            git_user: clean_value(self.git_user),
            git_email: clean_value(self.git_email),
            host: clean_value(self.host),
        }
    }
}

/// One actor value as recorded (see [`Actor::cleaned`]).
fn clean_value(value: Option<String>) -> Option<String> {
    let value = value?;
    let mut out = String::with_capacity(value.len());
    let mut in_control = false;
    for c in value.chars() {
        if c.is_control() {
            if !in_control {
                out.push(' ');
            }
            in_control = true;
        } else {
            out.push(c);
            in_control = false;
        }
    }
    let cut: String = out.trim().chars().take(MAX_ACTOR_VALUE_CHARS).collect();
    let cut = cut.trim_end();
    (!cut.is_empty()).then(|| cut.to_string())
}

/// Day-file bullet keys of the actor's fields.
pub(crate) const HARNESS: &str = "Harness";
pub(crate) const MODEL: &str = "Model";
pub(crate) const SESSION: &str = "Session";
pub(crate) const USER: &str = "User";
pub(crate) const GIT_USER: &str = "Git user";
pub(crate) const GIT_EMAIL: &str = "Git email";
pub(crate) const HOST: &str = "Host";
/// Every actor bullet key, in day-file order.
pub(crate) const ACTOR_KEYS: [&str; 7] = [HARNESS, MODEL, SESSION, USER, GIT_USER, GIT_EMAIL, HOST];
/// The fields' names in JSON and in [`Actor::summary`], in the same order.
const JSON_NAMES: [&str; 7] = [
    "harness",
    "model",
    "session",
    "user",
    "git_user",
    "git_email",
    "host",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_collapses_controls_trims_and_cuts() {
        let a = Actor {
            harness: Some("  claude\r\n\tcode 2.1 ".into()),
            model: Some("\n\n".into()),
            session: Some("x".repeat(MAX_ACTOR_VALUE_CHARS + 10)),
            ..Actor::default()
        }
        .cleaned();
        assert_eq!(a.harness.as_deref(), Some("claude code 2.1"));
        assert_eq!(a.model, None);
        assert_eq!(
            a.session.map(|s| s.chars().count()),
            Some(MAX_ACTOR_VALUE_CHARS)
        );
    }

    #[test]
    fn or_fills_only_unset_fields_and_summary_names_them() {
        let first = Actor {
            harness: Some("env-harness".into()),
            ..Actor::default()
        };
        let second = Actor {
            harness: Some("mcp-client".into()),
            git_email: Some("a@b.c".into()),
            ..Actor::default()
        };
        let both = first.or(second);
        assert_eq!(
            both.summary().as_deref(),
            Some("harness=env-harness git_email=a@b.c")
        );
        assert!(Actor::default().is_empty());
        assert_eq!(Actor::default().summary(), None);
    }
}
