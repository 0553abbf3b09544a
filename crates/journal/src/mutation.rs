//! The eight mutation codes of the protocol.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, ErrorKind};

/// A mutation strategy, declared after three failures of one approach
/// (`## MUTATION: M5 (Reduce Scope)`).
///
/// [`Display`](fmt::Display) writes `M5 (Reduce Scope)`; [`FromStr`] accepts the code (`M5`,
/// `m5`, `5`), the name in any case with spaces, `-` or `_` (`Reduce Scope`, `reduce-scope`),
/// or both (`M5 (Reduce Scope)`). Serialised as the bare code, `"M5"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MutationCode {
    /// M1: fall back to a simpler, known-good way.
    Fallback,
    /// M2: try the extreme opposite of what failed.
    Extreme,
    /// M3: hardcode the value to get past the blocker, generalise later.
    Hardcode,
    /// M4: switch tool, library or technique.
    Switch,
    /// M5: reduce the scope to something verifiable in isolation.
    ReduceScope,
    /// M6: invert the problem (work backwards, from the other side).
    Invert,
    /// M7: ask a person or another agent.
    Ask,
    /// M8: stop and read (docs, source, the journal) before trying again.
    Read,
}

impl MutationCode {
    /// All codes, M1 to M8.
    pub const ALL: [MutationCode; 8] = [
        MutationCode::Fallback,
        MutationCode::Extreme,
        MutationCode::Hardcode,
        MutationCode::Switch,
        MutationCode::ReduceScope,
        MutationCode::Invert,
        MutationCode::Ask,
        MutationCode::Read,
    ];

    /// The code: `M1` … `M8`.
    pub fn code(self) -> &'static str {
        match self {
            MutationCode::Fallback => "M1",
            MutationCode::Extreme => "M2",
            MutationCode::Hardcode => "M3",
            MutationCode::Switch => "M4",
            MutationCode::ReduceScope => "M5",
            MutationCode::Invert => "M6",
            MutationCode::Ask => "M7",
            MutationCode::Read => "M8",
        }
    }

    /// The name: `Fallback`, `Extreme`, `Hardcode`, `Switch`, `Reduce Scope`, `Invert`, `Ask`,
    /// `Read`.
    pub fn name(self) -> &'static str {
        match self {
            MutationCode::Fallback => "Fallback",
            MutationCode::Extreme => "Extreme",
            MutationCode::Hardcode => "Hardcode",
            MutationCode::Switch => "Switch",
            MutationCode::ReduceScope => "Reduce Scope",
            MutationCode::Invert => "Invert",
            MutationCode::Ask => "Ask",
            MutationCode::Read => "Read",
        }
    }

    /// Parses only a code token: `M5`, `m5` or `5`.
    pub(crate) fn from_code(s: &str) -> Option<MutationCode> {
        let digits = s.strip_prefix(['M', 'm']).unwrap_or(s);
        match digits {
            "1" => Some(MutationCode::Fallback),
            "2" => Some(MutationCode::Extreme),
            "3" => Some(MutationCode::Hardcode),
            "4" => Some(MutationCode::Switch),
            "5" => Some(MutationCode::ReduceScope),
            "6" => Some(MutationCode::Invert),
            "7" => Some(MutationCode::Ask),
            "8" => Some(MutationCode::Read),
            _ => None,
        }
    }

    /// Parses only a name, ignoring case, spaces, `-` and `_`.
    fn from_name(s: &str) -> Option<MutationCode> {
        let squash = |s: &str| {
            s.chars()
                .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
                .flat_map(char::to_lowercase)
                .collect::<String>()
        };
        let wanted = squash(s);
        MutationCode::ALL
            .into_iter()
            .find(|c| squash(c.name()) == wanted)
    }
}

impl fmt::Display for MutationCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.code(), self.name())
    }
}

impl FromStr for MutationCode {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if let Some(code) = MutationCode::from_code(s).or_else(|| MutationCode::from_name(s)) {
            return Ok(code);
        }
        // `M5 (Reduce Scope)`: the code decides; the name must not contradict it.
        if let Some((code, rest)) = s.split_once('(') {
            let name = rest.trim_end().strip_suffix(')').unwrap_or(rest);
            if let Some(c) = MutationCode::from_code(code.trim())
                && MutationCode::from_name(name) == Some(c)
            {
                return Ok(c);
            }
        }
        let codes = MutationCode::ALL
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        Err(Error::invalid(format!(
            "unknown mutation code {s:?}: use one of {codes}"
        )))
    }
}

impl serde::Serialize for MutationCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

impl<'de> serde::Deserialize<'de> for MutationCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl Error {
    /// The refusal of a fourth try of an approach that failed three times in a row: it names
    /// every mutation code, so it lives beside them (the error type knows none of them).
    pub(crate) fn mutation_required(approach: &str, failures: u32, line: usize) -> Self {
        let codes = MutationCode::ALL
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        Error::new(
            ErrorKind::MutationRequired,
            format!(
                "approach {approach:?} failed {failures} times in a row (last failure at line \
                 {line}); declare a mutation before trying it again, with one of the codes {codes}"
            ),
        )
        .with_approach(approach)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_codes_names_and_both() {
        let cases = [
            ("M1", Some(MutationCode::Fallback)),
            ("m2", Some(MutationCode::Extreme)),
            ("3", Some(MutationCode::Hardcode)),
            ("Switch", Some(MutationCode::Switch)),
            ("reduce-scope", Some(MutationCode::ReduceScope)),
            ("Reduce Scope", Some(MutationCode::ReduceScope)),
            ("M5 (Reduce Scope)", Some(MutationCode::ReduceScope)),
            (" invert ", Some(MutationCode::Invert)),
            ("M7 (Ask)", Some(MutationCode::Ask)),
            ("READ", Some(MutationCode::Read)),
            ("M9", None),
            ("M5 (Ask)", None),
            ("", None),
            ("M", None),
        ];
        for (input, want) in cases {
            assert_eq!(input.parse::<MutationCode>().ok(), want, "{input:?}");
        }
        let err = "M9".parse::<MutationCode>().unwrap_err();
        assert!(err.is_invalid_input());
        assert!(err.to_string().contains("M8 (Read)"), "{err}");
    }

    #[test]
    fn display_round_trips_and_serialises_as_code() {
        for code in MutationCode::ALL {
            assert_eq!(code.to_string().parse::<MutationCode>().unwrap(), code);
            assert_eq!(code.code().parse::<MutationCode>().unwrap(), code);
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.code()));
            assert_eq!(serde_json::from_str::<MutationCode>(&json).unwrap(), code);
        }
        assert_eq!(MutationCode::ReduceScope.to_string(), "M5 (Reduce Scope)");
    }
}
