//! Where each row's 4-bit magnitudes are kept — the bulk of a row (192 of its 252 bytes
//! for 384 dimensions): in memory, or in the vector cache file they were loaded from.
//!
//! Why a file: at a million entries the magnitudes are 192 MB, and a search reads those of
//! only a few thousand rows (the candidates the sign bits pick, [`super::vectors`]). Rows
//! loaded from a large cache (or saved to one) leave their magnitudes in it and read them
//! with `pread` when a row is scored: the kernel's page cache holds what is read, shared
//! and reclaimable, and the process holds the sign bits, scales and keys (the target:
//! resident memory at 1M grows by at most half the ledger). Rows set since then (a
//! publish, a backfill) are in memory until the next save moves them to the new file.
//!
//! The file is the one whose MAC was verified when it was opened: it is read through the
//! descriptor that verified it, so a file renamed over the path later (another save)
//! changes nothing here. One written over in place by the same user after it was checked
//! could change a cosine, as it could change anything else of that user's; a row that
//! cannot be read (a truncated file) has no cosine and is ranked lexically.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A position without magnitudes.
const NONE: u32 = u32::MAX;
/// Set on a slot whose magnitudes are in the file (the rest is the file's row number).
const ON_DISK: u32 = 1 << 31;

/// The file rows are read from: where row 0's magnitudes start and the bytes from one
/// row to the next.
#[derive(Debug, Clone)]
pub struct RowsFile {
    file: Arc<File>,
    first: u64,
    stride: u64,
    rows: u32,
}

impl RowsFile {
    /// The rows of `file` (already verified), `rows` of them, the first's magnitudes at
    /// byte `first`, `stride` bytes apart.
    pub fn new(file: File, first: u64, stride: u64, rows: u32) -> RowsFile {
        RowsFile {
            file: Arc::new(file),
            first,
            stride,
            rows,
        }
    }

    /// Rows in the file.
    pub fn rows(&self) -> u32 {
        self.rows
    }
}

/// Every position's magnitudes: in memory or in the file.
#[derive(Debug, Clone, Default)]
pub(super) struct Magnitudes {
    row_bytes: usize,
    /// Per position: [`NONE`], a row of `mem`, or [`ON_DISK`] and a row of the file.
    slot: Vec<u32>,
    mem: Vec<u8>,
    file: Option<RowsFile>,
}

/// Warned once per process that a row could not be read (not once per row).
static WARNED: AtomicBool = AtomicBool::new(false);

impl Magnitudes {
    pub(super) fn new(row_bytes: usize) -> Magnitudes {
        Magnitudes {
            row_bytes,
            ..Magnitudes::default()
        }
    }

    /// Covers positions below `n` (none given magnitudes); `extra` more of room.
    pub(super) fn cover(&mut self, n: usize, extra: usize) {
        if n > self.slot.len() {
            if n > self.slot.capacity() {
                self.slot.reserve_exact(n - self.slot.len() + extra);
            }
            self.slot.resize(n, NONE);
        }
    }

    /// Makes room for `more` positions.
    pub(super) fn reserve(&mut self, more: usize) {
        self.slot.reserve_exact(more);
    }

    /// Makes room for `rows` rows in memory.
    pub(super) fn reserve_rows(&mut self, rows: usize) {
        self.mem.reserve_exact(rows * self.row_bytes);
    }

    /// Sets the magnitudes of `pos` (covered) in memory.
    pub(super) fn set(&mut self, pos: usize, nibbles: &[u8]) {
        debug_assert_eq!(nibbles.len(), self.row_bytes);
        let s = self.slot[pos];
        if s != NONE && s & ON_DISK == 0 {
            let at = s as usize * self.row_bytes;
            self.mem[at..at + self.row_bytes].copy_from_slice(nibbles);
            return;
        }
        let row = self.mem.len() / self.row_bytes;
        if self.mem.len() == self.mem.capacity() {
            // A sixteenth more, not double (as the other columns grow).
            self.mem.reserve_exact((row / 16 + 16) * self.row_bytes);
        }
        self.mem.extend_from_slice(nibbles);
        self.slot[pos] = row as u32;
    }

    /// Takes the rows of `file`: `pos` has file row `row`.
    pub(super) fn set_in_file(&mut self, pos: usize, row: u32) {
        debug_assert!(row < ON_DISK);
        self.slot[pos] = ON_DISK | row;
    }

    /// Reads from `file` from now on (the positions given by [`Magnitudes::set_in_file`]).
    pub(super) fn attach(&mut self, file: RowsFile) {
        self.file = Some(file);
    }

    /// Every position with magnitudes, in order, moves to `file`, whose row `j` is the
    /// `j`-th of them; memory is given back.
    pub(super) fn move_to(&mut self, file: RowsFile) {
        let mut j = 0u32;
        for s in &mut self.slot {
            if *s != NONE {
                *s = ON_DISK | j;
                j += 1;
            }
        }
        debug_assert_eq!(j, file.rows);
        self.mem = Vec::new();
        self.file = Some(file);
    }

    /// True if rows are read from a file.
    pub(super) fn in_file(&self) -> bool {
        self.file.is_some()
    }

    /// The magnitudes of `pos`, from memory or read into `buf` (`row_bytes` long); None
    /// if it has none or its row could not be read.
    #[inline]
    pub(super) fn get<'a>(&'a self, pos: usize, buf: &'a mut [u8]) -> Option<&'a [u8]> {
        let s = *self.slot.get(pos)?;
        if s == NONE {
            return None;
        }
        if s & ON_DISK == 0 {
            let at = s as usize * self.row_bytes;
            return Some(&self.mem[at..at + self.row_bytes]);
        }
        let f = self.file.as_ref()?;
        let at = f.first + u64::from(s & !ON_DISK) * f.stride;
        match f.file.read_exact_at(&mut buf[..self.row_bytes], at) {
            Ok(()) => Some(&buf[..self.row_bytes]),
            Err(e) => {
                if !WARNED.swap(true, Ordering::Relaxed) {
                    tracing::warn!("a vector cache row could not be read (ranked lexically): {e}");
                }
                None
            }
        }
    }

    /// Calls `each(pos, magnitudes)` for every position with magnitudes, in order; rows in
    /// the file are read a few thousand at a time (they are in position order there).
    pub(super) fn for_each(
        &self,
        each: &mut dyn FnMut(usize, &[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        const ROWS_A_READ: u32 = 4096;
        let mut chunk = Vec::new();
        let mut chunk_first = 0u32;
        let mut chunk_rows = 0u32;
        for (pos, &s) in self.slot.iter().enumerate() {
            if s == NONE {
                continue;
            }
            if s & ON_DISK == 0 {
                let at = s as usize * self.row_bytes;
                each(pos, &self.mem[at..at + self.row_bytes])?;
                continue;
            }
            let f = self
                .file
                .as_ref()
                .ok_or_else(|| io::Error::other("no rows file"))?;
            let row = s & !ON_DISK;
            if row < chunk_first || row >= chunk_first + chunk_rows {
                chunk_first = row;
                chunk_rows = ROWS_A_READ.min(f.rows.saturating_sub(row)).max(1);
                let len = (u64::from(chunk_rows) - 1) * f.stride + self.row_bytes as u64;
                chunk.resize(len as usize, 0);
                f.file
                    .read_exact_at(&mut chunk, f.first + u64::from(row) * f.stride)?;
            }
            let at = (u64::from(row - chunk_first) * f.stride) as usize;
            each(pos, &chunk[at..at + self.row_bytes])?;
        }
        Ok(())
    }

    /// Bytes held in memory.
    pub(super) fn heap_bytes(&self) -> usize {
        self.slot.capacity() * 4 + self.mem.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A file of `rows` rows of `stride` bytes after a 5-byte head; row `j`'s magnitudes
    /// (`row_bytes`, at byte 3 of the row) are `j + k` for their `k`-th byte.
    fn file_of(rows: u32, stride: usize, row_bytes: usize) -> (tempfile::NamedTempFile, RowsFile) {
        let mut t = tempfile::NamedTempFile::new().unwrap();
        let mut bytes = vec![0xEEu8; 5];
        for j in 0..rows {
            let mut row = vec![0xAAu8; stride];
            for k in 0..row_bytes {
                row[3 + k] = (j as usize + k) as u8;
            }
            bytes.extend(row);
        }
        t.write_all(&bytes).unwrap();
        let f = t.reopen().unwrap();
        (t, RowsFile::new(f, 5 + 3, stride as u64, rows))
    }

    #[test]
    fn rows_in_memory_and_in_the_file_read_back_and_move_to_a_new_file() {
        let rb = 4;
        let mut m = Magnitudes::new(rb);
        m.cover(10_000, 0);
        let (_t, rows) = file_of(9000, 11, rb);
        // Every other position's row in the file, in order; two in memory.
        for j in 0..9000u32 {
            m.set_in_file(j as usize, j);
        }
        m.attach(rows);
        m.set(9500, &[1, 2, 3, 4]);
        m.set(7, &[9, 9, 9, 9]); // was in the file: now in memory
        m.set(9500, &[5, 6, 7, 8]); // overwritten in place
        let mut buf = vec![0u8; rb];
        assert_eq!(m.get(0, &mut buf), Some(&[0u8, 1, 2, 3][..]));
        assert_eq!(m.get(8999, &mut buf), Some(&[39u8, 40, 41, 42][..]));
        assert_eq!(m.get(7, &mut buf), Some(&[9u8; 4][..]));
        assert_eq!(m.get(9500, &mut buf), Some(&[5u8, 6, 7, 8][..]));
        assert_eq!(m.get(9001, &mut buf), None);
        assert_eq!(m.get(20_000, &mut buf), None);
        // Every row, in position order, across chunk edges of the file.
        let mut seen = Vec::new();
        m.for_each(&mut |p, r| {
            seen.push((p, r.to_vec()));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.len(), 9001);
        assert_eq!(seen[4096].0, 4096);
        assert_eq!(seen[4096].1, vec![0u8, 1, 2, 3]);
        assert_eq!(seen[7].1, vec![9u8; 4]);
        assert_eq!(seen[9000], (9500, vec![5, 6, 7, 8]));
        // Moved to a file whose row j is the j-th position with a row.
        let (_t2, rows2) = file_of(9001, 7, rb);
        m.move_to(rows2);
        assert_eq!(m.heap_bytes(), m.slot.capacity() * 4);
        assert_eq!(
            m.get(9500, &mut buf),
            Some(&[9000u32 as u8, 41, 42, 43][..])
        );
        assert_eq!(m.get(7, &mut buf), Some(&[7u8, 8, 9, 10][..]));
    }

    #[test]
    fn a_row_past_the_end_of_a_shortened_file_has_no_magnitudes() {
        let mut m = Magnitudes::new(4);
        m.cover(3, 0);
        let (t, rows) = file_of(3, 8, 4);
        for j in 0..3 {
            m.set_in_file(j, j as u32);
        }
        m.attach(rows);
        t.as_file().set_len(5 + 8).unwrap();
        let mut buf = vec![0u8; 4];
        assert!(m.get(0, &mut buf).is_some());
        assert_eq!(m.get(2, &mut buf), None);
        assert!(m.for_each(&mut |_, _| Ok(())).is_err());
    }
}
