//! Many short strings in one arena, each addressed by its index: the vocabulary's terms
//! (in id order) and the entries' ids (in position order).
//!
//! Why not a `Vec<Box<str>>`: a box is a 16-byte pointer plus an allocation of at least
//! 32 bytes, and a ledger holds millions of ids and terms (the memory on short
//! entries). Here a string costs its bytes and its end (4 bytes: the end's low 32 bits;
//! the arena past 4 GiB, which no ledger we measured comes near, is handled by noting
//! where the high bits change).

/// Strings in one arena, in the order they were pushed.
#[derive(Debug, Default, Clone)]
pub(crate) struct Strings {
    /// Every string's bytes, one after the other.
    text: String,
    /// The low 32 bits of where each string ends in `text` (it starts where the previous
    /// one ends).
    ends: Vec<u32>,
    /// The index of each string whose end is the first past another 4 GiB: the high bits
    /// of string `i`'s end are the number of these at or below `i`.
    wraps: Vec<usize>,
}

impl Strings {
    /// Appends `s`; returns its index.
    pub(crate) fn push(&mut self, s: &str) -> usize {
        let before = self.text.len() as u64;
        self.text.push_str(s);
        let end = self.text.len() as u64;
        if end >> 32 != before >> 32 {
            self.wraps.push(self.ends.len());
        }
        self.ends.push(end as u32);
        self.ends.len() - 1
    }

    /// Where string `i` ends in the arena.
    #[inline]
    fn end(&self, i: usize) -> usize {
        let low = self.ends[i] as usize;
        if self.wraps.is_empty() {
            return low;
        }
        let high = self.wraps.partition_point(|&w| w <= i) as u64;
        ((high << 32) | low as u64) as usize
    }

    /// String `i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.end(i - 1) };
        // Ends are recorded where each pushed string ended: character boundaries.
        #[allow(clippy::string_slice)]
        &self.text[start..self.end(i)]
    }

    /// Number of strings.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Every string, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len()).map(|i| self.get(i))
    }

    /// Makes room for `n` more strings of `bytes` bytes in all.
    pub(crate) fn reserve(&mut self, n: usize, bytes: usize) {
        self.ends.reserve_exact(n);
        self.text.reserve(bytes);
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * 4 + self.wraps.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::Strings;

    #[test]
    fn strings_read_back_in_order_empty_ones_included() {
        let mut s = Strings::default();
        let want = ["mem-1", "", "a", "mem-01", "é", ""];
        for (i, w) in want.iter().enumerate() {
            assert_eq!(s.push(w), i);
        }
        assert_eq!(s.len(), want.len());
        for (i, w) in want.iter().enumerate() {
            assert_eq!(s.get(i), *w);
        }
        assert!(s.iter().eq(want.iter().copied()));
    }

    /// Ends past 4 GiB keep their high bits: the arena's text is faked here (a real one
    /// would need 4 GiB of memory), only the ends' arithmetic is under test.
    #[test]
    fn ends_past_four_gib_keep_their_high_bits() {
        let mut s = Strings::default();
        let gib4 = 1usize << 32;
        // Three strings whose ends are 4 GiB − 2, 4 GiB + 3 and 8 GiB + 1.
        for end in [gib4 - 2, gib4 + 3, 2 * gib4 + 1] {
            let before = s.ends.last().map_or(0, |_| s.end(s.ends.len() - 1));
            if end >> 32 != before >> 32 {
                s.wraps.push(s.ends.len());
            }
            s.ends.push(end as u32);
        }
        assert_eq!(s.wraps, vec![1, 2]);
        assert_eq!(s.end(0), gib4 - 2);
        assert_eq!(s.end(1), gib4 + 3);
        assert_eq!(s.end(2), 2 * gib4 + 1);
    }
}
