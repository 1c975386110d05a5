//! Many short strings in one arena, each addressed by its index: the vocabulary's terms
//! (in id order) and the entries' ids (in position order).
//!
//! Why not a `Vec<Box<str>>`: a box is a 16-byte pointer plus an allocation of at least
//! 32 bytes, and a ledger holds millions of ids and terms (issue #44's memory on short
//! entries). Here a string costs its bytes and its end (8 bytes).

/// Strings in one arena, in the order they were pushed.
#[derive(Debug, Default, Clone)]
pub(super) struct Strings {
    /// Every string's bytes, one after the other.
    text: String,
    /// Where each string ends in `text` (it starts where the previous one ends).
    ends: Vec<u64>,
}

impl Strings {
    /// Appends `s`; returns its index.
    pub(super) fn push(&mut self, s: &str) -> usize {
        self.text.push_str(s);
        self.ends.push(self.text.len() as u64);
        self.ends.len() - 1
    }

    /// String `i`.
    #[inline]
    pub(super) fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    /// Number of strings.
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Every string, in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len()).map(|i| self.get(i))
    }

    /// Makes room for `n` more strings of `bytes` bytes in all.
    pub(super) fn reserve(&mut self, n: usize, bytes: usize) {
        self.ends.reserve_exact(n);
        self.text.reserve(bytes);
    }

    /// Heap bytes held.
    pub(super) fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * 8
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
}
