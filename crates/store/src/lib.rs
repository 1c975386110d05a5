//! The storage seam: every byte of the ledger and of the war-room channels reaches its
//! backend through this module, and nothing above it knows which backend that is.
//!
//! A stream ([`Stream`]: the ledger, or one room's channel) is a sequence of whole lines.
//! The seam has three verbs, the same for both backends:
//! - [`Source::poll`]: hand over the complete lines appended since the last poll (or say
//!   the stream was replaced, so derived state must be rebuilt — [`Poll::Reset`]);
//! - [`Backend::lock`]: exclusive append access (an OS lock on the file; a transaction
//!   holding an advisory lock in PostgreSQL), bounded by `lock_wait` and cancellable;
//! - [`Lock::tip`] and [`Lock::append`]: the last line (for the hash chain) and the commit
//!   of one line under that lock.
//!
//! [`Backend::Files`] is JSON Lines files ([`crate::jsonl`]), the default.
//! [`Backend::Postgres`] keeps the same lines, byte for byte, in tables of one database
//! ([`pg`]), so the index, views, context, audit and every tool run the same code on both.
//!
//! Beside the seam, what only storage knows: [`chain`] (a line's link in the hash chain)
//! and [`transfer`] (lines moved between a file and the database, byte-exact).

pub mod chain;
pub mod jsonl;
pub mod pg;
pub mod transfer;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::chain::Tip;
use jsonl::{AppendLock, AppendOptions, AppendReceipt, Poll, RawLine, Tail};

/// Where the lines live.
#[derive(Clone, Debug, Default)]
pub enum Backend {
    /// JSON Lines files under the project (the default).
    #[default]
    Files,
    /// Tables of one PostgreSQL database.
    Postgres(Arc<pg::Db>),
}

/// Which line stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stream {
    /// The ledger.
    Ledger,
    /// The channel of one war-room.
    Channel(String),
    /// Registered plans (PostgreSQL only; with files they are `<plans>/<id>.json`).
    Plans,
    /// Context receipts (`receipts.jsonl` beside the ledger).
    Receipts,
}

/// The keys the database enforces on a line (ignored by files, where the same checks run
/// in the index under the lock).
#[derive(Clone, Copy, Debug, Default)]
pub struct Keys<'a> {
    /// The entry's or message's id: unique per stream, and the idempotency key of a
    /// retried commit.
    pub id: Option<&'a str>,
    /// The entry this one supersedes: at most one line may name it.
    pub supersedes: Option<&'a str>,
}

/// An append whose outcome could not be learned: the database went away during the
/// commit and did not come back in time to say whether the line was stored. Carried inside
/// an `io::Error`; callers must not report "nothing was written" for it.
#[derive(Debug)]
pub struct OutcomeUnknown(pub String);

impl std::fmt::Display for OutcomeUnknown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OutcomeUnknown {}

/// True if `e` is an [`OutcomeUnknown`].
pub fn outcome_unknown(e: &io::Error) -> bool {
    e.get_ref()
        .is_some_and(|inner| inner.downcast_ref::<OutcomeUnknown>().is_some())
}

/// Incremental reader of one stream.
#[derive(Debug)]
pub enum Source {
    /// A file.
    File(Tail),
    /// Rows of a PostgreSQL table.
    Pg(pg::PgSource),
}

impl Source {
    /// Positions a file source after `offset` bytes ending line `next_line - 1` (a
    /// snapshot covers them); a database source is unchanged.
    pub fn resume_at(self, offset: u64, next_line: u64) -> Source {
        match self {
            Source::File(t) => Source::File(t.resume_at(offset, next_line)),
            other => other,
        }
    }

    /// Number of the next line a poll would read (files; 0 for a database).
    pub fn next_line(&self) -> u64 {
        match self {
            Source::File(t) => t.next_line(),
            Source::Pg(p) => p.next_line(),
        }
    }

    /// True if the stream is rows of a database (not a file).
    pub fn is_database(&self) -> bool {
        matches!(self, Source::Pg(_))
    }

    /// What to call this stream in messages (a path, or the database without credentials).
    pub fn label(&self) -> String {
        match self {
            Source::File(t) => t.path().display().to_string(),
            Source::Pg(p) => p.label(),
        }
    }

    /// True if a poll could find anything (a `stat`, or one small query).
    pub fn may_have_news(&self) -> io::Result<bool> {
        match self {
            Source::File(t) => t.may_have_news(),
            Source::Pg(p) => p.may_have_news(),
        }
    }

    /// True if the database's `heads` show lines this source has not read (files: never
    /// asked; use [`Source::may_have_news`]).
    pub fn behind(&self, heads: &pg::Heads) -> bool {
        match self {
            Source::File(_) => true,
            Source::Pg(p) => p.behind(heads),
        }
    }

    /// Hands every complete line appended since the last poll to `on_line`.
    pub fn poll(&mut self, on_line: impl FnMut(RawLine<'_>)) -> io::Result<Poll> {
        match self {
            Source::File(t) => t.poll(on_line),
            Source::Pg(p) => p.poll(on_line),
        }
    }

    /// Bytes consumed so far, as the stream's JSON Lines export would count them.
    pub fn offset(&self) -> u64 {
        match self {
            Source::File(t) => t.offset(),
            Source::Pg(p) => p.offset(),
        }
    }

    /// Bytes after the last complete line (files only: a write in flight or a torn tail).
    pub fn pending_bytes(&self) -> u64 {
        match self {
            Source::File(t) => t.pending_bytes(),
            Source::Pg(_) => 0,
        }
    }

    /// The bytes `from..to` as the stream's export holds them, where `from` is the
    /// start of line `first_line` (1-based): whole lines, each with its `\n`.
    pub fn read_range(&self, first_line: u64, from: u64, to: u64) -> io::Result<Vec<u8>> {
        match self {
            Source::File(t) => {
                use std::os::unix::fs::FileExt;
                let f = warroom_base::fsx::open_read_in(t.path(), t.jail())?;
                let mut buf = vec![0u8; to.saturating_sub(from) as usize];
                f.read_exact_at(&mut buf, from)?;
                Ok(buf)
            }
            Source::Pg(p) => p.read_range(first_line, to.saturating_sub(from)),
        }
    }
}

/// Exclusive append access to one stream, held until dropped (dropping without a commit
/// writes nothing).
#[derive(Debug)]
pub enum Lock {
    /// The OS lock of a file.
    File(AppendLock),
    /// A PostgreSQL transaction holding the stream's advisory lock.
    Pg(Box<pg::PgLock>),
}

impl Lock {
    /// The stream's last line, for the hash chain.
    pub fn tip(&mut self, path: &Path, opts: &AppendOptions) -> io::Result<Tip> {
        match self {
            Lock::File(_) => crate::chain::tip(path, opts.jail.as_deref()),
            Lock::Pg(l) => l.tip(),
        }
    }

    /// Commits `line` (no `\n` in it) as the stream's next line.
    pub fn append(
        &mut self,
        line: &str,
        keys: Keys<'_>,
        opts: &AppendOptions,
    ) -> io::Result<AppendReceipt> {
        match self {
            Lock::File(l) => l.append(line, opts),
            Lock::Pg(l) => l.append(line, keys),
        }
    }
}

impl Backend {
    /// A reader of `stream`, stored at `path` when the backend is files.
    pub fn source(
        &self,
        stream: Stream,
        path: PathBuf,
        jail: Option<Arc<warroom_base::fsx::Jail>>,
    ) -> Source {
        match self {
            Backend::Files => Source::File(Tail::new(path).jailed(jail)),
            Backend::Postgres(db) => Source::Pg(pg::PgSource::new(db.clone(), stream)),
        }
    }

    /// Takes the append lock of `stream` (creating the file's directory), waiting at most
    /// `opts.lock_wait`. Callers take it *before* any in-process lock on derived state,
    /// so readers never wait behind a writer that waits for another process.
    pub fn lock(&self, stream: &Stream, path: &Path, opts: &AppendOptions) -> io::Result<Lock> {
        match self {
            Backend::Files => {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                AppendLock::acquire_in(path, opts.lock_wait, opts.jail.as_deref()).map(Lock::File)
            }
            Backend::Postgres(db) => db
                .lock(stream, opts.lock_wait)
                .map(|l| Lock::Pg(Box::new(l))),
        }
    }

    /// Where `stream` lives, for messages: the file, or the database without credentials.
    pub fn label(&self, stream: &Stream, path: &Path) -> String {
        match (self, stream) {
            (Backend::Files, _) => path.display().to_string(),
            (Backend::Postgres(db), Stream::Ledger) => format!("{} (ledger)", db.url()),
            (Backend::Postgres(db), Stream::Channel(room)) => {
                format!("{} (channel of {room})", db.url())
            }
            (Backend::Postgres(db), Stream::Plans) => format!("{} (registered plans)", db.url()),
            (Backend::Postgres(db), Stream::Receipts) => format!("{} (context receipts)", db.url()),
        }
    }

    /// True for PostgreSQL.
    pub fn is_database(&self) -> bool {
        matches!(self, Backend::Postgres(_))
    }

    /// The stream's whole content as JSON Lines (what `db export` writes), for auditors.
    pub fn export(&self, stream: &Stream, out: &mut dyn io::Write) -> io::Result<u64> {
        match self {
            Backend::Files => Err(io::Error::other("export reads a database backend")),
            Backend::Postgres(db) => db.export(stream, 0, out),
        }
    }
}
