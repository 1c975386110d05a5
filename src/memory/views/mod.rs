//! What people read (the console's pages), each view owning the state it keeps between
//! requests: browsing the timeline, an entry and a room ([`browse`]), the auditor's
//! verification kept and continued ([`audit`]), and the whole-ledger overlap pass's pairs
//! ([`overlaps`]). Agents' operations are elsewhere in [`crate::memory`].

pub(super) mod audit;
pub(super) mod browse;
pub(super) mod overlaps;
