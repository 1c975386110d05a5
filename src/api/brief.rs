//! Arguments and result of `memory_get_context`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Arguments of `memory_get_context`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct BriefArgs {
    /// Room to brief. Default: yours.
    #[serde(default)]
    pub room_id: Option<String>,
    /// Rank by these (default: the epic's plan keywords; []: recency, DAG distance).
    #[serde(default)]
    pub brief_keywords: Option<Vec<String>>,
    /// 1–15, default 15.
    #[serde(default)]
    #[schemars(range(min = 1, max = 15))]
    pub max_entries: Option<u32>,
    /// The room's plan if it is in several (default: the newest).
    #[serde(default)]
    pub plan_id: Option<String>,
}

/// An upstream epic of the briefed room.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct UpstreamOut {
    /// Plan of the epic.
    pub plan_id: String,
    /// Epic ref.
    #[serde(rename = "ref")]
    pub ref_: String,
    /// Its war-room.
    pub room_id: String,
    /// 1 = direct predecessor, 2 = its predecessor, …
    pub distance: u32,
}

/// What one upstream room's share of a brief was (the brief's selection, docs/brief.md).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct RoomAccount {
    /// The upstream room.
    pub room_id: String,
    /// Its distance upstream (1 = direct).
    pub distance: u32,
    /// Its live entries (every kind and audience).
    pub live: usize,
    /// Shown in the brief.
    pub shown: usize,
    /// Of `live`: its working notes (`audience: room`), never shown to other rooms.
    #[serde(default)]
    pub working_notes: usize,
}

impl RoomAccount {
    /// Its live entries the brief's limits left out: neither shown nor working notes.
    pub fn left_out(&self) -> usize {
        self.live.saturating_sub(self.shown + self.working_notes)
    }

    /// The account as one line: `room-001 (2 up): 7 of 9 live entries shown, 1 working
    /// note kept in its room, 1 left out` (`context --explain`, `context --replay`).
    pub fn line(&self) -> String {
        let notes = match self.working_notes {
            0 => String::new(),
            1 => ", 1 working note kept in its room".to_string(),
            n => format!(", {n} working notes kept in its room"),
        };
        format!(
            "{} ({} up): {} of {} live entries shown{notes}, {} left out",
            self.room_id,
            self.distance,
            self.shown,
            self.live,
            self.left_out()
        )
    }
}

/// Why one entry is in a brief.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct IncludedOut {
    /// The entry.
    pub id: String,
    /// Its room.
    pub room_id: String,
    /// upstream-match, upstream, project-wide-match, project-wide, or unrelated-match.
    pub reason: String,
    /// Its room's distance upstream (1 = direct predecessor), if upstream.
    pub distance: Option<u32>,
    /// The brief keywords it matched.
    pub matched: Vec<String>,
    /// Its rank score within its group.
    pub score: f64,
    /// Relevance to the keywords (0: none).
    pub relevance: f64,
    /// The time factor applied.
    pub time_factor: f64,
    /// With semantic ranking: the cosine of its vector and the keywords' (its relevance
    /// is then the fusion of this and its BM25F).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f64>,
}

/// What a brief left out, counted by reason.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct OmittedOut {
    /// Eligible, but past the entry limit.
    pub entry_limit: usize,
    /// Eligible, but did not fit the byte limit.
    pub byte_limit: usize,
    /// Other rooms' decisions, artifacts and code matching no keyword.
    pub not_eligible: usize,
    /// Superseded entries of other rooms.
    pub superseded: usize,
    /// Copies of a fact collapsed into one item.
    pub duplicates: usize,
    /// The briefed room's own live entries.
    pub own_room: usize,
    /// Other rooms' entries their audience keeps from this room (working notes). Left
    /// out of the tool's output schema for tools/list's byte budget, as `accounts`.
    #[serde(default)]
    #[schemars(skip)]
    pub kept_by_audience: usize,
}

/// Result of `memory_get_context`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BriefOutput {
    /// The brief, grouped by kind; each item gives kind, ref, room, role, date and id.
    /// Exactly "No cross-room context available yet." when there is nothing.
    pub markdown: String,
    /// Ids of the entries included, best first.
    pub entry_ids: Vec<String>,
    /// Size of `markdown` in bytes (≤ 10240).
    pub bytes: usize,
    /// True if candidates were left out for the entry or byte limit.
    pub truncated: bool,
    /// Eligible candidates (duplicates included).
    pub candidates: usize,
    /// Entries of other rooms not shown: candidates neither shown nor collapsed into a
    /// shown duplicate, plus those the rules excluded (unrelated rooms' decisions,
    /// artifacts and code that match no keyword).
    pub left_out: usize,
    /// Duplicates collapsed into a shown entry.
    pub duplicates_collapsed: usize,
    /// The briefed room.
    pub room_id: String,
    /// Its plan, if the room's epic is known.
    pub plan_id: Option<String>,
    /// Its epic ref, if known.
    pub epic_ref: Option<String>,
    /// The keywords that ranked the entries.
    pub brief_keywords: Vec<String>,
    /// The epic's title, searched with the keywords: an entry that names the room's epic
    /// is addressed to it. Left out of the tool's output schema for tools/list's byte
    /// budget; the markdown's header says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub epic_title: Option<String>,
    /// The epic's own words — objective, description, Definition of Done, Acceptance
    /// Criteria — searched with the keywords and title (left out of the output schema,
    /// as the title).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub epic_words: Option<String>,
    /// Upstream epics, nearest first.
    pub upstream: Vec<UpstreamOut>,
    /// Ids of the predecessor `done` messages included.
    pub predecessor_outputs: Vec<String>,
    /// Each included entry and why, in rank order.
    pub included: Vec<IncludedOut>,
    /// What was left out, by reason.
    pub omitted: OmittedOut,
    /// Rooms beside this one in its plan (neither upstream nor downstream), whose open
    /// overlaps with this room and its upstream the brief shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub siblings: Option<Vec<String>>,
    /// Open overlaps shown ("Open overlaps" section): two live entries of different rooms
    /// among this room, its upstream and its siblings, about the same subject, neither
    /// superseding the other — with why. Reconcile them in the channel or by superseding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlaps: Option<Vec<PairRef>>,
    /// Per upstream room: live, eligible and shown entries (fetch the rest with
    /// memory_query room_id=ROOM). Left out of the tool's output schema for tools/list's
    /// byte budget; the markdown's last line says the same.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(skip)]
    pub accounts: Vec<RoomAccount>,
    /// The id of this brief's receipt (`warroom-memory context --replay ID`).
    pub receipt: Option<String>,
}

/// An open overlap as a brief and its receipt record it: the two ids and rooms and why
/// (the summaries are in the brief's markdown).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct PairRef {
    /// The older entry's id and room.
    pub a: (String, String),
    /// The newer entry's id and room.
    pub b: (String, String),
    /// Why they are about the same subject.
    pub why: Vec<String>,
}
