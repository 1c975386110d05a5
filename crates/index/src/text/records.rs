//! How a list of two postings or more lays its records out in one byte vector.
//!
//! A record is a posting's document and its frequency byte (see `postings.rs`). A list is
//! laid out one of two ways:
//! - *wide*: 5 bytes a posting, the document in 4 and the frequency byte;
//! - *narrow*: blocks of [`NB`] postings, each a 4-byte base (the document of its first
//!   posting) then 3 bytes a posting: its document's distance from the base in 16 bits,
//!   and the frequency byte. 3.125 bytes a posting.
//!
//! A list is narrow while the documents of each block lie within 65,535 of its first;
//! the posting that would break that widens the list for good. A list read back from the
//! snapshot is narrow exactly when every block fits, so a list has the same layout
//! however it was built. Either way posting `i` is read at a computed offset: the pruned
//! walk still reads any position, seeks back and bisects. (Gap-compressed postings would
//! be smaller but give that up.) On the bench's 1M short entries with ids, 82 % of the
//! postings of lists of two or more are in narrow lists, and the records take 113 MB
//! instead of 163 MB (docs/performance.md).

/// Bytes a wide record takes (and the snapshot's record).
pub(crate) const REC: usize = 5;
/// Postings in a block of a narrow list.
pub(crate) const NB: usize = 32;
/// Bytes a narrow record takes.
const NREC: usize = 3;
/// Bytes a full block of a narrow list takes: its base and its records.
const BLOCK: usize = 4 + NB * NREC;

#[inline(always)]
fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"))
}

/// Number of postings in `b`.
#[inline]
pub(crate) fn count(b: &[u8], narrow: bool) -> usize {
    if !narrow {
        return b.len() / REC;
    }
    let (full, rest) = (b.len() / BLOCK, b.len() % BLOCK);
    full * NB + rest.saturating_sub(4) / NREC
}

/// The document and frequency byte of posting `a` of `b` (which must exist).
#[inline(always)]
pub(crate) fn at(b: &[u8], narrow: bool, a: usize) -> (u32, u8) {
    if narrow {
        let blk = a / NB * BLOCK;
        let o = blk + 4 + a % NB * NREC;
        let r: [u8; NREC] = b[o..o + NREC].try_into().expect("a record");
        let base = u32_at(b, blk);
        (base + u32::from(u16::from_le_bytes([r[0], r[1]])), r[2])
    } else {
        let r: [u8; REC] = b[a * REC..a * REC + REC].try_into().expect("a record");
        (u32::from_le_bytes([r[0], r[1], r[2], r[3]]), r[4])
    }
}

/// Of postings `from..to` of `b` (ascending by document), how many have a document
/// `≤ doc`. A narrow list's blocks are bisected by their bases first — one look each,
/// where a posting's document is two — then the one block holding the answer.
#[inline]
pub(crate) fn count_le(b: &[u8], narrow: bool, from: usize, to: usize, doc: u32) -> usize {
    let (mut lo, mut hi) = (from, to);
    if narrow && hi - lo > NB {
        // The first block whose base is above `doc`: the answer lies before it.
        let (mut kl, mut kh) = (lo / NB + 1, (hi - 1) / NB + 1);
        while kl < kh {
            let mid = kl + (kh - kl) / 2;
            if u32_at(b, mid * BLOCK) <= doc {
                kl = mid + 1;
            } else {
                kh = mid;
            }
        }
        lo = lo.max((kl - 1) * NB);
        hi = hi.min(kl * NB);
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if at(b, narrow, mid).0 <= doc {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo - from
}

/// Makes room for `need` more bytes, growing by an eighth, not double: at most 12.5 %
/// unused capacity (doubling left 43 % at 1M entries). Large lists are reallocated by
/// remapping pages, so the smaller steps cost little.
#[inline]
fn room(b: &mut Vec<u8>, need: usize) {
    if b.capacity() - b.len() < need {
        b.reserve_exact(b.len() / 8 + 4 * REC);
    }
}

/// Appends the posting of `doc` (above every document in `b`) and frequency byte `c`.
/// False, with nothing written, if `b` is narrow and `doc` lies too far from its last
/// block's base: [`widened`] it first.
#[inline]
pub(crate) fn append(b: &mut Vec<u8>, narrow: bool, doc: u32, c: u8) -> bool {
    let d = doc.to_le_bytes();
    if !narrow {
        room(b, REC);
        b.extend_from_slice(&[d[0], d[1], d[2], d[3], c]);
        return true;
    }
    let n = count(b, true);
    if n.is_multiple_of(NB) {
        room(b, 4 + NREC);
        b.extend_from_slice(&[d[0], d[1], d[2], d[3], 0, 0, c]);
        return true;
    }
    let Ok(off) = u16::try_from(doc - u32_at(b, n / NB * BLOCK)) else {
        return false;
    };
    let o = off.to_le_bytes();
    room(b, NREC);
    b.extend_from_slice(&[o[0], o[1], c]);
    true
}

/// Appends postings `from..to` of `b` to `out` as wide records.
pub(crate) fn write_wide(b: &[u8], narrow: bool, from: usize, to: usize, out: &mut Vec<u8>) {
    if !narrow {
        out.extend_from_slice(&b[from * REC..to * REC]);
        return;
    }
    out.reserve(to.saturating_sub(from) * REC);
    for a in from..to {
        let (doc, c) = at(b, true, a);
        let d = doc.to_le_bytes();
        out.extend_from_slice(&[d[0], d[1], d[2], d[3], c]);
    }
}

/// `b`, narrow, laid out wide, with room for an eighth more.
pub(crate) fn widened(b: &[u8]) -> Vec<u8> {
    let n = count(b, true);
    let mut out = Vec::with_capacity(n * REC + n * REC / 8 + 4 * REC);
    write_wide(b, true, 0, n, &mut out);
    out
}

/// Wide records `recs` (documents ascending) laid out narrow, with exactly the room they
/// take — if every block fits.
pub(crate) fn narrowed(recs: &[u8]) -> Option<Vec<u8>> {
    let n = recs.len() / REC;
    let mut out = Vec::with_capacity(n.div_ceil(NB) * 4 + n * NREC);
    let mut base = 0;
    for (i, r) in recs.chunks_exact(REC).enumerate() {
        let doc = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
        if i % NB == 0 {
            base = doc;
            out.extend_from_slice(&r[..4]);
        }
        let o = u16::try_from(doc.checked_sub(base)?).ok()?.to_le_bytes();
        out.extend_from_slice(&[o[0], o[1], r[4]]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(docs: &[u32]) -> Vec<u8> {
        let mut b = Vec::new();
        for (i, &d) in docs.iter().enumerate() {
            assert!(append(&mut b, false, d, i as u8));
        }
        b
    }

    /// Narrow and wide lists of every length up to three blocks read back the same, by
    /// pushes and whole; a narrow list takes 4 bytes a block and 3 a posting.
    #[test]
    fn narrow_and_wide_lists_read_back_the_same() {
        for n in 0..3 * NB + 2 {
            let docs: Vec<u32> = (0..n as u32).map(|i| 1_000_000 + i * 2_000).collect();
            let w = wide(&docs);
            let mut b = Vec::new();
            for (i, &d) in docs.iter().enumerate() {
                assert!(append(&mut b, true, d, i as u8), "{n} {i}");
            }
            assert_eq!(narrowed(&w).as_deref(), Some(&b[..]), "{n}");
            assert_eq!(b.len(), n.div_ceil(NB) * 4 + n * NREC);
            assert_eq!((count(&b, true), count(&w, false)), (n, n));
            for (i, &d) in docs.iter().enumerate() {
                assert_eq!(at(&b, true, i), (d, i as u8));
                assert_eq!(at(&w, false, i), (d, i as u8));
            }
            assert_eq!(widened(&b), w);
            // Counting by bisection, the blocks' bases first, against counting one by one.
            for (from, to) in [(0, n), (n / 3, n), (1.min(n / 2), n / 2), (n / 2, n / 2)] {
                for doc in [
                    0,
                    999_999,
                    1_000_000,
                    1_064_001,
                    1_064_000,
                    1_126_000,
                    u32::MAX,
                ] {
                    let want = docs[from..to].iter().filter(|&&d| d <= doc).count();
                    assert_eq!(
                        count_le(&b, true, from, to, doc),
                        want,
                        "{n} {from} {to} {doc}"
                    );
                    assert_eq!(count_le(&w, false, from, to, doc), want);
                }
            }
            let mut part = Vec::new();
            write_wide(&b, true, n / 3, n / 2, &mut part);
            assert_eq!(part, w[n / 3 * REC..n / 2 * REC]);
        }
    }

    /// A document 65,536 or more past its block's base does not fit: the append refuses
    /// (writing nothing) and the whole list is not narrow; one at 65,535 fits, and the
    /// next block starts a new base.
    #[test]
    fn a_document_too_far_from_its_base_does_not_fit() {
        let docs = [10, 65_545];
        let mut b = Vec::new();
        for &d in &docs {
            assert!(append(&mut b, true, d, 1));
        }
        let before = b.clone();
        assert!(!append(&mut b, true, 65_546, 1));
        assert_eq!(b, before);
        assert!(narrowed(&wide(&[10, 65_545, 65_546])).is_none());
        assert!(narrowed(&wide(&docs)).is_some());
        let mut far: Vec<u32> = (0..NB as u32).collect();
        far.push(5_000_000);
        far.push(5_065_535);
        let n = narrowed(&wide(&far)).expect("each block fits");
        assert_eq!(at(&n, true, NB + 1).0, 5_065_535);
    }
}
