//! Vectors for what others append: a server that runs for long (the daemon, a direct
//! `serve`) embeds the entries it did not publish itself — another host's daemon on the
//! same PostgreSQL ledger, an agent serving directly, a tool appending to the file —
//! in the background, so they are found by meaning without a `semantic backfill`.
//!
//! - The refresh that reads their lines queues their texts ([`Arrivals::queue_new`]);
//!   one thread embeds them outside every lock and stores the vectors as a publish does
//!   (the cache saved every 256). No request waits for it: until its vector is stored an
//!   entry is found lexically, as before.
//! - When the server starts, the entries without a vector are queued the same way if
//!   they are few (the lines appended since the cache was last saved).
//! - Bounded: at most [`AT_ONCE`] entries from one refresh (or at start) and
//!   [`QUEUED_BYTES`] of text waiting; past either the rest is left to `semantic backfill`
//!   (logged, and counted by `semantic status`). One-shot commands never start it.
//! - The thread also saves the cache every 256 vectors stored (a publish's or its own), so
//!   that no publish waits for a save (~0.3 s at 1M entries).
//! - The thread holds the semantic state weakly: when the memory is dropped it ends
//!   within a second, and the state's own drop saves what was embedded.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Duration;

use super::semantic_ops::SemanticState;
use crate::index::LedgerIndex;
use crate::semantic::id_key;

/// Entries queued from one refresh (or at start) at the most; a larger arrival (a first
/// read, a replaced ledger, an import) is `semantic backfill`'s, with its progress line.
pub(crate) const AT_ONCE: usize = 1024;
/// Bytes of text waiting to be embedded at the most.
const QUEUED_BYTES: usize = 8 << 20;
/// Texts embedded in one call.
const BATCH: usize = 16;

/// One entry to embed: its position, id and text.
struct Job {
    pos: u32,
    id: String,
    text: String,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    bytes: usize,
    /// Set when texts were left for want of room (logged once until the queue is empty).
    behind: bool,
}

/// The queue of arrived entries and the thread that embeds them.
pub(crate) struct Arrivals {
    queue: Mutex<Queue>,
    wake: Condvar,
}

impl Arrivals {
    /// Starts the embedding thread for `state` and queues the entries of `ix` without a
    /// vector, if there are at most [`AT_ONCE`].
    pub(crate) fn start(state: &Arc<SemanticState>, ix: &LedgerIndex) -> Arc<Arrivals> {
        let arrivals = Arc::new(Arrivals {
            queue: Mutex::default(),
            wake: Condvar::new(),
        });
        let missing: Vec<u32> = {
            let v = state.vectors.read().unwrap_or_else(|p| p.into_inner());
            (0..ix.len() as u32)
                .filter(|&p| !v.belongs(p, id_key(ix.id(p))))
                .collect()
        };
        if missing.len() > AT_ONCE {
            tracing::warn!(
                entries = missing.len(),
                "entries without a vector are found lexically only; \
                 run `warroom-memory semantic backfill` to embed them"
            );
        } else {
            arrivals.queue(state, ix, &missing);
        }
        let (weak, a) = (Arc::downgrade(state), arrivals.clone());
        let spawned = std::thread::Builder::new()
            .name("embed-arrivals".into())
            .spawn(move || a.run(&weak));
        match spawned {
            // The thread saves the cache from now on, so that no publish waits for a save.
            Ok(_) => state
                .saves_in_background
                .store(true, std::sync::atomic::Ordering::Relaxed),
            Err(e) => tracing::warn!("entries others append will not be embedded: {e}"),
        }
        arrivals
    }

    /// Queues the entries the index gained since it held `before` (a refresh read them).
    pub(crate) fn queue_new(&self, state: &SemanticState, ix: &LedgerIndex, before: usize) {
        let after = ix.len();
        if after <= before {
            return;
        }
        if after - before > AT_ONCE {
            tracing::info!(
                entries = after - before,
                "too many entries arrived at once to embed in the background; \
                 `warroom-memory semantic backfill` embeds them"
            );
            return;
        }
        let new: Vec<u32> = (before as u32..after as u32).collect();
        self.queue(state, ix, &new);
    }

    /// Queues the entries at `positions` that have no vector yet.
    fn queue(&self, state: &SemanticState, ix: &LedgerIndex, positions: &[u32]) {
        let mut jobs = Vec::new();
        {
            let v = state.vectors.read().unwrap_or_else(|p| p.into_inner());
            for &p in positions {
                let id = ix.id(p);
                if v.belongs(p, id_key(id)) {
                    continue;
                }
                // An entry that cannot be read now stays lexical (its problem is reported
                // where the ledger is read).
                let Ok(e) = ix.entry(p) else { continue };
                jobs.push(Job {
                    pos: p,
                    id: id.to_string(),
                    text: crate::semantic::entry_text(&e.summary, &e.tags, &e.detail),
                });
            }
        }
        if jobs.is_empty() {
            return;
        }
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let mut left = 0;
        for job in jobs {
            if q.bytes + job.text.len() > QUEUED_BYTES {
                left += 1;
                continue;
            }
            q.bytes += job.text.len();
            q.jobs.push_back(job);
        }
        let first = left > 0 && !q.behind;
        q.behind |= left > 0;
        drop(q);
        if first {
            tracing::info!(
                entries = left,
                "the background embedding is behind; `warroom-memory semantic backfill` \
                 embeds what it leaves (said once until it catches up)"
            );
        }
        self.wake.notify_one();
    }

    /// The thread: takes a batch, embeds it with no lock held, stores the vectors, saves
    /// the cache when due; ends
    /// when the semantic state is gone.
    fn run(&self, state: &Weak<SemanticState>) {
        loop {
            let batch = self.take(Duration::from_secs(1));
            let Some(s) = state.upgrade() else { return };
            if !batch.is_empty() {
                self.embed(&s, &batch);
            }
            // A publish's row that met a save waits at most a second more.
            s.take_pending();
            if s.save_due() {
                s.save();
            }
        }
    }

    /// Embeds `batch` and stores its vectors.
    fn embed(&self, s: &SemanticState, batch: &[Job]) {
        let Some(embedder) = &s.embedder else { return };
        let texts: Vec<&str> = batch.iter().map(|j| j.text.as_str()).collect();
        match embedder.embed(&texts) {
            Ok(vs) => {
                for (job, v) in batch.iter().zip(vs) {
                    s.store(job.pos, &job.id, &v);
                }
            }
            Err(e) => tracing::warn!(
                entries = batch.len(),
                "arrived entries were not embedded (they are found lexically): {e}"
            ),
        }
    }

    /// Up to [`BATCH`] jobs, waiting at most `wait` for the first.
    fn take(&self, wait: Duration) -> Vec<Job> {
        let q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let (mut q, _) = self
            .wake
            .wait_timeout_while(q, wait, |q| q.jobs.is_empty())
            .unwrap_or_else(|p| p.into_inner());
        let n = q.jobs.len().min(BATCH);
        let batch: Vec<Job> = q.jobs.drain(..n).collect();
        q.bytes -= batch.iter().map(|j| j.text.len()).sum::<usize>();
        if q.jobs.is_empty() {
            q.behind = false;
        }
        batch
    }
}
