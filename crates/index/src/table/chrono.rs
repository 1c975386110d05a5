//! Every entry's position in time order (oldest first; equal times in position order).
//!
//! Appends arrive in time order nearly always, and then the order is the positions
//! themselves: nothing is kept (4 bytes an entry saved, 4 MB at 1M entries).
//! The first entry older than the one before it writes the order out as a
//! vector, which later entries are inserted into as before.

use crate::codec::{Bad, Dec, Enc, check};

/// Positions in time order: implicit while every append was in time order.
#[derive(Debug, Default)]
pub(crate) struct Chrono {
    /// Entries in the order.
    len: usize,
    /// The order, once it is not the positions' own.
    sorted: Option<Vec<u32>>,
}

impl Chrono {
    /// True while the order is the positions' own.
    pub(crate) fn in_order(&self) -> bool {
        self.sorted.is_none()
    }

    /// Takes in the next position `pos`, whose time is `ts_of(pos)`, after every entry
    /// with a time at or before its own.
    pub(crate) fn insert(&mut self, pos: u32, ts_of: impl Fn(u32) -> i64) {
        debug_assert_eq!(pos as usize, self.len, "positions come in order");
        let ts = ts_of(pos);
        let older_than_last = self.len > 0 && ts_of(self.view().get(self.len - 1)) > ts;
        if older_than_last && self.sorted.is_none() {
            self.sorted = Some((0..self.len as u32).collect());
        }
        if let Some(v) = &mut self.sorted {
            let at = v.partition_point(|&p| ts_of(p) <= ts);
            v.insert(at, pos);
        }
        self.len += 1;
    }

    /// The order, to read.
    pub(crate) fn view(&self) -> TimeOrder<'_> {
        TimeOrder {
            len: self.len,
            sorted: self.sorted.as_deref(),
        }
    }

    /// Bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.sorted.as_ref().map_or(0, |v| v.capacity() * 4)
    }

    /// Writes the order as the snapshot has it: every position, in order.
    pub(crate) fn encode(&self, w: &mut Enc) {
        w.len(self.len);
        for i in 0..self.len {
            w.u32(self.view().get(i));
        }
    }

    /// Reads what [`Chrono::encode`] wrote for `n` entries: a permutation of `0..n`,
    /// in order or not as `in_order` says.
    pub(crate) fn decode(r: &mut Dec<'_>, n: usize) -> Result<Chrono, Bad> {
        let v = r.u32s()?;
        check(v.len() == n, "chrono is not a permutation")?;
        let mut seen = vec![false; n];
        for &p in &v {
            check(
                (p as usize) < n && !seen[p as usize],
                "chrono is not a permutation",
            )?;
            seen[p as usize] = true;
        }
        let own = v.iter().enumerate().all(|(i, &p)| i == p as usize);
        Ok(Chrono {
            len: n,
            sorted: (!own).then_some(v),
        })
    }
}

/// Positions in time order, read at any rank.
#[derive(Clone, Copy, Debug)]
pub struct TimeOrder<'a> {
    len: usize,
    sorted: Option<&'a [u32]>,
}

impl<'a> TimeOrder<'a> {
    /// Entries in the order.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The position at rank `i` (`i` below [`TimeOrder::len`]).
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match self.sorted {
            Some(v) => v[i],
            None => {
                assert!(i < self.len, "a rank within the order");
                i as u32
            }
        }
    }

    /// The first rank whose position fails `pred` (which must hold for a prefix).
    pub fn partition_point(&self, pred: impl Fn(u32) -> bool) -> usize {
        match self.sorted {
            Some(v) => v.partition_point(|&p| pred(p)),
            None => {
                let (mut lo, mut hi) = (0, self.len);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if pred(mid as u32) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                lo
            }
        }
    }

    /// Every position, oldest first.
    pub fn iter(self) -> impl DoubleEndedIterator<Item = u32> + 'a {
        self.positions(0, self.len)
    }

    /// The positions at ranks `lo..hi`, oldest first.
    pub fn positions(self, lo: usize, hi: usize) -> impl DoubleEndedIterator<Item = u32> + 'a {
        (lo..hi.max(lo)).map(move |i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order the index kept before: every position inserted into a vector.
    fn plain(ts: &[i64]) -> Vec<u32> {
        let mut v: Vec<u32> = Vec::new();
        for pos in 0..ts.len() as u32 {
            let at = v.partition_point(|&p| ts[p as usize] <= ts[pos as usize]);
            v.insert(at, pos);
        }
        v
    }

    fn check_against_plain(ts: &[i64]) -> Chrono {
        let mut c = Chrono::default();
        for pos in 0..ts.len() as u32 {
            c.insert(pos, |p| ts[p as usize]);
            let want = plain(&ts[..=pos as usize]);
            let view = c.view();
            assert_eq!(view.positions(0, view.len()).collect::<Vec<_>>(), want);
            assert_eq!(
                view.positions(0, view.len()).rev().collect::<Vec<_>>(),
                want.iter().rev().copied().collect::<Vec<_>>()
            );
            for t in [-1, 0, 3, 5, 100] {
                let ours = view.partition_point(|p| ts[p as usize] <= t);
                assert_eq!(ours, want.partition_point(|&p| ts[p as usize] <= t));
            }
        }
        let mut w = Enc::default();
        c.encode(&mut w);
        let back = Chrono::decode(&mut Dec::new(&w.0), ts.len()).unwrap();
        assert_eq!(back.in_order(), c.in_order());
        assert_eq!(back.sorted, c.sorted);
        c
    }

    #[test]
    fn times_in_order_keep_nothing_and_read_like_a_vector() {
        let c = check_against_plain(&[0, 1, 1, 3, 5, 5, 5, 9]);
        assert!(c.in_order());
        assert_eq!(c.heap_bytes(), 0);
    }

    #[test]
    fn one_older_entry_writes_the_order_out_and_later_ones_are_inserted() {
        let c = check_against_plain(&[0, 2, 4, 3, 4, 1, 9, 9, 0]);
        assert!(!c.in_order());
        assert_eq!(c.view().get(0), 0);
        assert_eq!(c.view().get(1), 8);
    }

    #[test]
    fn a_snapshot_order_that_is_not_a_permutation_is_refused() {
        for v in [vec![0u32, 0, 2], vec![0, 1, 3], vec![0, 1]] {
            let mut w = Enc::default();
            w.u32s(&v);
            assert!(Chrono::decode(&mut Dec::new(&w.0), 3).is_err(), "{v:?}");
        }
    }
}
