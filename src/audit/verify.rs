//! `verify`: check every line of a ledger file and report each violation with its line
//! number and byte offset. Streams the file, so it runs on ledgers of any size.
//!
//! Violations: invalid UTF-8, malformed JSON, lines that do not match
//! `schemas/ledger-entry.schema.json` or cannot be read as an entry, duplicate ids,
//! supersedes naming an unknown id, an entry superseded twice, self-supersedes, supersede
//! cycles, a torn last line (no terminating newline), and the hash chain's findings
//! (`broken-link`, `bad-link`, `backdated`; `oversized-line` for a line over the server's
//! line limit, which servers skip; with `--head`, `head-missing` and
//! `outside-head` — see [`super::chain_check`]).

use std::io::BufReader;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::chain_check::{ChainCheck, ChainReport};
use super::line_facts::{Batch, BatchLine, EntryFacts, LineFacts};
use crate::error::{Error, Result};

/// One problem found by `verify`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Violation {
    /// 1-based line number.
    pub line: u64,
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// Short machine-readable kind: invalid-utf8, malformed-json, schema, bad-entry,
    /// duplicate-id, dangling-supersede, double-supersede, self-supersede,
    /// supersede-cycle, torn-tail, oversized-line, broken-link, bad-link, backdated,
    /// future-dated, unchained, head-missing, outside-head.
    pub kind: String,
    /// What is wrong, in words.
    pub message: String,
}

/// The result of verifying one ledger file.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct VerifyReport {
    /// The file checked.
    pub file: String,
    /// Bytes read.
    pub bytes: u64,
    /// Physical lines.
    pub lines: u64,
    /// Lines that are valid entries.
    pub entries: u64,
    /// Entries superseded by a later one.
    pub superseded: u64,
    /// Blank lines (ignored).
    pub blank: u64,
    /// The hash chain: linked and unlinked lines, forks, the head.
    pub chain: ChainReport,
    /// Every violation, in line order.
    pub violations: Vec<Violation>,
    /// The context receipts' stream beside the ledger, when it has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipts: Option<super::receipts_check::ReceiptsReport>,
}

impl VerifyReport {
    /// True if nothing is wrong, in the ledger or in its receipts.
    pub fn ok(&self) -> bool {
        self.violations.is_empty()
            && self
                .receipts
                .as_ref()
                .is_none_or(|r| r.violations.is_empty())
    }
}

/// An entry id, shared between the id map and the file order (one copy of each id).
pub(super) type Id = std::sync::Arc<str>;

#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Seen {
    pub(super) line: u64,
    pub(super) offset: u64,
    pub(super) supersedes: Option<Box<str>>,
}

/// What `verify` checks besides every line.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions<'a> {
    /// A head recorded earlier: it must still be there, with its history.
    pub head: Option<&'a str>,
    /// A receipts head recorded earlier (`verify` of a project only): likewise.
    pub receipts_head: Option<&'a str>,
    /// The verifier's now: lines dated beyond it (plus the skew) are `future-dated`.
    pub now: Option<crate::clock::Timestamp>,
    /// Accept unchained lines after chained ones (`allow_unchained` in warroom.yaml).
    pub allow_unchained: bool,
}

/// Verifies the ledger at `path` (and a recorded head against it, when given).
/// `progress(done, total)` is called about every 16 MiB.
pub fn verify(
    path: &Path,
    opts: &VerifyOptions<'_>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<VerifyReport> {
    let mut v = Verifier::new(path, opts);
    let file = crate::fsx::open_read(path).map_err(|e| Error::io("opening", path, e))?;
    let total = file.metadata().map(|m| m.len()).unwrap_or(0);
    v.feed(
        BufReader::with_capacity(1 << 20, file),
        path,
        total,
        progress,
    )?;
    Ok(v.report(opts.head))
}

/// A verification in progress: everything `verify` knows after the lines it has read
/// (counts, each line's findings, the ids, the hash chain), so the lines appended later
/// are checked by [`Verifier::feed`] alone and [`Verifier::report`] gives exactly the
/// report a full pass over the longer file would — given the prefix did not change, which
/// only a full pass proves (see [`super::resume`]).
#[derive(Clone, Serialize, Deserialize)]
pub struct Verifier {
    /// Counts and per-line violations (the supersede and head findings are added by
    /// [`Verifier::report`]).
    r: VerifyReport,
    /// Keyed through foldhash: a verification is mostly hashing, SipHash was a sixth of
    /// its ordered part.
    ids: foldhash::HashMap<Id, Seen>,
    order: Vec<Id>,
    chain: ChainCheck,
    /// Byte offset of each line (late chain findings name an earlier line).
    offsets: Vec<u64>,
    /// Whether the last line read ended with a newline.
    terminated: bool,
    /// The supersede pointers' findings, kept up to date by [`Verifier::feed`].
    supersedes: super::supersedes::Supersedes,
}

impl Verifier {
    /// Sets the verifier's now for the lines read from here on.
    pub fn set_now(&mut self, now: Option<crate::clock::Timestamp>) {
        self.chain.now = now.map(|t| t.0);
    }

    /// A verification of the file at `path` that has read nothing yet.
    pub fn new(path: &Path, opts: &VerifyOptions<'_>) -> Verifier {
        let mut chain = ChainCheck::default();
        chain.allow_unchained = opts.allow_unchained;
        chain.now = opts.now.map(|t| t.0);
        Verifier {
            r: VerifyReport {
                file: path.display().to_string(),
                ..VerifyReport::default()
            },
            ids: Default::default(),
            order: Vec::new(),
            chain,
            offsets: Vec::new(),
            terminated: true,
            supersedes: Default::default(),
        }
    }

    /// Bytes and lines read so far, whether the last line was whole, and the link of the
    /// last line (hex).
    pub fn read_so_far(&self) -> (u64, u64, bool, &str) {
        (
            self.r.bytes,
            self.r.lines,
            self.terminated,
            &self.chain.report.head,
        )
    }

    /// Byte offset of line `no` (1-based), if read.
    pub fn offset_of(&self, no: u64) -> Option<u64> {
        self.offsets.get((no as usize).checked_sub(1)?).copied()
    }

    /// Checks the lines of `reader`, which continues the file right after what was read
    /// (the whole file for a new verifier). `total` is the file's length for progress.
    /// Lines are gathered in batches whose facts are read on every core
    /// ([`super::line_facts`]), then taken in line order.
    pub fn feed(
        &mut self,
        reader: impl std::io::BufRead,
        path: &Path,
        total: u64,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<()> {
        self.feed_on(reader, path, total, progress, crate::par::threads())
    }

    /// [`Verifier::feed`], each batch read on up to `threads` threads.
    fn feed_on(
        &mut self,
        reader: impl std::io::BufRead,
        path: &Path,
        total: u64,
        progress: &mut dyn FnMut(u64, u64),
        threads: usize,
    ) -> Result<()> {
        let mut batch = Batch::default();
        let mut next_progress = (self.r.bytes / (16 << 20) + 1) * (16 << 20);
        let mut take = |v: &mut Verifier, batch: &mut Batch| {
            for (line, facts) in batch.read(threads) {
                v.take(&line, facts);
                let end = line.offset + line.len() as u64 + u64::from(line.terminated);
                if end >= next_progress {
                    progress(end, total);
                    next_progress += 16 << 20;
                }
            }
        };
        let read = super::stream_lines_from(reader, path, self.r.lines, self.r.bytes, |line| {
            if batch.push(&line) {
                take(self, &mut batch);
            }
        })?;
        take(self, &mut batch);
        self.r.bytes = read;
        self.supersedes.update(&self.ids, &self.order);
        Ok(())
    }

    /// Takes the next line, read into `facts`: its findings, its id.
    fn take(&mut self, line: &BatchLine, facts: LineFacts) {
        let r = &mut self.r;
        let (no, offset, terminated) = (line.no, line.offset, line.terminated);
        self.terminated = terminated;
        r.lines = no;
        let mut flag = |kind: &str, message: String| {
            r.violations.push(Violation {
                line: no,
                offset,
                kind: kind.into(),
                message,
            });
        };
        if !terminated {
            flag(
                "torn-tail",
                format!(
                    "the last line ({} bytes) has no terminating newline: a write was cut short",
                    line.len()
                ),
            );
        }
        if line.len() > crate::store::jsonl::MAX_LINE_BYTES {
            flag(
                "oversized-line",
                format!(
                    "the line is {} bytes, over the server's limit of {} bytes: servers skip it, \
                     so no agent sees it",
                    line.len(),
                    crate::store::jsonl::MAX_LINE_BYTES
                ),
            );
        }
        if let Some((kind, message)) = self.chain.observe_read(facts.chain, no) {
            flag(kind, message);
        }
        self.offsets.push(offset);
        match facts.entry {
            EntryFacts::Blank => r.blank += u64::from(terminated),
            EntryFacts::Bad(kind, message) => flag(kind, message),
            EntryFacts::Entry { id, supersedes } => {
                if let Some(first) = self.ids.get(&*id) {
                    flag(
                        "duplicate-id",
                        format!(
                            "id `{id}` was already used on line {} (byte {})",
                            first.line, first.offset
                        ),
                    );
                } else {
                    let id: Id = Id::from(id);
                    self.ids.insert(
                        id.clone(),
                        Seen {
                            line: no,
                            offset,
                            supersedes,
                        },
                    );
                    r.entries += 1;
                    self.order.push(id);
                }
            }
        }
        for (line, kind, message) in self.chain.late.drain(..) {
            r.violations.push(Violation {
                line,
                offset: self.offsets[line as usize - 1],
                kind: kind.into(),
                message,
            });
        }
    }

    /// The report of everything read: each line's findings, then the supersede pointers'
    /// (over every entry, since a new line can make an old pointer dangle no more) and a
    /// recorded head's.
    pub fn report(&self, head: Option<&str>) -> VerifyReport {
        let mut r = self.r.clone();
        // A finding about an earlier line (learnt from a later one) goes in its line's place.
        r.violations.sort_by_key(|v| v.line);
        r.violations
            .extend(self.supersedes.findings.iter().cloned());
        r.superseded = self.supersedes.superseded;
        r.chain = self.chain.report.clone();
        if let Some(h) = head {
            let (line, found) = self.chain.head_findings(h);
            r.chain.recorded_head = Some(h.to_string());
            r.chain.recorded_head_line = line;
            for (line, kind, message) in found {
                r.violations.push(Violation {
                    line,
                    offset: 0,
                    kind: kind.into(),
                    message,
                });
            }
        }
        r.violations.sort_by_key(|v| (v.line, v.kind.clone()));
        r
    }
}

#[cfg(test)]
#[path = "verify_tests.rs"]
mod tests;
