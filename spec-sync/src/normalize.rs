//! Text normalization and fingerprints.
//!
//! A fingerprint should change when the *words* of a step change, and not when only its markup
//! does: an editor who turns `|x|` into `<var>x</var>`, rewraps a paragraph, or changes
//! `[=tool map=]` into `[=model context/tool map=]` has not changed what the step says. So the
//! text is reduced to what a reader of the rendered draft sees, in a fixed order of passes:
//!
//! 1. whitespace (including line breaks) collapses to single spaces, so rewrapping is invisible;
//! 2. HTML comments are dropped;
//! 3. element links `<{form}>` become `form`;
//! 4. Bikeshed autolinks become their shown text: `[=for/term|shown=]` → `shown`,
//!    `[=for/term=]` → `term` (the part after the last `/`), the same for `{{Interface/member}}`
//!    and `[$abstract-op$]`; `[[!REF]]` and `[[REF]]` → `REF`; `''x''` → `x`; markdown links
//!    `[text](url)` → `text`;
//! 5. HTML tags are removed (block-level tags leave a space, inline ones nothing);
//! 6. character references (`&rarr;`, `&amp;`, `&#8594;`, …) are decoded;
//! 7. variables `|name|` become `name`;
//! 8. markdown code and emphasis marks (backticks, `*` next to a word) are removed;
//! 9. whitespace collapses again and the result is trimmed.
//!
//! Every pass is a single left-to-right scan whose look-ahead is bounded (2 KiB), so a
//! hostile input full of unclosed `[=` costs linear time rather than quadratic.

use std::fmt;

/// How far a pass looks ahead for the closing half of a construct (`=]`, `}}`, `>`, …).
pub(crate) const WINDOW: usize = 2048;

/// The normalized text of a fragment of Bikeshed source. See the module documentation.
pub fn normalize(raw: &str) -> String {
    let s = collapse_whitespace(raw);
    let s = strip_comments(&s);
    let s = unwrap_element_links(&s);
    let s = unwrap_autolinks(&s);
    let s = strip_tags(&s);
    let s = decode_entities(&s);
    let s = unwrap_variables(&s);
    let s = strip_inline_markdown(&s);
    collapse_whitespace(&s)
}

/// The FNV-1a 64-bit hash of a normalized text, shown as 16 lowercase hex digits.
///
/// FNV-1a is implemented here, over the UTF-8 bytes of the text, so that the value is the same
/// on every platform and with every version of every dependency: the fingerprints are stored in
/// a file and compared across years.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub u64);

impl Fingerprint {
    /// The fingerprint of an (already normalized) text.
    pub fn of(text: &str) -> Fingerprint {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        Fingerprint(h)
    }

    /// Parses exactly 16 lowercase hex digits.
    pub fn from_hex(s: &str) -> Option<Fingerprint> {
        if s.len() != 16
            || !s
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return None;
        }
        u64::from_str_radix(s, 16).ok().map(Fingerprint)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// A text's *sketch*: each of its words (see `words`) as 8 hex digits of its FNV-1a hash,
/// separated by spaces. The store keeps sketches rather than the draft's sentences, so the
/// project ships no copy of the spec; the drift heuristics only compare words for equality,
/// which a sketch preserves (two words share a token only by a 2^-32 collision).
pub fn sketch(text: &str) -> String {
    words(text)
        .iter()
        .map(|w| format!("{:08x}", Fingerprint::of(w).0 as u32))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `s` is a sketch: 8-hex-digit tokens separated by single spaces (or nothing).
pub fn is_sketch(s: &str) -> bool {
    s.is_empty()
        || s.split(' ').all(|t| {
            t.len() == 8
                && t.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
}

/// The lowercase alphanumeric words of a text, in order (used by the drift heuristics).
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            pending_space = true;
        } else {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push(c);
        }
    }
    out
}

/// The byte offset of `pat` in `s`, looking at most [`WINDOW`] bytes ahead.
pub(crate) fn find_near(s: &str, pat: &str) -> Option<usize> {
    let mut end = s.len().min(WINDOW);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].find(pat)
}

fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find("<!--") {
        out.push_str(&rest[..p]);
        match rest[p + 4..].find("-->") {
            Some(q) => rest = &rest[p + 4 + q + 3..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

fn unwrap_element_links(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find("<{") {
        out.push_str(&rest[..p]);
        let after = &rest[p + 2..];
        match find_near(after, "}>") {
            Some(q) => {
                out.push_str(link_text(&after[..q]));
                rest = &after[q + 2..];
            }
            None => {
                out.push_str("<{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The shown text of an autolink body: after `|` if there is one, else after the last `/`.
fn link_text(inner: &str) -> &str {
    if let Some((_, shown)) = inner.split_once('|') {
        return shown;
    }
    match inner.rfind('/') {
        Some(p) if p + 1 < inner.len() => &inner[p + 1..],
        _ => inner,
    }
}

fn unwrap_autolinks(s: &str) -> String {
    const PAIRS: [(&str, &str); 5] = [
        ("[=", "=]"),
        ("{{", "}}"),
        ("[$", "$]"),
        ("[[", "]]"),
        ("''", "''"),
    ];
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    'scan: while i < s.len() {
        let rest = &s[i..];
        for (open, close) in PAIRS {
            if let Some(after) = rest.strip_prefix(open) {
                if let Some(q) = find_near(after, close) {
                    let inner = &after[..q];
                    match open {
                        "[[" => out.push_str(inner.trim_start_matches('!')),
                        "''" => out.push_str(inner),
                        _ => out.push_str(link_text(inner)),
                    }
                    i += open.len() + q + close.len();
                    continue 'scan;
                }
            }
        }
        // A markdown link `[text](url)`.
        if let Some(after) = rest.strip_prefix('[') {
            if let Some(q) = find_near(after, "](") {
                let text = &after[..q];
                if !text.contains(']') && !text.contains('[') {
                    if let Some(r) = find_near(&after[q + 2..], ")") {
                        out.push_str(text);
                        i += 1 + q + 2 + r + 1;
                        continue 'scan;
                    }
                }
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

const BLOCK_TAGS: [&str; 20] = [
    "p",
    "div",
    "li",
    "ol",
    "ul",
    "dl",
    "dt",
    "dd",
    "br",
    "hr",
    "table",
    "tr",
    "td",
    "th",
    "pre",
    "xmp",
    "blockquote",
    "thead",
    "tbody",
    "section",
];

fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let c = rest.chars().next().unwrap_or(' ');
        if c == '<' {
            let next = rest[1..].chars().next();
            if matches!(next, Some(n) if n.is_ascii_alphabetic() || n == '/' || n == '!') {
                if let Some(q) = find_near(rest, ">") {
                    let name: String = rest[1..q]
                        .trim_start_matches('/')
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric())
                        .collect::<String>()
                        .to_ascii_lowercase();
                    if BLOCK_TAGS.contains(&name.as_str()) {
                        out.push(' ');
                    }
                    i += q + 1;
                    continue;
                }
            }
        }
        out.push(c);
        i += c.len_utf8();
    }
    out
}

fn named_entity(name: &str) -> Option<&'static str> {
    Some(match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => " ",
        "rarr" => "→",
        "larr" => "←",
        "harr" => "↔",
        "mdash" => "—",
        "ndash" => "–",
        "hellip" => "…",
        "lsquo" => "‘",
        "rsquo" => "’",
        "ldquo" => "“",
        "rdquo" => "”",
        "times" => "×",
        "le" => "≤",
        "ge" => "≥",
        "ne" => "≠",
        "equiv" => "≡",
        "copy" => "©",
        "sect" => "§",
        _ => return None,
    })
}

fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let c = rest.chars().next().unwrap_or(' ');
        if c == '&' {
            let body: String = rest[1..]
                .chars()
                .take(12)
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '#')
                .collect();
            if rest[1 + body.len()..].starts_with(';') && !body.is_empty() {
                let decoded = if let Some(num) = body.strip_prefix('#') {
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => num.parse::<u32>().ok(),
                    };
                    code.and_then(char::from_u32).map(String::from)
                } else {
                    named_entity(&body).map(String::from)
                };
                if let Some(d) = decoded {
                    out.push_str(&d);
                    i += 1 + body.len() + 1;
                    continue;
                }
            }
        }
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// `|name|` → `name`, for a name of at most 64 characters that neither starts nor ends with a
/// space (so `a || b` in code is left alone).
fn unwrap_variables(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let c = rest.chars().next().unwrap_or(' ');
        if c == '|' {
            let after = &rest[1..];
            let name: String = after.chars().take(65).take_while(|c| *c != '|').collect();
            let closes = after[name.len()..].starts_with('|');
            if closes
                && !name.is_empty()
                && name.chars().count() <= 64
                && !name.starts_with(' ')
                && !name.ends_with(' ')
            {
                out.push_str(&name);
                i += 1 + name.len() + 1;
                continue;
            }
        }
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Drops backticks, backslash escapes before ASCII punctuation, and `*` that touches a
/// non-space character (markdown emphasis); a lone ` * ` between spaces stays.
fn strip_inline_markdown(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        let prev = if k > 0 { Some(chars[k - 1]) } else { None };
        let next = chars.get(k + 1).copied();
        match c {
            '`' => {}
            '\\' if matches!(next, Some(n) if n.is_ascii_punctuation()) => {
                if let Some(n) = next {
                    out.push(n);
                }
                k += 1;
            }
            '*' => {
                let touches =
                    |o: Option<char>| matches!(o, Some(x) if !x.is_whitespace() && x != '*');
                if !(touches(prev) || touches(next)) {
                    out.push('*');
                }
            }
            _ => out.push(c),
        }
        k += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_known_values() {
        // Reference values of FNV-1a 64.
        assert_eq!(Fingerprint::of("").to_string(), "cbf29ce484222325");
        assert_eq!(Fingerprint::of("a").to_string(), "af63dc4c8601ec8c");
        assert_eq!(Fingerprint::of("foobar").to_string(), "85944171f73967e8");
    }

    #[test]
    fn hex_round_trip_is_strict() {
        let f = Fingerprint::of("x");
        assert_eq!(Fingerprint::from_hex(&f.to_string()), Some(f));
        assert_eq!(Fingerprint::from_hex("ABCDEF0123456789"), None);
        assert_eq!(Fingerprint::from_hex("abc"), None);
        assert_eq!(Fingerprint::from_hex("+bcdef0123456789"), None);
    }

    #[test]
    fn markup_is_removed() {
        let raw = "1. Let |localExecutions| be |targetDocument|'s [=Document/associated ModelContext|associated\n   <code>ModelContext</code>=]'s [=ModelContext/internal context=]'s {{ModelContext/registerTool()}} [[!JSON-SCHEMA]] <var>x</var> ''y'' &rarr; <{form}> [$is origin potentially trustworthy?|potentially trustworthy$] `z` Web*MCP*";
        assert_eq!(
            normalize(raw),
            "1. Let localExecutions be targetDocument's associated ModelContext's internal context's registerTool() JSON-SCHEMA x y → form potentially trustworthy z WebMCP"
        );
    }

    #[test]
    fn variables_with_brackets() {
        assert_eq!(normalize("|toolMap|[|toolName|]"), "toolMap[toolName]");
        assert_eq!(normalize("a || b"), "a || b");
        assert_eq!(normalize("[=map/Remove=] |m|[|uuid|]."), "Remove m[uuid].");
    }

    #[test]
    fn hostile_fragments_do_not_panic() {
        for s in [
            "[=",
            "{{",
            "<",
            "<a",
            "&",
            "&#x110000;",
            "|",
            "[x](",
            "<!--",
            "''",
            "é|é",
            "\\",
            "*",
        ] {
            let _ = normalize(s);
        }
    }
}
