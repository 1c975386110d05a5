//! One-byte length codes: per document, the length of summary + tags and of detail, each
//! in one byte ([`code`]), read by pruned search to bound a document's score before its
//! 8-byte record is read.
//!
//! Why: at a million entries the records ([`crate::inverted::Doc`], 8 MB) are not
//! cache-resident, and a pruned search of common words looks at ~100k candidates of
//! which ~100 can enter the results. Two bytes per document (2 MB at 1M) mostly stay in
//! cache, so a candidate that cannot reach the k-th score is passed over without a
//! cache miss. The same idea as the one-byte field norms of Lucene and tantivy, but here
//! the codes only bound scores: every score that ranks is computed from exact lengths.
//!
//! The code of a length is exact below [`EXACT`] and, above, the step of a geometric
//! table (~5 % apart) whose floor is at most the length. A smaller length makes BM25's
//! length norm smaller and a term's score larger, so a score computed at the floors is
//! at least the exact one, and equal when both lengths are below [`EXACT`].

/// Lengths below this have a code equal to the length.
pub(crate) const EXACT: u16 = 128;

/// The smallest length of each code: `FLOORS[c] = c` below [`EXACT`], then growing by
/// about 5 % a step, to 53,624 (strictly increasing).
const FLOORS: [u16; 256] = floors();

const fn floors() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = if c < EXACT as usize {
            c as u16
        } else {
            // Ends at 53,624 (the last code takes every longer length).
            t[c - 1] + t[c - 1] / 21 + 1
        };
        c += 1;
    }
    t
}

/// The code of `len`: the largest code whose floor is at most `len`.
pub(crate) fn code(len: u16) -> u8 {
    (FLOORS.partition_point(|&f| f <= len) - 1) as u8
}

/// The smallest length with code `c` (at most every length coded `c`).
#[inline(always)]
pub(crate) fn floor(c: u8) -> u16 {
    FLOORS[c as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_exact_below_128_and_floors_never_exceed_the_length() {
        for len in 0..EXACT {
            assert_eq!(floor(code(len)), len);
        }
        let mut last = 0;
        for len in 0..=u16::MAX {
            let c = code(len);
            assert!(floor(c) <= len, "{len}");
            assert!(c >= last, "codes grow with the length");
            last = c;
            // The floor is within about 5 % of the length (the last code takes the rest).
            if c < 255 {
                assert!(f64::from(len) < f64::from(floor(c)) * 1.06 + 1.0, "{len}");
            }
        }
        assert!(
            FLOORS.windows(2).all(|w| w[0] < w[1]),
            "strictly increasing"
        );
    }
}
