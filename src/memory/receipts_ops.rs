//! Context receipts in the core: writing one for every brief served, listing them, and
//! replaying one — the brief recomputed from the ledger as it was at the receipt's
//! position, with the receipt's arguments, scope and time, compared byte for byte by its
//! SHA-256 (see [`crate::receipts`]).

use super::Memory;
use super::context_ops::{BriefInputs, BriefOutput, brief};
use crate::api::context::{ContextArgs, ContextOutput};
use crate::clock::{Timestamp, parse_rfc3339};
use crate::config::Identity;
use crate::error::{Error, Result};
use crate::index::{Ranking, Scorer};
use crate::receipts::{
    AskedArgs, Asker, LedgerPosition, OutputRef, RankingUsed, Receipt, new_id, sha256_hex,
};
use crate::store::{Keys, Stream};

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
}

impl Memory {
    /// Appends the receipt of the brief `out` (a call's result) and returns its id.
    pub(crate) fn write_receipt(
        &self,
        out: &ContextOutput,
        args: &ContextArgs,
        who: &Identity,
        served: Served,
    ) -> Result<String> {
        let Served {
            now,
            max,
            ledger,
            outputs,
        } = served;
        let ts = self.write_now();
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
            upstream: out.upstream.clone(),
            ranking: RankingUsed {
                name: r.name().to_string(),
                floor: match r {
                    Ranking::Blend { floor } => Some(*floor),
                    _ => None,
                },
                half_lives: self.settings.half_life_hours.to_vec(),
            },
            max_entries: max as u32,
            ledger,
            outputs,
            included: out.included.clone(),
            omitted: out.omitted.clone(),
            bytes: out.bytes,
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
        Ok(id)
    }

    /// True if this process already gave the receipts file the ledger's mode (and sets it).
    fn receipts_mode_set(&self) -> bool {
        self.receipts_mode
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

    /// Every receipt, oldest first (a malformed line is skipped: `verify` reports it).
    pub fn receipts(&self) -> Result<Vec<Receipt>> {
        let path = self.paths().receipts();
        let mut source = self.backend().source(
            Stream::Receipts,
            path.clone(),
            self.append_opts().jail.clone(),
        );
        let mut out = Vec::new();
        source
            .poll(|line| {
                if let Ok(r) = serde_json::from_slice::<Receipt>(line.bytes) {
                    out.push(r);
                }
            })
            .map_err(|e| Error::Io {
                context: format!(
                    "reading receipts {}",
                    self.backend().label(&Stream::Receipts, &path)
                ),
                source: e,
            })?;
        Ok(out)
    }

    /// Recomputes the brief of receipt `id` from the ledger as it was at its position.
    pub fn replay_receipt(&self, id: &str) -> Result<Replay> {
        self.replay_receipt_at(id, None)
    }

    /// Finds receipt `id` and checks its line in the receipts' hash chain: the lines up to
    /// the one after it must be linked (an edited receipt breaks the next line's link), and
    /// with a recorded receipts head the receipt must be in that head's history (an edited
    /// last receipt, or a re-chained stream, loses the head). Returns the receipt and what
    /// the chain says against it.
    fn find_receipt(&self, id: &str, recorded: Option<&str>) -> Result<(Receipt, Vec<String>)> {
        let path = self.paths().receipts();
        let mut source = self.backend().source(
            Stream::Receipts,
            path.clone(),
            self.append_opts().jail.clone(),
        );
        let mut chain = crate::audit::chain_check::ChainCheck::default();
        let mut found: Option<(Receipt, u64)> = None;
        let mut against = Vec::new();
        let mut n = 0u64;
        source
            .poll(|line| {
                n += 1;
                let finding = chain.observe(line.bytes, n);
                if found.is_none()
                    && let Ok(r) = serde_json::from_slice::<Receipt>(line.bytes)
                    && r.id == id
                {
                    found = Some((r, n));
                }
                let near = found.as_ref().is_none_or(|(_, at)| n <= at + 1);
                if let (Some((kind, why)), true) = (finding, near) {
                    against.push(format!(
                        "receipts line {n} [{kind}] {why}: the receipts up to this one were \
                         changed after they were written (run `warroom-memory verify`)"
                    ));
                }
            })
            .map_err(|e| Error::Io {
                context: format!(
                    "reading receipts {}",
                    self.backend().label(&Stream::Receipts, &path)
                ),
                source: e,
            })?;
        let Some((receipt, at)) = found else {
            return Err(Error::NotFound(format!(
                "no receipt `{}`. Fix: list them with `warroom-memory receipts`",
                crate::validate::printable(id)
            )));
        };
        if let Some(h) = recorded {
            let findings = chain.check_head(h);
            let head_line = chain.report.recorded_head_line;
            for (line, kind, why) in findings {
                if line == 0 || line <= at {
                    against.push(format!("receipts line {line} [{kind}] {why}"));
                }
            }
            if let Some(l) = head_line
                && at > l
            {
                against.push(format!(
                    "the receipt is on line {at}, after the recorded receipts head (line {l}): \
                     the head does not vouch for it"
                ));
            }
        }
        Ok((receipt, against))
    }

    /// [`Memory::replay_receipt`], the receipt also checked against a receipts head
    /// recorded earlier. Everything a receipt records is compared, not only the brief's
    /// bytes: what a replay recomputes (included entries with their reasons and scores,
    /// omissions, size, SHA-256) must be equal; what it cannot recompute must agree with
    /// what it can (the keywords and limit with the arguments, the asker with the room
    /// briefed, the time with the ledger lines it read) and with the receipts' chain.
    pub fn replay_receipt_at(&self, id: &str, receipts_head: Option<&str>) -> Result<Replay> {
        let (receipt, mut differences) = self.find_receipt(id, receipts_head)?;
        differences.extend(recorded_inputs_disagree(&receipt));
        let (prefix, outputs) =
            {
                let mut guard = self.fresh()?;
                let state = &mut *guard;
                let prefix = state
                    .ledger
                    .source()
                    .read_range(1, 0, receipt.ledger.bytes)
                    .map_err(|e| Error::Io {
                        context: format!(
                            "reading the ledger's first {} bytes, where receipt {id} was computed \
                         (a shorter ledger lost lines: run `warroom-memory verify`)",
                            receipt.ledger.bytes
                        ),
                        source: e,
                    })?;
                let mut outputs = Vec::new();
                for o in &receipt.outputs {
                    let ch = state
                        .channels
                        .get(&o.room_id, self.paths().channel(&o.room_id))?;
                    let m = ch.messages().iter().find(|m| m.msg.id == o.id).ok_or_else(|| {
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
                    outputs.push(BriefOutput {
                        room_id: o.room_id.clone(),
                        ref_,
                        from: m.msg.from.clone(),
                        ts: m.ts,
                        id: m.msg.id.clone(),
                        body: m.msg.body.clone(),
                    });
                }
                (prefix, outputs)
            };
        let dir =
            tempfile::tempdir().map_err(|e| Error::io("creating", &std::env::temp_dir(), e))?;
        let file = dir.path().join("ledger.jsonl");
        std::fs::write(&file, &prefix).map_err(|e| Error::io("writing", &file, e))?;
        let mut ledger =
            crate::ledger::Ledger::open(&file, crate::store::jsonl::AppendOptions::default())?;
        let at = ledger.position()?;
        differences.extend(served_before_read(&receipt, &prefix));
        // The head covers the last line; the chain covers the lines before it.
        let mut chain = crate::audit::chain_check::ChainCheck::default();
        for (n, line) in prefix.split(|&b| b == b'\n').enumerate() {
            if n as u64 >= at.lines {
                break;
            }
            if let Some((kind @ ("broken-link" | "bad-link"), why)) =
                chain.observe(line, n as u64 + 1)
            {
                differences.push(format!(
                    "the ledger's first {} lines are not those the brief read: line {} [{kind}] \
                     {why} (run `warroom-memory verify`)",
                    receipt.ledger.lines,
                    n + 1
                ));
            }
        }
        if at.head != receipt.ledger.head || at.lines != receipt.ledger.lines {
            differences.push(format!(
                "the ledger's first {} bytes are not those the brief read: {} lines with head {} \
                 now, {} lines with head {} in the receipt (run `warroom-memory verify`)",
                receipt.ledger.bytes, at.lines, at.head, receipt.ledger.lines, receipt.ledger.head
            ));
        }
        let now = parse_rfc3339(&receipt.now).map_err(|e| {
            Error::invalid(
                "now",
                format!("the receipt's time does not parse: {e}"),
                "the receipt is damaged: run `warroom-memory verify`",
            )
        })?;
        let scorer = scorer_of(&receipt, now)?;
        let inputs = BriefInputs {
            room: receipt.room_id.clone(),
            plan_id: receipt.plan_id.clone(),
            epic_ref: receipt.epic_ref.clone(),
            keywords: receipt.keywords.clone(),
            upstream: receipt.upstream.clone(),
            outputs,
            max: receipt.max_entries as usize,
        };
        let out = brief(&mut ledger, &scorer, &inputs)?.output(inputs);
        let sha256 = sha256_hex(&out.markdown);
        let ids = |v: &[crate::api::context::IncludedOut]| {
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
        .unwrap_or(crate::context::render::MAX_CONTEXT_ENTRIES as u32);
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

/// A brief cannot have been served before the last ledger line it read was written.
fn served_before_read(r: &Receipt, prefix: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Ts {
        ts: String,
    }
    let last = prefix
        .split(|&b| b == b'\n')
        .rev()
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))?;
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
