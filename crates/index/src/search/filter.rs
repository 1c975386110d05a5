//! Filters shared by query, search, log and context: what an entry must satisfy to be seen.
//!
//! A [`Filter`] is plain data built by the caller. [`Filter::compile`] resolves it against an
//! index once per call — names become interned symbols, room globs become a bitmap over the
//! known rooms — so that testing one entry is a handful of integer comparisons.

use std::collections::HashSet;

use globset::{Glob, GlobMatcher};

use crate::entry::Kind;
use crate::{Interner, LedgerIndex, Meta, SLOT_DEAD, Sym};
use warroom_base::clock::Timestamp;
use warroom_base::error::{Error, Result};

/// Longest room pattern accepted (bytes): room ids are at most 128 bytes.
pub const MAX_PATTERN_BYTES: usize = 256;
/// Most wildcards, classes and alternatives one pattern may use.
pub const MAX_PATTERN_SPECIALS: usize = 16;

/// Refuses patterns whose size or complexity could cost real work (globset panics on
/// ~100k `*` and takes seconds on megabyte alternations); room ids are short.
fn check_pattern_size(field: &str, text: &str) -> Result<()> {
    if text.len() > MAX_PATTERN_BYTES {
        return Err(Error::invalid(
            field,
            format!(
                "the pattern is {} bytes, over the limit of {MAX_PATTERN_BYTES}",
                text.len()
            ),
            "give a room id or a short glob such as `room-0*`",
        ));
    }
    let specials = text.matches(['*', '?', '[', '{', ',']).count();
    if specials > MAX_PATTERN_SPECIALS {
        return Err(Error::invalid(
            field,
            format!(
                "the pattern uses {specials} wildcards, classes or alternatives, over the limit of {MAX_PATTERN_SPECIALS}"
            ),
            "use a simpler glob such as `room-0*` or `room-{1,2}`",
        ));
    }
    Ok(())
}

/// A room id or a glob over room ids (`room-0*`, `room-{1,2}`).
#[derive(Clone, Debug)]
pub struct RoomPattern {
    text: String,
    matcher: Option<GlobMatcher>,
}

impl RoomPattern {
    /// Parses `text`; text without glob characters matches exactly.
    pub fn parse(field: &str, text: &str) -> Result<RoomPattern> {
        if text.trim().is_empty() {
            return Err(Error::invalid(
                field,
                "it is empty",
                "give a room id such as `room-042` or a glob such as `room-0*`, or leave it out",
            ));
        }
        check_pattern_size(field, text)?;
        let is_glob = text.contains(['*', '?', '[', '{']);
        let matcher = if is_glob {
            Some(
                Glob::new(text)
                    .map_err(|e| {
                        Error::invalid(
                            field,
                            format!("`{text}` is not a valid glob: {e}"),
                            "use `*`, `?`, `[abc]` or `{a,b}`, e.g. `room-0*`",
                        )
                    })?
                    .compile_matcher(),
            )
        } else {
            None
        };
        Ok(RoomPattern {
            text: text.to_string(),
            matcher,
        })
    }

    /// The pattern as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// True if `room` matches.
    pub fn matches(&self, room: &str) -> bool {
        match &self.matcher {
            Some(m) => m.is_match(room),
            None => self.text == room,
        }
    }
}

/// Conditions an entry must meet; all given conditions must hold (AND).
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Any-of: the entry carries at least one of these tags (already normalised).
    pub tags: Vec<String>,
    /// Only this kind.
    pub kind: Option<Kind>,
    /// Only rooms matching this pattern.
    pub room: Option<RoomPattern>,
    /// No room matching this pattern.
    pub exclude_room: Option<RoomPattern>,
    /// Only this author role.
    pub author_role: Option<String>,
    /// Only this ref.
    pub ref_: Option<String>,
    /// Only entries stamped at or after this time.
    pub since: Option<Timestamp>,
    /// Only entries stamped at or before this time.
    pub until: Option<Timestamp>,
    /// Also superseded entries (audit views); live entries only otherwise.
    pub include_superseded: bool,
    /// The room the entries are shown to, if any: its audience rule applies
    /// ([`crate::entry::may_see`]); None for an operator, who sees every entry.
    pub viewer: Option<Viewer>,
}

/// The room entries are shown to, and the rooms it is downstream of.
#[derive(Clone, Debug, Default)]
pub struct Viewer {
    /// The viewer's room.
    pub room: String,
    /// Every room upstream of it in the plans (directly or not).
    pub upstream: Vec<String>,
}

impl Viewer {
    /// True if this viewer may see `e` ([`crate::entry::may_see`]), for entries read
    /// from elsewhere than the index (a diff's lines).
    pub fn sees_entry(&self, e: &crate::entry::Entry) -> bool {
        crate::entry::may_see(
            e.audience,
            e.room_id == self.room,
            self.upstream.contains(&e.room_id),
        )
    }
}

/// A viewer resolved against one index: its room's symbol and, per room symbol, whether
/// the viewer is downstream of it; nothing when no entry of the index was said for its
/// room or its downstream only (then every entry may be seen, at no cost).
#[derive(Debug, Default)]
pub struct Sight {
    hidden: Option<(Option<Sym>, Vec<bool>)>,
}

impl Sight {
    /// `viewer`'s sight on `ix` (None: an operator's, who sees everything). `superseded`:
    /// superseded entries may be shown (the index counts said entries among live ones).
    pub fn new(ix: &LedgerIndex, viewer: Option<&Viewer>, superseded: bool) -> Sight {
        let said = superseded
            || ix
                .cells()
                .iter()
                .any(|c| c.room_only.iter().chain(&c.downstream_only).any(|&n| n > 0));
        Sight {
            hidden: viewer.filter(|_| said).map(|v| {
                (
                    ix.rooms.get(&v.room),
                    (0..ix.rooms.len())
                        .map(|s| v.upstream.iter().any(|u| u == ix.rooms.name(s as Sym)))
                        .collect(),
                )
            }),
        }
    }

    /// True if nothing is hidden from this viewer.
    pub fn sees_all(&self) -> bool {
        self.hidden.is_none()
    }

    /// True if the viewer may see the entry at `pos` ([`crate::entry::may_see`]).
    pub fn sees(&self, ix: &LedgerIndex, pos: u32) -> bool {
        self.hidden.as_ref().is_none_or(|(own, upstream)| {
            let room = ix.meta(pos).room;
            crate::entry::may_see(
                ix.audience_of(pos),
                *own == Some(room),
                upstream.get(room as usize).copied().unwrap_or(false),
            )
        })
    }
}

/// A filter resolved against one index.
#[derive(Debug)]
pub struct Compiled {
    /// `None`: no tag condition. `Some(empty)`: nothing can match.
    pub tags: Option<HashSet<Sym>>,
    kind: Option<Kind>,
    /// Allowed room symbols; `None`: every room.
    rooms: Option<Vec<bool>>,
    role: Option<Option<Sym>>,
    ref_: Option<Option<Sym>>,
    /// Inclusive time bounds (seconds).
    pub since: i64,
    /// Inclusive time bounds (seconds).
    pub until: i64,
    include_superseded: bool,
    /// Per (room, plan) cell of the index: whether its room is allowed (`None`: every
    /// room), so that an entry's 4-byte slot answers the room condition.
    cells: Option<Vec<bool>>,
    /// True when the conditions other than tags are only on liveness, kind and room: the
    /// slot alone then decides ([`Compiled::matches_slot`]) without reading the entry's
    /// [`Meta`].
    pub slot_decides: bool,
    /// The viewer's audience rule.
    sight: Sight,
}

fn lookup(interner: &Interner, name: &Option<String>) -> Option<Option<Sym>> {
    name.as_ref().map(|n| interner.get(n))
}

impl Filter {
    /// Resolves the filter against `ix`.
    pub fn compile(&self, ix: &LedgerIndex) -> Compiled {
        let tags = (!self.tags.is_empty())
            .then(|| self.tags.iter().filter_map(|t| ix.tags.get(t)).collect());
        let rooms = (self.room.is_some() || self.exclude_room.is_some()).then(|| {
            (0..ix.rooms.len())
                .map(|s| {
                    let name = ix.rooms.name(s as Sym);
                    self.room.as_ref().is_none_or(|p| p.matches(name))
                        && !self.exclude_room.as_ref().is_some_and(|p| p.matches(name))
                })
                .collect()
        });
        let cells = rooms
            .as_ref()
            .map(|ok: &Vec<bool>| ix.cells().iter().map(|c| ok[c.room as usize]).collect());
        let (role, ref_) = (
            lookup(&ix.roles, &self.author_role),
            lookup(&ix.refs, &self.ref_),
        );
        let sight = Sight::new(ix, self.viewer.as_ref(), self.include_superseded);
        Compiled {
            tags,
            kind: self.kind,
            rooms,
            slot_decides: role.is_none()
                && ref_.is_none()
                && self.since.is_none()
                && self.until.is_none()
                && sight.sees_all(),
            role,
            ref_,
            since: self.since.map_or(i64::MIN, |t| t.0),
            until: self.until.map_or(i64::MAX, |t| t.0),
            include_superseded: self.include_superseded,
            cells,
            sight,
        }
    }
}

impl Compiled {
    /// The number of live entries this filter matches, if it can be known from the live
    /// counts alone (conditions on room, kind and at most one tag).
    pub fn count_from_totals(&self, ix: &LedgerIndex) -> Option<usize> {
        let simple = self.role.is_none()
            && self.ref_.is_none()
            && self.since == i64::MIN
            && self.until == i64::MAX
            && !self.include_superseded
            && self.sight.sees_all();
        // Any-of over several tags would count entries with two of them twice.
        let tag = match &self.tags {
            None => None,
            Some(t) if t.is_empty() => return Some(0), // no known tag: nothing matches
            Some(t) if t.len() == 1 => t.iter().next().copied(),
            Some(_) => return None,
        };
        if !simple {
            return None;
        }
        let kinds: Vec<Kind> = match self.kind {
            Some(k) => vec![k],
            None => Kind::ALL.to_vec(),
        };
        let total = (0..ix.rooms.len() as Sym)
            .filter(|&r| self.rooms.as_ref().is_none_or(|ok| ok[r as usize]))
            .map(|r| {
                kinds
                    .iter()
                    .map(|&k| match tag {
                        Some(t) => ix.live_tagged_in(t, r, k) as usize,
                        None => ix.live_in(r, k) as usize,
                    })
                    .sum::<usize>()
            })
            .sum();
        Some(total)
    }

    /// True if the entry at `pos` passes every condition except tags (checked separately,
    /// because tag candidates usually come from the tag postings).
    pub fn matches_meta(&self, m: Meta) -> bool {
        (self.include_superseded || m.live)
            && self.kind.is_none_or(|k| k == m.kind)
            && m.ts >= self.since
            && m.ts <= self.until
            && self.rooms.as_ref().is_none_or(|r| r[m.room as usize])
            && self.role.is_none_or(|r| r == Some(m.role))
            && self.ref_.is_none_or(|r| r == Some(m.ref_))
    }

    /// True if the entry at `pos` passes every condition except tags, its audience
    /// included (the viewer's rule, [`crate::entry::may_see`]).
    pub fn matches(&self, ix: &LedgerIndex, pos: u32) -> bool {
        self.matches_meta(ix.meta(pos)) && self.sight.sees(ix, pos)
    }

    /// [`Compiled::matches_meta`] from the entry's slot ([`LedgerIndex::slot`]): exact
    /// when [`Compiled::slot_decides`].
    pub fn matches_slot(&self, slot: u32) -> bool {
        let cell = ((slot & !SLOT_DEAD) >> 3) as usize;
        (self.include_superseded || slot & SLOT_DEAD == 0)
            && self.kind.is_none_or(|k| k.index() as u32 == slot & 7)
            && self.cells.as_ref().is_none_or(|ok| ok[cell])
    }

    /// True if `tags` satisfy the any-of tag condition.
    pub fn matches_tags(&self, tags: &[Sym]) -> bool {
        self.tags
            .as_ref()
            .is_none_or(|want| tags.iter().any(|t| want.contains(t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_exact_rooms() {
        let p = RoomPattern::parse("room_id", "room-0*").unwrap();
        assert!(p.matches("room-042") && !p.matches("room-142"));
        let p = RoomPattern::parse("room_id", "room-042").unwrap();
        assert!(p.matches("room-042") && !p.matches("room-0420"));
        let p = RoomPattern::parse("room_id", "room-{1,2}").unwrap();
        assert!(p.matches("room-1") && p.matches("room-2") && !p.matches("room-3"));
        let e = RoomPattern::parse("exclude_room", "room-[")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`exclude_room`") && e.contains("glob"), "{e}");
        assert!(RoomPattern::parse("room_id", " ").is_err());
        // Size and complexity are capped, with the limit named.
        let e = RoomPattern::parse("room_id", &"*".repeat(100_000))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`room_id`") && e.contains("256"), "{e}");
        let alts = format!("{{{}}}", vec!["r"; 40].join(","));
        let e = RoomPattern::parse("exclude_room", &alts)
            .unwrap_err()
            .to_string();
        assert!(e.contains("over the limit of 16"), "{e}");
        assert!(RoomPattern::parse("room_id", "room-{1,2,3}-*").is_ok());
    }
}
