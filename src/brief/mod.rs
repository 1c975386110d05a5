//! The brief (predecessor context): the short markdown a war-room manager reads before the
//! first task, served by the MCP tool `memory_get_context` and `warroom-memory context`
//! (docs/brief.md says what it holds and why). Read top to bottom:
//!
//! 1. `memory::brief` — the operation: the room's epic and its upstream in the DAG, the
//!    direct predecessors' latest `done` messages, then the composition (`compose`: the
//!    header, the selection, the layout, why each entry is there, the per-room account)
//!    and its receipt (`memory::receipts`).
//! 2. [`pool`] — the candidates the selection chooses from: every (room, plan, kind)'s
//!    best eligible entries, keyword matches from the postings, the rest from the cells.
//! 3. [`select`] — the budgeted selection: the rules, each one a manager can check.
//! 4. [`render`] — the markdown within 15 entries and 10,240 bytes, duplicates collapsed.
//!
//! [`candidates`] holds the candidate type, who is eligible (the groups below), and the
//! ranked order a receipt written before selections replays with:
//!
//! 0. entries from upstream rooms that match the brief keywords — `relevance / distance`
//! 1. other entries from upstream rooms — `decay / distance` (recency × proximity)
//! 2. conventions, warnings and interfaces from any other room that match — `relevance`
//! 3. other conventions, warnings and interfaces — `decay`
//! 4. decisions, artifacts and code from unrelated rooms that match the keywords —
//!    `relevance` (without keywords these are not eligible: unrelated and unranked)
//!
//! `relevance` is the search score under the configured [`crate::index::Ranking`] (by
//! default BM25F × the bounded time factor), so a brief and a search agree on what matches
//! best. Nothing here scans the ledger: matches come from the postings, the newest
//! non-matching entries of each (room, plan, kind) from the index's cells, the counts from
//! its live counts.

pub mod candidates;
pub mod pool;
pub mod render;
pub mod select;

pub use candidates::{Candidate, Ranked, Scope, rank};
