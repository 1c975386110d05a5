//! The index read a round at a time: what a whole-ledger pass (open overlaps) reads
//! through, so that the state's lock is held for one round — a batch of a few thousand
//! entries — and never for the pass. A daemon's publish waits for one round at most (it
//! waited for the whole pass: 0.5 s at 100k entries, ~20 s at 1M, measured through the
//! console's `/overlaps`).
//!
//! Between rounds the ledger may grow; the pass is computed *as of* the ledger's length
//! when it began ([`Basis`]): positions never change in an append-only ledger, entries
//! after it are not looked at and liveness is taken at that horizon
//! ([`LedgerIndex::live_at`]). If the index was rebuilt from a ledger that is not an
//! extension of the one the pass began on (a file replaced), a round says so and the pass
//! stops with an error instead of mixing two ledgers.

use crate::error::{Error, Result};
use crate::index::LedgerIndex;

/// Where a pass reads the index: each call of `round` gives `f` the index as it is then.
pub(crate) trait Rounds {
    /// Runs `f` on the index, the lock held for the call only.
    fn round(&self, f: &mut dyn FnMut(&LedgerIndex) -> Result<()>) -> Result<()>;
}

/// An index on its own (tests, benchmarks): every round reads it.
impl Rounds for LedgerIndex {
    fn round(&self, f: &mut dyn FnMut(&LedgerIndex) -> Result<()>) -> Result<()> {
        f(self)
    }
}

/// The ledger a pass began on: its length then and the id of its last entry (ids are
/// unique, so an index whose entry at that position has the same id extends the same
/// ledger).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Basis {
    /// Entries when the pass began: its horizon.
    pub h: u32,
    last: Option<String>,
}

impl Basis {
    /// The basis of the index as it is.
    pub(crate) fn of(ix: &LedgerIndex) -> Basis {
        let h = ix.len() as u32;
        Basis {
            h,
            last: h.checked_sub(1).map(|p| ix.id(p).to_string()),
        }
    }

    /// True if `ix` extends the ledger this basis was taken on.
    pub(crate) fn holds(&self, ix: &LedgerIndex) -> bool {
        ix.len() >= self.h as usize
            && self
                .h
                .checked_sub(1)
                .is_none_or(|p| self.last.as_deref() == Some(ix.id(p)))
    }

    /// [`Basis::holds`], or the error that stops a pass.
    pub(crate) fn check(&self, ix: &LedgerIndex) -> Result<()> {
        if self.holds(ix) {
            return Ok(());
        }
        Err(Error::Conflict(format!(
            "the ledger was replaced while a pass over its first {} entries ran (the entry \
             at that position is no longer the same); run it again",
            self.h
        )))
    }
}
