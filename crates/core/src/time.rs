//! UTC time helpers: one timestamp format everywhere, and an injectable clock for tests.
//!
//! Every timestamp goldfish writes is UTC in RFC 3339 with milliseconds and a `Z`
//! (`2024-01-15T10:30:00.000Z`). Parsing accepts any RFC 3339 offset and converts to UTC, so
//! a timestamp written by hand in local time still lands in the right UTC day.

use std::fmt;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, SecondsFormat, SubsecRound, TimeDelta, Utc};

/// A source of the current time. Production code uses [`SystemClock`]; tests use
/// [`ManualClock`] so that dates, windows and ordering are deterministic.
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current instant, in UTC.
    fn now(&self) -> DateTime<Utc>;
}

/// A shareable clock handle.
pub type SharedClock = Arc<dyn Clock>;

/// The operating system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// The system clock as a [`SharedClock`].
pub fn system_clock() -> SharedClock {
    Arc::new(SystemClock)
}

/// A clock that only moves when told to: for tests.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<DateTime<Utc>>,
}

impl ManualClock {
    /// A clock standing at `start`.
    pub fn new(start: DateTime<Utc>) -> Self {
        ManualClock {
            now: Mutex::new(start),
        }
    }

    /// Moves the clock to `t`.
    pub fn set(&self, t: DateTime<Utc>) {
        *self.now.lock().unwrap_or_else(|e| e.into_inner()) = t;
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: TimeDelta) {
        let mut now = self.now.lock().unwrap_or_else(|e| e.into_inner());
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Formats `t` as RFC 3339 UTC with exactly three fractional digits and `Z`:
/// `2024-01-15T10:30:00.000Z`. Sub-millisecond precision is truncated.
pub fn format_utc(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Truncates `t` to whole milliseconds: what [`format_utc`] keeps, so values round-trip.
pub fn truncate_millis(t: DateTime<Utc>) -> DateTime<Utc> {
    t.trunc_subsecs(3)
}

/// The current time of `clock`, truncated to milliseconds.
pub fn now_millis(clock: &dyn Clock) -> DateTime<Utc> {
    truncate_millis(clock.now())
}

/// A timestamp that is not RFC 3339.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid timestamp {input:?}: expected RFC 3339 such as 2024-01-15T10:30:00Z ({reason})")]
pub struct TimeParseError {
    input: String,
    reason: String,
}

impl TimeParseError {
    /// The text that failed to parse.
    pub fn input(&self) -> &str {
        &self.input
    }
}

/// Parses an RFC 3339 timestamp with any offset (`Z`, `+02:00`, …) and returns it in UTC.
pub fn parse_utc(s: &str) -> Result<DateTime<Utc>, TimeParseError> {
    DateTime::parse_from_rfc3339(s.trim())
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| TimeParseError {
            input: s.to_string(),
            reason: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn format_has_millis_and_z() {
        let t = Utc.with_ymd_and_hms(2024, 1, 15, 10, 30, 0).unwrap();
        assert_eq!(format_utc(&t), "2024-01-15T10:30:00.000Z");
    }

    #[test]
    fn parse_converts_offsets_to_utc() {
        let cases = [
            ("2024-01-15T10:30:00Z", "2024-01-15T10:30:00.000Z"),
            ("2024-01-15T10:30:00.123Z", "2024-01-15T10:30:00.123Z"),
            ("2024-01-15T01:30:00+02:00", "2024-01-14T23:30:00.000Z"),
        ];
        for (input, want) in cases {
            assert_eq!(format_utc(&parse_utc(input).unwrap()), want, "{input}");
        }
        assert!(
            parse_utc("yesterday")
                .unwrap_err()
                .to_string()
                .contains("yesterday")
        );
    }

    #[test]
    fn round_trip_after_truncation() {
        let t = truncate_millis(Utc::now());
        assert_eq!(parse_utc(&format_utc(&t)).unwrap(), t);
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let start = Utc.with_ymd_and_hms(2025, 10, 13, 23, 59, 0).unwrap();
        let clock = ManualClock::new(start);
        assert_eq!(clock.now(), start);
        clock.advance(TimeDelta::minutes(2));
        assert_eq!(format_utc(&clock.now()), "2025-10-14T00:01:00.000Z");
    }
}
