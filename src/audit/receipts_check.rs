//! `verify`'s check of the context receipts' stream (`receipts.jsonl` beside the ledger,
//! or the database's export of it): every line a receipt with an id seen once, and the
//! hash chain intact — the same chain check as the ledger's, so an edited, removed,
//! reordered or inserted receipt is a violation.

use std::collections::HashSet;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::chain_check::ChainCheck;
use super::verify::Violation;
use crate::error::{Error, Result};

/// What the receipts check found.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct ReceiptsReport {
    /// The stream checked.
    pub file: String,
    /// Physical lines.
    pub lines: u64,
    /// Lines that are receipts.
    pub receipts: u64,
    /// The link of the last line: record it like the ledger's head.
    pub head: String,
    /// The `--receipts-head` given, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_head: Option<String>,
    /// The line holding the recorded head, when it was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_head_line: Option<u64>,
    /// Every violation, in line order.
    pub violations: Vec<Violation>,
}

/// Checks the receipts file at `path` (a missing file is an empty stream) and, when given,
/// a receipts head recorded earlier: it must still be in the file with its whole history
/// before it, so a truncated, rewritten or re-chained stream is caught as with the ledger.
pub fn check(path: &Path, recorded: Option<&str>) -> Result<ReceiptsReport> {
    let mut v = ReceiptsVerifier::new(path);
    match crate::fsx::open_read(path) {
        Ok(f) => v.feed(std::io::BufReader::new(f), path)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io("opening", path, e)),
    }
    Ok(v.report(recorded))
}

/// A receipts check in progress, kept to be continued with the lines appended after it
/// (as [`super::verify::Verifier`] for the ledger).
#[derive(Clone, Serialize, Deserialize)]
pub struct ReceiptsVerifier {
    r: ReceiptsReport,
    chain: ChainCheck,
    ids: HashSet<String>,
    bytes: u64,
    offsets: Vec<u64>,
    terminated: bool,
}

impl ReceiptsVerifier {
    /// A check of the stream at `path` that has read nothing yet.
    pub fn new(path: &Path) -> ReceiptsVerifier {
        ReceiptsVerifier {
            r: ReceiptsReport {
                file: path.display().to_string(),
                ..ReceiptsReport::default()
            },
            chain: ChainCheck::default(),
            ids: HashSet::new(),
            bytes: 0,
            offsets: Vec::new(),
            terminated: true,
        }
    }

    /// Bytes and lines read so far, whether the last line was whole, and its link (hex).
    pub fn read_so_far(&self) -> (u64, u64, bool, &str) {
        (
            self.bytes,
            self.r.lines,
            self.terminated,
            &self.chain.report.head,
        )
    }

    /// Byte offset of line `no` (1-based), if read.
    pub fn offset_of(&self, no: u64) -> Option<u64> {
        self.offsets.get((no as usize).checked_sub(1)?).copied()
    }

    /// Checks the lines of `reader`, which continues the stream right after what was read.
    pub fn feed(&mut self, reader: impl std::io::BufRead, path: &Path) -> Result<()> {
        let (r, chain, ids, offsets) = (
            &mut self.r,
            &mut self.chain,
            &mut self.ids,
            &mut self.offsets,
        );
        let mut terminated_last = self.terminated;
        self.bytes = super::stream_lines_from(reader, path, r.lines, self.bytes, |line| {
            r.lines = line.no;
            terminated_last = line.terminated;
            offsets.push(line.offset);
            let bytes = line.bytes;
            let mut flag = |kind: &str, message: String| {
                r.violations.push(Violation {
                    line: line.no,
                    offset: line.offset,
                    kind: kind.into(),
                    message,
                });
            };
            if !line.terminated {
                flag(
                    "torn-tail",
                    "the last line has no newline: a write was cut short".into(),
                );
            }
            if let Some((kind, message)) = chain.observe(bytes, line.no) {
                flag(kind, message);
            }
            match serde_json::from_slice::<crate::receipts::Receipt>(bytes) {
                Ok(receipt) if !ids.insert(receipt.id.clone()) => {
                    flag(
                        "duplicate-id",
                        format!("receipt {} appears twice", receipt.id),
                    );
                }
                Ok(_) => r.receipts += 1,
                Err(e) => flag("malformed-receipt", format!("not a receipt: {e}")),
            }
            for (line, kind, message) in chain.late.drain(..) {
                r.violations.push(Violation {
                    line,
                    offset: offsets[line as usize - 1],
                    kind: kind.into(),
                    message,
                });
            }
        })?;
        self.terminated = terminated_last;
        Ok(())
    }

    /// The report of everything read, with a recorded head's findings.
    pub fn report(&self, recorded: Option<&str>) -> ReceiptsReport {
        let mut r = self.r.clone();
        if let Some(h) = recorded {
            if r.lines == 0 {
                r.violations.push(missing_head(h));
            } else {
                let (line, found) = self.chain.head_findings(h);
                for (line, kind, message) in found {
                    r.violations.push(Violation {
                        line,
                        offset: 0,
                        kind: kind.into(),
                        message: format!("receipts: {message}"),
                    });
                }
                r.recorded_head_line = line;
            }
            r.recorded_head = Some(h.to_string());
        }
        r.violations.sort_by_key(|v| v.line);
        r.head = if r.lines == 0 {
            crate::chain::GENESIS.to_string()
        } else {
            self.chain.report.head.clone()
        };
        r
    }
}

/// The recorded head of a receipts stream that does not exist (any more).
fn missing_head(h: &str) -> Violation {
    Violation {
        line: 0,
        offset: 0,
        kind: "head-missing".into(),
        message: format!(
            "receipts: the recorded head {} is in no line: the receipts file is gone or empty \
             (removed or truncated)",
            crate::validate::printable(h)
        ),
    }
}
