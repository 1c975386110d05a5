//! Arguments and results of the auditor operations: `memory_history`, `log`, `memory_diff`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::audit::diff::{DiffCounts, DiffViolation, SupersedeChange};
use crate::entry::Entry;

/// Arguments of `memory_history`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct HistoryArgs {
    /// Every entry about this epic/task ref, e.g. "EPIC-007".
    #[serde(default, rename = "ref")]
    pub ref_: Option<String>,
    /// Every entry of this room (glob allowed).
    #[serde(default)]
    pub room_id: Option<String>,
    /// Only the newest N entries (1–200, default 50), returned oldest first.
    #[serde(default)]
    #[schemars(range(min = 1, max = 200))]
    pub last_n: Option<u32>,
}

/// An entry with its audit status.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct HistoryEntry {
    /// The entry.
    pub entry: Entry,
    /// False if superseded.
    pub live: bool,
    /// Id of the entry that superseded it.
    pub superseded_by: Option<String>,
    /// Line number in the ledger file.
    pub line: u64,
}

/// Result of `memory_history` and of `log`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct HistoryOutput {
    /// Entries (history: oldest first; log: newest first), superseded ones included.
    pub entries: Vec<HistoryEntry>,
    /// Matching entries in all.
    pub total: usize,
    /// True if more matched than were returned.
    pub truncated: bool,
}

/// Arguments of `memory_diff`: what changed in the ledger between two points.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct DiffArgs {
    /// Compare the ledger as it was at this time (RFC 3339, a date, or an age such as
    /// "24h") with the ledger at `until`.
    #[serde(default)]
    pub since: Option<String>,
    /// The later point in time (default: now).
    #[serde(default)]
    pub until: Option<String>,
    /// Compare the ledger file at this git revision (e.g. "HEAD~5") with `git_to`; also
    /// reports append-only violations (lines changed or deleted).
    #[serde(default)]
    pub git_from: Option<String>,
    /// The later revision (default: the ledger file on disk now).
    #[serde(default)]
    pub git_to: Option<String>,
    /// Skip this many changes (pagination; default 0).
    #[serde(default)]
    pub offset: Option<u32>,
    /// At most this many changes (1–50, default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
}

/// One change in a diff page.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Change {
    /// A line of the earlier version changed or deleted: append-only broken.
    Violation(Box<DiffViolation>),
    /// An entry retired by a new one, with text diffs.
    Superseded(Box<SupersedeChange>),
    /// A new entry.
    Added {
        /// The entry.
        entry: Box<Entry>,
    },
}

/// Result of `memory_diff`: one page of changes.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DiffPage {
    /// The earlier point.
    pub a: String,
    /// The later point.
    pub b: String,
    /// Counts over the whole diff.
    pub counts: DiffCounts,
    /// True if no line of the earlier version was changed or removed.
    pub append_only: bool,
    /// This page: violations first, then supersedes, then additions.
    pub changes: Vec<Change>,
    /// Changes in all.
    pub total_changes: usize,
    /// Offset of this page.
    pub offset: usize,
    /// Offset of the next page, if any.
    pub next_offset: Option<usize>,
}
