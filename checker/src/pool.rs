//! Independent checks on a few worker threads, results in input order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What [`try_map`] did: the results, and how many helper threads it could not start.
pub struct Mapped<R> {
    pub results: Vec<R>,
    /// The threads that worked, the calling one included.
    pub workers: usize,
    /// Why the OS refused a helper thread, if it did (the work was done all the same).
    pub spawn_error: Option<std::io::Error>,
}

/// `f` applied to every item on `threads` workers (at least one); the results come back in
/// the items' order, whatever order the workers finished in.
///
/// The calling thread is one of the workers, so a helper thread the OS refuses costs speed,
/// never the run: nothing here panics for want of threads.
pub fn map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    try_map(items, threads, f).results
}

/// [`map`], telling how many workers it had and why a helper could not start.
pub fn try_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Mapped<R> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(items.len()));
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else { break };
        let r = f(item);
        done.lock().expect("no worker panics").push((i, r));
    };
    let helpers = threads.max(1).min(items.len().max(1)) - 1;
    let mut workers = 1;
    let mut spawn_error = None;
    std::thread::scope(|scope| {
        for n in 0..helpers {
            match std::thread::Builder::new()
                .name(format!("worker-{n}"))
                .spawn_scoped(scope, work)
            {
                Ok(_) => workers += 1,
                Err(e) => {
                    spawn_error = Some(e);
                    break;
                }
            }
        }
        work();
    });
    let mut done = done.into_inner().expect("no worker panics");
    done.sort_by_key(|(i, _)| *i);
    Mapped {
        results: done.into_iter().map(|(_, r)| r).collect(),
        workers,
        spawn_error,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_input_order_on_any_number_of_threads() {
        let items: Vec<u64> = (0..100).collect();
        for threads in [0, 1, 2, 7] {
            let out = super::map(&items, threads, |x| x * x);
            assert_eq!(out, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_calling_thread_works_too() {
        let items: Vec<u64> = (0..10).collect();
        let m = super::try_map(&items, 1, |_| std::thread::current().id());
        assert_eq!(m.workers, 1);
        assert!(m.spawn_error.is_none());
        assert!(m
            .results
            .iter()
            .all(|id| *id == std::thread::current().id()));
        let m = super::try_map(&items, 3, |x| *x);
        assert_eq!(m.workers, 3);
    }
}
