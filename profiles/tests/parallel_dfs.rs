//! The engine's parallel depth-first search on the standard suite: every scenario, under
//! the draft as written, gives on two threads the verdicts and state counts of the
//! one-thread searches, without and with partial-order reduction, and every path it reports
//! (whichever worker found it) replays on the unreduced model to a state that shows its
//! property's outcome.

use webmcp_model::{Variant, WebMcpModel};
use webmcp_profiles::{check, CheckOptions, Mode, Reduction};

mod common;
use common::{options, replay_paths, standard_worlds};

#[test]
fn two_threads_depth_first_give_the_one_thread_verdicts_and_counts() {
    let mut states = 0usize;
    for world in standard_worlds() {
        let m = WebMcpModel::new(world.clone(), Variant::parse("seed").unwrap());
        for reduction in [Reduction::None, Reduction::Por] {
            let bfs = check(m.clone(), &options(reduction));
            let dfs = |threads| {
                check(
                    m.clone(),
                    &CheckOptions {
                        mode: Mode::Dfs,
                        threads,
                        ..options(reduction)
                    },
                )
            };
            let (one, two) = (dfs(1), dfs(2));
            let name = format!("{} with {reduction:?}", world.name);
            assert!(bfs.exhaustive && one.exhaustive && two.exhaustive, "{name}");
            assert_eq!(two.verdicts(), bfs.verdicts(), "{name}");
            assert_eq!(two.verdicts(), one.verdicts(), "{name}");
            assert_eq!(
                (two.unique_states, two.total_states),
                (one.unique_states, one.total_states),
                "{name}"
            );
            if reduction == Reduction::None {
                assert_eq!(two.unique_states, bfs.unique_states, "{name}");
                states += two.unique_states;
            }
            if let Err(e) = replay_paths(&m, &two) {
                panic!("{name}: {e}");
            }
        }
    }
    // Not vacuous: the suite's two hundred thousand states, not searches that stopped early.
    assert!(states > 200_000, "{states} states");
}
