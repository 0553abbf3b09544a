//! Typed memories: what kind of moment a checkpoint records, and the structured fields that
//! go with it.
//!
//! A plain checkpoint says what was done. A *decision* also says what was chosen, why, and
//! what else was considered; an *incident* says what broke and what it cost; a *learning*
//! records something found out. [`MemoryType`] names the kind and [`Structured`] holds the
//! fields, every one optional, so any kind may carry any of them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::Error;

/// What kind of moment a checkpoint records.
///
/// Written in lowercase (`checkpoint`, `decision`, `incident`, `learning`) in files, on the
/// command line and in JSON.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryType {
    /// Progress: what was done (the default).
    #[default]
    Checkpoint,
    /// A choice between alternatives, with its reasons.
    Decision,
    /// Something broke: what happened, its impact and the evidence.
    Incident,
    /// Something found out that is worth remembering.
    Learning,
}

impl MemoryType {
    /// Every type, in the order they are listed to users.
    pub const ALL: [MemoryType; 4] = [
        MemoryType::Checkpoint,
        MemoryType::Decision,
        MemoryType::Incident,
        MemoryType::Learning,
    ];

    /// The type as written: `checkpoint`, `decision`, `incident` or `learning`.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryType::Checkpoint => "checkpoint",
            MemoryType::Decision => "decision",
            MemoryType::Incident => "incident",
            MemoryType::Learning => "learning",
        }
    }
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for MemoryType {
    type Err = Error;

    /// Parses a type name, ignoring case and surrounding spaces.
    fn from_str(s: &str) -> Result<Self, Error> {
        let wanted = s.trim().to_ascii_lowercase();
        MemoryType::ALL
            .into_iter()
            .find(|t| t.as_str() == wanted)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "unknown memory type {s:?}: use checkpoint, decision, incident or learning"
                ))
            })
    }
}

/// The lowest confidence a memory can state.
pub const MIN_CONFIDENCE: u8 = 1;
/// The highest confidence a memory can state.
pub const MAX_CONFIDENCE: u8 = 5;

/// Checks a confidence level: `Ok` for 1 to 5, otherwise an error that names the value and
/// the allowed range.
pub fn validate_confidence(value: i64) -> Result<u8, Error> {
    match u8::try_from(value) {
        Ok(v) if (MIN_CONFIDENCE..=MAX_CONFIDENCE).contains(&v) => Ok(v),
        _ => Err(Error::invalid(format!(
            "confidence {value} is out of range: use a whole number from {MIN_CONFIDENCE} \
             (a guess) to {MAX_CONFIDENCE} (certain)"
        ))),
    }
}

/// Parses a confidence level given as text (a command-line argument, a tool parameter):
/// a whole number from 1 to 5.
pub fn parse_confidence(text: &str) -> Result<u8, Error> {
    let value: i64 = text.trim().parse().map_err(|_| {
        Error::invalid(format!(
            "confidence {text:?} is not a whole number: use {MIN_CONFIDENCE} (a guess) to \
             {MAX_CONFIDENCE} (certain)"
        ))
    })?;
    validate_confidence(value)
}

/// The structured fields of a typed memory. Every field is optional; an empty list and
/// `None` both mean "not given".
///
/// Which fields suit which [`MemoryType`] is a convention, not a rule: a decision usually
/// has `decision` and `alternatives`, an incident `impact` and `evidence`, but any memory may
/// carry any field.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Structured {
    /// The situation: what was true before, what forced the question.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// What was decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// The options considered and not taken, one per item.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
    /// What this changes or costs: who is affected, how much.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impact: Option<String>,
    /// What supports it: log lines, measurements, links, one per item.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<String>,
    /// Code symbols concerned (`TokenStore::rotate`, `detect_reuse`), one per item.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<String>,
    /// What should happen next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    /// How sure the author is, from 1 (a guess) to 5 (certain). Deserializing refuses any
    /// other value; see [`validate_confidence`].
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "deserialize_confidence"
    )]
    pub confidence: Option<u8>,
    /// Open questions, one per item.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknowns: Vec<String>,
}

impl Structured {
    /// True when no field is given.
    pub fn is_empty(&self) -> bool {
        *self == Structured::default()
    }

    /// The given fields as `(label, text)` pairs in their day-file order (`Context`,
    /// `Decision`, `Alternatives`, `Impact`, `Evidence`, `Symbols`, `Next`, `Confidence`,
    /// `Unknowns`), lists joined with `"; "`.
    pub fn labelled(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        let scalar = |out: &mut Vec<_>, label, value: &Option<String>| {
            if let Some(v) = value {
                out.push((label, v.clone()));
            }
        };
        let list = |out: &mut Vec<_>, label, items: &Vec<String>| {
            if !items.is_empty() {
                out.push((label, items.join("; ")));
            }
        };
        scalar(&mut out, "Context", &self.context);
        scalar(&mut out, "Decision", &self.decision);
        list(&mut out, "Alternatives", &self.alternatives);
        scalar(&mut out, "Impact", &self.impact);
        list(&mut out, "Evidence", &self.evidence);
        list(&mut out, "Symbols", &self.symbols);
        scalar(&mut out, "Next", &self.next);
        if let Some(c) = self.confidence {
            out.push(("Confidence", c.to_string()));
        }
        list(&mut out, "Unknowns", &self.unknowns);
        out
    }

    /// Checks the fields that have a range: `confidence` must be 1 to 5.
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(c) = self.confidence {
            validate_confidence(i64::from(c))?;
        }
        Ok(())
    }
}

fn deserialize_confidence<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u8>, D::Error> {
    match Option::<i64>::deserialize(d)? {
        None => Ok(None),
        Some(v) => validate_confidence(v)
            .map(Some)
            .map_err(|e| serde::de::Error::custom(e.message())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_honours_width_and_alignment() {
        assert_eq!(format!("{:<10}|", MemoryType::Decision), "decision  |");
    }

    #[test]
    fn memory_type_parses_and_prints() {
        for t in MemoryType::ALL {
            assert_eq!(t.as_str().parse::<MemoryType>().ok(), Some(t));
            assert_eq!(t.to_string(), t.as_str());
            let json = serde_json::to_string(&t).expect("serialize");
            assert_eq!(json, format!("\"{t}\""));
            assert_eq!(serde_json::from_str::<MemoryType>(&json).ok(), Some(t));
        }
        assert_eq!(
            " Decision ".parse::<MemoryType>().ok(),
            Some(MemoryType::Decision)
        );
    }

    #[test]
    fn unknown_type_names_the_value_and_the_choices() {
        let err = "bogus".parse::<MemoryType>().expect_err("bogus is no type");
        assert!(err.is_invalid_input());
        let msg = err.to_string();
        for want in [
            "\"bogus\"",
            "checkpoint",
            "decision",
            "incident",
            "learning",
        ] {
            assert!(msg.contains(want), "{msg}");
        }
    }

    #[test]
    fn confidence_range() {
        let cases: [(i64, bool); 7] = [
            (0, false),
            (1, true),
            (3, true),
            (5, true),
            (6, false),
            (7, false),
            (-1, false),
        ];
        for (value, ok) in cases {
            let got = validate_confidence(value);
            assert_eq!(got.is_ok(), ok, "{value}: {got:?}");
            if let Err(e) = got {
                assert!(e.to_string().contains(&value.to_string()), "{e}");
                assert!(
                    e.to_string().contains("1") && e.to_string().contains("5"),
                    "{e}"
                );
            }
        }
        assert_eq!(parse_confidence(" 4 ").ok(), Some(4));
        let err = parse_confidence("4.6").expect_err("not whole");
        assert!(err.to_string().contains("\"4.6\""), "{err}");
        assert!(parse_confidence("7").is_err());
    }

    #[test]
    fn structured_serde_skips_empty_fields_and_validates_confidence() {
        assert!(Structured::default().is_empty());
        assert_eq!(
            serde_json::to_string(&Structured::default()).expect("serialize"),
            "{}"
        );
        let s = Structured {
            decision: Some("Use build-time tokens".into()),
            alternatives: vec!["CSS-in-JS".into(), "Sass".into()],
            confidence: Some(3),
            ..Structured::default()
        };
        assert!(!s.is_empty());
        assert!(s.validate().is_ok());
        let json = serde_json::to_string(&s).expect("serialize");
        assert_eq!(
            json,
            r#"{"decision":"Use build-time tokens","alternatives":["CSS-in-JS","Sass"],"confidence":3}"#
        );
        assert_eq!(serde_json::from_str::<Structured>(&json).ok(), Some(s));

        let err = serde_json::from_str::<Structured>(r#"{"confidence":7}"#).expect_err("7");
        assert!(err.to_string().contains("confidence 7"), "{err}");
        let bad = Structured {
            confidence: Some(9),
            ..Structured::default()
        };
        assert!(bad.validate().is_err());
    }
}
