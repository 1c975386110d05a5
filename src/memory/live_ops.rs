//! What live updates need from the core: which entries are new since a cursor, which rooms
//! are upstream of a room, and the latest live entries of a set of rooms.
//!
//! Plain Rust and synchronous, like the rest of the core; the MCP edge (`mcp::live`) polls
//! and notifies.

use super::Memory;
use crate::config::Identity;
use crate::entry::Entry;
use crate::error::Result;

/// Where a poller is in the ledger: entries before `pos` were seen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    pos: usize,
    primed: bool,
}

impl Memory {
    /// The rooms of entries appended (by any process) since `cursor`, in file order, and
    /// the cursor moved past them. The first call only primes the cursor (nothing is new
    /// to a poller that just started); after a rebuild (the file was replaced or cut) the
    /// cursor restarts at the end, reporting nothing rather than the whole ledger.
    pub fn rooms_appended_since(&self, cursor: &mut Cursor) -> Result<Vec<String>> {
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        let len = ix.len();
        if !cursor.primed || len < cursor.pos {
            *cursor = Cursor {
                pos: len,
                primed: true,
            };
            return Ok(Vec::new());
        }
        let rooms = (cursor.pos..len)
            .map(|p| ix.rooms.name(ix.meta(p as u32).room).to_string())
            .collect();
        cursor.pos = len;
        Ok(rooms)
    }

    /// The rooms upstream of `room` in the plan DAG, nearest first.
    pub fn upstream_rooms(&self, room: &str) -> Result<Vec<String>> {
        let state = self.fresh_read()?;
        let dag = &state.plans.dag;
        let Some(node) = dag.node_for_room(room, None) else {
            return Ok(Vec::new());
        };
        let mut rooms: Vec<String> = Vec::new();
        for (a, _) in dag.ancestors(node) {
            let r = &dag.nodes[a].room_id;
            if r != room && !rooms.contains(r) {
                rooms.push(r.clone());
            }
        }
        Ok(rooms)
    }

    /// Every room with an entry in the ledger, sorted.
    pub fn room_names(&self) -> Result<Vec<String>> {
        let state = self.fresh_read()?;
        let mut names: Vec<String> = state
            .ledger
            .index()
            .room_names()
            .map(str::to_string)
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// The newest `n` live entries of the given rooms (all rooms if `None`), of `kind` if
    /// given, newest first, that `who` may see ([`crate::entry::may_see`]).
    pub fn recent_in_rooms(
        &self,
        rooms: Option<&[String]>,
        kind: Option<crate::entry::Kind>,
        n: usize,
        who: &Identity,
    ) -> Result<Vec<Entry>> {
        let viewer = self.viewer(who)?;
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        let sight = crate::index::Sight::new(ix, viewer.as_ref(), false);
        let mut out = Vec::new();
        for pos in (0..ix.len() as u32).rev() {
            if out.len() >= n {
                break;
            }
            let m = ix.meta(pos);
            if !m.live || kind.is_some_and(|k| k != m.kind) {
                continue;
            }
            let name = ix.rooms.name(m.room);
            if rooms.is_none_or(|rs| rs.iter().any(|r| r == name)) && sight.sees(ix, pos) {
                out.push(ix.entry(pos)?);
            }
        }
        Ok(out)
    }
}
