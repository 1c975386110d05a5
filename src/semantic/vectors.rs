//! Entries' vectors, quantised: each a row of `dims` signed bytes and one scale (the
//! largest coordinate / 127), 388 bytes for 384 dimensions — under the 400 a row may
//! cost. Rows are indexed by the entry's position in the ledger's index and carry a key
//! of the entry's id, so a row is used only for the entry it was computed from.
//!
//! A cosine of two unit vectors is their dot product; with the query kept in `f32` and
//! each row in bytes, `cos ≈ scale × Σ q[i]·row[i]` — an error of about 1/254 of a
//! coordinate's range, far below the gaps ranking decides on.

/// The key of an entry's id (the first 8 bytes of its BLAKE3).
pub fn id_key(id: &str) -> u64 {
    let h = blake3::hash(id.as_bytes());
    u64::from_le_bytes(h.as_bytes()[..8].try_into().expect("8 bytes"))
}

/// Every entry's vector, where it has one.
#[derive(Debug, Clone, Default)]
pub struct Vectors {
    dims: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
    /// Per position: the id key of the row's entry, 0 for no row.
    keys: Vec<u64>,
    present: usize,
}

impl Vectors {
    /// An empty store for vectors of `dims` dimensions.
    pub fn new(dims: usize) -> Vectors {
        Vectors {
            dims,
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

    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.codes.capacity() + self.scales.capacity() * 4 + self.keys.capacity() * 8
    }

    fn grow(&mut self, pos: usize) {
        if pos >= self.keys.len() {
            self.keys.resize(pos + 1, 0);
            self.scales.resize(pos + 1, 0.0);
            self.codes.resize((pos + 1) * self.dims, 0);
        }
    }

    /// Stores `v` (a unit vector) as the row of `pos`, for the entry whose id key is `key`.
    pub fn set(&mut self, pos: u32, key: u64, v: &[f32]) {
        debug_assert_eq!(v.len(), self.dims);
        let pos = pos as usize;
        self.grow(pos);
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs())).max(1e-12);
        let scale = max / 127.0;
        let row = &mut self.codes[pos * self.dims..(pos + 1) * self.dims];
        for (c, x) in row.iter_mut().zip(v) {
            *c = (x / scale).round().clamp(-127.0, 127.0) as i8;
        }
        self.scales[pos] = scale;
        if self.keys[pos] == 0 {
            self.present += 1;
        }
        self.keys[pos] = key.max(1);
    }

    /// Stores a row as it was saved (codes and scale).
    pub fn set_raw(&mut self, pos: u32, key: u64, scale: f32, codes: &[i8]) {
        let pos = pos as usize;
        self.grow(pos);
        self.codes[pos * self.dims..(pos + 1) * self.dims].copy_from_slice(codes);
        self.scales[pos] = scale;
        if self.keys[pos] == 0 {
            self.present += 1;
        }
        self.keys[pos] = key.max(1);
    }

    /// The row of `pos` if it belongs to the entry with id key `key`: (scale, codes).
    pub fn row(&self, pos: u32, key: u64) -> Option<(f32, &[i8])> {
        let p = pos as usize;
        (self.keys.get(p).copied() == Some(key.max(1))).then(|| {
            (
                self.scales[p],
                &self.codes[p * self.dims..(p + 1) * self.dims],
            )
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
        Some(self.dot(p, q))
    }

    /// The row's codes times `q`, times its scale. Sixteen running sums side by side, so
    /// the compiler keeps them in vector registers (one sum in file order cannot be
    /// reordered, and ran at a quarter of the speed: a search at 100k entries spent most
    /// of its time here). The order of the additions is fixed, so a cosine is the same on
    /// every run and every machine of the same build.
    fn dot(&self, p: usize, q: &[f32]) -> f32 {
        const LANES: usize = 16;
        let row = &self.codes[p * self.dims..(p + 1) * self.dims];
        let mut lanes = [0f32; LANES];
        let (rows, qs) = (row.chunks_exact(LANES), q.chunks_exact(LANES));
        let (row_rest, q_rest) = (rows.remainder(), qs.remainder());
        for (c, x) in rows.zip(qs) {
            for i in 0..LANES {
                lanes[i] += f32::from(c[i]) * x[i];
            }
        }
        let mut acc: f32 = lanes.iter().sum();
        for (c, x) in row_rest.iter().zip(q_rest) {
            acc += f32::from(*c) * x;
        }
        acc * self.scales[p]
    }

    /// The `k` rows nearest to `q` among the positions `keep` accepts, best first:
    /// (position, cosine). Exact: every row is scored.
    pub fn nearest(&self, q: &[f32], k: usize, keep: &dyn Fn(u32) -> bool) -> Vec<(u32, f32)> {
        let mut best: Vec<(u32, f32)> = Vec::with_capacity(k + 1);
        let mut floor = f32::MIN;
        for (p, &key) in self.keys.iter().enumerate() {
            if key == 0 {
                continue;
            }
            let c = self.dot(p, q);
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

    /// Every row: (position, key, scale, codes), for saving.
    pub fn rows(&self) -> impl Iterator<Item = (u32, u64, f32, &[i8])> {
        self.keys
            .iter()
            .enumerate()
            .filter(|(_, k)| **k != 0)
            .map(|(p, &k)| {
                (
                    p as u32,
                    k,
                    self.scales[p],
                    &self.codes[p * self.dims..(p + 1) * self.dims],
                )
            })
    }

    /// Forgets every row (the ledger was replaced).
    pub fn clear(&mut self) {
        *self = Vectors::new(self.dims);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn quantised_rows_keep_cosines_and_belong_to_their_entry() {
        let mut vs = Vectors::new(4);
        let a = unit(&[1.0, 2.0, 0.5, -1.0]);
        let b = unit(&[-1.0, 0.2, 0.9, 0.1]);
        vs.set(0, id_key("mem-a"), &a);
        vs.set(2, id_key("mem-b"), &b);
        assert_eq!(vs.present(), 2);
        let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        let got = vs.cosine(2, &a).unwrap();
        assert!((got - exact).abs() < 0.02, "{got} vs {exact}");
        assert!(vs.cosine(1, &a).is_none(), "no row at 1");
        assert!(
            vs.row(0, id_key("mem-b")).is_none(),
            "a row is its entry's only"
        );
        let near = vs.nearest(&a, 1, &|_| true);
        assert_eq!(near[0].0, 0);
        let near = vs.nearest(&a, 5, &|p| p != 0);
        assert_eq!(near.iter().map(|n| n.0).collect::<Vec<_>>(), vec![2]);
    }
}
