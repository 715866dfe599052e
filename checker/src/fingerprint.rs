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

/// The chance that two of `states` distinct states share a fingerprint, were fingerprints
/// drawn at random: `n(n-1)/2` pairs, each alike with probability 2⁻⁶⁴. A search that stores
/// fingerprints, not states, takes a state whose fingerprint it has seen for that state, and
/// would not explore past it; this is the chance of that, the estimate TLC prints for its
/// own fingerprints. It is not a bound: how far it holds rests on how random the hash is
/// on the states at hand, and a model whose fingerprint combines digests of parts (ours)
/// adds terms of the same kind for the parts' digests. Past about 6 billion states the
/// estimate passes 1, and a chance says no more than 1.
pub fn collision_chance(states: usize) -> f64 {
    let n = states as f64;
    (n * (n - 1.0).max(0.0) / 2.0 / 2f64.powi(64)).min(1.0)
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
    fn the_collision_chance_grows_with_the_square_of_the_states() {
        assert_eq!(collision_chance(0), 0.0);
        assert_eq!(collision_chance(1), 0.0);
        // One pair: 2^-64.
        assert_eq!(collision_chance(2), 2f64.powi(-64));
        // About n²/2⁶⁵: a million states, 2.7e-8; ninety-one million, 2.2e-4.
        let near = |n: usize, want: f64| (collision_chance(n) / want - 1.0).abs() < 0.01;
        assert!(near(1_000_000, 2.71e-8), "{}", collision_chance(1_000_000));
        assert!(
            near(91_024_825, 2.246e-4),
            "{}",
            collision_chance(91_024_825)
        );
        assert!(collision_chance(usize::MAX).is_finite());
        // A chance, never more than 1 (the estimate passes 1 near 6.07e9 states).
        assert_eq!(collision_chance(usize::MAX), 1.0);
        assert_eq!(collision_chance(7_000_000_000), 1.0);
        assert!(collision_chance(5_000_000_000) < 1.0);
    }

    #[test]
    fn fingerprint_maps_use_the_key_itself() {
        let mut h = FingerprintHasher::default();
        h.write_u64(0xdead_beef);
        assert_eq!(h.finish(), 0xdead_beef);
    }
}
