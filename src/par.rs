//! Work split into parts, each part on a scoped thread of its own, the results in the
//! parts' order: the one way the core spreads a pass over the cores (the overlaps pool's
//! reads, its look-ups and its pairs written out; bounding postings at a first start;
//! reading a verification's lines and a replayed prefix's links).
//! Callers choose the parts so the result is the same on any number of threads. (A first
//! read's text index is a pipeline stage instead, fed in file order: `index::text_job`.)

/// Threads a pass over lines uses: every core, at most four.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
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
}
