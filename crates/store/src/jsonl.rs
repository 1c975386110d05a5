//! Append-only JSON Lines files shared by many processes: the storage discipline.
//!
//! # Commit point
//! An entry is committed when its line, including the terminating `\n`, has been written by
//! one `write_all` under an exclusive OS lock and (by default) `fsync`ed. Readers only ever
//! consume complete lines, so a line is either wholly visible or not visible at all.
//!
//! # Failure cases
//! 1. *Writer crashes mid-write* (kill -9, power loss): the file may end with a partial line
//!    and no `\n`. Readers leave it unconsumed (it may still be in flight) and report it as a
//!    pending tail. The next [`AppendLock::append`] sees that the file does not end with `\n`
//!    and writes one first, so the fragment becomes its own malformed line — never glued to
//!    the new entry.
//! 2. *Write fails* (disk full, I/O error): the lock holder cuts the file back to the length
//!    it had before the call, so no partial line is left behind, and reports the error.
//! 3. *File replaced or truncated* by someone else: [`Tail::poll`] notices (inode change,
//!    shrink, or the byte before our offset is no longer `\n`) and returns [`Poll::Reset`];
//!    the caller rebuilds its derived state from scratch.
//!
//! Assumptions: the filesystem honours `flock`-style locks between processes on one host
//! (true for local filesystems; not for every network filesystem) and `O_APPEND` writes.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Longest line a reader will buffer. Longer lines are skipped and reported as malformed.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Bytes read at a time. The buffer holds at most this much (a longer line grows it
/// until its newline, up to [`MAX_LINE_BYTES`]): a first read's peak memory counts it.
const CHUNK: usize = 1024 * 1024;

/// Default bound on waiting for another process's append lock.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(10);

/// How appends are made durable, and how long they wait for the lock.
#[derive(Clone, Debug, Default)]
pub struct AppendOptions {
    /// `fsync` (fdatasync) after each append. On by default; `--no-fsync` turns it off.
    pub fsync: bool,
    /// Longest wait for the exclusive lock (`lock_wait_seconds`); zero means
    /// [`DEFAULT_LOCK_WAIT`]. A process stopped while holding the lock (Ctrl-Z, a
    /// debugger, `flock` by another tool) then costs a clear error, never a hang.
    pub lock_wait: Duration,
    /// Test hook: inject a failure once this process has appended a number of bytes
    /// (`WARROOM_FAULT_APPEND_AFTER_BYTES`, `WARROOM_FAULT_CRASH_AFTER_BYTES`). Lets tests
    /// prove that a failed write leaves the file valid and that a crash mid-write is
    /// survived.
    pub fault: Option<Arc<FaultBudget>>,
    /// Where the file must really be, checked at every open (see [`warroom_base::fsx::Jail`]).
    pub jail: Option<Arc<warroom_base::fsx::Jail>>,
}

/// Bytes this process may still append before an injected fault, and which fault.
#[derive(Debug)]
pub struct FaultBudget {
    left: AtomicU64,
    crash: bool,
}

impl FaultBudget {
    /// After `bytes`, appends fail with ENOSPC (disk full) after writing a partial line.
    pub fn new(bytes: u64) -> Self {
        Self {
            left: AtomicU64::new(bytes),
            crash: false,
        }
    }

    /// After `bytes`, the process writes a partial line and aborts (a crash mid-write).
    pub fn crash_after(bytes: u64) -> Self {
        Self {
            left: AtomicU64::new(bytes),
            crash: true,
        }
    }
}

/// Where a successful append put the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppendReceipt {
    /// Byte offset of the first byte of the line.
    pub offset: u64,
    /// True if a `\n` had to be written first because the file ended with a torn line.
    pub repaired_torn_tail: bool,
}

/// Exclusive append access to a JSONL file; the OS lock is held until this is dropped.
#[derive(Debug)]
pub struct AppendLock {
    file: File,
}

impl AppendLock {
    /// Opens (creating if needed) `path` for appending and waits at most `wait` (zero:
    /// [`DEFAULT_LOCK_WAIT`]) for the exclusive lock. On timeout the error (kind
    /// `TimedOut`) names the holder's PID when `/proc/locks` shows it. The parent
    /// directory must exist.
    pub fn acquire(path: &Path, wait: Duration) -> io::Result<AppendLock> {
        Self::acquire_in(path, wait, None)
    }

    /// [`AppendLock::acquire`] of a file that must lie in `jail`.
    pub fn acquire_in(
        path: &Path,
        wait: Duration,
        jail: Option<&warroom_base::fsx::Jail>,
    ) -> io::Result<AppendLock> {
        let file = warroom_base::fsx::open_append_in(path, jail)?;
        let wait = if wait.is_zero() {
            DEFAULT_LOCK_WAIT
        } else {
            wait
        };
        let started = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            if warroom_base::cancel::requested() {
                return Err(warroom_base::cancel::error());
            }
            match file.try_lock() {
                Ok(()) => return Ok(AppendLock { file }),
                Err(std::fs::TryLockError::WouldBlock) => {}
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
            let waited = started.elapsed();
            if waited >= wait {
                let holder = warroom_base::fsx::lock_holder(&file)
                    .map(|pid| format!(" by PID {pid}"))
                    .unwrap_or_default();
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "{} is locked{holder}; gave up after {:.1} s and wrote nothing. Fix: \
                         see what that process is doing (stopped? a debugger?), or raise \
                         lock_wait_seconds in .agents/warroom.yaml",
                        path.display(),
                        waited.as_secs_f64()
                    ),
                ));
            }
            std::thread::sleep(pause.min(wait - waited));
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    /// Appends `line` and a `\n` in one `write_all`, after a `\n` if the file ends with a torn
    /// line. On error the file is cut back to its previous length. `line` must not contain
    /// a newline (JSON text never does).
    pub fn append(&mut self, line: &str, opts: &AppendOptions) -> io::Result<AppendReceipt> {
        // The last moment a cancelled call can still be abandoned: after this, it is written.
        if warroom_base::cancel::requested() {
            return Err(warroom_base::cancel::error());
        }
        debug_assert!(!line.contains('\n'));
        let before = self.file.metadata()?.len();
        let torn = before > 0 && {
            let mut last = [0u8; 1];
            self.file.read_exact_at(&mut last, before - 1)?;
            last[0] != b'\n'
        };
        let mut buf = Vec::with_capacity(line.len() + 2);
        if torn {
            buf.push(b'\n');
        }
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
        let written = self.write_with_faults(&buf, opts).and_then(|()| {
            if opts.fsync {
                self.file.sync_data()
            } else {
                Ok(())
            }
        });
        if let Err(e) = written {
            // Undo a partial write so that no half line is ever left behind. We hold the
            // lock, so no other writer appended after `before`.
            let _ = self.file.set_len(before);
            let _ = self.file.sync_data();
            return Err(e);
        }
        Ok(AppendReceipt {
            offset: before + u64::from(torn),
            repaired_torn_tail: torn,
        })
    }

    fn write_with_faults(&mut self, buf: &[u8], opts: &AppendOptions) -> io::Result<()> {
        if let Some(budget) = &opts.fault {
            let left = budget.left.load(Ordering::SeqCst);
            if (buf.len() as u64) > left {
                budget.left.store(0, Ordering::SeqCst);
                self.file.write_all(&buf[..left as usize])?;
                if budget.crash {
                    let _ = self.file.sync_data();
                    std::process::abort();
                }
                return Err(io::Error::from_raw_os_error(28)); // ENOSPC
            }
            budget.left.fetch_sub(buf.len() as u64, Ordering::SeqCst);
        }
        self.file.write_all(buf)
    }
}

impl Drop for AppendLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// One complete line handed to a [`Tail`] consumer.
#[derive(Debug)]
pub struct RawLine<'a> {
    /// The line's bytes without the `\n` (and without a trailing `\r`).
    pub bytes: &'a [u8],
    /// 1-based physical line number.
    pub line_no: u64,
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// True if the line was longer than [`MAX_LINE_BYTES`]; `bytes` is then empty.
    pub oversized: bool,
}

/// What a [`Tail::poll`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Poll {
    /// Nothing new since the last poll.
    Unchanged,
    /// This many complete lines were read.
    Appended(usize),
    /// The file was replaced, truncated or removed; the tail restarted from byte 0 and the
    /// caller must drop everything derived from earlier lines, then poll again.
    Reset(String),
}

/// Incremental reader of a JSONL file: each poll reads only the bytes appended since the last.
#[derive(Debug)]
pub struct Tail {
    path: PathBuf,
    jail: Option<Arc<warroom_base::fsx::Jail>>,
    file: Option<File>,
    identity: Option<(u64, u64)>,
    offset: u64,
    next_line_no: u64,
    pending: u64,
    /// Modification time at the last poll: a rewrite in place of the same length changes
    /// only this.
    mtime: Option<(i64, i64)>,
    /// The first and the last [`WINDOW`] bytes before `offset`, as read: compared with the
    /// file on every poll that finds news, so a file rewritten in place (same inode, same
    /// or greater length) is noticed and reread instead of trusted.
    head: Vec<u8>,
    window: Vec<u8>,
}

/// Bytes kept at each end of what a [`Tail`] has read, to notice rewrites in place.
const WINDOW: usize = 4096;

impl Tail {
    /// A tail positioned at the start of `path` (which need not exist yet).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Tail {
            path: path.into(),
            jail: None,
            file: None,
            identity: None,
            offset: 0,
            next_line_no: 1,
            pending: 0,
            mtime: None,
            head: Vec::new(),
            window: Vec::new(),
        }
    }

    /// The same tail, positioned after `offset` bytes that end line `next_line - 1` (read
    /// elsewhere, e.g. from a snapshot that covers them).
    pub fn resume_at(mut self, offset: u64, next_line: u64) -> Self {
        self.offset = offset;
        self.next_line_no = next_line;
        self
    }

    /// The same tail, opening its file only inside `jail`.
    pub fn jailed(mut self, jail: Option<Arc<warroom_base::fsx::Jail>>) -> Self {
        self.jail = jail;
        self
    }

    /// Where this tail may open its file.
    pub fn jail(&self) -> Option<&warroom_base::fsx::Jail> {
        self.jail.as_deref()
    }

    /// The file this tail reads.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of the next line a poll would read.
    pub fn next_line(&self) -> u64 {
        self.next_line_no
    }

    /// Bytes consumed so far (through the last complete line).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Bytes after the last `\n` at the last poll: a write in flight, or a torn tail left by
    /// a crashed writer.
    pub fn pending_bytes(&self) -> u64 {
        self.pending
    }

    fn restart(&mut self, why: String) -> Poll {
        *self = Tail::new(std::mem::take(&mut self.path)).jailed(self.jail.take());
        Poll::Reset(why)
    }

    /// True if a [`Tail::poll`] could find anything: the file grew, shrank, appeared,
    /// disappeared or was replaced. Only a `stat`, so readers can check it under a shared
    /// lock and take the exclusive one only when there is something to read.
    pub fn may_have_news(&self) -> io::Result<bool> {
        let meta = match std::fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(self.identity.is_some()),
            Err(e) => return Err(e),
        };
        Ok(self.identity != Some((meta.dev(), meta.ino()))
            || meta.len() != self.offset + self.pending
            || self.mtime != Some((meta.mtime(), meta.mtime_nsec())))
    }

    /// True if the bytes this tail remembers still are what the file holds.
    fn still_same(&self, file: &File) -> io::Result<bool> {
        let same_at = |mem: &[u8], at: u64| -> io::Result<bool> {
            let mut now = vec![0u8; mem.len()];
            file.read_exact_at(&mut now, at)?;
            Ok(now == mem)
        };
        Ok(same_at(&self.head, 0)?
            && same_at(&self.window, self.offset - self.window.len() as u64)?)
    }

    /// Remembers the first and last bytes read, after a read.
    fn remember(&mut self) -> io::Result<()> {
        let file = self.file.as_ref().expect("caller opened the file");
        let head = (self.offset as usize).min(WINDOW);
        if self.head.len() < head {
            self.head = vec![0u8; head];
            file.read_exact_at(&mut self.head, 0)?;
        }
        let tail = (self.offset as usize).min(WINDOW);
        self.window = vec![0u8; tail];
        file.read_exact_at(&mut self.window, self.offset - tail as u64)?;
        Ok(())
    }

    /// Reads the complete lines appended since the last poll, calling `on_line` for each.
    pub fn poll(&mut self, mut on_line: impl FnMut(RawLine<'_>)) -> io::Result<Poll> {
        let meta = match std::fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if self.identity.is_some() {
                    return Ok(self.restart("file was removed".into()));
                }
                return Ok(Poll::Unchanged);
            }
            Err(e) => return Err(e),
        };
        let id = (meta.dev(), meta.ino());
        if self.identity.is_some_and(|old| old != id) {
            return Ok(self.restart("file was replaced (new inode)".into()));
        }
        let len = meta.len();
        if len < self.offset {
            return Ok(self.restart(format!("file shrank from {} to {len} bytes", self.offset)));
        }
        if self.file.is_none() {
            self.file = Some(warroom_base::fsx::open_read_in(
                &self.path,
                self.jail.as_deref(),
            )?);
            self.identity = Some(id);
            if self.offset > 0 && self.head.is_empty() {
                // Resumed: what the file holds now is what was checked when resuming.
                self.remember()?;
            }
        }
        let mtime = Some((meta.mtime(), meta.mtime_nsec()));
        if len == self.offset + self.pending && mtime == self.mtime {
            return Ok(Poll::Unchanged);
        }
        let file = self.file.as_ref().expect("opened above");
        if self.offset > 0 && !self.still_same(file)? {
            return Ok(self.restart("file was rewritten in place".into()));
        }
        self.mtime = mtime;
        if len == self.offset + self.pending {
            return Ok(Poll::Unchanged);
        }
        let n = self.read_lines(len, &mut on_line)?;
        self.remember()?;
        Ok(Poll::Appended(n))
    }

    fn read_lines(&mut self, len: u64, on_line: &mut impl FnMut(RawLine<'_>)) -> io::Result<usize> {
        let file = self.file.as_ref().expect("caller opened the file");
        let mut count = 0;
        let mut buf: Vec<u8> = Vec::new();
        let mut buf_start = self.offset; // file offset of buf[0]
        let mut pos = self.offset; // next byte to read from the file
        let mut skipping = false; // inside an oversized line
        while pos < len {
            // Topped up to `CHUNK` with what is left of a line cut by the last read, or
            // `CHUNK` more if that line is already as long: the buffer stays at `CHUNK`.
            let old = buf.len();
            let room = if old < CHUNK { CHUNK - old } else { CHUNK };
            let want = room.min((len - pos) as usize);
            buf.reserve_exact(want);
            buf.resize(old + want, 0);
            file.read_exact_at(&mut buf[old..], pos)?;
            pos += want as u64;
            let mut start = 0;
            while let Some(nl) = memchr::memchr(b'\n', &buf[start..]) {
                let end = start + nl;
                let line_off = buf_start + start as u64;
                if skipping {
                    skipping = false;
                } else {
                    let mut bytes = &buf[start..end];
                    if bytes.last() == Some(&b'\r') {
                        bytes = &bytes[..bytes.len() - 1];
                    }
                    let oversized = bytes.len() > MAX_LINE_BYTES;
                    on_line(RawLine {
                        bytes: if oversized { &[] } else { bytes },
                        line_no: self.next_line_no,
                        offset: line_off,
                        oversized,
                    });
                }
                self.next_line_no += 1;
                count += 1;
                start = end + 1;
            }
            buf.drain(..start);
            buf_start += start as u64;
            self.offset = buf_start;
            if !skipping && buf.len() > MAX_LINE_BYTES {
                on_line(RawLine {
                    bytes: &[],
                    line_no: self.next_line_no,
                    offset: buf_start,
                    oversized: true,
                });
                skipping = true;
            }
            if skipping {
                // Drop the oversized line's bytes; its line number is used when `\n` comes.
                buf_start += buf.len() as u64;
                buf.clear();
            }
        }
        // If still inside an oversized line, `offset` stays at its start; the next poll
        // re-reads it once more bytes (and its `\n`) arrive.
        self.pending = len - self.offset;
        Ok(count)
    }
}

/// The ledger file read back at offsets (an index on files keeps only where each line is):
/// opened once, at the first read, through the jail, and kept — so what is read is the
/// file that was indexed even if the path is replaced later (the index checks each line's
/// hash).
#[derive(Debug)]
pub struct ReadBack {
    path: PathBuf,
    jail: Option<Arc<warroom_base::fsx::Jail>>,
    file: std::sync::OnceLock<File>,
}

impl ReadBack {
    /// The file at `path`, to be opened at the first read under `jail`.
    pub fn new(path: PathBuf, jail: Option<Arc<warroom_base::fsx::Jail>>) -> ReadBack {
        ReadBack {
            path,
            jail,
            file: std::sync::OnceLock::new(),
        }
    }
}

impl warroom_base::fsx::ReadAt for ReadBack {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let file = match self.file.get() {
            Some(f) => f,
            None => {
                let f = warroom_base::fsx::open_read_in(&self.path, self.jail.as_deref())?;
                self.file.get_or_init(|| f)
            }
        };
        file.read_exact_at(buf, offset)
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
#[path = "jsonl_tests.rs"]
mod tests;
