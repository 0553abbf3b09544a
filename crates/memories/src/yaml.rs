//! YAML values read the way Goldfish's own files need them.
//!
//! Goldfish writes its frontmatter with a YAML 1.2 library, so an unquoted `yes`, `no` or
//! `on` is a string. Text fields are therefore read as *text* ([`Text`]): a plain scalar
//! keeps exactly the characters written, whatever it looks like. Only where Goldfish itself
//! accepts numbers (`confidence`, a legacy numeric `timestamp`) and for keys this reader does
//! not know is the value's YAML type inferred ([`Loose`]).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A scalar read as text: plain scalars keep their characters (`yes` stays `"yes"`, `1e3`
/// stays `"1e3"`); `null`/`~` read as `None`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Text(pub(crate) Option<String>);

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("text")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
        Ok(Text(Some(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Text, E> {
        Ok(Text(Some(v)))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Text, E> {
        Ok(Text(Some(v.to_string())))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Text, E> {
        Ok(Text(Some(v.to_string())))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Text, E> {
        Ok(Text(Some(v.to_string())))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Text, E> {
        Ok(Text(Some(v.to_string())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Text, E> {
        Ok(Text(None))
    }
    fn visit_none<E: de::Error>(self) -> Result<Text, E> {
        Ok(Text(None))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Text, D::Error> {
        d.deserialize_string(TextVisitor)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_option(OptionText)
    }
}

/// `Option` first, so that `~`/`null` are seen as null, then the scalar as text.
struct OptionText;

impl<'de> Visitor<'de> for OptionText {
    type Value = Text;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("text or null")
    }
    fn visit_none<E: de::Error>(self) -> Result<Text, E> {
        Ok(Text(None))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Text, E> {
        Ok(Text(None))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Text, D::Error> {
        d.deserialize_string(TextVisitor)
    }
}

/// A list of text items, or `NotAList` when the value is something else (Goldfish ignores a
/// `tags:` that is not a list; this reader reports it).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) enum TextList {
    /// The key is absent or null.
    #[default]
    Absent,
    /// A list; null items are kept as `None`.
    List(Vec<Text>),
    /// Any other value, as inferred.
    NotAList(Loose),
}

impl TextList {
    /// Goldfish's reading of a list: each item as text (a null item is the text `null`),
    /// trimmed, empty items dropped.
    pub(crate) fn normalized(&self) -> Vec<String> {
        match self {
            TextList::List(items) => items
                .iter()
                .map(|t| t.0.as_deref().unwrap_or("null"))
                .map(js_trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Each item as written, nothing dropped (briefs' tags are read this way).
    pub(crate) fn verbatim(&self) -> Vec<String> {
        match self {
            TextList::List(items) => items
                .iter()
                .map(|t| t.0.clone().unwrap_or_else(|| "null".to_string()))
                .collect(),
            _ => Vec::new(),
        }
    }
}

struct TextListVisitor;

impl<'de> Visitor<'de> for TextListVisitor {
    type Value = TextList;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of text")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TextList, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Text>()? {
            items.push(item);
        }
        Ok(TextList::List(items))
    }
    fn visit_none<E: de::Error>(self) -> Result<TextList, E> {
        Ok(TextList::Absent)
    }
    fn visit_unit<E: de::Error>(self) -> Result<TextList, E> {
        Ok(TextList::Absent)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<TextList, D::Error> {
        d.deserialize_any(TextListVisitor)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<TextList, E> {
        Ok(TextList::NotAList(Loose::Str(v.to_string())))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<TextList, E> {
        Ok(TextList::NotAList(Loose::Bool(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<TextList, E> {
        Ok(TextList::NotAList(Loose::Int(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<TextList, E> {
        Ok(TextList::NotAList(Loose::from_u64(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<TextList, E> {
        Ok(TextList::NotAList(Loose::Float(v)))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<TextList, A::Error> {
        LooseVisitor.visit_map(map).map(TextList::NotAList)
    }
}

impl<'de> Deserialize<'de> for TextList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_option(TextListVisitor)
    }
}

/// Any YAML value, with its type inferred by the YAML library.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) enum Loose {
    /// `null`, `~` or nothing.
    #[default]
    Null,
    /// A boolean.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// Any other number (including whole numbers too large for `i64`).
    Float(f64),
    /// Text.
    Str(String),
    /// A list.
    Seq(Vec<Loose>),
    /// A map, in file order.
    Map(Vec<(String, Loose)>),
}

impl Loose {
    fn from_u64(v: u64) -> Loose {
        i64::try_from(v).map_or(Loose::Float(v as f64), Loose::Int)
    }

    /// The value as JSON. A non-finite number becomes its text (`.inf`), which JSON lacks.
    pub(crate) fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Loose::Null => Value::Null,
            Loose::Bool(b) => Value::Bool(*b),
            Loose::Int(i) => Value::from(*i),
            Loose::Float(f) => serde_json::Number::from_f64(*f)
                .map_or_else(|| Value::String(f.to_string()), Value::Number),
            Loose::Str(s) => Value::String(s.clone()),
            Loose::Seq(items) => Value::Array(items.iter().map(Loose::to_json).collect()),
            Loose::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

struct LooseVisitor;

impl<'de> Visitor<'de> for LooseVisitor {
    type Value = Loose;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Loose, E> {
        Ok(Loose::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Loose, E> {
        Ok(Loose::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Loose, E> {
        Ok(Loose::from_u64(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Loose, E> {
        Ok(i64::try_from(v).map_or(Loose::Float(v as f64), Loose::Int))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Loose, E> {
        Ok(i64::try_from(v).map_or(Loose::Float(v as f64), Loose::Int))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Loose, E> {
        Ok(Loose::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Loose, E> {
        Ok(Loose::Str(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Loose, E> {
        Ok(Loose::Str(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Loose, E> {
        Ok(Loose::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Loose, E> {
        Ok(Loose::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Loose, E> {
        Ok(Loose::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Loose, D::Error> {
        d.deserialize_any(LooseVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Loose, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Loose>()? {
            items.push(item);
        }
        Ok(Loose::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Loose, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Loose>()? {
            let key = match key {
                Loose::Str(s) => s,
                other => other.to_json().to_string(),
            };
            entries.push((key, map.next_value::<Loose>()?));
        }
        Ok(Loose::Map(entries))
    }
}

impl<'de> Deserialize<'de> for Loose {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor)
    }
}

/// Trims what JavaScript's `String.prototype.trim` trims, so that text reads back exactly as
/// Goldfish reads it: Unicode white space and line terminators, plus U+FEFF, but not U+0085
/// (which Rust's `str::trim` would remove).
pub(crate) fn js_trim(s: &str) -> &str {
    s.trim_matches(|c: char| (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    struct Probe {
        #[serde(default)]
        a: Text,
        #[serde(default)]
        b: Text,
        #[serde(default)]
        list: TextList,
        #[serde(default)]
        other: Loose,
    }

    #[test]
    fn text_keeps_plain_scalars_as_written() {
        let cases = [
            ("a: yes", Some("yes")),
            ("a: no", Some("no")),
            ("a: On", Some("On")),
            ("a: 1e3", Some("1e3")),
            ("a: 007", Some("007")),
            ("a: \"null\"", Some("null")),
            ("a: '~'", Some("~")),
            ("a: ~", None),
            ("a: null", None),
            ("a:", None),
            ("a: it's", Some("it's")),
            ("a: |-\n  x\n  ---\n  y", Some("x\n---\ny")),
        ];
        for (yaml, want) in cases {
            let p: Probe = serde_saphyr::from_str(yaml).expect(yaml);
            assert_eq!(p.a.0.as_deref(), want, "{yaml}");
            assert_eq!(p.b, Text(None));
        }
    }

    #[test]
    fn lists_keep_items_as_text_and_report_non_lists() {
        let p: Probe =
            serde_saphyr::from_str("list:\n  - yes\n  - \" padded \"\n  - \"\"\n  - ~\n  - 12")
                .expect("list");
        assert_eq!(p.list.normalized(), ["yes", "padded", "null", "12"]);
        assert_eq!(p.list.verbatim(), ["yes", " padded ", "", "null", "12"]);
        let p: Probe = serde_saphyr::from_str("list: '[\"a\"]'").expect("string");
        assert_eq!(p.list, TextList::NotAList(Loose::Str("[\"a\"]".into())));
        assert!(p.list.normalized().is_empty());
        let p: Probe = serde_saphyr::from_str("other: {k: [1, x, true]}").expect("map");
        assert_eq!(p.other.to_json(), serde_json::json!({"k": [1, "x", true]}));
    }

    #[test]
    fn js_trim_matches_javascript() {
        assert_eq!(js_trim("\u{feff} \t x \u{3000}\n"), "x");
        assert_eq!(js_trim("\u{85}x\u{85}"), "\u{85}x\u{85}");
        assert_eq!(js_trim("\u{200b}x"), "\u{200b}x");
    }
}
