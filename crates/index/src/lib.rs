//! The in-memory index of one ledger: derived state, always rebuildable from the file.
//!
//! Architecture invariant: [`LedgerIndex::apply`] is the only way an entry enters the index
//! — whether it was read at startup, published by this process, or appended by another
//! process and picked up by the tail. Publishing writes the line first and then reads it
//! back through the same tail, so there is exactly one code path from bytes to views.
//!
//! Layout: hot per-entry columns ([`Meta`]: time, kind, room, role, ref, liveness) live in
//! one compact vector so filters scan 24 bytes per entry; text and cold fields live in
//! [`Stored`] (both packed by `rows`). Names are interned per field, so filters compare
//! integers.

// The index's four parts, each a folder (ARCHITECTURE.md § Code map): the entry table,
// the full-text index, search and ranking, and the snapshot image. Their modules are
// named from the crate root as before (`crate::rows`, `crate::postings`): the folders
// group them, the names stay one each.
pub mod image;
mod search;
mod table;
mod text;

pub use table::{entry, validate};
pub use text::tokens;

use image::codec;
use search::{bounds, candidates, filter, query, score, scratch, time_factor, topk, walk};
use table::{chrono, interner, rows, slot_order, stored_text, strings};
use text::{chunks, inverted, inverted_add, inverted_job, norms, postings, records, vocab};

use foldhash::HashMap;

pub use chrono::TimeOrder;
pub use filter::{Compiled, Filter, RoomPattern, Sight, Viewer};
pub use interner::Interner;
pub use inverted::{FIELDS, QueryTerm, Scoring, Scratch, TextIndex};
pub use query::QueryResult;
pub use rows::{Meta, Stored};
pub use scratch::with_spare_scratch;
pub use search::{SearchHit, SearchResult, decay};
pub use stored_text::{Text, Texts, fact_key, near_twins, word_print};
pub use time_factor::{DEFAULT_DECAY_FLOOR, Ranking, Scorer};
/// The BM25F field weights, for explanations.
pub mod text_weights {
    pub use super::inverted::{K1, W_DETAIL, W_REF};
}
pub use tokens::split_case;

use crate::entry::{Entry, EntryRef, Kind};
use warroom_base::clock::Timestamp;

/// An interned name.
pub type Sym = u32;

/// Fields few entries have, kept out of [`Stored`].
#[derive(Clone, Debug, Default)]
struct Rare {
    /// The `ts` text as written, when it is not the canonical form of [`Meta::ts`].
    ts_raw: Option<Box<str>>,
    /// Id this entry supersedes, as written.
    supersedes: Option<Box<str>>,
    /// Secret kinds redacted before writing.
    redacted: Box<[Box<str>]>,
    /// Who the entry is for, when its line says.
    audience: Option<crate::entry::Audience>,
}

/// Where a line is in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    /// 1-based line number.
    pub line: u64,
    /// Byte offset of the line's first byte.
    pub offset: u64,
}

/// Something wrong in the ledger, found while reading it. Reading goes on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where.
    pub loc: Loc,
    /// What, in words.
    pub message: String,
}

/// The entries of one (room, plan) pair.
#[derive(Debug, Default)]
pub struct Cell {
    /// Room symbol.
    pub room: Sym,
    /// Plan symbol (0: none).
    pub plan: Sym,
    /// Live entries per kind.
    pub live: [u32; 6],
    /// Of `live`, per kind: published `audience: room` (working notes, which reach no
    /// other room's brief).
    pub room_only: [u32; 6],
    /// Of `live`, per kind: published `audience: downstream` in so many words (they reach
    /// only the briefs of the publisher's downstream).
    pub downstream_only: [u32; 6],
    /// Positions per kind, in file order (live and superseded).
    pub positions: [Vec<u32>; 6],
}

/// The hash `by_id` files an id under.
fn id_hash(id: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x4944_5331).hash_one(id)
}

/// The bit of a slot ([`LedgerIndex::slot`]) set once the entry is superseded.
pub const SLOT_DEAD: u32 = 1 << 31;

/// At most this many problems are kept with their text; the rest are only counted.
const MAX_KEPT_PROBLEMS: usize = 1000;

/// Everything derived from one ledger file.
#[derive(Debug, Default)]
pub struct LedgerIndex {
    rows: rows::Rows,
    /// Every entry's id, in position order.
    ids: strings::Strings,
    /// Tag symbols of every entry, one after the other (see [`Stored`]).
    tag_syms: Vec<Sym>,
    rare: HashMap<u32, Rare>,
    /// Positions keyed by their entry's id (the id itself is only in `stored`): 4 bytes
    /// and a control byte per entry instead of a second copy of every id.
    by_id: hashbrown::HashTable<u32>,
    /// Positions sorted by (ts, position): the chronological order of the ledger.
    chrono: chrono::Chrono,
    tag_postings: HashMap<Sym, Vec<u32>>,
    /// Superseders whose target has not been seen yet: target id → superseder position.
    pending: HashMap<Box<str>, u32>,
    /// Every id some entry names in `supersedes`. A supersede can only close a cycle
    /// through an entry that is named, so the cycle walk runs only then: a chain written
    /// in file order links in O(1) per entry instead of walking the whole chain.
    named_targets: foldhash::HashSet<Box<str>>,
    /// `room \0 idempotency key` → the first entry published with it.
    idempotency: HashMap<Box<str>, u32>,
    /// Room names ↔ symbols (`Meta::room`).
    pub rooms: Interner,
    /// Author roles ↔ symbols.
    pub roles: Interner,
    /// Refs ↔ symbols.
    pub refs: Interner,
    /// Tags ↔ symbols.
    pub tags: Interner,
    /// Plan ids ↔ symbols.
    pub plans: Interner,
    /// The full-text index (postings, vocabulary, norms).
    pub text: TextIndex,
    /// While a first read runs on two cores: the text index on its own thread, and the
    /// slots written meanwhile ([`text_job`]); `text` is empty until it is back.
    away: Option<inverted_job::Away>,
    /// Summary and detail: in the ledger file (read back on demand) or in memory.
    texts: Texts,
    live: usize,
    /// Live entries per room symbol and kind: lets a query filtered only by room and kind
    /// count its total without scanning.
    live_by_room_kind: Vec<[u32; 6]>,
    /// Live entries per (tag, room) and kind: the same for queries filtered by one tag.
    live_by_tag_room: HashMap<(Sym, Sym), [u32; 6]>,
    /// Entries per (room, plan): positions per kind and live counts, so predecessor context
    /// reads the newest entries of a room without scanning the ledger.
    cells: Vec<Cell>,
    cell_of: HashMap<(Sym, Sym), u32>,
    problems: Vec<Problem>,
    problem_count: usize,
}

impl LedgerIndex {
    /// An empty index whose entries' text is read back from the ledger file `file` reads
    /// when asked for (see [`Texts`]), instead of kept in memory.
    pub fn with_texts_in(file: std::sync::Arc<dyn warroom_base::fsx::ReadAt>) -> LedgerIndex {
        LedgerIndex {
            texts: Texts::in_file(file),
            ..LedgerIndex::default()
        }
    }

    /// Number of entries read (live and superseded).
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    /// True if no entry was read.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
    /// Number of live (not superseded) entries.
    pub fn live_count(&self) -> usize {
        self.live
    }
    /// Problems found so far (the first 1000) and how many there were in all.
    pub fn problems(&self) -> (&[Problem], usize) {
        (&self.problems, self.problem_count)
    }
    /// Position of the entry with `id`.
    pub fn position(&self, id: &str) -> Option<u32> {
        let h = id_hash(id);
        self.by_id
            .find(h, |&p| self.ids.get(p as usize) == id)
            .copied()
    }
    /// Tag symbols of the entry at `pos`.
    pub fn tags_of(&self, pos: u32) -> &[Sym] {
        &self.tag_syms[self.rows.tags(pos, self.tag_syms.len())]
    }
    /// The id the entry at `pos` supersedes, as written.
    pub fn supersedes_of(&self, pos: u32) -> Option<&str> {
        self.rare.get(&pos).and_then(|r| r.supersedes.as_deref())
    }

    /// The audience entry `pos` names, if any (absent: its kind's default).
    pub fn audience_of(&self, pos: u32) -> Option<crate::entry::Audience> {
        self.rare.get(&pos).and_then(|r| r.audience)
    }
    /// Hot columns of the entry at `pos`.
    pub fn meta(&self, pos: u32) -> Meta {
        self.rows.meta(pos)
    }
    /// Cold fields of the entry at `pos`.
    pub fn stored(&self, pos: u32) -> &Stored {
        self.rows.stored(pos)
    }
    /// The id of the entry at `pos`.
    pub fn id(&self, pos: u32) -> &str {
        self.ids.get(pos as usize)
    }
    /// Every room id that has published.
    pub fn room_names(&self) -> impl Iterator<Item = &str> {
        self.rooms.names()
    }
    /// The room id of the entry at `pos`.
    pub fn room_of(&self, pos: u32) -> &str {
        self.rooms.name(self.meta(pos).room)
    }
    /// The plan id stamped on the entry at `pos`, if any.
    pub fn plan_of(&self, pos: u32) -> Option<&str> {
        let p = self.meta(pos).plan;
        (p != 0).then(|| self.plans.name(p))
    }
    /// True if file order is also time order (no entry older than its predecessor):
    /// newest-first is then simply descending position.
    pub fn in_time_order(&self) -> bool {
        self.chrono.in_order()
    }
    /// Positions in chronological order (oldest first).
    pub fn chrono(&self) -> TimeOrder<'_> {
        self.chrono.view()
    }
    /// The full-text index.
    pub fn text(&self) -> &TextIndex {
        &self.text
    }

    /// Reserves room for about `n` more entries (cold start knows the file size), so the
    /// big vectors and maps are not regrown and copied while a large ledger loads.
    pub fn reserve(&mut self, n: usize) {
        self.rows.reserve(n);
        self.texts.reserve(n);
        // Ids are ~20 bytes (ULIDs 26, `mem-…` ids fewer); capacity not written to is not
        // resident.
        self.ids.reserve(n, n * 24);
        let ids = &self.ids;
        self.by_id.reserve(n, |&p| id_hash(ids.get(p as usize)));
        self.text.reserve(n);
    }

    /// Records a line that could not be read as an entry.
    pub fn note_problem(&mut self, loc: Loc, message: String) {
        self.problem_count += 1;
        if self.problems.len() < MAX_KEPT_PROBLEMS {
            self.problems.push(Problem { loc, message });
        }
    }

    /// Adds one entry read from the ledger, parsed from `line` (its bytes, without the
    /// newline). This is the single mutation path of the index. A duplicate id or an
    /// impossible supersede is recorded as a problem; a duplicate is not indexed (the first
    /// line with an id wins), a bad supersede is indexed but retires nothing.
    pub fn apply(
        &mut self,
        entry: &EntryRef<'_>,
        ts: Timestamp,
        loc: Loc,
        line: &[u8],
    ) -> Option<u32> {
        if let Some(first) = self.position(&entry.id) {
            let first = self.stored(first).loc.line;
            self.note_problem(
                loc,
                format!(
                    "duplicate id `{}` (first on line {first}); line ignored",
                    entry.id
                ),
            );
            return None;
        }
        let pos = self.rows.len() as u32;
        let meta = Meta {
            ts: ts.0,
            room: self.rooms.intern(&entry.room_id),
            role: self.roles.intern(&entry.author_role),
            ref_: self.refs.intern(&entry.ref_),
            plan: entry.plan_id.as_deref().map_or(0, |p| self.plans.intern(p)),
            kind: entry.kind,
            live: true,
        };
        let tags_start = self.tag_syms.len() as u32;
        if let Err(why) = self.rows.push(&meta, tags_start, None, loc) {
            self.note_problem(loc, format!("entry `{}` not indexed: {why}", entry.id));
            return None;
        }
        let (summary, detail) = (&*entry.summary, entry.detail.as_deref().unwrap_or(""));
        let tags = entry.tags.iter().map(|t| &**t);
        match &mut self.away {
            Some(away) => away.add(pos, summary, tags, detail, &entry.ref_),
            None => self.text.add(pos, summary, tags, detail, &entry.ref_),
        }
        for t in entry.tags.iter() {
            let t = self.tags.intern(t);
            self.tag_syms.push(t);
            self.tag_postings.entry(t).or_default().push(pos);
        }
        self.ids.push(&entry.id);
        let rare = Rare {
            ts_raw: (!ts.is_canonical(&entry.ts)).then(|| (*entry.ts).into()),
            supersedes: entry.supersedes.as_deref().map(Into::into),
            redacted: entry.redacted.iter().map(|r| (**r).into()).collect(),
            audience: entry.audience(),
        };
        if rare.ts_raw.is_some()
            || rare.supersedes.is_some()
            || !rare.redacted.is_empty()
            || rare.audience.is_some()
        {
            self.rare.insert(pos, rare);
        }
        self.texts.push(entry, line);
        let ids = &self.ids;
        self.by_id
            .insert_unique(id_hash(&entry.id), pos, |&p| id_hash(ids.get(p as usize)));
        if let Some(k) = &entry.idempotency_key {
            self.idempotency
                .entry(format!("{}\0{k}", entry.room_id).into())
                .or_insert(pos);
        }
        self.file_in_cell(pos);
        self.live += 1;
        self.count_live(pos, 1);
        self.insert_chrono(pos);
        if let Some(target) = self.supersedes_of(pos).map(Box::<str>::from) {
            self.named_targets.insert(target.clone());
            self.link_supersede(pos, &target);
        }
        // An entry named by an earlier supersede is rare: its id is copied only then.
        if let Some(superseder) = self.pending.remove(self.ids.get(pos as usize)) {
            let id: Box<str> = self.id(pos).into();
            self.link_supersede(superseder, &id);
        }
        Some(pos)
    }

    /// Files the entry at `pos` (the next one) in its (room, plan) cell and gives it its
    /// slot.
    fn file_in_cell(&mut self, pos: u32) {
        let m = self.rows.meta(pos);
        let cell = match self.cell_of.get(&(m.room, m.plan)) {
            Some(&c) => c,
            None => {
                let c = self.cells.len() as u32;
                self.cells.push(Cell {
                    room: m.room,
                    plan: m.plan,
                    ..Cell::default()
                });
                self.cell_of.insert((m.room, m.plan), c);
                c
            }
        };
        self.cells[cell as usize].positions[m.kind.index()].push(pos);
        *self.slot_mut(pos) = cell << 3 | m.kind.index() as u32;
    }

    fn insert_chrono(&mut self, pos: u32) {
        let rows = &self.rows;
        self.chrono.insert(pos, |p| rows.ts(p));
    }

    fn link_supersede(&mut self, pos: u32, target: &str) {
        let loc = self.stored(pos).loc;
        let Some(t) = self.position(target) else {
            self.pending.insert(target.into(), pos);
            return;
        };
        if t == pos {
            return self.note_problem(loc, format!("entry `{target}` supersedes itself"));
        }
        if let Some(by) = self.stored(t).superseded_by() {
            let by = self.id(by).to_string();
            return self.note_problem(
                loc,
                format!("`{target}` was already superseded by `{by}`; this supersede is ignored"),
            );
        }
        // Refuse a cycle: walking what `pos` replaces must never come back to `pos`, which
        // is only possible if some entry names `pos` (see `named_targets`).
        let mut cur = self.named_targets.contains(self.id(pos)).then_some(t);
        let mut steps = 0;
        while let Some(c) = cur {
            if c == pos || steps > self.rows.len() {
                return self.note_problem(loc, format!("supersede cycle through `{target}`"));
            }
            cur = self.supersedes_of(c).and_then(|s| self.position(s));
            steps += 1;
        }
        self.rows.supersede(t, pos);
        self.live -= 1;
        self.count_live(t, -1);
    }

    /// Counts the entry at `pos` into (or, with −1, out of) the live counts.
    fn count_live(&mut self, pos: u32, delta: i32) {
        let m = self.rows.meta(pos);
        let (room, kind) = (m.room as usize, m.kind.index());
        if self.live_by_room_kind.len() <= room {
            self.live_by_room_kind.resize(room + 1, [0; 6]);
        }
        let c = &mut self.live_by_room_kind[room][kind];
        *c = c.wrapping_add_signed(delta);
        let cell = self.slot(pos) & !SLOT_DEAD;
        let audience = self.audience_of(pos);
        let cell = &mut self.cells[(cell >> 3) as usize];
        cell.live[kind] = cell.live[kind].wrapping_add_signed(delta);
        let said = match audience {
            Some(crate::entry::Audience::Room) => Some(&mut cell.room_only[kind]),
            Some(crate::entry::Audience::Downstream) => Some(&mut cell.downstream_only[kind]),
            _ => None,
        };
        if let Some(c) = said {
            *c = c.wrapping_add_signed(delta);
        }
        if delta < 0 {
            *self.slot_mut(pos) |= SLOT_DEAD;
        }
        for i in self.rows.tags(pos, self.tag_syms.len()) {
            let tag = self.tag_syms[i];
            let c = &mut self.live_by_tag_room.entry((tag, m.room)).or_default()[kind];
            *c = c.wrapping_add_signed(delta);
        }
    }

    /// Live entries tagged `tag` in room `room` of kind `kind`.
    pub fn live_tagged_in(&self, tag: Sym, room: Sym, kind: Kind) -> u32 {
        self.live_by_tag_room
            .get(&(tag, room))
            .map_or(0, |k| k[kind.index()])
    }

    /// Every (room, plan) pair that has entries, with them.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// The entry at `pos` as `cell << 3 | kind` (the cell's index in [`Self::cells`]),
    /// with [`SLOT_DEAD`] set if it was superseded. Kept beside the entry's lengths in
    /// the text index, so that scoring and filtering a keyword match read one record.
    pub fn slot(&self, pos: u32) -> u32 {
        match &self.away {
            Some(away) => away.slots[pos as usize],
            None => self.text.docs[pos as usize].tag,
        }
    }

    /// Live entries in room `room` of kind `kind`.
    pub fn live_in(&self, room: Sym, kind: Kind) -> u32 {
        self.live_by_room_kind
            .get(room as usize)
            .map_or(0, |k| k[kind.index()])
    }

    /// The entry `room` published with idempotency key `key`, if any.
    pub fn by_idempotency_key(&self, room: &str, key: &str) -> Option<u32> {
        self.idempotency
            .get(format!("{room}\0{key}").as_str())
            .copied()
    }

    /// Supersedes that name an id never seen, with the superseder's position.
    pub fn dangling_supersedes(&self) -> impl Iterator<Item = (&str, u32)> {
        self.pending.iter().map(|(k, &v)| (&**k, v))
    }

    /// The summary and detail of the entry at `pos` (read back from the ledger file when
    /// the index keeps them there; an error if the line changed since it was indexed).
    pub fn text_of(&self, pos: u32) -> warroom_base::error::Result<Text> {
        self.texts.get(pos, self.stored(pos).loc)
    }

    /// The fact hash of the entry at `pos`: equal for entries of one kind whose summaries
    /// differ only in case, spacing and trailing punctuation.
    pub fn fact(&self, pos: u32) -> u64 {
        self.texts.fact(pos)
    }

    /// The shape of the entry at `pos` (its summary's words but those holding a digit,
    /// lower-cased, hashed): equal for summaries whose other words are the same.
    pub fn shape(&self, pos: u32) -> u64 {
        self.texts.shape(pos)
    }

    /// The word print of the entry at `pos` ([`word_print`]): near-twins
    /// share half its bits or more ([`near_twins`]).
    pub fn print(&self, pos: u32) -> u64 {
        self.texts.print(pos)
    }

    /// The entry at `pos` in its wire form (its text read as [`Self::text_of`] does).
    pub fn entry(&self, pos: u32) -> warroom_base::error::Result<Entry> {
        Ok(self.entry_with(pos, self.text_of(pos)?))
    }

    /// The entries at `positions`, in that order; their texts read together (lines close
    /// in the file with one read).
    pub fn entries(&self, positions: &[u32]) -> warroom_base::error::Result<Vec<Entry>> {
        let want: Vec<(u32, Loc)> = positions.iter().map(|&p| (p, self.stored(p).loc)).collect();
        let texts = self.texts.get_many(&want)?;
        Ok(positions
            .iter()
            .zip(texts)
            .map(|(&p, t)| self.entry_with(p, t))
            .collect())
    }

    fn entry_with(&self, pos: u32, text: Text) -> Entry {
        let m = self.meta(pos);
        let rare = self.rare.get(&pos);
        Entry {
            id: self.id(pos).to_string(),
            ts: rare
                .and_then(|r| r.ts_raw.as_deref())
                .map_or_else(|| Timestamp(m.ts).to_rfc3339(), str::to_string),
            kind: m.kind,
            room_id: self.rooms.name(m.room).to_string(),
            author_role: self.roles.name(m.role).to_string(),
            ref_: self.refs.name(m.ref_).to_string(),
            tags: self
                .tags_of(pos)
                .iter()
                .map(|&t| self.tags.name(t).to_string())
                .collect(),
            summary: text.summary,
            detail: text.detail,
            supersedes: self.supersedes_of(pos).map(str::to_string),
            plan_id: self.plan_of(pos).map(str::to_string),
            redacted: rare.map_or_else(Vec::new, |r| {
                r.redacted.iter().map(|r| r.to_string()).collect()
            }),
            audience: rare.and_then(|r| r.audience),
        }
    }

    /// Approximate heap bytes of the index (for the memory report of `bench`).
    pub fn heap_bytes(&self) -> usize {
        self.ids.heap_bytes()
            + self.texts.heap_bytes()
            + self.rows.heap_bytes()
            + self.by_id.capacity() * 5
            + self.chrono.heap_bytes()
            + self.tag_syms.capacity() * 4
            + self.rare.len() * (4 + std::mem::size_of::<Rare>())
            + self.rows.len() * 8
            + self.text.heap_bytes()
    }
}

#[doc(hidden)]
pub mod test_support;
#[cfg(test)]
mod tests;
