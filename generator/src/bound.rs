//! The bound of a sweep: how big a generated scenario may be, as `KEY=N` pairs or a named
//! preset (`tiny`, `small`, `medium`), optionally followed by overrides (`small,stmts=4`).

use std::fmt;

/// How big a generated scenario may be. Every field is an upper bound; the enumeration
/// covers every scenario of the vocabulary within all of them at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// Tabs (top-level traversables).
    pub tabs: u8,
    /// Documents in the initial trees, over all tabs (a navigation's replacement document
    /// is not counted).
    pub docs: u8,
    /// How deep iframes nest: 0 no iframes, 1 iframes in the top-level document, 2 iframes
    /// in those iframes too.
    pub depth: u8,
    /// Iframes per document.
    pub iframes: u8,
    /// Statements per document's script.
    pub stmts: u8,
    /// Statements over all scripts.
    pub total: u8,
    /// Distinct tool names.
    pub tools: u8,
    /// AbortControllers per document.
    pub signals: u8,
    /// Environment moves: aborts, iframe removals, navigations, bfcache round trips and
    /// observations listed in `environment`.
    pub moves: u8,
    /// How many tool body outcomes a scenario with an `executeTool` may list.
    pub outcomes: u8,
    /// 1: scripts may also execute forged tools (a `RegisteredTool` built by hand, naming any
    /// document as its window and any origin of the scenario as its origin).
    pub forged: u8,
    /// 1: a tab's same-origin documents (one agent) may be in an agent cluster that is not
    /// origin-keyed (`originKeyed: false`).
    pub unkeyed: u8,
}

/// One key of a bound: its name, what it bounds, its allowed range, and its field.
struct Key {
    name: &'static str,
    min: u8,
    max: u8,
    get: fn(&Bound) -> u8,
    set: fn(&mut Bound, u8),
}

const KEYS: &[Key] = &[
    Key {
        name: "tabs",
        min: 1,
        max: 3,
        get: |b| b.tabs,
        set: |b, v| b.tabs = v,
    },
    Key {
        name: "docs",
        min: 1,
        max: 6,
        get: |b| b.docs,
        set: |b, v| b.docs = v,
    },
    Key {
        name: "depth",
        min: 0,
        max: 2,
        get: |b| b.depth,
        set: |b, v| b.depth = v,
    },
    Key {
        name: "iframes",
        min: 0,
        max: 2,
        get: |b| b.iframes,
        set: |b, v| b.iframes = v,
    },
    Key {
        name: "stmts",
        min: 0,
        max: 6,
        get: |b| b.stmts,
        set: |b, v| b.stmts = v,
    },
    Key {
        name: "total",
        min: 0,
        max: 12,
        get: |b| b.total,
        set: |b, v| b.total = v,
    },
    Key {
        name: "tools",
        min: 1,
        max: 3,
        get: |b| b.tools,
        set: |b, v| b.tools = v,
    },
    Key {
        name: "signals",
        min: 0,
        max: 2,
        get: |b| b.signals,
        set: |b, v| b.signals = v,
    },
    Key {
        name: "moves",
        min: 0,
        max: 4,
        get: |b| b.moves,
        set: |b, v| b.moves = v,
    },
    Key {
        name: "outcomes",
        min: 1,
        max: 3,
        get: |b| b.outcomes,
        set: |b, v| b.outcomes = v,
    },
    Key {
        name: "forged",
        min: 0,
        max: 1,
        get: |b| b.forged,
        set: |b, v| b.forged = v,
    },
    Key {
        name: "unkeyed",
        min: 0,
        max: 1,
        get: |b| b.unkeyed,
        set: |b, v| b.unkeyed = v,
    },
];

/// The named presets, smallest first.
pub const PRESETS: &[(&str, Bound)] = &[
    ("tiny", Bound::TINY),
    ("small", Bound::SMALL),
    ("medium", Bound::MEDIUM),
];

impl Bound {
    /// One document, four statements, one environment move: everything a single page can
    /// do to itself, executeTool included (6,366 canonical scenarios).
    pub const TINY: Bound = Bound {
        tabs: 1,
        docs: 1,
        depth: 1,
        iframes: 1,
        stmts: 4,
        total: 4,
        tools: 1,
        signals: 1,
        moves: 1,
        outcomes: 1,
        forged: 0,
        unkeyed: 0,
    };
    /// A top-level document and at most one iframe (same origin, or cross origin with or
    /// without `allow="tools"`), two statements per script and three in all, one move
    /// (22,282 canonical scenarios).
    pub const SMALL: Bound = Bound {
        docs: 2,
        stmts: 2,
        total: 3,
        ..Bound::TINY
    };
    /// Two documents with three statements per script and four in all: enough for one
    /// document to execute a tool the other registered (307,589 canonical scenarios).
    pub const MEDIUM: Bound = Bound {
        docs: 2,
        stmts: 3,
        total: 4,
        ..Bound::TINY
    };

    /// Parses `tiny`, `docs=2,stmts=3`, or `small,stmts=4`: a preset (default `tiny`) and
    /// overrides. The error is one line naming what is wrong and what is allowed.
    pub fn parse(text: &str) -> Result<Bound, BoundError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(BoundError::Empty);
        }
        let mut bound = Bound::TINY;
        let mut seen: Vec<&str> = Vec::new();
        for (i, part) in text.split(',').map(str::trim).enumerate() {
            if part.is_empty() {
                return Err(BoundError::EmptyItem {
                    text: text.to_string(),
                });
            }
            let Some((key, value)) = part.split_once('=') else {
                match PRESETS.iter().find(|(name, _)| *name == part) {
                    Some((_, preset)) if i == 0 => {
                        bound = *preset;
                        continue;
                    }
                    Some((name, _)) => return Err(BoundError::PresetNotFirst { preset: name }),
                    None => {
                        return Err(BoundError::NotAnItem {
                            item: part.to_string(),
                        })
                    }
                }
            };
            let (key, value) = (key.trim(), value.trim());
            let Some(k) = KEYS.iter().find(|k| k.name == key) else {
                return Err(BoundError::UnknownKey {
                    key: key.to_string(),
                });
            };
            if seen.contains(&k.name) {
                return Err(BoundError::GivenTwice { key: k.name });
            }
            seen.push(k.name);
            let n: u8 = match value.parse::<u64>() {
                Ok(n) if n >= k.min as u64 && n <= k.max as u64 => n as u8,
                _ => {
                    return Err(BoundError::OutOfRange {
                        key: k.name,
                        value: value.to_string(),
                        min: k.min,
                        max: k.max,
                    })
                }
            };
            (k.set)(&mut bound, n);
        }
        if bound.docs < bound.tabs {
            return Err(BoundError::FewerDocsThanTabs {
                docs: bound.docs,
                tabs: bound.tabs,
            });
        }
        Ok(bound)
    }

    /// The preset this bound equals, if any.
    pub fn preset(&self) -> Option<&'static str> {
        PRESETS
            .iter()
            .find(|(_, b)| b == self)
            .map(|(name, _)| *name)
    }

    /// Every key, as `KEY=N` pairs in a fixed order (what `parse` reads back).
    pub fn keys(&self) -> Vec<(&'static str, u8)> {
        KEYS.iter().map(|k| (k.name, (k.get)(self))).collect()
    }
}

/// Why a `--bound` does not parse: each says what is wrong, and the message of one that
/// does not name a preset or key lists what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoundError {
    /// `--bound ""`.
    Empty,
    /// An empty item between commas (`docs=2,,stmts=1`), in the whole `text`.
    EmptyItem { text: String },
    /// A preset after the first item (`docs=2,tiny`).
    PresetNotFirst { preset: &'static str },
    /// An item that is neither a preset nor `KEY=N`.
    NotAnItem { item: String },
    /// `KEY=N` with a key that is not one.
    UnknownKey { key: String },
    /// The same key twice.
    GivenTwice { key: &'static str },
    /// A value that is not a whole number from `min` to `max`.
    OutOfRange {
        key: &'static str,
        value: String,
        min: u8,
        max: u8,
    },
    /// Fewer documents than tabs: every tab has a top-level document.
    FewerDocsThanTabs { docs: u8, tabs: u8 },
}

impl fmt::Display for BoundError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoundError::Empty => with_help(f, format_args!("an empty --bound")),
            BoundError::EmptyItem { text } => {
                with_help(f, format_args!("an empty item in --bound \"{text}\""))
            }
            BoundError::PresetNotFirst { preset } => write!(
                f,
                "--bound: the preset \"{preset}\" must come first (PRESET,KEY=N,...)"
            ),
            BoundError::NotAnItem { item } => with_help(
                f,
                format_args!("\"{item}\" in --bound is neither a preset nor KEY=N"),
            ),
            BoundError::UnknownKey { key } => {
                with_help(f, format_args!("unknown --bound key \"{key}\""))
            }
            BoundError::GivenTwice { key } => write!(f, "--bound: \"{key}\" is given twice"),
            BoundError::OutOfRange {
                key,
                value,
                min,
                max,
            } => write!(
                f,
                "--bound: {key}={value}: {key} takes a whole number from {min} to {max}"
            ),
            BoundError::FewerDocsThanTabs { docs, tabs } => write!(
                f,
                "--bound: docs={docs} is fewer than tabs={tabs}: every tab has a top-level document"
            ),
        }
    }
}

impl std::error::Error for BoundError {}

/// `what`, then the presets and every key's range.
fn with_help(f: &mut fmt::Formatter<'_>, what: fmt::Arguments<'_>) -> fmt::Result {
    let keys: Vec<String> = KEYS
        .iter()
        .map(|k| format!("{}={}..{}", k.name, k.min, k.max))
        .collect();
    write!(
        f,
        "{what}: give tiny, small or medium, then KEY=N overrides ({})",
        keys.join(", ")
    )
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pairs: Vec<String> = self
            .keys()
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        f.write_str(&pairs.join(","))
    }
}
