//! Claude Code's permission rules: the strings of `permissions.allow` in its settings file,
//! edited by splicing the text like the server entry (see the parent module).
//!
//! Missing rules are appended after the array's last element, one per line, indented like
//! it; removing them again gives back the original bytes. A `permissions` object or an
//! `allow` array left empty by a removal is removed too, and a file left with nothing
//! becomes the empty string.

use serde_json::Value;

use super::{
    DEFAULT_UNIT, Object, indent_unit, insert, line_indent, line_of, member_indent,
    own_line_indent, parse, remove_member, scan_object, skip_value, skip_ws,
};
use crate::error::Error;

/// The object holding the rules, and the array inside it.
const PERMISSIONS: &str = "permissions";
const ALLOW: &str = "allow";

/// The rules of `rules` present in `permissions.allow` of `text`, in the order of `rules`.
pub(crate) fn allowed<'a>(text: &str, rules: &[&'a str]) -> Result<Vec<&'a str>, Error> {
    let present = match locate(text)? {
        Located::Array { elements, .. } => elements.into_iter().map(|e| e.value).collect(),
        _ => Vec::new(),
    };
    Ok(rules
        .iter()
        .copied()
        .filter(|r| present.iter().any(|p| p == r))
        .collect())
}

/// `text` with every rule of `rules` in `permissions.allow` (unchanged when all are there).
pub(crate) fn allow(text: &str, rules: &[&str]) -> Result<String, Error> {
    let missing: Vec<&str> = {
        let have = allowed(text, rules)?;
        rules
            .iter()
            .copied()
            .filter(|r| !have.contains(r))
            .collect()
    };
    if missing.is_empty() {
        return Ok(text.to_owned());
    }
    let quoted: Vec<String> = missing
        .iter()
        .map(|r| serde_json::to_string(r).expect("a string serialises"))
        .collect();
    let unit = match parse(text)? {
        Some(top) => indent_unit(text, &top),
        None => DEFAULT_UNIT.to_owned(),
    };
    let array = |indent: &str| {
        let inner = format!("{indent}{unit}");
        let lines: Vec<String> = quoted.iter().map(|q| format!("{inner}{q}")).collect();
        format!("[\n{}\n{indent}]", lines.join(",\n"))
    };
    Ok(match locate(text)? {
        Located::Nothing => {
            let u = &unit;
            format!(
                "{{\n{u}\"{PERMISSIONS}\": {{\n{u}{u}\"{ALLOW}\": {}\n{u}}}\n}}\n",
                array(&format!("{u}{u}"))
            )
        }
        Located::Top(top) => {
            let indent = member_indent(text, &top, &unit);
            let inner = format!("{indent}{unit}");
            let object = format!("{{\n{inner}\"{ALLOW}\": {}\n{indent}}}", array(&inner));
            insert(text, &top, PERMISSIONS, &object, &indent)
        }
        Located::Permissions(permissions) => {
            let indent = member_indent(text, &permissions, &unit);
            insert(text, &permissions, ALLOW, &array(&indent), &indent)
        }
        Located::Array {
            open,
            close,
            elements,
        } => {
            let mut out = String::with_capacity(text.len() + 64);
            match elements.last() {
                Some(last) => {
                    let indent = elements
                        .iter()
                        .find_map(|e| own_line_indent(text, e.start))
                        .unwrap_or_else(|| format!("{}{unit}", line_indent(text, open)));
                    out.push_str(&text[..last.end]);
                    for q in &quoted {
                        out.push_str(&format!(",\n{indent}{q}"));
                    }
                    out.push_str(&text[last.end..]);
                }
                None => {
                    let outer = line_indent(text, open);
                    let inner = format!("{outer}{unit}");
                    let lines: Vec<String> = quoted.iter().map(|q| format!("{inner}{q}")).collect();
                    out.push_str(&text[..=open]);
                    out.push_str(&format!("\n{}\n{outer}", lines.join(",\n")));
                    out.push_str(&text[close..]);
                }
            }
            out
        }
    })
}

/// `text` without any rule of `rules` in `permissions.allow` (unchanged when none is there).
pub(crate) fn disallow(text: &str, rules: &[&str]) -> Result<String, Error> {
    let mut text = text.to_owned();
    // One element at a time, the last first, each cut taking the comma before it (after it
    // for the first element), as `allow` added them; the array is scanned again each time.
    loop {
        let Located::Array { elements, .. } = locate(&text)? else {
            return Ok(text);
        };
        let Some(i) = elements
            .iter()
            .rposition(|e| rules.contains(&e.value.as_str()))
        else {
            return Ok(text);
        };
        if elements.len() == 1 {
            return remove_allow(&text);
        }
        let (from, to) = if i > 0 {
            (elements[i - 1].end, elements[i].end)
        } else {
            (elements[0].start, elements[1].start)
        };
        text.replace_range(from..to, "");
    }
}

/// `text` without its `allow` array, and without `permissions` if that empties it.
fn remove_allow(text: &str) -> Result<String, Error> {
    let top = parse(text)?.expect("an array was found, so the document has a top object");
    let (perm_index, perm) = top.get(PERMISSIONS).expect("the array was found under it");
    let permissions = scan_object(text, perm.value_start);
    let (allow_index, _) = permissions.get(ALLOW).expect("the array was found in it");
    if permissions.members.len() > 1 {
        return Ok(remove_member(text, &permissions, allow_index));
    }
    if top.members.len() > 1 {
        return Ok(remove_member(text, &top, perm_index));
    }
    Ok(String::new())
}

/// One element of an array: its bytes and, for a string, its value.
struct Element {
    start: usize,
    end: usize,
    value: String,
}

/// How far `permissions.allow` exists in a document.
enum Located {
    /// An empty document.
    Nothing,
    /// A top object without `permissions`.
    Top(Object),
    /// A `permissions` object without `allow`.
    Permissions(Object),
    /// The `allow` array: its brackets and elements.
    Array {
        open: usize,
        close: usize,
        elements: Vec<Element>,
    },
}

/// Finds `permissions.allow`; an error naming the line when either is of another type.
fn locate(text: &str) -> Result<Located, Error> {
    let Some(top) = parse(text)? else {
        return Ok(Located::Nothing);
    };
    let Some((_, perm)) = top.get(PERMISSIONS) else {
        return Ok(Located::Top(top));
    };
    if text.as_bytes()[perm.value_start] != b'{' {
        return Err(Error::shape(
            Some(line_of(text, perm.value_start)),
            format!("\"{PERMISSIONS}\" is not an object; nothing was written"),
        ));
    }
    let permissions = scan_object(text, perm.value_start);
    let Some((_, allow)) = permissions.get(ALLOW) else {
        return Ok(Located::Permissions(permissions));
    };
    let open = allow.value_start;
    if text.as_bytes()[open] != b'[' {
        return Err(Error::shape(
            Some(line_of(text, open)),
            format!("\"{PERMISSIONS}.{ALLOW}\" is not an array; nothing was written"),
        ));
    }
    let (elements, close) = scan_array(text, open);
    Ok(Located::Array {
        open,
        close,
        elements,
    })
}

/// The elements of the array whose `[` is at `open`, and the position of its `]`. Only called
/// on valid JSON.
fn scan_array(text: &str, open: usize) -> (Vec<Element>, usize) {
    let b = text.as_bytes();
    let mut elements = Vec::new();
    let mut i = skip_ws(b, open + 1);
    while i < b.len() && b[i] != b']' {
        let end = skip_value(b, i);
        let value = match serde_json::from_str::<Value>(&text[i..end]) {
            Ok(Value::String(s)) => s,
            _ => String::new(),
        };
        elements.push(Element {
            start: i,
            end,
            value,
        });
        i = skip_ws(b, end);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
    }
    (elements, i.min(b.len().saturating_sub(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: [&str; 2] = ["mcp__goldfish__recall", "mcp__goldfish__checkpoint"];

    /// `allow` then `disallow` gives back `before`, and both are idempotent.
    fn round_trip(before: &str) -> Result<String, Error> {
        let after = allow(before, &RULES)?;
        assert_eq!(allow(&after, &RULES)?, after, "idempotent");
        assert_eq!(allowed(&after, &RULES)?, RULES);
        let value: Value = serde_json::from_str(&after).expect("valid JSON");
        assert!(value["permissions"]["allow"].is_array(), "{after}");
        assert_eq!(disallow(&after, &RULES)?, before, "reversible:\n{after}");
        Ok(after)
    }

    #[test]
    fn empty_file_gets_the_rules() -> Result<(), Error> {
        let after = round_trip("")?;
        assert_eq!(
            after,
            "{\n  \"permissions\": {\n    \"allow\": [\n      \"mcp__goldfish__recall\",\n      \
             \"mcp__goldfish__checkpoint\"\n    ]\n  }\n}\n"
        );
        Ok(())
    }

    #[test]
    fn every_shape_round_trips() -> Result<(), Error> {
        // As for the server entry, a document left with nothing becomes the empty string.
        assert_eq!(disallow(&allow("{}\n", &RULES)?, &RULES)?, "");
        round_trip("{\n  \"model\": \"opus\"\n}\n")?;
        round_trip("{\n  \"permissions\": {\n    \"deny\": [\"Bash\"]\n  }\n}\n")?;
        round_trip("{\n  \"permissions\": {\n    \"allow\": [\n      \"Read\"\n    ]\n  }\n}\n")?;
        round_trip("{\"permissions\": {\"allow\": [\"Read\", \"Edit\"]}}")?;
        round_trip("{\n\t\"permissions\": {\n\t\t\"allow\": [\"Read\"]\n\t},\n\t\"x\": 1\n}")?;
        Ok(())
    }

    #[test]
    fn a_present_rule_is_kept_once() -> Result<(), Error> {
        let before = "{\"permissions\": {\"allow\": [\"mcp__goldfish__recall\", \"Read\"]}}";
        let after = allow(before, &RULES)?;
        assert_eq!(after.matches("mcp__goldfish__recall").count(), 1);
        assert!(after.contains("mcp__goldfish__checkpoint"));
        // Removal takes every goldfish rule, wherever it is, and keeps the others.
        let removed = disallow(&after, &RULES)?;
        assert_eq!(removed, "{\"permissions\": {\"allow\": [\"Read\"]}}");
        Ok(())
    }

    #[test]
    fn wrong_types_are_refused_with_the_line() {
        let e = allow("{\n  \"permissions\": []\n}", &RULES);
        assert!(matches!(&e, Err(e) if e.line() == Some(2)), "{e:?}");
        let e = allow(
            "{\n  \"permissions\": {\n    \"allow\": \"x\"\n  }\n}",
            &RULES,
        );
        assert!(matches!(&e, Err(e) if e.line() == Some(3)), "{e:?}");
        assert!(allow("{", &RULES).is_err());
    }
}
