//! Time windows: `days`, `since` (`30m`, `6h`, `3d`, `1w` or a timestamp), `from` and `to`.

use chrono::{DateTime, NaiveDate, NaiveTime, TimeDelta, Utc};

use crate::error::Error;

/// A closed interval of time, `from <= t <= to`, in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct TimeWindow {
    /// The first instant included.
    pub from: DateTime<Utc>,
    /// The last instant included.
    pub to: DateTime<Utc>,
}

impl TimeWindow {
    /// Whether `t` lies in the window (both ends included).
    pub fn contains(&self, t: DateTime<Utc>) -> bool {
        self.from <= t && t <= self.to
    }

    /// The window that resolves recall's time options against `now`:
    ///
    /// - `from`/`to` when given (a date-only `from` is the start of that UTC day, a date-only
    ///   `to` the end of it; a `to` without fractional seconds includes its whole second);
    ///   a missing `to` is `now`, a missing `from` is `days` before `to`;
    /// - else `since` to `now`;
    /// - else the last `days` days: the rolling window ending `now`.
    ///
    /// Errors name the argument that could not be used.
    pub fn resolve(
        now: DateTime<Utc>,
        days: u32,
        since: Option<&str>,
        from: Option<&str>,
        to: Option<&str>,
    ) -> Result<TimeWindow, Error> {
        fn blank(s: Option<&str>) -> Option<&str> {
            s.map(str::trim).filter(|s| !s.is_empty())
        }
        let (since, from, to) = (blank(since), blank(from), blank(to));
        let end = match to {
            Some(t) => parse_bound(t, Bound::To)?,
            None => now,
        };
        let start = match (from, since) {
            (Some(f), _) => parse_bound(f, Bound::From)?,
            (None, Some(s)) => parse_since(s, now)?,
            (None, None) => days_before(end, days)?,
        };
        if start > end {
            let arg = if from.is_some() { "from" } else { "since" };
            return Err(Error::argument(
                arg,
                format!(
                    "the window starts ({}) after it ends ({}): give a `{arg}` before `to`",
                    goldfish_core::time::format_utc(&start),
                    goldfish_core::time::format_utc(&end)
                ),
            ));
        }
        Ok(TimeWindow {
            from: start,
            to: end,
        })
    }
}

/// Which end of a window a date or timestamp is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Bound {
    /// The start: a date means 00:00:00.000 UTC of that day.
    From,
    /// The end: a date means 23:59:59.999 UTC of that day, and a timestamp without
    /// fractional seconds includes the whole second it names.
    To,
}

/// Parses a `from` or `to` value: an RFC 3339 timestamp (any offset, converted to UTC) or a
/// date `YYYY-MM-DD` (a UTC day).
///
/// ```
/// use goldfish_recall::{parse_bound, Bound};
/// let end = parse_bound("2025-10-13", Bound::To)?;
/// assert_eq!(end.to_rfc3339(), "2025-10-13T23:59:59.999+00:00");
/// # Ok::<(), goldfish_recall::Error>(())
/// ```
pub fn parse_bound(text: &str, bound: Bound) -> Result<DateTime<Utc>, Error> {
    let arg = match bound {
        Bound::From => "from",
        Bound::To => "to",
    };
    let s = text.trim();
    if let Ok(date) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        let time = match bound {
            Bound::From => NaiveTime::MIN,
            Bound::To => NaiveTime::from_hms_milli_opt(23, 59, 59, 999)
                .expect("23:59:59.999 is a valid time"),
        };
        return Ok(date.and_time(time).and_utc());
    }
    let t = goldfish_core::time::parse_utc(s).map_err(|_| {
        Error::argument(
            arg,
            format!(
                "invalid `{arg}` value {text:?}: expected a date such as 2025-10-13 or an RFC 3339 \
                 timestamp such as 2025-10-13T09:00:00Z"
            ),
        )
    })?;
    // "to 23:59:59Z" means up to the end of that second: entries are kept to the millisecond.
    let whole_second = !s.contains('.');
    Ok(match bound {
        Bound::To if whole_second => t + TimeDelta::milliseconds(999),
        _ => t,
    })
}

/// Parses a `since` value relative to `now`: a positive count with a unit — `s`, `m`
/// (minutes), `h`, `d` or `w` (`30m`, `6h`, `3d`, `1w`) — or a date or RFC 3339 timestamp.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use goldfish_recall::parse_since;
/// let now = Utc.with_ymd_and_hms(2025, 10, 13, 12, 0, 0).unwrap();
/// assert_eq!(parse_since("6h", now)?, Utc.with_ymd_and_hms(2025, 10, 13, 6, 0, 0).unwrap());
/// assert!(parse_since("soon", now).unwrap_err().to_string().contains("since"));
/// # Ok::<(), goldfish_recall::Error>(())
/// ```
pub fn parse_since(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, Error> {
    let s = text.trim();
    let bad = || {
        Error::argument(
            "since",
            format!(
                "invalid `since` value {text:?}: expected a duration such as 30m, 6h, 3d or 1w, \
                 or a timestamp such as 2025-10-13T09:00:00Z"
            ),
        )
    };
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    if !digits.is_empty() && !unit.is_empty() && unit.len() <= 7 {
        let n: i64 = digits.parse().map_err(|_| bad())?;
        let delta = match unit.to_ascii_lowercase().as_str() {
            "s" | "sec" | "secs" => TimeDelta::try_seconds(n),
            "m" | "min" | "mins" => TimeDelta::try_minutes(n),
            "h" | "hr" | "hrs" | "hour" | "hours" => TimeDelta::try_hours(n),
            "d" | "day" | "days" => TimeDelta::try_days(n),
            "w" | "week" | "weeks" => TimeDelta::try_weeks(n),
            _ => None,
        };
        if let Some(delta) = delta {
            return now.checked_sub_signed(delta).ok_or_else(bad);
        }
    }
    parse_bound(s, Bound::From).map_err(|_| bad())
}

/// The most days a window may reach back (about 2,700 years): a fixed bound, the same on
/// every date, that tool schemas can state; far more would reach before the earliest date
/// chrono represents.
pub const MAX_DAYS: u32 = 1_000_000;

/// `end` minus `days` whole days, or an error naming the `days` argument when `days` is over
/// [`MAX_DAYS`] (a huge `--days` must not panic).
pub(crate) fn days_before(end: DateTime<Utc>, days: u32) -> Result<DateTime<Utc>, Error> {
    let too_many = || {
        Error::argument(
            "days",
            format!("invalid `days` value {days}: use at most {MAX_DAYS}"),
        )
    };
    if days > MAX_DAYS {
        return Err(too_many());
    }
    TimeDelta::try_days(i64::from(days))
        .and_then(|delta| end.checked_sub_signed(delta))
        .ok_or_else(too_many)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn huge_days_is_an_argument_error_not_a_panic() {
        let now = Utc.with_ymd_and_hms(2025, 10, 13, 12, 0, 0).unwrap();
        let err = TimeWindow::resolve(now, u32::MAX, None, None, None).unwrap_err();
        assert_eq!(err.argument_name(), Some("days"));
        assert!(err.to_string().contains("4294967295"), "{err}");
        let ok = TimeWindow::resolve(now, 365 * 100, None, None, None).unwrap();
        assert!(ok.from < now);
    }

    fn t(s: &str) -> DateTime<Utc> {
        goldfish_core::time::parse_utc(s).unwrap()
    }

    #[test]
    fn since_table() {
        let now = t("2025-10-13T12:00:00Z");
        let ok = [
            ("30m", "2025-10-13T11:30:00Z"),
            ("6h", "2025-10-13T06:00:00Z"),
            ("3d", "2025-10-10T12:00:00Z"),
            ("1w", "2025-10-06T12:00:00Z"),
            (" 90s ", "2025-10-13T11:58:30Z"),
            ("2025-10-01", "2025-10-01T00:00:00Z"),
            ("2025-10-01T05:30:00+05:30", "2025-10-01T00:00:00Z"),
        ];
        for (input, want) in ok {
            assert_eq!(parse_since(input, now).unwrap(), t(want), "{input}");
        }
        for bad in [
            "",
            "3",
            "d",
            "3x",
            "-3d",
            "yesterday",
            "99999999999999999999d",
            "9999999999w",
        ] {
            let e = parse_since(bad, now).unwrap_err();
            assert_eq!(e.argument_name(), Some("since"), "{bad}");
            assert!(e.to_string().contains("30m"), "{bad}: {e}");
        }
    }

    #[test]
    fn bound_table() {
        let cases = [
            ("2025-10-13", Bound::From, "2025-10-13T00:00:00.000Z"),
            ("2025-10-13", Bound::To, "2025-10-13T23:59:59.999Z"),
            (
                "2025-10-13T23:59:59Z",
                Bound::To,
                "2025-10-13T23:59:59.999Z",
            ),
            (
                "2025-10-13T23:59:59.500Z",
                Bound::To,
                "2025-10-13T23:59:59.500Z",
            ),
            (
                "2025-10-13T00:00:00Z",
                Bound::From,
                "2025-10-13T00:00:00.000Z",
            ),
            (
                "2025-10-14T01:00:00+02:00",
                Bound::From,
                "2025-10-13T23:00:00.000Z",
            ),
        ];
        for (input, bound, want) in cases {
            let got = parse_bound(input, bound).unwrap();
            assert_eq!(goldfish_core::time::format_utc(&got), want, "{input}");
        }
        let e = parse_bound("13/10/2025", Bound::To).unwrap_err();
        assert_eq!(e.argument_name(), Some("to"));
    }

    #[test]
    fn resolve_table() {
        let now = Utc.with_ymd_and_hms(2025, 10, 13, 12, 0, 0).unwrap();
        let w = TimeWindow::resolve(now, 2, None, None, None).unwrap();
        assert_eq!((w.from, w.to), (t("2025-10-11T12:00:00Z"), now));
        let w = TimeWindow::resolve(now, 2, Some("6h"), None, None).unwrap();
        assert_eq!(w.from, t("2025-10-13T06:00:00Z"));
        let w = TimeWindow::resolve(now, 2, Some("6h"), Some("2025-10-01"), Some("2025-10-02"))
            .unwrap();
        assert_eq!(
            (w.from, w.to),
            (t("2025-10-01T00:00:00Z"), t("2025-10-02T23:59:59.999Z"))
        );
        let w = TimeWindow::resolve(now, 1, None, None, Some("2025-10-05")).unwrap();
        assert_eq!(w.from, t("2025-10-04T23:59:59.999Z"));
        let e =
            TimeWindow::resolve(now, 2, None, Some("2025-10-14"), Some("2025-10-13")).unwrap_err();
        assert_eq!(e.argument_name(), Some("from"));
        assert!(w.contains(t("2025-10-05T00:00:00Z")));
        assert!(!w.contains(t("2025-10-06T00:00:00Z")));
    }
}
