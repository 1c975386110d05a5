//! The memory's index read a round at a time by a whole-ledger pass
//! ([`crate::overlap::rounds`]): the state's read lock taken per round.

use crate::error::Result;
use crate::index::LedgerIndex;
use crate::overlap::rounds::Rounds;

/// The memory's index, its read lock taken per round (and caught up with the files first,
/// as every read is).
pub(crate) struct Locked<'a>(pub(crate) &'a super::Memory);

impl Rounds for Locked<'_> {
    fn round(&self, f: &mut dyn FnMut(&LedgerIndex) -> Result<()>) -> Result<()> {
        let state = self.0.fresh_read()?;
        f(state.ledger.index())
    }
}
