//! Reading step IDs out of the Bikeshed source.
//!
//! Bikeshed algorithms are markdown lists inside `<div algorithm>` blocks, with HTML mixed in.
//! A full markdown or HTML parser would not help much: what matters is the nesting that an
//! editor expresses by *indentation*, and Bikeshed's rule for that is simpler than CommonMark's.
//! A line belongs to a list item when it is more indented than the item's marker (so the
//! children of `1. Run the following steps` may sit at column 2 as well as 3 or 5), and an open
//! `<div>`/`<xmp>` keeps its lines together whatever their indentation.
//!
//! Inside an algorithm block the parser recognises, at every level:
//! - ordered items `1.` (and bullets `-`, `*`, `+`): steps, numbered in order;
//!   a bullet whose first paragraph mentions "fulfilled" or "rejected" is a promise-reaction
//!   branch instead, and its steps are `…#N.fulfilled.M` / `…#N.rejected.M`;
//! - definition items `: term` / `:: definition`: struct or dictionary items, `…#N[key]`, where
//!   the key is the shown text of the term (`[=tool definition/input schema=]` → `input schema`);
//! - paragraphs starting `Note:` or `Issue:`/`Issue(#n):`: `…#N.note`, `…#N.issue`;
//! - `<div class=note>` blocks: `…#N.note`, their `<li>` items `…#N.note.1`, …, and any
//!   `<div class=example>` inside them belongs to the step (`…#N.example`);
//! - `<div class=example>` blocks: `…#N.example`;
//! - any other paragraph is part of the text of the step it sits in.
//!
//! When one owner has several attachments of one kind they are numbered: `.issue-1`, `.issue-2`.
//! Attachments at the level of the algorithm itself hang off the slug: `slug.issue`. The
//! paragraph that introduces an algorithm ("To *do a thing* given …:") is not a step.
//!
//! A step's own text is its first paragraph and any further plain paragraphs, plus the first
//! paragraph of each reaction branch (the branches have no ID of their own); it never includes
//! sub-steps, items, notes or examples, so that changing a child leaves the parent's
//! fingerprint alone. The one exception is a definition list nested inside an item (the four
//! hints of `register-tool#18[annotations]`): our scheme gives those no IDs, so their
//! `key: text` is part of the enclosing item's text.
//!
//! Limits, so that hostile input gives an error instead of a crash or a hang: the input is at
//! most [`MAX_INPUT`] bytes, lists nest at most [`MAX_DEPTH`] levels, and there are at most
//! [`MAX_STEPS`] steps. A `<div algorithm>`
//! that is never closed is an error; everything else that is malformed (unclosed tags, stray
//! `::`, unbalanced lists) is read as well as it can be.

use std::collections::BTreeSet;
use std::fmt;

use crate::normalize::{find_near, normalize, Fingerprint};
use crate::slugs::{fallback_slug, slug_for};

/// The largest source accepted, in bytes (the real draft is under 100 KiB). Reading costs
/// about 70 bytes per line before any step is found, so a source of newlines at this limit
/// takes under 300 MB.
pub const MAX_INPUT: usize = 4 * 1024 * 1024;
/// The deepest nesting of steps, items and branches accepted (the draft uses 5).
pub const MAX_DEPTH: usize = 32;
/// The most steps (with items, notes, issues and examples) accepted: the draft has a few
/// hundred, and comparing and reporting costs a few KiB per step, so a source of a million
/// one-line steps (5 MiB) would take gigabytes.
pub const MAX_STEPS: usize = 50_000;

/// What a step ID names. The names follow `StepKind` of the model crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// An algorithm step that does something.
    Step,
    /// A step that starts `Assert:`.
    Assert,
    /// A struct or dictionary item listed in a step (`register-tool#18[name]`).
    Item,
    /// A note attached to a step, or an item of a list inside such a note.
    Note,
    /// An issue paragraph.
    Issue,
    /// An example block.
    Example,
    /// A step that starts `TODO`.
    Todo,
}

impl Kind {
    /// The lowercase name used in the store file.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Step => "step",
            Kind::Assert => "assert",
            Kind::Item => "item",
            Kind::Note => "note",
            Kind::Issue => "issue",
            Kind::Example => "example",
            Kind::Todo => "todo",
        }
    }

    /// The kind named by [`Kind::as_str`].
    pub fn from_name(s: &str) -> Option<Kind> {
        Some(match s {
            "step" => Kind::Step,
            "assert" => Kind::Assert,
            "item" => Kind::Item,
            "note" => Kind::Note,
            "issue" => Kind::Issue,
            "example" => Kind::Example,
            "todo" => Kind::Todo,
            _ => return None,
        })
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step (or item, note, issue, example) of the source, in our ID scheme.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceStep {
    pub id: String,
    pub kind: Kind,
    /// The normalized text (see [`crate::normalize()`]), without sub-steps.
    pub text: String,
    pub fingerprint: Fingerprint,
    /// 1-based line in the source where the step starts.
    pub line: usize,
}

/// One `<div algorithm>` block of the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Algorithm {
    /// Our slug: from the slug table, or derived from the key when `known` is false.
    pub slug: String,
    /// The key the slug table is searched with (see [`crate::slugs`]).
    pub key: String,
    /// Whether the key is in the slug table.
    pub known: bool,
    /// 1-based line of the `<div algorithm>` tag.
    pub line: usize,
}

/// The result of [`parse_spec`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedSpec {
    pub algorithms: Vec<Algorithm>,
    /// In source order.
    pub steps: Vec<SourceStep>,
}

/// Why a source could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The input is larger than [`MAX_INPUT`].
    TooLarge { len: usize, max: usize },
    /// A `<div algorithm>` has no matching `</div>`.
    UnclosedAlgorithm { line: usize },
    /// Lists nest deeper than [`MAX_DEPTH`].
    TooDeep { line: usize, max: usize },
    /// More than [`MAX_STEPS`] steps.
    TooManySteps { line: usize, max: usize },
    /// Two algorithm blocks map to the same slug, so their step IDs would collide.
    DuplicateAlgorithm {
        slug: String,
        line: usize,
        first_line: usize,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::TooLarge { len, max } => {
                write!(f, "The source is {len} bytes long, more than the {max} bytes accepted.")
            }
            ParseError::UnclosedAlgorithm { line } => {
                write!(f, "The algorithm block opened at line {line} is never closed with </div>.")
            }
            ParseError::TooDeep { line, max } => {
                write!(f, "The list at line {line} nests deeper than the {max} levels accepted.")
            }
            ParseError::TooManySteps { line, max } => {
                write!(f, "The step at line {line} is one more than the {max} steps accepted.")
            }
            ParseError::DuplicateAlgorithm { slug, line, first_line } => write!(
                f,
                "The algorithm block at line {line} has the slug \"{slug}\", which the block at line {first_line} already has."
            ),
        }
    }
}

impl std::error::Error for ParseError {}

/// The steps of every algorithm of `source`, in source order. See the module documentation.
pub fn parse(source: &str) -> Result<Vec<SourceStep>, ParseError> {
    parse_spec(source).map(|spec| spec.steps)
}

/// The algorithms and steps of `source`.
pub fn parse_spec(source: &str) -> Result<ParsedSpec, ParseError> {
    if source.len() > MAX_INPUT {
        return Err(ParseError::TooLarge {
            len: source.len(),
            max: MAX_INPUT,
        });
    }
    let lines: Vec<Line> = source
        .split('\n')
        .enumerate()
        .map(|(i, l)| Line::new(i + 1, l))
        .collect();
    let mut spec = ParsedSpec::default();
    let mut emitter = Emitter::default();
    let mut top = Html::default();
    let mut i = 0;
    while i < lines.len() {
        if !top.in_raw() && is_algorithm_div(lines[i].text) {
            let end =
                block_end(&lines, i).ok_or(ParseError::UnclosedAlgorithm { line: lines[i].no })?;
            let inner = &lines[i + 1..end.max(i + 1)];
            let key = algorithm_key(&lines[i..=end]);
            let (slug, known) = match slug_for(&key) {
                Some(s) => (s.to_string(), true),
                None => (fallback_slug(&key, lines[i].no), false),
            };
            if let Some(first) = spec.algorithms.iter().find(|a| a.slug == slug) {
                return Err(ParseError::DuplicateAlgorithm {
                    slug,
                    line: lines[i].no,
                    first_line: first.line,
                });
            }
            spec.algorithms.push(Algorithm {
                slug: slug.clone(),
                key,
                known,
                line: lines[i].no,
            });
            emitter.container(inner, &slug, Scope::Top, 0)?;
            i = end + 1;
            continue;
        }
        top.feed(lines[i].text);
        i += 1;
    }
    let mut steps = emitter.out;
    // Stable: a parent was reserved before its children, so it stays first on a shared line.
    steps.sort_by_key(|s| s.line);
    spec.steps = steps;
    Ok(spec)
}

#[derive(Clone, Copy, Debug)]
struct Line<'a> {
    no: usize,
    indent: usize,
    /// Without leading whitespace and without a trailing `\r`.
    text: &'a str,
}

impl<'a> Line<'a> {
    fn new(no: usize, raw: &'a str) -> Line<'a> {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let mut indent = 0;
        for c in raw.chars() {
            match c {
                ' ' => indent += 1,
                '\t' => indent += 4,
                _ => break,
            }
        }
        Line {
            no,
            indent,
            text: raw.trim_start_matches([' ', '\t']),
        }
    }
    fn blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

/// Tracks `<div>` depth and raw-text regions (`<xmp>`, `<pre>`, code fences, comments) across
/// lines, so that a `</div>` inside example code does not close anything.
#[derive(Default)]
struct Html {
    depth: usize,
    raw_end: Option<&'static str>,
    fence: bool,
    comment: bool,
}

impl Html {
    fn in_raw(&self) -> bool {
        self.raw_end.is_some() || self.fence || self.comment
    }
    fn open(&self) -> bool {
        self.depth > 0 || self.in_raw()
    }
    fn feed(&mut self, text: &str) {
        if !self.comment && self.raw_end.is_none() && text.trim_start().starts_with("```") {
            self.fence = !self.fence;
            return;
        }
        if self.fence {
            return;
        }
        let mut rest = text;
        loop {
            if self.comment {
                match rest.find("-->") {
                    Some(p) => {
                        rest = &rest[p + 3..];
                        self.comment = false;
                    }
                    None => return,
                }
            }
            if let Some(end) = self.raw_end {
                match rest.find(end) {
                    Some(p) => {
                        rest = &rest[p + end.len()..];
                        self.raw_end = None;
                    }
                    None => return,
                }
            }
            let Some(p) = rest.find('<') else { return };
            rest = &rest[p..];
            if rest.starts_with("<!--") {
                self.comment = true;
                rest = &rest[4..];
            } else if is_tag(rest, "xmp") {
                self.raw_end = Some("</xmp>");
                rest = &rest[4..];
            } else if is_tag(rest, "pre") {
                self.raw_end = Some("</pre>");
                rest = &rest[4..];
            } else if is_tag(rest, "div") {
                self.depth += 1;
                rest = &rest[4..];
            } else if is_tag(rest, "/div") {
                self.depth = self.depth.saturating_sub(1);
                rest = &rest[5..];
            } else {
                rest = &rest[1..];
            }
        }
    }
}

/// Whether `s` starts with the tag `<name` followed by a delimiter.
fn is_tag(s: &str, name: &str) -> bool {
    let Some(after) = s.strip_prefix('<').and_then(|r| r.strip_prefix(name)) else {
        return false;
    };
    matches!(after.chars().next(), None | Some(' ' | '\t' | '>' | '/'))
}

/// The attributes of the tag at the start of `s` (up to the first `>` on the line).
fn tag_attrs(s: &str) -> Vec<(String, String)> {
    let Some(body) = find_near(s, ">").and_then(|end| s.get(1..end)) else {
        return Vec::new();
    };
    let mut chars = body.chars().peekable();
    // Skip the tag name.
    while matches!(chars.peek(), Some(c) if !c.is_whitespace()) {
        chars.next();
    }
    let mut attrs = Vec::new();
    loop {
        while matches!(chars.peek(), Some(c) if c.is_whitespace()) {
            chars.next();
        }
        let mut name = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() || c == '=' || c == '/' {
                break;
            }
            name.push(c);
            chars.next();
        }
        if name.is_empty() {
            if chars.next().is_none() {
                break;
            }
            continue;
        }
        let mut value = String::new();
        if chars.peek() == Some(&'=') {
            chars.next();
            match chars.peek().copied() {
                Some(q @ ('"' | '\'')) => {
                    chars.next();
                    for c in chars.by_ref() {
                        if c == q {
                            break;
                        }
                        value.push(c);
                    }
                }
                _ => {
                    while let Some(&c) = chars.peek() {
                        if c.is_whitespace() {
                            break;
                        }
                        value.push(c);
                        chars.next();
                    }
                }
            }
        }
        attrs.push((name.to_ascii_lowercase(), value));
    }
    attrs
}

fn is_algorithm_div(text: &str) -> bool {
    is_tag(text, "div") && tag_attrs(text).iter().any(|(n, _)| n == "algorithm")
}

/// The class of a `<div>` (or `<p>`) tag at the start of `text`.
fn tag_class(text: &str) -> String {
    tag_attrs(text)
        .into_iter()
        .find(|(n, _)| n == "class")
        .map(|(_, v)| v)
        .unwrap_or_default()
}

/// The index of the line on which the `<div>` opened at `lines[start]` closes.
fn block_end(lines: &[Line], start: usize) -> Option<usize> {
    let mut html = Html::default();
    for (j, line) in lines.iter().enumerate().skip(start) {
        html.feed(line.text);
        if !html.open() {
            return Some(j);
        }
    }
    None
}

/// The slug-table key of the algorithm block `block` (first line: the `<div algorithm>` tag).
fn algorithm_key(block: &[Line]) -> String {
    let attr = tag_attrs(block[0].text)
        .into_iter()
        .find(|(n, _)| n == "algorithm")
        .map(|(_, v)| v);
    if let Some(v) = attr.filter(|v| !v.trim().is_empty()) {
        return normalize(&v);
    }
    let joined: String = block.iter().map(|l| l.text).collect::<Vec<_>>().join("\n");
    let Some(p) = joined.find("<dfn") else {
        return String::new();
    };
    let tag = &joined[p..];
    let Some(open_end) = find_near(tag, ">") else {
        return String::new();
    };
    let is_attribute = tag_attrs(tag).iter().any(|(n, _)| n == "attribute");
    let body = &tag[open_end + 1..];
    let Some(close) = find_near(body, "</dfn>") else {
        return normalize(body.lines().next().unwrap_or(""));
    };
    let mut key = normalize(&body[..close]);
    if is_attribute {
        let after = normalize(body[close + 6..].lines().next().unwrap_or(""));
        for accessor in ["getter", "setter"] {
            if after.starts_with(accessor) {
                key = format!("{key} {accessor}");
            }
        }
    }
    key
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockKind {
    Ordered,
    Bullet,
    Term,
    Div,
    Para,
}

#[derive(Clone, Copy, Debug)]
struct Block {
    kind: BlockKind,
    start: usize,
    end: usize,
}

/// The length of a list marker at the start of `text` (`1.`, `12.`, `-`, `*`, `+`), with the
/// kind of list, if `text` starts with one followed by a space or the end of the line.
fn list_marker(text: &str) -> Option<(BlockKind, usize)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (kind, len) = if (1..=3).contains(&digits) && text[digits..].starts_with('.') {
        (BlockKind::Ordered, digits + 1)
    } else if text.starts_with(['-', '*', '+']) {
        (BlockKind::Bullet, 1)
    } else {
        return None;
    };
    match text[len..].chars().next() {
        None | Some(' ' | '\t') => Some((kind, len)),
        _ => None,
    }
}

fn is_term(text: &str) -> bool {
    text.starts_with(':') && !text.starts_with("::")
}

fn starts_block(line: &Line) -> bool {
    list_marker(line.text).is_some() || is_term(line.text) || is_tag(line.text, "div")
}

/// Splits the lines of one container into its blocks. See the module documentation.
fn split_blocks(lines: &[Line]) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.blank() {
            i += 1;
            continue;
        }
        let (kind, mut j) = if let Some((kind, _)) = list_marker(line.text) {
            let mut html = Html::default();
            html.feed(line.text);
            let mut j = i + 1;
            while j < lines.len()
                && (html.open() || lines[j].blank() || lines[j].indent > line.indent)
            {
                html.feed(lines[j].text);
                j += 1;
            }
            (kind, j)
        } else if is_term(line.text) {
            let mut j = i + 1;
            while j < lines.len() && lines[j].blank() {
                j += 1;
            }
            if j < lines.len() && lines[j].text.starts_with("::") && lines[j].indent >= line.indent
            {
                j += 1;
            } else {
                j = i + 1;
            }
            let mut html = Html::default();
            while j < lines.len()
                && (html.open() || lines[j].blank() || lines[j].indent > line.indent)
            {
                html.feed(lines[j].text);
                j += 1;
            }
            (BlockKind::Term, j)
        } else if is_tag(line.text, "div") {
            let end = block_end(lines, i).unwrap_or(lines.len() - 1);
            (BlockKind::Div, end + 1)
        } else {
            let mut j = i + 1;
            while j < lines.len() && !lines[j].blank() && !starts_block(&lines[j]) {
                j += 1;
            }
            (BlockKind::Para, j)
        };
        while j > i + 1 && lines[j - 1].blank() {
            j -= 1;
        }
        blocks.push(Block {
            kind,
            start: i,
            end: j,
        });
        i = j.max(i + 1);
    }
    blocks
}

fn join(lines: &[Line]) -> String {
    lines.iter().map(|l| l.text).collect::<Vec<_>>().join("\n")
}

/// Where a container sits, which decides how its blocks are named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// The body of an algorithm: steps are `slug#N`, attachments `slug.note`.
    Top,
    /// The body of a step or a reaction branch: steps are `prefix.N`.
    Step,
    /// The definition of an item: nested items are folded into its text.
    Item,
}

/// Whether `id` has the shape of the IDs [`parse`] gives: the grammar a stored row's ID must
/// follow.
///
/// ```text
/// id      = slug ["#" number] segment*     (at least one of the two after the slug)
/// slug    = runs of [a-z0-9] joined by single "-", at most 60 characters (slugs::fallback_slug)
/// segment = "." number | ".fulfilled" | ".rejected"
///         | "." ("note" | "issue" | "example") ["-" number]
///         | "[" key "]" | "~" number
/// number  = 1 to 9 digits, the first not 0 (no list holds a billion steps)
/// key     = any text without a tab or line break (an item's normalized term)
/// ```
///
/// A key may itself hold `]` (its term is free text), so a `]` closes it wherever the rest
/// parses; that is decided right to left, in linear time.
pub fn is_step_id(id: &str) -> bool {
    let b = id.as_bytes();
    if b.iter().any(|c| matches!(c, b'\t' | b'\n' | b'\r')) {
        return false;
    }
    let slug = b
        .iter()
        .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || **c == b'-')
        .count();
    let s = &b[..slug];
    if s.is_empty()
        || s.len() > 60
        || s[0] == b'-'
        || s[slug - 1] == b'-'
        || s.windows(2).any(|w| w == b"--")
    {
        return false;
    }
    let mut at = slug;
    if b.get(at) == Some(&b'#') {
        match number(&b[at + 1..]) {
            Some(n) => at += 1 + n,
            None => return false,
        }
    } else if at == b.len() {
        return false;
    }
    // ok[k]: b[k..] is a run of segments. close: some "]" after k is followed by such a run.
    let mut ok = vec![false; b.len() + 1];
    ok[b.len()] = true;
    let mut close = false;
    for k in (at..b.len()).rev() {
        ok[k] = match b[k] {
            b'.' => {
                let rest = &b[k + 1..];
                let after_number = number(rest).is_some_and(|n| ok[k + 1 + n]);
                let branch = [&b"fulfilled"[..], b"rejected"]
                    .iter()
                    .any(|w| rest.starts_with(w) && ok[k + 1 + w.len()]);
                let attachment = [&b"note"[..], b"issue", b"example"].iter().any(|w| {
                    let end = k + 1 + w.len();
                    rest.starts_with(w)
                        && (ok[end]
                            || b.get(end) == Some(&b'-')
                                && number(&b[end + 1..]).is_some_and(|n| ok[end + 1 + n]))
                });
                after_number || branch || attachment
            }
            b'~' => number(&b[k + 1..]).is_some_and(|n| ok[k + 1 + n]),
            b'[' => close,
            _ => false,
        };
        if b[k] == b']' && ok[k + 1] {
            close = true;
        }
    }
    ok[at]
}

/// The length of the number at the start of `b`: 1 to 9 digits, the first not 0.
fn number(b: &[u8]) -> Option<usize> {
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    ((1..=9).contains(&digits) && b[0] != b'0').then_some(digits)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum AttachKind {
    Note,
    Issue,
    Example,
}

impl AttachKind {
    /// A note box or paragraph when `note`, an issue otherwise.
    fn note_or_issue(note: bool) -> AttachKind {
        if note {
            AttachKind::Note
        } else {
            AttachKind::Issue
        }
    }
}

struct Attachment {
    kind: AttachKind,
    line: usize,
    text: String,
    /// `(line, text)` of the `<li>` items of a note.
    items: Vec<(usize, String)>,
}

#[derive(Default)]
struct Emitter {
    out: Vec<SourceStep>,
    ids: BTreeSet<String>,
}

impl Emitter {
    /// Reserves a slot for a step whose text is known only after its children are read.
    fn reserve(&mut self, id: String, line: usize) -> Result<usize, ParseError> {
        if self.out.len() >= MAX_STEPS {
            return Err(ParseError::TooManySteps {
                line,
                max: MAX_STEPS,
            });
        }
        let mut unique = id.clone();
        let mut n = 2;
        while self.ids.contains(&unique) {
            unique = format!("{id}~{n}");
            n += 1;
        }
        self.ids.insert(unique.clone());
        self.out.push(SourceStep {
            id: unique,
            kind: Kind::Step,
            text: String::new(),
            fingerprint: Fingerprint::of(""),
            line,
        });
        Ok(self.out.len() - 1)
    }

    fn fill(&mut self, slot: usize, kind: Kind, text: String) {
        let step = &mut self.out[slot];
        step.fingerprint = Fingerprint::of(&text);
        step.kind = kind;
        step.text = text;
    }

    fn emit(
        &mut self,
        id: String,
        line: usize,
        kind: Kind,
        text: String,
    ) -> Result<(), ParseError> {
        let slot = self.reserve(id, line)?;
        self.fill(slot, kind, text);
        Ok(())
    }

    /// Reads one container and returns the parts of its owner's own text.
    fn container(
        &mut self,
        lines: &[Line],
        prefix: &str,
        scope: Scope,
        depth: usize,
    ) -> Result<Vec<String>, ParseError> {
        if depth > MAX_DEPTH {
            return Err(ParseError::TooDeep {
                line: lines.first().map_or(0, |l| l.no),
                max: MAX_DEPTH,
            });
        }
        let child = |n: usize| match scope {
            Scope::Top => format!("{prefix}#{n}"),
            _ => format!("{prefix}.{n}"),
        };
        let mut own: Vec<String> = Vec::new();
        let mut attachments: Vec<Attachment> = Vec::new();
        let mut steps = 0;
        for (index, block) in split_blocks(lines).into_iter().enumerate() {
            let body = &lines[block.start..block.end];
            let line = body[0].no;
            match block.kind {
                BlockKind::Para => {
                    let raw = join(body);
                    let text = normalize(&raw);
                    let class = if raw.starts_with("<p") {
                        tag_class(&raw)
                    } else {
                        String::new()
                    };
                    let is_note = text.starts_with("Note:")
                        || text.starts_with("NOTE:")
                        || class_has(&class, "note");
                    let is_issue = text.starts_with("Issue:")
                        || text.starts_with("Issue(")
                        || class_has(&class, "issue");
                    let first = index == 0;
                    if (is_note || is_issue) && !(first && scope != Scope::Top) {
                        let kind = AttachKind::note_or_issue(is_note);
                        attachments.push(Attachment {
                            kind,
                            line,
                            text,
                            items: Vec::new(),
                        });
                    } else if scope != Scope::Top && !text.is_empty() {
                        own.push(text);
                    }
                }
                BlockKind::Ordered | BlockKind::Bullet => {
                    let (content, _) = item_content(body);
                    let heading = content
                        .first()
                        .map(|l| normalize(l.text))
                        .unwrap_or_default();
                    let branch = if block.kind == BlockKind::Bullet && scope != Scope::Top {
                        branch_name(&heading)
                    } else {
                        None
                    };
                    if let Some(name) = branch {
                        let parts = self.container(
                            &content,
                            &format!("{prefix}.{name}"),
                            Scope::Step,
                            depth + 1,
                        )?;
                        own.extend(parts);
                    } else {
                        steps += 1;
                        let id = child(steps);
                        let slot = self.reserve(id.clone(), line)?;
                        let parts = self.container(
                            &content,
                            &self.out[slot].id.clone(),
                            Scope::Step,
                            depth + 1,
                        )?;
                        let text = parts.join(" ");
                        let kind = if text.starts_with("Assert:") || text.starts_with("Assert ") {
                            Kind::Assert
                        } else if text.starts_with("TODO") {
                            Kind::Todo
                        } else {
                            Kind::Step
                        };
                        self.fill(slot, kind, text);
                    }
                }
                BlockKind::Term => {
                    let key = normalize(body[0].text.trim_start_matches(':'));
                    let dd = definition_lines(body);
                    if scope == Scope::Item {
                        let parts = self.container(
                            &dd,
                            &format!("{prefix}[{key}]"),
                            Scope::Item,
                            depth + 1,
                        )?;
                        own.push(format!("{key}: {}", parts.join(" ")).trim().to_string());
                    } else {
                        let slot = self.reserve(format!("{prefix}[{key}]"), line)?;
                        let parts = self.container(
                            &dd,
                            &self.out[slot].id.clone(),
                            Scope::Item,
                            depth + 1,
                        )?;
                        let text = format!("{key}: {}", parts.join(" ")).trim().to_string();
                        self.fill(slot, Kind::Item, text);
                    }
                }
                BlockKind::Div => {
                    let class = tag_class(body[0].text);
                    if class_has(&class, "example") {
                        let raw = join(body);
                        attachments.push(Attachment {
                            kind: AttachKind::Example,
                            line,
                            text: normalize(div_inner(&raw)),
                            items: Vec::new(),
                        });
                    } else if class_has(&class, "note") || class_has(&class, "issue") {
                        let raw = join(body);
                        let (text, items, examples) = read_note_div(div_inner(&raw), &raw, line);
                        let kind = AttachKind::note_or_issue(class_has(&class, "note"));
                        attachments.push(Attachment {
                            kind,
                            line,
                            text,
                            items,
                        });
                        attachments.extend(examples);
                    }
                    // Other divs (nested algorithms, layout) carry no step of ours.
                }
            }
        }
        for kind in [AttachKind::Note, AttachKind::Issue, AttachKind::Example] {
            let of_kind: Vec<&Attachment> = attachments.iter().filter(|a| a.kind == kind).collect();
            let name = match kind {
                AttachKind::Note => "note",
                AttachKind::Issue => "issue",
                AttachKind::Example => "example",
            };
            for (k, a) in of_kind.iter().enumerate() {
                let id = if of_kind.len() == 1 {
                    format!("{prefix}.{name}")
                } else {
                    format!("{prefix}.{name}-{}", k + 1)
                };
                let step_kind = match kind {
                    AttachKind::Note => Kind::Note,
                    AttachKind::Issue => Kind::Issue,
                    AttachKind::Example => Kind::Example,
                };
                let slot = self.reserve(id, a.line)?;
                let id = self.out[slot].id.clone();
                self.fill(slot, step_kind, a.text.clone());
                for (m, (line, text)) in a.items.iter().enumerate() {
                    self.emit(format!("{id}.{}", m + 1), *line, step_kind, text.clone())?;
                }
            }
        }
        Ok(own)
    }
}

fn class_has(class: &str, name: &str) -> bool {
    class.split_whitespace().any(|c| c == name)
}

/// `fulfilled` / `rejected` for a promise-reaction bullet; `None` for a bullet that is an
/// ordinary step (numbered together with the ordered items around it).
fn branch_name(heading: &str) -> Option<&'static str> {
    let lower = heading.to_lowercase();
    if lower.contains("fulfilled") {
        Some("fulfilled")
    } else if lower.contains("rejected") {
        Some("rejected")
    } else {
        None
    }
}

/// The lines of a list item with the marker removed from the first.
fn item_content<'a>(body: &[Line<'a>]) -> (Vec<Line<'a>>, usize) {
    let first = body[0];
    let (_, len) = list_marker(first.text).unwrap_or((BlockKind::Ordered, 0));
    let rest = &first.text[len..];
    let text = rest.trim_start_matches([' ', '\t']);
    let column = first.indent + len + (rest.len() - text.len());
    let mut content = vec![Line {
        no: first.no,
        indent: column,
        text,
    }];
    content.extend_from_slice(&body[1..]);
    (content, column)
}

/// The lines of a definition item's `::` part (the term line dropped, `::` removed).
fn definition_lines<'a>(body: &[Line<'a>]) -> Vec<Line<'a>> {
    let mut out = Vec::new();
    for line in &body[1..] {
        if out.is_empty() && line.blank() {
            continue;
        }
        if out.is_empty() {
            if let Some(rest) = line.text.strip_prefix("::") {
                let text = rest.trim_start_matches([' ', '\t']);
                out.push(Line {
                    no: line.no,
                    indent: line.indent + 2 + (rest.len() - text.len()),
                    text,
                });
                continue;
            }
        }
        out.push(*line);
    }
    out
}

/// The content of a `<div …>…</div>` block: after the opening tag, before the last `</div>`.
fn div_inner(raw: &str) -> &str {
    let start = raw.find('>').map_or(raw.len(), |p| p + 1);
    let inner = &raw[start..];
    match inner.rfind("</div>") {
        Some(p) => &inner[..p],
        None => inner,
    }
}

/// The 1-based line of byte `offset` of `inner`, a slice of `raw` whose first line is `line`.
fn line_of(raw: &str, inner: &str, offset: usize, line: usize) -> usize {
    let base = inner.as_ptr() as usize - raw.as_ptr() as usize;
    line + raw[..(base + offset).min(raw.len())].matches('\n').count()
}

/// Reads a note `<div>`: its own text, the `<li>` items of its lists, and the example `<div>`s
/// inside it (which belong to the note's owner).
fn read_note_div(
    inner: &str,
    raw: &str,
    line: usize,
) -> (String, Vec<(usize, String)>, Vec<Attachment>) {
    let mut text = String::new();
    let mut items = Vec::new();
    let mut examples = Vec::new();
    let mut i = 0;
    while i < inner.len() {
        let rest = &inner[i..];
        let Some(p) = rest.find('<') else {
            text.push_str(rest);
            break;
        };
        text.push_str(&rest[..p]);
        let at = &rest[p..];
        if is_tag(at, "div") || is_tag(at, "ol") || is_tag(at, "ul") {
            let name = if is_tag(at, "div") {
                "div"
            } else if is_tag(at, "ol") {
                "ol"
            } else {
                "ul"
            };
            let len = matching_close(at, name);
            let element = &at[..len];
            let element_line = line_of(raw, inner, i + p, line);
            if name == "div" {
                if class_has(&tag_class(at), "example") {
                    examples.push(Attachment {
                        kind: AttachKind::Example,
                        line: element_line,
                        text: normalize(div_inner(element)),
                        items: Vec::new(),
                    });
                } else {
                    text.push(' ');
                    text.push_str(element);
                }
            } else {
                for (offset, li) in list_items(element) {
                    items.push((line_of(raw, inner, i + p + offset, line), normalize(li)));
                }
            }
            text.push(' ');
            i += p + len.max(1);
        } else {
            text.push('<');
            i += p + 1;
        }
    }
    (normalize(&text), items, examples)
}

/// The length of the element `<name …>…</name>` at the start of `s`, counting nested elements
/// of the same name; the rest of `s` if it is never closed.
fn matching_close(s: &str, name: &str) -> usize {
    let close = format!("</{name}");
    let mut depth = 0usize;
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let Some(p) = rest.find('<') else { break };
        let at = &rest[p..];
        if is_tag(at, name) {
            depth += 1;
        } else if at.starts_with(&close) && is_tag(at, &close[1..]) {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                let end = at.find('>').map_or(at.len(), |q| q + 1);
                return i + p + end;
            }
        }
        i += p + 1;
    }
    s.len()
}

/// `(offset, inner text)` of the top-level `<li>` items of a list element.
fn list_items(list: &str) -> Vec<(usize, &str)> {
    let mut starts = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < list.len() {
        let rest = &list[i..];
        let Some(p) = rest.find('<') else { break };
        let at = &rest[p..];
        if is_tag(at, "ol") || is_tag(at, "ul") {
            depth += 1;
        } else if is_tag(at, "/ol") || is_tag(at, "/ul") {
            depth = depth.saturating_sub(1);
        } else if depth == 1 && is_tag(at, "li") {
            starts.push(i + p);
        }
        i += p + 1;
    }
    let mut items = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or_else(|| {
            list.rfind("</")
                .filter(|&e| e > start)
                .unwrap_or(list.len())
        });
        let li = &list[start..end];
        let body = li.find('>').map_or("", |q| &li[q + 1..]);
        let body = body.rfind("</li>").map_or(body, |q| &body[..q]);
        items.push((start, body));
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_ids() {
        for ok in [
            "register-tool#18[input schema]",
            "execute-tool#16.10.1",
            "execute-tool#3.fulfilled.2",
            "declarative-execute-steps.issue",
            "register-tool#11.note.1",
            "register-tool#12.issue-2",
            "register-tool#18[annotations].example",
            "x#1[a]b]",
            "x#1[]",
            "x[k].1",
            "x#1~2.note",
            "algorithm-at-line-7#1",
        ] {
            assert!(is_step_id(ok), "{ok}");
        }
        for bad in [
            "",
            "foo bar",
            "tool-exposed-to-origin#99999999999999999999999",
            "x#0",
            "x#01",
            "x",
            "x#",
            "x#1.",
            "x#1.notes",
            "x#1[a",
            "x#1]",
            "X#1",
            "-x#1",
            "x-#1",
            "x--y#1",
            "x#1[a\tb]",
            "x#1#2",
            "x#1.note-",
        ] {
            assert!(!is_step_id(bad), "{bad}");
        }
        assert!(is_step_id(&format!("{}#1", "a".repeat(60))));
        assert!(!is_step_id(&format!("{}#1", "a".repeat(61))));
    }

    #[test]
    fn markers() {
        assert_eq!(list_marker("1. Let"), Some((BlockKind::Ordered, 2)));
        assert_eq!(list_marker("- If"), Some((BlockKind::Bullet, 1)));
        assert_eq!(list_marker("*This section*"), None);
        assert_eq!(list_marker("1.5 percent"), None);
        assert_eq!(list_marker("1."), Some((BlockKind::Ordered, 2)));
    }

    #[test]
    fn attrs() {
        let a = tag_attrs("<div class=\"note\" id=x algorithm>");
        assert_eq!(
            a,
            vec![
                ("class".into(), "note".into()),
                ("id".into(), "x".into()),
                ("algorithm".into(), String::new())
            ]
        );
        assert!(is_algorithm_div(
            "<div algorithm=unloading-document-cleanup-steps>"
        ));
        assert!(!is_algorithm_div("<div class=example>"));
        assert!(!is_algorithm_div("<divalgorithm>"));
    }

    #[test]
    fn small_algorithm() {
        let src = "<div algorithm>\nTo <dfn>do it</dfn>:\n\n1. [=Assert=]: x.\n\n1. For each |a|:\n\n   1. Run |a|.\n\n      Note: Really.\n\n1. Return.\n</div>\n";
        let steps = parse(src).unwrap();
        let ids: Vec<_> = steps
            .iter()
            .map(|s| (s.id.as_str(), s.kind, s.text.as_str(), s.line))
            .collect();
        assert_eq!(
            ids,
            vec![
                ("do-it#1", Kind::Assert, "Assert: x.", 4),
                ("do-it#2", Kind::Step, "For each a:", 6),
                ("do-it#2.1", Kind::Step, "Run a.", 8),
                ("do-it#2.1.note", Kind::Note, "Note: Really.", 10),
                ("do-it#3", Kind::Step, "Return.", 12),
            ]
        );
    }

    #[test]
    fn errors_read_as_sentences() {
        assert!(parse("<div algorithm>\n1. x\n")
            .unwrap_err()
            .to_string()
            .contains("line 1"));
        let deep: String = (0..40)
            .map(|d| format!("{}1. x\n", " ".repeat(d * 3)))
            .collect();
        let err = parse(&format!("<div algorithm>\n<dfn>a</dfn>\n{deep}</div>\n")).unwrap_err();
        assert!(matches!(err, ParseError::TooDeep { .. }), "{err}");
    }

    /// A source of more steps than [`MAX_STEPS`] is refused at the first step past it, before
    /// its comparison and report (which cost a few KiB per step) are built.
    #[test]
    fn a_source_of_too_many_steps_is_refused_at_the_first_past_the_limit() {
        let steps = |n: usize| "1. a\n".repeat(n);
        let block = |n: usize| format!("<div algorithm>\n<dfn>a</dfn>\n{}</div>\n", steps(n));
        assert_eq!(
            parse(&block(MAX_STEPS)).expect("at the limit").len(),
            MAX_STEPS
        );
        let err = parse(&block(MAX_STEPS + 1)).unwrap_err();
        // Line 1 opens the block, line 2 names it, the steps start at line 3.
        assert_eq!(
            err,
            ParseError::TooManySteps {
                line: MAX_STEPS + 3,
                max: MAX_STEPS
            }
        );
        assert!(err.to_string().contains("steps accepted"), "{err}");
    }
}
