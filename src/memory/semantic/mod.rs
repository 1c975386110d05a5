//! Semantic ranking in the core (see [`crate::semantic`]): the embedder and the vectors
//! beside the index, what a publish embeds, `semantic backfill` and `semantic status`, and
//! the fused re-ranking of a search. Storing and saving the vectors is [`save`]; the background embedding of arrivals
//! [`arrivals`]; the brief's ranking by meaning [`brief`].
//!
//! Nothing here fails a call because of the model: a model that does not load leaves the
//! memory lexical (the reason is logged and shown by `semantic status`); an embedding that
//! fails leaves that entry (or query) lexical.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

pub(super) mod arrivals;
pub(super) mod brief;

use super::Memory;
use crate::error::{Error, Result};
use crate::index::{Compiled, LedgerIndex, Scorer, SearchHit};
use crate::overlap::rounds::Rounds as _;
use crate::semantic::cache::CachePlace;
use crate::semantic::{Embedder, Fused, POOL, SemanticSettings, Vectors, entry_text, fuse, id_key};

/// An entry's place in the vectors: its ledger position and its id's key.
type Slot = (u32, u64);

/// Vectors embedded since the last save after which a publish saves the cache again.
const SAVE_EVERY: usize = 256;
/// Query vectors kept (a plan's brief keywords are asked again and again); past it the
/// cache starts over.
const QUERIES_KEPT: usize = 256;

/// The semantic side of one memory.
/// What semantic ranking keeps, owned here and held by `Memory` as one field.
pub(super) struct Semantic {
    /// The model and the entries' vectors; None when `semantic` is off.
    pub(super) state: Option<Arc<SemanticState>>,
    /// Set by a server that runs for long ([`Memory::embed_arrivals`]): what others append
    /// is embedded in the background.
    pub(super) arrivals: std::sync::OnceLock<Arc<arrivals::Arrivals>>,
}

pub(crate) struct SemanticState {
    pub embedder: Option<Arc<dyn Embedder>>,
    /// Why the model did not load, when it did not.
    pub error: Option<String>,
    pub vectors: RwLock<Vectors>,
    pub cache: Option<CachePlace>,
    pub weight: f64,
    /// From which cosine a publish's neighbour is the same subject on its own.
    pub overlap_cosine: f64,
    unsaved: AtomicUsize,
    /// Set when a server's background thread saves the cache ([`arrivals`]):
    /// a publish then never pays for a save (~0.3 s at 1M entries).
    pub(crate) saves_in_background: AtomicBool,
    /// Set while [`SemanticState::save`] writes the file: a store then does not wait.
    saving: AtomicBool,
    /// Rows stored while a save held the vectors (position, id key, vector).
    pending: std::sync::Mutex<Vec<(u32, u64, Vec<f32>)>>,
    /// The cache file as this process last read or wrote it: when it differs at a save,
    /// another process saved since, and the rows it has that this one lacks are kept.
    seen: std::sync::Mutex<Option<crate::semantic::cache::Stamp>>,
    /// Query text → its vector: a search or a brief embeds its text before it takes the
    /// index's lock ([`SemanticState::query`]), and finds it here under the lock.
    queries: std::sync::Mutex<std::collections::HashMap<String, Arc<Vec<f32>>>>,
}

/// What `semantic status` reports.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct SemanticStatus {
    /// True if `semantic: on`.
    pub on: bool,
    /// The model's name, when it loaded.
    pub model: Option<String>,
    /// The model's id (a hash of its weights).
    pub model_id: Option<String>,
    /// Why the model did not load (ranking is lexical meanwhile).
    pub error: Option<String>,
    /// Dimensions of a vector.
    pub dimensions: usize,
    /// Entries in the index.
    pub entries: usize,
    /// Entries with a vector.
    pub with_vector: usize,
    /// Entries without one (found lexically only until `semantic backfill`).
    pub without_vector: usize,
    /// The cache file and its size in bytes.
    pub cache: Option<String>,
    /// Bytes of the cache file.
    pub cache_bytes: u64,
    /// The lexical side's weight in the fusion.
    pub weight: f64,
}

/// What a backfill did.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Backfilled {
    /// Entries embedded now.
    pub embedded: usize,
    /// Entries that already had a vector.
    pub already: usize,
    /// Entries whose embedding failed (left lexical).
    pub failed: usize,
    /// True if it was stopped before the end (what was done is saved).
    pub interrupted: bool,
}

/// The semantic state for `settings`, for the ledger `label` whose index is `ix`.
pub(crate) fn open(
    settings: &SemanticSettings,
    place: Option<&crate::snapshot::SnapshotPlace>,
    label: &str,
    ix: &LedgerIndex,
) -> Option<Arc<SemanticState>> {
    if !settings.on {
        return None;
    }
    let (embedder, error) = match crate::semantic::load(settings) {
        Ok(e) => (Some(e), None),
        Err(e) => {
            tracing::warn!("semantic ranking is off, ranking stays lexical: {e}");
            (None, Some(e))
        }
    };
    let dims = embedder.as_ref().map_or(0, |e| e.dims());
    let cache = match (&embedder, place) {
        (Some(e), Some(p)) => Some(CachePlace::new(p, label, e.model_id())),
        _ => None,
    };
    // Before it is read: a save by another process meanwhile is then taken in at ours.
    let seen = cache.as_ref().and_then(CachePlace::stamp);
    let vectors = match &cache {
        Some(c) => {
            let keep =
                |pos: u32, key: u64| (pos as usize) < ix.len() && id_key(ix.id(pos)) == key.max(1);
            match c.load(dims, &keep) {
                Ok(v) => v,
                Err(e) => {
                    if e.kind() != std::io::ErrorKind::NotFound {
                        tracing::warn!(file = %c.file.display(), "vector cache not used: {e}");
                    }
                    Vectors::new(dims)
                }
            }
        }
        None => Vectors::new(dims),
    };
    let mut state = SemanticState::new(embedder, vectors, cache, seen);
    state.error = error;
    state.weight = settings.weight;
    state.overlap_cosine = settings.overlap_cosine;
    Some(Arc::new(state))
}

impl SemanticState {
    /// A state of `dims` dimensions with `embedder` and `cache`, its vectors read from
    /// the cache if there are any (for unit tests of the modules that use it).
    #[cfg(test)]
    pub(crate) fn for_tests(
        dims: usize,
        embedder: Option<Arc<dyn Embedder>>,
        cache: Option<CachePlace>,
    ) -> SemanticState {
        let seen = cache.as_ref().and_then(CachePlace::stamp);
        let vectors = cache
            .as_ref()
            .and_then(|c| c.load(dims, &|_, _| true).ok())
            .unwrap_or_else(|| Vectors::new(dims));
        SemanticState::new(embedder, vectors, cache, seen)
    }

    /// A state holding `vectors` (read from `cache`, whose stamp was `seen` before), with
    /// the default weight and overlap cosine and nothing stored since.
    fn new(
        embedder: Option<Arc<dyn Embedder>>,
        vectors: Vectors,
        cache: Option<CachePlace>,
        seen: Option<crate::semantic::cache::Stamp>,
    ) -> SemanticState {
        SemanticState {
            embedder,
            error: None,
            vectors: RwLock::new(vectors),
            cache,
            weight: crate::semantic::DEFAULT_WEIGHT,
            overlap_cosine: crate::semantic::DEFAULT_OVERLAP_COSINE,
            unsaved: AtomicUsize::new(0),
            saves_in_background: AtomicBool::new(false),
            saving: AtomicBool::new(false),
            pending: std::sync::Mutex::default(),
            seen: std::sync::Mutex::new(seen),
            queries: std::sync::Mutex::default(),
        }
    }

    /// The vector of an entry about to be published (None: off, or it failed — logged).
    pub(crate) fn embed_one(&self, text: &str) -> Option<Vec<f32>> {
        let e = self.embedder.as_ref()?;
        match e.embed(&[text]) {
            Ok(mut v) => v.pop(),
            Err(err) => {
                tracing::warn!("an entry was not embedded (it is found lexically): {err}");
                None
            }
        }
    }

    /// The vector of a query text, embedded once and kept (None: off, or it failed —
    /// logged). Call it before taking the index's lock: the embedding is the slow part.
    pub(crate) fn query(&self, text: &str) -> Option<Arc<Vec<f32>>> {
        let kept = |s: &Self| {
            s.queries
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get(text)
                .cloned()
        };
        if let Some(v) = kept(self) {
            return Some(v);
        }
        let v = Arc::new(self.embed_one(text)?);
        let mut q = self.queries.lock().unwrap_or_else(|p| p.into_inner());
        if q.len() >= QUERIES_KEPT {
            q.clear();
        }
        q.insert(text.to_string(), v.clone());
        Some(v)
    }
}

/// A hit re-ranked with its semantic parts.
pub(crate) struct FusedHit {
    pub hit: SearchHit,
    pub parts: Fused,
}

/// A fused search: its best hits, and how many entries with a score it found that no
/// query word matches (what meaning adds to the lexical matches' count).
pub(crate) struct FusedSearch {
    pub hits: Vec<FusedHit>,
    pub by_meaning_only: usize,
}

impl Memory {
    pub(crate) fn semantic(&self) -> Option<&Arc<SemanticState>> {
        self.semantic.state.as_ref()
    }

    /// Re-ranks a search: the lexical pool (`lexical`, scored up to [`POOL`]) and the
    /// [`POOL`] nearest vectors passing `filter`, fused, times the time factor; the best
    /// `limit`. A near entry past the lexical pool keeps its own BM25F (a weak match is
    /// still one). None when semantic ranking is off or the query could not be embedded.
    pub(crate) fn fused(
        &self,
        ix: &LedgerIndex,
        text: &str,
        filter: &Compiled,
        lexical: &[SearchHit],
        limit: usize,
        scorer: &Scorer,
    ) -> Option<FusedSearch> {
        let s = self.semantic.state.as_ref()?;
        let q = s.query(text)?;
        let terms = ix.text().query(text);
        let ideal: f64 = terms.iter().map(|t| t.idf).sum();
        let vectors = s.vectors.read().unwrap_or_else(|p| p.into_inner());
        let near = vectors.nearest(&q, POOL, &|pos| {
            (pos as usize) < ix.len() && ix.passes_filter(filter, pos)
        });
        let mut cands: Vec<(u32, f64)> = lexical.iter().map(|h| (h.pos, h.bm25)).collect();
        let scoring = scorer.ranking.scoring();
        for (pos, _) in &near {
            if !cands.iter().any(|c| c.0 == *pos) {
                cands.push((*pos, ix.text().score_one(&terms, scoring, *pos)));
            }
        }
        let cosines: Vec<f64> = cands
            .iter()
            .map(|&(pos, _)| {
                let key = id_key(ix.id(pos));
                vectors.cosine_of(pos, key, &q).map_or(0.0, f64::from)
            })
            .collect();
        let base = crate::semantic::baseline(&cosines);
        let mut out: Vec<FusedHit> = cands
            .into_iter()
            .zip(cosines)
            .map(|((pos, bm25), cos)| {
                let parts = fuse(bm25, ideal, cos, base, s.weight);
                let mut hit = ix.hit_at(pos, parts.relevance, scorer);
                hit.bm25 = bm25;
                FusedHit { hit, parts }
            })
            .collect();
        out.sort_by(|a, b| {
            b.hit
                .score
                .total_cmp(&a.hit.score)
                .then_with(|| ix.meta(b.hit.pos).ts.cmp(&ix.meta(a.hit.pos).ts))
                .then_with(|| b.hit.pos.cmp(&a.hit.pos))
        });
        out.retain(|f| f.hit.score > 0.0);
        let by_meaning_only = out.iter().filter(|f| f.hit.bm25 == 0.0).count();
        out.truncate(limit);
        Some(FusedSearch {
            hits: out,
            by_meaning_only,
        })
    }

    /// `semantic status`.
    pub fn semantic_status(&self) -> Result<SemanticStatus> {
        let state = self.fresh_read()?;
        let entries = state.ledger.index().len();
        let Some(s) = &self.semantic.state else {
            return Ok(SemanticStatus {
                on: false,
                model: None,
                model_id: None,
                error: None,
                dimensions: 0,
                entries,
                with_vector: 0,
                without_vector: entries,
                cache: None,
                cache_bytes: 0,
                weight: crate::semantic::DEFAULT_WEIGHT,
            });
        };
        let v = s.vectors.read().unwrap_or_else(|p| p.into_inner());
        let with = (0..entries as u32).filter(|&p| v.has(p)).count();
        Ok(SemanticStatus {
            on: true,
            model: s.embedder.as_ref().map(|e| e.name().to_string()),
            model_id: s.embedder.as_ref().map(|e| e.model_id().to_string()),
            error: s.error.clone(),
            dimensions: v.dims(),
            entries,
            with_vector: with,
            without_vector: entries - with,
            cache: s.cache.as_ref().map(|c| c.file.display().to_string()),
            cache_bytes: s.cache.as_ref().map_or(0, CachePlace::size),
            weight: s.weight,
        })
    }

    /// `semantic backfill`: embeds every entry without a vector, `threads` at a time in
    /// batches, saving the cache after every batch round (so a stop loses at most one
    /// round); `progress(done, total)` after each round; `stop` ends it between rounds.
    pub fn semantic_backfill(
        &self,
        threads: usize,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Backfilled> {
        let Some(s) = &self.semantic.state else {
            return Err(Error::invalid(
                "semantic",
                "semantic ranking is off",
                "set `semantic: on` in .agents/warroom.yaml (or WARROOM_SEMANTIC=on)",
            ));
        };
        let Some(embedder) = &s.embedder else {
            return Err(Error::Refused(format!(
                "the model did not load: {}",
                s.error.as_deref().unwrap_or("unknown")
            )));
        };
        // The index is read a round at a time (its lock never held while embedding): the
        // entries without a vector when the backfill began.
        let rd = super::index_rounds::Locked(self);
        let (mut basis, mut missing, mut entries) = (None, Vec::new(), 0);
        rd.round(&mut |ix| {
            basis = Some(crate::overlap::rounds::Basis::of(ix));
            let v = s.vectors.read().unwrap_or_else(|p| p.into_inner());
            missing = (0..ix.len() as u32)
                .filter(|&p| !v.belongs(p, id_key(ix.id(p))))
                .collect();
            entries = ix.len();
            Ok(())
        })?;
        let basis = basis.expect("set by the round");
        let already = entries - missing.len();
        let total = missing.len();
        let (mut embedded, mut failed, mut interrupted) = (0, 0, false);
        const BATCH: usize = 32;
        // The cache is written whole (tens of MB at 100k entries, MAC'd): every round
        // would cost more than the embedding. Every few seconds instead; a Ctrl-C (the
        // stop flag) still saves everything before returning.
        const SAVE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(10);
        let mut saved = std::time::Instant::now();
        for round in missing.chunks(BATCH * threads.max(1)) {
            if stop.load(Ordering::Relaxed) {
                interrupted = true;
                break;
            }
            // (position, id key, text) of each.
            let mut texts: Vec<(u32, u64, String)> = Vec::with_capacity(round.len());
            rd.round(&mut |ix| {
                basis.check(ix)?;
                for &p in round {
                    let e = ix.entry(p)?;
                    texts.push((
                        p,
                        id_key(ix.id(p)),
                        entry_text(&e.summary, &e.tags, &e.detail),
                    ));
                }
                Ok(())
            })?;
            let results: Vec<(Slot, Option<Vec<f32>>)> = std::thread::scope(|scope| {
                let handles: Vec<_> = texts
                    .chunks(BATCH)
                    .map(|chunk| {
                        let embedder = embedder.clone();
                        scope.spawn(move || {
                            let refs: Vec<&str> =
                                chunk.iter().map(|(_, _, t)| t.as_str()).collect();
                            match embedder.embed(&refs) {
                                Ok(vs) => chunk
                                    .iter()
                                    .map(|&(p, key, _)| (p, key))
                                    .zip(vs.into_iter().map(Some))
                                    .collect(),
                                Err(e) => {
                                    tracing::warn!("a batch was not embedded: {e}");
                                    chunk
                                        .iter()
                                        .map(|&(p, key, _)| ((p, key), None))
                                        .collect::<Vec<_>>()
                                }
                            }
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().unwrap_or_default())
                    .collect()
            });
            {
                let mut v = s.vectors.write().unwrap_or_else(|p| p.into_inner());
                for ((p, key), vec) in results {
                    match vec {
                        Some(vec) => {
                            v.set(p, key, &vec);
                            embedded += 1;
                        }
                        None => failed += 1,
                    }
                }
            }
            if saved.elapsed() >= SAVE_INTERVAL {
                s.save();
                saved = std::time::Instant::now();
            }
            progress(embedded + failed, total);
        }
        s.save();
        Ok(Backfilled {
            embedded,
            already,
            failed,
            interrupted,
        })
    }
}

mod save;

#[cfg(test)]
mod tests;
