//! One ledger file and its index, kept in step: cold start, tail pick-up, guarded append.
//!
//! Every request first calls [`Ledger::refresh`], which reads only the bytes appended since
//! the last call (by this or any other process) and applies them to the index. An append
//! takes the OS lock, catches up the tail *under the lock* (so conflict checks such as
//! "already superseded" see every earlier entry from every process), writes the line, and
//! then reads it back through the tail like any other line.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::fsx::{Jail, ReadAt};

use crate::clock::Timestamp;
use crate::entry::{Entry, EntryRef};
use crate::error::{Error, Result};
use crate::index::{LedgerIndex, Loc, Scratch};
use crate::snapshot::SnapshotPlace;
use crate::store::jsonl::{AppendOptions, Poll, RawLine};
use crate::store::{Backend, Keys, Lock, Source, Stream};

/// A ledger file with its derived index.
#[derive(Debug)]
pub struct Ledger {
    /// The file's path (with files; kept for messages and the chain tip).
    path: PathBuf,
    source: Source,
    index: LedgerIndex,
    opts: AppendOptions,
    /// The last line read: (line number, offset, length) — where the chain head is.
    last_line: Option<(u64, u64, u64)>,
    /// Reusable search accumulator (kept here so a search allocates nothing per call).
    pub scratch: Scratch,
}

/// What the last [`Ledger::refresh`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Refresh {
    /// Complete lines read.
    pub lines: usize,
    /// Why the index was rebuilt from scratch, if it was.
    pub reset: Option<String>,
}

/// What the database keys a stored line by (`db import`): its id and what it supersedes
/// when it parses as an entry, its id when it parses as a channel message or a receipt;
/// none for a line that does not parse (it is kept byte-exact and reported by `verify`).
pub fn line_keys(stream: &Stream, line: &[u8]) -> (Option<String>, Option<String>) {
    let bytes = line.strip_suffix(b"\r").unwrap_or(line);
    match stream {
        Stream::Ledger => match EntryRef::parse(bytes) {
            Ok((e, _)) => (
                Some(e.id.into_owned()),
                e.supersedes.map(|s| s.into_owned()),
            ),
            Err(_) => (None, None),
        },
        Stream::Channel(_) => match crate::channel::parse_message(bytes) {
            Ok((m, _)) => (Some(m.id), None),
            Err(_) => (None, None),
        },
        Stream::Receipts => match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(v) => (v["id"].as_str().map(str::to_string), None),
            Err(_) => (None, None),
        },
        Stream::Plans => (None, None),
    }
}

fn apply_line(index: &mut LedgerIndex, line: RawLine<'_>) {
    let loc = Loc {
        line: line.line_no,
        offset: line.offset,
    };
    if line.oversized {
        return index.note_problem(loc, "line longer than 16 MiB; skipped".into());
    }
    if line.bytes.iter().all(u8::is_ascii_whitespace) {
        return; // blank lines carry nothing and are not an error
    }
    match EntryRef::parse(line.bytes) {
        Ok((entry, ts)) => {
            index.apply(&entry, ts, loc, line.bytes);
        }
        Err(e) => index.note_problem(loc, format!("malformed line: {}", e.0)),
    }
}

/// An empty index: on files, entries' text stays in the file and is read back on demand
/// (it is most of the ledger's bytes); from a database it is kept in memory.
fn empty_index(database: bool, path: &Path, jail: Option<Arc<Jail>>) -> LedgerIndex {
    if database {
        LedgerIndex::default()
    } else {
        LedgerIndex::with_texts_in(read_back(path, jail))
    }
}

/// The ledger file read back at offsets, through the storage seam (and the jail).
pub(crate) fn read_back(path: &Path, jail: Option<Arc<Jail>>) -> Arc<dyn ReadAt> {
    Arc::new(crate::store::jsonl::ReadBack::new(path.to_path_buf(), jail))
}

impl Ledger {
    /// Opens the ledger at `path` (it need not exist) and reads it whole.
    pub fn open(path: impl Into<PathBuf>, opts: AppendOptions) -> Result<Ledger> {
        Ledger::open_in(&Backend::Files, path, opts, None)
    }

    /// Opens the ledger in `backend` (at `path` when that is files) and reads it: from
    /// the snapshot in `snapshots` when one matches the file (then only the lines after
    /// it), else whole — and then writes a snapshot if the ledger is big enough and none
    /// covered most of it.
    pub fn open_in(
        backend: &Backend,
        path: impl Into<PathBuf>,
        opts: AppendOptions,
        snapshots: Option<&SnapshotPlace>,
    ) -> Result<Ledger> {
        let path = path.into();
        let source = backend.source(Stream::Ledger, path.clone(), opts.jail.clone());
        let snapshots = snapshots.filter(|_| !backend.is_database());
        let loaded = snapshots.and_then(|s| s.load(&path, opts.jail.clone()));
        let (index, source, covered) = match loaded {
            Some(l) => {
                let n = l.index.len();
                tracing::info!(
                    ledger = %path.display(),
                    entries = n,
                    bytes = l.offset,
                    "index read from the snapshot; reading the lines after it"
                );
                (l.index, source.resume_at(l.offset, l.next_line), n)
            }
            None => {
                let mut index = empty_index(backend.is_database(), &path, opts.jail.clone());
                // About 500 bytes per line is typical: a good guess saves regrowing.
                let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
                index.reserve((bytes / 500) as usize);
                (index, source, 0)
            }
        };
        let mut ledger = Ledger {
            source,
            path,
            index,
            opts,
            last_line: None,
            scratch: Scratch::default(),
        };
        ledger.refresh()?;
        if let Some(s) = snapshots {
            let n = ledger.index.len();
            // Written when the ledger is big and the snapshot covered less than 90 %.
            if n >= s.min_entries && covered < n - n / 10 {
                let (offset, next) = (ledger.source.offset(), ledger.source.next_line());
                match s.save(
                    &ledger.path,
                    ledger.opts.jail.clone(),
                    &ledger.index,
                    offset,
                    next,
                ) {
                    Ok(()) => tracing::debug!(entries = n, "snapshot written"),
                    Err(e) => tracing::warn!(error = %e, "could not write the snapshot"),
                }
            }
        }
        Ok(ledger)
    }

    /// The ledger file (with the files backend).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the ledger is, for messages: its path, or the database without credentials.
    pub fn label(&self) -> String {
        self.source.label()
    }

    /// The storage the ledger is read from.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The index as of the last refresh.
    pub fn index(&self) -> &LedgerIndex {
        &self.index
    }

    /// Bytes after the last complete line: a write in flight or a torn tail.
    pub fn pending_bytes(&self) -> u64 {
        self.source.pending_bytes()
    }

    /// Where this ledger's index stands: lines and bytes read, and the chain link of the
    /// last line read (one line is read back to hash it; nothing is hashed per line).
    pub fn position(&self) -> Result<LedgerPosition> {
        let bytes = self.source.offset();
        let lines = self.source.next_line().saturating_sub(1);
        let io = |e| Error::Io {
            context: format!("reading the ledger's last line in {}", self.source.label()),
            source: e,
        };
        let head = match self.last_line {
            Some((no, offset, len)) => {
                let mut line = self
                    .source
                    .read_range(no, offset, offset + len + 1)
                    .map_err(io)?;
                while matches!(line.last(), Some(b'\n' | b'\r')) {
                    line.pop();
                }
                crate::chain::hex(&crate::chain::link_of(&line))
            }
            // Nothing read since a snapshot was loaded: files only (no snapshot on a database).
            None => {
                crate::chain::head_at(&self.path, self.opts.jail.as_deref(), bytes).map_err(io)?
            }
        };
        Ok(LedgerPosition { lines, bytes, head })
    }

    /// Bytes of the file consumed so far.
    pub fn offset(&self) -> u64 {
        self.source.offset()
    }

    /// Reads whatever was appended since the last call and applies it to the index.
    /// True if [`Ledger::refresh`] could pick anything up (a `stat` of the file).
    pub fn may_have_news(&self) -> Result<bool> {
        self.source.may_have_news().map_err(|e| Error::Io {
            context: format!("checking ledger {}", self.source.label()),
            source: e,
        })
    }

    /// Picks up what other processes appended (or rebuilds if the file was replaced).
    pub fn refresh(&mut self) -> Result<Refresh> {
        let before = self.index.problems().1;
        let mut out = Refresh::default();
        loop {
            let index = &mut self.index;
            // An empty index is about to read the whole ledger (first start, or a rebuild
            // after a reset): a bulk load, ended whatever the poll's outcome.
            let bulk = index.is_empty();
            // A first read of a ledger file is reported (a terminal shows a progress line).
            let mut marks = None;
            if bulk {
                index.begin_bulk();
                let total = std::fs::metadata(&self.path).map_or(0, |m| m.len());
                if !self.source.is_database() && total > 0 {
                    crate::progress::report(
                        crate::progress::FIRST_READ,
                        crate::progress::Step::Begin { total },
                    );
                    marks = Some(crate::progress::Marks::new(total));
                }
            }
            let last = &mut self.last_line;
            let poll = self.source.poll(|line| {
                let len = line.bytes.len() as u64;
                *last = Some((line.line_no, line.offset, len));
                if let Some(m) = marks.as_mut() {
                    m.reached(crate::progress::FIRST_READ, line.offset + len);
                }
                apply_line(index, line)
            });
            if bulk {
                self.index.end_bulk();
                if marks.is_some() {
                    let done = self.last_line.map_or(0, |(_, offset, len)| offset + len);
                    crate::progress::report(
                        crate::progress::FIRST_READ,
                        crate::progress::Step::End { done },
                    );
                }
            }
            let poll = poll.map_err(|e| Error::Io {
                context: format!("reading ledger {}", self.source.label()),
                source: e,
            })?;
            match poll {
                Poll::Reset(why) => {
                    self.last_line = None;
                    tracing::warn!(ledger = %self.source.label(), %why, "ledger changed under us; rebuilding the index");
                    self.index = empty_index(
                        self.source.is_database(),
                        &self.path,
                        self.opts.jail.clone(),
                    );
                    out.reset = Some(why);
                }
                Poll::Appended(n) => {
                    out.lines += n;
                    break;
                }
                Poll::Unchanged => break,
            }
        }
        self.log_new_problems(before);
        Ok(out)
    }

    fn log_new_problems(&self, before: usize) {
        let (kept, total) = self.index.problems();
        if total == before {
            return;
        }
        for p in kept.iter().skip(before).take(10) {
            tracing::warn!(ledger = %self.source.label(), line = p.loc.line, offset = p.loc.offset, "{}", p.message);
        }
        if total - before > 10 {
            tracing::warn!(ledger = %self.source.label(), "{} more problems; run `warroom-memory verify`", total - before - 10);
        }
    }

    /// Takes the append lock of the ledger at `path` (creating its directory), waiting at
    /// most `opts.lock_wait`. Callers take it *before* any in-process lock on the derived
    /// state, so readers never wait behind a writer that waits for another process.
    pub fn lock(backend: &Backend, path: &Path, opts: &AppendOptions) -> Result<Lock> {
        backend
            .lock(&Stream::Ledger, path, opts)
            .map_err(|e| Error::Io {
                context: format!("locking ledger {}", backend.label(&Stream::Ledger, path)),
                source: e,
            })
    }

    /// Appends `entry` under `lock` (from [`Ledger::lock`]). `check` runs after the tail has caught up under the
    /// lock and may refuse the append; nothing is written then. An `Err` means nothing was
    /// written; `Ok` holds the entry's position in the index after reading it back, or why
    /// it could not be read back (the line is written either way).
    pub fn append(
        &mut self,
        mut lock: Lock,
        entry: &Entry,
        idempotency_key: Option<&str>,
        check: impl FnOnce(&LedgerIndex) -> Result<()>,
    ) -> Result<std::result::Result<u32, String>> {
        let path = self.path.clone();
        self.refresh()?;
        check(&self.index)?;
        // Under the lock: link to the ledger's last line. A last line dated beyond our
        // clock is either ahead (a skewed writer, a bad merge) or our clock is behind; we
        // cannot tell from here, and refusing would let one future-dated line stop every
        // writer for good. So write, say so, and let `verify` judge: it reports the odd
        // line out as `future-dated` (or ours as `backdated`).
        let tip = lock.tip(&path, &self.opts).map_err(|e| Error::Io {
            context: format!("reading the ledger's last line in {}", self.source.label()),
            source: e,
        })?;
        if let (Some(last), Ok(ts)) = (tip.ts, crate::clock::parse_rfc3339(&entry.ts))
            && ts.0 < last.0 - crate::chain::SKEW_SECONDS
        {
            tracing::warn!(
                "the ledger's last line is dated {} s after this server's clock ({}): either \
                 it is future-dated or this clock is behind; writing anyway. `warroom-memory \
                 verify` reports which line is out of order",
                last.0 - ts.0,
                entry.ts
            );
        }
        let mut line = entry.to_line();
        if let Some(k) = idempotency_key {
            line = crate::chain::with_field(&line, "idempotency_key", k);
        }
        let line = crate::chain::seal(&line, &tip.prev);
        let keys = Keys {
            id: Some(&entry.id),
            supersedes: entry.supersedes.as_deref(),
        };
        let receipt = lock.append(&line, keys, &self.opts).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists || crate::store::outcome_unknown(&e) {
                return Error::Conflict(e.to_string());
            }
            Error::Io {
                context: format!(
                    "could not append to {} (nothing was written; the ledger is unchanged)",
                    self.source.label()
                ),
                source: e,
            }
        })?;
        if receipt.repaired_torn_tail {
            tracing::warn!(ledger = %path.display(), "ledger ended with a torn line; terminated it before appending");
        }
        drop(lock);
        // The commit point is behind us: reading the line back can no longer fail the
        // append, only leave its position unknown (with why).
        Ok(crate::error::after_commit("reading the entry back", || {
            self.refresh()?;
            self.index.position(&entry.id).ok_or_else(|| {
                Error::Conflict(format!(
                    "entry `{}` was appended but not read back; run `warroom-memory verify`",
                    entry.id
                ))
            })
        }))
    }

    /// Turns `fsync` after each append on or off.
    pub fn set_fsync(&mut self, on: bool) {
        self.opts.fsync = on;
    }

    /// Split borrow for search: the index and the scratch buffer.
    pub fn index_and_scratch(&mut self) -> (&LedgerIndex, &mut Scratch) {
        (&self.index, &mut self.scratch)
    }
}

/// A fresh entry id: `mem-<ULID>` with the ULID's time part taken from the server's clock.
pub fn new_entry_id(now: Timestamp) -> String {
    let ms = (now.0.max(0) as u64).saturating_mul(1000);
    // `Ulid::generate` is used only for its random bits; the time part comes from our clock.
    let ulid = ulid::Ulid::from_parts(ms, ulid::Ulid::generate().random());
    format!("mem-{ulid}")
}

/// Where the ledger stood when a brief was computed.
#[derive(
    Debug, Clone, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema, PartialEq,
)]
pub struct LedgerPosition {
    /// Lines read (the brief saw lines 1..=lines).
    pub lines: u64,
    /// Bytes of those lines.
    pub bytes: u64,
    /// The chain link of line `lines` (32 zeros for an empty ledger).
    pub head: String,
}
