//! How old a memory is, in words a person reads at a glance ("3 weeks ago").

use chrono::{DateTime, Utc};

/// The age of `then` at `now` in words: `just now` (under a minute), `5 minutes ago`,
/// `2 hours ago`, `yesterday` (24 to 48 hours), `4 days ago` (under two weeks), `3 weeks ago`
/// (under eight weeks), `5 months ago` (30-day months, under a year), `2 years ago`.
/// A time after `now` (a clock that moved back) is `in the future`.
///
/// ```
/// use goldfish_store::age_text;
/// let now = "2026-03-01T12:00:00Z".parse().unwrap();
/// assert_eq!(age_text(now, "2026-02-08T09:00:00Z".parse().unwrap()), "3 weeks ago");
/// assert_eq!(age_text(now, "2026-02-28T10:00:00Z".parse().unwrap()), "yesterday");
/// ```
pub fn age_text(now: DateTime<Utc>, then: DateTime<Utc>) -> String {
    let secs = (now - then).num_seconds();
    if secs < 0 {
        return "in the future".to_string();
    }
    let plural = |n: i64, unit: &str| {
        if n == 1 {
            format!("1 {unit} ago")
        } else {
            format!("{n} {unit}s ago")
        }
    };
    let (minute, hour, day) = (60, 3_600, 86_400);
    match secs {
        s if s < minute => "just now".to_string(),
        s if s < hour => plural(s / minute, "minute"),
        s if s < day => plural(s / hour, "hour"),
        s if s < 2 * day => "yesterday".to_string(),
        s if s < 14 * day => plural(s / day, "day"),
        s if s < 56 * day => plural(s / (7 * day), "week"),
        s if s < 365 * day => plural(s / (30 * day), "month"),
        s => plural(s / (365 * day), "year"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().expect("a test time")
    }

    #[test]
    fn every_range_and_its_edges() {
        let now = at("2026-03-01T12:00:00Z");
        let ago = |secs: i64| age_text(now, now - chrono::TimeDelta::seconds(secs));
        assert_eq!(ago(0), "just now");
        assert_eq!(ago(59), "just now");
        assert_eq!(ago(60), "1 minute ago");
        assert_eq!(ago(3_599), "59 minutes ago");
        assert_eq!(ago(3_600), "1 hour ago");
        assert_eq!(ago(86_399), "23 hours ago");
        assert_eq!(ago(86_400), "yesterday");
        assert_eq!(ago(2 * 86_400), "2 days ago");
        assert_eq!(ago(13 * 86_400), "13 days ago");
        assert_eq!(ago(14 * 86_400), "2 weeks ago");
        assert_eq!(ago(55 * 86_400), "7 weeks ago");
        assert_eq!(ago(56 * 86_400), "1 month ago");
        assert_eq!(ago(364 * 86_400), "12 months ago");
        assert_eq!(ago(365 * 86_400), "1 year ago");
        assert_eq!(ago(800 * 86_400), "2 years ago");
        assert_eq!(ago(-5), "in the future");
    }
}
