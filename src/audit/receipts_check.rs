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
    /// Every violation, in line order.
    pub violations: Vec<Violation>,
}

/// Checks the receipts file at `path` (a missing file is an empty stream).
pub fn check(path: &Path) -> Result<ReceiptsReport> {
    let mut r = ReceiptsReport {
        file: path.display().to_string(),
        head: crate::chain::GENESIS.to_string(),
        ..ReceiptsReport::default()
    };
    let file = match crate::fsx::open_read(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(r),
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
    r.violations.sort_by_key(|v| v.line);
    r.head = chain.report.head.clone();
    if r.lines == 0 {
        r.head = crate::chain::GENESIS.to_string();
    }
    Ok(r)
}
