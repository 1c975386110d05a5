//! Entries' vectors, quantised to what a million of them may cost (resident
//! memory at 1M entries grows by at most half the ledger). Each row keeps:
//!
//! - **sign bits**: one bit a coordinate (48 bytes for 384), the coarse form the first
//!   stage of a search over many rows compares (see [`Vectors::nearest`]);
//! - **4-bit magnitudes**: every coordinate's absolute value as one of 0..=15 times the
//!   row's scale (its largest coordinate / 15), two to a byte: 192 bytes for 384. With
//!   the sign bit, a coordinate has 31 levels (5 bits), and the sign plane serves both
//!   stages of a search;
//! - its scale and a key of its entry's id: 252 bytes a row in all for 384 dimensions
//!   (int8 rows took 396).
//!
//! Rows are indexed by the entry's position in the ledger's index and carry the key, so a
//! row is used only for the entry it was computed from. The magnitudes of rows loaded from
//! (or saved to) a large cache stay in that file and are read when a row is scored
//! ([`super::magnitudes`]); the sign bits, scales and keys are always in memory.
//!
//! A cosine of two unit vectors is their dot product; with the query kept in `f32` and
//! each row in codes, `cos ≈ scale × Σ ±q[i]·magnitude[i]`. The rounding error of a
//! coordinate is at most half a step (1/30 of the row's largest coordinate); `cargo xtask
//! bench vectors` measures what it adds up to on real vectors, and what it changes in
//! rankings.
//!
//! A search over more than [`EXACT_UP_TO`] rows is two-stage: the Hamming distance of
//! every row's sign bits to the query's (six popcounts a row for 384 dimensions) picks the
//! [`candidates`] nearest rows `keep` accepts (4,096, or a hundredth of the rows up to
//! 16,384), and only those are scored from their codes. Approximate; its recall against
//! the exact scan is measured by the same bench (`--recall-cache` on real vectors).

use super::magnitudes::{Magnitudes, RowsFile};

/// Rows from which a search is two-stage (below, every row is scored from its codes).
pub const EXACT_UP_TO: usize = 16_384;
/// Rows a two-stage search scores from their codes, at least.
pub const CANDIDATES: usize = 4_096;
/// Rows a two-stage search scores from their codes, at most.
pub const MAX_CANDIDATES: usize = 16_384;

/// Rows a two-stage search over `rows` rows scores from their codes: a hundredth of them,
/// within [`CANDIDATES`]..=[`MAX_CANDIDATES`]. On 100k real rows, scoring the share a
/// fixed 4,096 would be at 1M kept 0.931 of the exact top 10 and 0.704 of the top 100; a
/// hundredth, 0.967 and 0.854 (docs/semantic.md).
pub fn candidates(rows: usize) -> usize {
    (rows / 100).clamp(CANDIDATES, MAX_CANDIDATES)
}

/// The key of an entry's id (the first 8 bytes of its BLAKE3).
pub fn id_key(id: &str) -> u64 {
    let h = blake3::hash(id.as_bytes());
    u64::from_le_bytes(h.as_bytes()[..8].try_into().expect("8 bytes"))
}

/// A row of its own (see [`Row`]).
#[derive(Debug, Clone, PartialEq)]
pub struct OwnedRow {
    /// The magnitudes.
    pub nibbles: Vec<u8>,
    /// The sign bits.
    pub signs: Vec<u64>,
    /// What a magnitude of 1 stands for.
    pub scale: f32,
}

impl OwnedRow {
    /// Borrowed, as [`Vectors::set_raw`] takes it.
    pub fn as_row(&self) -> Row<'_> {
        Row {
            nibbles: &self.nibbles,
            signs: &self.signs,
            scale: self.scale,
        }
    }
}

/// A row as it is saved: its 4-bit magnitudes (two a byte, low nibble first), its sign
/// bits and its scale.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    /// The magnitudes, `dims.div_ceil(2)` bytes.
    pub nibbles: &'a [u8],
    /// The sign bits (bit `i` of word `i / 64`: coordinate `i` is above 0).
    pub signs: &'a [u64],
    /// What a magnitude of 1 stands for.
    pub scale: f32,
}

/// Every entry's vector, where it has one.
#[derive(Debug, Clone, Default)]
pub struct Vectors {
    dims: usize,
    /// Bytes of codes a row.
    row_bytes: usize,
    /// Words of sign bits a row.
    sign_words: usize,
    mags: Magnitudes,
    signs: Vec<u64>,
    scales: Vec<f32>,
    /// Per position: the id key of the row's entry, 0 for no row.
    keys: Vec<u64>,
    present: usize,
    /// Changes made (rows set, cleared): a save can tell whether rows changed after it.
    generation: u64,
}

impl Vectors {
    /// An empty store for vectors of `dims` dimensions.
    pub fn new(dims: usize) -> Vectors {
        Vectors {
            dims,
            row_bytes: dims.div_ceil(2),
            sign_words: dims.div_ceil(64),
            mags: Magnitudes::new(dims.div_ceil(2)),
            ..Vectors::default()
        }
    }

    /// Dimensions of a row.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Positions covered (with or without a row).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True if no position is covered.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Rows held.
    pub fn present(&self) -> usize {
        self.present
    }

    /// Bytes held in memory (magnitudes kept in a file not counted).
    pub fn heap_bytes(&self) -> usize {
        self.mags.heap_bytes()
            + self.signs.capacity() * 8
            + self.scales.capacity() * 4
            + self.keys.capacity() * 8
    }

    /// Makes room for rows at positions below `rows` at once (a cache being loaded knows
    /// how many it holds).
    pub fn reserve(&mut self, rows: usize) {
        let more = rows.saturating_sub(self.keys.len());
        self.keys.reserve_exact(more);
        self.scales.reserve_exact(more);
        self.mags.reserve(more);
        self.signs.reserve_exact(more * self.sign_words);
    }

    /// [`Vectors::reserve`], and room for that many magnitudes in memory (a cache whose
    /// rows are not read from its file).
    pub fn reserve_in_memory(&mut self, rows: usize) {
        self.reserve(rows);
        self.mags.reserve_rows(rows);
    }

    /// Changes made so far (see [`Vectors::move_to`]).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// True if magnitudes are read from a cache file.
    pub fn in_file(&self) -> bool {
        self.mags.in_file()
    }

    /// Covers positions up to `pos`. Room is added a sixteenth at a time rather than
    /// doubled: at 1M rows doubling could hold twice the bytes the rows need.
    fn grow(&mut self, pos: usize) {
        if pos >= self.keys.len() {
            let n = pos + 1;
            if n > self.keys.capacity() {
                let more = n - self.keys.len() + n / 16;
                self.keys.reserve_exact(more);
                self.scales.reserve_exact(more);
                self.signs.reserve_exact(more * self.sign_words);
            }
            self.mags.cover(n, n / 16);
            self.keys.resize(n, 0);
            self.scales.resize(n, 0.0);
            self.signs.resize(n * self.sign_words, 0);
        }
    }

    fn mark(&mut self, pos: usize, key: u64) {
        self.generation += 1;
        if self.keys[pos] == 0 {
            self.present += 1;
        }
        self.keys[pos] = key.max(1);
    }

    /// Stores `v` (a unit vector) as the row of `pos`, for the entry whose id key is `key`.
    pub fn set(&mut self, pos: u32, key: u64, v: &[f32]) {
        debug_assert_eq!(v.len(), self.dims);
        let pos = pos as usize;
        self.grow(pos);
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs())).max(1e-12);
        let scale = max / 15.0;
        let mut row = vec![0u8; self.row_bytes];
        for (i, x) in v.iter().enumerate() {
            let code = (x.abs() / scale).round().clamp(0.0, 15.0) as u8;
            let b = &mut row[i / 2];
            *b = if i % 2 == 0 {
                (*b & 0xF0) | code
            } else {
                (*b & 0x0F) | (code << 4)
            };
        }
        self.mags.set(pos, &row);
        let signs = &mut self.signs[pos * self.sign_words..(pos + 1) * self.sign_words];
        signs.fill(0);
        for (i, x) in v.iter().enumerate() {
            if *x > 0.0 {
                signs[i / 64] |= 1 << (i % 64);
            }
        }
        self.scales[pos] = scale;
        self.mark(pos, key);
    }

    /// Stores a row as it was saved. False (and nothing stored) if its lengths are not
    /// this store's.
    pub fn set_raw(&mut self, pos: u32, key: u64, row: Row<'_>) -> bool {
        if row.nibbles.len() != self.row_bytes || row.signs.len() != self.sign_words {
            return false;
        }
        let pos = pos as usize;
        self.grow(pos);
        self.mags.set(pos, row.nibbles);
        self.signs[pos * self.sign_words..(pos + 1) * self.sign_words].copy_from_slice(row.signs);
        self.scales[pos] = row.scale;
        self.mark(pos, key);
        true
    }

    /// A row as saved whose magnitudes are in the cache file `move_to`/`attach` gives:
    /// row `file_row` of it. False (and nothing stored) if the signs are not this store's.
    pub fn set_in_file(
        &mut self,
        pos: u32,
        key: u64,
        signs: &[u64],
        scale: f32,
        file_row: u32,
    ) -> bool {
        if signs.len() != self.sign_words {
            return false;
        }
        let pos = pos as usize;
        self.grow(pos);
        self.mags.set_in_file(pos, file_row);
        self.signs[pos * self.sign_words..(pos + 1) * self.sign_words].copy_from_slice(signs);
        self.scales[pos] = scale;
        self.mark(pos, key);
        true
    }

    /// Reads the magnitudes given by [`Vectors::set_in_file`] from `file`.
    pub fn attach(&mut self, file: RowsFile) {
        self.mags.attach(file);
    }

    /// Every row's magnitudes are now read from `file` (just saved from these rows: its
    /// row `j` is the `j`-th row by position); the memory they took is given back.
    pub fn move_to(&mut self, file: RowsFile) {
        debug_assert_eq!(file.rows() as usize, self.present);
        self.mags.move_to(file);
    }

    /// True if `pos` has a row and it belongs to the entry with id key `key`.
    pub fn belongs(&self, pos: u32, key: u64) -> bool {
        self.keys.get(pos as usize).copied() == Some(key.max(1))
    }

    /// The row of `pos` (a copy) if it belongs to the entry with id key `key`.
    pub fn row(&self, pos: u32, key: u64) -> Option<OwnedRow> {
        if !self.belongs(pos, key) {
            return None;
        }
        let p = pos as usize;
        let mut buf = vec![0u8; self.row_bytes];
        let nibbles = self.mags.get(p, &mut buf)?.to_vec();
        Some(OwnedRow {
            nibbles,
            signs: self.signs[p * self.sign_words..(p + 1) * self.sign_words].to_vec(),
            scale: self.scales[p],
        })
    }

    /// True if `pos` has a row (for whichever entry).
    pub fn has(&self, pos: u32) -> bool {
        self.keys.get(pos as usize).is_some_and(|&k| k != 0)
    }

    /// The key stored for `pos` (0: none).
    pub fn key(&self, pos: u32) -> u64 {
        self.keys.get(pos as usize).copied().unwrap_or(0)
    }

    /// Cosine of the query `q` (a unit vector) with the row of `pos`, if it has one.
    pub fn cosine(&self, pos: u32, q: &[f32]) -> Option<f32> {
        let p = pos as usize;
        if self.keys.get(p).is_none_or(|&k| k == 0) {
            return None;
        }
        self.dot(p, q, &mut vec![0u8; self.row_bytes])
    }

    /// Cosine of `q` with the row of `pos` if it belongs to the entry with id key `key`.
    pub fn cosine_of(&self, pos: u32, key: u64, q: &[f32]) -> Option<f32> {
        if !self.belongs(pos, key) {
            return None;
        }
        self.dot(pos as usize, q, &mut vec![0u8; self.row_bytes])
    }

    /// The row's signed magnitudes times `q`, times its scale. Sixteen running sums side by
    /// side (eight bytes of magnitudes and 16 sign bits at a time), so the compiler keeps
    /// them in vector registers; a coordinate whose sign bit is clear flips the sign of the
    /// query's coordinate (its float sign bit). The order of the additions is fixed, so a
    /// cosine is the same on every run of the same build.
    /// None if the row's magnitudes could not be read (`buf` holds them if from a file).
    fn dot(&self, p: usize, q: &[f32], buf: &mut [u8]) -> Option<f32> {
        const LANES: usize = 16;
        let row = self.mags.get(p, buf)?;
        let signs = &self.signs[p * self.sign_words..(p + 1) * self.sign_words];
        let q = &q[..self.dims.min(q.len())];
        let signed = |x: f32, i: usize| {
            let clear = !(signs[i / 64] >> (i % 64)) & 1;
            f32::from_bits(x.to_bits() ^ ((clear as u32) << 31))
        };
        let mut lanes = [0f32; LANES];
        let whole = q.len() / LANES;
        for (c, (r, x)) in row
            .chunks_exact(LANES / 2)
            .zip(q.chunks_exact(LANES))
            .enumerate()
        {
            let bits = (signs[c / 4] >> (LANES * (c % 4))) as u32;
            for j in 0..LANES {
                let m = if j % 2 == 0 {
                    r[j / 2] & 0x0F
                } else {
                    r[j / 2] >> 4
                };
                let flip = if bits & (1 << j) == 0 { 1 << 31 } else { 0 };
                let xs = f32::from_bits(x[j].to_bits() ^ flip);
                lanes[j] += f32::from(m) * xs;
            }
        }
        let mut acc: f32 = lanes.iter().sum();
        for (i, x) in q.iter().enumerate().skip(whole * LANES) {
            let b = row[i / 2];
            let m = if i % 2 == 0 { b & 0x0F } else { b >> 4 };
            acc += f32::from(m) * signed(*x, i);
        }
        Some(acc * self.scales[p])
    }

    /// The `k` rows nearest to `q` among the positions `keep` accepts, best first:
    /// (position, cosine), a tie to the earlier position. Every row scored up to
    /// [`EXACT_UP_TO`] rows; two-stage above it, with [`candidates`] scored.
    pub fn nearest(&self, q: &[f32], k: usize, keep: &dyn Fn(u32) -> bool) -> Vec<(u32, f32)> {
        if self.present <= EXACT_UP_TO {
            self.nearest_exact(q, k, keep)
        } else {
            self.nearest_two_stage(q, k, keep, candidates(self.present).max(k))
        }
    }

    /// [`Vectors::nearest`] scoring every row from its codes.
    pub fn nearest_exact(
        &self,
        q: &[f32],
        k: usize,
        keep: &dyn Fn(u32) -> bool,
    ) -> Vec<(u32, f32)> {
        let mut best: Vec<(u32, f32)> = Vec::with_capacity(k + 1);
        let mut floor = f32::MIN;
        let mut buf = vec![0u8; self.row_bytes];
        for (p, &key) in self.keys.iter().enumerate() {
            if key == 0 {
                continue;
            }
            let Some(c) = self.dot(p, q, &mut buf) else {
                continue;
            };
            if best.len() == k && c <= floor {
                continue;
            }
            if !keep(p as u32) {
                continue;
            }
            let at = best.partition_point(|&(_, s)| s >= c);
            best.insert(at, (p as u32, c));
            if best.len() > k {
                best.pop();
            }
            if best.len() == k {
                floor = best[k - 1].1;
            }
        }
        best
    }

    /// [`Vectors::nearest`] in two stages: the Hamming distance of every row's sign bits
    /// to the query's, then the rows `keep` accepts in order of distance — whole distances
    /// at a time, until at least `candidates` are taken — scored from their codes.
    pub fn nearest_two_stage(
        &self,
        q: &[f32],
        k: usize,
        keep: &dyn Fn(u32) -> bool,
        candidates: usize,
    ) -> Vec<(u32, f32)> {
        let w = self.sign_words;
        let mut qs = vec![0u64; w];
        for (i, x) in q.iter().take(self.dims).enumerate() {
            if *x > 0.0 {
                qs[i / 64] |= 1 << (i % 64);
            }
        }
        // Distances by position (u16::MAX: no row) and how many rows are at each.
        let mut dist: Vec<u16> = Vec::with_capacity(self.keys.len());
        let mut at = vec![0usize; self.dims + 1];
        for (p, &key) in self.keys.iter().enumerate() {
            if key == 0 {
                dist.push(u16::MAX);
                continue;
            }
            let s = &self.signs[p * w..(p + 1) * w];
            let d: u32 = s.iter().zip(&qs).map(|(a, b)| (a ^ b).count_ones()).sum();
            at[d as usize] += 1;
            dist.push(d as u16);
        }
        let mut scored: Vec<(u32, f32)> = Vec::with_capacity(candidates + k);
        let (mut lo, mut looked) = (0usize, 0usize);
        let mut buf = vec![0u8; self.row_bytes];
        while scored.len() < candidates && lo <= self.dims {
            // Rows to look at next: what is missing, scaled by how many `keep` refused so far.
            let missing = candidates - scored.len();
            let want = missing.saturating_mul(looked.max(1)) / scored.len().max(1);
            let want = want.max(missing);
            let (mut hi, mut n) = (lo, at[lo]);
            while n < want && hi < self.dims {
                hi += 1;
                n += at[hi];
            }
            for (p, &d) in dist.iter().enumerate() {
                let d = usize::from(d);
                if d < lo || d > hi {
                    continue;
                }
                looked += 1;
                if keep(p as u32)
                    && let Some(c) = self.dot(p, q, &mut buf)
                {
                    scored.push((p as u32, c));
                }
            }
            lo = hi + 1;
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(k);
        scored
    }

    /// Calls `each(position, key, row)` for every row, in position order (for saving;
    /// magnitudes in a file are read from it a few thousand rows at a time).
    pub fn for_each_row(
        &self,
        each: &mut dyn FnMut(u32, u64, Row<'_>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let w = self.sign_words;
        self.mags.for_each(&mut |p, nibbles| {
            let key = self.keys[p];
            if key == 0 {
                return Ok(());
            }
            let row = Row {
                nibbles,
                signs: &self.signs[p * w..(p + 1) * w],
                scale: self.scales[p],
            };
            each(p as u32, key, row)
        })
    }

    /// Forgets every row (the ledger was replaced).
    pub fn clear(&mut self) {
        let generation = self.generation + 1;
        *self = Vectors::new(self.dims);
        self.generation = generation;
    }
}

#[cfg(test)]
#[path = "vectors_tests.rs"]
mod tests;
