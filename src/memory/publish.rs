//! `memory_publish`: validate everything, then append one line under the lock.
//!
//! Order matters: every check that needs only the arguments runs before the lock is taken;
//! the checks that depend on the ledger (does the superseded entry exist, is it still
//! live) run under the lock after the tail has caught up, so two processes cannot both
//! supersede the same entry.

use super::Memory;
use crate::api::ledger::{PublishArgs, PublishOutput};
use crate::config::Identity;
use crate::entry::{Entry, MAX_DETAIL_BYTES, MAX_SUMMARY_BYTES, normalize_tags};
use crate::error::{Error, Result};
use crate::index::LedgerIndex;
use crate::ledger::Ledger;
use crate::ledger::new_entry_id;
use crate::schema::Schema;
use crate::validate::{bytes_within, short_id};

impl Memory {
    /// Publishes one entry to the ledger and returns it as stored.
    pub fn publish(&self, mut args: PublishArgs, who: &Identity) -> Result<PublishOutput> {
        let key = args.idempotency_key.take();
        if let Some(k) = &key {
            self.check_idempotency_key(k)?;
        }
        let mut entry = self.build_entry(args, who)?;
        self.budgets.charge(
            who,
            super::budgets::Meter::Append,
            self.write_now().0,
            (entry.summary.len() + entry.detail.len()) as u64,
            &self.settings.limits,
        )?;
        // Semantic ranking: the entry's vector, computed before any lock is taken (an
        // embedding that fails leaves the entry lexical; it never fails the publish).
        let vector = self.semantic().and_then(|s| {
            s.embed_one(&crate::semantic::entry_text(
                &entry.summary,
                &entry.tags,
                &entry.detail,
            ))
        });
        // Who the related entries are shown to: the publishing room (read before the
        // state is held for writing).
        let viewer = crate::index::Viewer {
            room: entry.room_id.clone(),
            upstream: self.upstream_rooms(&entry.room_id)?,
        };
        // The file lock first, the state second: a publish waiting for another process
        // never keeps this process's readers waiting.
        let lock = Ledger::lock(self.backend(), &self.paths().ledger, self.append_opts())?;
        let mut state = self.fresh()?;
        // A retry (same key, under the lock so two retries cannot both write): the first
        // result when the content is the same, a conflict when it is not.
        if let Some(k) = &key
            && let Some(pos) = state.ledger.index().by_idempotency_key(&entry.room_id, k)
        {
            let first = state.ledger.index().entry(pos)?;
            return if same_content(&first, &entry) {
                Ok(PublishOutput::new(first, Vec::new(), Vec::new()))
            } else {
                Err(Error::Conflict(format!(
                    "idempotency_key `{}` was already used by room `{}` for entry `{}`, with \
                     other content; nothing was written. Fix: use a new key for a new entry",
                    crate::validate::printable(k),
                    entry.room_id,
                    first.id
                )))
            };
        }
        // Stamped under the lock, so timestamps follow the file's order.
        let now = self.write_now();
        entry.id = new_entry_id(now);
        entry.ts = now.to_rfc3339();
        // Rooms of a registered plan stamp their entries with the plan id, so that rooms
        // with the same id in different plans stay distinguishable.
        entry.plan_id = state.plans.stamp(&entry.room_id);
        let value = serde_json::to_value(&entry).expect("an entry serializes");
        Schema::LedgerEntry.check(&value).map_err(|errs| {
            Error::invalid(
                "entry",
                format!(
                    "it does not match schemas/ledger-entry.schema.json: {}",
                    errs.join("; ")
                ),
                "correct the fields named above",
            )
        })?;
        let written = state.ledger.append(lock, &entry, key.as_deref(), |ix| {
            check_supersede(ix, &entry)?;
            self.check_retire_others(ix, &entry, who)
        })?;
        // The commit point is behind us: from here on nothing turns the stored entry into
        // a failure. What cannot be done is named in `warnings` (the log says why, never
        // the entry's text).
        let mut warnings = Vec::new();
        let pos = written.map_err(|w| warnings.push(w)).ok();
        // What was written, as the index read it back; should that fail, the entry as it
        // was serialized.
        let stored = pos
            .and_then(|p| state.ledger.index().entry(p).ok())
            .unwrap_or_else(|| entry.clone());
        // Other rooms' entries on the same subject: looked for after the write.
        let related = pos.map_or_else(Vec::new, |p| {
            crate::error::after_commit("looking for related entries", || {
                self.related_to(state.ledger.index(), &stored, p, vector.as_deref(), &viewer)
            })
            .unwrap_or_else(|w| {
                warnings.push(w);
                Vec::new()
            })
        });
        drop(state);
        if let (Some(s), Some(v), Some(p)) = (self.semantic(), vector, pos) {
            let stored_vector = crate::error::after_commit("storing the entry's vector", || {
                s.store(p, &stored.id, &v);
                Ok(())
            });
            warnings.extend(stored_vector.err());
        }
        Ok(PublishOutput::new(stored, related, warnings))
    }

    /// [`crate::overlap::related`] for the entry just written at `pos`, with its vector
    /// when semantic ranking is on.
    fn related_to(
        &self,
        ix: &crate::index::LedgerIndex,
        e: &crate::entry::Entry,
        pos: u32,
        vector: Option<&[f32]>,
        viewer: &crate::index::Viewer,
    ) -> Result<Vec<super::Related>> {
        let sem = self.semantic().zip(vector);
        let near: Vec<u32> = sem.map_or_else(Vec::new, |(s, v)| {
            let vs = s.vectors.read().unwrap_or_else(|p| p.into_inner());
            vs.nearest(v, crate::overlap::CANDIDATES, &|p| {
                (p as usize) < ix.len() && p != pos
            })
            .into_iter()
            .map(|(p, _)| p)
            .collect()
        });
        let cosine = |p: u32| -> Option<f64> {
            let (s, v) = sem?;
            let vs = s.vectors.read().unwrap_or_else(|p| p.into_inner());
            vs.cosine_of(p, crate::semantic::id_key(ix.id(p)), v)
                .map(f64::from)
                .filter(|&c| c >= s.overlap_cosine)
        };
        let sight = crate::index::Sight::new(ix, Some(viewer), false);
        crate::overlap::related(ix, e, Some(pos), self.now(), &cosine, &near, &sight)
    }

    fn build_entry(&self, args: PublishArgs, who: &Identity) -> Result<Entry> {
        bytes_within(
            "summary",
            &args.summary,
            MAX_SUMMARY_BYTES,
            &format!(
                "shorten the summary to the fact itself and move the rest to `detail` \
                 (≤ {MAX_DETAIL_BYTES} bytes)"
            ),
        )?;
        let detail = args.detail.unwrap_or_default();
        if detail.len() > MAX_DETAIL_BYTES {
            return Err(Error::invalid(
                "detail",
                format!(
                    "it is {} bytes (UTF-8), over the limit of {MAX_DETAIL_BYTES} bytes",
                    detail.len()
                ),
                "shorten it, or publish an `artifact` entry pointing at a file in the repo",
            ));
        }
        let room_id = who.room_or_own("room_id", args.room_id)?;
        let author_role = who.role_or_own("author_role", args.author_role)?;
        let ref_ = args.ref_.unwrap_or_default();
        if !ref_.is_empty() {
            short_id("ref", &ref_)?;
        }
        if let Some(s) = &args.supersedes {
            short_id("supersedes", s)?;
        }
        self.guard_id("room_id", &room_id)?;
        self.guard_id("author_role", &author_role)?;
        self.guard_id("ref", &ref_)?;
        let mut redacted = Vec::new();
        // Together, so a token split between summary and detail is found too.
        let mut texts = self
            .guard_fields(
                &[("summary", args.summary), ("detail", detail)],
                &mut redacted,
            )?
            .into_iter();
        let (summary, detail) = (
            texts.next().unwrap_or_default(),
            texts.next().unwrap_or_default(),
        );
        // Scanned as given, before tags are lower-cased (an `AKIA…` key id is found by its
        // case).
        let raw_tags = args
            .tags
            .into_iter()
            .enumerate()
            .map(|(i, t)| self.guard_secrets(&format!("tags[{i}]"), t, &mut redacted))
            .collect::<Result<Vec<_>>>()?;
        let tags = normalize_tags(&raw_tags)?;
        // A redaction marker can be longer than what it replaced: check the bounds again.
        bytes_within(
            "summary",
            &summary,
            MAX_SUMMARY_BYTES,
            "shorten the summary",
        )?;
        if detail.len() > MAX_DETAIL_BYTES {
            return Err(Error::invalid(
                "detail",
                format!(
                    "it is {} bytes after redaction, over the limit of {MAX_DETAIL_BYTES}",
                    detail.len()
                ),
                "shorten it",
            ));
        }
        let entry = Entry {
            id: String::new(),
            ts: String::new(),
            kind: args.kind,
            room_id,
            author_role,
            ref_,
            tags,
            summary,
            detail,
            supersedes: args.supersedes,
            plan_id: None,
            redacted,
            audience: args.audience,
        };
        Ok(entry)
    }
}

impl Memory {
    /// An agent supersedes only its own room's entries unless `supersede_others` names
    /// its role or room.
    fn check_retire_others(&self, ix: &LedgerIndex, entry: &Entry, who: &Identity) -> Result<()> {
        let Some(pos) = entry.supersedes.as_deref().and_then(|t| ix.position(t)) else {
            return Ok(());
        };
        let target_room = ix.room_of(pos);
        if target_room == entry.room_id || self.settings().supersede_others.allows(who) {
            return Ok(());
        }
        Err(Error::Refused(format!(
            "`{}` belongs to room `{}`; room `{}` may supersede only its own entries. Fix: \
             publish your own entry (a `warning` or `decision` naming it), or ask the \
             operator to list your role or room under `supersede_others` in \
             .agents/warroom.yaml",
            ix.id(pos),
            target_room,
            entry.room_id
        )))
    }
}

/// True if a retry carries what the first publish stored (after redaction).
fn same_content(first: &Entry, retry: &Entry) -> bool {
    (
        first.kind,
        &first.room_id,
        &first.author_role,
        &first.ref_,
        &first.tags,
        &first.summary,
        &first.detail,
        &first.supersedes,
        first.audience,
    ) == (
        retry.kind,
        &retry.room_id,
        &retry.author_role,
        &retry.ref_,
        &retry.tags,
        &retry.summary,
        &retry.detail,
        &retry.supersedes,
        retry.audience,
    )
}

/// Refuses superseding an unknown, already-superseded or the same entry.
fn check_supersede(ix: &LedgerIndex, entry: &Entry) -> Result<()> {
    let Some(target) = entry.supersedes.as_deref() else {
        return Ok(());
    };
    if target == entry.id {
        return Err(Error::Conflict("an entry cannot supersede itself".into()));
    }
    let Some(pos) = ix.position(target) else {
        return Err(Error::NotFound(format!(
            "cannot supersede `{target}`: no entry has that id. Fix: copy the id of a live \
             entry from memory_query or memory_search results"
        )));
    };
    if let Some(by) = ix.stored(pos).superseded_by() {
        // Point the caller at the live end of the chain.
        let mut live = by;
        while let Some(next) = ix.stored(live).superseded_by() {
            live = next;
        }
        return Err(Error::Conflict(format!(
            "cannot supersede `{target}`: it was already superseded by `{}`. Fix: supersede \
             the live entry `{}` instead",
            ix.id(by),
            ix.id(live)
        )));
    }
    Ok(())
}
