//! Context receipts: a record of every brief served — who asked, for which room, at which
//! ledger position, what was included and why, what was left out — so an auditor can later
//! see exactly what a manager read and prove it by replaying it byte for byte.
//!
//! A receipt holds inputs, ids and hashes, never the brief's text: the brief keywords and
//! limits asked, the scope resolved from the DAG (upstream rooms and their distances, which
//! a later plan change could alter), the read clock and the ranking settings, the ledger
//! position (lines, bytes, and the chain head at that line), the predecessor `done`
//! messages' ids, the included entries' ids with their reasons and score parts, the
//! omission counts, the markdown's size and SHA-256.
//!
//! Receipts are one append-only, hash-chained stream beside the ledger
//! (`receipts.jsonl` in the ledger's directory, or the database's `receipt_lines`): each
//! line carries `prev` like a ledger line and goes through the same storage seam, so
//! `verify` checks it with the same chain check.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::api::brief::{IncludedOut, OmittedOut, UpstreamOut};

/// The receipts file's name, in the ledger's directory.
pub use crate::config::RECEIPTS_FILE as FILE;

/// Who asked for a brief: the session's identity (none: an operator).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Asker {
    /// The session's room.
    pub room: Option<String>,
    /// The session's role.
    pub role: Option<String>,
}

/// The arguments a brief was asked with.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct AskedArgs {
    /// `brief_keywords` as given (None: the plan's).
    pub brief_keywords: Option<Vec<String>>,
    /// `max_entries` as given.
    pub max_entries: Option<u32>,
    /// `plan_id` as given.
    pub plan_id: Option<String>,
}

pub use crate::ledger::LedgerPosition;

/// The ranking settings a brief was computed with.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct RankingUsed {
    /// blend, seed or relevance.
    pub name: String,
    /// The blend's decay floor.
    pub floor: Option<f64>,
    /// Half-lives in hours, by kind (artifact, decision, interface, convention, warning, code).
    pub half_lives: Vec<f64>,
    /// Semantic ranking, when the brief's keywords were fused with a model's cosines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semantic: Option<SemanticUsed>,
    /// How the entries were chosen ([`crate::brief::select::Version`]): `coverage-2`,
    /// or `coverage` in a receipt written before matches by meaning alone came after the
    /// matches by words; absent in one written before selections, whose replay takes the
    /// ranked head in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<String>,
}

/// The selection a brief served now records.
pub const SELECTION: crate::brief::select::Version = crate::brief::select::Version::CURRENT;

/// The model and weight a brief's ranking fused the keywords' BM25F with.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SemanticUsed {
    /// The model's id (its name and a hash of its weights).
    pub model_id: String,
    /// The lexical side's share of the fused relevance.
    pub weight: f64,
}

/// A predecessor's `done` message included in a brief.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct OutputRef {
    /// The predecessor's room.
    pub room_id: String,
    /// The message id.
    pub id: String,
}

/// One receipt: one line of the receipts stream.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Receipt {
    /// `rcpt-<ULID>`.
    pub id: String,
    /// When it was served (the write clock).
    pub ts: String,
    /// Who asked.
    pub by: Asker,
    /// The room briefed.
    pub room_id: String,
    /// The arguments asked.
    pub args: AskedArgs,
    /// The read clock's now the brief was ranked at (RFC 3339).
    pub now: String,
    /// The briefed room's plan, if known.
    pub plan_id: Option<String>,
    /// Its epic, if known.
    pub epic_ref: Option<String>,
    /// The keywords that ranked it.
    pub keywords: Vec<String>,
    /// The epic's title, searched with the keywords (absent on receipts written before
    /// the title was: their replay searches the keywords alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epic_title: Option<String>,
    /// The epic's own words (objective, description, criteria), searched with the
    /// keywords and title (absent when the plan gave none, and on receipts written
    /// before they were searched).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epic_words: Option<String>,
    /// Upstream epics, nearest first, as the DAG said then.
    pub upstream: Vec<UpstreamOut>,
    /// The ranking settings.
    pub ranking: RankingUsed,
    /// `max_entries` in force.
    pub max_entries: u32,
    /// The ledger's position.
    pub ledger: LedgerPosition,
    /// Predecessor `done` messages included.
    pub outputs: Vec<OutputRef>,
    /// Included entries, in rank order, with their reasons.
    pub included: Vec<IncludedOut>,
    /// Omissions by reason.
    pub omitted: OmittedOut,
    /// Size of the markdown in bytes.
    pub bytes: usize,
    /// Rooms beside the briefed one, as the DAG said then (absent on receipts written
    /// before briefs showed open overlaps: their replay computes none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub siblings: Option<Vec<String>>,
    /// The open overlaps the brief showed, with why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlaps: Option<Vec<crate::api::brief::PairRef>>,
    /// Per upstream room, what the selection had and showed (absent before selections).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accounts: Vec<crate::api::brief::RoomAccount>,
    /// SHA-256 of the markdown, hex.
    pub sha256: String,
    /// The chain link of the previous receipt line (written by the store).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev: Option<String>,
}

/// SHA-256 of `text`, hex.
pub fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A receipt's id at `now` (`rcpt-<ULID>`, the time part from our clock, as entry ids).
pub fn new_id(now: crate::clock::Timestamp) -> String {
    let ms = (now.0.max(0) as u64).saturating_mul(1000);
    format!(
        "rcpt-{}",
        ulid::Ulid::from_parts(ms, ulid::Ulid::generate().random())
    )
}
