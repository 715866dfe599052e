//! Where a search's time goes: the one-thread search timed by phase ([`Options::time_phases`]).
//!
//! A throughput figure says how fast a search is, not why. Timing each phase of the loop
//! (taking a state from the frontier, listing its actions, judging properties, building
//! successors, fingerprinting them, asking the visited set, dropping what is not kept) says
//! which part a faster model or engine would have to shrink, on the machine and scenario at
//! hand, without a profiler.
//!
//! The search reads the clock at every boundary between two phases (a *lap*): about six
//! times per state and four per successor. A lap costs a clock read, which the timed search
//! pays on top of its work; [`PhaseTimes`] subtracts that cost, measured before the search
//! ([`PhaseTimes::lap_cost`]), from each phase as many times as it was lapped, and says how long the
//! timed search took in all, so that a reader can compare it with an untimed run. Without
//! [`Options::time_phases`] the search is compiled without any clock read (a stopwatch that
//! reads none).
//!
//! [`Options::time_phases`]: crate::Options::time_phases

use std::cell::Cell;
use std::time::{Duration, Instant};

/// A phase of the one-thread search's loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// Taking the next state from the frontier, and storing a new one there (decoding and
    /// encoding it when the frontier holds bytes).
    Frontier,
    /// Listing the enabled actions of a state ([`crate::Model::actions`]).
    Actions,
    /// Judging the properties at a state or a successor, and telling which parts of a
    /// successor its parent shares ([`crate::Model::unchanged_parts`]).
    Judging,
    /// Asking the model for a persistent set ([`crate::Model::persistent_set`]), which builds
    /// the successors of the set it finds (partial-order reduction only).
    Reduction,
    /// Building successors: the model's transitions ([`crate::Model::draft`]), and forgetting
    /// dead parts ([`crate::Model::forget`]).
    Building,
    /// Under symmetry reduction, each successor's class fingerprint
    /// ([`crate::ClassFingerprint`]: a canonical form, hashed). The fingerprinting phase is
    /// then empty.
    Symmetry,
    /// Fingerprinting successors (without symmetry).
    Fingerprinting,
    /// The visited set: asking for a successor's slot ahead, then inserting it with its
    /// parent pointer.
    Visited,
    /// Dropping states: successors already seen, and each state once expanded.
    Dropping,
    /// The rest of the loop: progress reports, the time and memory budget, bookkeeping.
    Search,
}

impl Phase {
    /// Every phase, in the order of the loop.
    pub const ALL: [Phase; 10] = [
        Phase::Frontier,
        Phase::Actions,
        Phase::Judging,
        Phase::Reduction,
        Phase::Building,
        Phase::Symmetry,
        Phase::Fingerprinting,
        Phase::Visited,
        Phase::Dropping,
        Phase::Search,
    ];

    /// What the phase does, in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            Phase::Frontier => "taking states from the frontier and storing new ones",
            Phase::Actions => "listing enabled actions",
            Phase::Judging => "judging properties",
            Phase::Reduction => "finding persistent sets (building their successors)",
            Phase::Building => "building successors (the model's transitions)",
            Phase::Symmetry => "class fingerprints of successors (symmetry)",
            Phase::Fingerprinting => "fingerprinting successors",
            Phase::Visited => "the visited set",
            Phase::Dropping => "dropping states (seen before, or expanded)",
            Phase::Search => "the rest of the search (progress, budget, bookkeeping)",
        }
    }

    /// A short name, for machine-readable output.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Frontier => "frontier",
            Phase::Actions => "actions",
            Phase::Judging => "judging",
            Phase::Reduction => "reduction",
            Phase::Building => "building",
            Phase::Symmetry => "symmetry",
            Phase::Fingerprinting => "fingerprinting",
            Phase::Visited => "visited",
            Phase::Dropping => "dropping",
            Phase::Search => "search",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// How long each phase of a timed search took.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseTimes {
    /// Per phase the search went through (in [`Phase::ALL`]'s order): its time, less the
    /// clock reads that timed it.
    pub phases: Vec<(Phase, Duration)>,
    /// How many times the clock was read.
    pub laps: u64,
    /// What one clock read cost, measured before the search; subtracted once per lap.
    pub lap_cost: Duration,
    /// The timed search's whole time, clock reads included.
    pub timed: Duration,
}

impl PhaseTimes {
    /// The sum over the phases: the search's time less its clock reads.
    pub fn total(&self) -> Duration {
        self.phases.iter().map(|(_, d)| *d).sum()
    }

    /// The share of [`PhaseTimes::total`] that `spent` is (0 when nothing was spent).
    pub fn share_of(&self, spent: Duration) -> f64 {
        let total = self.total().as_secs_f64();
        if total > 0.0 {
            spent.as_secs_f64() / total
        } else {
            0.0
        }
    }

    /// Each phase's share of [`PhaseTimes::total`], largest first (ties in loop order).
    pub fn shares(&self) -> Vec<(Phase, f64)> {
        let mut shares: Vec<(Phase, f64)> = self
            .phases
            .iter()
            .map(|(p, d)| (*p, self.share_of(*d)))
            .collect();
        shares.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        shares
    }
}

/// What the search calls at each boundary between phases: `lap(p)` charges the time since
/// the previous lap to `p`. It takes `&self`, so that a closure the search hands on (the
/// fingerprint of a successor, which under symmetry first maps it to its class) can lap too.
pub(crate) trait Stopwatch {
    fn lap(&self, phase: Phase);
}

/// The search as it runs by default: no clock is read.
pub(crate) struct Untimed;

impl Stopwatch for Untimed {
    #[inline(always)]
    fn lap(&self, _: Phase) {}
}

/// Reads the clock at each lap.
pub(crate) struct Timed {
    start: Instant,
    last: Cell<Instant>,
    spent: [Cell<Duration>; Phase::ALL.len()],
    laps: [Cell<u64>; Phase::ALL.len()],
    lap_cost: Duration,
}

impl Timed {
    pub(crate) fn start() -> Timed {
        let lap_cost = lap_cost();
        let now = Instant::now();
        Timed {
            start: now,
            last: Cell::new(now),
            spent: std::array::from_fn(|_| Cell::new(Duration::ZERO)),
            laps: std::array::from_fn(|_| Cell::new(0)),
            lap_cost,
        }
    }

    /// The times so far; the time since the last lap is charged to [`Phase::Search`].
    pub(crate) fn finish(self) -> PhaseTimes {
        self.lap(Phase::Search);
        let phases = Phase::ALL
            .iter()
            .filter(|p| self.laps[p.index()].get() > 0)
            .map(|p| {
                let reads = times(self.lap_cost, self.laps[p.index()].get());
                (*p, self.spent[p.index()].get().saturating_sub(reads))
            })
            .collect();
        PhaseTimes {
            phases,
            laps: self.laps.iter().map(Cell::get).sum(),
            lap_cost: self.lap_cost,
            timed: self.last.get() - self.start,
        }
    }
}

impl Stopwatch for Timed {
    fn lap(&self, phase: Phase) {
        let now = Instant::now();
        let i = phase.index();
        self.spent[i].set(self.spent[i].get() + (now - self.last.get()));
        self.laps[i].set(self.laps[i].get() + 1);
        self.last.set(now);
    }
}

/// `cost` taken `laps` times, saturating (a `u32` factor would stop at 4.3 billion laps, a
/// search of about 160 million states).
fn times(cost: Duration, laps: u64) -> Duration {
    let nanos = cost.as_nanos().saturating_mul(u128::from(laps));
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

/// What one lap costs on this machine: the least, over a few rounds, of the mean time of a
/// run of back-to-back clock reads (the least is the round nothing interrupted).
pub(crate) fn lap_cost() -> Duration {
    const READS: u32 = 1_000;
    (0..5)
        .map(|_| {
            let start = Instant::now();
            let mut last = start;
            for _ in 0..READS {
                last = std::hint::black_box(Instant::now());
            }
            (last - start) / READS
        })
        .min()
        .unwrap_or(Duration::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_lap_charges_the_time_since_the_last_to_its_phase() {
        let mut w = Timed::start();
        w.lap_cost = Duration::ZERO;
        std::thread::sleep(Duration::from_millis(20));
        w.lap(Phase::Building);
        w.lap(Phase::Judging);
        let t = w.finish();
        let of = |p| t.phases.iter().find(|(q, _)| *q == p).map(|(_, d)| *d);
        assert!(of(Phase::Building).unwrap() >= Duration::from_millis(20));
        assert!(
            t.phases.iter().all(|(p, _)| *p != Phase::Visited),
            "a phase never lapped is left out"
        );
        assert_eq!(t.laps, 3, "two laps and the closing one");
        assert_eq!(
            t.total(),
            t.timed,
            "nothing is subtracted at a lap cost of zero"
        );
    }

    #[test]
    fn shares_sum_to_one_largest_first() {
        let ms = Duration::from_millis;
        let t = PhaseTimes {
            phases: vec![
                (Phase::Frontier, ms(1)),
                (Phase::Building, ms(6)),
                (Phase::Judging, ms(3)),
            ],
            laps: 3,
            lap_cost: Duration::ZERO,
            timed: ms(10),
        };
        let shares = t.shares();
        let order: Vec<Phase> = shares.iter().map(|(p, _)| *p).collect();
        assert_eq!(order, [Phase::Building, Phase::Judging, Phase::Frontier]);
        assert!((shares[0].1 - 0.6).abs() < 1e-9);
        let sum: f64 = shares.iter().map(|(_, s)| s).sum();
        assert!((sum - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_cost_of_the_clock_reads_is_subtracted_per_lap_and_never_below_zero() {
        let mut w = Timed::start();
        w.lap_cost = Duration::from_secs(1);
        w.lap(Phase::Actions);
        let t = w.finish();
        assert!(t.phases.iter().all(|(_, d)| *d == Duration::ZERO));
        assert_eq!(t.total(), Duration::ZERO);
        assert!(t.shares().iter().all(|(_, s)| *s == 0.0));
    }

    #[test]
    fn billions_of_laps_are_subtracted_in_full() {
        let laps = 10_000_000_000u64; // beyond u32, as a search of 400 million states has
        assert_eq!(
            times(Duration::from_nanos(30), laps),
            Duration::from_secs(300)
        );
        assert_eq!(
            times(Duration::MAX, u64::MAX).as_nanos(),
            u128::from(u64::MAX)
        );
    }
}
