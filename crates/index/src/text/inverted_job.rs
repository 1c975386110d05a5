//! A first read's text index on threads of its own: a three-stage pipeline.
//!
//! Reading a whole ledger applies every entry through [`crate::LedgerIndex::apply`], the
//! one mutation path, in file order. Most of that time is the text index's share —
//! tokenizing through the chunk cache, giving term ids, sorting each entry's (term, field)
//! pairs, appending postings — and that share depends on nothing else an entry changes.
//! So during a bulk load into an empty index on a machine with two cores or more, the
//! [`TextIndex`] moves to two threads of its own: the reading thread parses each line and
//! does the rest of `apply` (ids, supersedes, cells, time order), cuts the entry's four
//! texts at whitespace and hashes the chunks ([`crate::chunks::Cut`]), and hands them over
//! in batches on a bounded channel; the lexing thread looks the chunks up in its cache and
//! gives term ids ([`crate::inverted_add::Lexer`]); the posting thread appends postings
//! ([`TextIndex::post`]), in the order they came. With one text thread doing both, it
//! was busy four fifths of a first start and the reader one fifth (`perf`, 1M short
//! entries); the lexing half is the larger, so the reader and the posting thread share
//! the other core. Same calls, same order as on one thread: the index is the same bit for
//! bit (term ids, postings, lengths — a test compares the snapshots' bytes).
//!
//! What the rest of `apply` writes into the text index's per-document records (each
//! entry's slot: its cell, kind and superseded bit) is kept in [`Away::slots`] meanwhile,
//! and written into the records when the threads hand the index back at the end of the
//! load. Nothing searches during a bulk load, so nothing reads the index half-built.
//! [`LedgerIndex::begin_bulk`] and [`LedgerIndex::end_bulk`] are here, with the slots.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use crate::LedgerIndex;
use crate::chunks::{ChunkCache, Cut};
use crate::inverted::TextIndex;
use crate::tokens::Tokens;
use crate::vocab::Vocab;

/// Entries per batch handed over (fewer when their texts pass [`BATCH_BYTES`]).
const BATCH_DOCS: usize = 256;
/// Text bytes after which a batch is handed over whatever its count.
const BATCH_BYTES: usize = 256 << 10;
/// Batches in flight between two stages: a stage waits when the next is this far behind.
const IN_FLIGHT: usize = 2;
/// Spent batches kept to be filled again.
const SPENT: usize = IN_FLIGHT + 2;

/// The text index while it is away on its threads, and the slots written meanwhile.
pub(crate) struct Away {
    job: TextJob,
    /// Per position: the slot `apply` gave it (see [`crate::LedgerIndex::slot`]).
    pub(crate) slots: Vec<u32>,
}

impl std::fmt::Debug for Away {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Away")
            .field("slots", &self.slots.len())
            .finish()
    }
}

/// The tokenizing half of a text index, owned by the lexing thread.
#[derive(Default)]
struct LexParts {
    tokens: Tokens,
    terms: Vocab,
    chunks: ChunkCache,
}

/// A batch's term ids, from the lexing thread to the posting thread.
#[derive(Default)]
struct Lexed {
    /// Per document: its number and where each field's ids end in `ids`.
    docs: Vec<(u32, [usize; 4])>,
    ids: Vec<u32>,
    /// Terms in the vocabulary after this batch (every id in it is below).
    terms: usize,
}

/// Spawns a thread named `name` that waits for its input on a channel before running
/// `f`: if the spawn fails, nothing was moved into it.
fn spawn<T: Send + 'static, R: Send + 'static>(
    name: &str,
    f: impl FnOnce(T) -> R + Send + 'static,
) -> std::io::Result<(SyncSender<T>, JoinHandle<Option<R>>)> {
    let (give, take) = sync_channel::<T>(1);
    let handle = std::thread::Builder::new()
        .name(name.into())
        .spawn(move || take.recv().ok().map(f))?;
    Ok((give, handle))
}

impl Away {
    /// Moves `text` to two threads of its own, one lexing (chunks to term ids) and one
    /// posting; gives it back if they could not be started.
    pub(crate) fn start(mut text: TextIndex) -> Result<Away, Box<TextIndex>> {
        let (tx, cuts) = sync_channel::<Cut>(IN_FLIGHT);
        let (lexed_tx, lexed) = sync_channel::<Lexed>(IN_FLIGHT);
        // Batches done with go back to be filled again: no allocation a batch, and no
        // buffer freed on a thread other than the one that allocated it.
        let (spent_cut_tx, spent_cuts) = sync_channel::<Cut>(SPENT);
        let (spent_lexed_tx, spent_lexed) = sync_channel::<Lexed>(SPENT);
        let started = spawn("index-lex", move |parts: LexParts| {
            let ends = (&lexed_tx, &spent_lexed, &spent_cut_tx);
            lex(parts, &cuts, ends)
        })
        .and_then(|lexer| {
            spawn("index-text", move |text: TextIndex| {
                post(text, &lexed, &spent_lexed_tx)
            })
            .map(|poster| (lexer, poster))
        });
        let ((give_lexer, lexer), (give_poster, poster)) = match started {
            Ok(both) => both,
            Err(e) => {
                // A thread that was started gets nothing and ends (its sender dropped).
                tracing::debug!(error = %e, "no threads for the text index; one core it is");
                return Err(Box::new(text));
            }
        };
        let parts = LexParts {
            tokens: std::mem::take(&mut text.tokens),
            terms: std::mem::take(&mut text.terms),
            chunks: std::mem::take(&mut text.chunks),
        };
        // Both threads are waiting for their part: each channel has room for one.
        let _ = give_poster.send(text);
        let _ = give_lexer.send(parts);
        Ok(Away {
            job: TextJob {
                tx: Some(tx),
                spent: std::sync::Mutex::new(spent_cuts),
                batch: Cut::default(),
                lexer: Some(lexer),
                poster: Some(poster),
            },
            slots: Vec::new(),
        })
    }

    /// Hands document `doc`'s texts over, cut into chunks (documents must come in order).
    pub(crate) fn add<'t>(
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

    /// Waits for the threads to add everything handed over, and takes the index back with
    /// the slots written meanwhile. A panic on either thread is resumed here.
    pub(crate) fn finish(mut self) -> (TextIndex, Vec<u32>) {
        self.job.hand_over();
        self.job.tx = None; // the lexing loop ends when its channel is empty, then the posting one
        let lexer = self.job.lexer.take().expect("a job is finished once");
        let poster = self.job.poster.take().expect("a job is finished once");
        let parts = lexer.join();
        let text = poster.join();
        let (parts, text) = match (parts, text) {
            (Ok(Some(parts)), Ok(Some(text))) => (parts, text),
            (Err(panic), _) | (_, Err(panic)) => std::panic::resume_unwind(panic),
            _ => unreachable!("both threads were given their part"),
        };
        let mut text = text;
        text.tokens = parts.tokens;
        text.terms = parts.terms;
        text.chunks = parts.chunks;
        text.grow_terms(text.terms.len());
        (text, std::mem::take(&mut self.slots))
    }
}

/// The sending end, the batch being filled and the two threads.
struct TextJob {
    tx: Option<SyncSender<Cut>>,
    /// Batches the lexing thread is done with (in a mutex only so that the index, which
    /// holds this during a load, stays `Sync`).
    spent: std::sync::Mutex<Receiver<Cut>>,
    batch: Cut,
    lexer: Option<JoinHandle<Option<LexParts>>>,
    poster: Option<JoinHandle<Option<TextIndex>>>,
}

impl TextJob {
    fn hand_over(&mut self) {
        if self.batch.len() == 0 {
            return;
        }
        let spent = self.spent.get_mut().map(|r| r.try_recv());
        let again = match spent {
            Ok(Ok(mut cut)) => {
                cut.clear();
                cut
            }
            _ => Cut::default(),
        };
        let batch = std::mem::replace(&mut self.batch, again);
        if let Some(tx) = &self.tx {
            // Fails only if the thread is gone (it panicked): `finish` resumes the panic.
            let _ = tx.send(batch);
        }
    }
}

impl Drop for TextJob {
    /// A load abandoned without [`Away::finish`] (an error or a panic on the reading
    /// thread): the threads are told to stop and waited for, the index dropped.
    fn drop(&mut self) {
        self.tx = None;
        if let Some(h) = self.lexer.take() {
            let _ = h.join();
        }
        if let Some(h) = self.poster.take() {
            let _ = h.join();
        }
    }
}

/// The lexing thread: every batch's chunks to term ids, in order, handed on (`out`: where
/// to, where spent ones come back from, where its spent cuts go).
fn lex(
    mut parts: LexParts,
    cuts: &Receiver<Cut>,
    (out, spent, spent_cuts): (&SyncSender<Lexed>, &Receiver<Lexed>, &SyncSender<Cut>),
) -> LexParts {
    let mut lexer = crate::inverted_add::Lexer {
        tokens: &parts.tokens,
        terms: &mut parts.terms,
        chunks: &mut parts.chunks,
    };
    for cut in cuts {
        let mut lexed = spent.try_recv().unwrap_or_default();
        lexed.docs.clear();
        lexed.ids.clear();
        for i in 0..cut.len() {
            let (doc, fields) = cut.entry(i);
            let mut ends = [0; 4];
            lexer.entry_ids(&cut, fields, &mut lexed.ids, &mut ends);
            lexed.docs.push((doc, ends));
        }
        lexed.terms = lexer.terms.len();
        if out.send(lexed).is_err() {
            break; // the posting thread is gone (it panicked): `finish` resumes it
        }
        let _ = spent_cuts.try_send(cut); // dropped here if the reader has enough
    }
    parts
}

/// The posting thread: every batch's postings appended, in order, then the index handed
/// back.
fn post(mut text: TextIndex, lexed: &Receiver<Lexed>, spent: &SyncSender<Lexed>) -> TextIndex {
    for batch in lexed {
        text.grow_terms(batch.terms);
        let mut start = 0;
        for &(doc, ends) in &batch.docs {
            let ids = &batch.ids[start..ends[3]];
            text.post(doc, ids, ends.map(|e| e - start));
            start = ends[3];
        }
        let _ = spent.try_send(batch); // dropped here if the lexing thread has enough
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
    pub(crate) fn slot_mut(&mut self, pos: u32) -> &mut u32 {
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
