//! Overlaps (docs/overlaps.md): when an agent publishes a decision, interface or convention
//! (or a warning), the memory looks for live entries of *other* rooms about the same
//! subject and returns up to [`MAX_RELATED`] as `related`, each with why — never blocking
//! the write. The server finds candidates cheaply; the agent, a language model, judges
//! whether the new entry contradicts, duplicates or refines them, and reconciles by
//! superseding or in the channel.
//!
//! Candidates are the lexical top [`CANDIDATES`] for the new entry's summary, tags and ref
//! (and, with semantic ranking on, its nearest vectors), among live entries of other rooms
//! of a comparable kind (decision, interface and convention with each other; a warning
//! with warnings). A candidate is *related* when it has evidence beyond shared words:
//!
//! - the same `ref` (one epic, decided twice), or
//! - a shared identifier (`require_user`, `/auth/refresh`, `UUIDv7`, `order.placed`), or
//! - at least [`MIN_SHARED_TERMS`] shared content words (after stop words and stemming)
//!   making at least [`MIN_OVERLAP`] of the shorter entry's content words (so "background
//!   job queue" and "background image", one shared word, stay apart). An overlap share,
//!   not a BM25 share: idf depends on the ledger's size, and a young ledger's shared words
//!   weigh almost nothing; or
//! - with semantic ranking on, a cosine of at least `semantic.overlap_cosine` (default
//!   [`crate::semantic::DEFAULT_OVERLAP_COSINE`]; the caller's `cosine` gives only those).
//!
//! Superseded entries and the author's own room are never related.
//!
//! [`crate::memory`]'s open overlaps turns the same evidence into *open overlaps*: pairs of live
//! entries of different rooms, neither superseding the other, for the brief, the console's
//! `/overlaps` and the `overlaps` command.

pub mod partners;
pub mod rounds;

use crate::api::ledger::Related;
use std::collections::BTreeSet;

use crate::entry::{Entry, Kind};
use crate::index::{Filter, LedgerIndex, Ranking, Scorer};

/// Most related entries returned.
pub const MAX_RELATED: usize = 3;
/// Lexical candidates looked at.
pub const CANDIDATES: usize = 20;
/// Shared content words needed for words alone to count…
pub const MIN_SHARED_TERMS: usize = 2;
/// …and the share of the shorter entry's content words they must make.
pub const MIN_OVERLAP: f64 = 0.3;

/// Kinds an entry of `k` is compared with (none: not compared).
pub fn comparable(k: Kind) -> &'static [Kind] {
    match k {
        Kind::Decision | Kind::Interface | Kind::Convention => {
            &[Kind::Decision, Kind::Interface, Kind::Convention]
        }
        Kind::Warning => &[Kind::Warning],
        _ => &[],
    }
}

/// Identifiers in `text`: words with an inner `_ / . : -` between letters or digits, a
/// lower-then-upper case change, or letters and digits mixed (`UUIDv7`, `RS256`) — and
/// paths. Lower-cased, trailing punctuation cut.
pub fn identifiers(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for raw in text.split(|c: char| c.is_whitespace() || ",;()[]{}\"'`".contains(c)) {
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != '/' && c != '_');
        if w.len() < 3 {
            continue;
        }
        let inner = crate::text::inner(w)
            .chars()
            .any(|c| matches!(c, '_' | '/' | '.' | ':'));
        let camel = w
            .as_bytes()
            .windows(2)
            .any(|p| p[0].is_ascii_lowercase() && p[1].is_ascii_uppercase());
        let mixed = w.chars().any(|c| c.is_ascii_digit())
            && w.chars().any(char::is_alphabetic)
            && !w
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == '-');
        let path = w.starts_with('/') && w.len() > 2;
        if inner || camel || mixed || path {
            out.insert(w.to_lowercase());
        }
    }
    out
}

/// The words of `text` whose terms are in `terms`, as written (lower-cased, each once),
/// for a person to read: "tables" rather than the stem "tabl". A term no single word of
/// the text gives (a joined `amount_cents` → `amountcents`) is left out.
fn surface(ix: &LedgerIndex, text: &str, terms: &[u64]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        let lower = w.to_lowercase();
        if w.is_empty() || out.contains(&lower) {
            continue;
        }
        if ix
            .text()
            .term_keys(w)
            .iter()
            .any(|t| terms.binary_search(t).is_ok())
        {
            out.push(lower);
        }
    }
    out
}

/// Live entries of other rooms about the same subject as `e` (just published at `own`),
/// best first, at most [`MAX_RELATED`]. `cosine(pos)` gives the semantic side when on.
pub fn related(
    ix: &LedgerIndex,
    e: &Entry,
    own: Option<u32>,
    now: crate::clock::Timestamp,
    cosine: &dyn Fn(u32) -> Option<f64>,
    near: &[u32],
    sight: &crate::index::Sight,
) -> crate::error::Result<Vec<Related>> {
    let mine = Features::of(ix, e);
    let mut out = evidence(ix, &mine, own, now, cosine, near)?;
    // Only what the publisher may see ([`crate::entry::may_see`]).
    out.retain(|(pos, _)| sight.sees(ix, *pos));
    out.truncate(MAX_RELATED);
    Ok(out.into_iter().map(|(_, r)| r).collect())
}

/// What an entry is compared by, computed once per entry (a whole-ledger pass meets the
/// same candidates again and again).
#[derive(Debug, Clone)]
pub(crate) struct Features {
    pub(super) id: String,
    pub(super) room_id: String,
    pub(super) kind: Kind,
    pub(super) ref_: String,
    pub(super) summary: String,
    pub(super) detail: String,
    pub(super) tags: Vec<String>,
    pub(super) ids: BTreeSet<String>,
    /// The summary's terms ([`crate::index::TextIndex::term_keys`]: no stemming for what
    /// the index has seen) and `ids` hashed, both sorted: what [`strength`] and [`judge`]
    /// compare (a merge of integers, not of strings — a brief compares hundreds of pairs).
    pub(super) term_keys: Vec<u64>,
    pub(super) id_keys: Vec<u64>,
}

fn keys(set: &BTreeSet<String>) -> Vec<u64> {
    use std::hash::{BuildHasher, BuildHasherDefault};
    let h = BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default();
    let mut v: Vec<u64> = set.iter().map(|s| h.hash_one(s)).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The values two sorted lists share, sorted.
fn shared_keys(a: &[u64], b: &[u64]) -> Vec<u64> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// How many values two sorted lists share.
pub(crate) fn shared_count(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

impl Features {
    pub(crate) fn of(ix: &LedgerIndex, e: &Entry) -> Features {
        Features::from_entry(ix, e.clone())
    }

    /// [`Features::of`] an entry the caller no longer needs (its texts are moved, not
    /// copied: a detail is up to 16 KB).
    pub(crate) fn from_entry(ix: &LedgerIndex, e: Entry) -> Features {
        // Compared without redaction markers: they are ours, not the publisher's words.
        let compared = crate::secrets::without_markers(&e.summary);
        let ids = identifiers(&compared);
        let term_keys = ix.text().term_keys(&compared);
        Features {
            id: e.id,
            room_id: e.room_id,
            kind: e.kind,
            ref_: e.ref_,
            summary: e.summary,
            detail: e.detail,
            tags: e.tags,
            term_keys,
            id_keys: keys(&ids),
            ids,
        }
    }

    /// True if this entry's kind is compared with `other`'s, and they are of two rooms.
    pub(crate) fn compared_with(&self, other: &Features) -> bool {
        self.room_id != other.room_id && comparable(self.kind).contains(&other.kind)
    }

    /// True if this entry names `other`'s id in its summary or detail.
    pub(crate) fn names(&self, other: &Features) -> bool {
        self.summary.contains(&other.id) || self.detail.contains(&other.id)
    }
}

/// How strongly `other` is about the same subject as `mine` (`None`: no evidence beyond
/// shared words), without saying why: what ranking many pairs needs. Agrees with [`judge`].
pub(crate) fn strength(mine: &Features, other: &Features) -> Option<f64> {
    let shorter = mine.term_keys.len().min(other.term_keys.len());
    strength_of(
        !mine.ref_.is_empty() && mine.ref_ == other.ref_,
        shared_count(&mine.id_keys, &other.id_keys) > 0,
        // Too few terms on one side to share enough: no merge needed.
        if shorter < MIN_SHARED_TERMS {
            0
        } else {
            shared_count(&mine.term_keys, &other.term_keys)
        },
        shorter,
    )
}

/// [`strength`] from what the two share: a ref, an identifier, how many terms, and the
/// shorter one's number of terms (the whole-ledger pool counts these its own way).
pub(crate) fn strength_of(
    same_ref: bool,
    shared_ids: bool,
    shared_terms: usize,
    shorter: usize,
) -> Option<f64> {
    let mut score = 0.0;
    let mut any = false;
    if same_ref {
        score += 1.0;
        any = true;
    }
    if shared_ids {
        score += 1.0;
        any = true;
    }
    let overlap = shared_terms as f64 / shorter.max(1) as f64;
    if shared_terms >= MIN_SHARED_TERMS && overlap >= MIN_OVERLAP {
        score += overlap;
        any = true;
    }
    any.then_some(score)
}

/// Whether `other` is about the same subject as `mine`, how strongly and why (`None`: no
/// evidence beyond shared words). `cosine` is the semantic side when on.
pub(crate) fn judge(
    ix: &LedgerIndex,
    mine: &Features,
    other: &Features,
    cosine: Option<f64>,
) -> Option<(f64, Vec<String>)> {
    let mut why = Vec::new();
    let mut score = 0.0;
    if !mine.ref_.is_empty() && mine.ref_ == other.ref_ {
        why.push(format!("same ref {}", other.ref_));
        score += 1.0;
    }
    let shared_ids: Vec<&str> = other
        .ids
        .intersection(&mine.ids)
        .map(|s| s.as_str())
        .collect();
    if !shared_ids.is_empty() {
        why.push(format!("identifiers: {}", shared_ids.join(", ")));
        score += 1.0;
    }
    let shared = shared_keys(&mine.term_keys, &other.term_keys);
    let overlap =
        shared.len() as f64 / mine.term_keys.len().min(other.term_keys.len()).max(1) as f64;
    if shared.len() >= MIN_SHARED_TERMS && overlap >= MIN_OVERLAP {
        why.push(format!(
            "words: {} ({:.0} % of the shorter entry's)",
            surface(ix, &mine.summary, &shared).join(", "),
            overlap * 100.0
        ));
        score += overlap;
    }
    if let Some(c) = cosine {
        why.push(format!("cosine {c:.2}"));
        score += c;
    }
    if why.is_empty() {
        return None;
    }
    let shared_tags: Vec<&str> = mine
        .tags
        .iter()
        .filter(|t| other.tags.contains(t))
        .map(|s| s.as_str())
        .collect();
    if !shared_tags.is_empty() {
        why.push(format!("tags: {}", shared_tags.join(", ")));
    }
    Some((score, why))
}

/// Every candidate of [`related`] with evidence, best first, with its position.
fn evidence(
    ix: &LedgerIndex,
    mine: &Features,
    own: Option<u32>,
    now: crate::clock::Timestamp,
    cosine: &dyn Fn(u32) -> Option<f64>,
    near: &[u32],
) -> crate::error::Result<Vec<(u32, Related)>> {
    let kinds = comparable(mine.kind);
    if kinds.is_empty() {
        return Ok(Vec::new());
    }
    let mut text = mine.summary.clone();
    for tag in &mine.tags {
        text.push(' ');
        text.push_str(tag);
    }
    if !mine.ref_.is_empty() {
        text.push(' ');
        text.push_str(&mine.ref_);
    }
    let filter = Filter {
        exclude_room: Some(crate::index::RoomPattern::parse("room", &mine.room_id)?),
        ..Filter::default()
    }
    .compile(ix);
    let scorer = Scorer {
        now,
        half_lives: crate::config::Settings::default().half_life_hours,
        ranking: Ranking::Relevance,
    };
    let mut cands: Vec<u32> = ix
        .search(&text, &filter, CANDIDATES, &scorer)
        .hits
        .iter()
        .map(|h| h.pos)
        .collect();
    for &p in near {
        if !cands.contains(&p) && ix.passes_filter(&filter, p) {
            cands.push(p);
        }
    }
    let mut out = Vec::new();
    for pos in cands {
        if Some(pos) == own || !kinds.contains(&ix.meta(pos).kind) {
            continue;
        }
        let other = Features::from_entry(ix, ix.entry(pos)?);
        let Some((score, why)) = judge(ix, mine, &other, cosine(pos)) else {
            continue;
        };
        out.push((
            pos,
            Related {
                id: other.id.clone(),
                room_id: other.room_id.clone(),
                kind: other.kind.as_str().to_string(),
                summary: other.summary.clone(),
                why,
                score,
            },
        ));
    }
    // Best first; equal scores by position, so the order never depends on the search's.
    out.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then(a.0.cmp(&b.0)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_names_paths_and_mixed_words_not_prose() {
        let ids = identifiers(
            "Services call require_user(scope) at /auth/refresh; keys are UUIDv7, events \
             order.placed, verifyToken; prices in 2026, v1.2 and plain words.",
        );
        for want in [
            "require_user",
            "/auth/refresh",
            "uuidv7",
            "order.placed",
            "verifytoken",
        ] {
            assert!(ids.contains(want), "{want}: {ids:?}");
        }
        for not in ["prices", "2026", "plain", "words"] {
            assert!(!ids.contains(not), "{not}: {ids:?}");
        }
    }
}
