//! The console's `/overlaps`: the whole-ledger pass's pairs kept between views.
//!
//! A pass over every live entry takes 0.7 s at 100k entries and ~20 s at 1M; the page ran
//! one per view. Now a pass's pairs are kept as ledger positions (16 bytes a pair, ~30 MB
//! at 1M entries), and a view filters them — by room, and leaving out every pair a newer
//! entry closed by superseding a side — and builds only the pairs it shows from the
//! index. A view of a ledger that grew since the pass says so; the console then starts a
//! pass (one at a time, and at most once per [`PACE`] times the last one's length) and
//! waits a bounded time for it before showing the kept pairs.
//!
//! What a kept view can miss: pairs with a side among the entries appended since its pass
//! (found by the next pass). What it cannot show wrongly: a closed pair (supersedes are
//! read from the newer entries at every view), or pairs of another ledger (a view checks
//! that the ledger still extends the one the pass read, [`Basis`]).
//!
//! Nothing here writes: the pairs live in this process's memory only.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::clock::Timestamp;
use crate::error::{Error, Result};
use crate::index::LedgerIndex;
use crate::memory::Memory;
use crate::memory::index_rounds::Locked;
use crate::memory::open_overlaps::{Found, build_pairs, pass};
use crate::overlap::rounds::Basis;

/// A pass's pairs, kept.
struct Kept {
    basis: Basis,
    /// (older, newer) ledger positions and their rooms' symbols, strongest first.
    pairs: Vec<[u32; 4]>,
    /// Live entries of compared kinds the pass looked up.
    examined: usize,
    /// When the pass finished.
    at: Timestamp,
    /// How long it took, seconds (by the memory's clock).
    took: i64,
}

/// A view's pass runs at most once per this many times the last pass's length: a pass
/// over a ledger of millions takes both cores for seconds, and a live ledger changes
/// every few seconds.
pub const PACE: i64 = 10;

/// When the pass after one that finished at `at` and took `took` seconds may start.
fn next_pass(at: Timestamp, took: i64) -> Timestamp {
    Timestamp(at.0.saturating_add(took.saturating_mul(PACE)))
}

/// The kept pairs and the pass behind them ([`Memory::overlaps_refresh`]).
#[derive(Default)]
pub(crate) struct Keeper {
    kept: Mutex<Option<Arc<Kept>>>,
    /// Held while a pass runs: callers at the same moment wait for one pass.
    pass: Mutex<()>,
    /// Set while a pass runs.
    running: AtomicBool,
}

impl Keeper {
    /// The kept pass, if any (the lock held for the clone of an `Arc` only).
    fn kept(&self) -> Option<Arc<Kept>> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// What `/overlaps` shows: the open pairs as of the last pass, and how current that is.
#[derive(Debug, Clone)]
pub struct OverlapsView {
    /// The pairs still open (the strongest of them whole) among those the pass found.
    pub found: Found,
    /// Entries the pass looked at: the ledger's first `as_of`.
    pub as_of: usize,
    /// Entries in the ledger now.
    pub entries: usize,
    /// When the pass finished.
    pub computed_at: Timestamp,
    /// Now.
    pub at: Timestamp,
    /// Whether a pass is running.
    pub running: bool,
    /// How long the pass took, seconds.
    pub took: i64,
    /// When a view may start the next pass ([`PACE`] times the last one's length after it).
    pub next_pass: Timestamp,
}

impl OverlapsView {
    /// True if the pass looked at every entry there is.
    pub fn current(&self) -> bool {
        self.as_of == self.entries
    }
}

/// Entries before `h` that an entry at `h` or later superseded: the sides of kept pairs
/// that are closed now.
fn closed_since(ix: &LedgerIndex, h: u32) -> HashSet<u32> {
    (h..ix.len() as u32)
        .filter_map(|q| ix.supersedes_of(q))
        .filter_map(|id| ix.position(id))
        .filter(|&t| t < h && !ix.meta(t).live)
        .collect()
}

impl Memory {
    /// The kept pairs as they stand now: those with a side in `room` (`None`: every
    /// room), closed pairs left out, the strongest `show` whole. `None` when no pass was
    /// kept or the ledger is no longer the one it read.
    pub fn overlaps_kept(&self, room: Option<&str>, show: usize) -> Result<Option<OverlapsView>> {
        if let Some(r) = room {
            crate::validate::path_component("room", r)?;
        }
        let kept = self.views.overlaps.kept();
        let Some(kept) = kept else {
            return Ok(None);
        };
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        if !kept.basis.holds(ix) {
            return Ok(None);
        }
        let closed = closed_since(ix, kept.basis.h);
        // A room no entry names has no pairs (no symbol matches u32::MAX).
        let only = room.map(|r| ix.rooms.get(r).unwrap_or(u32::MAX));
        let (mut open, mut shown) = (0, Vec::new());
        for &[a, b, ra, rb] in &kept.pairs {
            if only.is_some_and(|s| s != ra && s != rb)
                || closed.contains(&a)
                || closed.contains(&b)
            {
                continue;
            }
            open += 1;
            if shown.len() < show {
                shown.push((a, b));
            }
        }
        Ok(Some(OverlapsView {
            found: Found {
                pairs: build_pairs(ix, &shown)?,
                examined: kept.examined,
                truncated: false,
                open,
            },
            as_of: kept.basis.h as usize,
            entries: ix.len(),
            computed_at: kept.at,
            at: self.now(),
            running: self.views.overlaps.running.load(Ordering::Acquire),
            took: kept.took,
            next_pass: next_pass(kept.at, kept.took),
        }))
    }

    /// Runs the whole-ledger pass and keeps its pairs, unless the kept pairs are of the
    /// ledger as it is (then returns false). One pass at a time: a caller arriving during
    /// one waits for it, then finds its pairs current. The index is read in rounds, so
    /// publishes go on meanwhile.
    pub fn overlaps_refresh(&self) -> Result<bool> {
        let _one = self
            .views
            .overlaps
            .pass
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let kept = self.views.overlaps.kept();
        if let Some(k) = kept {
            let state = self.fresh_read()?;
            if k.basis == Basis::of(state.ledger.index()) {
                return Ok(false);
            }
        }
        // Cleared however the pass ends, a panic included.
        struct Running<'a>(&'a AtomicBool);
        impl Drop for Running<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Release);
            }
        }
        self.views.overlaps.running.store(true, Ordering::Release);
        let _running = Running(&self.views.overlaps.running);
        let start = self.now();
        let p = pass(&Locked(self), None, &AtomicUsize::new(0), false)?;
        let at = self.now();
        let kept = Kept {
            pairs: p.kept_pairs().collect(),
            examined: p.examined(),
            basis: p.basis.clone(),
            at,
            took: at.0.saturating_sub(start.0).max(0),
        };
        *self
            .views
            .overlaps
            .kept
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(kept));
        Ok(true)
    }

    /// [`Memory::overlaps_refresh`] when the next pass is due ([`PACE`]): what a view
    /// starts. Returns false without a pass while the kept pairs are younger than that.
    pub fn overlaps_refresh_paced(&self) -> Result<bool> {
        let kept = self.views.overlaps.kept();
        if let Some(k) = kept
            && self.now() < next_pass(k.at, k.took)
            && k.basis.holds(self.fresh_read()?.ledger.index())
        {
            return Ok(false);
        }
        self.overlaps_refresh()
    }

    /// The open overlaps of the ledger, or those with a side in `room`: a pass unless the
    /// kept pairs are current, then the kept view (as of that pass); the strongest `show`
    /// pairs whole, the rest counted.
    pub fn open_overlaps(&self, room: Option<&str>, show: usize) -> Result<Found> {
        self.overlaps_refresh()?;
        self.overlaps_kept(room, show)?
            .map(|v| v.found)
            .ok_or_else(|| {
                Error::Conflict(
                    "the ledger was replaced during the open-overlaps pass; run it again".into(),
                )
            })
    }
}
