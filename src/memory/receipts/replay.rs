//! Replaying a receipt: the brief recomputed from the ledger as it was at the receipt's
//! position, with its arguments, scope and time, compared byte for byte by its SHA-256 —
//! and the whole receipt checked, not only the brief's bytes (what a replay recomputes
//! must be equal; what it cannot must agree with what it can and with the receipts'
//! hash chain).

use crate::clock::{Timestamp, parse_rfc3339};
use crate::error::{Error, Result};
use crate::index::Scorer;
use crate::memory::Memory;
use crate::memory::brief::{BriefInputs, PredecessorOutput, compose};
use crate::receipts::{Receipt, sha256_hex};

pub use super::Replay;

impl Memory {
    /// Recomputes the brief of receipt `id` from the ledger as it was at its position.
    pub fn replay_receipt(&self, id: &str) -> Result<Replay> {
        self.replay_receipt_at(id, None)
    }

    /// Finds receipt `id` and checks its line in the receipts' hash chain: it must link to
    /// the line before it, and the line after it to it (an edited receipt breaks that
    /// link) — three lines read, whatever the stream's size. With a recorded receipts head
    /// the whole stream is checked: the receipt must be in that head's history (an edited
    /// last receipt, or a re-chained stream, loses the head). Returns the receipt and what
    /// the chain says against it.
    fn find_receipt(&self, id: &str, recorded: Option<&str>) -> Result<(Receipt, Vec<String>)> {
        let (receipt, at, mut against) = self.with_receipt_index(|ix| {
            let row = ix.get(id).ok_or_else(|| {
                Error::NotFound(format!(
                    "no receipt `{}`. Fix: list them with `warroom-memory receipts`",
                    crate::validate::printable(id)
                ))
            })?;
            let bytes = ix.line(row).map_err(|e| self.receipts_io(e))?;
            let receipt: Receipt = serde_json::from_slice(&bytes).map_err(|e| {
                self.receipts_io(std::io::Error::new(std::io::ErrorKind::InvalidData, e))
            })?;
            let mut against = Vec::new();
            let link = |b: &[u8]| crate::chain::hex(&crate::chain::link_of(b));
            let want_prev = match row.line {
                1 => Some(crate::chain::GENESIS.to_string()),
                n => match ix.on_line(n - 1) {
                    Some(before) => Some(link(&ix.line(before).map_err(|e| self.receipts_io(e))?)),
                    None => None,
                },
            };
            if want_prev.is_none() || receipt.prev != want_prev {
                against.push(format!(
                    "receipts line {} [broken-link] does not link to the receipt before it: \
                     the receipts up to this one were changed after they were written (run \
                     `warroom-memory verify`)",
                    row.line
                ));
            }
            if let Some(next) = ix.on_line(row.line + 1) {
                let next: Receipt = ix.receipt(next).map_err(|e| self.receipts_io(e))?;
                if next.prev.as_deref() != Some(link(&bytes).as_str()) {
                    against.push(format!(
                        "receipts line {} [broken-link] does not link to this receipt: this \
                         receipt was changed after it was written (run `warroom-memory verify`)",
                        row.line + 1
                    ));
                }
            }
            Ok((receipt, row.line, against))
        })?;
        if let Some(h) = recorded {
            against.extend(self.against_recorded_head(h, at)?);
        }
        Ok((receipt, against))
    }

    /// What the whole receipts stream says of the receipt on line `at` against the
    /// recorded head `h`.
    fn against_recorded_head(&self, h: &str, at: u64) -> Result<Vec<String>> {
        let path = self.paths().receipts();
        let mut source = self.backend().source(
            crate::store::Stream::Receipts,
            path,
            self.append_opts().jail.clone(),
        );
        let mut chain = crate::audit::chain_check::ChainCheck::default();
        let mut n = 0u64;
        source
            .poll(|line| {
                n += 1;
                chain.observe(line.bytes, n);
            })
            .map_err(|e| self.receipts_io(e))?;
        let mut against = Vec::new();
        let findings = chain.check_head(h);
        for (line, kind, why) in findings {
            if line == 0 || line <= at {
                against.push(format!("receipts line {line} [{kind}] {why}"));
            }
        }
        if let Some(l) = chain.report.recorded_head_line
            && at > l
        {
            against.push(format!(
                "the receipt is on line {at}, after the recorded receipts head (line {l}): the \
                 head does not vouch for it"
            ));
        }
        Ok(against)
    }

    /// [`Memory::replay_receipt`], the receipt also checked against a receipts head
    /// recorded earlier. Everything a receipt records is compared, not only the brief's
    /// bytes: what a replay recomputes (included entries with their reasons and scores,
    /// omissions, size, SHA-256) must be equal; what it cannot recompute must agree with
    /// what it can (the keywords and limit with the arguments, the asker with the room
    /// briefed, the time with the ledger lines it read) and with the receipts' chain.
    pub fn replay_receipt_at(&self, id: &str, receipts_head: Option<&str>) -> Result<Replay> {
        self.replay_receipt_with(id, receipts_head, false)
    }

    /// [`Memory::replay_receipt_at`], choosing how the brief is recomputed. By default on
    /// this server's index as it was at the receipt's position (its horizon: later entries
    /// invisible, their supersedes undone — no copy, no re-index; see `index::horizon`).
    /// `rebuild`: on an index built afresh from a copy of the ledger's prefix, independent
    /// of this server's index (slower: a first start's work); also what a receipt ranked
    /// with a semantic model needs (its vectors are not kept per position).
    /// Either way the prefix is read and its hash chain, length and head checked.
    pub fn replay_receipt_with(
        &self,
        id: &str,
        receipts_head: Option<&str>,
        rebuild: bool,
    ) -> Result<Replay> {
        let (receipt, mut differences) = self.find_receipt(id, receipts_head)?;
        differences.extend(recorded_inputs_disagree(&receipt));
        let outputs = self.brief_outputs(&receipt)?;
        let now = parse_rfc3339(&receipt.now).map_err(|e| {
            Error::invalid(
                "now",
                format!("the receipt's time does not parse: {e}"),
                "the receipt is damaged: run `warroom-memory verify`",
            )
        })?;
        let scorer = scorer_of(&receipt, now)?;
        let recorded = receipt.ranking.selection.as_deref();
        let selection = crate::brief::select::Version::of(recorded).ok_or_else(|| {
            Error::invalid(
                "ranking.selection",
                format!(
                    "the receipt's brief was chosen by the selection `{}`, which this build \
                     does not know (it knows coverage and coverage-2)",
                    recorded.unwrap_or_default()
                ),
                "replay it with the warroom-memory version that served it (a newer one)",
            )
        })?;
        let inputs = BriefInputs {
            room: receipt.room_id.clone(),
            plan_id: receipt.plan_id.clone(),
            epic_ref: receipt.epic_ref.clone(),
            keywords: receipt.keywords.clone(),
            epic_title: receipt.epic_title.clone(),
            epic_words: receipt.epic_words.clone(),
            upstream: receipt.upstream.clone(),
            outputs,
            max: receipt.max_entries as usize,
            siblings: receipt.siblings.clone(),
            selection,
        };
        let source = self.backend().source(
            crate::store::Stream::Ledger,
            self.paths().ledger.clone(),
            self.append_opts().jail.clone(),
        );
        let bytes = receipt.ledger.bytes;
        let read_error = |e| Error::Io {
            context: format!(
                "reading the ledger's first {bytes} bytes, where receipt {id} was computed (a \
                 shorter ledger lost lines: run `warroom-memory verify`)"
            ),
            source: e,
        };
        let out = if rebuild || receipt.ranking.semantic.is_some() {
            let dir =
                tempfile::tempdir().map_err(|e| Error::io("creating", &std::env::temp_dir(), e))?;
            let file = dir.path().join("ledger.jsonl");
            let mut copy =
                std::fs::File::create(&file).map_err(|e| Error::io("writing", &file, e))?;
            let prefix =
                super::replay_prefix::read(&source, bytes, Some(&mut copy)).map_err(read_error)?;
            drop(copy);
            differences.extend(prefix_disagrees(&receipt, &prefix));
            let mut ledger =
                crate::ledger::Ledger::open(&file, crate::store::jsonl::AppendOptions::default())?;
            let meaning = self.replay_meaning(&receipt, &mut ledger, &scorer, &mut differences);
            compose(&ledger, &scorer, &inputs, meaning.as_ref(), None)?.output(inputs)
        } else {
            let prefix = super::replay_prefix::read(&source, bytes, None).map_err(read_error)?;
            let mut guard = self.fresh()?;
            let state = &mut *guard;
            let read = state.ledger.source().next_line().saturating_sub(1);
            if read < prefix.lines {
                return Err(Error::Refused(format!(
                    "the ledger's first {bytes} bytes hold {} lines, but this server has read \
                     {read}: the ledger changed while it was replayed; try again",
                    prefix.lines
                )));
            }
            let h = state.ledger.index().horizon_at_line(prefix.lines);
            if !state.ledger.index().text().exact_at(h) {
                // An entry too long for the index's length counters (not written through
                // the server): only a rebuilt index scores the prefix exactly.
                drop(guard);
                return self.replay_receipt_with(id, receipts_head, true);
            }
            differences.extend(prefix_disagrees(&receipt, &prefix));
            compose(&state.ledger, &scorer, &inputs, None, Some(h))?.output(inputs)
        };
        let sha256 = sha256_hex(&out.markdown);
        let ids = |v: &[crate::api::brief::IncludedOut]| {
            v.iter().map(|i| i.id.clone()).collect::<Vec<_>>()
        };
        if ids(&out.included) != ids(&receipt.included) {
            differences.push(format!(
                "included now: {:?}; in the receipt: {:?}",
                ids(&out.included),
                ids(&receipt.included)
            ));
        }
        if ids(&out.included) == ids(&receipt.included) && out.included != receipt.included {
            for (now, then) in out.included.iter().zip(&receipt.included) {
                if now != then {
                    differences.push(format!(
                        "entry {}: recomputed as {} (matched {:?}, score {}, relevance {}, \
                         time {}); the receipt says {} (matched {:?}, score {}, relevance {}, \
                         time {})",
                        now.id,
                        now.reason,
                        now.matched,
                        now.score,
                        now.relevance,
                        now.time_factor,
                        then.reason,
                        then.matched,
                        then.score,
                        then.relevance,
                        then.time_factor
                    ));
                }
            }
        }
        if out.omitted != receipt.omitted {
            differences.push(format!(
                "left out now: {:?}; in the receipt: {:?}",
                out.omitted, receipt.omitted
            ));
        }
        if out.accounts != receipt.accounts {
            differences.push(format!(
                "per upstream room now: {:?}; in the receipt: {:?}",
                out.accounts, receipt.accounts
            ));
        }
        if out.overlaps != receipt.overlaps {
            let pairs = |o: &Option<Vec<crate::memory::PairRef>>| {
                o.iter()
                    .flatten()
                    .map(|p| format!("{}↔{} ({})", p.a.0, p.b.0, p.why.join("; ")))
                    .collect::<Vec<_>>()
            };
            differences.push(format!(
                "open overlaps now: {:?}; in the receipt: {:?}",
                pairs(&out.overlaps),
                pairs(&receipt.overlaps)
            ));
        }
        if out.bytes != receipt.bytes {
            differences.push(format!(
                "{} bytes now, {} in the receipt",
                out.bytes, receipt.bytes
            ));
        }
        let identical = sha256 == receipt.sha256 && differences.is_empty();
        if !identical && differences.is_empty() {
            differences.push(format!(
                "the markdown's SHA-256 is {sha256} now, {} in the receipt",
                receipt.sha256
            ));
        }
        Ok(Replay {
            receipt,
            identical,
            sha256,
            markdown: out.markdown,
            differences,
        })
    }
}

impl Memory {
    /// The `done` messages a receipt's brief included, read again from their channels.
    fn brief_outputs(&self, receipt: &Receipt) -> Result<Vec<PredecessorOutput>> {
        let mut guard = self.fresh()?;
        let state = &mut *guard;
        let mut outputs = Vec::new();
        for o in &receipt.outputs {
            let ch = state
                .channels
                .get(&o.room_id, self.paths().channel(&o.room_id))?;
            let stored = ch
                .messages()
                .iter()
                .find(|m| m.msg.id == o.id)
                .ok_or_else(|| {
                    Error::NotFound(format!(
                        "the `done` message {} of room {} that the brief included is no longer \
                     in its channel",
                        o.id, o.room_id
                    ))
                })?;
            let ref_ = receipt
                .upstream
                .iter()
                .find(|u| u.room_id == o.room_id && u.distance == 1)
                .map(|u| u.ref_.clone())
                .unwrap_or_default();
            let m = ch.message(stored)?;
            outputs.push(PredecessorOutput {
                room_id: o.room_id.clone(),
                ref_,
                from: m.from,
                ts: stored.ts,
                id: m.id,
                body: m.body,
            });
        }
        Ok(outputs)
    }

    /// The semantic side of a receipt's ranking, recomputed on the ledger as it was: with
    /// the receipt's weight, when this server has the receipt's model. Another model, or
    /// none, is a difference (the brief is then replayed lexically).
    fn replay_meaning(
        &self,
        receipt: &Receipt,
        ledger: &mut crate::ledger::Ledger,
        scorer: &Scorer,
        differences: &mut Vec<String>,
    ) -> Option<crate::memory::semantic::brief::Meaning> {
        let used = receipt.ranking.semantic.as_ref()?;
        match self.semantic_in_use() {
            Some(here) if here.model_id == used.model_id => {
                let (ix, scratch) = ledger.index_and_scratch();
                let scoring = scorer.ranking.scoring();
                self.brief_meaning(
                    ix,
                    &receipt.room_id,
                    &receipt.keywords,
                    super::super::brief::searched_too(
                        receipt.epic_title.as_deref(),
                        receipt
                            .epic_words
                            .as_deref()
                            .and_then(|w| super::super::brief::epic_search_words(ix, w, None))
                            .as_deref(),
                    )
                    .as_deref(),
                    scoring,
                    scratch,
                    used.weight,
                )
            }
            here => {
                differences.push(format!(
                    "the brief was ranked with the semantic model {} (weight {}); this server \
                     has {}, so it was replayed lexically (turn `semantic: on` with that model \
                     to replay it)",
                    used.model_id,
                    used.weight,
                    here.map_or("none".to_string(), |h| h.model_id)
                ));
                None
            }
        }
    }
}

/// The scorer a receipt's brief was ranked with.
fn scorer_of(r: &Receipt, now: Timestamp) -> Result<Scorer> {
    let ranking = crate::config::parse_ranking(Some(&r.ranking.name), r.ranking.floor)?;
    let half_lives: [f64; 6] = r.ranking.half_lives.clone().try_into().map_err(|_| {
        Error::invalid(
            "ranking.half_lives",
            "the receipt does not list six half-lives",
            "the receipt is damaged: run `warroom-memory verify`",
        )
    })?;
    Ok(Scorer {
        now,
        half_lives,
        ranking,
    })
}

/// What a receipt records that a replay cannot recompute, checked against what it can: the
/// keywords and entry limit against the arguments asked, the asker against the room
/// briefed (an agent is briefed only for its own room).
fn recorded_inputs_disagree(r: &Receipt) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(asked) = &r.args.brief_keywords
        && *asked != r.keywords
    {
        out.push(format!(
            "the receipt ranked by keywords {:?} but says {:?} were asked",
            r.keywords, asked
        ));
    }
    let limit = r
        .args
        .max_entries
        .unwrap_or(crate::brief::render::MAX_BRIEF_ENTRIES as u32);
    if limit != r.max_entries {
        out.push(format!(
            "the receipt's entry limit is {} but {limit} was asked",
            r.max_entries
        ));
    }
    if let Some(room) = &r.by.room
        && *room != r.room_id
    {
        out.push(format!(
            "the receipt says an agent of room {room} was briefed for room {}: an agent is \
             briefed only for its own room",
            r.room_id
        ));
    }
    out
}

/// What the ledger's prefix says against the receipt: breaks in its hash chain, a time
/// after the brief was served, another length or head.
fn prefix_disagrees(receipt: &Receipt, prefix: &super::replay_prefix::Prefix) -> Vec<String> {
    let mut out: Vec<String> = served_before_read(receipt, prefix.last.as_deref())
        .into_iter()
        .collect();
    // The head covers the last line; the chain covers the lines before it.
    for (line, kind, why) in &prefix.breaks {
        if matches!(*kind, "broken-link" | "bad-link") {
            out.push(format!(
                "the ledger's first {} lines are not those the brief read: line {line} [{kind}] \
                 {why} (run `warroom-memory verify`)",
                receipt.ledger.lines
            ));
        }
    }
    if prefix.head != receipt.ledger.head || prefix.lines != receipt.ledger.lines {
        out.push(format!(
            "the ledger's first {} bytes are not those the brief read: {} lines with head {} \
             now, {} lines with head {} in the receipt (run `warroom-memory verify`)",
            receipt.ledger.bytes,
            prefix.lines,
            prefix.head,
            receipt.ledger.lines,
            receipt.ledger.head
        ));
    }
    out
}

/// A brief cannot have been served before the last ledger line it read was written.
fn served_before_read(r: &Receipt, last: Option<&[u8]>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Ts {
        ts: String,
    }
    let last = last?;
    let line_ts = parse_rfc3339(&serde_json::from_slice::<Ts>(last).ok()?.ts).ok()?;
    let served = parse_rfc3339(&r.ts).ok()?;
    (served.0 + crate::chain::SKEW_SECONDS < line_ts.0).then(|| {
        format!(
            "the receipt says it was served at {}, before the last ledger line it read was \
             written ({})",
            r.ts,
            line_ts.to_rfc3339()
        )
    })
}
