//! The byte codec of the cold-start snapshot ([`crate::image`]): a little-endian writer
//! that can spill to a file and a reader over a stream of known length, both passing
//! every byte through a hasher (the snapshot's MAC) so that a snapshot is never held whole.

use std::io::Read;

/// Little-endian writer: into memory, or spilling to a file (through a hasher) once about
/// [`CHUNK`] bytes are pending, so that a snapshot is never held whole while written.
#[derive(Default)]
pub struct Enc(pub Vec<u8>, Option<Spill>);

/// Where an [`Enc`] spills: the file, the hasher every spilled byte goes through, and the
/// first write error (reported by [`Enc::finish`]).
pub struct Spill {
    out: std::fs::File,
    mac: blake3::Hasher,
    err: Option<std::io::Error>,
}

impl Enc {
    /// A writer spilling to `out`, every byte through `mac`.
    pub fn spilling(out: std::fs::File, mac: blake3::Hasher) -> Enc {
        let spill = Spill {
            out,
            mac,
            err: None,
        };
        Enc(Vec::with_capacity(CHUNK + CHUNK / 4), Some(spill))
    }

    /// Writes what is pending (in memory: keeps it).
    pub(crate) fn spill(&mut self) {
        let Some(s) = &mut self.1 else { return };
        if s.err.is_none() {
            s.mac.update(&self.0);
            if let Err(e) = std::io::Write::write_all(&mut s.out, &self.0) {
                s.err = Some(e);
            }
        }
        self.0.clear();
    }

    /// Writes what is pending and returns the file and the hasher (the first write error,
    /// if any). None for an in-memory writer.
    pub fn finish(mut self) -> Option<std::io::Result<(std::fs::File, blake3::Hasher)>> {
        self.spill();
        let s = self.1?;
        Some(match s.err {
            Some(e) => Err(e),
            None => Ok((s.out, s.mac)),
        })
    }

    /// Spills what is pending once it reaches a chunk (callers that append raw bytes).
    pub(crate) fn spill_if_full(&mut self) {
        if self.0.len() >= CHUNK {
            self.spill();
        }
    }

    pub(crate) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    /// Spills first, as every fixed-size write does: the per-term tables are written
    /// with nothing else between their values (4.6M terms: 18 MB each, and the buffer
    /// left that much in the heap once a first start had written its snapshot).
    pub(crate) fn u32(&mut self, v: u32) {
        self.spill_if_full();
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.spill_if_full();
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    pub(crate) fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }
    pub(crate) fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    pub(crate) fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
            None => self.u8(0),
        }
    }
    pub(crate) fn u32s(&mut self, v: &[u32]) {
        self.len(v.len());
        for &x in v {
            self.u32(x);
        }
    }
    pub(crate) fn u64s(&mut self, v: &[u64]) {
        self.len(v.len());
        for &x in v {
            self.u64(x);
        }
    }
}

/// What went wrong reading a snapshot (the caller only logs it and rebuilds).
#[derive(Debug)]
pub struct Bad(pub &'static str);

/// A decoding result.
pub(crate) type R<T> = Result<T, Bad>;

/// `Err(Bad(what))` unless `ok`.
pub(crate) fn check(ok: bool, what: &'static str) -> R<()> {
    if ok { Ok(()) } else { Err(Bad(what)) }
}

/// Little-endian reader over a stream of known length, read in chunks (a snapshot is
/// read without holding its bytes: at a million entries they are ~0.8× the ledger, on top
/// of the index they decode to). Every chunk read can also go through a hasher (the
/// snapshot's MAC, checked once the stream is read).
pub struct Dec<'a> {
    src: Box<dyn Read + 'a>,
    /// Bytes not yet taken (buffered or still in `src`).
    left: u64,
    /// Bytes read from `src`; `buf[pos..]` are not taken yet.
    buf: Vec<u8>,
    pos: usize,
    mac: Option<blake3::Hasher>,
}

/// Bytes read from the source at a time (unit tests read 7 at a time, so that every item
/// of their snapshots may straddle two reads).
const CHUNK: usize = if cfg!(test) { 7 } else { 1 << 20 };

impl<'a> Dec<'a> {
    /// A reader of `buf`.
    pub fn new(buf: &'a [u8]) -> Dec<'a> {
        Dec::reading(buf, buf.len() as u64, None)
    }

    /// A reader of the `len` bytes `src` yields, each passed to `mac` if given.
    pub fn reading(src: impl Read + 'a, len: u64, mac: Option<blake3::Hasher>) -> Dec<'a> {
        Dec {
            src: Box::new(src),
            left: len,
            buf: Vec::new(),
            pos: 0,
            mac,
        }
    }

    pub(crate) fn take(&mut self, n: usize) -> R<&[u8]> {
        if n as u64 > self.left {
            return Err(Bad("truncated"));
        }
        if self.buf.len() - self.pos < n {
            self.fill(n)?;
        }
        let start = self.pos;
        self.pos += n;
        self.left -= n as u64;
        Ok(&self.buf[start..self.pos])
    }

    /// Reads from the source until `n` bytes are buffered (`n ≤ left`).
    pub(crate) fn fill(&mut self, n: usize) -> R<()> {
        self.buf.drain(..self.pos);
        self.pos = 0;
        let have = self.buf.len();
        let unread = self.left - have as u64;
        let more = (n - have)
            .max(CHUNK)
            .min(usize::try_from(unread).unwrap_or(usize::MAX));
        self.buf.resize(have + more, 0);
        self.src
            .read_exact(&mut self.buf[have..])
            .map_err(|_| Bad("unreadable"))?;
        if let Some(mac) = &mut self.mac {
            mac.update(&self.buf[have..]);
        }
        Ok(())
    }

    /// Reads (and hashes) whatever is left, and returns the hasher's digest, if any.
    pub fn finish(mut self) -> R<Option<blake3::Hash>> {
        let mut unread = self.left - (self.buf.len() - self.pos) as u64;
        let mut chunk = std::mem::take(&mut self.buf);
        chunk.clear();
        chunk.resize(CHUNK, 0);
        while unread > 0 {
            let n = CHUNK.min(usize::try_from(unread).unwrap_or(usize::MAX));
            self.src
                .read_exact(&mut chunk[..n])
                .map_err(|_| Bad("unreadable"))?;
            if let Some(mac) = &mut self.mac {
                mac.update(&chunk[..n]);
            }
            unread -= n as u64;
        }
        Ok(self.mac.map(|m| m.finalize()))
    }
    pub(crate) fn u8(&mut self) -> R<u8> {
        Ok(self.take(1)?[0])
    }
    /// A little-endian u32.
    pub fn u32(&mut self) -> R<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    /// A little-endian u64.
    pub fn u64(&mut self) -> R<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    pub(crate) fn f64(&mut self) -> R<f64> {
        Ok(f64::from_bits(self.u64()?))
    }
    /// A count of items of at least `min_size` bytes each, checked against what is left.
    pub(crate) fn len(&mut self, min_size: usize) -> R<usize> {
        let n = usize::try_from(self.u64()?).map_err(|_| Bad("count too large"))?;
        if (n as u64).saturating_mul(min_size.max(1) as u64) > self.left {
            return Err(Bad("count past the end"));
        }
        Ok(n)
    }
    pub(crate) fn str(&mut self) -> R<&str> {
        let n = self.len(1)?;
        std::str::from_utf8(self.take(n)?).map_err(|_| Bad("not UTF-8"))
    }
    pub(crate) fn boxed(&mut self) -> R<Box<str>> {
        self.str().map(Into::into)
    }
    pub(crate) fn opt_str(&mut self) -> R<Option<Box<str>>> {
        match self.u8()? {
            0 => Ok(None),
            1 => self.boxed().map(Some),
            _ => Err(Bad("bad option tag")),
        }
    }
    pub(crate) fn u32s(&mut self) -> R<Vec<u32>> {
        let n = self.len(4)?;
        let b = self.take(n * 4)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }
    pub(crate) fn u64s(&mut self) -> R<Vec<u64>> {
        let n = self.len(8)?;
        let b = self.take(n * 8)?;
        Ok(b.chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect())
    }
    /// A length-prefixed byte string.
    pub fn bytes(&mut self) -> R<&[u8]> {
        let n = self.len(1)?;
        self.take(n)
    }
    /// `n` raw bytes (a file's magic).
    pub fn magic(&mut self, n: usize) -> R<Vec<u8>> {
        self.take(n).map(<[u8]>::to_vec)
    }
    /// 32 raw bytes.
    pub fn array32(&mut self) -> R<[u8; 32]> {
        Ok(self.take(32)?.try_into().expect("32 bytes"))
    }
    /// True once everything was read.
    pub fn is_empty(&self) -> bool {
        self.left == 0
    }
}
