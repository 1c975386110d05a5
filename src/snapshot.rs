//! The cold-start snapshot: the derived index of a ledger file, written to the user's
//! cache directory so the next start reads it instead of re-parsing and re-indexing every
//! line. A cache, never the truth:
//!
//! - **Keyed to the ledger**: its canonical path, device and inode, the length it covers
//!   and a BLAKE3 hash of those covered bytes, checked against the file on every load.
//!   Anything that does not match — a rewritten, truncated or replaced ledger, another
//!   build's format — and the snapshot is ignored and the index rebuilt from the ledger.
//!   Lines appended after the covered length are read from the file as usual.
//! - **Authenticated**: the whole file carries a keyed BLAKE3 MAC under a random key kept
//!   beside it (mode 0600, in a 0700 directory; a key readable by others is not trusted).
//!   A snapshot someone else wrote or edited fails the MAC and is ignored, so a hostile
//!   snapshot cannot change an answer; so does a corrupt one. The directory itself must be
//!   ours and writable by nobody else, and so must every directory above it (root's, or
//!   sticky like `/tmp`, are fine): in a directory another user controls, the key could be
//!   swapped for a link to a file of predictable bytes. The key is opened with
//!   `O_NOFOLLOW` and the opened file checked, not the path.
//! - **Safe to delete**, written atomically (temporary file + rename), never inside the
//!   project (the default directory is `$XDG_CACHE_HOME/warroom-memory`, else
//!   `~/.cache/warroom-memory`).
//!
//! - **Streamed**: magic, header (format, build, path, device, inode, covered length,
//!   next line), the index, the BLAKE3 of the covered bytes, the MAC — written and read
//!   1 MiB at a time, never held whole; the covered bytes are hashed on a second thread
//!   meanwhile (which is why their hash follows the index).
//!
//! Only ledgers on files with at least [`SnapshotPlace::min_entries`] entries are
//! snapshotted; the database backend is not (its rows are the truth and a cache would
//! need the same care for less gain).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::fsx::{Jail, ReadAt};

use crate::index::LedgerIndex;
use crate::index::image::{Dec, Enc, FORMAT, decode, encode};

const MAGIC: &[u8; 8] = b"WRMSNAP\0";

/// Where [`SnapshotPlace::write_sealed_stream`]'s filler puts each piece of the body.
pub(crate) type Put<'a> = dyn FnMut(&[u8]) -> io::Result<()> + 'a;

/// Ledgers with fewer entries are not snapshotted by default (they read in well under a
/// second).
pub const DEFAULT_MIN_ENTRIES: usize = 20_000;
const MAC_LEN: usize = 32;

/// Where snapshots are kept, and from what size a ledger gets one.
#[derive(Debug, Clone)]
pub struct SnapshotPlace {
    /// The cache directory.
    pub dir: PathBuf,
    /// Ledgers with fewer entries are not snapshotted (they load fast anyway).
    pub min_entries: usize,
}

/// What a loaded snapshot covers.
pub struct Loaded {
    /// The index as of `offset`.
    pub index: LedgerIndex,
    /// Bytes of the ledger covered (through the end of a line).
    pub offset: u64,
    /// Number of the first line after them.
    pub next_line: u64,
}

impl SnapshotPlace {
    /// The default cache directory: `$XDG_CACHE_HOME/warroom-memory`, else
    /// `$HOME/.cache/warroom-memory`; None if neither variable is set.
    pub fn default_dir() -> Option<PathBuf> {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        Some(base.join("warroom-memory"))
    }

    /// The snapshot file of the ledger at `canonical` path.
    fn file_for(&self, canonical: &Path) -> PathBuf {
        let h = blake3::hash(canonical.as_os_str().as_encoded_bytes());
        self.dir
            .join(format!("{}.snapshot", crate::text::prefix(&h.to_hex(), 24)))
    }

    /// The bytes after `magic` of `file`, a file [`SnapshotPlace::write_sealed`] wrote in
    /// this directory — if it exists, starts with `magic` and its keyed MAC verifies.
    /// Why it was not read is the error (`what` names the kind of file). Derived state
    /// kept beside the snapshot (vectors, a kept verification) is read this way.
    pub(crate) fn read_sealed(&self, file: &Path, magic: &[u8], what: &str) -> io::Result<Vec<u8>> {
        self.read_sealed_of(file, &[magic], what)
            .map(|(_, body)| body)
    }

    /// [`SnapshotPlace::read_sealed`] for a file that may begin with any of `magics` (the
    /// versions of a format read, all of one length): the index of the one it begins
    /// with, and the body.
    pub(crate) fn read_sealed_of(
        &self,
        file: &Path,
        magics: &[&[u8]],
        what: &str,
    ) -> io::Result<(usize, Vec<u8>)> {
        let mut body = Vec::new();
        let which = self
            .read_sealed_stream(file, magics, what, &mut |_, piece| {
                body.extend_from_slice(piece);
                Ok(())
            })?
            .0;
        Ok((which, body))
    }

    /// [`SnapshotPlace::read_sealed_of`] without holding the whole file: `each` gets the
    /// index of the magic and the body in pieces as they are read, and the MAC is checked
    /// after the last. An error — from `each`, a short or growing file, or a MAC that does
    /// not verify — means whatever `each` built from the pieces must be thrown away.
    /// (A 1M-entry vector cache is 256 MB: read whole, it was held twice while loading.)
    ///
    /// The file stays open and is returned with the magic's index: what was verified can
    /// be read again through it (the vector cache's magnitudes, [`crate::semantic`]),
    /// whatever is renamed over the path later.
    pub(crate) fn read_sealed_stream(
        &self,
        file: &Path,
        magics: &[&[u8]],
        what: &str,
        each: &mut dyn FnMut(usize, &[u8]) -> io::Result<()>,
    ) -> io::Result<(usize, File)> {
        const PIECE: u64 = 1 << 20;
        let key = self.key(false)?;
        let mut f = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(file)?;
        let len = f.metadata()?.len();
        let bad = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
        let magic_len = magics.first().map_or(0, |m| m.len());
        debug_assert!(magics.iter().all(|m| m.len() == magic_len));
        if len < magic_len as u64 + 32 {
            return Err(bad(format!("not {what}")));
        }
        let mut head = vec![0u8; magic_len];
        f.read_exact(&mut head)?;
        let Some(which) = magics.iter().position(|m| *m == &head[..]) else {
            return Err(bad(format!("not {what}")));
        };
        let mut mac = blake3::Hasher::new_keyed(&key);
        mac.update(&head);
        let changed = || bad(format!("{what} that changed while it was read"));
        let mut left = len - magic_len as u64 - 32;
        let mut piece = vec![0u8; left.min(PIECE) as usize];
        while left > 0 {
            let n = left.min(PIECE) as usize;
            f.read_exact(&mut piece[..n]).map_err(|_| changed())?;
            mac.update(&piece[..n]);
            each(which, &piece[..n])?;
            left -= n as u64;
        }
        let mut tag = [0u8; 32];
        f.read_exact(&mut tag).map_err(|_| changed())?;
        if f.read(&mut [0u8; 1])? != 0 {
            return Err(changed());
        }
        if mac.finalize() != blake3::Hash::from(tag) {
            return Err(bad(
                "its MAC does not verify (written by someone else, or damaged)".into(),
            ));
        }
        Ok((which, f))
    }

    /// Writes `magic` and `body` to `file` in this directory, atomically (a temporary file
    /// named after `prefix`, mode 0600, synced, renamed), sealed with a keyed MAC under
    /// this directory's key (the directory and key made if needed).
    pub(crate) fn write_sealed(
        &self,
        file: &Path,
        magic: &[u8],
        body: &[u8],
        prefix: &str,
    ) -> io::Result<()> {
        self.write_sealed_stream(file, magic, prefix, &mut |put| put(body))
    }

    /// [`SnapshotPlace::write_sealed`] of a body `fill` hands over in pieces (to `put`),
    /// never held whole: a 1M-entry vector cache is 256 MB, and building it in memory
    /// held it twice at every save. Nothing replaces `file` unless `fill` succeeds.
    pub(crate) fn write_sealed_stream(
        &self,
        file: &Path,
        magic: &[u8],
        prefix: &str,
        fill: &mut dyn FnMut(&mut Put<'_>) -> io::Result<()>,
    ) -> io::Result<()> {
        let key = self.key(true)?;
        let mut mac = blake3::Hasher::new_keyed(&key);
        mac.update(magic);
        let dir = file.parent().unwrap_or(Path::new("."));
        let tmp = tempfile::Builder::new()
            .prefix(prefix)
            .permissions(std::fs::Permissions::from_mode(0o600))
            .tempfile_in(dir)?;
        let mut out = io::BufWriter::with_capacity(1 << 20, tmp);
        out.write_all(magic)?;
        fill(&mut |piece| {
            mac.update(piece);
            out.write_all(piece)
        })?;
        out.write_all(mac.finalize().as_bytes())?;
        let tmp = out.into_inner().map_err(|e| e.into_error())?;
        tmp.as_file().sync_all()?;
        tmp.persist(file).map_err(|e| e.error)?;
        Ok(())
    }

    /// The MAC key, created on first use. An error (with the reason) if it, or the
    /// directory it is in, cannot be trusted.
    pub(crate) fn key(&self, create: bool) -> io::Result<[u8; 32]> {
        let path = self.dir.join("key");
        if self.dir.exists() {
            trusted_dir(&self.dir)?;
        }
        let opened = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path);
        match opened {
            Ok(mut f) => {
                let meta = f.metadata()?;
                if !meta.is_file()
                    || meta.permissions().mode() & 0o077 != 0
                    || meta.uid() != current_uid()
                {
                    return Err(io::Error::other(format!(
                        "{} is readable by others or not ours; snapshots are not trusted. \
                         Fix: delete it (a new key is made)",
                        path.display()
                    )));
                }
                let mut key = [0u8; 32];
                f.read_exact(&mut key)?;
                Ok(key)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(&self.dir)?;
                trusted_dir(&self.dir)?;
                let mut key = [0u8; 32];
                File::open("/dev/urandom")?.read_exact(&mut key)?;
                let tmp = self.dir.join(format!("key.{}", std::process::id()));
                let mut f = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .custom_flags(libc::O_NOFOLLOW)
                    .open(&tmp)?;
                f.write_all(&key)?;
                f.sync_all()?;
                // Another process may have made one meanwhile: keep whichever came first.
                match std::fs::hard_link(&tmp, &path) {
                    Ok(()) => {
                        let _ = std::fs::remove_file(&tmp);
                        Ok(key)
                    }
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                        let _ = std::fs::remove_file(&tmp);
                        self.key(false)
                    }
                    Err(e) => Err(e),
                }
            }
            Err(e) => Err(e),
        }
    }

    /// The index stored for the ledger at `ledger`, if a snapshot exists, is authentic and
    /// matches the file. Why it was not used is logged (debug when simply absent).
    pub fn load(&self, ledger: &Path, jail: Option<Arc<Jail>>) -> Option<Loaded> {
        match self.try_load(ledger, jail) {
            Ok(Some(l)) => Some(l),
            Ok(None) => None,
            Err(why) => {
                tracing::info!(ledger = %ledger.display(), %why, "snapshot not used; reading the ledger");
                None
            }
        }
    }

    fn try_load(&self, ledger: &Path, jail: Option<Arc<Jail>>) -> Result<Option<Loaded>, String> {
        let canonical = match std::fs::canonicalize(ledger) {
            Ok(c) => c,
            Err(_) => return Ok(None),
        };
        let snap = self.file_for(&canonical);
        let opened = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&snap);
        let file = match opened {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("reading {}: {e}", snap.display())),
        };
        let key = self.key(false).map_err(|e| e.to_string())?;
        let size = file.metadata().map_err(|e| e.to_string())?.len();
        if size < (MAC_LEN + MAGIC.len()) as u64 {
            return Err("snapshot too short".into());
        }
        // One pass over the file, never held whole: the body is hashed as it is read, and
        // nothing read from it counts until its MAC is checked at the end (a reason to
        // reject it found on the way is reported only once the MAC holds).
        let body = size - MAC_LEN as u64;
        let mac_key = Some(blake3::Hasher::new_keyed(&key));
        let mut r = Dec::reading(&file, body, mac_key);
        // The ledger through the storage seam: the index's texts are read back through the
        // same reader whose bytes are hashed here.
        let read_back: Arc<dyn ReadAt> = Arc::new(crate::store::jsonl::ReadBack::new(
            ledger.to_path_buf(),
            jail,
        ));
        let (verdict, decoded) = read_body(&mut r, &canonical, &read_back);
        let digest = r.finish().map_err(|b| b.0.to_string())?;
        let mut mac = [0u8; MAC_LEN];
        file.read_exact_at(&mut mac, body)
            .map_err(|e| e.to_string())?;
        if digest != Some(blake3::Hash::from_bytes(mac)) {
            return Err("snapshot is not authentic (MAC mismatch)".into());
        }
        let (head, index) = (verdict?, decoded?);
        Ok(Some(Loaded {
            index,
            offset: head.offset,
            next_line: head.next_line,
        }))
    }

    /// Writes the snapshot of `index`, which covers `offset` bytes of `ledger` (lines up
    /// to `next_line`, exclusive). Atomic; an error leaves any previous snapshot in place.
    pub fn save(
        &self,
        ledger: &Path,
        jail: Option<Arc<Jail>>,
        index: &LedgerIndex,
        offset: u64,
        next_line: u64,
    ) -> io::Result<()> {
        let canonical = std::fs::canonicalize(ledger)?;
        let read_back = crate::store::jsonl::ReadBack::new(canonical.clone(), jail);
        let meta = std::fs::metadata(&canonical)?;
        let key = self.key(true)?;
        let path = self.file_for(&canonical);
        let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
        let f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)?;
        // Streamed to the file (never held whole), through the MAC; the covered bytes of
        // the ledger are hashed meanwhile on a second thread and written after the index.
        let mut w = Enc::spilling(f, blake3::Hasher::new_keyed(&key));
        w.0.extend_from_slice(MAGIC);
        write_header(&mut w, &canonical, &meta, offset, next_line);
        let (hash, encoded) = beside(|| hash_prefix(&read_back, offset), || encode(index, &mut w));
        let written = (|| {
            let hash = hash?;
            w.0.extend_from_slice(&hash);
            let (mut f, mac) = w.finish().expect("a spilling writer")?;
            f.write_all(mac.finalize().as_bytes())
        })();
        if encoded.is_none() || written.is_err() {
            // Texts in memory (not a files ledger), or a failed write: no snapshot.
            let _ = std::fs::remove_file(&tmp);
            return written;
        }
        std::fs::rename(&tmp, &path)
    }
}

struct Header {
    format: u32,
    build: String,
    path: Vec<u8>,
    dev: u64,
    ino: u64,
    offset: u64,
    next_line: u64,
}

fn write_header(
    w: &mut Enc,
    canonical: &Path,
    meta: &std::fs::Metadata,
    offset: u64,
    next_line: u64,
) {
    let mut h = Vec::new();
    h.extend_from_slice(&FORMAT.to_le_bytes());
    for s in [
        env!("CARGO_PKG_VERSION").as_bytes(),
        canonical.as_os_str().as_encoded_bytes(),
    ] {
        h.extend_from_slice(&(s.len() as u64).to_le_bytes());
        h.extend_from_slice(s);
    }
    for x in [meta.dev(), meta.ino(), offset, next_line] {
        h.extend_from_slice(&x.to_le_bytes());
    }
    w.0.extend_from_slice(&h);
}

/// Reads the header and, if it matches the ledger, the index, from `r` (hashing the
/// covered bytes of the ledger meanwhile): why not to use the snapshot, or its header
/// and index. Leaves the rest of `r` unread.
fn read_body(
    r: &mut Dec<'_>,
    canonical: &Path,
    ledger: &Arc<dyn ReadAt>,
) -> (Result<Header, String>, Result<LedgerIndex, String>) {
    let not_read = || Err("not read".to_string());
    let head = match check_header(r, canonical) {
        Ok(h) => h,
        Err(why) => return (Err(why), not_read()),
    };
    // The ledger's bytes are hashed while the snapshot is decoded: two cores.
    let (hashed, decoded) = beside(
        || hash_prefix(&**ledger, head.offset),
        || decode(r, ledger.clone()),
    );
    // After the index: the hash of the covered bytes when the snapshot was written.
    let named = r.array32();
    let decoded = decoded.map_err(|b| b.0.to_string()).and_then(|ix| {
        if r.is_empty() {
            Ok(ix)
        } else {
            Err("trailing bytes in snapshot".to_string())
        }
    });
    match (hashed, named) {
        (Ok(h), Ok(named)) if h == named => (Ok(head), decoded),
        (Ok(_), Ok(_)) => (
            Err("ledger bytes differ from those the snapshot covers".into()),
            not_read(),
        ),
        (Err(e), _) => (Err(e.to_string()), not_read()),
        (_, Err(b)) => (Err(b.0.to_string()), not_read()),
    }
}

/// Reads the magic and the header, and checks that they describe `canonical` as it is now
/// (format, build, path, inode, a covered length it still has).
fn check_header(r: &mut Dec<'_>, canonical: &Path) -> Result<Header, String> {
    if r.magic(MAGIC.len()).map_err(|b| b.0.to_string())? != MAGIC {
        return Err("not a snapshot".into());
    }
    let meta = std::fs::metadata(canonical).map_err(|e| e.to_string())?;
    let head = read_header(r).map_err(|b| b.0.to_string())?;
    if head.format != FORMAT || head.build != env!("CARGO_PKG_VERSION") {
        return Err("snapshot of another format or build".into());
    }
    if head.path != canonical.as_os_str().as_encoded_bytes()
        || (head.dev, head.ino) != (meta.dev(), meta.ino())
    {
        return Err("snapshot of another file".into());
    }
    if head.offset > meta.len() {
        return Err("ledger is shorter than the snapshot covers".into());
    }
    Ok(head)
}

fn read_header(r: &mut Dec<'_>) -> Result<Header, crate::index::image::Bad> {
    let format = r.u32()?;
    let build = String::from_utf8_lossy(r.bytes()?).into_owned();
    let path = r.bytes()?.to_vec();
    let (dev, ino, offset, next_line) = (r.u64()?, r.u64()?, r.u64()?, r.u64()?);
    Ok(Header {
        format,
        build,
        path,
        dev,
        ino,
        offset,
        next_line,
    })
}

/// Runs `a` on another thread while `b` runs on this one (`a` here after `b` if no thread
/// can be started).
fn beside<A: Send, B>(a: impl Fn() -> A + Sync, b: impl FnOnce() -> B) -> (A, B) {
    std::thread::scope(|s| {
        let a = &a;
        let other = std::thread::Builder::new()
            .name("snapshot-hash".into())
            .spawn_scoped(s, a);
        let b = b();
        let a = match other {
            Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(_) => a(),
        };
        (a, b)
    })
}

/// BLAKE3 of the first `len` bytes of the file `file` reads (an error if it is shorter).
fn hash_prefix(file: &dyn ReadAt, len: u64) -> io::Result<[u8; 32]> {
    let mut h = blake3::Hasher::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0u64;
    while at < len {
        let n = (len - at).min(buf.len() as u64) as usize;
        let chunk = buf.get_mut(..n).expect("within the buffer");
        file.read_at(chunk, at)?;
        h.update(chunk);
        at += n as u64;
    }
    Ok(*h.finalize().as_bytes())
}

/// Refuses a snapshot directory another user owns or can write, or under a directory
/// another user (not root) owns or can write without the sticky bit.
fn trusted_dir(dir: &Path) -> io::Result<()> {
    let canonical = dir.canonicalize()?;
    let uid = current_uid();
    let refuse = |d: &Path, m: &std::fs::Metadata, what: &str| {
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "the snapshot directory {}: {} is {what} (owner uid {}, mode {:o}); snapshots \
                 there are not trusted. Fix: use a directory of your own that only you can \
                 write (--snapshot-dir / WARROOM_SNAPSHOT_DIR)",
                dir.display(),
                d.display(),
                m.uid(),
                m.permissions().mode() & 0o7777
            ),
        ))
    };
    let m = std::fs::metadata(&canonical)?;
    if m.uid() != uid {
        return refuse(&canonical, &m, "owned by another user");
    }
    if m.permissions().mode() & 0o022 != 0 {
        return refuse(&canonical, &m, "writable by other users");
    }
    for up in canonical.ancestors().skip(1) {
        let m = std::fs::metadata(up)?;
        let sticky = m.permissions().mode() & 0o1000 != 0;
        if m.uid() != uid && m.uid() != 0 {
            return refuse(up, &m, "owned by another user");
        }
        if m.permissions().mode() & 0o022 != 0 && !sticky {
            return refuse(up, &m, "writable by other users");
        }
    }
    Ok(())
}

/// The process's real uid (`getuid`), so the owner check works where there is no `/proc`.
fn current_uid() -> u32 {
    crate::fsx::current_uid()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beside_runs_both_and_returns_each_result_in_its_place() {
        let this = std::thread::current().id();
        let (a, b) = beside(
            || std::thread::current().id(),
            || std::thread::current().id(),
        );
        assert_ne!(a, this, "`a` runs on another thread");
        assert_eq!(b, this, "`b` runs here");
        let (x, y) = beside(|| 6 * 7, || "here");
        assert_eq!((x, y), (42, "here"));
    }

    #[test]
    fn hash_prefix_covers_exactly_the_bytes_asked_and_fails_past_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("l.jsonl");
        std::fs::write(&f, b"abcdef").unwrap();
        let f = crate::store::jsonl::ReadBack::new(f, None);
        assert_eq!(
            hash_prefix(&f, 3).unwrap(),
            *blake3::hash(b"abc").as_bytes()
        );
        assert!(hash_prefix(&f, 7).is_err());
    }
}
