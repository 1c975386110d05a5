//! Filing many keys into a `hashbrown` table at once, in the order of the buckets their
//! hashes start at, so that the table is written front to back. Filed one by one in any
//! other order, each of millions of keys is a cache miss on the table (the snapshot's
//! reader spent two thirds of its vocabulary's time there at 1M entries with ids). Used
//! where the snapshot's reader rebuilds the vocabulary (docs/performance-log.md says why
//! not for the ids' table).

use hashbrown::HashTable;

/// A value and its hash, in 12 bytes where a `(u64, u32)` takes 16: the snapshot's reader
/// holds one per term while the vocabulary is filed (4.6M at 1M short entries with ids,
/// the largest allocation at a restart's peak).
#[derive(Clone, Copy)]
pub(crate) struct Keyed([u32; 3]);

impl Keyed {
    /// `value` filed under `hash`.
    pub(crate) fn new(hash: u64, value: u32) -> Keyed {
        Keyed([hash as u32, (hash >> 32) as u32, value])
    }

    fn hash(&self) -> u64 {
        u64::from(self.0[0]) | (u64::from(self.0[1]) << 32)
    }

    fn value(&self) -> u32 {
        self.0[2]
    }
}

/// Files every value of `items` under its hash into `table`, which must hold none of
/// them, in the order of the buckets they start at. `same(a, b)` says whether two values
/// filed under the same hash are the same key: then nothing is filed and the answer is
/// `Err`.
pub(crate) fn file(
    table: &mut HashTable<u32>,
    mut items: Vec<Keyed>,
    same: impl Fn(u32, u32) -> bool,
    rehash: impl Fn(&u32) -> u64,
) -> Result<(), ()> {
    table.reserve(items.len(), &rehash);
    // A table has a power of two of buckets, 7 in 8 of them usable (fewer below 8), and
    // a key's probe starts at the bucket its hash's low bits name.
    let mask = ((table.capacity() * 8 / 7).next_power_of_two() as u64).wrapping_sub(1);
    items.sort_unstable_by_key(|k| (k.hash() & mask, k.hash(), k.value()));
    for run in items.chunk_by(|a, b| a.hash() == b.hash()) {
        for (i, a) in run.iter().enumerate() {
            if run[i + 1..].iter().any(|b| same(a.value(), b.value())) {
                return Err(());
            }
        }
    }
    for k in items {
        table.insert_unique(k.hash(), k.value(), &rehash);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys filed at once are found as if filed one by one, whatever the table's size;
    /// a key given twice is refused.
    #[test]
    fn keys_filed_at_once_are_found_and_a_key_twice_is_refused() {
        let hash = |k: u32| u64::from(k).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for n in [0u32, 1, 7, 8, 100, 5_000] {
            let mut t = HashTable::new();
            let items = (0..n).map(|k| Keyed::new(hash(k), k)).collect();
            file(&mut t, items, |a, b| a == b, |&k| hash(k)).unwrap();
            assert_eq!(t.len(), n as usize);
            for k in 0..n {
                assert_eq!(t.find(hash(k), |&v| v == k), Some(&k), "{n}: {k}");
            }
            assert_eq!(t.find(hash(n), |&v| v == n), None);
        }
        let mut t = HashTable::new();
        let twice = vec![
            Keyed::new(hash(1), 1),
            Keyed::new(hash(2), 2),
            Keyed::new(hash(1), 1),
        ];
        assert!(file(&mut t, twice, |a, b| a == b, |&k| hash(k)).is_err());
        // The same hash for two different keys is no duplicate.
        let mut t = HashTable::new();
        let clash = vec![Keyed::new(5, 1), Keyed::new(5, 2)];
        file(&mut t, clash, |a, b| a == b, |_| 5).unwrap();
        assert_eq!(t.len(), 2);
    }
}
