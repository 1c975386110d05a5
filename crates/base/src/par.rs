//! Work split into parts, each part on a scoped thread of its own, the results in the
//! parts' order: the one way the core spreads a pass over the cores (the overlaps pool's
//! reads, its look-ups and its pairs written out; bounding postings at a first start;
//! reading a verification's lines and a replayed prefix's links).
//! Callers choose the parts so the result is the same on any number of threads. (A first
//! read's text index is a pipeline stage instead, fed in file order: `index::inverted_job`.)

/// Threads a pass over lines uses: every core, at most four.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

/// `f` of every item, in order: the items cut into up to `threads` runs of consecutive
/// items, each run on a thread of its own ([`each`]); fewer than `alone` items are done
/// on the caller's thread.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    alone: usize,
    what: &str,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    if threads < 2 || items.len() < alone.max(2) {
        return items.iter().map(f).collect();
    }
    let runs = items.chunks(items.len().div_ceil(threads)).collect();
    each(runs, what, |run: &[T]| {
        run.iter().map(&f).collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// `f` of every part, each on a scoped thread of its own (one part: on the caller's), in
/// the parts' order. A part that panics panics the caller, naming `what`.
pub fn each<P: Send, R: Send>(parts: Vec<P>, what: &str, f: impl Fn(P) -> R + Sync) -> Vec<R> {
    if parts.len() <= 1 {
        return parts.into_iter().map(f).collect();
    }
    std::thread::scope(|sc| {
        let f = &f;
        let handles: Vec<_> = parts.into_iter().map(|p| sc.spawn(move || f(p))).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| panic!("a {what} thread panicked"))
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_in_the_parts_order_on_any_number_of_parts() {
        for n in [0usize, 1, 2, 5] {
            let parts: Vec<usize> = (0..n).collect();
            let out = super::each(parts, "test", |p| {
                // Later parts finish first: the order must not depend on it.
                std::thread::sleep(std::time::Duration::from_millis((n - p) as u64 * 3));
                p * 10
            });
            assert_eq!(out, (0..n).map(|p| p * 10).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_map_keeps_the_items_order_on_any_number_of_threads() {
        let items: Vec<u32> = (0..1_000).collect();
        let want: Vec<u32> = items.iter().map(|i| i * 3).collect();
        for threads in [0, 1, 2, 3, 7] {
            for alone in [0, 10, 5_000] {
                assert_eq!(super::map(&items, threads, alone, "test", |i| i * 3), want);
            }
        }
        assert!(super::map(&[] as &[u32], 4, 0, "test", |i| *i).is_empty());
    }
}
