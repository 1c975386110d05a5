//! A first read's text index on a thread of its own (issue #44): the two-stage pipeline.
//!
//! Reading a whole ledger applies every entry through [`super::LedgerIndex::apply`], the
//! one mutation path, in file order. About half of that time is the text index's share —
//! tokenizing through the chunk cache, giving term ids, sorting each entry's (term, field)
//! pairs, appending postings — and that share depends on nothing else an entry changes.
//! So during a bulk load into an empty index on a machine with two cores or more, the
//! [`TextIndex`] moves to a thread of its own: the reading thread parses each line and
//! does the rest of `apply` (ids, supersedes, cells, time order), cuts the entry's four
//! texts at whitespace and hashes the chunks ([`super::chunks::Cut`]), and hands them over
//! in batches on a bounded channel; the text thread looks the chunks up in its cache, gives
//! term ids and appends postings, in the order they came. Same calls, same order as on one thread: the index is the same bit for
//! bit (term ids, postings, lengths — a test compares the snapshots' bytes).
//!
//! What the rest of `apply` writes into the text index's per-document records (each
//! entry's slot: its cell, kind and superseded bit) is kept in [`Away::slots`] meanwhile,
//! and written into the records when the thread hands the index back at the end of the
//! load. Nothing searches during a bulk load, so nothing reads the index half-built.
//! [`LedgerIndex::begin_bulk`] and [`LedgerIndex::end_bulk`] are here, with the slots.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use super::LedgerIndex;
use super::chunks::Cut;
use super::text::TextIndex;

/// Entries per batch handed over (fewer when their texts pass [`BATCH_BYTES`]).
const BATCH_DOCS: usize = 256;
/// Text bytes after which a batch is handed over whatever its count.
const BATCH_BYTES: usize = 256 << 10;
/// Batches in flight: the reading thread waits when the text thread is this far behind.
const IN_FLIGHT: usize = 2;

/// The text index while it is away on its thread, and the slots written meanwhile.
pub(super) struct Away {
    job: TextJob,
    /// Per position: the slot `apply` gave it (see [`super::LedgerIndex::slot`]).
    pub(super) slots: Vec<u32>,
}

impl std::fmt::Debug for Away {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Away")
            .field("slots", &self.slots.len())
            .finish()
    }
}

impl Away {
    /// Moves `text` to a thread of its own; gives it back if no thread could be started.
    pub(super) fn start(text: TextIndex) -> Result<Away, Box<TextIndex>> {
        let (tx, rx) = sync_channel::<Cut>(IN_FLIGHT);
        let (give, take) = sync_channel::<TextIndex>(1);
        let spawned = std::thread::Builder::new()
            .name("index-text".into())
            .spawn(move || run(&take, &rx));
        let handle = match spawned {
            Ok(h) => h,
            Err(e) => {
                tracing::debug!(error = %e, "no thread for the text index; one core it is");
                return Err(Box::new(text));
            }
        };
        // The thread is waiting for it: the channel has room for one.
        if let Err(std::sync::mpsc::SendError(text)) = give.send(text) {
            let _ = handle.join();
            return Err(Box::new(text));
        }
        Ok(Away {
            job: TextJob {
                tx: Some(tx),
                batch: Cut::default(),
                handle: Some(handle),
            },
            slots: Vec::new(),
        })
    }

    /// Hands document `doc`'s texts over, cut into chunks (documents must come in order).
    pub(super) fn add<'t>(
        &mut self,
        doc: u32,
        summary: &str,
        tags: impl IntoIterator<Item = &'t str>,
        detail: &str,
        ref_: &str,
    ) {
        let b = &mut self.job.batch;
        b.push(doc, summary, tags, detail, ref_);
        if b.len() >= BATCH_DOCS || b.bytes() >= BATCH_BYTES {
            self.job.hand_over();
        }
    }

    /// Waits for the thread to add everything handed over, and takes the index back with
    /// the slots written meanwhile. A panic on the thread is resumed here.
    pub(super) fn finish(mut self) -> (TextIndex, Vec<u32>) {
        self.job.hand_over();
        self.job.tx = None; // the thread's loop ends when the channel is empty
        let handle = self.job.handle.take().expect("a job is finished once");
        match handle.join() {
            Ok(text) => (text, std::mem::take(&mut self.slots)),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// The sending end and the batch being filled.
struct TextJob {
    tx: Option<SyncSender<Cut>>,
    batch: Cut,
    handle: Option<JoinHandle<TextIndex>>,
}

impl TextJob {
    fn hand_over(&mut self) {
        if self.batch.len() == 0 {
            return;
        }
        let batch = std::mem::take(&mut self.batch);
        if let Some(tx) = &self.tx {
            // Fails only if the thread is gone (it panicked): `finish` resumes the panic.
            let _ = tx.send(batch);
        }
    }
}

impl Drop for TextJob {
    /// A load abandoned without [`Away::finish`] (an error or a panic on the reading
    /// thread): the thread is told to stop and waited for, its index dropped.
    fn drop(&mut self) {
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The text thread: the index it is given, every batch added in order, then handed back.
fn run(take: &Receiver<TextIndex>, rx: &Receiver<Cut>) -> TextIndex {
    let Ok(mut text) = take.recv() else {
        return TextIndex::default(); // never given one: the start failed
    };
    for cut in rx {
        text.add_cut(&cut);
    }
    text
}

impl LedgerIndex {
    /// Starts a bulk load (many entries applied before the next search, as when a ledger
    /// is read whole): the text index bounds its postings when [`LedgerIndex::end_bulk`]
    /// is called, in one pass, not one posting at a time.
    ///
    /// Into an empty index on two cores or more, the text index is built on a thread of
    /// its own meanwhile (this module).
    pub fn begin_bulk(&mut self) {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        self.begin_bulk_on(cores >= 2);
    }

    /// [`LedgerIndex::begin_bulk`], with the text index on its own thread or not.
    pub fn begin_bulk_on(&mut self, two_threads: bool) {
        self.text.begin_bulk();
        if two_threads && self.away.is_none() && self.text.is_empty() {
            match Away::start(std::mem::take(&mut self.text)) {
                Ok(away) => self.away = Some(away),
                Err(text) => self.text = *text,
            }
        }
    }

    /// Ends [`LedgerIndex::begin_bulk`]; must be called before the index is searched.
    pub fn end_bulk(&mut self) {
        if let Some(away) = self.away.take() {
            let (text, slots) = away.finish();
            self.text = text;
            for (doc, slot) in self.text.docs.iter_mut().zip(slots) {
                doc.tag = slot;
            }
        }
        self.text.end_bulk();
    }

    /// The slot of the entry at `pos`, to write (the next entry's is added).
    pub(super) fn slot_mut(&mut self, pos: u32) -> &mut u32 {
        match &mut self.away {
            Some(away) => {
                if away.slots.len() <= pos as usize {
                    away.slots.resize(pos as usize + 1, 0);
                }
                &mut away.slots[pos as usize]
            }
            None => &mut self.text.docs[pos as usize].tag,
        }
    }
}
