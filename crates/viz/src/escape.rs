//! The one escaper for everything a report's strings reach: HTML element content and
//! attribute values ([`esc`]), the JSON islands inside `<script>` ([`island`]), and the text
//! plotters writes into the SVG ([`label`]; plotters escapes markup itself, svg.rs
//! `escape_and_push`, so only what no markup escape covers is done there).
//!
//! What no escape of `<`/`&` covers, done for every kind: NUL and the other C0/C1 controls
//! (but tab and newline) become U+FFFD, and the bidirectional controls (U+202A–U+202E,
//! U+2066–U+2069, U+200E/U+200F, U+061C), which would reorder the rest of a line (a job
//! name reversing the advice beside it), are shown as `[U+202E]`. In an island `<`, `>`
//! and `&` are `\u003c`, `\u003e`, `\u0026`, so no name can open a comment or a script
//! end tag inside it (HTML's "script data double escaped" state would swallow the page up
//! to a later `</script>`); U+2028/U+2029 are escaped as JSON allows.

use std::fmt::Write;

/// The bidirectional controls: they reorder the rest of a line.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// A character no escape of markup makes harmless: its replacement, or `None` to keep it.
fn neutral(c: char, o: &mut String) -> bool {
    match c {
        '\t' | '\n' => false,
        c if c.is_control() => {
            o.push('\u{FFFD}');
            true
        }
        c if is_bidi(c) => {
            let _ = write!(o, "[U+{:04X}]", c as u32);
            true
        }
        _ => false,
    }
}

/// Text for HTML element content or a quoted attribute value.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if neutral(c, &mut o) => {}
            c => o.push(c),
        }
    }
    o
}

/// Text handed to plotters for the SVG (titles, axis labels, series and category names):
/// the controls neutralised; plotters escapes the markup characters.
pub fn label(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        if !neutral(c, &mut o) {
            o.push(c);
        }
    }
    o
}

/// A JSON document for a `<script type="application/json">` island: still the same JSON
/// (the escapes are inside strings, where `JSON.parse` reads them back), with no `<`, `>`
/// or `&` the HTML parser could act on. Strings in `json` keep their text: the hover shows
/// names as given (as `textContent`, never as markup).
pub fn island(json: &str) -> String {
    let mut o = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => o.push_str("\\u003c"),
            '>' => o.push_str("\\u003e"),
            '&' => o.push_str("\\u0026"),
            '\u{2028}' => o.push_str("\\u2028"),
            '\u{2029}' => o.push_str("\\u2029"),
            // The bidi and C1 controls stay what they are for `JSON.parse` (the hover shows the
            // name as given, as text), but never stand raw in the file, where an editor or a
            // viewer of the page's source would reorder the line around them.
            c if !matches!(c, '\t' | '\n' | '\r') && (c.is_control() || is_bidi(c)) => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: [&str; 7] = [
        "<!--<script> j2",
        "</script><b>x",
        "\"'><img src=x onerror=alert(1)>",
        "a\u{202E}b",
        "n\0ul",
        "&amp;",
        "c1\u{85}next",
    ];

    #[test]
    fn markup_text_has_no_active_character_left() {
        for h in HOSTILE {
            let e = esc(h);
            assert!(!e.contains(['<', '>', '"', '\'', '\0', '\u{202E}']), "{h:?} -> {e:?}");
        }
        assert_eq!(esc("<!--<script> j2"), "&lt;!--&lt;script&gt; j2");
        assert_eq!(esc("a\u{202E}b\0"), "a[U+202E]b\u{FFFD}");
        assert_eq!(esc("&amp;"), "&amp;amp;");
        assert_eq!(label("r\u{2067}w<"), "r[U+2067]w<");
    }

    #[test]
    fn islands_parse_back_to_the_same_names_and_hold_no_markup() {
        for h in HOSTILE {
            let json = serde_json::json!({ "n": h }).to_string();
            let i = island(&json);
            assert!(!i.contains(['<', '>', '&', '\u{202E}', '\u{85}']), "{i}");
            let back: serde_json::Value = serde_json::from_str(&i).unwrap();
            assert_eq!(back["n"], h);
        }
        assert_eq!(island("{\"n\":\"<!--\"}"), "{\"n\":\"\\u003c!--\"}");
    }
}
