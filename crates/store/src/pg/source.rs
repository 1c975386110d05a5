//! Reading a stream from its table ([`PgSource`]) and appending to it under the stream's
//! advisory lock ([`PgLock`]).

use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;

use super::schema::{LOCK_CHANNEL, LOCK_LEDGER, LOCK_PLANS, LOCK_RECEIPTS};
use super::{Db, Pooled, error};

/// How long a lost commit waits for the database to say whether it was stored.
const LOST_COMMIT_WAIT: Duration = Duration::from_secs(5);

/// Rows read per query when catching up.
const READ_BATCH: i64 = 50_000;

/// Longest one wait for the append lock before checking for cancellation again.
const LOCK_SLICE: Duration = Duration::from_millis(250);
use crate::chain::Tip;
use crate::jsonl::{AppendReceipt, MAX_LINE_BYTES, Poll, RawLine};
use crate::{Keys, Stream};

/// Incremental reader of one stream's rows, by sequence number.
#[derive(Debug)]
pub struct PgSource {
    db: Arc<Db>,
    stream: Stream,
    /// The ledger's identity (`warroom_meta.ledger_id`) when first read: a different one
    /// means the database was replaced.
    identity: Option<String>,
    last_seq: i64,
    offset: u64,
    next_line: u64,
    /// `(first line, seq − line)` wherever that difference changes: line → seq.
    gaps: Vec<(u64, i64)>,
}

/// `(identity, max seq)` of a stream.
fn head(c: &mut postgres::Client, stream: &Stream) -> Result<(String, i64), postgres::Error> {
    let (table, filter, key) = rows(stream, 1);
    let row = c.query_one(
        &format!(
            "SELECT (SELECT value FROM warroom_meta WHERE key = 'ledger_id'),
                    coalesce((SELECT max(seq) FROM {table} WHERE {filter}), 0)"
        ),
        &[&key],
    )?;
    Ok((row.get(0), row.get(1)))
}

/// The rows of `stream`: its table, a row filter whose parameter is number `param`, and
/// that parameter's value. Every query of a stream is built from this.
pub(super) fn rows(stream: &Stream, param: usize) -> (&'static str, String, String) {
    match stream {
        Stream::Ledger => ("ledger_lines", format!("${param} = ''"), String::new()),
        Stream::Channel(room) => ("channel_lines", format!("room = ${param}"), room.clone()),
        Stream::Plans => ("plan_lines", format!("${param} = ''"), String::new()),
        Stream::Receipts => ("receipt_lines", format!("${param} = ''"), String::new()),
    }
}

impl PgSource {
    pub(crate) fn new(db: Arc<Db>, stream: Stream) -> PgSource {
        PgSource {
            db,
            stream,
            identity: None,
            last_seq: 0,
            offset: 0,
            next_line: 1,
            gaps: Vec::new(),
        }
    }

    /// The stream, named without credentials.
    pub fn label(&self) -> String {
        match &self.stream {
            Stream::Ledger => format!("{} (ledger)", self.db.url),
            Stream::Channel(room) => format!("{} (channel of {room})", self.db.url),
            Stream::Plans => format!("{} (registered plans)", self.db.url),
            Stream::Receipts => format!("{} (context receipts)", self.db.url),
        }
    }

    /// Bytes consumed, as the export would count them.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The number the next line read will have (1-based).
    pub fn next_line(&self) -> u64 {
        self.next_line
    }

    /// One small query: is there a line after the last one read (or a new database)?
    pub fn may_have_news(&self) -> io::Result<bool> {
        let (id, max) = self
            .db
            .with("checking the database for news", |c| head(c, &self.stream))?;
        Ok(self.identity.as_deref() != Some(id.as_str()) || max != self.last_seq)
    }

    /// True if `heads` show lines after the last one read (or another database).
    pub fn behind(&self, heads: &super::Heads) -> bool {
        let last = match self.stream {
            Stream::Ledger => heads.ledger,
            Stream::Plans => heads.plans,
            Stream::Channel(_) | Stream::Receipts => return true,
        };
        self.identity.as_deref() != Some(heads.id.as_str()) || last != self.last_seq
    }

    fn restart(&mut self, why: String) -> Poll {
        *self = PgSource::new(self.db.clone(), self.stream.clone());
        Poll::Reset(why)
    }

    /// Hands every row after the last one read to `on_line`, in sequence order.
    pub fn poll(&mut self, mut on_line: impl FnMut(RawLine<'_>)) -> io::Result<Poll> {
        let mut c = self.db.client()?;
        let (id, max) = head(c.client(), &self.stream).map_err(|e| {
            c.broken = true;
            error("reading the database", &e)
        })?;
        match &self.identity {
            Some(old) if *old != id => {
                return Ok(self.restart("the database holds a different ledger".into()));
            }
            _ if max < self.last_seq => {
                return Ok(self.restart(format!(
                    "the database's last line is {max}, before line {} already read",
                    self.last_seq
                )));
            }
            _ if max == self.last_seq => {
                self.identity = Some(id);
                return Ok(Poll::Unchanged);
            }
            _ => self.identity = Some(id),
        }
        let n = self
            .read_rows(&mut c, &mut on_line)
            .inspect_err(|_| c.broken = true)?;
        Ok(Poll::Appended(n))
    }

    /// Reads the rows after `last_seq` in batches of [`READ_BATCH`]: a `LIMIT` keeps the
    /// plan an index range scan whatever the table's statistics say (right after a bulk
    /// import, without one, PostgreSQL would sort the whole table for every catch-up).
    fn read_rows(
        &mut self,
        c: &mut Pooled,
        on_line: &mut impl FnMut(RawLine<'_>),
    ) -> io::Result<usize> {
        let what = "reading lines from the database";
        let mut n = 0;
        loop {
            let last = self.last_seq;
            let (table, filter, key) = rows(&self.stream, 3);
            let mut rows = c
                .client()
                .query_raw(
                    &format!(
                        "SELECT seq, line FROM {table} WHERE {filter} AND seq > $1 \
                         ORDER BY seq LIMIT $2"
                    ),
                    [
                        &last as &(dyn postgres::types::ToSql + Sync),
                        &READ_BATCH,
                        &key,
                    ],
                )
                .map_err(|e| error(what, &e))?;
            let mut batch = 0;
            while let Some(row) = rows.next().map_err(|e| error(what, &e))? {
                let seq: i64 = row.get(0);
                let raw: &[u8] = row.get(1);
                let bytes = raw.strip_suffix(b"\r").unwrap_or(raw);
                let oversized = bytes.len() > MAX_LINE_BYTES;
                on_line(RawLine {
                    bytes: if oversized { &[] } else { bytes },
                    line_no: self.next_line,
                    offset: self.offset,
                    oversized,
                });
                let delta = seq - self.next_line as i64;
                if self.gaps.last().map_or(0, |g| g.1) != delta {
                    self.gaps.push((self.next_line, delta));
                }
                self.offset += raw.len() as u64 + 1;
                self.next_line += 1;
                self.last_seq = seq;
                batch += 1;
            }
            n += batch;
            if batch < READ_BATCH {
                return Ok(n as usize);
            }
        }
    }

    /// `len` bytes of the export from the start of line `first` (1-based).
    pub fn read_range(&self, first: u64, len: u64) -> io::Result<Vec<u8>> {
        let what = "reading lines from the database";
        let mut c = self.db.client()?;
        let mut out = Vec::with_capacity(len as usize);
        let mut from = self.seq_of(first);
        while (out.len() as u64) < len {
            let (table, filter, key) = rows(&self.stream, 3);
            let mut rows = c
                .client()
                .query_raw(
                    &format!(
                        "SELECT seq, line FROM {table} WHERE {filter} AND seq >= $1 \
                         ORDER BY seq LIMIT $2"
                    ),
                    [
                        &from as &(dyn postgres::types::ToSql + Sync),
                        &READ_BATCH,
                        &key,
                    ],
                )
                .map_err(|e| error(what, &e))?;
            let mut any = false;
            while let Some(row) = rows.next().map_err(|e| error(what, &e))? {
                any = true;
                from = row.get::<_, i64>(0) + 1;
                out.extend_from_slice(row.get::<_, &[u8]>(1));
                out.push(b'\n');
                if out.len() as u64 >= len {
                    break;
                }
            }
            if !any {
                break;
            }
        }
        out.truncate(len as usize);
        Ok(out)
    }

    /// The sequence number of line `line` (1-based) as read: sequence numbers run with
    /// the line numbers except across gaps (rolled-back inserts), remembered in `gaps`.
    fn seq_of(&self, line: u64) -> i64 {
        let i = self.gaps.partition_point(|&(first, _)| first <= line);
        let delta = if i == 0 { 0 } else { self.gaps[i - 1].1 };
        line as i64 + delta
    }
}

/// A transaction holding a stream's advisory lock. Dropped without
/// [`PgLock::append`], it rolls back and writes nothing.
pub struct PgLock {
    conn: Option<Pooled>,
    stream: Stream,
}

impl std::fmt::Debug for PgLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PgLock({:?})", self.stream)
    }
}

fn lock_key(stream: &Stream) -> (i32, String) {
    match stream {
        Stream::Ledger => (LOCK_LEDGER, String::new()),
        Stream::Channel(room) => (LOCK_CHANNEL, room.clone()),
        Stream::Plans => (LOCK_PLANS, String::new()),
        Stream::Receipts => (LOCK_RECEIPTS, String::new()),
    }
}

impl Db {
    /// Begins a transaction and takes `stream`'s advisory lock, waiting at most `wait`
    /// (zero: the default lock wait) and giving up at once when the call is cancelled.
    pub(crate) fn lock(self: &Arc<Self>, stream: &Stream, wait: Duration) -> io::Result<PgLock> {
        let wait = if wait.is_zero() {
            crate::jsonl::DEFAULT_LOCK_WAIT
        } else {
            wait
        };
        let conn = self.client()?;
        let (ns, key) = lock_key(stream);
        let what = "taking the database's append lock";
        let started = Instant::now();
        let fail = |conn: &mut Pooled, e: postgres::Error| {
            conn.broken = true;
            error(what, &e)
        };
        let mut begin = "BEGIN; ";
        let mut lock = PgLock {
            conn: Some(conn),
            stream: stream.clone(),
        };
        // Wait in the database's own queue (fair, woken at once), in slices so that a
        // cancelled call stops waiting within one slice: a timed-out slice rolls back to
        // the savepoint and the transaction goes on.
        loop {
            if warroom_base::cancel::requested() {
                return Err(warroom_base::cancel::error());
            }
            let waited = started.elapsed();
            if waited >= wait {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "another writer holds the append lock of {} in the database; gave \
                         up after {:.1} s and wrote nothing. Fix: retry, or raise \
                         lock_wait_seconds in .agents/warroom.yaml",
                        self.url,
                        waited.as_secs_f64()
                    ),
                ));
            }
            let slice = (wait - waited).min(LOCK_SLICE).as_millis().max(1);
            let c = lock.conn();
            c.client()
                .batch_execute(&format!(
                    "{begin}SET LOCAL lock_timeout = '{slice}ms'; SAVEPOINT warroom_lock"
                ))
                .map_err(|e| fail(c, e))?;
            begin = "";
            match c.client().execute(
                "SELECT pg_advisory_xact_lock($1, hashtext($2))",
                &[&ns, &key],
            ) {
                Ok(_) => {
                    c.client()
                        .batch_execute("RELEASE SAVEPOINT warroom_lock; SET LOCAL lock_timeout = 0")
                        .map_err(|e| fail(c, e))?;
                    return Ok(lock);
                }
                Err(e) if e.code() == Some(&postgres::error::SqlState::LOCK_NOT_AVAILABLE) => {
                    c.client()
                        .batch_execute("ROLLBACK TO SAVEPOINT warroom_lock")
                        .map_err(|e| fail(c, e))?;
                }
                Err(e) => return Err(fail(c, e)),
            }
        }
    }
}

impl PgLock {
    fn conn(&mut self) -> &mut Pooled {
        self.conn.as_mut().expect("present until commit or drop")
    }

    /// The stream's last line (ledger only; a channel has no chain).
    pub fn tip(&mut self) -> io::Result<Tip> {
        // The stream's own last line: the ledger's, or the receipts' (both chained).
        let (table, filter, key) = rows(&self.stream, 1);
        let sql = format!("SELECT line FROM {table} WHERE {filter} ORDER BY seq DESC LIMIT 1");
        let c = self.conn();
        let row = c.client().query_opt(&sql, &[&key]).map_err(|e| {
            c.broken = true;
            error("reading the stream's last line", &e)
        })?;
        Ok(match row {
            None => Tip {
                prev: crate::chain::GENESIS.to_string(),
                ts: None,
            },
            Some(r) => {
                let bytes: &[u8] = r.get(0);
                Tip {
                    prev: crate::chain::hex(&crate::chain::link_of(bytes)),
                    ts: crate::chain::line_ts(bytes),
                }
            }
        })
    }

    /// Inserts `line` and commits. A lost connection during the commit leaves its outcome
    /// unknown to us: then the line's id is looked up on a fresh connection, so an
    /// acknowledged line is never reported as failed nor retried into a duplicate.
    pub fn append(&mut self, line: &str, keys: Keys<'_>) -> io::Result<AppendReceipt> {
        if warroom_base::cancel::requested() {
            return Err(warroom_base::cancel::error());
        }
        let mut conn = self.conn.take().expect("one append per lock");
        let inserted = match &self.stream {
            Stream::Ledger => conn.client().execute(
                "INSERT INTO ledger_lines (line, entry_id, supersedes) VALUES ($1, $2, $3)",
                &[&line.as_bytes(), &keys.id, &keys.supersedes],
            ),
            Stream::Channel(room) => conn.client().execute(
                "INSERT INTO channel_lines (room, line, msg_id) VALUES ($1, $2, $3)",
                &[room, &line.as_bytes(), &keys.id],
            ),
            Stream::Plans => conn.client().execute(
                "INSERT INTO plan_lines (plan_id, line) VALUES ($1, $2)",
                &[&keys.id.unwrap_or(""), &line.as_bytes()],
            ),
            Stream::Receipts => conn.client().execute(
                "INSERT INTO receipt_lines (line, receipt_id) VALUES ($1, $2)",
                &[&line.as_bytes(), &keys.id],
            ),
        };
        if let Err(e) = inserted {
            conn.broken = true;
            return Err(refused(&e, keys)
                .unwrap_or_else(|| error("writing to the database (nothing was written)", &e)));
        }
        if let Err(e) = conn.client().batch_execute("COMMIT") {
            conn.broken = true;
            let db = conn.db.clone();
            drop(conn);
            return match (keys.id, e.as_db_error()) {
                (Some(id), None) if self.stream != Stream::Plans => {
                    self.resolve_lost_commit(&db, id, &e)
                }
                _ => Err(error(
                    "committing to the database (nothing was written)",
                    &e,
                )),
            };
        }
        Ok(receipt())
    }

    /// The connection went away during COMMIT: asks the database (for at most
    /// [`LOST_COMMIT_WAIT`], while it comes back) whether `id` was stored. Stored: the
    /// append succeeded. Not stored: nothing was written. No answer: the error says the
    /// outcome is unknown ([`crate::OutcomeUnknown`]) — never "nothing written".
    fn resolve_lost_commit(
        &self,
        db: &Arc<Db>,
        id: &str,
        lost: &postgres::Error,
    ) -> io::Result<AppendReceipt> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(50);
        loop {
            match self.committed(db, id) {
                Ok(true) => return Ok(receipt()),
                Ok(false) => {
                    return Err(error(
                        "committing to the database (nothing was written)",
                        lost,
                    ));
                }
                Err(_) if started.elapsed() < LOST_COMMIT_WAIT => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(500));
                }
                Err(e) => {
                    return Err(io::Error::other(crate::OutcomeUnknown(format!(
                        "the connection to the database {} was lost while committing `{id}`, \
                         and the database did not come back within {} s to say whether it \
                         was stored ({e}). Retry the call with the same idempotency_key (a \
                         retry without one may store it twice), or look `{id}` up once the \
                         database is back",
                        db.url,
                        LOST_COMMIT_WAIT.as_secs()
                    ))));
                }
            }
        }
    }

    /// After a commit whose answer was lost: is `id` stored?
    fn committed(&self, db: &Arc<Db>, id: &str) -> io::Result<bool> {
        let found = db.with(
            "checking whether the lost commit was stored",
            |c| match &self.stream {
                Stream::Ledger => {
                    c.query_opt("SELECT 1 FROM ledger_lines WHERE entry_id = $1", &[&id])
                }
                Stream::Channel(room) => c.query_opt(
                    "SELECT 1 FROM channel_lines WHERE room = $1 AND msg_id = $2",
                    &[room, &id],
                ),
                Stream::Receipts => {
                    c.query_opt("SELECT 1 FROM receipt_lines WHERE receipt_id = $1", &[&id])
                }
                Stream::Plans => Ok(None),
            },
        )?;
        Ok(found.is_some())
    }
}

fn receipt() -> AppendReceipt {
    AppendReceipt {
        offset: 0,
        repaired_torn_tail: false,
    }
}

/// The database refused the line for a key: the same conflict the file backend reports.
fn refused(e: &postgres::Error, keys: Keys<'_>) -> Option<io::Error> {
    let db = e.as_db_error()?;
    if db.code() != &postgres::error::SqlState::UNIQUE_VIOLATION {
        return None;
    }
    let constraint = db.constraint().unwrap_or("");
    let text = if constraint.contains("supersedes") {
        format!(
            "entry `{}` is already superseded (the database refused a second supersede); \
             nothing was written. Fix: supersede the newer entry instead (see `history`)",
            keys.supersedes.unwrap_or("")
        )
    } else {
        format!(
            "`{}` is already stored (the database refused a duplicate id); nothing was written",
            keys.id.unwrap_or("")
        )
    };
    Some(io::Error::new(io::ErrorKind::AlreadyExists, text))
}

impl Drop for PgLock {
    fn drop(&mut self) {
        if let Some(mut conn) = self.conn.take()
            && conn.client().batch_execute("ROLLBACK").is_err()
        {
            conn.broken = true;
        }
    }
}
