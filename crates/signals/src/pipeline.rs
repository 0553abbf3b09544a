//! The pure pipeline state machine: stages, the transition table, retries and history.

use chrono::{DateTime, Utc};
use notes_core::Stage;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Error, ErrorKind, Signal, SignalKind};

/// The signals that end `stage` (empty for the terminal stages).
pub fn expected_signals(stage: Stage) -> &'static [SignalKind] {
    match stage {
        Stage::Scope => &[SignalKind::ScopeComplete],
        Stage::Build => &[SignalKind::BuildComplete],
        Stage::Review => &[
            SignalKind::ReviewApproved,
            SignalKind::ReviewChangesRequested,
        ],
        Stage::Test => &[SignalKind::TestPassed, SignalKind::TestFailed],
        Stage::Done | Stage::Failed | Stage::Cancelled => &[],
    }
}

/// The transition table: where `signal` leads from `stage`, and whether that is a return to
/// an earlier stage (a retry). `None` when the signal does not fit the stage.
///
/// | stage  | signal                     | next   | retry |
/// |--------|----------------------------|--------|-------|
/// | SCOPE  | `scope-complete`           | BUILD  | no    |
/// | BUILD  | `build-complete`           | REVIEW | no    |
/// | REVIEW | `review-approved`          | TEST   | no    |
/// | REVIEW | `review-changes-requested` | BUILD  | yes   |
/// | TEST   | `test-passed`              | DONE   | no    |
/// | TEST   | `test-failed`              | REVIEW | yes   |
pub fn next_stage(stage: Stage, signal: SignalKind) -> Option<(Stage, bool)> {
    use SignalKind as K;
    use Stage as P;
    match (stage, signal) {
        (P::Scope, K::ScopeComplete) => Some((P::Build, false)),
        (P::Build, K::BuildComplete) => Some((P::Review, false)),
        (P::Review, K::ReviewApproved) => Some((P::Test, false)),
        (P::Review, K::ReviewChangesRequested) => Some((P::Build, true)),
        (P::Test, K::TestPassed) => Some((P::Done, false)),
        (P::Test, K::TestFailed) => Some((P::Review, true)),
        _ => None,
    }
}

/// The default limit on returns to an earlier stage (3, as the protocol has always had).
pub const DEFAULT_MAX_RETRIES: u32 = 3;

/// One step of the pipeline's history.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Transition {
    /// The stage left.
    pub from: Stage,
    /// The stage entered.
    pub to: Stage,
    /// The signal that caused it, with its body; `None` for a cancel.
    pub signal: Option<Signal>,
    /// When it happened (UTC).
    pub at: DateTime<Utc>,
    /// True when the signal was a return to an earlier stage (also when that return was one
    /// too many and led to FAILED).
    pub retry: bool,
    /// The retry count after this transition.
    pub retries: u32,
    /// Why the pipeline ended, on a transition into a terminal stage.
    pub reason: Option<String>,
}

/// `Transition` as stored in `pipeline.json`: the signal's kind and body as separate fields.
#[derive(Serialize, Deserialize)]
struct TransitionRecord {
    from: Stage,
    to: Stage,
    signal: Option<SignalKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<Value>,
    #[serde(with = "utc_millis")]
    at: DateTime<Utc>,
    #[serde(default)]
    retry: bool,
    retries: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

impl Serialize for Transition {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        TransitionRecord {
            from: self.from,
            to: self.to,
            signal: self.signal.as_ref().map(Signal::kind),
            body: self.signal.as_ref().and_then(Signal::to_value),
            at: self.at,
            retry: self.retry,
            retries: self.retries,
            reason: self.reason.clone(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Transition {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = TransitionRecord::deserialize(d)?;
        let signal = match r.signal {
            None => None,
            Some(kind) => Some(Signal::from_value(kind, r.body).map_err(serde::de::Error::custom)?),
        };
        Ok(Transition {
            from: r.from,
            to: r.to,
            signal,
            at: r.at,
            retry: r.retry,
            retries: r.retries,
            reason: r.reason,
        })
    }
}

/// Timestamps in `pipeline.json`: [`goldfish_core::time::format_utc`] (milliseconds and `Z`).
mod utc_millis {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&goldfish_core::time::format_utc(t))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let text = String::deserialize(d)?;
        goldfish_core::time::parse_utc(&text).map_err(serde::de::Error::custom)
    }
}

/// The version of `pipeline.json` this crate writes.
const STATE_VERSION: u32 = 1;

/// `Pipeline` as stored in `pipeline.json`.
#[derive(Serialize, Deserialize)]
struct PipelineRecord {
    version: u32,
    stage: Stage,
    retries: u32,
    max_retries: u32,
    #[serde(with = "utc_millis")]
    started_at: DateTime<Utc>,
    #[serde(with = "utc_millis")]
    updated_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(default)]
    history: Vec<Transition>,
}

/// The pipeline state machine: pure, no I/O.
///
/// Starts at SCOPE. [`apply`](Pipeline::apply) moves it along the table of [`next_stage`];
/// every return to an earlier stage counts as a retry, and the return that would make the
/// count exceed [`max_retries`](Pipeline::max_retries) ends the pipeline as FAILED instead
/// (with the default 3, a REVIEW ↔ BUILD loop fails at the 4th return). A signal that does
/// not fit is an error value and changes nothing. Every transition is kept in
/// [`history`](Pipeline::history).
///
/// # Example
///
/// ```
/// use goldfish_signals::{Pipeline, Stage, Signal, SignalKind};
///
/// # fn main() -> Result<(), goldfish_signals::Error> {
/// let now = chrono::Utc::now();
/// let mut p = Pipeline::new(3, now);
/// p.apply(Signal::empty(SignalKind::ScopeComplete), now)?;
/// assert_eq!(p.stage(), Stage::Build);
/// assert!(p.apply(Signal::empty(SignalKind::TestPassed), now).is_err());
/// assert_eq!(p.stage(), Stage::Build, "a signal that does not fit changes nothing");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    stage: Stage,
    retries: u32,
    max_retries: u32,
    started_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    reason: Option<String>,
    history: Vec<Transition>,
}

/// A pipeline serialises as `pipeline.json` holds it: `version`, `stage`, `retries`,
/// `max_retries`, `started_at`, `updated_at`, `reason` (when ended with one) and `history`,
/// timestamps in RFC 3339 UTC with milliseconds. `goldfish pipeline … --json` prints this.
impl Serialize for Pipeline {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.record().serialize(s)
    }
}

impl Pipeline {
    /// A pipeline at SCOPE with no retries, started at `at`.
    pub fn new(max_retries: u32, at: DateTime<Utc>) -> Pipeline {
        Pipeline {
            stage: Stage::Scope,
            retries: 0,
            max_retries,
            started_at: at,
            updated_at: at,
            reason: None,
            history: Vec::new(),
        }
    }

    /// The current stage.
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// Returns to an earlier stage so far.
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// The most returns allowed; one more fails the pipeline.
    pub fn max_retries(&self) -> u32 {
        self.max_retries
    }

    /// When the pipeline started.
    pub fn started_at(&self) -> DateTime<Utc> {
        self.started_at
    }

    /// When the pipeline last changed.
    pub fn updated_at(&self) -> DateTime<Utc> {
        self.updated_at
    }

    /// Why the pipeline ended (DONE, FAILED or CANCELLED); `None` while it runs.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// Every transition so far, oldest first.
    pub fn history(&self) -> &[Transition] {
        &self.history
    }

    /// True once the pipeline is DONE, FAILED or CANCELLED.
    pub fn is_terminal(&self) -> bool {
        self.stage.is_terminal()
    }

    /// Where `signal` would lead from the current stage, without changing anything.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Finished`] when the pipeline has ended, [`ErrorKind::UnexpectedSignal`]
    /// when the signal does not fit the current stage.
    pub fn check(&self, signal: SignalKind) -> Result<Stage, Error> {
        self.plan(signal).map(|(to, _, _)| to)
    }

    /// (next stage, retry?, reason) for `signal`, or the error.
    fn plan(&self, signal: SignalKind) -> Result<(Stage, bool, Option<String>), Error> {
        if self.stage.is_terminal() {
            return Err(Error::new(ErrorKind::Finished { stage: self.stage }, ""));
        }
        let Some((to, retry)) = next_stage(self.stage, signal) else {
            let expected: Vec<&str> = expected_signals(self.stage)
                .iter()
                .map(|k| k.file_name())
                .collect();
            return Err(Error::new(
                ErrorKind::UnexpectedSignal {
                    stage: self.stage,
                    signal,
                },
                format!("{} expects {}", self.stage, expected.join(" or ")),
            ));
        };
        if retry && self.retries >= self.max_retries {
            let reason = format!(
                "retry limit reached: {signal} would be return {} to an earlier stage, and \
                 max_retries is {}",
                self.retries.saturating_add(1),
                self.max_retries
            );
            return Ok((Stage::Failed, true, Some(reason)));
        }
        let reason = (to == Stage::Done).then(|| format!("all stages complete ({signal})"));
        Ok((to, retry, reason))
    }

    /// Applies `signal` at time `at` and returns the transition it made (also appended to
    /// the history).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Finished`] when the pipeline has ended, [`ErrorKind::UnexpectedSignal`]
    /// when the signal does not fit the current stage. Either way nothing changes.
    pub fn apply(&mut self, signal: Signal, at: DateTime<Utc>) -> Result<Transition, Error> {
        let (to, retry, reason) = self.plan(signal.kind())?;
        if retry && to != Stage::Failed {
            self.retries += 1;
        }
        let transition = Transition {
            from: self.stage,
            to,
            signal: Some(signal),
            at,
            retry,
            retries: self.retries,
            reason: reason.clone(),
        };
        self.enter(transition.clone(), reason);
        Ok(transition)
    }

    /// Cancels the pipeline at time `at`, recording `reason`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Finished`] when the pipeline has already ended; nothing changes.
    pub fn cancel(&mut self, reason: &str, at: DateTime<Utc>) -> Result<Transition, Error> {
        if self.stage.is_terminal() {
            return Err(Error::new(ErrorKind::Finished { stage: self.stage }, ""));
        }
        let reason = Some(format!("cancelled: {reason}"));
        let transition = Transition {
            from: self.stage,
            to: Stage::Cancelled,
            signal: None,
            at,
            retry: false,
            retries: self.retries,
            reason: reason.clone(),
        };
        self.enter(transition.clone(), reason);
        Ok(transition)
    }

    fn enter(&mut self, transition: Transition, reason: Option<String>) {
        self.stage = transition.to;
        self.updated_at = transition.at;
        if transition.to.is_terminal() {
            self.reason = reason;
        }
        self.history.push(transition);
    }

    /// The state as `pipeline.json` holds it: pretty JSON with a final newline (the
    /// [`Serialize`] form of the pipeline).
    pub fn to_json(&self) -> String {
        let mut text =
            serde_json::to_string_pretty(&self.record()).expect("pipeline state always serialises");
        text.push('\n');
        text
    }

    fn record(&self) -> PipelineRecord {
        PipelineRecord {
            version: STATE_VERSION,
            stage: self.stage,
            retries: self.retries,
            max_retries: self.max_retries,
            started_at: self.started_at,
            updated_at: self.updated_at,
            reason: self.reason.clone(),
            history: self.history.clone(),
        }
    }

    /// Reads a state written by [`to_json`](Pipeline::to_json).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidState`] with the line and column for text that is not a pipeline
    /// state, and for one that breaks an invariant (more retries than allowed, a history that
    /// does not end at the current stage, a newer format version).
    pub fn from_json(text: &str) -> Result<Pipeline, Error> {
        let record: PipelineRecord = serde_json::from_str(text)
            .map_err(|e| Error::from_json(ErrorKind::InvalidState, &e))?;
        let invalid = |detail: String| Err(Error::new(ErrorKind::InvalidState, detail));
        if record.version > STATE_VERSION {
            return invalid(format!(
                "format version {} is newer than this program's {STATE_VERSION}; upgrade it",
                record.version
            ));
        }
        if record.retries > record.max_retries {
            return invalid(format!(
                "retries {} exceed max_retries {}",
                record.retries, record.max_retries
            ));
        }
        if let Some(last) = record.history.last()
            && last.to != record.stage
        {
            return invalid(format!(
                "the history ends at {} but the stage is {}",
                last.to, record.stage
            ));
        }
        Ok(Pipeline {
            stage: record.stage,
            retries: record.retries,
            max_retries: record.max_retries,
            started_at: record.started_at,
            updated_at: record.updated_at,
            reason: record.reason,
            history: record.history,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_terminal_stages_expect_no_signal() {
        for st in Stage::ALL {
            assert_eq!(st.is_terminal(), expected_signals(st).is_empty(), "{st}");
        }
    }

    #[test]
    fn expected_signals_agree_with_table() {
        for st in Stage::ALL {
            for kind in SignalKind::ALL {
                assert_eq!(
                    next_stage(st, kind).is_some(),
                    expected_signals(st).contains(&kind),
                    "{st} {kind}"
                );
            }
        }
    }

    #[test]
    fn state_round_trips_and_rejects_bad_invariants() {
        let t = goldfish_core::time::parse_utc("2024-01-15T10:30:00Z").unwrap();
        let mut p = Pipeline::new(3, t);
        p.apply(Signal::empty(SignalKind::ScopeComplete), t)
            .unwrap();
        p.apply(Signal::empty(SignalKind::BuildComplete), t)
            .unwrap();
        p.apply(Signal::empty(SignalKind::ReviewChangesRequested), t)
            .unwrap();
        assert_eq!(Pipeline::from_json(&p.to_json()).unwrap(), p);
        let bad = [
            p.to_json()
                .replace("\"retries\": 1,\n  \"max", "\"retries\": 9,\n  \"max"),
            p.to_json()
                .replace("\"stage\": \"BUILD\"", "\"stage\": \"TEST\""),
            p.to_json().replace("\"version\": 1", "\"version\": 99"),
            "{".to_string(),
        ];
        for text in bad {
            let err = Pipeline::from_json(&text).unwrap_err();
            assert!(err.is_invalid_state(), "{err}");
        }
    }
}
