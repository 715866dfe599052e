//! Footprints: what one action read and wrote of a state, for sleep sets
//! ([`crate::Reduction::Sleep`]).
//!
//! The engine knows nothing of what a model's state holds: a footprint is a list of
//! accesses to numbered *areas* (a model's parts of a state), each at a key of the area (an
//! entry, a part of an entry, the number of entries, or all of it), each a read, a write,
//! or an insert into a set. Two actions enabled at a state whose footprints there do not
//! [`conflict`](Footprint::conflicts) must commute at that state: each is still enabled
//! after the other, and both orders reach the same state. The model promises that
//! ([`crate::Model::next_state_with_footprint`]); the engine only compares.

/// The entry of an area an access touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// One entry: a position, or a key's or element's hash.
    At(u64),
    /// One part of the entry at a position (a field, or a segment of a queue), which the
    /// access touches alone.
    Part(u64, u8),
    /// How many entries there are.
    Len,
    /// Every entry, and how many.
    All,
}

impl Key {
    /// Whether two accesses can touch the same thing.
    pub fn overlaps(self, other: Key) -> bool {
        match (self, other) {
            (Key::All, _) | (_, Key::All) => true,
            (Key::Part(i, _), Key::At(j)) | (Key::At(j), Key::Part(i, _)) => i == j,
            (a, b) => a == b,
        }
    }
}

/// What an access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Read,
    Write,
    /// Adds to (or removes from) a set-like area, where two such changes of distinct
    /// entries commute: conflicts with reads and writes, not with another insert.
    Insert,
}

/// One access of an action to a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Access {
    pub area: u32,
    pub key: Key,
    pub kind: Kind,
}

/// Bits of one kind of access: the areas read or written whole, the areas touched at all,
/// and hashed bits for entries (whole, or through one of their parts) and for parts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Masks {
    all: u32,
    touched: u32,
    whole: [u64; WORDS],
    partial: [u64; WORDS],
    part: [u64; WORDS],
}

/// 64-bit words per mask.
const WORDS: usize = 8;

/// A bit of `64 * WORDS` for a value: collisions only make two accesses look as if they
/// overlap.
fn bit(x: u64) -> (usize, u64) {
    let h = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let b = (h >> (64 - 9)) as usize;
    (b >> 6, 1u64 << (b & 63))
}

fn set(mask: &mut [u64; WORDS], x: u64) {
    let (i, m) = bit(x);
    mask[i] |= m;
}

fn meet(a: &[u64; WORDS], b: &[u64; WORDS]) -> bool {
    a.iter().zip(b).any(|(x, y)| x & y != 0)
}

fn join(a: &[u64; WORDS], b: &[u64; WORDS]) -> [u64; WORDS] {
    std::array::from_fn(|i| a[i] | b[i])
}

impl Masks {
    const EMPTY: Masks = Masks {
        all: 0,
        touched: 0,
        whole: [0; WORDS],
        partial: [0; WORDS],
        part: [0; WORDS],
    };

    fn add(&mut self, area: u32, key: Key) {
        debug_assert!(area < 32, "areas are numbered below 32");
        let area_bit = 1u32 << area;
        self.touched |= area_bit;
        let salt = u64::from(area) << 56;
        match key {
            Key::All => self.all |= area_bit,
            Key::Len => set(&mut self.whole, salt ^ 0x00ff_ffff_ffff_fff0),
            Key::At(i) => set(&mut self.whole, salt ^ (i & 0x00ff_ffff_ffff_ffff)),
            Key::Part(i, f) => {
                set(&mut self.partial, salt ^ (i & 0x00ff_ffff_ffff_ffff));
                set(
                    &mut self.part,
                    salt ^ ((i & 0x0000_ffff_ffff_ffff) << 8) ^ u64::from(f) ^ (1 << 55),
                );
            }
        }
    }

    fn join(&self, o: &Masks) -> Masks {
        Masks {
            all: self.all | o.all,
            touched: self.touched | o.touched,
            whole: join(&self.whole, &o.whole),
            partial: join(&self.partial, &o.partial),
            part: join(&self.part, &o.part),
        }
    }

    /// Whether an access here may touch what an access there touches (never a false no).
    fn overlaps(&self, o: &Masks) -> bool {
        (self.all & o.touched) != 0
            || (o.all & self.touched) != 0
            || meet(&self.whole, &join(&o.whole, &o.partial))
            || meet(&self.partial, &o.whole)
            || meet(&self.part, &o.part)
    }
}

/// Every access of one action at one state, as bits: the engine compares footprints often
/// and keeps them in sleep sets, so a footprint is a fixed-size signature (no allocation),
/// where two accesses that do not overlap may still look as if they do (hash collisions
/// only cost pruning, never soundness).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Footprint {
    read: Masks,
    write: Masks,
    insert: Masks,
}

impl Footprint {
    /// No access at all.
    pub const EMPTY: Footprint = Footprint {
        read: Masks::EMPTY,
        write: Masks::EMPTY,
        insert: Masks::EMPTY,
    };

    pub fn new(accesses: impl IntoIterator<Item = Access>) -> Footprint {
        let mut f = Footprint::default();
        for a in accesses {
            f.add(a);
        }
        f
    }

    /// Adds one access.
    pub fn add(&mut self, a: Access) {
        match a.kind {
            Kind::Read => self.read.add(a.area, a.key),
            Kind::Write => self.write.add(a.area, a.key),
            Kind::Insert => self.insert.add(a.area, a.key),
        }
    }

    /// The areas touched at all, one bit each (`1 << area`), whatever the access.
    pub fn areas(&self) -> u32 {
        self.read.touched | self.write.touched | self.insert.touched
    }

    /// Whether the two actions may fail to commute: an access of one overlaps an access of
    /// the other, and not both only read, nor both only insert.
    pub fn conflicts(&self, other: &Footprint) -> bool {
        self.write
            .overlaps(&other.read.join(&other.write).join(&other.insert))
            || self.read.join(&self.insert).overlaps(&other.write)
            || self.read.overlaps(&other.insert)
            || self.insert.overlaps(&other.read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(accesses: &[(u32, Key, Kind)]) -> Footprint {
        Footprint::new(
            accesses
                .iter()
                .map(|&(area, key, kind)| Access { area, key, kind }),
        )
    }

    #[test]
    fn reads_share_inserts_share_and_writes_exclude() {
        use Key::*;
        use Kind::*;
        let read = fp(&[(0, At(1), Read)]);
        assert!(!read.conflicts(&fp(&[(0, At(1), Read)])));
        assert!(read.conflicts(&fp(&[(0, At(1), Write)])));
        assert!(read.conflicts(&fp(&[(0, At(1), Insert)])));
        assert!(!read.conflicts(&fp(&[(0, At(2), Write)])));
        assert!(!read.conflicts(&fp(&[(1, At(1), Write)])));
        assert!(read.conflicts(&fp(&[(0, All, Write)])));
        assert!(!fp(&[(0, Len, Insert)]).conflicts(&fp(&[(0, Len, Insert)])));
        assert!(fp(&[(0, Len, Insert)]).conflicts(&fp(&[(0, All, Read)])));
        assert!(fp(&[(0, Len, Insert)]).conflicts(&fp(&[(0, Len, Read)])));
    }

    #[test]
    fn a_part_overlaps_its_entry_and_itself_only() {
        use Key::*;
        use Kind::*;
        let head = fp(&[(2, Part(0, 0), Write)]);
        assert!(!head.conflicts(&fp(&[(2, Part(0, 1), Write)])));
        assert!(head.conflicts(&fp(&[(2, Part(0, 0), Read)])));
        assert!(head.conflicts(&fp(&[(2, At(0), Read)])));
        assert!(!head.conflicts(&fp(&[(2, At(1), Read)])));
        assert!(!head.conflicts(&fp(&[(2, Part(1, 0), Write)])));
        assert!(!head.conflicts(&Footprint::default()));
    }

    #[test]
    fn areas_names_each_area_touched_by_any_kind_of_access() {
        use Key::*;
        use Kind::*;
        assert_eq!(Footprint::EMPTY.areas(), 0);
        let f = fp(&[(0, Len, Read), (3, Part(1, 2), Write), (8, At(5), Insert)]);
        assert_eq!(f.areas(), 1 | 1 << 3 | 1 << 8);
        assert_eq!(fp(&[(31, All, Read)]).areas(), 1 << 31);
    }
}
