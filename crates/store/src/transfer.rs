//! Moving lines between backends: `db import` (a JSON Lines file into one stream of the
//! database: byte-exact, idempotent, resumable) and `db export` (a stream back to JSON
//! Lines, byte-identical to what was imported and appended).

use std::collections::HashSet;
use std::io::{self, BufRead, Write};
use std::path::Path;
use std::sync::Arc;

use postgres::fallible_iterator::FallibleIterator;

use crate::Stream;
use crate::pg::schema::{LOCK_CHANNEL, LOCK_LEDGER, LOCK_PLANS, LOCK_RECEIPTS};
use crate::pg::{Db, error};

/// Lines inserted per transaction by an import.
const BATCH: usize = 5_000;

/// What `db import` did with one stream.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct ImportReport {
    /// `ledger`, or `channel:<room>`.
    pub stream: String,
    /// Complete lines in the file.
    pub file_lines: u64,
    /// Lines the database already held (the same bytes, in the same order).
    pub already: u64,
    /// Lines inserted now.
    pub imported: u64,
    /// Lines stored without their id or supersede key because an earlier line already
    /// used it (a legacy file's violation, kept byte-exact and reported by `verify`).
    pub unkeyed: u64,
    /// Bytes after the file's last newline (a torn line), not imported.
    pub torn_tail_bytes: u64,
}

/// What the database keys a line by — its id and what it supersedes, when it parses as an
/// entry or a message: the caller's parser (the store does not know entries' meaning).
pub type LineKeys<'a> = &'a dyn Fn(&Stream, &[u8]) -> (Option<String>, Option<String>);

/// A stream's lock (namespace, key), table, name and row filter (`$1` is the key).
fn parts(stream: &Stream) -> (i32, String, &'static str, String, String) {
    let (table, filter, key) = crate::pg::source_rows(stream, 1);
    let (ns, name) = match stream {
        Stream::Ledger => (LOCK_LEDGER, "ledger".to_string()),
        Stream::Channel(room) => (LOCK_CHANNEL, format!("channel:{room}")),
        Stream::Plans => (LOCK_PLANS, "plans".to_string()),
        Stream::Receipts => (LOCK_RECEIPTS, "receipts".to_string()),
    };
    (ns, key, table, name, filter)
}

/// Imports the JSON Lines file at `path` into `stream`. The stream must hold nothing, or
/// a prefix of this file (an earlier, interrupted import of it): those lines are checked
/// byte for byte and the rest is appended in batches, each one transaction under the
/// stream's lock. `progress(lines_stored)` is called after each batch.
pub fn import(
    db: &Arc<Db>,
    stream: &Stream,
    path: &Path,
    keys: LineKeys<'_>,
    progress: &mut dyn FnMut(u64),
) -> io::Result<ImportReport> {
    let file = warroom_base::fsx::open_read(path)?;
    let mut reader = io::BufReader::with_capacity(1 << 20, file);
    let (_, key, table, name, filter) = parts(stream);
    let mut report = ImportReport {
        stream: name,
        ..ImportReport::default()
    };
    let mut ids: HashSet<String> = HashSet::new();
    let mut sups: HashSet<String> = HashSet::new();
    let mut buf = Vec::new();
    let mut next_line = |reader: &mut io::BufReader<std::fs::File>,
                         report: &mut ImportReport|
     -> io::Result<Option<Vec<u8>>> {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(None);
        }
        if buf.last() != Some(&b'\n') {
            report.torn_tail_bytes = buf.len() as u64;
            return Ok(None);
        }
        buf.pop();
        report.file_lines += 1;
        Ok(Some(buf.clone()))
    };
    // 1. What the database holds must be this file's first lines.
    let mut last_seq: i64 = 0;
    {
        let mut c = db.client()?;
        let what = "reading what the database holds";
        let mut rows = c
            .client()
            .query_raw(
                &format!("SELECT seq, line FROM {table} WHERE {filter} ORDER BY seq"),
                [&key],
            )
            .map_err(|e| error(what, &e))?;
        while let Some(row) = rows.next().map_err(|e| error(what, &e))? {
            let stored: &[u8] = row.get(1);
            let n = report.already + 1;
            match next_line(&mut reader, &mut report)? {
                Some(line) if line == stored => {}
                other => {
                    return Err(io::Error::other(format!(
                        "the database's {} line {n} {} {}; nothing was imported. Fix: \
                         import into an empty database (or one holding an earlier, \
                         interrupted import of this same file)",
                        report.stream,
                        if other.is_some() {
                            "differs from line"
                        } else {
                            "is past the end of"
                        },
                        path.display()
                    )));
                }
            }
            let (id, sup) = keys(stream, stored);
            ids.extend(id);
            sups.extend(sup);
            last_seq = row.get(0);
            report.already = n;
        }
    }
    // 2. The rest, in batches.
    loop {
        let mut lines: Vec<Vec<u8>> = Vec::with_capacity(BATCH);
        let mut id_col: Vec<Option<String>> = Vec::with_capacity(BATCH);
        let mut sup_col: Vec<Option<String>> = Vec::with_capacity(BATCH);
        while lines.len() < BATCH {
            let Some(line) = next_line(&mut reader, &mut report)? else {
                break;
            };
            let (id, sup) = keys(stream, &line);
            let fresh = |k: Option<String>, seen: &mut HashSet<String>| {
                k.filter(|k| seen.insert(k.clone()))
            };
            let (had_id, had_sup) = (id.is_some(), sup.is_some());
            let (id, sup) = (fresh(id, &mut ids), fresh(sup, &mut sups));
            if (had_id && id.is_none()) || (had_sup && sup.is_none()) {
                report.unkeyed += 1;
            }
            lines.push(line);
            id_col.push(id);
            sup_col.push(sup);
        }
        if lines.is_empty() {
            break;
        }
        last_seq = insert_batch(db, stream, last_seq, &lines, &id_col, &sup_col)?;
        report.imported += lines.len() as u64;
        progress(report.already + report.imported);
    }
    if report.imported > 0 {
        // Fresh statistics for the planner after a bulk load.
        db.with("analysing the imported table", |c| {
            c.batch_execute(&format!("ANALYZE {table}"))
        })?;
    }
    Ok(report)
}

/// One batch in one transaction, under the stream's lock, after checking nobody else
/// appended since `last_seq`. Returns the new last sequence number.
fn insert_batch(
    db: &Arc<Db>,
    stream: &Stream,
    last_seq: i64,
    lines: &[Vec<u8>],
    ids: &[Option<String>],
    sups: &[Option<String>],
) -> io::Result<i64> {
    let (ns, key, table, _, filter) = parts(stream);
    let outcome = db.with("importing into the database", |c| {
        let mut tx = c.transaction()?;
        tx.batch_execute("SET LOCAL lock_timeout = '30s'")?;
        tx.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))",
            &[&ns, &key],
        )?;
        let head = format!("SELECT coalesce(max(seq), 0) FROM {table} WHERE {filter}");
        let max: i64 = tx.query_one(&head, &[&key])?.get(0);
        if max != last_seq {
            return Ok(Err(max));
        }
        match stream {
            Stream::Ledger => tx.execute(
                "INSERT INTO ledger_lines (line, entry_id, supersedes)
                 SELECT l, i, s FROM unnest($1::bytea[], $2::text[], $3::text[])
                     WITH ORDINALITY AS t(l, i, s, o) ORDER BY o",
                &[&lines, &ids, &sups],
            )?,
            Stream::Channel(room) => tx.execute(
                "INSERT INTO channel_lines (room, line, msg_id)
                 SELECT $3, l, i FROM unnest($1::bytea[], $2::text[])
                     WITH ORDINALITY AS t(l, i, o) ORDER BY o",
                &[&lines, &ids, room],
            )?,
            Stream::Plans => tx.execute(
                "INSERT INTO plan_lines (plan_id, line)
                 SELECT coalesce(i, ''), l FROM unnest($1::bytea[], $2::text[])
                     WITH ORDINALITY AS t(l, i, o) ORDER BY o",
                &[&lines, &ids],
            )?,
            Stream::Receipts => tx.execute(
                "INSERT INTO receipt_lines (line, receipt_id)
                 SELECT l, i FROM unnest($1::bytea[], $2::text[])
                     WITH ORDINALITY AS t(l, i, o) ORDER BY o",
                &[&lines, &ids],
            )?,
        };
        let new_max: i64 = tx.query_one(&head, &[&key])?.get(0);
        tx.commit()?;
        Ok(Ok(new_max))
    })?;
    outcome.map_err(|_| {
        io::Error::other(
            "another process appended to this stream in the database during the import; \
             the lines imported so far are kept. Fix: stop every server of this project \
             and run the import again (it resumes where it stopped)",
        )
    })
}

impl Db {
    /// Writes every line of `stream` but its first `skip` with its `\n`, in order;
    /// returns the number of lines written.
    pub fn export(
        self: &Arc<Self>,
        stream: &Stream,
        skip: u64,
        out: &mut dyn Write,
    ) -> io::Result<u64> {
        let mut c = self.client()?;
        let what = "exporting from the database";
        let (table, filter, key) = crate::pg::source_rows(stream, 1);
        let mut rows = c
            .client()
            .query_raw(
                &format!("SELECT line FROM {table} WHERE {filter} ORDER BY seq OFFSET {skip}"),
                [&key],
            )
            .map_err(|e| error(what, &e))?;
        let mut n = 0;
        while let Some(row) = rows.next().map_err(|e| error(what, &e))? {
            out.write_all(row.get::<_, &[u8]>(0))?;
            out.write_all(b"\n")?;
            n += 1;
        }
        Ok(n)
    }
}

impl Db {
    /// (schema version, ledger lines, channel lines, rooms with a channel).
    pub fn status(self: &Arc<Self>) -> io::Result<(i32, i64, i64, i64)> {
        self.with("reading the database's status", |c| {
            let r = c.query_one(
                "SELECT (SELECT value FROM warroom_meta WHERE key = 'schema_version'),
                        (SELECT count(*) FROM ledger_lines),
                        (SELECT count(*) FROM channel_lines),
                        (SELECT count(DISTINCT room) FROM channel_lines)",
                &[],
            )?;
            let v: String = r.get(0);
            Ok((v.parse().unwrap_or(0), r.get(1), r.get(2), r.get(3)))
        })
    }
}

/// A registered plan as `register_plan` stores it: its id and its one compact JSON line.
#[derive(Debug, Clone)]
pub struct PlanLine {
    /// The plan's id.
    pub plan_id: String,
    /// The plan as one JSON line.
    pub line: Vec<u8>,
}

/// Imports registered plans (oldest registration first) as registrations: a plan whose
/// newest stored registration is the same line is skipped, so the import is idempotent.
pub fn import_plans(db: &Arc<Db>, plans: &[PlanLine]) -> io::Result<ImportReport> {
    let mut report = ImportReport {
        stream: "plans".into(),
        ..ImportReport::default()
    };
    report.file_lines = plans.len() as u64;
    let (stored, last_seq) = db.with("reading the registered plans", |c| {
        let rows = c.query(
            "SELECT seq, plan_id, line FROM plan_lines ORDER BY seq",
            &[],
        )?;
        let mut newest = std::collections::HashMap::new();
        let mut last = 0i64;
        for r in rows {
            last = r.get(0);
            newest.insert(r.get::<_, String>(1), r.get::<_, Vec<u8>>(2));
        }
        Ok((newest, last))
    })?;
    let (mut lines, mut ids) = (Vec::new(), Vec::new());
    for p in plans {
        let line = p.line.clone();
        if stored.get(&p.plan_id) == Some(&line) {
            report.already += 1;
            continue;
        }
        lines.push(line);
        ids.push(Some(p.plan_id.clone()));
    }
    if !lines.is_empty() {
        let none = vec![None; lines.len()];
        insert_batch(db, &Stream::Plans, last_seq, &lines, &ids, &none)?;
        report.imported = lines.len() as u64;
    }
    Ok(report)
}
