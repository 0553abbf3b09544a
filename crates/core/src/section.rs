//! A lossless section model of a markdown document.
//!
//! [`Document::parse`] splits a document into an optional YAML frontmatter block, a preamble
//! (everything before the first heading) and one [`Section`] per top-level heading (`#` to
//! `######`, ATX or setext, exactly as [pulldown-cmark](pulldown_cmark) recognises them).
//! Headings inside fenced code, HTML blocks, block quotes or list items are not sections.
//!
//! Every part is a byte range of the original text, and the parts tile it: frontmatter +
//! preamble + every section's heading and body is byte for byte the input, whatever the input
//! is. Edits ([`Document::replace_section_body`], [`Document::insert_section_after`],
//! [`Document::remove_section`], …) splice the original string and parse again; nothing is ever
//! re-rendered from a parse tree, so everything outside the edited range is kept exactly.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// One top-level heading and the text up to the next top-level heading (of any level).
///
/// Ranges are byte offsets into [`Document::as_str`]. The heading range covers whole lines (the
/// heading's own line ending included; both lines of a setext heading); the body starts right
/// after it and ends where the next heading starts, or at the end of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Section {
    /// Heading level, 1 to 6.
    pub level: u8,
    /// The heading's text content (inline markup removed, trimmed): `Key Decisions`.
    pub heading: String,
    /// The heading line(s), including the line ending.
    pub heading_range: Range<usize>,
    /// The body, from after the heading to the next heading or the end.
    pub body_range: Range<usize>,
}

impl Section {
    /// The whole section: heading and body, without subsections' own headings beyond the body.
    pub fn range(&self) -> Range<usize> {
        self.heading_range.start..self.body_range.end
    }
}

/// A markdown document split into frontmatter, preamble and sections.
///
/// [`Document::parse`] splits a document into an optional YAML frontmatter block (`---` as
/// the very first line, closed by `---` or `...`), a preamble (everything before the first
/// heading) and one [`Section`] per top-level heading (`#` to `######`, ATX or setext, exactly
/// as pulldown-cmark recognises them). Headings inside fenced code, HTML blocks, block quotes
/// or list items are not sections.
///
/// Every part is a byte range of the original text, and the parts tile it: frontmatter +
/// preamble + every section's heading and body is byte for byte the input, whatever the input
/// is. Edits splice the original string and parse again; nothing is ever re-rendered from a
/// parse tree, so everything outside the edited range is kept exactly.
///
/// # Example
///
/// ```
/// use goldfish_core::Document;
///
/// let mut doc = Document::parse("# Title\nintro\n## Todo\n- one\n## Done\n- zero\n");
/// let todo = doc.find("Todo").expect("the Todo section exists");
/// assert_eq!(doc.section_body(todo), "- one\n");
/// doc.replace_section_body(todo, "- one\n- two\n");
/// assert_eq!(doc.as_str(), "# Title\nintro\n## Todo\n- one\n- two\n## Done\n- zero\n");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    text: String,
    frontmatter: Option<Range<usize>>,
    preamble: Range<usize>,
    sections: Vec<Section>,
}

impl Document {
    /// Splits `text` into parts. Never fails: any string is a document.
    pub fn parse(text: &str) -> Document {
        let (frontmatter, preamble, sections) = split(text);
        Document {
            text: text.to_string(),
            frontmatter,
            preamble,
            sections,
        }
    }

    /// The whole document.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The whole document, by value.
    pub fn into_string(self) -> String {
        self.text
    }

    /// The top-level sections in document order.
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// The frontmatter block including its `---` fences, if the document starts with one.
    pub fn frontmatter_block(&self) -> Option<&str> {
        self.frontmatter.clone().map(|r| &self.text[r])
    }

    /// The YAML between the frontmatter fences (without them), if the document starts with
    /// a frontmatter block.
    pub fn frontmatter(&self) -> Option<&str> {
        let block = self.frontmatter_block()?;
        let inner_start = line_end(block, 0);
        let closing_start = line_start(block, block.trim_end_matches(['\n', '\r']).len());
        Some(&block[inner_start..closing_start.max(inner_start)])
    }

    /// The byte range of the frontmatter block, fences included.
    pub fn frontmatter_range(&self) -> Option<Range<usize>> {
        self.frontmatter.clone()
    }

    /// Text after the frontmatter and before the first heading.
    pub fn preamble(&self) -> &str {
        &self.text[self.preamble.clone()]
    }

    /// The byte range of the preamble.
    pub fn preamble_range(&self) -> Range<usize> {
        self.preamble.clone()
    }

    /// The parts in order (frontmatter block, preamble, then each section's heading and body);
    /// their concatenation is exactly [`as_str`](Self::as_str). Empty parts are included.
    pub fn parts(&self) -> impl Iterator<Item = &str> + '_ {
        let fm = self.frontmatter.iter().map(|r| &self.text[r.clone()]);
        let pre = std::iter::once(&self.text[self.preamble.clone()]);
        let secs = self.sections.iter().flat_map(|s| {
            [
                &self.text[s.heading_range.clone()],
                &self.text[s.body_range.clone()],
            ]
        });
        fm.chain(pre).chain(secs)
    }

    /// Index of the first section whose heading text equals `heading` (surrounding whitespace
    /// ignored, ASCII case ignored).
    pub fn find(&self, heading: &str) -> Option<usize> {
        let want = heading.trim();
        self.sections
            .iter()
            .position(|s| s.heading.eq_ignore_ascii_case(want))
    }

    /// Like [`find`](Self::find), restricted to sections of `level`.
    pub fn find_at_level(&self, level: u8, heading: &str) -> Option<usize> {
        let want = heading.trim();
        self.sections
            .iter()
            .position(|s| s.level == level && s.heading.eq_ignore_ascii_case(want))
    }

    /// Section `index`: heading and body. Panics if `index` is out of range, like slicing.
    pub fn section_text(&self, index: usize) -> &str {
        &self.text[self.sections[index].range()]
    }

    /// Section `index`'s heading line(s).
    pub fn section_heading(&self, index: usize) -> &str {
        &self.text[self.sections[index].heading_range.clone()]
    }

    /// Section `index`'s body (up to the next heading of any level).
    pub fn section_body(&self, index: usize) -> &str {
        &self.text[self.sections[index].body_range.clone()]
    }

    /// The range of section `index` together with its subsections: up to the next heading of
    /// the same or a higher level (fewer `#`), or the end.
    pub fn subtree_range(&self, index: usize) -> Range<usize> {
        let sec = &self.sections[index];
        let end = self.sections[index + 1..]
            .iter()
            .find(|s| s.level <= sec.level)
            .map_or(self.text.len(), |s| s.heading_range.start);
        sec.heading_range.start..end
    }

    /// Replaces `range` with `with` and parses again. `range` must lie on character
    /// boundaries. The building block of the other edits.
    pub fn splice(&mut self, range: Range<usize>, with: &str) {
        self.text.replace_range(range, with);
        let (frontmatter, preamble, sections) = split(&self.text);
        self.frontmatter = frontmatter;
        self.preamble = preamble;
        self.sections = sections;
    }

    /// Replaces the body of section `index` (not its subsections). A newline is added to a
    /// non-empty body that lacks one when more text follows, so the next heading stays a heading.
    pub fn replace_section_body(&mut self, index: usize, body: &str) {
        let range = self.sections[index].body_range.clone();
        let mut body = terminated(body, range.end < self.text.len()).into_owned();
        // A heading at the very end may lack its line ending: give it one.
        if !body.is_empty() && !self.text[..range.start].ends_with(['\n', '\r']) {
            body.insert(0, '\n');
        }
        self.splice(range, &body);
    }

    /// Replaces section `index` (heading and body, not its subsections) with `text`, which
    /// should start with a heading. A final newline is added when more text follows.
    pub fn replace_section(&mut self, index: usize, text: &str) {
        let range = self.sections[index].range();
        let text = terminated(text, range.end < self.text.len());
        self.splice(range, &text);
    }

    /// Inserts `text` (normally a heading and its body) after section `index` and its
    /// subsections. Line endings are added where needed so the new text starts and ends on a
    /// line of its own.
    pub fn insert_section_after(&mut self, index: usize, text: &str) {
        let at = self.subtree_range(index).end;
        self.insert_at(at, text);
    }

    /// Appends `text` (normally a heading and its body) at the end of the document, on a line
    /// of its own.
    pub fn append_section(&mut self, text: &str) {
        self.insert_at(self.text.len(), text);
    }

    /// Removes section `index` together with its subsections.
    pub fn remove_section(&mut self, index: usize) {
        let range = self.subtree_range(index);
        self.splice(range, "");
    }

    fn insert_at(&mut self, at: usize, text: &str) {
        let before = &self.text[..at];
        let mut insert = String::with_capacity(text.len() + 2);
        if !before.is_empty() && !before.ends_with(['\n', '\r']) {
            insert.push('\n');
        }
        insert.push_str(text);
        if !insert.is_empty() && !insert.ends_with(['\n', '\r']) {
            insert.push('\n');
        }
        self.splice(at..at, &insert);
    }
}

fn terminated(text: &str, more_follows: bool) -> std::borrow::Cow<'_, str> {
    if more_follows && !text.is_empty() && !text.ends_with(['\n', '\r']) {
        format!("{text}\n").into()
    } else {
        text.into()
    }
}

/// Start of the line containing byte `at` (after the previous `\n` or `\r`).
fn line_start(text: &str, at: usize) -> usize {
    text.as_bytes()[..at]
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |i| i + 1)
}

/// End of the line containing byte `at`, after its line ending (`\n`, `\r\n` or `\r`).
fn line_end(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    match bytes[at..].iter().position(|&b| b == b'\n' || b == b'\r') {
        None => text.len(),
        Some(i) => {
            let i = at + i;
            if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                i + 2
            } else {
                i + 1
            }
        }
    }
}

/// Finds a YAML frontmatter block: `---` as the very first line, closed by a `---` or `...`
/// line. Returns its end (after the closing line's ending).
fn frontmatter_end(text: &str) -> Option<usize> {
    let first_end = line_end(text, 0);
    if first_end == text.len() && !text.ends_with(['\n', '\r']) {
        return None;
    }
    if text[..first_end].trim_end() != "---" {
        return None;
    }
    let mut at = first_end;
    while at < text.len() {
        let end = line_end(text, at);
        let line = text[at..end].trim_end();
        if line == "---" || line == "..." {
            return Some(end);
        }
        at = end;
    }
    None
}

type Split = (Option<Range<usize>>, Range<usize>, Vec<Section>);

fn split(text: &str) -> Split {
    let fm_end = frontmatter_end(text);
    let body_start = fm_end.unwrap_or(0);
    let markdown = &text[body_start..];

    // (level, heading text, heading range) of each top-level heading.
    let mut headings: Vec<(u8, String, Range<usize>)> = Vec::new();
    let mut depth = 0usize;
    let mut current: Option<(u8, String, Range<usize>)> = None;
    for (event, range) in Parser::new_ext(markdown, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) if depth == 0 => {
                current = Some((level as u8, String::new(), range));
                depth += 1;
            }
            Event::Start(_) => depth += 1,
            Event::End(TagEnd::Heading(_)) if depth == 1 => {
                depth = 0;
                if let Some(h) = current.take() {
                    headings.push(h);
                }
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, s, _)) = current.as_mut() {
                    s.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, s, _)) = current.as_mut() {
                    s.push(' ');
                }
            }
            _ => {}
        }
    }

    let mut sections: Vec<Section> = Vec::with_capacity(headings.len());
    let mut prev_end = 0usize; // relative to `markdown`
    for (level, heading, range) in headings {
        let start = line_start(markdown, range.start.min(markdown.len()));
        let end_probe = range.end.min(markdown.len());
        let end = if end_probe > start && markdown[..end_probe].ends_with(['\n', '\r']) {
            // Keep a `\r\n` pair together.
            if markdown[..end_probe].ends_with('\r') && markdown[end_probe..].starts_with('\n') {
                end_probe + 1
            } else {
                end_probe
            }
        } else {
            line_end(markdown, end_probe.max(start).min(markdown.len()))
        };
        // Ranges must tile the text: skip anything that would overlap (never expected).
        if start < prev_end || end < start {
            continue;
        }
        if let Some(last) = sections.last_mut() {
            last.body_range.end = body_start + start;
        }
        sections.push(Section {
            level,
            heading: heading.trim().to_string(),
            heading_range: body_start + start..body_start + end,
            body_range: body_start + end..text.len(),
        });
        prev_end = end;
    }
    let preamble_end = sections
        .first()
        .map_or(text.len(), |s| s.heading_range.start);
    (fm_end.map(|e| 0..e), body_start..preamble_end, sections)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headings(doc: &Document) -> Vec<(u8, &str, &str)> {
        doc.sections()
            .iter()
            .enumerate()
            .map(|(i, s)| (s.level, s.heading.as_str(), doc.section_heading(i)))
            .collect()
    }

    #[test]
    fn splits_as_pulldown_sees_headings() {
        type Case<'a> = (&'a str, &'a [(u8, &'a str, &'a str)]);
        let cases: &[Case<'_>] = &[
            ("", &[]),
            ("no headings\n", &[]),
            (
                "# A\nbody\n## B\n",
                &[(1, "A", "# A\n"), (2, "B", "## B\n")],
            ),
            (
                "Setext\n======\ntext\n",
                &[(1, "Setext", "Setext\n======\n")],
            ),
            ("Two\n---\n", &[(2, "Two", "Two\n---\n")]),
            (
                "```\n# not a heading\n```\n# Yes\n",
                &[(1, "Yes", "# Yes\n")],
            ),
            ("> # quoted\n- # listed\n", &[]),
            (
                "  ### Indented `code` *em*  \n",
                &[(3, "Indented code em", "  ### Indented `code` *em*  \n")],
            ),
            ("# CRLF\r\nbody\r\n", &[(1, "CRLF", "# CRLF\r\n")]),
            ("# no newline", &[(1, "no newline", "# no newline")]),
            ("#\n", &[(1, "", "#\n")]),
            ("####### seven\n", &[]),
        ];
        for (input, want) in cases {
            let doc = Document::parse(input);
            assert_eq!(headings(&doc), *want, "{input:?}");
            assert_eq!(doc.parts().collect::<String>(), *input);
        }
    }

    #[test]
    fn frontmatter_is_split_off() {
        let cases = [
            ("---\ntitle: x\n---\n# H\n", Some("title: x\n"), ""),
            ("---\r\na: 1\r\n...\r\npre\n", Some("a: 1\r\n"), "pre\n"),
            ("---\n---\n", Some(""), ""),
            ("---\nunclosed\n", None, "---\nunclosed\n"),
            ("text\n---\n", None, ""),
            (" ---\na\n---\n", None, ""),
        ];
        for (input, yaml, preamble) in cases {
            let doc = Document::parse(input);
            assert_eq!(doc.frontmatter(), yaml, "{input:?}");
            if yaml.is_some() {
                assert_eq!(doc.preamble(), preamble, "{input:?}");
            }
            assert_eq!(doc.parts().collect::<String>(), input);
        }
    }

    #[test]
    fn edits_splice_the_original() {
        let src = "pre\n# A\na\n## A1\na1\n# B\nb";
        let mut doc = Document::parse(src);
        assert_eq!(doc.subtree_range(0), 4..19);
        doc.replace_section_body(2, "B body");
        assert_eq!(doc.as_str(), "pre\n# A\na\n## A1\na1\n# B\nB body");
        doc.insert_section_after(0, "# New\nn");
        assert_eq!(
            doc.as_str(),
            "pre\n# A\na\n## A1\na1\n# New\nn\n# B\nB body"
        );
        doc.append_section("# End");
        assert_eq!(
            doc.as_str(),
            "pre\n# A\na\n## A1\na1\n# New\nn\n# B\nB body\n# End\n"
        );
        doc.remove_section(0);
        assert_eq!(doc.as_str(), "pre\n# New\nn\n# B\nB body\n# End\n");
        doc.replace_section(0, "## Renamed");
        assert_eq!(doc.as_str(), "pre\n## Renamed\n# B\nB body\n# End\n");
        let b = doc.find("b").expect("B exists");
        doc.replace_section_body(b, "x");
        assert_eq!(doc.as_str(), "pre\n## Renamed\n# B\nx\n# End\n");
        let end = doc.find("End").expect("End exists");
        doc.replace_section_body(end, "tail");
        assert_eq!(doc.section_body(end), "tail");
        let mut bare = Document::parse("# a");
        bare.replace_section_body(0, "b");
        assert_eq!(
            (bare.as_str(), bare.section_heading(0)),
            ("# a\nb", "# a\n")
        );
        assert_eq!(doc.find_at_level(2, "renamed"), Some(0));
        assert_eq!(doc.find_at_level(1, "renamed"), None);
    }
}
