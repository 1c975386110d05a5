//! Open overlaps (docs/overlaps.md): pairs of live entries of *different* rooms about the
//! same subject, where neither supersedes the other — two rooms that decided (defined,
//! agreed, warned) the same thing, maybe differently, and have not reconciled yet.
//!
//! A pair is found with the evidence of [`super::overlaps`] (same ref, shared identifier,
//! enough shared words; never shared words alone), looked up from each live entry of a
//! compared kind in the scope. A pair closes when one side supersedes the other (or is
//! superseded by a third entry: it is no longer live), or when one side names the other's
//! id in its summary or detail ("agrees with mem-…"): the rooms have seen each other — an
//! agreeing entry is still about the same subject, and only its author can say it agrees.
//!
//! Three readers: the brief ([`among`]: the newest [`BRIEF_ENTRIES`] entries of the room,
//! its upstream and its sibling rooms compared pairwise — no search, pure given the index,
//! so a receipt's replay finds the same), the console's `/overlaps` page and the
//! `overlaps` command ([`pass`]: every live entry's strongest partners found through
//! [`super::overlap_pool`]'s inverted lists, for every room or from one room's entries,
//! the index read a round at a time; the console keeps its result between views,
//! [`super::views::overlaps`]).

use crate::api::brief::PairRef;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use super::Memory;
use super::index_rounds::Locked;
use crate::clock::Timestamp;
use crate::error::Result;
use crate::index::LedgerIndex;
use crate::overlap::rounds::{Basis, Rounds};
use crate::overlap::{Features, comparable, judge, strength};

/// Entries of the brief's rooms looked up for its "Open overlaps" section (newest first).
pub const BRIEF_ENTRIES: usize = 32;
/// Pairs the brief shows.
pub const BRIEF_PAIRS: usize = 3;

/// One side of an open overlap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OverlapSide {
    /// The entry's id.
    pub id: String,
    /// Its room.
    pub room_id: String,
    /// Its author's role.
    pub author_role: String,
    /// Its kind.
    pub kind: String,
    /// Its summary.
    pub summary: String,
    /// When it was published (RFC 3339).
    pub ts: String,
}

/// Two live entries of different rooms about the same subject, neither superseding the
/// other: `a` the older, `b` the newer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Overlap {
    /// The older entry.
    pub a: OverlapSide,
    /// The newer entry.
    pub b: OverlapSide,
    /// Why they are about the same subject (same ref, identifiers, words: open overlaps
    /// use the lexical evidence only, docs/overlaps.md).
    pub why: Vec<String>,
}

impl From<&Overlap> for PairRef {
    fn from(o: &Overlap) -> PairRef {
        PairRef {
            a: (o.a.id.clone(), o.a.room_id.clone()),
            b: (o.b.id.clone(), o.b.room_id.clone()),
            why: o.why.clone(),
        }
    }
}

/// Open overlaps found, and how much was looked at.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Best first (strongest evidence, then newest).
    pub pairs: Vec<Overlap>,
    /// Live entries of compared kinds looked up.
    pub examined: usize,
    /// True if `limit` stopped the look-up before every entry in scope was examined.
    pub truncated: bool,
    /// Open pairs found: `pairs` holds the strongest of them, as many as asked for.
    pub open: usize,
}

fn side(ix: &LedgerIndex, pos: u32) -> Result<OverlapSide> {
    let e = ix.entry(pos)?;
    Ok(OverlapSide {
        id: e.id.clone(),
        room_id: e.room_id.clone(),
        author_role: e.author_role.clone(),
        kind: e.kind.as_str().to_string(),
        summary: e.summary.clone(),
        ts: Timestamp(ix.meta(pos).ts).to_rfc3339(),
    })
}

/// The newest `limit` live entries of compared kinds of `rooms`, newest first (file
/// order); `found` learns how many and whether `limit` cut the list. `at`: as the index
/// was at that horizon (a receipt's replay), else now. Read from the rooms' cells, merged
/// from their ends: the walk is bounded by the rooms' own entries, never by the ledger's.
fn scope(
    ix: &LedgerIndex,
    rooms: &[String],
    limit: usize,
    found: &mut Found,
    at: Option<u32>,
    sight: &crate::index::Sight,
) -> Vec<u32> {
    let end = at.unwrap_or(ix.len() as u32);
    let syms: Vec<u32> = rooms.iter().filter_map(|r| ix.rooms.get(r)).collect();
    // Each compared kind's positions of each cell of the rooms, up to the horizon.
    let mut lists: Vec<&[u32]> = Vec::new();
    for cell in ix.cells().iter().filter(|c| syms.contains(&c.room)) {
        for kind in crate::entry::Kind::ALL {
            if comparable(kind).is_empty() {
                continue;
            }
            let ps = &cell.positions[kind.index()][..];
            let ps = &ps[..ps.partition_point(|&p| p < end)];
            if !ps.is_empty() {
                lists.push(ps);
            }
        }
    }
    // Newest first across the lists: a max-heap of each list's last position not taken.
    let mut heads: std::collections::BinaryHeap<(u32, usize)> = lists
        .iter()
        .enumerate()
        .map(|(i, ps)| (ps[ps.len() - 1], i))
        .collect();
    let mut left: Vec<usize> = lists.iter().map(|ps| ps.len() - 1).collect();
    let mut todo: Vec<u32> = Vec::new();
    while let Some((pos, i)) = heads.pop() {
        if left[i] > 0 {
            left[i] -= 1;
            heads.push((lists[i][left[i]], i));
        }
        let live = at.map_or(ix.meta(pos).live, |h| ix.live_at(pos, h));
        if !live || !sight.sees(ix, pos) {
            continue;
        }
        if todo.len() >= limit {
            found.truncated = true;
            break;
        }
        todo.push(pos);
    }
    found.examined = todo.len();
    todo
}

/// Entries a whole-ledger pass gives each thread at least (fewer: one thread).
const PER_THREAD: usize = 2_000;
/// Pairs built at once when they are streamed ([`streamed`]): a whole-ledger listing at
/// 1M entries is ~2M pairs, each carrying both summaries.
const STREAM_BATCH: usize = 16_384;
/// Entries whose details one round reads (whether one side names the other).
const DETAILS_ROUND: usize = 2048;

/// A whole-ledger pass's open pairs, found and ordered, not yet built.
pub(crate) struct Pass {
    pool: crate::overlap::partners::Pool,
    /// (older, newer, strength), strongest first, then the newest pair.
    pairs: Vec<(usize, usize, f64)>,
    /// The ledger the pass was computed on (as of its length then).
    pub(crate) basis: Basis,
    cores: usize,
}

/// Every entry of a compared kind live when the pass began is looked up
/// ([`super::overlap_pool`]: its strongest older partners, from its rarest keys), adding
/// one to `done` per entry (a progress line reads it); the pairs with a side in `from`
/// (rooms; `None` = every room) that neither side has named, strongest first. The index
/// is read in rounds ([`Rounds`]); the pairs are those of the ledger as it was when the
/// pass began, on any number of threads.
pub(crate) fn pass(
    rd: &dyn Rounds,
    from: Option<&[String]>,
    done: &AtomicUsize,
    keep: bool,
) -> Result<Pass> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut basis = None;
    rd.round(&mut |ix| {
        basis = Some(Basis::of(ix));
        Ok(())
    })?;
    let basis = basis.expect("set by the round");
    let pool = crate::overlap::partners::Pool::build(rd, &basis, cores, keep)?;
    // Newest first, as `scope` orders them.
    let todo: Vec<usize> = (0..pool.len()).rev().collect();
    let threads = cores.min(todo.len() / PER_THREAD).max(1);
    let look = |mine: Vec<usize>| -> Vec<(usize, usize, f64)> {
        let mut scratch = crate::overlap::partners::Scratch::new(&pool);
        let mut pairs = Vec::new();
        for i in mine {
            done.fetch_add(1, Ordering::Relaxed);
            // Partners are older: (older, newer).
            pairs.extend(
                pool.partners(i, &mut scratch)
                    .into_iter()
                    .map(|(j, s)| (j, i, s)),
            );
        }
        pairs
    };
    // Interleaved shares keep the threads' old and new entries alike.
    let shares: Vec<Vec<usize>> = (0..threads)
        .map(|t| todo.iter().copied().skip(t).step_by(threads).collect())
        .collect();
    let mut pairs: Vec<(usize, usize, f64)> = crate::par::each(shares, "overlaps", look)
        .into_iter()
        .flatten()
        .collect();
    // Each pair is found once, from its newer side; a room's are those it is part of.
    if let Some(rs) = from {
        let mut in_from: HashMap<u32, bool> = HashMap::new();
        rd.round(&mut |ix| {
            basis.check(ix)?;
            pairs.retain(|&(a, b, _)| {
                [a, b].into_iter().any(|i| {
                    *in_from.entry(pool.room(i)).or_insert_with(|| {
                        let name = ix.rooms.name(pool.room(i));
                        rs.iter().any(|r| r == name)
                    })
                })
            });
            Ok(())
        })?;
    }
    // One side naming the other's id (summary or detail): the rooms have seen each other.
    // Each entry of a pair is read once, in rounds, its texts dropped after its pairs
    // are checked: (entry, the other side, pair) for both sides of every pair, by entry.
    let mut sides: Vec<(u32, u32, u32)> = pairs
        .iter()
        .enumerate()
        .flat_map(|(k, &(a, b, _))| {
            [
                (a as u32, b as u32, k as u32),
                (b as u32, a as u32, k as u32),
            ]
        })
        .collect();
    sides.sort_unstable();
    let mut named = vec![false; pairs.len()];
    // Each entry's sides, DETAILS_ROUND entries a round.
    let by_entry: Vec<&[(u32, u32, u32)]> = sides.chunk_by(|x, y| x.0 == y.0).collect();
    for part in by_entry.chunks(DETAILS_ROUND) {
        let at: Vec<u32> = part.iter().map(|g| pool.pos[g[0].0 as usize]).collect();
        rd.round(&mut |ix| {
            basis.check(ix)?;
            for (group, e) in part.iter().zip(ix.entries(&at)?) {
                for &(_, other, k) in *group {
                    let id = ix.id(pool.pos[other as usize]);
                    if e.summary.contains(id) || e.detail.contains(id) {
                        named[k as usize] = true;
                    }
                }
            }
            Ok(())
        })?;
    }
    let mut k = 0;
    pairs.retain(|_| {
        k += 1;
        !named[k - 1]
    });
    // Strongest first, then the newest pair.
    pairs.sort_by(|x, y| y.2.total_cmp(&x.2).then(y.1.cmp(&x.1)).then(y.0.cmp(&x.0)));
    Ok(Pass {
        pool,
        pairs,
        basis,
        cores,
    })
}

impl Pass {
    /// Live entries of compared kinds looked up.
    pub(crate) fn examined(&self) -> usize {
        self.pool.len()
    }

    /// The pairs as ledger positions (older, newer) and their rooms' symbols, strongest
    /// first: what the console keeps between views.
    pub(crate) fn kept_pairs(&self) -> impl Iterator<Item = [u32; 4]> + '_ {
        let pool = &self.pool;
        self.pairs
            .iter()
            .map(|&(a, b, _)| [pool.pos[a], pool.pos[b], pool.room(a), pool.room(b)])
    }

    /// The pairs `part` whole: both sides and why, as the newer side would be told at its
    /// publish (words as written: the slow part of a long list, so on every core).
    fn build(&self, ix: &LedgerIndex, part: &[(usize, usize, f64)]) -> Vec<Overlap> {
        let pool = &self.pool;
        let side = |i: usize| {
            let (f, m) = (&pool.feats[i], ix.meta(pool.pos[i]));
            OverlapSide {
                id: f.id.clone(),
                room_id: ix.rooms.name(m.room).to_string(),
                author_role: ix.roles.name(m.role).to_string(),
                kind: m.kind.as_str().to_string(),
                summary: f.summary.clone(),
                ts: Timestamp(m.ts).to_rfc3339(),
            }
        };
        let write = |part: &[(usize, usize, f64)]| -> Vec<Overlap> {
            part.iter()
                .map(|&(older, newer, _)| Overlap {
                    a: side(older),
                    b: side(newer),
                    why: judge(ix, &pool.feats[newer], &pool.feats[older], None)
                        .map(|(_, why)| why)
                        .unwrap_or_default(),
                })
                .collect()
        };
        let per = part.len().div_ceil(self.cores).max(PER_THREAD);
        crate::par::each(part.chunks(per).collect(), "overlaps", write)
            .into_iter()
            .flatten()
            .collect()
    }
}

/// Every pair of a [`pass`] over `rd` with a side in `from`, handed to `write` as they
/// are built, a batch at a time (with how many are open and how many entries were looked
/// up), so a listing of millions of pairs is never held whole. The index is held for the
/// listing (the `overlaps` command's own process).
pub fn streamed<T>(
    rd: &dyn Rounds,
    from: Option<&[String]>,
    done: &AtomicUsize,
    write: impl FnOnce(usize, usize, &mut dyn Iterator<Item = Overlap>) -> T,
) -> Result<T> {
    let p = pass(rd, from, done, true)?;
    let mut write = Some(write);
    let mut out = None;
    rd.round(&mut |ix| {
        p.basis.check(ix)?;
        let mut each = p
            .pairs
            .chunks(STREAM_BATCH)
            .flat_map(|part| p.build(ix, part));
        let write = write.take().expect("one round");
        out = Some(write(p.pairs.len(), p.examined(), &mut each));
        Ok(())
    })?;
    Ok(out.expect("set by the round"))
}

/// The pairs `pairs` (ledger positions, older then newer) whole: both sides and why, as
/// the newer side would be told at its publish.
pub(crate) fn build_pairs(ix: &LedgerIndex, pairs: &[(u32, u32)]) -> Result<Vec<Overlap>> {
    let mut at: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    at.sort_unstable();
    at.dedup();
    let mut feats: HashMap<u32, Features> = HashMap::with_capacity(at.len());
    for (&p, mut e) in at.iter().zip(ix.entries(&at)?) {
        // As the pass compared them: summaries only.
        e.detail = String::new();
        feats.insert(p, Features::from_entry(ix, e));
    }
    pairs
        .iter()
        .map(|&(a, b)| {
            Ok(Overlap {
                a: side(ix, a)?,
                b: side(ix, b)?,
                why: judge(ix, &feats[&b], &feats[&a], None)
                    .map(|(_, why)| why)
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// The open overlaps among the newest `limit` live entries of compared kinds of `rooms`,
/// compared with each other pairwise — no search, so a brief pays microseconds per pair,
/// not a search per entry. Pure given the index (and the horizon `at`, for a replay).
/// Each pair is judged from its newer side.
pub fn among(
    ix: &LedgerIndex,
    rooms: &[String],
    limit: usize,
    keep: usize,
    at: Option<u32>,
    sight: &crate::index::Sight,
) -> Result<Found> {
    let mut found = Found::default();
    if rooms.len() < 2 {
        return Ok(found); // a pair needs two rooms
    }
    let todo = scope(ix, rooms, limit, &mut found, at, sight);
    let feats: Vec<Features> = ix
        .entries(&todo)?
        .into_iter()
        .map(|e| Features::from_entry(ix, e))
        .collect();
    // `todo` is newest first: for i < j, entry i is the newer.
    // Scores for every pair, why (words as written: slower) for the `keep` shown.
    let mut ranked: Vec<(usize, usize, f64)> = Vec::new();
    for i in 0..todo.len() {
        for j in i + 1..todo.len() {
            let (newer, older) = (&feats[i], &feats[j]);
            if !newer.compared_with(older) {
                continue;
            }
            // Whether one names the other (a text search) only for pairs with evidence.
            if let Some(score) = strength(newer, older)
                && !newer.names(older)
                && !older.names(newer)
            {
                ranked.push((i, j, score));
            }
        }
    }
    // Strongest first, then the newest pair (smaller indices are newer).
    ranked.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.0.cmp(&y.0)).then(x.1.cmp(&y.1)));
    found.open = ranked.len();
    for &(i, j, _) in &ranked {
        if found.pairs.len() >= keep {
            break;
        }
        // `strength` compares hashes; `judge` the words (a hash collision is skipped).
        let Some((_, why)) = judge(ix, &feats[i], &feats[j], None) else {
            continue;
        };
        found.pairs.push(Overlap {
            a: side(ix, todo[j])?,
            b: side(ix, todo[i])?,
            why,
        });
    }
    Ok(found)
}

/// The brief's "Open overlaps" section for `pairs` (empty when there are none).
pub fn brief_section(pairs: &[Overlap]) -> String {
    use std::fmt::Write;
    if pairs.is_empty() {
        return String::new();
    }
    let clip =
        |s: &str| crate::text::clip(&s.split_whitespace().collect::<Vec<_>>().join(" "), 160);
    let mut s = String::from(
        "## Open overlaps (same subject, different rooms: reconcile before building on either)\n\n",
    );
    for p in pairs {
        let _ = writeln!(
            s,
            "- {} `{}`: {}\n  vs {} `{}`: {}\n  _why: {}_",
            p.a.room_id,
            p.a.id,
            clip(&p.a.summary),
            p.b.room_id,
            p.b.id,
            clip(&p.b.summary),
            clip(&p.why.join("; "))
        );
    }
    s.push('\n');
    s
}

impl Memory {
    /// Every open pair of the whole ledger, or those with a side in `room`, handed to
    /// `write` as they are built (with how many are open and how many entries were looked
    /// up; `done` counts the entries looked up, of at most [`Memory::comparable_live`]):
    /// the `overlaps` command's listing, never held whole.
    pub fn open_overlaps_streamed<T>(
        &self,
        room: Option<&str>,
        done: &AtomicUsize,
        write: impl FnOnce(usize, usize, &mut dyn Iterator<Item = Overlap>) -> T,
    ) -> Result<T> {
        if let Some(r) = room {
            crate::validate::path_component("room", r)?;
        }
        let rooms = room.map(|r| vec![r.to_string()]);
        streamed(&Locked(self), rooms.as_deref(), done, write)
    }

    /// Live entries of the kinds overlaps compare (a progress line's total).
    pub fn comparable_live(&self) -> Result<usize> {
        let state = self.fresh_read()?;
        let ix = state.ledger.index();
        Ok((0..ix.len() as u32)
            .filter(|&p| {
                let m = ix.meta(p);
                m.live && !comparable(m.kind).is_empty()
            })
            .count())
    }
}

#[cfg(test)]
mod scope_tests {
    use proptest::prelude::*;

    use super::{Found, scope};
    use crate::brief::candidates::tests::{build, specs};
    use crate::index::{LedgerIndex, Sight, Viewer};
    use crate::overlap::comparable;

    /// The reference: every position newest first, the first `limit` that are live (at
    /// the horizon), of a compared kind, of the rooms, seen.
    fn by_scan(
        ix: &LedgerIndex,
        rooms: &[String],
        limit: usize,
        at: Option<u32>,
        sight: &Sight,
    ) -> (Vec<u32>, bool) {
        let mut out = Vec::new();
        for pos in (0..at.unwrap_or(ix.len() as u32)).rev() {
            let m = ix.meta(pos);
            let live = at.map_or(m.live, |h| ix.live_at(pos, h));
            if !live
                || comparable(m.kind).is_empty()
                || !rooms.iter().any(|r| r == ix.room_of(pos))
                || !sight.sees(ix, pos)
            {
                continue;
            }
            if out.len() >= limit {
                return (out, true);
            }
            out.push(pos);
        }
        (out, false)
    }

    proptest! {
        #[test]
        fn the_rooms_cells_give_the_scan_s_entries(
            specs in specs(),
            rooms in prop::collection::vec(0u8..6, 0..4),
            viewer in 0u8..6,
            limit in 0usize..40,
            cut in 0usize..200,
        ) {
            let ix = build(&specs);
            let rooms: Vec<String> = rooms.iter().map(|r| format!("room-{r}")).collect();
            let viewer = Viewer { room: format!("room-{viewer}"), upstream: vec![rooms.first().cloned().unwrap_or_default()] };
            let at = (cut < ix.len()).then_some(cut as u32);
            let sight = Sight::new(&ix, Some(&viewer), at.is_some());
            let mut found = Found::default();
            let got = scope(&ix, &rooms, limit, &mut found, at, &sight);
            let (want, truncated) = by_scan(&ix, &rooms, limit, at, &sight);
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(found.truncated, truncated);
            prop_assert_eq!(found.examined, want.len());
        }
    }
}
