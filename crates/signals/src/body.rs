//! The typed bodies of the six signals (pure: text in, values out, text back).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Error, ErrorKind, SignalKind};

/// `completed_at` on the wire: RFC 3339, read with any offset and kept in UTC, written with `Z`
/// and only as many fractional digits as it has (`2024-01-15T10:30:00Z`), so the original
/// examples round-trip unchanged.
mod utc_opt {
    use chrono::{DateTime, SecondsFormat, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(
        t: &Option<DateTime<Utc>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&t.to_rfc3339_opts(SecondsFormat::AutoSi, true)),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<DateTime<Utc>>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        text.map(|t| {
            goldfish_core::time::parse_utc(&t).map_err(|_| {
                serde::de::Error::custom(format!(
                    "completed_at {t:?} is not an RFC 3339 timestamp such as \
                     2024-01-15T10:30:00Z"
                ))
            })
        })
        .transpose()
    }
}

/// Body of `scope-complete` (made by the scoper; SCOPE → BUILD).
///
/// Every field is optional (an agent may write `{}` or nothing at all); fields this version
/// does not know are kept in [`extra`](ScopeComplete::extra) and written back.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ScopeComplete {
    /// When the stage finished (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "utc_opt")]
    pub completed_at: Option<DateTime<Utc>>,
    /// A hash of the scoping result, so later stages can tell which scope they work from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope_result_hash: Option<String>,
    /// Fields this version does not know, kept for forward compatibility.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Body of `build-complete` (made by the builder; BUILD → REVIEW).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BuildComplete {
    /// When the stage finished (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "utc_opt")]
    pub completed_at: Option<DateTime<Utc>>,
    /// Number of commits made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commits: Option<u64>,
    /// Number of files changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_changed: Option<u64>,
    /// Lines added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_added: Option<u64>,
    /// Lines removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_removed: Option<u64>,
    /// Fields this version does not know, kept for forward compatibility.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Body of `review-approved` (made by the reviewer; REVIEW → TEST).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReviewApproved {
    /// When the stage finished (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "utc_opt")]
    pub completed_at: Option<DateTime<Utc>>,
    /// Critical issues found (normally 0 for an approval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_issues: Option<u64>,
    /// Informational issues found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub informational_issues: Option<u64>,
    /// Issues the reviewer fixed itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_fixes: Option<u64>,
    /// Fields this version does not know, kept for forward compatibility.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Body of `review-changes-requested` (made by the reviewer; REVIEW → BUILD, a retry).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReviewChangesRequested {
    /// When the stage finished (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "utc_opt")]
    pub completed_at: Option<DateTime<Utc>>,
    /// The issues the builder must address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issues: Option<Vec<ReviewIssue>>,
    /// One line for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Fields this version does not know, kept for forward compatibility.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One issue of [`ReviewChangesRequested::issues`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReviewIssue {
    /// The JSON field `type`: how serious it is, such as `critical` or `informational`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub issue_type: Option<String>,
    /// What kind of problem, such as `sql_injection`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The file it is in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The 1-based line it is at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// Whether the reviewer already fixed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed: Option<bool>,
    /// What is wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fields this version does not know, kept for forward compatibility.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Body of `test-passed` (made by the tester; TEST → DONE).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TestPassed {
    /// When the stage finished (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "utc_opt")]
    pub completed_at: Option<DateTime<Utc>>,
    /// QA steps run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qa_steps_total: Option<u64>,
    /// QA steps that passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qa_steps_passed: Option<u64>,
    /// Bugs found while testing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bugs_found: Option<u64>,
    /// Bugs fixed while testing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bugs_fixed: Option<u64>,
    /// Screenshot file names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshots: Option<Vec<String>>,
    /// Fields this version does not know, kept for forward compatibility.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Body of `test-failed` (made by the tester; TEST → REVIEW, a retry).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TestFailed {
    /// When the stage finished (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "utc_opt")]
    pub completed_at: Option<DateTime<Utc>>,
    /// Ids of the QA steps that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing_steps: Option<Vec<String>>,
    /// Why, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How many attempts were made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u64>,
    /// Screenshot file names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshots: Option<Vec<String>>,
    /// Fields this version does not know, kept for forward compatibility.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The typed body of a signal: one variant per [`SignalKind`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SignalBody {
    /// `scope-complete`.
    ScopeComplete(ScopeComplete),
    /// `build-complete`.
    BuildComplete(BuildComplete),
    /// `review-approved`.
    ReviewApproved(ReviewApproved),
    /// `review-changes-requested`.
    ReviewChangesRequested(ReviewChangesRequested),
    /// `test-passed`.
    TestPassed(TestPassed),
    /// `test-failed`.
    TestFailed(TestFailed),
}

impl SignalBody {
    /// The kind this body belongs to.
    pub fn kind(&self) -> SignalKind {
        match self {
            SignalBody::ScopeComplete(_) => SignalKind::ScopeComplete,
            SignalBody::BuildComplete(_) => SignalKind::BuildComplete,
            SignalBody::ReviewApproved(_) => SignalKind::ReviewApproved,
            SignalBody::ReviewChangesRequested(_) => SignalKind::ReviewChangesRequested,
            SignalBody::TestPassed(_) => SignalKind::TestPassed,
            SignalBody::TestFailed(_) => SignalKind::TestFailed,
        }
    }

    /// When the stage finished, if the agent said so.
    pub fn completed_at(&self) -> Option<DateTime<Utc>> {
        match self {
            SignalBody::ScopeComplete(b) => b.completed_at,
            SignalBody::BuildComplete(b) => b.completed_at,
            SignalBody::ReviewApproved(b) => b.completed_at,
            SignalBody::ReviewChangesRequested(b) => b.completed_at,
            SignalBody::TestPassed(b) => b.completed_at,
            SignalBody::TestFailed(b) => b.completed_at,
        }
    }

    fn completed_at_mut(&mut self) -> &mut Option<DateTime<Utc>> {
        match self {
            SignalBody::ScopeComplete(b) => &mut b.completed_at,
            SignalBody::BuildComplete(b) => &mut b.completed_at,
            SignalBody::ReviewApproved(b) => &mut b.completed_at,
            SignalBody::ReviewChangesRequested(b) => &mut b.completed_at,
            SignalBody::TestPassed(b) => &mut b.completed_at,
            SignalBody::TestFailed(b) => &mut b.completed_at,
        }
    }

    /// The body as pretty-printed JSON, fields in declaration order (then unknown ones).
    fn to_pretty(&self) -> String {
        let text = match self {
            SignalBody::ScopeComplete(b) => serde_json::to_string_pretty(b),
            SignalBody::BuildComplete(b) => serde_json::to_string_pretty(b),
            SignalBody::ReviewApproved(b) => serde_json::to_string_pretty(b),
            SignalBody::ReviewChangesRequested(b) => serde_json::to_string_pretty(b),
            SignalBody::TestPassed(b) => serde_json::to_string_pretty(b),
            SignalBody::TestFailed(b) => serde_json::to_string_pretty(b),
        };
        // Plain structs of strings, numbers, bools and a string-keyed map always serialise.
        text.expect("signal bodies always serialise to JSON")
    }

    /// The body as a JSON value (an object).
    pub fn to_value(&self) -> Value {
        let value = match self {
            SignalBody::ScopeComplete(b) => serde_json::to_value(b),
            SignalBody::BuildComplete(b) => serde_json::to_value(b),
            SignalBody::ReviewApproved(b) => serde_json::to_value(b),
            SignalBody::ReviewChangesRequested(b) => serde_json::to_value(b),
            SignalBody::TestPassed(b) => serde_json::to_value(b),
            SignalBody::TestFailed(b) => serde_json::to_value(b),
        };
        // Plain structs of strings, numbers, bools and a string-keyed map always serialise.
        value.expect("signal bodies always serialise to JSON")
    }

    fn from_json_str(kind: SignalKind, text: &str) -> Result<SignalBody, serde_json::Error> {
        Ok(match kind {
            SignalKind::ScopeComplete => SignalBody::ScopeComplete(serde_json::from_str(text)?),
            SignalKind::BuildComplete => SignalBody::BuildComplete(serde_json::from_str(text)?),
            SignalKind::ReviewApproved => SignalBody::ReviewApproved(serde_json::from_str(text)?),
            SignalKind::ReviewChangesRequested => {
                SignalBody::ReviewChangesRequested(serde_json::from_str(text)?)
            }
            SignalKind::TestPassed => SignalBody::TestPassed(serde_json::from_str(text)?),
            SignalKind::TestFailed => SignalBody::TestFailed(serde_json::from_str(text)?),
        })
    }

    fn from_value(kind: SignalKind, value: Value) -> Result<SignalBody, serde_json::Error> {
        Ok(match kind {
            SignalKind::ScopeComplete => SignalBody::ScopeComplete(serde_json::from_value(value)?),
            SignalKind::BuildComplete => SignalBody::BuildComplete(serde_json::from_value(value)?),
            SignalKind::ReviewApproved => {
                SignalBody::ReviewApproved(serde_json::from_value(value)?)
            }
            SignalKind::ReviewChangesRequested => {
                SignalBody::ReviewChangesRequested(serde_json::from_value(value)?)
            }
            SignalKind::TestPassed => SignalBody::TestPassed(serde_json::from_value(value)?),
            SignalKind::TestFailed => SignalBody::TestFailed(serde_json::from_value(value)?),
        })
    }
}

macro_rules! body_from {
    ($($ty:ident),*) => {$(
        impl From<$ty> for SignalBody {
            fn from(body: $ty) -> Self {
                SignalBody::$ty(body)
            }
        }
        impl From<$ty> for Signal {
            fn from(body: $ty) -> Self {
                Signal::new(SignalBody::$ty(body))
            }
        }
    )*};
}
body_from!(
    ScopeComplete,
    BuildComplete,
    ReviewApproved,
    ReviewChangesRequested,
    TestPassed,
    TestFailed
);

/// A signal: its kind and, unless the file was empty, its typed body.
///
/// [`Signal::parse`] and [`Signal::to_json`] are the pure text layer that
/// [`SignalDir`](crate::SignalDir) puts on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct Signal {
    kind: SignalKind,
    body: Option<SignalBody>,
}

impl Signal {
    /// A signal with a body.
    pub fn new(body: impl Into<SignalBody>) -> Signal {
        let body = body.into();
        Signal {
            kind: body.kind(),
            body: Some(body),
        }
    }

    /// A signal with no body, as `touch .goblin/<kind>` makes.
    pub fn empty(kind: SignalKind) -> Signal {
        Signal { kind, body: None }
    }

    /// Which signal this is.
    pub fn kind(&self) -> SignalKind {
        self.kind
    }

    /// The body, or `None` for an empty signal.
    pub fn body(&self) -> Option<&SignalBody> {
        self.body.as_ref()
    }

    /// When the stage finished, if the body says so.
    pub fn completed_at(&self) -> Option<DateTime<Utc>> {
        self.body.as_ref().and_then(SignalBody::completed_at)
    }

    /// Sets the body's `completed_at` to `at` when it has none. A signal with no body stays
    /// empty (an empty file is the `touch` form of a signal and carries no fields).
    ///
    /// [`SignalDir::emit_stamped`](crate::SignalDir::emit_stamped) does this with the
    /// directory's clock.
    pub fn stamp_completed_at(&mut self, at: DateTime<Utc>) {
        if let Some(body) = &mut self.body {
            body.completed_at_mut().get_or_insert(at);
        }
    }

    /// Parses the contents of a signal file of `kind`.
    ///
    /// Text that is empty or only whitespace (what `touch` or `echo >` make) is a valid signal
    /// with no body. Otherwise it must be one JSON object with the kind's fields; unknown
    /// fields are kept. A leading byte-order mark is ignored.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidSignal`] with the line and column of the problem, for text that is
    /// not JSON (such as half a document), not an object, or has a field of the wrong type
    /// (such as a negative count or a `completed_at` that is not RFC 3339).
    pub fn parse(kind: SignalKind, text: &str) -> Result<Signal, Error> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.trim().is_empty() {
            return Ok(Signal::empty(kind));
        }
        SignalBody::from_json_str(kind, text)
            .map(|body| Signal {
                kind,
                body: Some(body),
            })
            .map_err(|e| Error::from_json(ErrorKind::InvalidSignal { kind }, &e))
    }

    /// Builds a signal of `kind` from a JSON value (`None` or JSON `null` for no body).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidSignal`] when the value is not a valid body for `kind`.
    pub fn from_value(kind: SignalKind, value: Option<Value>) -> Result<Signal, Error> {
        match value {
            None | Some(Value::Null) => Ok(Signal::empty(kind)),
            Some(v) => SignalBody::from_value(kind, v)
                .map(|body| Signal {
                    kind,
                    body: Some(body),
                })
                .map_err(|e| Error::from_json(ErrorKind::InvalidSignal { kind }, &e)),
        }
    }

    /// The body as a JSON value, or `None` for an empty signal.
    pub fn to_value(&self) -> Option<Value> {
        self.body.as_ref().map(SignalBody::to_value)
    }

    /// The file contents for this signal: pretty-printed JSON with a final newline (the known
    /// fields in the protocol's order, then unknown ones by name), or the empty string for a
    /// signal with no body.
    pub fn to_json(&self) -> String {
        match &self.body {
            None => String::new(),
            Some(body) => {
                let mut text = body.to_pretty();
                text.push('\n');
                text
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_table() {
        use SignalKind::*;
        // (kind, text, parses, has body)
        let cases: &[(SignalKind, &str, bool, bool)] = &[
            (BuildComplete, "", true, false),
            (BuildComplete, " \n\t", true, false),
            (BuildComplete, "\u{feff}", true, false),
            (BuildComplete, "{}", true, true),
            (BuildComplete, "{\"commits\": 5}\n", true, true),
            (BuildComplete, "{\"commits\":", false, false),
            (BuildComplete, "{\"commits\": -1}", false, false),
            (BuildComplete, "{\"commits\": 5} x", false, false),
            (BuildComplete, "[1]", false, false),
            (BuildComplete, "null", false, false),
            (
                ScopeComplete,
                "{\"completed_at\": \"yesterday\"}",
                false,
                false,
            ),
            (
                ScopeComplete,
                "{\"completed_at\": \"2024-01-15T12:30:00+02:00\"}",
                true,
                true,
            ),
            (
                ReviewChangesRequested,
                "{\"issues\": [{\"type\": \"critical\"}]}",
                true,
                true,
            ),
            (ReviewChangesRequested, "{\"issues\": {}}", false, false),
            (
                TestFailed,
                "{\"failing_steps\": [\"QA-2\"], \"new\": {\"x\": 1}}",
                true,
                true,
            ),
            // Found by the fuzzer: a float in an unknown field must survive a round trip.
            (BuildComplete, "{\"ci\": 222222222022222222225}", true, true),
            (
                BuildComplete,
                "{\"ci\": [1.7976931348623157e308, -0.0, 5e-324]}",
                true,
                true,
            ),
        ];
        for &(kind, text, parses, has_body) in cases {
            let got = Signal::parse(kind, text);
            assert_eq!(got.is_ok(), parses, "{kind} {text:?}: {got:?}");
            if let Ok(signal) = got {
                assert_eq!(signal.kind(), kind);
                assert_eq!(signal.body().is_some(), has_body, "{text:?}");
                let again = Signal::parse(kind, &signal.to_json()).unwrap();
                assert_eq!(again, signal, "round trip of {text:?}");
            }
        }
    }

    #[test]
    fn errors_carry_position() {
        let err = Signal::parse(SignalKind::BuildComplete, "{\n  \"commits\":").unwrap_err();
        assert!(err.is_invalid_signal());
        assert_eq!(err.line(), Some(2));
        assert!(err.column().is_some());
    }

    #[test]
    fn offsets_become_utc_and_unknown_fields_stay() {
        let s = Signal::parse(
            SignalKind::ScopeComplete,
            r#"{"completed_at": "2024-01-15T12:30:00+02:00", "zzz": [1, 2]}"#,
        )
        .unwrap();
        assert_eq!(
            s.to_json(),
            "{\n  \"completed_at\": \"2024-01-15T10:30:00Z\",\n  \"zzz\": [\n    1,\n    2\n  ]\n}\n"
        );
    }
}
