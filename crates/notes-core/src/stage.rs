//! The pipeline stage shared by GOBLIN_NOTES.md (`Stage:`) and the signal pipeline.

use std::fmt;
use std::str::FromStr;

/// A stage of the SCOPE → BUILD → REVIEW → TEST → DONE pipeline, or FAILED, or CANCELLED:
/// the `Stage:` of GOBLIN_NOTES.md and the stage of the signal pipeline are this one type.
///
/// Displayed, parsed and serialised as the upper-case word used in files (`BUILD`); parsing
/// ignores case and surrounding whitespace. The set is closed (not `non_exhaustive`): the
/// signal pipeline's transition table matches every stage.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "UPPERCASE")]
pub enum Stage {
    /// Working out what to build.
    Scope,
    /// Writing the code.
    Build,
    /// Reviewing the change.
    Review,
    /// Testing the change.
    Test,
    /// Finished successfully.
    Done,
    /// Gave up (for example after too many retries).
    Failed,
    /// Stopped on request. The signal pipeline never writes it to GOBLIN_NOTES.md (the notes
    /// keep the stage the pipeline was cancelled in), but a notes file saying it is read.
    Cancelled,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 7] = [
        Stage::Scope,
        Stage::Build,
        Stage::Review,
        Stage::Test,
        Stage::Done,
        Stage::Failed,
        Stage::Cancelled,
    ];

    /// The upper-case word used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Scope => "SCOPE",
            Stage::Build => "BUILD",
            Stage::Review => "REVIEW",
            Stage::Test => "TEST",
            Stage::Done => "DONE",
            Stage::Failed => "FAILED",
            Stage::Cancelled => "CANCELLED",
        }
    }

    /// True for DONE, FAILED and CANCELLED, after which nothing moves.
    pub fn is_terminal(self) -> bool {
        matches!(self, Stage::Done | Stage::Failed | Stage::Cancelled)
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A word that is not one of the stages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown stage {0:?}: expected one of SCOPE, BUILD, REVIEW, TEST, DONE, FAILED, CANCELLED")]
pub struct ParseStageError(pub String);

impl FromStr for Stage {
    type Err = ParseStageError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let word = s.trim();
        Stage::ALL
            .into_iter()
            .find(|st| st.as_str().eq_ignore_ascii_case(word))
            .ok_or_else(|| ParseStageError(word.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_honours_width_and_alignment() {
        assert_eq!(
            format!("{:<6}|{:>6}|", Stage::Build, Stage::Done),
            "BUILD |  DONE|"
        );
    }

    #[test]
    fn parse_and_display_round_trip() {
        for st in Stage::ALL {
            assert_eq!(st.as_str().parse::<Stage>().unwrap(), st);
            assert_eq!(st.to_string().to_lowercase().parse::<Stage>().unwrap(), st);
        }
        assert!(" build ".parse::<Stage>().is_ok());
        assert!(
            "SHIP"
                .parse::<Stage>()
                .unwrap_err()
                .to_string()
                .contains("SHIP")
        );
    }
}
