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

use super::SemanticState;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::test_support::index_of;
    use crate::semantic::Embedder as _;

    /// The tests' fake model: a dimension for "queue", one for "robot" and a constant.
    fn model() -> crate::semantic::WordClasses {
        crate::semantic::WordClasses {
            classes: vec![vec!["queue"], vec!["robot"]],
        }
    }

    /// A semantic state with the fake model and no cache.
    fn state() -> SemanticState {
        SemanticState::for_tests(3, Some(Arc::new(model())), None)
    }

    /// A vector of the fake model.
    fn vector() -> Vec<f32> {
        model().embed(&["robot"]).unwrap().remove(0)
    }

    /// `n` entries, each with a summary padded to `pad` bytes more and as much detail.
    fn lines(n: usize, pad: usize) -> Vec<String> {
        (0..n)
            .map(|i| {
                serde_json::json!({
                    "id": format!("mem-{i:05}"),
                    "ts": "2026-01-01T00:00:00Z",
                    "kind": "decision",
                    "room_id": format!("room-{}", i % 3),
                    "author_role": "engineer",
                    "ref": "",
                    "tags": [],
                    "summary": format!("entry number {i} about the queue{}", "s".repeat(pad)),
                    "detail": "d".repeat(pad),
                    "supersedes": null,
                })
                .to_string()
            })
            .collect()
    }

    fn idle() -> Arrivals {
        Arrivals {
            queue: Mutex::default(),
            wake: Condvar::new(),
        }
    }

    fn queued(a: &Arrivals) -> Vec<u32> {
        let q = a.queue.lock().unwrap();
        q.jobs.iter().map(|j| j.pos).collect()
    }

    #[test]
    fn what_a_refresh_read_is_queued_unless_it_has_a_vector_or_is_too_much() {
        let ix = index_of(&lines(AT_ONCE + 20, 0));
        let s = state();
        // One of the new entries already has its vector (its publisher stored it).
        s.store(25, "mem-00025", &vector());
        let a = idle();
        a.queue_new(&s, &ix, 20);
        let want: Vec<u32> = (20..AT_ONCE as u32 + 20).filter(|&p| p != 25).collect();
        assert_eq!(queued(&a), want);
        // Nothing new: nothing more. More than AT_ONCE at once: left to the backfill.
        let b = idle();
        b.queue_new(&s, &ix, ix.len());
        b.queue_new(&s, &ix, 19);
        assert!(queued(&b).is_empty());
        b.queue_new(&s, &ix, 0);
        assert!(queued(&b).is_empty(), "a first read is the backfill's");
    }

    #[test]
    fn the_texts_waiting_are_bounded() {
        // Two refreshes of 1,000 entries, each text ~4.6 KB (a 4 KB summary and the 600
        // characters of detail a vector reads): more than QUEUED_BYTES in all.
        let ix = index_of(&lines(2000, 4000));
        let s = state();
        let a = idle();
        // Queued as two refreshes of a thousand new entries each would queue them.
        a.queue(&s, &ix, &(0..1000).collect::<Vec<u32>>());
        assert!(
            !a.queue.lock().unwrap().behind,
            "room for the first thousand"
        );
        a.queue(&s, &ix, &(1000..2000).collect::<Vec<u32>>());
        let q = a.queue.lock().unwrap();
        assert!(q.behind, "said to be behind: {} queued", q.jobs.len());
        assert!(q.bytes <= QUEUED_BYTES && q.bytes > QUEUED_BYTES - 5000);
        assert_eq!(q.bytes, q.jobs.iter().map(|j| j.text.len()).sum::<usize>());
        drop(q);
        // Taken in batches, the count follows, and "behind" ends once it is empty.
        while !a.take(Duration::ZERO).is_empty() {}
        let q = a.queue.lock().unwrap();
        assert_eq!((q.bytes, q.behind), (0, false));
    }

    #[test]
    fn the_thread_embeds_what_is_queued_and_what_was_missing_at_start() {
        let ix = index_of(&lines(40, 0));
        let s = Arc::new(state());
        // 30 entries had a vector; the last 10 did not.
        for p in 0..30u32 {
            s.store(p, &format!("mem-{p:05}"), &vector());
        }
        let _a = Arrivals::start(&s, &ix);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let v = s.vectors.read().unwrap();
            if (0..40u32).all(|p| v.belongs(p, id_key(&format!("mem-{p:05}")))) {
                break;
            }
            drop(v);
            assert!(
                std::time::Instant::now() < deadline,
                "the missing ten were embedded"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        // The thread saves from now on, not a publish.
        assert!(
            s.saves_in_background
                .load(std::sync::atomic::Ordering::Relaxed)
        );
    }
}
