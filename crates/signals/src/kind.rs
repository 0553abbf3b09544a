//! The six signal kinds and their file names.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One of the six signal files an agent creates in `.goblin/` when its stage is complete.
///
/// Displayed, parsed and serialised as the file name (`build-complete`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SignalKind {
    /// `scope-complete`, made by the scoper: SCOPE → BUILD.
    ScopeComplete,
    /// `build-complete`, made by the builder: BUILD → REVIEW.
    BuildComplete,
    /// `review-approved`, made by the reviewer: REVIEW → TEST.
    ReviewApproved,
    /// `review-changes-requested`, made by the reviewer: REVIEW → BUILD (a retry).
    ReviewChangesRequested,
    /// `test-passed`, made by the tester: TEST → DONE.
    TestPassed,
    /// `test-failed`, made by the tester: TEST → REVIEW (a retry).
    TestFailed,
}

impl SignalKind {
    /// Every kind, in pipeline order (the protocol's `SIGNAL_FILES`).
    pub const ALL: [SignalKind; 6] = [
        SignalKind::ScopeComplete,
        SignalKind::BuildComplete,
        SignalKind::ReviewApproved,
        SignalKind::ReviewChangesRequested,
        SignalKind::TestPassed,
        SignalKind::TestFailed,
    ];

    /// The file name in `.goblin/`, which is also the kind's name everywhere else.
    pub fn file_name(self) -> &'static str {
        match self {
            SignalKind::ScopeComplete => "scope-complete",
            SignalKind::BuildComplete => "build-complete",
            SignalKind::ReviewApproved => "review-approved",
            SignalKind::ReviewChangesRequested => "review-changes-requested",
            SignalKind::TestPassed => "test-passed",
            SignalKind::TestFailed => "test-failed",
        }
    }

    /// The kind whose file is named `name`, if any.
    pub fn from_file_name(name: &str) -> Option<SignalKind> {
        SignalKind::ALL.into_iter().find(|k| k.file_name() == name)
    }

    /// The JSON Schema (draft 2020-12) of this kind's body, as shipped in
    /// `crates/signals/schemas/<kind>.schema.json`, for agents written in other languages.
    ///
    /// An empty file is also a valid signal; a JSON Schema cannot say so, so the schema
    /// describes only non-empty bodies.
    pub fn json_schema(self) -> &'static str {
        match self {
            SignalKind::ScopeComplete => include_str!("../schemas/scope-complete.schema.json"),
            SignalKind::BuildComplete => include_str!("../schemas/build-complete.schema.json"),
            SignalKind::ReviewApproved => include_str!("../schemas/review-approved.schema.json"),
            SignalKind::ReviewChangesRequested => {
                include_str!("../schemas/review-changes-requested.schema.json")
            }
            SignalKind::TestPassed => include_str!("../schemas/test-passed.schema.json"),
            SignalKind::TestFailed => include_str!("../schemas/test-failed.schema.json"),
        }
    }
}

impl fmt::Display for SignalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.file_name())
    }
}

/// A name that is not one of the six signal kinds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown signal {0:?}: expected one of scope-complete, build-complete, review-approved, \
     review-changes-requested, test-passed, test-failed"
)]
pub struct ParseSignalKindError(pub String);

impl FromStr for SignalKind {
    type Err = ParseSignalKindError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let word = s.trim();
        SignalKind::ALL
            .into_iter()
            .find(|k| k.file_name().eq_ignore_ascii_case(word))
            .ok_or_else(|| ParseSignalKindError(word.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_honours_width_and_alignment() {
        assert_eq!(
            format!("{:<16}|", SignalKind::TestPassed),
            "test-passed     |"
        );
    }

    #[test]
    fn names_round_trip() {
        for kind in SignalKind::ALL {
            assert_eq!(kind.file_name().parse::<SignalKind>().unwrap(), kind);
            assert_eq!(SignalKind::from_file_name(kind.file_name()), Some(kind));
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{kind}\""));
            assert_eq!(serde_json::from_str::<SignalKind>(&json).unwrap(), kind);
        }
        let cases = [
            ("build-complete", true),
            (" Test-Passed ", true),
            ("pipeline.json", false),
        ];
        for (input, ok) in cases {
            assert_eq!(input.parse::<SignalKind>().is_ok(), ok, "{input}");
        }
        assert_eq!(SignalKind::from_file_name("cancel"), None);
    }
}
