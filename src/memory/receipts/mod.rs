//! Context receipts in the core: writing one for every brief served, listing them, and
//! replaying one — the brief recomputed from the ledger as it was at the receipt's
//! position, with the receipt's arguments, scope and time, compared byte for byte by its
//! SHA-256 (see [`crate::receipts`]).

pub(super) mod index;
mod replay;
mod replay_prefix;

use super::Memory;
use crate::api::brief::{BriefArgs, BriefOutput};
use crate::clock::Timestamp;
use crate::config::Identity;
use crate::error::{Error, Result};
use crate::index::Ranking;
use crate::receipts::{
    AskedArgs, Asker, LedgerPosition, OutputRef, RankingUsed, Receipt, new_id, sha256_hex,
};
use crate::store::{Keys, Stream};
use index::ReceiptIndex;

/// What writing and listing receipts keep, owned here and held by `Memory` as one field.
#[derive(Default)]
pub(super) struct ReceiptsState {
    /// Where each receipt is (built on first use, then followed).
    pub(super) index: std::sync::Mutex<Option<ReceiptIndex>>,
    /// What briefs may still write ([`index::Limits`]).
    pub(super) limits: std::sync::Mutex<index::Limits>,
    /// Set once this process gave the receipts file the ledger's mode.
    pub(super) mode: std::sync::atomic::AtomicBool,
}

/// What a replay found.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Replay {
    /// The receipt replayed.
    pub receipt: Receipt,
    /// True if the recomputed brief has the receipt's SHA-256 (and size).
    pub identical: bool,
    /// SHA-256 of the recomputed markdown.
    pub sha256: String,
    /// The recomputed brief: what the manager read, when `identical`.
    pub markdown: String,
    /// What differs, when not identical (ids included or left out, sizes).
    pub differences: Vec<String>,
}

/// How a brief was served, besides its result: what its receipt records.
pub(crate) struct Served {
    /// The read clock's now it was ranked at.
    pub now: Timestamp,
    /// The entry limit in force.
    pub max: usize,
    /// The ledger's position it was computed at.
    pub ledger: LedgerPosition,
    /// The predecessor `done` messages it included.
    pub outputs: Vec<OutputRef>,
    /// The semantic model and weight its ranking fused, if any.
    pub semantic: Option<crate::receipts::SemanticUsed>,
}

impl Memory {
    /// Appends the receipt of the brief `out` (a call's result) and returns its id.
    pub(crate) fn write_receipt(
        &self,
        out: &BriefOutput,
        args: &BriefArgs,
        who: &Identity,
        served: Served,
    ) -> Result<String> {
        let Served {
            now,
            max,
            ledger,
            outputs,
            semantic,
        } = served;
        let ts = self.write_now();
        // Bounded writes: the same brief for the same asker, room and arguments at the
        // same ledger position is recorded once; new receipts are capped per asker.
        let asker = (who.room_id.clone(), who.role.clone());
        let key = *blake3::hash(
            serde_json::to_string(&(
                &asker,
                &out.room_id,
                &args.brief_keywords,
                args.max_entries,
                &args.plan_id,
            ))
            .expect("arguments serialize")
            .as_bytes(),
        )
        .as_bytes();
        let what = format!(
            "{}:{}:{}",
            ledger.lines,
            ledger.head,
            sha256_hex(&out.markdown)
        );
        let recorded = self
            .receipts
            .limits
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .recorded(&key, &what)
            .map(str::to_string);
        if let Some(id) = recorded
            && self.with_receipt_index(|ix| Ok(ix.get(&id).is_some()))?
        {
            return Ok(id);
        }
        let cap = self.settings.receipts_per_minute;
        if !self
            .receipts
            .limits
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .admit(&who.caller(), ts.0, cap)
        {
            return Err(Error::Refused(format!(
                "{} asked for more than {cap} different briefs in a minute, the cap on what \
                 one credential may make the memory record (receipts_per_minute in \
                 .agents/warroom.yaml). Fix: ask again in a minute; the same brief asked \
                 again is not counted",
                who.caller()
            )));
        }
        let id = new_id(ts);
        let r = &self.settings.ranking;
        let receipt = Receipt {
            id: id.clone(),
            ts: ts.to_rfc3339(),
            by: Asker {
                room: who.room_id.clone(),
                role: who.role.clone(),
            },
            room_id: out.room_id.clone(),
            args: AskedArgs {
                brief_keywords: args.brief_keywords.clone(),
                max_entries: args.max_entries,
                plan_id: args.plan_id.clone(),
            },
            now: now.to_rfc3339(),
            plan_id: out.plan_id.clone(),
            epic_ref: out.epic_ref.clone(),
            keywords: out.brief_keywords.clone(),
            epic_title: out.epic_title.clone(),
            epic_words: out.epic_words.clone(),
            upstream: out.upstream.clone(),
            ranking: RankingUsed {
                name: r.name().to_string(),
                floor: match r {
                    Ranking::Blend { floor } => Some(*floor),
                    _ => None,
                },
                half_lives: self.settings.half_life_hours.to_vec(),
                semantic,
                selection: crate::receipts::SELECTION.name().map(str::to_string),
            },
            max_entries: max as u32,
            ledger,
            outputs,
            included: out.included.clone(),
            omitted: out.omitted.clone(),
            bytes: out.bytes,
            siblings: out.siblings.clone(),
            overlaps: out.overlaps.clone(),
            accounts: out.accounts.clone(),
            sha256: sha256_hex(&out.markdown),
            prev: None,
        };
        let line = serde_json::to_string(&receipt).expect("receipts serialize");
        let path = self.paths().receipts();
        let fail = |e: std::io::Error| Error::Io {
            context: format!(
                "writing the brief's receipt to {} (the brief is refused: a brief with no \
                 record is what receipts prevent)",
                self.backend().label(&Stream::Receipts, &path)
            ),
            source: e,
        };
        // Receipts are written (a failed write fails the brief) but fsynced only when
        // `receipts_fsync` says so: a sync per brief made the next brief's ranking run on
        // cold caches, +47 % at 1M entries (docs/performance.md). A power failure can then
        // lose the last seconds of receipts, never a ledger entry.
        let mut opts = self.append_opts().clone();
        opts.fsync = opts.fsync && self.settings.receipts_fsync;
        let opts = &opts;
        let mut lock = self
            .backend()
            .lock(&Stream::Receipts, &path, opts)
            .map_err(fail)?;
        let tip = lock.tip(&path, opts).map_err(fail)?;
        let line = crate::chain::seal(&line, &tip.prev);
        let keys = Keys {
            id: Some(&id),
            supersedes: None,
        };
        lock.append(&line, keys, opts).map_err(fail)?;
        if matches!(self.backend(), crate::store::Backend::Files)
            && (tip.prev == crate::chain::GENESIS || !self.receipts_mode_set())
        {
            self.give_receipts_the_ledgers_mode(&path);
        }
        self.receipts
            .limits
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remember(key, what, id.clone());
        Ok(id)
    }

    /// True if this process already gave the receipts file the ledger's mode (and sets it).
    fn receipts_mode_set(&self) -> bool {
        self.receipts
            .mode
            .swap(true, std::sync::atomic::Ordering::Relaxed)
    }

    /// Receipts say who read what, so their file is no more readable than the ledger:
    /// it gets the ledger's permission bits when it is created (and once per process, for
    /// a file an older version left at the umask's 0644). A failure is logged, never a
    /// failed brief: the receipt is written by then.
    fn give_receipts_the_ledgers_mode(&self, path: &std::path::Path) {
        use std::os::unix::fs::PermissionsExt;
        let Ok(ledger) = std::fs::metadata(&self.paths().ledger) else {
            return;
        };
        let want = ledger.permissions().mode() & 0o666;
        let jail = self.append_opts().jail.as_deref();
        let set = crate::fsx::open_read_in(path, jail).and_then(|f| {
            let have = f.metadata()?.permissions().mode() & 0o7777;
            if have != want {
                f.set_permissions(std::fs::Permissions::from_mode(want))?;
            }
            Ok(())
        });
        if let Err(e) = set {
            tracing::warn!(error = %e, "could not give the receipts file the ledger's mode");
        }
    }

    /// Runs `f` on the receipts' index, first caught up with the stream (only what was
    /// appended since the last look is read).
    pub(crate) fn with_receipt_index<T>(
        &self,
        f: impl FnOnce(&ReceiptIndex) -> Result<T>,
    ) -> Result<T> {
        let path = self.paths().receipts();
        let mut guard = self
            .receipts
            .index
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let ix = guard.get_or_insert_with(|| {
            ReceiptIndex::new(self.backend().source(
                Stream::Receipts,
                path.clone(),
                self.append_opts().jail.clone(),
            ))
        });
        ix.refresh().map_err(|e| self.receipts_io(e))?;
        f(ix)
    }

    pub(crate) fn receipts_io(&self, e: std::io::Error) -> Error {
        let path = self.paths().receipts();
        Error::Io {
            context: format!(
                "reading receipts {}",
                self.backend().label(&Stream::Receipts, &path)
            ),
            source: e,
        }
    }

    /// The newest `last` receipts (of `room`; served at or after `since`), newest first:
    /// only their lines are read.
    pub fn receipts_newest(
        &self,
        room: Option<&str>,
        since: Option<Timestamp>,
        last: usize,
    ) -> Result<Vec<Receipt>> {
        self.with_receipt_index(|ix| {
            ix.newest(room, since.map(|t| t.0), last)
                .iter()
                .map(|row| ix.receipt(row).map_err(|e| self.receipts_io(e)))
                .collect()
        })
    }

    /// Every receipt, oldest first (a malformed line is skipped: `verify` reports it).
    pub fn receipts(&self) -> Result<Vec<Receipt>> {
        let mut all = self.receipts_newest(None, None, usize::MAX)?;
        all.reverse();
        Ok(all)
    }
}
