//! The tokenizer cache of the full-text index: each distinct whitespace-separated chunk
//! is tokenized once. Tokenizing (Unicode split, folding, stop words, Snowball stemming,
//! identifier splitting) dominates indexing, and text repeats a small vocabulary.
//!
//! Exact: the tokenizer never joins text across whitespace, so tokenizing chunk by chunk
//! yields the same tokens as the whole text (a test in `text` checks).

use foldhash::HashMap;

/// Most whitespace-separated chunks the tokenizer cache remembers; later new chunks are
/// tokenized every time (correct, just slower).
const CHUNK_CACHE_MAX: usize = 200_000;

/// Entries of the direct-mapped hot cache (32 bytes each: 128 KiB, fits in L2).
const HOT_SLOTS: usize = 4096;
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
/// byte comparison); the rest go through a map of 64-bit hashes whose chunk bytes and ids
/// live in two contiguous arenas.
pub(super) struct ChunkCache {
    hot: Box<[Hot]>,
    by_hash: HashMap<u64, u32>,
    slots: Vec<(u32, u32, u32, u32)>, // (text start, text len, ids start, ids len)
    text: Vec<u8>,
    ids: Vec<u32>,
    hasher: foldhash::fast::FixedState,
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
            by_hash: HashMap::default(),
            slots: Vec::new(),
            text: Vec::new(),
            ids: Vec::new(),
            hasher: foldhash::fast::FixedState::default(),
        }
    }
}

impl ChunkCache {
    pub(super) fn hash(&self, chunk: &str) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one(chunk)
    }

    /// The hot slot's answer for `chunk`: `Some(None)` no term, `Some(Some(id))` one term.
    pub(super) fn hot_get(&self, hash: u64, chunk: &str) -> Option<Option<u32>> {
        let h = &self.hot[hash as usize % HOT_SLOTS];
        (usize::from(h.len) == chunk.len() && &h.bytes[..chunk.len()] == chunk.as_bytes())
            .then_some((h.id != NO_TERM).then_some(h.id))
    }

    pub(super) fn hot_put(&mut self, hash: u64, chunk: &str, ids: &[u32]) {
        if chunk.len() <= 27 && ids.len() <= 1 {
            let h = &mut self.hot[hash as usize % HOT_SLOTS];
            h.len = chunk.len() as u8;
            h.bytes[..chunk.len()].copy_from_slice(chunk.as_bytes());
            h.id = ids.first().copied().unwrap_or(NO_TERM);
        }
    }

    pub(super) fn get(&self, hash: u64, chunk: &str) -> Option<&[u32]> {
        let &slot = self.by_hash.get(&hash)?;
        let (ts, tl, is, il) = self.slots[slot as usize];
        (&self.text[ts as usize..(ts + tl) as usize] == chunk.as_bytes())
            .then(|| &self.ids[is as usize..(is + il) as usize])
    }

    pub(super) fn insert(&mut self, hash: u64, chunk: &str, ids: &[u32]) {
        if self.slots.len() >= CHUNK_CACHE_MAX || self.by_hash.contains_key(&hash) {
            return; // full, or a (rare) 64-bit hash collision: just don't cache
        }
        let slot = (
            self.text.len() as u32,
            chunk.len() as u32,
            self.ids.len() as u32,
            ids.len() as u32,
        );
        self.text.extend_from_slice(chunk.as_bytes());
        self.ids.extend_from_slice(ids);
        self.by_hash.insert(hash, self.slots.len() as u32);
        self.slots.push(slot);
    }

    pub(super) fn heap_bytes(&self) -> usize {
        HOT_SLOTS * std::mem::size_of::<Hot>()
            + self.by_hash.capacity() * 16
            + self.slots.capacity() * 16
            + self.text.capacity()
            + self.ids.capacity() * 4
    }
}
