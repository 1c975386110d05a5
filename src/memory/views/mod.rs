//! What people read (the console's pages), each view owning the state it keeps between
//! requests: browsing the timeline, an entry and a room ([`browse`]), the auditor's
//! verification kept and continued ([`audit`]), and the whole-ledger overlap pass's pairs
//! ([`overlaps`]). Agents' operations are elsewhere in [`crate::memory`].

pub(super) mod audit;
pub(super) mod browse;
pub(super) mod overlaps;

/// What the views keep between requests, owned here and held by `Memory` as one field.
#[derive(Default)]
pub(super) struct ViewsState {
    /// The audit page's verification, continued from view to view
    /// ([`crate::memory::Memory::audit_view`]).
    pub(super) verified: std::sync::Mutex<Option<audit::Verified>>,
    /// Set while a background full pass runs.
    pub(super) full_pass_running: std::sync::atomic::AtomicBool,
    /// The console's open overlaps, kept between views.
    pub(super) overlaps: overlaps::Keeper,
}
