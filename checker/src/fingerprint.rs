//! 64-bit fingerprints of states, as the explorers' visited sets know them.
//!
//! aHash with fixed seeds, the hasher stateright's own checkers fingerprint with: a
//! non-cryptographic hash is enough here (no adversary chooses the states), costs a few
//! instructions per field where SipHash costs dozens, and fixed seeds keep fingerprints the
//! same from run to run. As with any 64-bit fingerprint, two distinct states collide with
//! probability about n²/2⁶⁵ (under 10⁻⁷ for a million states).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

const SEEDS: [u64; 4] = [
    0x243f_6a88_85a3_08d3,
    0x1319_8a2e_0370_7344,
    0xa409_3822_299f_31d0,
    0x082e_fa98_ec4e_6c89,
];

/// The fingerprint of a state.
pub fn fingerprint<S: Hash + ?Sized>(s: &S) -> u64 {
    ahash::RandomState::with_seeds(SEEDS[0], SEEDS[1], SEEDS[2], SEEDS[3]).hash_one(s)
}

/// A hasher for maps keyed by fingerprints: the key is already a good hash, so it is used
/// as it is.
#[derive(Default)]
pub struct FingerprintHasher(u64);

impl Hasher for FingerprintHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A map keyed by fingerprints.
pub type FingerprintMap<V> = HashMap<u64, V, BuildHasherDefault<FingerprintHasher>>;

/// A set of fingerprints.
pub type FingerprintSet = std::collections::HashSet<u64, BuildHasherDefault<FingerprintHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_states_share_a_fingerprint_and_others_differ() {
        let a = (3u8, vec![1u32, 2], "x");
        assert_eq!(fingerprint(&a), fingerprint(&a.clone()));
        assert_ne!(fingerprint(&a), fingerprint(&(3u8, vec![2u32, 1], "x")));
        // Fixed seeds: the same value has the same fingerprint in every run.
        assert_eq!(fingerprint(&7u64), fingerprint(&7u64));
    }

    #[test]
    fn fingerprint_maps_use_the_key_itself() {
        let mut h = FingerprintHasher::default();
        h.write_u64(0xdead_beef);
        assert_eq!(h.finish(), 0xdead_beef);
    }
}
