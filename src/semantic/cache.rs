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

use std::io;
use std::path::PathBuf;

use super::Vectors;
use crate::store::snapshot::SnapshotPlace;

const MAGIC: &[u8; 8] = b"WRMVEC1\0";

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
            file: place.dir.join(format!("{}.{}.vectors", &l[..24], &m[..16])),
            place: place.clone(),
            model_id: model_id.to_string(),
        }
    }

    /// The saved vectors, if the file exists, is authentic and is of this model; rows
    /// `keep(position, key)` refuses are dropped. Why a file was not used is the error.
    pub fn load(&self, dims: usize, keep: &dyn Fn(u32, u64) -> bool) -> io::Result<Vectors> {
        let body = self
            .place
            .read_sealed(&self.file, MAGIC, "a vector cache")?;
        let bad = |why: &str| io::Error::new(io::ErrorKind::InvalidData, why.to_string());
        let mut r = &body[..];
        let id_len = take_u32(&mut r)? as usize;
        if r.len() < id_len {
            return Err(bad("truncated"));
        }
        let (id, rest) = r.split_at(id_len);
        r = rest;
        if id != self.model_id.as_bytes() {
            return Err(bad("of another model"));
        }
        if take_u32(&mut r)? as usize != dims {
            return Err(bad("of other dimensions"));
        }
        let rows = take_u32(&mut r)? as usize;
        let mut v = Vectors::new(dims);
        let row_len = 4 + 8 + 4 + dims;
        if r.len() != rows * row_len {
            return Err(bad("its rows are not whole"));
        }
        for row in r.chunks_exact(row_len) {
            let pos = u32::from_le_bytes(row[..4].try_into().expect("4"));
            let k = u64::from_le_bytes(row[4..12].try_into().expect("8"));
            let scale = f32::from_le_bytes(row[12..16].try_into().expect("4"));
            if !keep(pos, k) || !scale.is_finite() {
                continue;
            }
            let codes: Vec<i8> = row[16..].iter().map(|&b| b as i8).collect();
            v.set_raw(pos, k, scale, &codes);
        }
        Ok(v)
    }

    /// Saves `v` (atomically; the directory and key made if needed).
    pub fn save(&self, v: &Vectors) -> io::Result<()> {
        let mut body = Vec::with_capacity(64 + v.present() * (16 + v.dims()));
        body.extend_from_slice(&(self.model_id.len() as u32).to_le_bytes());
        body.extend_from_slice(self.model_id.as_bytes());
        body.extend_from_slice(&(v.dims() as u32).to_le_bytes());
        body.extend_from_slice(&(v.present() as u32).to_le_bytes());
        for (pos, k, scale, codes) in v.rows() {
            body.extend_from_slice(&pos.to_le_bytes());
            body.extend_from_slice(&k.to_le_bytes());
            body.extend_from_slice(&scale.to_le_bytes());
            body.extend(codes.iter().map(|&c| c as u8));
        }
        self.place
            .write_sealed(&self.file, MAGIC, &body, ".vectors.")
    }

    /// Bytes the file takes (0 when there is none).
    pub fn size(&self) -> u64 {
        std::fs::metadata(&self.file).map_or(0, |m| m.len())
    }
}

fn take_u32(r: &mut &[u8]) -> io::Result<u32> {
    if r.len() < 4 {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "truncated"));
    }
    let (n, rest) = r.split_at(4);
    *r = rest;
    Ok(u32::from_le_bytes(n.try_into().expect("4")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_vectors_come_back_for_their_model_only_and_a_changed_byte_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let place = SnapshotPlace {
            dir: dir.path().join("cache"),
            min_entries: 0,
        };
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
}
