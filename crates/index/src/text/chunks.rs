//! The tokenizer cache of the full-text index: each distinct whitespace-separated chunk
//! is tokenized once. Tokenizing (Unicode split, folding, stop words, Snowball stemming,
//! identifier splitting) dominates indexing, and text repeats a small vocabulary.
//!
//! Exact: the tokenizer never joins text across whitespace, so tokenizing chunk by chunk
//! yields the same tokens as the whole text (a test in `text` checks).

use foldhash::HashMap;

/// Chunks longer than this (URLs, hashes) rarely repeat: tokenized without the cache.
pub(crate) const CACHED_CHUNK_MAX: usize = 64;

/// Most whitespace-separated chunks the tokenizer cache remembers; later new chunks are
/// tokenized every time (correct, just slower).
const CHUNK_CACHE_MAX: usize = 200_000;

/// Entries of the direct-mapped hot cache (32 bytes each: 512 KiB, fits in L2).
const HOT_SLOTS: usize = 16384;
/// "This chunk has no term" (a stop word or punctuation) in the hot cache.
const NO_TERM: u32 = u32::MAX;

/// One hot-cache slot: a short chunk stored inline with its single term id.
#[derive(Clone, Copy)]
struct Hot {
    len: u8,
    bytes: [u8; 27],
    id: u32,
}

/// Chunk → term ids, laid out for few cache misses. Frequent short chunks that map to at
/// most one term sit inline in a direct-mapped array (one cache line per lookup, exact
/// byte comparison); the rest go through a table of slots whose chunk bytes and ids live
/// in two contiguous arenas.
///
/// The cold part is full during a first read's peak (200,000 chunks), so it is laid out
/// small: a slot is filed in the table as its number (4 bytes and a control byte; its
/// hash is recomputed from its bytes when the table grows), and where its bytes and ids
/// end (8 bytes; they start where the previous slot's end). A map of 64-bit hashes to
/// 16-byte slots took about twice as much.
pub(crate) struct ChunkCache {
    hot: Box<[Hot]>,
    table: hashbrown::HashTable<u32>,
    /// Per slot: where its chunk's bytes end in `text` and its ids in `ids`.
    ends: Vec<(u32, u32)>,
    text: Vec<u8>,
    ids: Vec<u32>,
}

impl Default for ChunkCache {
    fn default() -> Self {
        let empty = Hot {
            len: u8::MAX,
            bytes: [0; 27],
            id: NO_TERM,
        };
        ChunkCache {
            hot: vec![empty; HOT_SLOTS].into_boxed_slice(),
            table: hashbrown::HashTable::new(),
            ends: Vec::new(),
            text: Vec::new(),
            ids: Vec::new(),
        }
    }
}

impl ChunkCache {
    pub(crate) fn hash(&self, chunk: &str) -> u64 {
        hash(chunk)
    }

    /// The hot slot's answer for `chunk`: `Some(None)` no term, `Some(Some(id))` one term.
    pub(crate) fn hot_get(&self, hash: u64, chunk: &str) -> Option<Option<u32>> {
        let h = &self.hot[hash as usize % HOT_SLOTS];
        (usize::from(h.len) == chunk.len() && &h.bytes[..chunk.len()] == chunk.as_bytes())
            .then_some((h.id != NO_TERM).then_some(h.id))
    }

    pub(crate) fn hot_put(&mut self, hash: u64, chunk: &str, ids: &[u32]) {
        if chunk.len() <= 27 && ids.len() <= 1 {
            let h = &mut self.hot[hash as usize % HOT_SLOTS];
            h.len = chunk.len() as u8;
            h.bytes[..chunk.len()].copy_from_slice(chunk.as_bytes());
            h.id = ids.first().copied().unwrap_or(NO_TERM);
        }
    }

    /// Where slot `slot`'s bytes and ids lie in their arenas.
    #[inline(always)]
    fn spans(ends: &[(u32, u32)], slot: u32) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let (te, ie) = ends[slot as usize];
        let (ts, is) = match slot.checked_sub(1) {
            Some(prev) => ends[prev as usize],
            None => (0, 0),
        };
        (ts as usize..te as usize, is as usize..ie as usize)
    }

    pub(crate) fn get(&self, hash: u64, chunk: &str) -> Option<&[u32]> {
        let (text, ends) = (&self.text, &self.ends);
        let &slot = self
            .table
            .find(hash, |&s| text[Self::spans(ends, s).0] == *chunk.as_bytes())?;
        Some(&self.ids[Self::spans(ends, slot).1])
    }

    /// Files `chunk` (which [`ChunkCache::get`] did not find) with its ids, unless the
    /// cache is full or its arenas would pass 4 GiB.
    pub(crate) fn insert(&mut self, hash: u64, chunk: &str, ids: &[u32]) {
        let (Ok(te), Ok(ie)) = (
            u32::try_from(self.text.len() + chunk.len()),
            u32::try_from(self.ids.len() + ids.len()),
        ) else {
            return;
        };
        if self.ends.len() >= CHUNK_CACHE_MAX {
            return; // full: later chunks are tokenized every time
        }
        self.text.extend_from_slice(chunk.as_bytes());
        self.ids.extend_from_slice(ids);
        self.ends.push((te, ie));
        let Self {
            table, text, ends, ..
        } = self;
        let slot = (ends.len() - 1) as u32;
        table.insert_unique(hash, slot, |&s| {
            // The bytes of whole chunks, each once a `&str`: valid UTF-8.
            let bytes = &text[Self::spans(ends, s).0];
            crate::chunks::hash(std::str::from_utf8(bytes).unwrap_or_default())
        });
    }

    /// Forgets every chunk but the hot ones: after a bulk load, where the cache pays
    /// (tokenizing dominates reading a ledger whole), it would hold its ~17 MB for good
    /// for entries that then come one at a time (the memory at a first start).
    pub(crate) fn forget_cold(&mut self) {
        self.table = hashbrown::HashTable::new();
        self.ends = Vec::new();
        self.text = Vec::new();
        self.ids = Vec::new();
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        HOT_SLOTS * std::mem::size_of::<Hot>()
            + self.table.capacity() * 8 / 7 * 5
            + self.ends.capacity() * 8
            + self.text.capacity()
            + self.ids.capacity() * 4
    }
}

/// Chunks a thread's memo of term keys holds at most (then it starts over): ~100 bytes
/// each, so at most ~5 MB a thread — the 100k bench ledger's summaries have 20,000
/// distinct chunks.
const MEMO_MAX: usize = 50_000;

/// A thread's memo for [`crate::TextIndex::term_keys`]: chunk → its keys, for one index in
/// one state (its generation and number of terms).
#[derive(Default)]
struct KeyMemo {
    stamp: (u64, usize),
    keys: HashMap<Box<str>, Box<[u64]>>,
}

thread_local! {
    static MEMO: std::cell::RefCell<KeyMemo> = std::cell::RefCell::new(KeyMemo::default());
}

/// Appends `chunk`'s term keys to `out`: from this thread's memo if it was computed for
/// the same index state `stamp`, else with `compute` (which appends them), remembered.
/// After a snapshot start the chunk cache is empty and cannot fill while readers share
/// the index, so without this every word a read path keys (the overlaps pool, the reasons
/// of every pair) was tokenized and stemmed again: 16 % of `overlaps` at 100k entries.
/// A term the index learns changes the keys of chunks it was unknown in: a new number of
/// terms (or another index) starts the memo over.
pub(crate) fn memo_keys(
    stamp: (u64, usize),
    chunk: &str,
    out: &mut Vec<u64>,
    compute: impl FnOnce(&mut Vec<u64>),
) {
    if chunk.len() > CACHED_CHUNK_MAX {
        return compute(out);
    }
    MEMO.with_borrow_mut(|m| {
        if m.stamp != stamp || m.keys.len() >= MEMO_MAX {
            m.keys.clear();
            m.stamp = stamp;
        }
        if let Some(keys) = m.keys.get(chunk) {
            out.extend_from_slice(keys);
            return;
        }
        let start = out.len();
        compute(out);
        m.keys.insert(chunk.into(), out[start..].into());
    });
}

/// The hash the cache keys `chunk` by (a fixed seed: the same in every cache and cut).
pub(crate) fn hash(chunk: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::default().hash_one(chunk)
}

/// One whitespace-separated chunk of a [`Cut`]'s text and its [`hash`] (0 if it is
/// longer than [`CACHED_CHUNK_MAX`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chunk {
    start: u32,
    len: u32,
    pub(crate) hash: u64,
}

/// Entries' four fields (summary, tags, detail, ref) cut at whitespace into hashed
/// chunks: where indexing an entry starts, apart from the cache, so that a first read
/// does it on the reading thread ([`crate::inverted_job`]) and a publish on its own.
#[derive(Debug, Default)]
pub(crate) struct Cut {
    text: String,
    chunks: Vec<Chunk>,
    /// Per entry: its document number and each field's range in `chunks`.
    docs: Vec<(u32, [(u32, u32); 4])>,
}

impl Cut {
    /// Empties it, keeping its buffers.
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.chunks.clear();
        self.docs.clear();
    }

    /// Entries held.
    pub(crate) fn len(&self) -> usize {
        self.docs.len()
    }

    /// Bytes of text held.
    pub(crate) fn bytes(&self) -> usize {
        self.text.len()
    }

    /// Cuts document `doc`'s fields. A text is at most a ledger line (16 MiB), and a cut is
    /// handed on long before 4 GiB: positions fit in `u32`.
    pub(crate) fn push<'t>(
        &mut self,
        doc: u32,
        summary: &str,
        tags: impl IntoIterator<Item = &'t str>,
        detail: &str,
        ref_: &str,
    ) {
        let mut fields = [(0u32, 0u32); 4];
        let mut cut = |texts: &mut dyn Iterator<Item = &str>| {
            let start = self.chunks.len() as u32;
            for t in texts {
                let base = self.text.len();
                self.text.push_str(t);
                for chunk in words(t) {
                    let at = base + (chunk.as_ptr() as usize - t.as_ptr() as usize);
                    self.chunks.push(Chunk {
                        start: at as u32,
                        len: chunk.len() as u32,
                        hash: if chunk.len() <= CACHED_CHUNK_MAX {
                            hash(chunk)
                        } else {
                            0
                        },
                    });
                }
            }
            (start, self.chunks.len() as u32)
        };
        fields[0] = cut(&mut std::iter::once(summary));
        fields[1] = cut(&mut tags.into_iter());
        fields[2] = cut(&mut std::iter::once(detail));
        fields[3] = cut(&mut std::iter::once(ref_));
        self.docs.push((doc, fields));
    }

    /// Entry `i`'s document number and its fields' chunks.
    pub(crate) fn entry(&self, i: usize) -> (u32, [&[Chunk]; 4]) {
        let (doc, fields) = self.docs[i];
        (
            doc,
            fields.map(|(a, b)| &self.chunks[a as usize..b as usize]),
        )
    }

    /// The text of `c`, a chunk of this cut.
    pub(crate) fn text(&self, c: &Chunk) -> &str {
        // A chunk's span is where `split_whitespace` found it in this very text.
        #[allow(clippy::string_slice)]
        &self.text[c.start as usize..(c.start + c.len) as usize]
    }
}

/// The whitespace-separated chunks of `text`, exactly as [`str::split_whitespace`] cuts
/// them; ASCII text (nearly every ledger's) is cut by bytes instead of decoding
/// characters, which a first read does for every word of every entry.
pub(crate) fn words(text: &str) -> Words<'_> {
    Words {
        rest: text,
        unicode: (!text.is_ascii()).then(|| text.split_whitespace()),
    }
}

/// The iterator of [`words`].
pub(crate) struct Words<'a> {
    rest: &'a str,
    unicode: Option<std::str::SplitWhitespace<'a>>,
}

/// What `char::is_whitespace` is true of among ASCII characters.
#[inline(always)]
fn is_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// Where the first whitespace byte of ASCII `bytes` is (its length if none). Eight bytes
/// at a time: a byte below 0x21 is flagged in one subtraction (the lowest flag is exact;
/// the flags above it may not be), and only flagged words are looked at byte by byte.
/// Cutting words was the reading thread's largest share of a first read (`perf`).
#[inline]
fn word_end(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(eight) = bytes.get(i..i + 8) {
        let x = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        let below = x.wrapping_sub(ONES * 0x21) & !x & HIGH;
        if below != 0 {
            let first = i + (below.trailing_zeros() / 8) as usize;
            if let Some(k) = bytes[first..i + 8].iter().position(|&b| is_space(b)) {
                return first + k;
            }
        }
        i += 8;
    }
    bytes[i..]
        .iter()
        .position(|&b| is_space(b))
        .map_or(bytes.len(), |k| i + k)
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if let Some(u) = &mut self.unicode {
            return u.next();
        }
        let bytes = self.rest.as_bytes();
        let start = bytes.iter().position(|&b| !is_space(b))?;
        let len = word_end(&bytes[start..]);
        // ASCII text: every byte position is a character boundary.
        #[allow(clippy::string_slice)]
        let word = &self.rest[start..start + len];
        #[allow(clippy::string_slice)]
        let rest = &self.rest[start + len..];
        self.rest = rest;
        Some(word)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// `words` of these characters cuts where `split_whitespace` does.
    fn cut_like_split_whitespace(chars: Vec<char>) -> Result<(), TestCaseError> {
        let text: String = chars.into_iter().collect();
        let ours: Vec<&str> = super::words(&text).collect();
        let std: Vec<&str> = text.split_whitespace().collect();
        prop_assert_eq!(ours, std);
        Ok(())
    }

    proptest! {
        /// `words` cuts exactly where `split_whitespace` does, ASCII or not.
        #[test]
        fn words_cut_like_split_whitespace(
            text in proptest::collection::vec(
                prop_oneof![
                    Just(' '), Just('\t'), Just('\n'), Just('\u{b}'), Just('\u{c}'), Just('\r'),
                    Just('\u{1c}'), Just('\u{85}'), Just('\u{a0}'), Just('\u{2003}'), Just('a'),
                    Just('Z'), Just('.'), Just('é'), Just('中'), Just('\u{0}'), Just('\u{8}'),
                    Just('\u{e}'), Just('\u{1f}'), Just('!'), Just('~'), Just('\u{7f}'),
                ],
                0..40,
            )
        ) {
            cut_like_split_whitespace(text)?;
        }

        /// ASCII text, cut eight bytes at a time: words longer and shorter than eight,
        /// control bytes that are not whitespace (below 0x21 like the spaces), at every
        /// alignment.
        #[test]
        fn ascii_words_cut_like_split_whitespace(
            text in proptest::collection::vec(
                prop_oneof![
                    12 => Just('a'), 2 => Just('Z'), 1 => Just('!'), 1 => Just('~'),
                    1 => Just('\u{7f}'), 3 => Just(' '), 1 => Just('\t'), 1 => Just('\n'),
                    1 => Just('\u{b}'), 1 => Just('\u{c}'), 1 => Just('\r'), 1 => Just('\u{0}'),
                    1 => Just('\u{8}'), 1 => Just('\u{e}'), 1 => Just('\u{1c}'),
                    1 => Just('\u{1f}'),
                ],
                0..120,
            )
        ) {
            cut_like_split_whitespace(text)?;
        }
    }

    #[test]
    fn every_chunk_filed_comes_back_with_its_ids_until_the_cache_is_full() {
        use super::{CHUNK_CACHE_MAX, ChunkCache, hash};
        let mut cache = ChunkCache::default();
        let chunk = |i: usize| format!("chunk-{i}-é");
        let ids = |i: usize| {
            (0..(i % 4) as u32)
                .map(|k| i as u32 * 10 + k)
                .collect::<Vec<_>>()
        };
        // Past several growths of the table, then past the cap.
        for i in 0..CHUNK_CACHE_MAX + 10 {
            let c = chunk(i);
            assert_eq!(cache.get(hash(&c), &c), None, "{c} before it is filed");
            cache.insert(hash(&c), &c, &ids(i));
        }
        for i in (0..CHUNK_CACHE_MAX)
            .step_by(997)
            .chain([0, CHUNK_CACHE_MAX - 1])
        {
            let c = chunk(i);
            assert_eq!(cache.get(hash(&c), &c), Some(&ids(i)[..]), "{c}");
        }
        for i in CHUNK_CACHE_MAX..CHUNK_CACHE_MAX + 10 {
            let c = chunk(i);
            assert_eq!(
                cache.get(hash(&c), &c),
                None,
                "{c} came after the cache was full"
            );
        }
        // Another chunk under a filed chunk's hash is not taken for it.
        let c = chunk(5);
        assert_eq!(cache.get(hash(&c), "chunk-5-e"), None);
        cache.forget_cold();
        assert_eq!(cache.get(hash(&c), &c), None);
    }
}
