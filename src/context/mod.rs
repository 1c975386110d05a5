//! Predecessor context: the short brief a war-room manager reads before the first task.
//!
//! A brief served now is a selection ([`select`], docs/brief.md) from a pool of each
//! (room, plan, kind)'s best candidates ([`pool`]); the groups below decide who is
//! eligible, and order a receipt's brief written before selections ([`rank`]).
//!
//! Candidates are the live entries of every room but the asking one. They are ranked in
//! groups, so that the DAG decides *what* is preferred and the search score decides the
//! order within a group:
//!
//! 0. entries from upstream rooms that match the brief keywords — `relevance / distance`
//! 1. other entries from upstream rooms — `decay / distance` (recency × proximity)
//! 2. conventions, warnings and interfaces from any other room that match — `relevance`
//! 3. other conventions, warnings and interfaces — `decay`
//! 4. decisions, artifacts and code from unrelated rooms that match the keywords —
//!    `relevance` (without keywords these are not eligible: unrelated and unranked)
//!
//! `relevance` is the search score under the configured [`crate::index::Ranking`] (by default BM25F ×
//! the bounded time factor), so context and search agree on what matches best.
//!
//! Ties go to the newer entry, then to the later line. [`render`] then collapses duplicate
//! facts and lays the markdown out within the entry and byte limits.
//!
//! [`rank`] does not scan the ledger: the keyword matches come from the postings, the
//! newest non-matching entries of each (room, plan, kind) from the index's cells, and the
//! counts from its live counts (module `rank`).

pub mod pool;
pub mod rank;
pub mod render;
pub mod select;

pub use rank::{Candidate, Ranked, Scope, rank};
