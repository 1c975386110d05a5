//! The vector cache: entries' vectors kept beside the cold-start snapshot (the user's cache
//! directory), one file per ledger and model, so a restart does not embed the ledger again.
//! A cache, never the truth, with the snapshot's guarantees:
//!
//! - **Keyed** to the ledger (its canonical path, or the database) and to the model's id
//!   (a hash of its weights): another model's file has another name, and a file whose
//!   header names another model is ignored.
//! - **Checked row by row**: each row carries its entry's position and a key of its id;
//!   a row whose position now holds another entry (a rebuilt or replaced ledger) is
//!   dropped, and that entry is embedded again by the next backfill.
//! - **Authenticated** with a keyed BLAKE3 MAC under the snapshot's private key: a file
//!   someone else wrote cannot change a ranking. Written atomically (temporary file +
//!   rename), mode 0600; safe to delete.
//!
//! Rows are saved as they are held (`WRMVEC2`: 4-bit codes and sign bits, see
//! [`super::vectors`]); a file of the first format (`WRMVEC1`: a byte a coordinate) is
//! read and its rows quantised again, so vectors embedded before are not embedded twice.
//!
//! A cache of more than [`IN_FILE_FROM`] rows keeps serving after it is loaded: the rows'
//! magnitudes are read from it through the descriptor that verified it
//! ([`super::magnitudes`]), and after a save from the new file ([`CachePlace::reopen`]).
//! Saving streams the rows (a 1M-entry cache is 256 MB, never built in memory).

use std::io;
use std::path::PathBuf;

use super::Vectors;
use super::magnitudes::RowsFile;
use crate::snapshot::SnapshotPlace;

/// Caches of more rows than this are read from their file when scored, not held (below,
/// a search scores every row, [`super::EXACT_UP_TO`], and reads them all).
pub const IN_FILE_FROM: usize = super::EXACT_UP_TO;

const MAGIC: &[u8; 8] = b"WRMVEC2\0";
/// The first format: a signed byte a coordinate.
const MAGIC_V1: &[u8; 8] = b"WRMVEC1\0";

/// What identifies one version of a cache file: device, inode, length and modification
/// time (a save replaces the file, so each save makes a new one).
pub type Stamp = (u64, u64, u64, i64, i64);

/// Where the vectors of one ledger and model are kept.
#[derive(Debug, Clone)]
pub struct CachePlace {
    place: SnapshotPlace,
    /// The file.
    pub file: PathBuf,
    model_id: String,
}

impl CachePlace {
    /// The cache of the ledger named `ledger` (a canonical path or a database label) for
    /// the model `model_id`, in the snapshot directory of `place`.
    pub fn new(place: &SnapshotPlace, ledger: &str, model_id: &str) -> CachePlace {
        let l = blake3::hash(ledger.as_bytes()).to_hex();
        let m = blake3::hash(model_id.as_bytes()).to_hex();
        CachePlace {
            file: place.dir.join(format!(
                "{}.{}.vectors",
                crate::text::prefix(&l, 24),
                crate::text::prefix(&m, 16)
            )),
            place: place.clone(),
            model_id: model_id.to_string(),
        }
    }

    /// The saved vectors, if the file exists, is authentic and is of this model; rows
    /// `keep(position, key)` refuses are dropped. Why a file was not used is the error.
    /// Rows are decoded as the file is read, a piece at a time, and kept only if its MAC
    /// verifies at the end.
    pub fn load(&self, dims: usize, keep: &dyn Fn(u32, u64) -> bool) -> io::Result<Vectors> {
        self.load_from(dims, keep, IN_FILE_FROM)
    }

    /// [`CachePlace::load`], the magnitudes left in the file when it holds more than
    /// `in_file_from` rows of the current format.
    pub fn load_from(
        &self,
        dims: usize,
        keep: &dyn Fn(u32, u64) -> bool,
        in_file_from: usize,
    ) -> io::Result<Vectors> {
        let mut rows = RowReader::new(self.model_id.as_bytes(), dims, keep, Vectors::new(dims));
        rows.in_file_from = in_file_from;
        let (_, layout, file) = self.read(&mut rows)?;
        let mut v = rows.v;
        if rows.in_file {
            v.attach(layout.rows_file(file, dims));
        }
        Ok(v)
    }

    /// Saves `v` (atomically; the directory and key made if needed), streaming its rows.
    pub fn save(&self, v: &Vectors) -> io::Result<()> {
        let mut head = Vec::new();
        head.extend_from_slice(&(self.model_id.len() as u32).to_le_bytes());
        head.extend_from_slice(self.model_id.as_bytes());
        head.extend_from_slice(&(v.dims() as u32).to_le_bytes());
        head.extend_from_slice(&(v.present() as u32).to_le_bytes());
        self.place
            .write_sealed_stream(&self.file, MAGIC, ".vectors.", &mut |put| {
                put(&head)?;
                let mut buf = Vec::with_capacity(1 << 16);
                v.for_each_row(&mut |pos, k, row| {
                    buf.extend_from_slice(&pos.to_le_bytes());
                    buf.extend_from_slice(&k.to_le_bytes());
                    buf.extend_from_slice(&row.scale.to_le_bytes());
                    for w in row.signs {
                        buf.extend_from_slice(&w.to_le_bytes());
                    }
                    buf.extend_from_slice(row.nibbles);
                    if buf.len() >= 1 << 16 {
                        put(&buf)?;
                        buf.clear();
                    }
                    Ok(())
                })?;
                put(&buf)
            })
    }

    /// The file just saved from `v`, opened and verified again, to read `v`'s magnitudes
    /// from ([`Vectors::move_to`]): an error unless its MAC verifies and its rows are
    /// `v`'s, one for one in position order (another process may have saved since).
    pub fn reopen(&self, v: &Vectors) -> io::Result<RowsFile> {
        let dims = v.dims();
        let keep = |pos: u32, key: u64| v.belongs(pos, key);
        let mut rows = RowReader::new(self.model_id.as_bytes(), dims, &keep, Vectors::new(dims));
        rows.check = true;
        let (version, layout, file) = self.read(&mut rows)?;
        if version != 0 || layout.rows != v.present() {
            return Err(bad("not the rows just saved"));
        }
        Ok(layout.rows_file(file, dims))
    }

    /// The file through `rows`, verified: its format's version, its layout and the open
    /// file.
    fn read(&self, rows: &mut RowReader<'_>) -> io::Result<(usize, Layout, std::fs::File)> {
        let (version, file) = self.place.read_sealed_stream(
            &self.file,
            &[MAGIC, MAGIC_V1],
            "a vector cache",
            &mut |version, piece| rows.take(version, piece),
        )?;
        Ok((version, rows.whole()?, file))
    }

    /// The file's [`Stamp`] (None when there is none).
    pub fn stamp(&self) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(&self.file).ok()?;
        Some((m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
    }

    /// Bytes the file takes (0 when there is none).
    pub fn size(&self) -> u64 {
        std::fs::metadata(&self.file).map_or(0, |m| m.len())
    }
}

fn bad(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_string())
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4"))
}

/// Model ids longer than this are not ours (a bound on what a header may make us hold).
const MODEL_ID_MAX: usize = 4096;

/// Where a cache's rows are: the header's bytes, bytes a row, rows declared.
#[derive(Clone, Copy)]
struct Layout {
    head: usize,
    row_len: usize,
    rows: usize,
}

impl Layout {
    /// The magnitudes of the rows of `file` (of the current format).
    fn rows_file(&self, file: std::fs::File, dims: usize) -> RowsFile {
        let first = MAGIC.len() + self.head + 16 + dims.div_ceil(64) * 8;
        RowsFile::new(file, first as u64, self.row_len as u64, self.rows as u32)
    }
}

/// Decodes a cache's body as it arrives: the header (the model's id, dimensions, rows),
/// then whole rows; a row split between pieces waits in `pending`.
struct RowReader<'a> {
    model_id: &'a [u8],
    dims: usize,
    keep: &'a dyn Fn(u32, u64) -> bool,
    pending: Vec<u8>,
    layout: Option<Layout>,
    seen: usize,
    v: Vectors,
    /// Rows from which magnitudes stay in the file ([`IN_FILE_FROM`]).
    in_file_from: usize,
    /// Whether they do (decided from the header).
    in_file: bool,
    /// Only checking (for [`CachePlace::reopen`]): a row `keep` refuses, or rows out of
    /// position order, are an error, and nothing is stored.
    check: bool,
    last: Option<u32>,
}

impl<'a> RowReader<'a> {
    fn new(
        model_id: &'a [u8],
        dims: usize,
        keep: &'a dyn Fn(u32, u64) -> bool,
        v: Vectors,
    ) -> Self {
        RowReader {
            model_id,
            dims,
            keep,
            pending: Vec::new(),
            layout: None,
            seen: 0,
            v,
            in_file_from: usize::MAX,
            in_file: false,
            check: false,
            last: None,
        }
    }

    /// The layout, once every row declared was read and nothing else.
    fn whole(&self) -> io::Result<Layout> {
        match self.layout {
            None => Err(bad("truncated")),
            Some(l) if l.rows != self.seen || !self.pending.is_empty() => {
                Err(bad("its rows are not whole"))
            }
            Some(l) => Ok(l),
        }
    }

    fn take(&mut self, version: usize, piece: &[u8]) -> io::Result<()> {
        self.pending.extend_from_slice(piece);
        let mut at = 0;
        if self.layout.is_none() {
            let p = &self.pending;
            if p.len() < 4 {
                return Ok(());
            }
            let id_len = u32_at(p, 0) as usize;
            if id_len > MODEL_ID_MAX {
                return Err(bad("of another model"));
            }
            if p.len() < 4 + id_len + 8 {
                return Ok(());
            }
            if &p[4..4 + id_len] != self.model_id {
                return Err(bad("of another model"));
            }
            if u32_at(p, 4 + id_len) as usize != self.dims {
                return Err(bad("of other dimensions"));
            }
            let rows = u32_at(p, 8 + id_len) as usize;
            let d = self.dims;
            let row_len = 16
                + match version {
                    0 => d.div_ceil(64) * 8 + d.div_ceil(2),
                    _ => d,
                };
            self.layout = Some(Layout {
                head: 12 + id_len,
                row_len,
                rows,
            });
            self.in_file = version == 0 && rows > self.in_file_from && !self.check;
            match (self.check, self.in_file) {
                (true, _) => {}
                (false, true) => self.v.reserve(rows.min(1 << 26)),
                (false, false) => self.v.reserve_in_memory(rows.min(1 << 26)),
            }
            at = 12 + id_len;
        }
        let Layout { row_len, rows, .. } = self.layout.expect("read above");
        let mut signs = vec![0u64; self.dims.div_ceil(64)];
        let mut floats = vec![0f32; self.dims];
        while self.pending.len() - at >= row_len {
            if self.seen == rows {
                return Err(bad("its rows are not whole"));
            }
            let row = &self.pending[at..at + row_len];
            at += row_len;
            self.seen += 1;
            let pos = u32_at(row, 0);
            let k = u64::from_le_bytes(row[4..12].try_into().expect("8"));
            let scale = f32::from_le_bytes(row[12..16].try_into().expect("4"));
            if self.check {
                if !(self.keep)(pos, k) || self.last.is_some_and(|l| l >= pos) {
                    return Err(bad("not the rows just saved"));
                }
                self.last = Some(pos);
                continue;
            }
            if !(self.keep)(pos, k) || !scale.is_finite() {
                continue;
            }
            let rest = &row[16..];
            if version == 0 && self.in_file {
                for (w, b) in signs.iter_mut().zip(rest.chunks_exact(8)) {
                    *w = u64::from_le_bytes(b.try_into().expect("8"));
                }
                self.v
                    .set_in_file(pos, k, &signs, scale, (self.seen - 1) as u32);
            } else if version == 0 {
                let (s, nibbles) = rest.split_at(signs.len() * 8);
                for (w, b) in signs.iter_mut().zip(s.chunks_exact(8)) {
                    *w = u64::from_le_bytes(b.try_into().expect("8"));
                }
                let row = super::vectors::Row {
                    nibbles,
                    signs: &signs,
                    scale,
                };
                self.v.set_raw(pos, k, row);
            } else {
                for (f, &b) in floats.iter_mut().zip(rest) {
                    *f = f32::from(b as i8) * scale;
                }
                self.v.set(pos, k, &floats);
            }
        }
        self.pending.drain(..at);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A snapshot place under `dir` that keeps every cache, however small.
    fn place_in(dir: &tempfile::TempDir) -> SnapshotPlace {
        SnapshotPlace {
            dir: dir.path().join("cache"),
            min_entries: 0,
        }
    }

    #[test]
    fn saved_vectors_come_back_for_their_model_only_and_a_changed_byte_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let place = place_in(&dir);
        let mut v = Vectors::new(3);
        v.set(0, 11, &[0.6, 0.8, 0.0]);
        v.set(4, 22, &[0.0, 0.6, 0.8]);
        let c = CachePlace::new(&place, "/p/ledger.jsonl", "model-a");
        c.save(&v).unwrap();
        let back = c.load(3, &|_, _| true).unwrap();
        assert_eq!(back.present(), 2);
        assert!((back.cosine(4, &[0.0, 0.6, 0.8]).unwrap() - 1.0).abs() < 0.02);
        let only_first = c.load(3, &|p, _| p == 0).unwrap();
        assert_eq!(only_first.present(), 1);
        let other = CachePlace::new(&place, "/p/ledger.jsonl", "model-b");
        assert_ne!(other.file, c.file);
        assert!(other.load(3, &|_, _| true).is_err());
        let mut bytes = std::fs::read(&c.file).unwrap();
        let n = bytes.len();
        bytes[n - 40] ^= 1;
        std::fs::write(&c.file, bytes).unwrap();
        let e = c.load(3, &|_, _| true).unwrap_err();
        assert!(e.to_string().contains("MAC"), "{e}");
    }

    #[test]
    fn a_cache_of_many_pieces_loads_row_for_row_and_its_last_byte_still_counts() {
        let dir = tempfile::tempdir().unwrap();
        let place = place_in(&dir);
        let dims = 384;
        let mut v = Vectors::new(dims);
        let row = |p: u32| -> Vec<f32> {
            let x: Vec<f32> = (0..dims)
                .map(|i| ((i as u32 * 31 + p * 17) % 97) as f32 - 48.0)
                .collect();
            let n = x.iter().map(|a| a * a).sum::<f32>().sqrt();
            x.iter().map(|a| a / n).collect()
        };
        // 6,000 rows of 256 bytes: six pieces of 1 MiB, rows split across their edges.
        for p in 0..6000u32 {
            v.set(p, u64::from(p) + 1, &row(p));
        }
        let c = CachePlace::new(&place, "/p/ledger.jsonl", "model-a");
        c.save(&v).unwrap();
        assert!(c.size() > 1_500_000);
        let back = c.load(dims, &|_, _| true).unwrap();
        assert_eq!(back.present(), 6000);
        let q = row(4321);
        for p in [0u32, 4095, 4096, 4097, 5999] {
            assert_eq!(back.cosine(p, &q), v.cosine(p, &q), "row {p}");
        }
        // A byte changed in the last piece: nothing is loaded.
        let mut bytes = std::fs::read(&c.file).unwrap();
        let n = bytes.len();
        bytes[n - 100] ^= 4;
        std::fs::write(&c.file, &bytes).unwrap();
        let e = c.load(dims, &|_, _| true).unwrap_err();
        assert!(e.to_string().contains("MAC"), "{e}");
        // A header that declares more rows than the body holds.
        let mut body = Vec::new();
        body.extend_from_slice(&7u32.to_le_bytes());
        body.extend_from_slice(b"model-a");
        body.extend_from_slice(&(dims as u32).to_le_bytes());
        body.extend_from_slice(&2u32.to_le_bytes());
        body.extend(std::iter::repeat_n(0u8, 256 + 100));
        place
            .write_sealed(&c.file, MAGIC, &body, ".vectors.")
            .unwrap();
        let e = c.load(dims, &|_, _| true).unwrap_err();
        assert!(e.to_string().contains("not whole"), "{e}");
    }

    /// A pseudo-random unit row of `dims` for position `p`.
    fn unit_row(p: u32, dims: usize) -> Vec<f32> {
        let x: Vec<f32> = (0..dims)
            .map(|i| ((i as u32 * 31 + p * 17) % 97) as f32 - 48.0)
            .collect();
        let n = x.iter().map(|a| a * a).sum::<f32>().sqrt();
        x.iter().map(|a| a / n).collect()
    }

    #[test]
    fn a_large_cache_serves_from_its_file_and_saves_and_reopens_whole() {
        let dir = tempfile::tempdir().unwrap();
        let place = place_in(&dir);
        let dims = 384;
        let mut v = Vectors::new(dims);
        for p in (0..3000u32).filter(|p| p % 3 != 1) {
            v.set(p, u64::from(p) + 1, &unit_row(p, dims));
        }
        let c = CachePlace::new(&place, "/p/ledger.jsonl", "model-a");
        c.save(&v).unwrap();
        // Loaded with its magnitudes left in the file: the same cosines and neighbours.
        let mut back = c.load_from(dims, &|p, _| p != 5, 100).unwrap();
        assert!(back.in_file());
        assert!(
            back.heap_bytes() < v.heap_bytes() / 3,
            "{} vs {}",
            back.heap_bytes(),
            v.heap_bytes()
        );
        assert_eq!(back.present(), v.present() - 1);
        let q = unit_row(4321, dims);
        for p in [0u32, 2, 1499, 2999] {
            assert_eq!(back.cosine(p, &q), v.cosine(p, &q), "row {p}");
        }
        assert_eq!(back.cosine(5, &q), None, "refused by keep");
        let keep = |p: u32| p.is_multiple_of(2);
        assert_eq!(
            back.nearest_exact(&q, 10, &keep),
            v.nearest_exact(&q, 10, &keep)
        );
        // Rows set since the load are in memory; a save streams both kinds, and the file
        // it wrote is reopened and serves every row.
        back.set(5, 6, &unit_row(5, dims));
        back.set(4000, 4001, &unit_row(4000, dims));
        c.save(&back).unwrap();
        let generation = back.generation();
        let file = c.reopen(&back).unwrap();
        assert_eq!(back.generation(), generation);
        let before: Vec<Option<f32>> = (0..4001).map(|p| back.cosine(p, &q)).collect();
        back.move_to(file);
        let after: Vec<Option<f32>> = (0..4001).map(|p| back.cosine(p, &q)).collect();
        assert_eq!(before, after);
        let again = c.load_from(dims, &|_, _| true, 100).unwrap();
        assert_eq!(again.present(), back.present());
        assert_eq!(again.cosine(4000, &q), back.cosine(4000, &q));
        // A file whose rows are no longer the ones held is refused.
        back.set(4001, 4002, &unit_row(4001, dims));
        let e = c.reopen(&back).unwrap_err();
        assert!(e.to_string().contains("not the rows"), "{e}");
        let mut other = Vectors::new(dims);
        other.set(0, 99, &unit_row(0, dims));
        assert!(c.reopen(&other).is_err(), "rows of other keys");
    }

    #[test]
    fn a_cache_of_the_first_format_is_read_and_quantised_again() {
        let dir = tempfile::tempdir().unwrap();
        let place = place_in(&dir);
        let c = CachePlace::new(&place, "/p/ledger.jsonl", "model-a");
        // One row at position 2: the codes of [0.6, 0.8, 0.0] a byte each, scale 0.8/127.
        let mut body = Vec::new();
        body.extend_from_slice(&7u32.to_le_bytes());
        body.extend_from_slice(b"model-a");
        body.extend_from_slice(&3u32.to_le_bytes());
        body.extend_from_slice(&1u32.to_le_bytes());
        body.extend_from_slice(&2u32.to_le_bytes());
        body.extend_from_slice(&33u64.to_le_bytes());
        body.extend_from_slice(&(0.8f32 / 127.0).to_le_bytes());
        body.extend([95u8, 127, 0]);
        place
            .write_sealed(&c.file, MAGIC_V1, &body, ".vectors.")
            .unwrap();
        let back = c.load(3, &|_, _| true).unwrap();
        assert_eq!(back.present(), 1);
        assert!(back.row(2, 33).is_some());
        let cos = back.cosine(2, &[0.6, 0.8, 0.0]).unwrap();
        assert!((cos - 1.0).abs() < 0.03, "{cos}");
        // Saved again, it is of the current format and reads back the same.
        c.save(&back).unwrap();
        assert!(std::fs::read(&c.file).unwrap().starts_with(MAGIC));
        let again = c.load(3, &|_, _| true).unwrap();
        assert_eq!(again.cosine(2, &[0.6, 0.8, 0.0]), Some(cos));
    }
}
