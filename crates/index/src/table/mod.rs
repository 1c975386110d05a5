//! The entry table: every entry's fields as the index keeps them — the entry and its
//! validation, the packed per-entry columns ([`rows`]), interned names ([`interner`],
//! [`strings`]), the stored summaries and details ([`stored_text`]), time order
//! ([`chrono`]), the index as it was at a ledger position ([`horizon`]), and the brief's
//! per-slot filing ([`slot_order`]).

pub(crate) mod chrono;
pub mod entry;
pub(crate) mod horizon;
pub(crate) mod interner;
pub(crate) mod rows;
pub(crate) mod slot_order;
pub(crate) mod stored_text;
pub(crate) mod strings;
pub mod validate;
