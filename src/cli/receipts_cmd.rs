//! `receipts`: the context receipts — one per brief served — newest last, filtered by the
//! briefed room and time. Replay one with `context --replay ID`.

use clap::Args;

use super::Ctx;
use super::out::{Outcome, emit};

/// Options of `receipts`.
#[derive(Debug, Args)]
pub struct ReceiptsCmd {
    /// Only briefs of this room.
    #[arg(long, value_name = "ROOM")]
    room: Option<String>,
    /// Only briefs served at or after this time (RFC 3339, date, or age like 24h).
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
    /// At most the newest N (default 100).
    #[arg(long = "last", value_name = "N", default_value_t = 100)]
    last: usize,
}

impl ReceiptsCmd {
    pub(super) fn run(self, ctx: &Ctx) -> anyhow::Result<Outcome> {
        let since = match &self.since {
            Some(t) => Some(crate::clock::parse_time_arg(t, ctx.memory.now())?),
            None => None,
        };
        let mut list = ctx
            .memory
            .receipts_newest(self.room.as_deref(), since, self.last)?;
        list.reverse();
        emit(ctx.json, &list, |l| crate::render_audit::receipts(l));
        Ok(if list.is_empty() {
            Outcome::NothingFound
        } else {
            Outcome::Ok
        })
    }
}
