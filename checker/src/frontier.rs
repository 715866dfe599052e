//! The frontier of the breadth-first searches: the states reached but not yet expanded, with
//! their fingerprints (and, on one thread, their depths).
//!
//! In a breadth-first search the frontier holds up to two whole levels, and on a large model
//! it is most of the memory: a state kept as a value carries its own copies of whatever its
//! transition changed. When the model gives a [`StateCodec`], a breadth-first frontier keeps
//! each state as its bytes instead, back to back in blocks of [`BLOCK`] bytes that are freed
//! as the search moves past them, and decodes it when it is expanded. A depth-first frontier
//! is small and pops from the back, so it keeps values. The parallel search keeps each level
//! in [`Chunk`]s handed between workers, of values or of the same records.

use std::collections::VecDeque;

use crate::bfs::Order;
use crate::model::StateCodec;
use crate::options::FrontierStorage;

/// The size of one block of the byte queue.
pub const BLOCK: usize = 1 << 20;

/// The most states one segment of values holds. A frontier kept in one growing buffer is
/// copied into a buffer twice as large each time it fills, and holds both while it copies;
/// segments of a fixed size are never copied, and a spent one is freed as the search moves
/// past it (a few MiB each, for states of a hundred bytes or so).
pub const VALUES_PER_SEGMENT: usize = 1 << 15;

/// The bytes before a record's state: its fingerprint and the state's length.
const RECORD_HEADER: usize = 8 + 4;

/// How a state is kept as bytes, in the byte queue and in chunks alike: its fingerprint, the
/// length of its bytes, and the codec's bytes.
fn put_record(out: &mut Vec<u8>, fp: u64, bytes: &[u8]) {
    out.extend_from_slice(&fp.to_le_bytes());
    out.extend_from_slice(&length(bytes.len()).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// [`put_record`] of `state`, encoded in place.
fn put_encoded<S>(out: &mut Vec<u8>, fp: u64, codec: &dyn StateCodec<S>, state: &S) {
    out.extend_from_slice(&fp.to_le_bytes());
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    codec.encode(state, out);
    let len = length(out.len() - at - 4);
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

fn length(n: usize) -> u32 {
    u32::try_from(n).expect("an encoded state under 4 GiB")
}

/// The record at `at`: the fingerprint, the state's bytes, and where the next record starts.
fn get_record(buf: &[u8], at: usize) -> (u64, &[u8], usize) {
    let fp = u64::from_le_bytes(buf[at..at + 8].try_into().expect("8 bytes"));
    let len = u32::from_le_bytes(buf[at + 8..at + 12].try_into().expect("4 bytes")) as usize;
    let start = at + RECORD_HEADER;
    (fp, &buf[start..start + len], start + len)
}

/// The byte queue keeps each record's tag before it.
const TAG: usize = 8;

/// What the one-thread search keeps with each state besides its fingerprint: its depth, and
/// which of its parts it shares unchanged with the state it was reached from
/// (`Model::unchanged_parts`). Eight bytes, as the depth alone took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tag {
    depth: u32,
    pub(crate) unchanged: u32,
}

impl Tag {
    pub(crate) fn new(depth: usize, unchanged: u32) -> Self {
        Tag {
            depth: u32::try_from(depth).expect("a depth under 2^32 (each level holds a state)"),
            unchanged,
        }
    }

    pub(crate) fn depth(self) -> usize {
        self.depth as usize
    }

    fn to_bits(self) -> u64 {
        u64::from(self.depth) | u64::from(self.unchanged) << 32
    }

    fn from_bits(bits: u64) -> Self {
        Tag {
            depth: bits as u32,
            unchanged: (bits >> 32) as u32,
        }
    }
}

pub(crate) struct Frontier<'m, S> {
    /// Oldest first; a new segment starts where the storage changes.
    segments: VecDeque<Segment<S>>,
    /// Set once new states are to be kept as bytes (never for a depth-first search).
    codec: Option<&'m dyn StateCodec<S>>,
    compact: bool,
    scratch: Vec<u8>,
    /// The most states a segment of values holds ([`VALUES_PER_SEGMENT`]).
    segment_cap: usize,
    /// A spent segment of values, kept for the next one to start (so that a depth-first
    /// search going back and forth over a segment's edge does not allocate each time).
    spare: Option<VecDeque<(S, u64, Tag)>>,
}

enum Segment<S> {
    Values(VecDeque<(S, u64, Tag)>),
    Bytes(ByteQueue),
}

impl<'m, S> Frontier<'m, S> {
    /// A frontier for a search in `order`. A breadth-first one with a codec keeps states as
    /// bytes under [`FrontierStorage::Bytes`], and from the first [`Frontier::memory_is_scarce`]
    /// on under [`FrontierStorage::Auto`]; every other keeps values.
    pub(crate) fn new(
        order: Order,
        codec: Option<&'m dyn StateCodec<S>>,
        storage: FrontierStorage,
    ) -> Self {
        let codec = codec.filter(|_| order == Order::Fifo && storage != FrontierStorage::Values);
        Frontier {
            segments: VecDeque::new(),
            compact: codec.is_some() && storage == FrontierStorage::Bytes,
            codec,
            scratch: Vec::new(),
            segment_cap: VALUES_PER_SEGMENT,
            spare: None,
        }
    }

    /// The same with segments of values of at most `cap` states (tests).
    #[cfg(test)]
    fn with_segment_cap(
        order: Order,
        codec: Option<&'m dyn StateCodec<S>>,
        storage: FrontierStorage,
        cap: usize,
    ) -> Self {
        Frontier {
            segment_cap: cap,
            ..Frontier::new(order, codec, storage)
        }
    }

    /// From now on, new states are kept as bytes (if this frontier can).
    pub(crate) fn memory_is_scarce(&mut self) {
        self.compact = self.codec.is_some();
    }

    /// Whether [`Frontier::push`] keeps the state as it is (not encoded, and so dropped).
    pub(crate) fn keeps_values(&self) -> bool {
        !(self.compact && self.codec.is_some())
    }

    pub(crate) fn push(&mut self, state: S, fp: u64, tag: Tag) {
        match (self.compact, self.codec, self.segments.back_mut()) {
            (true, Some(codec), back) => {
                self.scratch.clear();
                codec.encode(&state, &mut self.scratch);
                let queue = match back {
                    Some(Segment::Bytes(q)) => q,
                    _ => {
                        self.segments
                            .push_back(Segment::Bytes(ByteQueue::default()));
                        match self.segments.back_mut() {
                            Some(Segment::Bytes(q)) => q,
                            _ => unreachable!("just pushed"),
                        }
                    }
                };
                queue.push(fp, tag.to_bits(), &self.scratch);
            }
            (_, _, Some(Segment::Values(q))) if q.len() < self.segment_cap => {
                q.push_back((state, fp, tag))
            }
            (_, _, back) => {
                // A full segment is followed by one of full size; the first grows as needed.
                let full = matches!(back, Some(Segment::Values(_)));
                let mut q = match self.spare.take() {
                    Some(q) => q,
                    None if full => VecDeque::with_capacity(self.segment_cap),
                    None => VecDeque::new(),
                };
                q.push_back((state, fp, tag));
                self.segments.push_back(Segment::Values(q));
            }
        }
    }

    /// The state [`Frontier::pop`] takes next, where it is kept as a value.
    pub(crate) fn peek(&self, order: Order) -> Option<&S> {
        let segment = match order {
            Order::Fifo => self.segments.front()?,
            Order::Lifo => self.segments.back()?,
        };
        let Segment::Values(q) = segment else {
            return None;
        };
        match order {
            Order::Fifo => q.front(),
            Order::Lifo => q.back(),
        }
        .map(|(s, _, _)| s)
    }

    /// The next state to expand: the oldest under [`Order::Fifo`], the newest under
    /// [`Order::Lifo`].
    pub(crate) fn pop(&mut self, order: Order) -> Option<(S, u64, Tag)> {
        loop {
            let segment = match order {
                Order::Fifo => self.segments.front_mut()?,
                Order::Lifo => self.segments.back_mut()?,
            };
            let next = match segment {
                Segment::Values(q) => match order {
                    Order::Fifo => q.pop_front(),
                    Order::Lifo => q.pop_back(),
                },
                Segment::Bytes(q) => q.pop().map(|(fp, tag, bytes)| {
                    let codec = self.codec.expect("bytes only with a codec");
                    (codec.decode(bytes), fp, Tag::from_bits(tag))
                }),
            };
            if next.is_some() {
                return next;
            }
            // This segment is spent; the last one stays (its allocation is reused), and the
            // latest spent segment of values is kept for the next.
            if self.segments.len() == 1 {
                return None;
            }
            let spent = match order {
                Order::Fifo => self.segments.pop_front(),
                Order::Lifo => self.segments.pop_back(),
            };
            if let Some(Segment::Values(q)) = spent {
                if q.capacity() >= self.segment_cap {
                    self.spare = Some(q);
                }
            }
        }
    }
}

/// A FIFO of byte records in blocks: a block is dropped once every record in it was taken,
/// and the last block is reused when the queue runs empty.
#[derive(Default)]
pub(crate) struct ByteQueue {
    blocks: VecDeque<Vec<u8>>,
    /// Where the next record starts in the front block.
    read: usize,
    len: usize,
}

impl ByteQueue {
    pub(crate) fn push(&mut self, fp: u64, tag: u64, bytes: &[u8]) {
        let record = TAG + RECORD_HEADER + bytes.len();
        let fits = self
            .blocks
            .back()
            .is_some_and(|b| b.capacity() - b.len() >= record);
        if !fits {
            self.blocks.push_back(Vec::with_capacity(BLOCK.max(record)));
        }
        let block = self.blocks.back_mut().expect("a block with room");
        block.extend_from_slice(&tag.to_le_bytes());
        put_record(block, fp, bytes);
        self.len += 1;
    }

    /// The oldest record: fingerprint, tag and bytes.
    pub(crate) fn pop(&mut self) -> Option<(u64, u64, &[u8])> {
        loop {
            let last = self.blocks.len() == 1;
            let front = self.blocks.front_mut()?;
            if self.read < front.len() {
                let at = self.read;
                let tag = u64::from_le_bytes(front[at..at + TAG].try_into().expect("8 bytes"));
                let front = self.blocks.front().expect("still there");
                let (fp, bytes, next) = get_record(front, at + TAG);
                self.read = next;
                self.len -= 1;
                return Some((fp, tag, bytes));
            }
            self.read = 0;
            if last {
                front.clear();
                return None;
            }
            self.blocks.pop_front();
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.len
    }
}

/// A few states of one level of the parallel search, as one worker produced them: values,
/// or (once [`Chunk::filler`] was asked for bytes) the codec's bytes, each record the parts
/// the state shares with the one it was reached from (as [`Tag`]), its fingerprint, its
/// length and its bytes.
pub(crate) enum Chunk<S> {
    Values(Vec<(S, u64, u32)>),
    Bytes(Vec<u8>),
}

impl<S> Default for Chunk<S> {
    fn default() -> Self {
        Chunk::Values(Vec::new())
    }
}

impl<S> Chunk<S> {
    /// The states, each with its fingerprint and unchanged parts, in the order they were
    /// pushed.
    pub(crate) fn into_states<'m>(
        self,
        codec: Option<&'m dyn StateCodec<S>>,
    ) -> impl Iterator<Item = (S, u64, u32)> + 'm
    where
        S: 'm,
    {
        let (values, bytes) = match self {
            Chunk::Values(v) => (v, Vec::new()),
            Chunk::Bytes(b) => (Vec::new(), b),
        };
        let mut at = 0;
        let decoded = std::iter::from_fn(move || {
            if at >= bytes.len() {
                return None;
            }
            let unchanged = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
            let (fp, state, next) = get_record(&bytes, at + 4);
            at = next;
            let codec = codec.expect("bytes only with a codec");
            Some((codec.decode(state), fp, unchanged))
        });
        values.into_iter().chain(decoded)
    }
}

/// Fills chunks of `size` states, as values or as bytes.
pub(crate) struct ChunkFiller<'m, S> {
    codec: Option<&'m dyn StateCodec<S>>,
    size: usize,
    count: usize,
    values: Vec<(S, u64, u32)>,
    bytes: Vec<u8>,
}

impl<'m, S> ChunkFiller<'m, S> {
    /// Bytes when `codec` is given, values otherwise.
    pub(crate) fn new(codec: Option<&'m dyn StateCodec<S>>, size: usize) -> Self {
        ChunkFiller {
            codec,
            size,
            count: 0,
            values: Vec::new(),
            bytes: Vec::new(),
        }
    }

    /// Adds a state, with the parts it shares with the one it was reached from; returns the
    /// chunk once it holds `size` states.
    pub(crate) fn push(&mut self, state: S, fp: u64, unchanged: u32) -> Option<Chunk<S>> {
        match self.codec {
            Some(codec) => {
                self.bytes.extend_from_slice(&unchanged.to_le_bytes());
                put_encoded(&mut self.bytes, fp, codec, &state)
            }
            None => self.values.push((state, fp, unchanged)),
        }
        self.count += 1;
        (self.count == self.size).then(|| self.take())
    }

    /// Whatever is left, as a last (smaller) chunk; `None` when empty.
    pub(crate) fn finish(mut self) -> Option<Chunk<S>> {
        (self.count > 0).then(|| self.take())
    }

    fn take(&mut self) -> Chunk<S> {
        self.count = 0;
        match self.codec {
            Some(_) => Chunk::Bytes(std::mem::take(&mut self.bytes)),
            None => Chunk::Values(std::mem::replace(
                &mut self.values,
                Vec::with_capacity(self.size),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever is pushed and popped, in whatever interleaving, comes out in order and
        /// intact, across block boundaries and records larger than a block.
        #[test]
        fn the_byte_queue_is_a_fifo(ops in proptest::collection::vec(
            prop_oneof![
                (any::<u64>(), any::<u64>(), prop_oneof![20 => 0usize..64, 1 => (BLOCK - 40)..(BLOCK + 40)])
                    .prop_map(|(fp, d, n)| Some((fp, d, n))),
                Just(None),
            ],
            0..120,
        )) {
            let mut q = ByteQueue::default();
            let mut model = VecDeque::new();
            for op in ops {
                match op {
                    Some((fp, depth, n)) => {
                        let bytes: Vec<u8> = (0..n).map(|i| (i as u64 ^ fp) as u8).collect();
                        q.push(fp, depth, &bytes);
                        model.push_back((fp, depth, bytes));
                    }
                    None => {
                        let got = q.pop().map(|(f, d, b)| (f, d, b.to_vec()));
                        prop_assert_eq!(got, model.pop_front());
                    }
                }
                prop_assert_eq!(q.len(), model.len());
            }
            while let Some(expected) = model.pop_front() {
                let got = q.pop().map(|(f, d, b)| (f, d, b.to_vec()));
                prop_assert_eq!(got, Some(expected));
            }
            prop_assert!(q.pop().is_none());
        }
    }

    /// Three bytes per state: the state is a small integer.
    struct Le;
    impl StateCodec<u32> for Le {
        fn encode(&self, s: &u32, out: &mut Vec<u8>) {
            out.extend_from_slice(&s.to_le_bytes()[..3]);
        }
        fn decode(&self, b: &[u8]) -> u32 {
            u32::from_le_bytes([b[0], b[1], b[2], 0])
        }
    }

    #[test]
    fn chunks_of_values_and_of_bytes_give_back_what_was_pushed() {
        for codec in [None, Some(&Le as &dyn StateCodec<u32>)] {
            let mut filler = ChunkFiller::new(codec, 4);
            let mut chunks = Vec::new();
            for i in 0..10u32 {
                chunks.extend(filler.push(i * 1000, u64::from(i), i << 20));
            }
            chunks.extend(filler.finish());
            assert_eq!(chunks.len(), 3, "4 + 4 + 2");
            let back: Vec<(u32, u64, u32)> = chunks
                .into_iter()
                .flat_map(|c| c.into_states(codec))
                .collect();
            let expected: Vec<(u32, u64, u32)> = (0..10u32)
                .map(|i| (i * 1000, u64::from(i), i << 20))
                .collect();
            assert_eq!(back, expected);
        }
        assert!(ChunkFiller::<u32>::new(None, 4).finish().is_none());
    }

    #[test]
    fn a_tag_keeps_its_depth_and_parts_as_values_and_as_bytes() {
        for (depth, unchanged) in [(1, 0), (7, 0b1_0000_0001), (u32::MAX as usize, u32::MAX)] {
            let tag = Tag::new(depth, unchanged);
            assert_eq!((tag.depth(), tag.unchanged), (depth, unchanged));
            assert_eq!(Tag::from_bits(tag.to_bits()), tag);
            let mut values = Frontier::new(Order::Fifo, None, FrontierStorage::Values);
            let mut bytes = Frontier::new(Order::Fifo, Some(&Le), FrontierStorage::Bytes);
            values.push(5u32, 9, tag);
            bytes.push(5u32, 9, tag);
            assert_eq!(values.pop(Order::Fifo), Some((5, 9, tag)));
            assert_eq!(bytes.pop(Order::Fifo), Some((5, 9, tag)));
        }
    }

    /// `peek` names the state `pop` takes next while it is a value, in either order, and
    /// nothing once the next is kept as bytes (breadth-first, after a switch under Auto).
    #[test]
    fn peek_names_the_value_pop_takes_next() {
        for order in [Order::Fifo, Order::Lifo] {
            let mut q = Frontier::new(order, Some(&Le), FrontierStorage::Auto);
            for i in 0..4u32 {
                q.push(i, u64::from(i), Tag::new(1, 0));
            }
            q.memory_is_scarce();
            for i in 4..6u32 {
                q.push(i, u64::from(i), Tag::new(1, 0));
            }
            let mut popped = Vec::new();
            loop {
                let peeked = q.peek(order).copied();
                let Some((s, _, _)) = q.pop(order) else {
                    assert_eq!(peeked, None);
                    break;
                };
                assert!(
                    peeked.is_none() || peeked == Some(s),
                    "{order:?}: {peeked:?} then {s}"
                );
                popped.push((s, peeked.is_some()));
            }
            let expected: Vec<(u32, bool)> = match order {
                // The values first, then the bytes.
                Order::Fifo => (0..6).map(|i| (i, i < 4)).collect(),
                // A depth-first frontier keeps values only.
                Order::Lifo => (0..6).rev().map(|i| (i, true)).collect(),
            };
            assert_eq!(popped, expected, "{order:?}");
        }
    }

    proptest! {
        /// Whatever is pushed and popped, in either order and across segments of values
        /// and of bytes, comes out as a queue (FIFO) or a stack (LIFO) would give it.
        #[test]
        fn the_frontier_is_a_queue_or_a_stack_across_segments(
            lifo in any::<bool>(),
            cap in 1usize..5,
            ops in proptest::collection::vec(prop_oneof![3 => Just(0u8), 2 => Just(1u8), 1 => Just(2u8)], 0..200),
        ) {
            let order = if lifo { Order::Lifo } else { Order::Fifo };
            let mut q = Frontier::with_segment_cap(order, Some(&Le), FrontierStorage::Auto, cap);
            let mut model: VecDeque<u32> = VecDeque::new();
            let mut next = 0u32;
            for op in ops {
                match op {
                    0 => {
                        q.push(next, u64::from(next), Tag::new(1, next));
                        model.push_back(next);
                        next += 1;
                    }
                    1 => {
                        let want = if lifo { model.pop_back() } else { model.pop_front() };
                        let got = q.pop(order);
                        prop_assert_eq!(got.map(|(s, _, _)| s), want);
                        if let Some((s, fp, tag)) = got {
                            prop_assert_eq!((fp, tag), (u64::from(s), Tag::new(1, s)));
                        }
                    }
                    // From now on bytes (breadth-first only; a depth-first frontier ignores it).
                    _ => q.memory_is_scarce(),
                }
                for seg in &q.segments {
                    if let Segment::Values(v) = seg {
                        prop_assert!(v.len() <= cap, "a segment of {} values, cap {}", v.len(), cap);
                    }
                }
            }
        }
    }

    #[test]
    fn a_growing_frontier_of_values_starts_segments_and_frees_them() {
        let mut q = Frontier::with_segment_cap(Order::Fifo, None, FrontierStorage::Values, 4);
        for i in 0..10u32 {
            q.push(i, 0, Tag::new(1, 0));
        }
        assert_eq!(q.segments.len(), 3, "4 + 4 + 2");
        for i in 0..5u32 {
            assert_eq!(q.pop(Order::Fifo).map(|(s, _, _)| s), Some(i));
        }
        assert_eq!(q.segments.len(), 2, "the first segment is gone once taken");
        assert!(q.spare.is_some(), "and kept for the next");
        for i in 10..13u32 {
            q.push(i, 0, Tag::new(1, 0));
        }
        assert!(q.spare.is_none(), "the spare started the fourth segment");
        let rest: Vec<u32> = std::iter::from_fn(|| q.pop(Order::Fifo).map(|(s, _, _)| s)).collect();
        assert_eq!(rest, (5..13).collect::<Vec<u32>>());
    }

    #[test]
    fn blocks_are_freed_as_the_queue_moves_on() {
        let mut q = ByteQueue::default();
        let record = vec![7u8; 1000];
        let per_block = BLOCK / (TAG + RECORD_HEADER + record.len());
        for i in 0..3 * per_block {
            q.push(i as u64, 1, &record);
        }
        assert_eq!(q.blocks.len(), 3);
        for _ in 0..per_block + 1 {
            q.pop().unwrap();
        }
        assert_eq!(q.blocks.len(), 2, "the first block is gone once read");
        while q.pop().is_some() {}
        assert_eq!(q.blocks.len(), 1, "the last block is kept for reuse");
        assert!(q.blocks[0].is_empty());
    }
}
