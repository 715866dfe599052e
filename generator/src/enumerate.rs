//! Exhaustive enumeration in a deterministic order, the raw and canonical counts, shards of
//! the canonical enumeration, and seeded random sampling.

use std::collections::HashSet;
use std::ops::ControlFlow;

use crate::bound::Bound;
use crate::canon::{canonical, is_canonical};
use crate::space::{build, Chooser, Gen, Move, Stmt};

/// How many scenarios a bound holds: `raw` as the choices make them (before deduplication),
/// `canonical` one per class of scenarios equal up to renaming and the order of tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub raw: u64,
    pub canonical: u64,
}

/// Replays a prefix of choices, then takes the first option of every new choice; the
/// enumeration then advances the last choice that has options left (an odometer).
struct Odometer {
    /// (choice, number of options) for every choice with more than one option.
    stack: Vec<(usize, usize)>,
    pos: usize,
}

impl Chooser for Odometer {
    fn choose(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        if self.pos < self.stack.len() {
            let (c, arity) = self.stack[self.pos];
            debug_assert_eq!(
                arity, n,
                "the space is a deterministic function of the choices"
            );
            self.pos += 1;
            c
        } else {
            self.stack.push((0, n));
            self.pos += 1;
            0
        }
    }
}

/// Calls `f` with every raw scenario of `b`, in the enumeration order (the lexicographic
/// order of choice sequences). `f` may stop the enumeration.
pub fn for_each_raw(b: &Bound, mut f: impl FnMut(Gen) -> ControlFlow<()>) {
    let mut odo = Odometer {
        stack: Vec::new(),
        pos: 0,
    };
    loop {
        odo.pos = 0;
        if let Some(g) = build(b, &mut odo) {
            if f(g).is_break() {
                return;
            }
        }
        debug_assert_eq!(odo.pos, odo.stack.len());
        loop {
            match odo.stack.pop() {
                None => return,
                Some((c, n)) if c + 1 < n => {
                    odo.stack.push((c + 1, n));
                    break;
                }
                Some(_) => {}
            }
        }
    }
}

/// Calls `f` with every canonical scenario of `b` and its index in the canonical
/// enumeration (0, 1, 2, ...): the raw scenarios that are their own canonical form, in the
/// enumeration order. Nothing is remembered between scenarios, so memory stays flat.
/// Returns the counts of what was enumerated (all of `b` unless `f` stopped it).
pub fn for_each_canonical(b: &Bound, mut f: impl FnMut(u64, &Gen) -> ControlFlow<()>) -> Counts {
    let mut counts = Counts::default();
    for_each_raw(b, |g| {
        counts.raw += 1;
        if is_canonical(&g) {
            let index = counts.canonical;
            counts.canonical += 1;
            return f(index, &g);
        }
        ControlFlow::Continue(())
    });
    counts
}

/// The raw and canonical counts of `b`.
pub fn count(b: &Bound) -> Counts {
    for_each_canonical(b, |_, _| ControlFlow::Continue(()))
}

/// Shard `index` of `count` (1-based, as `--shard I/N` writes it): the items whose position
/// in a command's canonical order is `index - 1` modulo `count` (round-robin). The shards of
/// one `count` are disjoint and together are every position, whatever the number of items.
/// Round-robin rather than a hash of each item's name: the canonical orders run from small
/// to large (scenarios, generated scenarios by size), so dealing them out in turn gives every
/// shard a like share of the cheap and the costly items, and the shard of a position needs
/// no name at all (a sweep streams millions of scenarios).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

/// The most shards `--shard I/N` accepts: far more than any CI matrix runs (GitHub's allows
/// 256 jobs), and small enough that a set of shard reports stays a handful of files.
pub const MAX_SHARDS: u64 = 1000;

/// Why a `--shard` value was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardError {
    /// Not `I/N` with 1 <= I <= N.
    Malformed(String),
    /// N above [`MAX_SHARDS`].
    TooMany(String),
}

impl std::fmt::Display for ShardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShardError::Malformed(text) => write!(
                f,
                "--shard wants I/N with 1 ≤ I ≤ N, e.g. 2/4; got '{}'",
                text.escape_debug()
            ),
            ShardError::TooMany(text) => write!(
                f,
                "--shard wants at most {MAX_SHARDS} shards; got '{}'",
                text.escape_debug()
            ),
        }
    }
}

impl std::error::Error for ShardError {}

impl std::str::FromStr for Shard {
    type Err = ShardError;

    /// Parses `I/N` with `1 <= I <= N <= MAX_SHARDS`.
    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let malformed = || ShardError::Malformed(text.chars().take(40).collect());
        let (i, n) = text.split_once('/').ok_or_else(malformed)?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(i) || !digits(n) {
            return Err(malformed());
        }
        let i: u64 = i.parse().map_err(|_| malformed())?;
        let n: u64 = n
            .parse()
            .map_err(|_| ShardError::TooMany(text.chars().take(40).collect()))?;
        if n > MAX_SHARDS {
            return Err(ShardError::TooMany(text.chars().take(40).collect()));
        }
        if i == 0 || i > n {
            return Err(malformed());
        }
        Ok(Shard { index: i, count: n })
    }
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Whether the item at `position` (0-based, in the canonical order) is this shard's.
    pub fn contains(&self, position: u64) -> bool {
        position % self.count == self.index - 1
    }

    /// How many of `total` items this shard holds.
    pub fn size_of(&self, total: u64) -> u64 {
        let first = self.index - 1;
        if total > first {
            (total - first).div_ceil(self.count)
        } else {
            0
        }
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The canonical scenarios of `shard`, each with its canonical index, and the counts of the
/// whole space.
pub fn shard(b: &Bound, shard: Shard) -> (Counts, Vec<(u64, Gen)>) {
    let mut picked = Vec::new();
    let counts = for_each_canonical(b, |i, g| {
        if shard.contains(i) {
            picked.push((i, g.clone()));
        }
        ControlFlow::Continue(())
    });
    (counts, picked)
}

/// SplitMix64: a small, fixed generator, so a seed means the same sample on every platform
/// and every version of every dependency.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Chooser for SplitMix64 {
    fn choose(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
}

/// One swarm draw's choices: random, among the statement and move kinds this draw allows.
struct Swarm<'a> {
    rng: &'a mut SplitMix64,
    statements: u32,
    moves: u32,
}

impl Chooser for Swarm<'_> {
    fn choose(&mut self, n: usize) -> usize {
        self.rng.choose(n)
    }
    fn allows_statement(&self, kind: usize) -> bool {
        self.statements & (1 << kind) != 0
    }
    fn allows_move(&self, kind: usize) -> bool {
        self.moves & (1 << kind) != 0
    }
}

/// How a sample makes its random choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Every option of every choice equally likely.
    Uniform,
    /// Swarm testing (Groce et al., ISSTA 2012): each draw first keeps each statement kind
    /// and each move kind with probability one half, then chooses among those only, so
    /// draws differ in *which* features they combine, not only in how, and a feature that
    /// suppresses another (an early `navigate`, say) is often absent.
    Swarm,
}

/// A seeded random sample of `b`: `draws` scenarios, each made by random choices (with
/// [`Sampling::Uniform`] every option of a choice equally likely, so scenarios with fewer
/// siblings in the choice tree are likelier than under a uniform draw) and put in canonical
/// form. Returns the distinct canonical forms in the order they were first drawn.
pub fn sample(b: &Bound, draws: u64, seed: u64, how: Sampling) -> Vec<Gen> {
    let mut rng = SplitMix64(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut drawn = 0;
    while drawn < draws {
        // Choices outside the vocabulary are drawn again (they are rare).
        let g = loop {
            let built = match how {
                Sampling::Uniform => build(b, &mut rng),
                Sampling::Swarm => {
                    let statements = (rng.next_u64() as u32) & ((1 << Stmt::KINDS) - 1);
                    let moves = (rng.next_u64() as u32) & ((1 << Move::KINDS) - 1);
                    build(
                        b,
                        &mut Swarm {
                            rng: &mut rng,
                            statements,
                            moves,
                        },
                    )
                }
            };
            if let Some(g) = built {
                break g;
            }
        };
        drawn += 1;
        let c = canonical(&g);
        if seen.insert(c.clone()) {
            out.push(c);
        }
    }
    out
}
