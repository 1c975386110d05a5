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
    /// Any of these tags.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Only this kind.
    #[serde(default)]
    pub kind: Option<Kind>,
    /// Only this room (glob ok; "*": all, yours too).
    #[serde(default)]
    pub room_id: Option<String>,
    /// Skip this room (glob ok; default: yours).
    #[serde(default)]
    pub exclude_room: Option<String>,
    /// Only this author role.
    #[serde(default)]
    pub author_role: Option<String>,
    /// Only this epic/task ref, e.g. EPIC-007.
    #[serde(default, rename = "ref")]
    pub ref_: Option<String>,
    /// From: RFC 3339, a date, or an age (24h, 7d).
    #[serde(default)]
    pub since: Option<String>,
    /// Up to (same formats).
    #[serde(default)]
    pub until: Option<String>,
}

/// Arguments of `memory_publish`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct PublishArgs {
    /// See the tool description.
    pub kind: Kind,
    /// The fact, clear to another room without asking you. ≤ 4096 bytes.
    pub summary: String,
    /// Topic tags, e.g. ["auth"]. ≤ 32.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Default: your room.
    #[serde(default)]
    pub room_id: Option<String>,
    /// Default: your role.
    #[serde(default)]
    pub author_role: Option<String>,
    /// Epic/task ref, e.g. EPIC-007.
    #[serde(default, rename = "ref")]
    pub ref_: Option<String>,
    /// Why, alternatives, numbers, links. ≤ 16384 bytes.
    #[serde(default)]
    pub detail: Option<String>,
    /// Id of the live entry this replaces.
    #[serde(default)]
    pub supersedes: Option<String>,
    /// Retry key (≤ 128 bytes): same key and content, first result.
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// room (a working note: no other brief), downstream or project; default: project for
    /// conventions, else downstream.
    #[serde(default)]
    #[schemars(schema_with = "crate::entry::audience_schema")]
    pub audience: Option<crate::entry::Audience>,
}

/// Arguments of `memory_query`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct QueryArgs {
    /// Filters (all optional).
    #[serde(flatten)]
    pub filter: FilterArgs,
    /// Newest N (1–50, default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub last_n: Option<u32>,
}

/// Arguments of `memory_search`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words or identifiers, e.g. "verifyToken".
    pub text: String,
    /// Hits (1–50, default 10).
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
    /// Entry id (superseded ones too).
    pub id: String,
}

/// Result of `memory_publish`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PublishOutput {
    /// The stored entry, with its id and timestamp.
    pub entry: Entry,
    /// Kinds of secrets found and redacted before writing (empty when none).
    pub redacted: Vec<String>,
    /// Up to 3 live entries of other rooms about the same subject (a decision, interface
    /// or convention; a warning: other warnings), each with why. Judge whether the new
    /// entry contradicts, duplicates or refines them: supersede, or reconcile in the
    /// channel. Absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
    /// Not done after the write, which is kept: do not retry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What to do about `related`, in words (for clients that show only this JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_step: Option<String>,
}

impl PublishOutput {
    /// The output for `entry` and what was found related to it.
    pub fn new(entry: Entry, related: Vec<Related>, warnings: Vec<String>) -> Self {
        let next_step = (!related.is_empty()).then(|| {
            format!(
                "Other rooms already published about this subject ({}). If yours contradicts \
                 or repeats theirs, publish again with supersedes=<their id>, or reconcile \
                 with them in the channel (channel_post).",
                related
                    .iter()
                    .map(|r| format!("{} in {}", r.id, r.room_id))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
        PublishOutput {
            redacted: entry.redacted.clone(),
            entry,
            related,
            warnings,
            next_step,
        }
    }
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
    /// Final score: `relevance × time_factor`, the relevance being `bm25` — or, with
    /// semantic ranking, `weight × lexical + (1 − weight) × semantic` ([`Self::relevance`]).
    pub score: f64,
    /// Relevance (BM25F over summary, tags, detail, ref; the seed ranking: BM25 of summary + tags).
    pub bm25: f64,
    /// Time decay: exp(−ln2 × age_hours / half_life_hours(kind)).
    pub decay: f64,
    /// What relevance is multiplied by: floor + (1 − floor) × decay by default; the seed: decay.
    pub time_factor: f64,
    /// Age of the entry in hours at the server's now.
    pub age_hours: f64,
    /// With semantic ranking: the lexical part, BM25F over the query's ideal score
    /// (capped at 1); `score = (weight × lexical + (1 − weight) × semantic) × time_factor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lexical: Option<f64>,
    /// With semantic ranking: the cosine of the query's and the entry's vectors (0 when
    /// the entry has no vector yet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f64>,
    /// With semantic ranking: the cosine above the query's baseline (about the 10th
    /// nearest candidate's cosine, [`crate::semantic::baseline`]), on 0..=1: what the
    /// fusion uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semantic: Option<f64>,
    /// With semantic ranking: the lexical part's weight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
}

impl SearchHitOut {
    /// What `time_factor` multiplies into `score`: BM25F, or with semantic ranking the
    /// fused `weight × lexical + (1 − weight) × semantic`.
    pub fn relevance(&self) -> f64 {
        match (self.lexical, self.semantic, self.weight) {
            (Some(lex), Some(sem), Some(w)) => w * lex + (1.0 - w) * sem,
            _ => self.bm25,
        }
    }
}

/// Result of `memory_search`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SearchOutput {
    /// Hits, best first (ties: newer first).
    pub hits: Vec<SearchHitOut>,
    /// How many entries matched in all — with semantic ranking, those the query's words
    /// match and those found by meaning alone; a lower bound when `total_exact` is false.
    pub total: usize,
    /// False when a large search skipped entries that could not reach the hits.
    pub total_exact: bool,
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
    /// Older entries this one replaced, nearest first (what it superseded, and so on; ≤ 20).
    pub replaced: Vec<Entry>,
    /// Further older entries in the chain, not shown.
    pub replaced_more: usize,
    /// Newer entries that replaced it, nearest first (its superseder, and so on; ≤ 20).
    pub replaced_by: Vec<Entry>,
    /// Further newer entries in the chain, not shown (`memory_get` the last one shown).
    pub replaced_by_more: usize,
    /// Line number of the entry in the ledger file.
    pub line: u64,
}

/// One related entry and why.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Related {
    /// The related entry's id.
    pub id: String,
    /// Its room.
    pub room_id: String,
    /// Its kind (decision, interface, convention, warning).
    pub kind: String,
    /// Its summary.
    pub summary: String,
    /// Why it is related: `same ref EPIC-007`, `identifiers: require_user`, `words: …`,
    /// `cosine 0.74`.
    pub why: Vec<String>,
    /// How strongly (for ordering: each part's strength summed).
    #[serde(skip)]
    #[schemars(skip)]
    pub score: f64,
}
