//! Arguments and results of the auditor operations: `memory_history`, `log`, `memory_diff`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::entry::Entry;

/// Arguments of `memory_history`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct HistoryArgs {
    /// Epic/task ref.
    #[serde(default, rename = "ref")]
    pub ref_: Option<String>,
    /// Room (glob ok).
    #[serde(default)]
    pub room_id: Option<String>,
    /// Newest N (1–200, default 50).
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
    /// From: RFC 3339, a date, or an age (24h).
    #[serde(default)]
    pub since: Option<String>,
    /// To this time (default: now).
    #[serde(default)]
    pub until: Option<String>,
    /// Or from this git revision (e.g. HEAD~5).
    #[serde(default)]
    pub git_from: Option<String>,
    /// To this revision (default: the file now).
    #[serde(default)]
    pub git_to: Option<String>,
    /// Changes to skip (paging).
    #[serde(default)]
    pub offset: Option<u32>,
    /// 1–50, default 20.
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

/// An entry retired by an added one.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SupersedeChange {
    /// The retired entry (absent if its id is in neither version).
    pub old: Option<Entry>,
    /// The entry that retired it.
    pub new: Entry,
    /// Unified diff of the summaries.
    pub summary_diff: String,
    /// Unified diff of the details (empty if both are empty or equal).
    pub detail_diff: String,
}

/// A line of A that B changed or lost.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DiffViolation {
    /// `changed` (B has the same id with other content) or `missing`.
    pub kind: String,
    /// Line number in A.
    pub line: u64,
    /// Byte offset in A.
    pub offset: u64,
    /// The entry id, if the line has one.
    pub id: Option<String>,
    /// The line as it was in A.
    pub before: String,
    /// Line number in B of the line with the same id, for `changed`.
    pub after_line: Option<u64>,
    /// Unified diff of A's line and B's line (pretty-printed JSON), for `changed`.
    pub diff: Option<String>,
}

/// Counts of a diff.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct DiffCounts {
    /// Entries added (superseding ones included).
    pub added: usize,
    /// Entries superseded by an addition.
    pub superseded: usize,
    /// Lines of A changed or missing in B.
    pub violations: usize,
    /// Added lines that are not valid entries.
    pub malformed_added: usize,
}
