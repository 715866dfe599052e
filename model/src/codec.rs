//! The compact frontier's byte form of a [`State`] (`webmcp_checker::StateCodec`): postcard,
//! whose variable-length integers write most of our small ids and counters in one byte. A
//! state kept as a value costs its struct plus a fresh copy of every collection its
//! transition changed; as bytes it costs about as many bytes as it has ids and counters.
//!
//! The bytes live only inside one search. Decoding gives an equal state whose collections
//! are no longer shared with any other state (and whose digests are computed again once).

use webmcp_checker::StateCodec;

use crate::state::State;

/// postcard over serde, for [`State`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Postcard;

impl StateCodec<State> for Postcard {
    fn encode(&self, state: &State, out: &mut Vec<u8>) {
        let bytes = std::mem::take(out);
        *out = postcard::to_extend(state, bytes).expect("every state serializes");
    }

    fn decode(&self, bytes: &[u8]) -> State {
        postcard::from_bytes(bytes).expect("the bytes encode wrote")
    }
}

#[cfg(test)]
mod tests {
    use crate::coll::{OrdMap, OrdSet, Vector};

    #[test]
    fn collections_round_trip_and_unsorted_maps_and_sets_are_refused() {
        let v: Vector<u8> = vec![3, 1, 2].into();
        let bytes = postcard::to_allocvec(&v).unwrap();
        assert_eq!(postcard::from_bytes::<Vector<u8>>(&bytes).unwrap(), v);
        let m: OrdMap<u8, u16> = [(2, 20), (1, 10)].into_iter().collect();
        let bytes = postcard::to_allocvec(&m).unwrap();
        assert_eq!(postcard::from_bytes::<OrdMap<u8, u16>>(&bytes).unwrap(), m);
        // The same entries written out of order, and with a key twice.
        let unsorted = postcard::to_allocvec(&vec![(2u8, 20u16), (1, 10)]).unwrap();
        assert!(postcard::from_bytes::<OrdMap<u8, u16>>(&unsorted).is_err());
        let twice = postcard::to_allocvec(&vec![1u8, 1]).unwrap();
        assert!(postcard::from_bytes::<OrdSet<u8>>(&twice).is_err());
        // Empty collections come back empty (and allocate nothing).
        let empty = postcard::to_allocvec(&Vector::<u8>::default()).unwrap();
        assert_eq!(empty, [0]);
        assert!(postcard::from_bytes::<Vector<u8>>(&empty)
            .unwrap()
            .is_empty());
    }
}
