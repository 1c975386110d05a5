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
    let mut r = ReceiptsReport {
        file: path.display().to_string(),
        head: crate::chain::GENESIS.to_string(),
        ..ReceiptsReport::default()
    };
    let file = match crate::fsx::open_read(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(h) = recorded {
                r.recorded_head = Some(h.to_string());
                r.violations.push(missing_head(h));
            }
            return Ok(r);
        }
        Err(e) => return Err(Error::io("opening", path, e)),
    };
    let reader = std::io::BufReader::new(file);
    let mut chain = ChainCheck::default();
    let mut ids = HashSet::new();
    super::stream_lines(reader, path, |line| {
        r.lines = line.no;
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
    })?;
    for (line, kind, message) in chain.late.drain(..) {
        r.violations.push(Violation {
            line,
            offset: 0,
            kind: kind.into(),
            message,
        });
    }
    if let Some(h) = recorded {
        for (line, kind, message) in chain.check_head(h) {
            r.violations.push(Violation {
                line,
                offset: 0,
                kind: kind.into(),
                message: format!("receipts: {message}"),
            });
        }
        r.recorded_head = Some(h.to_string());
        r.recorded_head_line = chain.report.recorded_head_line;
    }
    r.violations.sort_by_key(|v| v.line);
    r.head = chain.report.head.clone();
    if r.lines == 0 {
        r.head = crate::chain::GENESIS.to_string();
    }
    Ok(r)
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
