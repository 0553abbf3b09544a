//! Markdown from the store rendered as HTML that is safe to embed: stored text is never
//! trusted as markup.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag};

/// Renders `text` (CommonMark with tables, task lists and strikethrough) to HTML in which
/// stored text can never become markup: raw HTML, block or inline, is shown as text, and a
/// link or image keeps its target only when [`safe_url`] allows it (else it points to `#`).
///
/// ```
/// let html = goldfish_web::markdown_to_html("<script>x</script>\n\n[a](javascript:alert(1))");
/// assert!(html.contains("&lt;script&gt;") && html.contains(r##"<a href="#">a</a>"##));
/// ```
pub fn markdown_to_html(text: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES;
    let events = Parser::new_ext(text, options).map(|event| match event {
        Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: checked(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Image {
            link_type,
            dest_url: checked(dest_url),
            title,
            id,
        }),
        other => other,
    });
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    pulldown_cmark::html::push_html(&mut out, events);
    out
}

fn checked(url: CowStr<'_>) -> CowStr<'_> {
    if safe_url(&url) { url } else { "#".into() }
}

/// True for a link target a page may carry: relative (a path, `?query` or `#fragment`) or
/// with the scheme `http`, `https` or `mailto`. Browsers ignore tabs, newlines and other
/// control characters inside a scheme (`java\tscript:`), so they are ignored here too before
/// the scheme is compared.
///
/// ```
/// use goldfish_web::safe_url;
/// assert!(safe_url("https://example.com") && safe_url("../plans/x") && safe_url("#top"));
/// assert!(!safe_url("javascript:alert(1)") && !safe_url(" Java\tScript:x") && !safe_url("data:text/html,x"));
/// ```
pub fn safe_url(url: &str) -> bool {
    let cleaned: String = url
        .chars()
        .filter(|c| !c.is_ascii_control() && !c.is_whitespace())
        .collect();
    let end = cleaned.find([':', '/', '?', '#']);
    match end {
        Some(i) if cleaned[i..].starts_with(':') => {
            let scheme = cleaned[..i].to_ascii_lowercase();
            matches!(scheme.as_str(), "http" | "https" | "mailto")
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_is_text() {
        let html =
            markdown_to_html("<script>alert(1)</script>\n\nhi <img src=x onerror=y> </textarea>");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("</textarea>"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[test]
    fn unsafe_links_point_nowhere() {
        for link in [
            "[x](javascript:alert(1))",
            "[x](JAVASCRIPT:alert(1))",
            "<javascript:alert(1)>",
            "[x](vbscript:y)",
            "![x](data:image/svg+xml,<svg>)",
            "[x]: javascript:alert(1)\n\n[x]",
        ] {
            let html = markdown_to_html(link);
            assert!(
                !html.to_lowercase().contains("href=\"javascript:"),
                "{link} → {html}"
            );
            assert!(
                !html.to_lowercase().contains("href=\"vbscript:"),
                "{link} → {html}"
            );
            assert!(!html.contains("src=\"data:"), "{link} → {html}");
        }
        let ok = markdown_to_html("[x](https://example.com/a?b=1) [y](/w/a)");
        assert!(ok.contains(r#"href="https://example.com/a?b=1""#), "{ok}");
        assert!(ok.contains(r#"href="/w/a""#), "{ok}");
    }

    #[test]
    fn task_boxes_render() {
        let html = markdown_to_html("- [x] done\n- [ ] open\n");
        assert!(html.contains("checkbox"), "{html}");
    }
}
