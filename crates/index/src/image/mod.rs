//! The index as bytes — its image in the cold-start snapshot (the product's `snapshot` says where it
//! lives and when it is trusted). Only state that cannot be recomputed in one linear pass
//! is written; maps keyed by name (ids, terms, interners, cells) are rebuilt on load.
//!
//! Decoding never panics on bad input: every length is checked against what is left,
//! every symbol and position against the tables it indexes; anything off is an error and
//! the caller rebuilds from the ledger. The byte reader and writer are in [`super::codec`].

pub(crate) mod codec;

use foldhash::HashMap;

use super::bounds::BLOCK_SHIFT;
use super::codec::R;
use super::codec::check;
pub use super::codec::{Bad, Dec, Enc, Spill};
use super::inverted::{Doc, TextIndex};
use super::records::REC;
use super::{Interner, LedgerIndex, Loc, Meta, Problem, Rare, Texts};
use crate::entry::Kind;

/// Bumped whenever the layout below changes: an older snapshot is then rebuilt.
pub const FORMAT: u32 = 7;

fn enc_interner(w: &mut Enc, i: &Interner) {
    w.len(i.names.len());
    for n in &i.names {
        w.str(n);
    }
}

fn dec_interner(r: &mut Dec<'_>) -> R<Interner> {
    let n = r.len(8)?;
    let mut i = Interner::default();
    for k in 0..n {
        let name = r.str()?;
        check(i.intern(name) as usize == k, "interner out of order")?;
    }
    Ok(i)
}

/// Writes `ix` (whose texts must be in the ledger file) to `w`; None if it keeps its
/// texts in memory.
pub fn encode(ix: &LedgerIndex, w: &mut Enc) -> Option<()> {
    let (lens, hashes, facts, shapes, prints) = ix.texts.file_parts()?;
    w.len(ix.rows.len());
    for pos in 0..ix.rows.len() as u32 {
        let (m, s) = (ix.rows.meta(pos), ix.rows.stored(pos));
        let tags = ix.rows.tags(pos, ix.tag_syms.len());
        w.u64(m.ts as u64);
        w.u32(m.room);
        w.u32(m.role);
        w.u32(m.ref_);
        w.u32(m.plan);
        w.u8(m.kind.index() as u8);
        w.u8(u8::from(m.live));
        w.str(ix.ids.get(pos as usize));
        w.u32(tags.start as u32);
        w.u32(tags.len() as u32);
        w.u32(s.superseded_by().unwrap_or(u32::MAX));
        w.u64(s.loc.line);
        w.u64(s.loc.offset);
    }
    w.u32s(&ix.tag_syms);
    w.len(ix.rare.len());
    let mut rare: Vec<_> = ix.rare.iter().collect();
    rare.sort_unstable_by_key(|(p, _)| **p);
    for (&pos, r) in rare {
        w.u32(pos);
        w.opt_str(r.ts_raw.as_deref());
        w.opt_str(r.supersedes.as_deref());
        w.len(r.redacted.len());
        for k in r.redacted.iter() {
            w.str(k);
        }
        w.u8(r.audience.map_or(0, |a| a as u8 + 1));
    }
    ix.chrono.encode(w);
    for map in [&ix.pending, &ix.idempotency] {
        w.len(map.len());
        for (k, &v) in map.iter() {
            w.str(k);
            w.u32(v);
        }
    }
    w.len(ix.named_targets.len());
    for k in &ix.named_targets {
        w.str(k);
    }
    for i in [&ix.rooms, &ix.roles, &ix.refs, &ix.tags, &ix.plans] {
        enc_interner(w, i);
    }
    w.u64(ix.live as u64);
    w.u8(u8::from(!ix.chrono.in_order()));
    w.len(ix.problems.len());
    for p in &ix.problems {
        w.u64(p.loc.line);
        w.u64(p.loc.offset);
        w.str(&p.message);
    }
    w.u64(ix.problem_count as u64);
    w.u32s(lens);
    w.u64s(hashes);
    w.u64s(facts);
    w.u64s(shapes);
    w.u64s(prints);
    encode_text(&ix.text, w);
    Some(())
}

/// Postings of a list written at a time (320 KiB of records).
const LIST_PIECE: usize = 1 << 16;

fn encode_text(t: &TextIndex, w: &mut Enc) {
    w.len(t.terms.len());
    for (term, list) in t.terms.iter().zip(t.postings.lists()) {
        w.str(term);
        w.len(list.len());
        // In pieces, each spilled once the writer holds a chunk: a list of 1M postings
        // written whole grew the buffer to several MB, left behind in the heap (the memory
        // once a first start has written its snapshot).
        for from in (0..list.len()).step_by(LIST_PIECE) {
            let to = (from + LIST_PIECE).min(list.len());
            list.slice(from, to).write_records(&mut w.0);
            w.spill_if_full();
        }
    }
    let aside = t.postings.aside_entries();
    w.len(aside.len());
    for (term, doc, tf) in aside {
        w.u32(term);
        w.u32(doc);
        w.0.extend_from_slice(&tf);
    }
    // The per-term tables are written for every term, as before lists of one posting had
    // none of their own (the format is unchanged): theirs are derived.
    let terms = t.postings.len() as u32;
    w.len(terms as usize);
    for term in 0..terms {
        w.u32(t.df_seed(term));
    }
    // Each document's lengths; its tag (the slot) is recomputed by `rebuild`.
    w.len(t.docs.len());
    for d in &t.docs {
        w.spill_if_full();
        w.0.extend_from_slice(&d.st.to_le_bytes());
        w.0.extend_from_slice(&d.detail.to_le_bytes());
    }
    for x in t.total_len {
        w.u64(x);
    }
    let b = &t.bounds;
    w.f64(b.avg.0);
    w.f64(b.avg.1);
    let cn = b.code_norms();
    let of_term = |term| b.of_term(&t.postings, &t.norms, &cn, term);
    w.len(terms as usize);
    for term in 0..terms {
        w.u32(of_term(term).0.to_bits());
    }
    w.len(terms as usize);
    for term in 0..terms {
        w.u32(of_term(term).1.to_bits());
    }
    w.u32(BLOCK_SHIFT);
    let mut blocks: Vec<(u32, &[f32])> = b
        .blocks
        .iter()
        .map(|(m, maxes)| (t.postings.slot_term(m as u32), maxes))
        .collect();
    blocks.sort_unstable_by_key(|&(term, _)| term);
    w.len(blocks.len());
    for (term, maxes) in blocks {
        w.u32(term);
        w.u32s(&maxes.iter().map(|f| f.to_bits()).collect::<Vec<_>>());
    }
}

/// Reads an index written by [`encode`] whose texts are in the ledger at `path`.
pub fn decode(
    r: &mut Dec<'_>,
    file: std::sync::Arc<dyn warroom_base::fsx::ReadAt>,
) -> R<LedgerIndex> {
    let n = r.len(40)?;
    check(n < u32::MAX as usize, "too many entries")?;
    let mut ix = LedgerIndex::default();
    ix.rows.reserve_exact(n);
    // Tags are laid out in position order, each entry's after the previous one's: a
    // snapshot where they are not is refused.
    let mut tags_end = 0u64;
    for _ in 0..n {
        let ts = r.u64()? as i64;
        let (room, role, ref_, plan) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?);
        let kind = *Kind::ALL.get(r.u8()? as usize).ok_or(Bad("bad kind"))?;
        let live = r.u8()? == 1;
        let meta = Meta {
            ts,
            room,
            role,
            ref_,
            plan,
            kind,
            live,
        };
        ix.ids.push(r.str()?);
        let (tags_start, tags_len) = (r.u32()?, r.u32()?);
        check(u64::from(tags_start) == tags_end, "tags out of order")?;
        tags_end += u64::from(tags_len);
        let by = r.u32()?;
        let loc = Loc {
            line: r.u64()?,
            offset: r.u64()?,
        };
        let by = (by != u32::MAX).then_some(by);
        ix.rows.push(&meta, tags_start, by, loc).map_err(Bad)?;
    }
    ix.tag_syms = r.u32s()?;
    check(ix.tag_syms.len() as u64 == tags_end, "tags out of range")?;
    for _ in 0..r.len(4)? {
        let pos = r.u32()?;
        check((pos as usize) < n, "rare field of no entry")?;
        let ts_raw = r.opt_str()?;
        let supersedes = r.opt_str()?;
        let redacted = (0..r.len(8)?)
            .map(|_| r.boxed())
            .collect::<R<Vec<_>>>()?
            .into_boxed_slice();
        let audience = match r.u8()? {
            0 => None,
            a => Some(
                *crate::entry::Audience::ALL
                    .get(usize::from(a) - 1)
                    .ok_or(Bad("an audience of no kind"))?,
            ),
        };
        ix.rare.insert(
            pos,
            Rare {
                ts_raw,
                supersedes,
                redacted,
                audience,
            },
        );
    }
    ix.chrono = super::chrono::Chrono::decode(r, n)?;
    let mut maps: [HashMap<Box<str>, u32>; 2] = Default::default();
    for map in &mut maps {
        for _ in 0..r.len(12)? {
            let k = r.boxed()?;
            let v = r.u32()?;
            check((v as usize) < n, "position out of range")?;
            map.insert(k, v);
        }
    }
    let [pending, idempotency] = maps;
    (ix.pending, ix.idempotency) = (pending, idempotency);
    for _ in 0..r.len(8)? {
        ix.named_targets.insert(r.boxed()?);
    }
    ix.rooms = dec_interner(r)?;
    ix.roles = dec_interner(r)?;
    ix.refs = dec_interner(r)?;
    ix.tags = dec_interner(r)?;
    ix.plans = dec_interner(r)?;
    ix.live = r.u64()? as usize;
    check(
        (r.u8()? == 1) != ix.chrono.in_order(),
        "time order and its flag",
    )?;
    for _ in 0..r.len(24)? {
        let loc = Loc {
            line: r.u64()?,
            offset: r.u64()?,
        };
        let message = r.str()?.to_string();
        ix.problems.push(Problem { loc, message });
    }
    ix.problem_count = r.u64()? as usize;
    let (lens, hashes, facts, shapes) = (r.u32s()?, r.u64s()?, r.u64s()?, r.u64s()?);
    let prints = r.u64s()?;
    check(
        [hashes.len(), facts.len(), shapes.len(), prints.len()]
            .iter()
            .all(|&l| l == n)
            && lens.len() == n,
        "text table length",
    )?;
    ix.texts = Texts::from_file_parts(file, lens, hashes, facts, shapes, prints);
    ix.text = decode_text(r, n)?;
    rebuild(&mut ix)?;
    Ok(ix)
}

fn decode_text(r: &mut Dec<'_>, n: usize) -> R<TextIndex> {
    let mut t = TextIndex::default();
    let terms = r.len(9)?;
    t.postings.reserve_terms(terms);
    t.terms.reserve(terms);
    let mut escaped = 0;
    for _ in 0..terms {
        t.terms.push_unfiled(r.str()?);
        let k = r.len(REC)?;
        escaped += t.postings.push_records(r.take(k * REC)?, n).map_err(Bad)?;
    }
    let aside = (0..r.len(12)?)
        .map(|_| Ok((r.u32()?, r.u32()?, r.take(4)?.try_into().expect("4 bytes"))))
        .collect::<R<Vec<_>>>()?;
    t.postings.restore_aside(aside, escaped).map_err(Bad)?;
    t.terms.file_all().map_err(Bad)?;
    // Per term, written for every term; kept for the lists with a slot, and checked
    // against the posting for a list of one.
    let df_seed = per_slot(r, &t.postings, terms, |term, df| {
        df as usize == t.postings.list(term).in_summary_or_tags()
    })?;
    t.df_seed = df_seed;
    let docs = r.len(4)?;
    check(docs == n, "document lengths")?;
    let b = r.take(docs * 4)?;
    t.docs = b
        .chunks_exact(4)
        .map(|c| Doc {
            st: u16::from_le_bytes([c[0], c[1]]),
            detail: u16::from_le_bytes([c[2], c[3]]),
            tag: 0,
        })
        .collect();
    t.norms = t.docs.iter().map(Doc::codes).collect();
    for x in &mut t.total_len {
        *x = r.u64()?;
    }
    let b = &mut t.bounds;
    b.avg = (r.f64()?, r.f64()?);
    // A list of one posting's bounds are derived from it when asked for.
    let floats = |v: Vec<u32>| -> Vec<f32> { v.into_iter().map(f32::from_bits).collect() };
    b.fielded = floats(per_slot(r, &t.postings, terms, |_, _| true)?);
    b.seed = floats(per_slot(r, &t.postings, terms, |_, _| true)?);
    let slots = t.postings.slotted() as u32;
    check(r.u32()? == BLOCK_SHIFT, "block size")?;
    let with_blocks = r.len(12)?;
    let b = &mut t.bounds;
    b.blocks = super::bounds::Blocks::with_slots(slots as usize);
    for _ in 0..with_blocks {
        let term = r.u32()?;
        let maxes: Vec<f32> = r.u32s()?.into_iter().map(f32::from_bits).collect();
        let slot = (term < terms as u32)
            .then(|| t.postings.slot(term))
            .flatten();
        let Some(m) = slot.map(|m| m as usize) else {
            return Err(Bad("block bounds of no list"));
        };
        check(
            b.blocks.get(m).is_empty() && !maxes.is_empty(),
            "block bounds twice",
        )?;
        b.blocks.set(m, maxes);
    }
    check(t.bounds.fits(&t.postings), "per-term tables")?;
    Ok(t)
}

/// A table written for each of `terms` terms, of which the lists with a slot keep their
/// values (read back, slots are in term order); `single(term, value)` checks the value of
/// a list of one posting or none. Read value by value: the whole table of a ledger of
/// ids (4.6M terms at 1M entries) would be held beside the index for nothing.
fn per_slot(
    r: &mut Dec<'_>,
    postings: &super::postings::Postings,
    terms: usize,
    single: impl Fn(u32, u32) -> bool,
) -> R<Vec<u32>> {
    check(r.len(4)? == terms, "per-term tables")?;
    let mut out = Vec::with_capacity(postings.slotted());
    for term in 0..terms as u32 {
        let v = r.u32()?;
        match postings.slot(term) {
            Some(m) => {
                check(m as usize == out.len(), "slots in term order")?;
                out.push(v);
            }
            None => check(single(term, v), "document frequencies")?,
        }
    }
    Ok(out)
}

/// Recomputes what [`encode`] leaves out — ids, tag postings, cells and slots, live
/// counts — in position order, as [`LedgerIndex::apply`] built them; checks every symbol
/// and position against the tables it indexes.
fn rebuild(ix: &mut LedgerIndex) -> R<()> {
    let n = ix.rows.len();
    let lens = [
        ix.rooms.len(),
        ix.roles.len(),
        ix.refs.len(),
        ix.plans.len(),
    ];
    ix.by_id.reserve(n, |_| 0);
    let mut live = 0;
    for pos in 0..n as u32 {
        let (m, s) = (ix.rows.meta(pos), ix.rows.stored(pos));
        let syms = [m.room, m.role, m.ref_, m.plan];
        check(
            syms.iter().zip(lens).all(|(&s, l)| (s as usize) < l),
            "symbol out of range",
        )?;
        // In range: `decode` checked that the tags tile the vector.
        let tags = &ix.tag_syms[ix.rows.tags(pos, ix.tag_syms.len())];
        check(
            tags.iter().all(|&t| (t as usize) < ix.tags.len()),
            "tag out of range",
        )?;
        let by = s.superseded_by();
        check(
            by.is_none_or(|b| (b as usize) < n) && m.live == by.is_none(),
            "supersede link",
        )?;
        live += usize::from(m.live);
        for &t in tags {
            ix.tag_postings.entry(t).or_default().push(pos);
        }
        let (ids, id) = (&ix.ids, ix.ids.get(pos as usize));
        let h = super::id_hash(id);
        check(
            ix.by_id.find(h, |&p| ids.get(p as usize) == id).is_none(),
            "duplicate id",
        )?;
        ix.by_id
            .insert_unique(h, pos, |&p| super::id_hash(ids.get(p as usize)));
    }
    for pos in 0..n as u32 {
        let m = ix.rows.meta(pos);
        ix.file_in_cell(pos);
        ix.count_live(pos, 1);
        if !m.live {
            ix.count_live(pos, -1);
        }
    }
    check(live == ix.live, "live count")?;
    Ok(())
}

#[cfg(test)]
#[path = "image_tests.rs"]
mod tests;
