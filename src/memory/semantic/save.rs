//! How the vectors a process holds are stored and saved: a publish's or the background
//! thread's vector stored (never waiting for a save: it waits beside the rows instead),
//! the cache written every [`SAVE_EVERY`] vectors and as a server ends, and a save that
//! first takes in what another process saved since, so that neither undoes the other.

use std::sync::atomic::Ordering;

use super::{SAVE_EVERY, SemanticState};
use crate::semantic::cache::{CachePlace, IN_FILE_FROM};
use crate::semantic::{Vectors, id_key};

impl SemanticState {
    /// Stores a published entry's vector; saves the cache every [`SAVE_EVERY`] of them
    /// (a server's background thread does, when it runs: [`SemanticState::save_due`]).
    /// Never waits for a save: while one holds the vectors, the row waits in `pending`
    /// (the entry is found lexically meanwhile) and is stored by the next call or save.
    pub(crate) fn store(&self, pos: u32, id: &str, v: &[f32]) {
        let key = id_key(id);
        // Searches hold the vectors for a few milliseconds: waiting for them is fine; a
        // save holds them for as long as writing the file takes.
        let held = if self.saving.load(Ordering::Acquire) {
            match self.vectors.try_write() {
                Ok(w) => Some(w),
                Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => None,
            }
        } else {
            Some(self.vectors.write().unwrap_or_else(|p| p.into_inner()))
        };
        match held {
            Some(mut w) => {
                w.set(pos, key, v);
                self.drain_into(&mut w);
            }
            None => self
                .pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((pos, key, v.to_vec())),
        }
        if self.unsaved.fetch_add(1, Ordering::Relaxed) + 1 >= SAVE_EVERY
            && !self.saves_in_background.load(Ordering::Relaxed)
        {
            self.save();
        }
    }

    /// Stores the rows waiting in `pending`, if any.
    pub(crate) fn take_pending(&self) {
        if self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty()
        {
            return;
        }
        let mut w = self.vectors.write().unwrap_or_else(|p| p.into_inner());
        self.drain_into(&mut w);
    }

    fn drain_into(&self, w: &mut Vectors) {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        for (pos, key, v) in pending.drain(..) {
            w.set(pos, key, &v);
        }
    }

    /// True when [`SAVE_EVERY`] vectors were stored since the last save.
    pub(crate) fn save_due(&self) -> bool {
        self.unsaved.load(Ordering::Relaxed) >= SAVE_EVERY
    }

    /// Saves the cache (a failure is logged: the vectors are derived state). Past
    /// [`IN_FILE_FROM`] rows the magnitudes are then read from the file just written and
    /// the memory they took is given back ([`crate::semantic::magnitudes`]).
    pub(crate) fn save(&self) {
        self.take_pending();
        let Some(c) = &self.cache else { return };
        self.unsaved.store(0, Ordering::Relaxed);
        self.adopt_saved(c);
        self.saving.store(true, Ordering::Release);
        self.write(c);
        self.saving.store(false, Ordering::Release);
        // What a publish stored while the file was written.
        self.take_pending();
    }

    /// Writes the cache file. Under the read lock, not from a copy (a copy at 1M entries
    /// is ~258 MB): readers go on meanwhile, and a publish's vector waits in `pending`.
    fn write(&self, c: &CachePlace) {
        let v = self.vectors.read().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = c.save(&v) {
            tracing::warn!(file = %c.file.display(), "vector cache not saved: {e}");
            return;
        }
        *self.seen.lock().unwrap_or_else(|p| p.into_inner()) = c.stamp();
        if v.present() <= IN_FILE_FROM {
            return;
        }
        let generation = v.generation();
        let reopened = c.reopen(&v);
        drop(v);
        match reopened {
            Ok(file) => {
                let mut v = self.vectors.write().unwrap_or_else(|p| p.into_inner());
                // A row set since the save is not in the file: keep memory until the next.
                if v.generation() == generation {
                    v.move_to(file);
                }
            }
            Err(e) => {
                tracing::warn!(file = %c.file.display(), "vector cache saved, rows kept in memory: {e}");
            }
        }
    }

    /// When another process saved the cache since this one last read or wrote it (a
    /// `semantic backfill` beside a running daemon, a CLI publish), the rows it holds for
    /// positions this one has none for are taken in, so this save does not undo its work.
    /// Rows are checked against the entry's id wherever they are used, as on load.
    fn adopt_saved(&self, c: &CachePlace) {
        let now = c.stamp();
        if now.is_none() || *self.seen.lock().unwrap_or_else(|p| p.into_inner()) == now {
            return;
        }
        let dims = self
            .vectors
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .dims();
        let theirs = match c.load(dims, &|_, _| true) {
            Ok(v) => v,
            Err(e) => {
                tracing::info!(file = %c.file.display(), "another process's vector cache not read: {e}");
                return;
            }
        };
        let mut v = self.vectors.write().unwrap_or_else(|p| p.into_inner());
        let mut adopted = 0usize;
        let read = theirs.for_each_row(&mut |pos, key, row| {
            if !v.has(pos) && v.set_raw(pos, key, row) {
                adopted += 1;
            }
            Ok(())
        });
        if let Err(e) = read {
            tracing::info!(file = %c.file.display(), "another process's vector cache read in part: {e}");
        }
        if adopted > 0 {
            tracing::info!(rows = adopted, "kept the vectors another process saved");
        }
    }

    /// Saves the cache if a vector was stored since it was last saved.
    pub(crate) fn save_if_unsaved(&self) {
        if self.unsaved.load(Ordering::Relaxed) > 0 {
            self.save();
        }
    }
}

impl Drop for SemanticState {
    /// What a short-lived process (a CLI publish) embedded is kept for the next one.
    fn drop(&mut self) {
        self.save_if_unsaved();
    }
}
