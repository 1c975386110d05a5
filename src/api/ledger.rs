//! Arguments and results of the ledger operations: publish, query, search, get.
//!
//! The `///` docs on argument fields become the JSON Schema descriptions that agents read
//! in `tools/list`; they are written for an agent seeing the tool for the first time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::entry::{Entry, Kind};

/// Filters shared by `memory_query` and `memory_search` (all given filters must hold).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct FilterArgs {
    /// Match entries carrying ANY of these tags (case-insensitive), e.g. ["auth", "database"].
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Only entries of this kind.
    #[serde(default)]
    pub kind: Option<Kind>,
    /// Only entries from this room. A glob is allowed (`room-0*`, `room-{1,2}`); `*` means
    /// every room including your own.
    #[serde(default)]
    pub room_id: Option<String>,
    /// Leave out entries from this room (glob allowed). Defaults to your own room
    /// (WARROOM_ROOM_ID) unless you pass `room_id` or `exclude_room` yourself.
    #[serde(default)]
    pub exclude_room: Option<String>,
    /// Only entries written by this role (architect, engineer, qa, manager, …).
    #[serde(default)]
    pub author_role: Option<String>,
    /// Only entries about this epic/task ref, e.g. "EPIC-007".
    #[serde(default, rename = "ref")]
    pub ref_: Option<String>,
    /// Only entries at or after this time: RFC 3339 (2026-11-25T10:00:00Z), a date
    /// (2026-11-25), or an age such as "24h" or "7d".
    #[serde(default)]
    pub since: Option<String>,
    /// Only entries at or before this time (same formats as `since`).
    #[serde(default)]
    pub until: Option<String>,
}

/// Arguments of `memory_publish`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct PublishArgs {
    /// What this entry records: artifact (something built and where), decision (a choice
    /// and why), interface (a contract others code against), convention (a team rule),
    /// warning (a trap to avoid), code (a snippet or command to reuse).
    pub kind: Kind,
    /// The fact itself, written so an agent in another room can act on it without asking
    /// you. At most 4096 bytes; put the long explanation in `detail`.
    pub summary: String,
    /// Topic tags others will filter on, e.g. ["auth", "database"]. Lower-cased on write.
    /// At most 32 tags of 64 bytes.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Your room. Defaults to this server's WARROOM_ROOM_ID. Letters, digits, `-`, `_`, `.`.
    #[serde(default)]
    pub room_id: Option<String>,
    /// Your role (architect, engineer, qa, manager, …). Defaults to WARROOM_ROLE.
    #[serde(default)]
    pub author_role: Option<String>,
    /// The epic or task this is about, e.g. "EPIC-007".
    #[serde(default, rename = "ref")]
    pub ref_: Option<String>,
    /// Longer explanation: alternatives weighed, numbers, links. At most 16384 bytes.
    #[serde(default)]
    pub detail: Option<String>,
    /// Id of a live entry this one replaces (e.g. a decision that changed). The old entry
    /// disappears from every view but stays in the ledger for audit.
    #[serde(default)]
    pub supersedes: Option<String>,
}

/// Arguments of `memory_query`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct QueryArgs {
    /// Filters (all optional).
    #[serde(flatten)]
    pub filter: FilterArgs,
    /// Return only the newest N matching entries (1–50). Without it, up to 50 are returned
    /// and `truncated` says whether there were more.
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub last_n: Option<u32>,
}

/// Arguments of `memory_search`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to search for in summaries and tags, e.g. "password hashing library".
    /// Ranking: BM25 relevance × time decay by kind (conventions fade slowest, code fastest).
    pub text: String,
    /// How many hits to return (1–50, default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub max_results: Option<u32>,
    /// Filters (all optional).
    #[serde(flatten)]
    pub filter: FilterArgs,
}

/// Arguments of `memory_get`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetArgs {
    /// The entry id, e.g. "mem-01JDZ…" (superseded entries can be fetched too).
    pub id: String,
}

/// Result of `memory_publish`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PublishOutput {
    /// The stored entry, with its id and timestamp.
    pub entry: Entry,
    /// Kinds of secrets found and redacted before writing (empty when none).
    pub redacted: Vec<String>,
}

/// Result of `memory_query` and of the `log` command.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct QueryOutput {
    /// Matching entries, newest first.
    pub entries: Vec<Entry>,
    /// How many entries matched in all.
    pub total: usize,
    /// True if more entries matched than were returned.
    pub truncated: bool,
    /// The room left out by default (your own), if any.
    pub excluded_room: Option<String>,
}

/// One search hit.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SearchHitOut {
    /// The entry.
    pub entry: Entry,
    /// Final score: `bm25 × time_factor`.
    pub score: f64,
    /// Relevance (BM25F over summary, tags, detail, ref; the seed ranking: BM25 of summary + tags).
    pub bm25: f64,
    /// Time decay: exp(−ln2 × age_hours / half_life_hours(kind)).
    pub decay: f64,
    /// What relevance is multiplied by: floor + (1 − floor) × decay by default; the seed: decay.
    pub time_factor: f64,
    /// Age of the entry in hours at the server's now.
    pub age_hours: f64,
}

/// Result of `memory_search`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SearchOutput {
    /// Hits, best first (ties: newer first).
    pub hits: Vec<SearchHitOut>,
    /// How many entries matched in all.
    pub total: usize,
    /// True if more entries matched than were returned.
    pub truncated: bool,
    /// The query as indexed: lower-cased, stop words removed, stemmed.
    pub terms: Vec<String>,
    /// The server's now used for decay (RFC 3339).
    pub now: String,
    /// The room left out by default (your own), if any.
    pub excluded_room: Option<String>,
}

/// How one hit's score is made (`search --explain`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SearchExplanation {
    /// The entry id.
    pub id: String,
    /// BM25F share of each field: summary, tags, detail, ref (they add up to the relevance).
    pub fields: [f64; 4],
    /// The seed's BM25 over summary + tags.
    pub seed_bm25: f64,
    /// The seed's score: `seed_bm25 × decay`.
    pub seed_score: f64,
}

/// Result of `memory_get`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct GetOutput {
    /// The entry.
    pub entry: Entry,
    /// False if a later entry superseded it.
    pub live: bool,
    /// Older entries this one replaced, nearest first (what it superseded, and so on).
    pub replaced: Vec<Entry>,
    /// Newer entries that replaced it, nearest first (its superseder, and so on).
    pub replaced_by: Vec<Entry>,
    /// Line number of the entry in the ledger file.
    pub line: u64,
}
