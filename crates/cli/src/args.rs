//! Argument helpers shared by the CLI and the MCP server: `-` for stdin, and lenient
//! deserializers for what real MCP clients send.

use std::fmt;
use std::io::Read as _;

use serde::Deserialize as _;
use serde::de::{self, Deserializer, Visitor};

/// Returns `value`, or all of stdin when `value` is `-`.
pub(crate) fn stdin_if_dash(value: String) -> anyhow::Result<String> {
    if value != "-" {
        return Ok(value);
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| anyhow::anyhow!("cannot read stdin: {e}"))?;
    // A trailing newline from `echo` or a heredoc is not part of the text.
    let trimmed = text.trim_end_matches(['\n', '\r']).len();
    text.truncate(trimmed);
    Ok(text)
}

/// Deserializes a list of strings from a JSON array, a JSON-encoded array inside a string
/// (`"[\"a\",\"b\"]"`, as some MCP clients send), a comma-separated string (`"a, b"`), or null.
pub(crate) fn string_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    d.deserialize_any(StringListVisitor)
}

/// Like [`string_list`], but absent or null stays `None`.
pub(crate) fn opt_string_list<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<String>>, D::Error> {
    d.deserialize_any(OptStringListVisitor)
}

struct StringListVisitor;

impl<'de> Visitor<'de> for StringListVisitor {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of strings, a JSON array in a string, or a comma-separated string")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        let t = v.trim();
        if t.starts_with('[') {
            return serde_json::from_str::<Vec<serde_json::Value>>(t)
                .map_err(|e| E::custom(format!("tags look like a JSON array but are not: {e}")))
                .map(|items| items.into_iter().filter_map(value_to_item).collect());
        }
        Ok(split_list(t))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(item) = seq.next_element::<serde_json::Value>()? {
            if let Some(s) = value_to_item(item) {
                out.push(s);
            }
        }
        Ok(out)
    }
}

struct OptStringListVisitor;

impl<'de> Visitor<'de> for OptStringListVisitor {
    type Value = Option<Vec<String>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        StringListVisitor.expecting(f)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        string_list(d).map(Some)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        StringListVisitor.visit_str(v).map(Some)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        StringListVisitor.visit_seq(seq).map(Some)
    }
}

/// One list item as a trimmed, non-empty string (numbers and booleans are accepted as text).
fn value_to_item(v: serde_json::Value) -> Option<String> {
    let s = match v {
        serde_json::Value::String(s) => s,
        serde_json::Value::Null => return None,
        other => other.to_string(),
    };
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// Deserializes an optional unsigned integer from a number or a numeric string (`"7"`).
pub(crate) fn opt_uint<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<u64>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a non-negative whole number")
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(V)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            u64::try_from(v)
                .map(Some)
                .map_err(|_| E::custom(format!("{v} is negative")))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            if v >= 0.0 && v.fract() == 0.0 && v < 1e15 {
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "checked above"
                )]
                Ok(Some(v as u64))
            } else {
                Err(E::custom(format!("{v} is not a non-negative whole number")))
            }
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            let t = v.trim();
            if t.is_empty() {
                return Ok(None);
            }
            t.parse()
                .map(Some)
                .map_err(|_| E::custom(format!("{v:?} is not a whole number")))
        }
    }
    d.deserialize_any(V)
}

/// Deserializes an optional boolean from a boolean or `"true"`/`"false"`.
pub(crate) fn opt_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<bool>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("true or false")
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(V)
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            match v.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "1" => Ok(Some(true)),
                "false" | "no" | "0" => Ok(Some(false)),
                "" => Ok(None),
                _ => Err(E::custom(format!("{v:?} is not true or false"))),
            }
        }
    }
    d.deserialize_any(V)
}

/// Deserializes a list of texts: a JSON array, a JSON-encoded array inside a string, a single
/// string (one item: unlike tags, free text may hold commas), or null.
pub(crate) fn text_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    match Option::<serde_json::Value>::deserialize(d)? {
        None | Some(serde_json::Value::Null) => Ok(Vec::new()),
        Some(serde_json::Value::String(s)) => {
            let t = s.trim();
            if t.starts_with('[')
                && let Ok(items) = serde_json::from_str::<Vec<serde_json::Value>>(t)
            {
                return Ok(items.into_iter().filter_map(value_to_item).collect());
            }
            Ok(value_to_item(serde_json::Value::String(s))
                .into_iter()
                .collect())
        }
        Some(serde_json::Value::Array(items)) => {
            Ok(items.into_iter().filter_map(value_to_item).collect())
        }
        Some(other) => Err(de::Error::custom(format!(
            "expected a list of texts, got {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    struct Tags {
        #[serde(default, deserialize_with = "string_list")]
        tags: Vec<String>,
        #[serde(default, deserialize_with = "opt_uint")]
        days: Option<u64>,
        #[serde(default, deserialize_with = "opt_bool")]
        full: Option<bool>,
    }

    #[test]
    fn lenient_lists_numbers_and_bools() {
        type Case = (
            &'static str,
            &'static [&'static str],
            Option<u64>,
            Option<bool>,
        );
        let cases: [Case; 8] = [
            (r#"{"tags": ["a", "b"]}"#, &["a", "b"], None, None),
            (r#"{"tags": "[\"a\", \"b\"]"}"#, &["a", "b"], None, None),
            (r#"{"tags": "a, b,,c"}"#, &["a", "b", "c"], None, None),
            (r#"{"tags": null}"#, &[], None, None),
            (r#"{}"#, &[], None, None),
            (r#"{"days": "7", "full": "true"}"#, &[], Some(7), Some(true)),
            (r#"{"days": 3.0, "full": false}"#, &[], Some(3), Some(false)),
            (r#"{"tags": [" x ", 1]}"#, &["x", "1"], None, None),
        ];
        for (input, tags, days, full) in cases {
            let t: Tags = serde_json::from_str(input).unwrap();
            assert_eq!(t.tags, tags, "{input}");
            assert_eq!(t.days, days, "{input}");
            assert_eq!(t.full, full, "{input}");
        }
        for bad in [
            r#"{"days": -1}"#,
            r#"{"days": "soon"}"#,
            r#"{"tags": "[oops"}"#,
            r#"{"full": "maybe"}"#,
        ] {
            assert!(serde_json::from_str::<Tags>(bad).is_err(), "{bad}");
        }
    }
}
