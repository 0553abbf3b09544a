//! What the benches share, and the target check behind `check-targets`.
//!
//! - [`corpus`]: the evaluation corpora as checkpoints.
//! - [`store_gen`]: stores of 10,000 to 1,000,000 checkpoints as real day files, cached under
//!   `target/` (the `gen-store` bin writes one by hand).
//! - The target check: parse `targets.txt`, read criterion's estimates ([`check_all`]).

use std::path::Path;

pub mod corpus;
pub mod store_gen;

/// One row of `targets.txt`.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// Criterion bench id (`group/function[/parameter]`).
    pub id: String,
    /// Limit for the median, in nanoseconds.
    pub limit_ns: f64,
    /// Where the target comes from (free text).
    pub source: String,
    /// An opt-in bench (the id is written `?group/function` in `targets.txt`): checked when
    /// it ran, not a failure when it did not.
    pub optional: bool,
}

/// What the check found for one target.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The median is within the limit.
    Within {
        /// Measured median in nanoseconds.
        median_ns: f64,
    },
    /// The median is over the limit.
    Over {
        /// Measured median in nanoseconds.
        median_ns: f64,
    },
    /// No estimate could be read (the bench did not run, or its output is unreadable).
    Missing(String),
    /// An opt-in bench that did not run (no estimate): not a failure.
    NotRun,
}

/// Parses a duration such as `100us`, `2.5ms`, `1s`, `800ns` into nanoseconds.
pub fn parse_duration_ns(text: &str) -> Result<f64, String> {
    let split = text
        .find(|c: char| c.is_ascii_alphabetic() || c == 'µ')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("bad number in duration {text:?}"))?;
    let scale = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => {
            return Err(format!(
                "bad unit in duration {text:?}: use ns, us, ms or s"
            ));
        }
    };
    Ok(value * scale)
}

/// Parses `targets.txt`: `id limit source…` per line; `#` starts a comment; an id written
/// `?id` is an opt-in bench ([`Target::optional`]).
pub fn parse_targets(text: &str) -> Result<Vec<Target>, String> {
    let mut rows = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split_whitespace();
        let (Some(id), Some(limit)) = (parts.next(), parts.next()) else {
            return Err(format!("line {}: expected `id limit [source]`", index + 1));
        };
        let limit_ns = parse_duration_ns(limit).map_err(|e| format!("line {}: {e}", index + 1))?;
        let source = parts.collect::<Vec<_>>().join(" ");
        let (id, optional) = match id.strip_prefix('?') {
            Some(rest) => (rest, true),
            None => (id, false),
        };
        rows.push(Target {
            id: id.to_string(),
            limit_ns,
            source,
            optional,
        });
    }
    Ok(rows)
}

/// Reads the median estimate (ns) criterion saved for `id` under `criterion_dir`.
pub fn read_median_ns(criterion_dir: &Path, id: &str) -> Result<f64, String> {
    let path = criterion_dir.join(id).join("new/estimates.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    json.pointer("/median/point_estimate")
        .and_then(serde_json::Value::as_f64)
        .ok_or_else(|| format!("{}: no median.point_estimate", path.display()))
}

/// Checks every target against criterion's estimates. An opt-in target whose estimate file
/// does not exist is [`Outcome::NotRun`]; one whose file exists but cannot be read is
/// [`Outcome::Missing`] like any other.
pub fn check_all<'a>(rows: &'a [Target], criterion_dir: &Path) -> Vec<(&'a Target, Outcome)> {
    rows.iter()
        .map(|row| {
            let outcome = match read_median_ns(criterion_dir, &row.id) {
                Ok(median_ns) if median_ns <= row.limit_ns => Outcome::Within { median_ns },
                Ok(median_ns) => Outcome::Over { median_ns },
                Err(_)
                    if row.optional
                        && !criterion_dir
                            .join(&row.id)
                            .join("new/estimates.json")
                            .exists() =>
                {
                    Outcome::NotRun
                }
                Err(why) => Outcome::Missing(why),
            };
            (row, outcome)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        for (text, ns) in [
            ("100us", 1e5),
            ("2.5ms", 2.5e6),
            ("1s", 1e9),
            ("800ns", 800.0),
        ] {
            assert_eq!(parse_duration_ns(text).unwrap(), ns, "{text}");
        }
        assert!(parse_duration_ns("5 minutes").is_err());
        assert!(parse_duration_ns("ms").is_err());
    }

    #[test]
    fn targets_and_check() {
        let rows =
            parse_targets("# c\nfast/one 1ms original\n\nslow/two 10us issue 2 # x\n").unwrap();
        assert_eq!(rows.len(), 2);
        assert!(!rows[0].optional);
        assert_eq!(rows[1].source, "issue 2");
        assert!(parse_targets("lonely\n").unwrap_err().contains("line 1"));

        let dir = tempfile::tempdir().unwrap();
        for (id, median) in [("fast/one", 5e5), ("slow/two", 2e4)] {
            let d = dir.path().join(id).join("new");
            std::fs::create_dir_all(&d).unwrap();
            let body = format!(r#"{{"median":{{"point_estimate":{median}}}}}"#);
            std::fs::write(d.join("estimates.json"), body).unwrap();
        }
        let mut extra = rows.clone();
        extra.push(Target {
            id: "never/ran".into(),
            limit_ns: 1.0,
            source: String::new(),
            optional: false,
        });
        let opt_in = parse_targets("?big/one 300ms opt-in\n?fast/one 1us opt-in, ran\n").unwrap();
        assert!(opt_in[0].optional && opt_in[0].id == "big/one");
        extra.extend(opt_in);
        let out: Vec<_> = check_all(&extra, dir.path())
            .into_iter()
            .map(|(_, o)| o)
            .collect();
        assert_eq!(out[0], Outcome::Within { median_ns: 5e5 });
        assert_eq!(out[1], Outcome::Over { median_ns: 2e4 });
        assert!(matches!(out[2], Outcome::Missing(_)));
        assert_eq!(out[3], Outcome::NotRun, "an opt-in bench that did not run");
        assert_eq!(
            out[4],
            Outcome::Over { median_ns: 5e5 },
            "an opt-in bench that ran"
        );
    }
}
