//! What `verify` learns from each line alone — its link, time and `prev` for the chain
//! check, and whether it is a valid entry (UTF-8, JSON, the schema, an entry) with its id
//! and supersede target — read for a batch of lines on every core. What depends on the
//! lines before (duplicate ids, the chain's links, supersede pointers) is then taken in
//! line order by [`super::verify::Verifier::feed`]. Reading a line is most of a
//! verification's cost (JSON twice, the schema, a SHA-256); the ordered part is a few
//! look-ups.

use super::chain_check::LineRead;
use crate::entry::EntryRef;
use crate::schema::Schema;

/// Bytes of lines gathered before a batch is read.
const BATCH_BYTES: usize = 4 << 20;
/// Lines gathered before a batch is read (few in unit tests, so that their ledgers span
/// several batches).
const BATCH_LINES: usize = if cfg!(test) { 300 } else { 16_384 };
/// Below this many lines a batch is read on the calling thread.
const ALONE: usize = if cfg!(test) { 8 } else { 256 };

/// One line's facts.
pub(super) struct LineFacts {
    pub(super) chain: LineRead,
    pub(super) entry: EntryFacts,
}

/// Whether a line is an entry.
pub(super) enum EntryFacts {
    /// Only whitespace.
    Blank,
    /// Not an entry: (violation kind, message).
    Bad(&'static str, String),
    /// A valid entry: its id and the id it supersedes.
    Entry {
        id: Box<str>,
        supersedes: Option<Box<str>>,
    },
}

impl EntryFacts {
    fn of(bytes: &[u8]) -> EntryFacts {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return EntryFacts::Blank;
        }
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let Ok(text) = std::str::from_utf8(bytes) else {
            return EntryFacts::Bad("invalid-utf8", "the line is not valid UTF-8".into());
        };
        let value: serde_json::Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => return EntryFacts::Bad("malformed-json", format!("not JSON: {e}")),
        };
        if let Err(errs) = Schema::LedgerEntry.check(&value) {
            return EntryFacts::Bad(
                "schema",
                format!("does not match the entry schema: {}", errs.join("; ")),
            );
        }
        match EntryRef::parse(bytes) {
            Ok((entry, _)) => EntryFacts::Entry {
                id: Box::from(&*entry.id),
                supersedes: entry.supersedes.as_deref().map(Box::from),
            },
            Err(e) => EntryFacts::Bad("bad-entry", e.0),
        }
    }
}

/// A line gathered into a [`Batch`].
pub(super) struct BatchLine {
    pub(super) no: u64,
    pub(super) offset: u64,
    pub(super) terminated: bool,
    start: usize,
    len: usize,
}

impl BatchLine {
    /// The line's length in bytes (without its newline).
    pub(super) fn len(&self) -> usize {
        self.len
    }
}

/// Lines gathered to be read together.
#[derive(Default)]
pub(super) struct Batch {
    bytes: Vec<u8>,
    lines: Vec<BatchLine>,
}

impl Batch {
    /// Adds a line; true when the batch should now be read.
    pub(super) fn push(&mut self, line: &super::Line<'_>) -> bool {
        self.lines.push(BatchLine {
            no: line.no,
            offset: line.offset,
            terminated: line.terminated,
            start: self.bytes.len(),
            len: line.bytes.len(),
        });
        self.bytes.extend_from_slice(line.bytes);
        self.bytes.len() >= BATCH_BYTES || self.lines.len() >= BATCH_LINES
    }

    /// Every line with its facts, in order, read on up to `threads` threads; the batch
    /// is left empty.
    pub(super) fn read(&mut self, threads: usize) -> Vec<(BatchLine, LineFacts)> {
        let bytes = &self.bytes;
        let one = |l: &BatchLine| {
            let b = &bytes[l.start..l.start + l.len];
            LineFacts {
                chain: LineRead::of(b),
                entry: EntryFacts::of(b),
            }
        };
        let facts = crate::par::map(&self.lines, threads, ALONE, "verify", one);
        self.bytes.clear();
        self.lines.drain(..).zip(facts).collect()
    }
}
