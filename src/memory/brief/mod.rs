//! `memory_get_context`: resolve the room's epic and its upstream in the DAG, rank the
//! candidates ([`crate::brief::candidates`]), add the direct predecessors' latest `done`
//! messages, and render within the limits ([`crate::brief::render`]).

use super::Memory;
use super::read::page_size;
use crate::api::brief::{BriefArgs, BriefOutput, UpstreamOut};
use crate::brief::render::MAX_BRIEF_ENTRIES;
use crate::config::Identity;
use crate::error::{Error, Result};
use crate::validate::{path_component, short_id};

mod compose;
mod header;
mod provenance;

pub(crate) use crate::brief::render::PredecessorOutput;
pub(crate) use compose::{BriefInputs, compose, epic_search_words};

/// What a brief searches beside its keywords, by meaning as by words: the epic's title,
/// then its own words.
pub(crate) fn searched_too(title: Option<&str>, words: Option<&str>) -> Option<String> {
    match (title, words) {
        (Some(t), Some(w)) => Some(format!("{t}\n{w}")),
        (Some(t), None) => Some(t.to_string()),
        (None, Some(w)) => Some(w.to_string()),
        (None, None) => None,
    }
}

impl Memory {
    /// The predecessor context of a room, recorded by a receipt (its id in `receipt`).
    pub fn brief(&self, args: BriefArgs, who: &Identity) -> Result<BriefOutput> {
        let args = self.scrub_keywords(args)?;
        let (mut out, served) = self.compute_context(&args, who)?;
        // A brief with no record is what receipts prevent: a failure to write one fails
        // the call (nothing else was written).
        out.receipt = Some(self.write_receipt(&out, &args, who, served)?);
        Ok(out)
    }

    /// The same brief without writing its receipt: for the console's room page (a person
    /// previewing what a manager would read is not a brief served) and for `cargo xtask
    /// bench`, which measures what receipts cost. No agent is ever served one.
    pub fn brief_unrecorded(&self, args: BriefArgs, who: &Identity) -> Result<BriefOutput> {
        let args = self.scrub_keywords(args)?;
        Ok(self.compute_context(&args, who)?.0)
    }

    /// Brief keywords are text an agent sends that reaches the receipts file and the
    /// console: they pass the secret policy like every written text (redacted, or the call
    /// refused), before they rank anything, so the brief, its receipt and its replay all
    /// see the same words. They are scanned as words: a secret redacts only its own.
    fn scrub_keywords(&self, mut args: BriefArgs) -> Result<BriefArgs> {
        if let Some(kw) = args.brief_keywords.take() {
            let names: Vec<String> = (0..kw.len())
                .map(|i| format!("brief_keywords[{i}]"))
                .collect();
            let fields: Vec<(&str, String)> = names.iter().map(String::as_str).zip(kw).collect();
            args.brief_keywords = Some(self.guard_words(&fields, &mut Vec::new())?);
        }
        Ok(args)
    }

    fn compute_context(
        &self,
        args: &BriefArgs,
        who: &Identity,
    ) -> Result<(BriefOutput, super::receipts::Served)> {
        let room = who.room_or_own("room_id", args.room_id.clone())?;
        if let Some(p) = &args.plan_id {
            path_component("plan_id", p)?;
        }
        let max = page_size(
            "max_entries",
            args.max_entries,
            MAX_BRIEF_ENTRIES as u32,
            MAX_BRIEF_ENTRIES as u32,
            "the brief must stay short",
        )?;
        if let Some(kw) = &args.brief_keywords {
            if kw.len() > 32 {
                return Err(Error::invalid(
                    "brief_keywords",
                    format!("{} keywords given, the limit is 32", kw.len()),
                    "keep the words that name the epic's topic",
                ));
            }
            for (i, k) in kw.iter().enumerate() {
                short_id(&format!("brief_keywords[{i}]"), k)?;
            }
        }
        let now = self.now();
        // The keywords' vector before the lock (the embedding is the slow part); a plan's
        // keywords are embedded under it the first time, then found in the same cache.
        if let (Some(s), Some(kw)) = (self.semantic(), &args.brief_keywords) {
            s.query(&kw.join(" "));
        }
        let mut guard = self.fresh()?;
        let state = &mut *guard;
        let dag = &state.plans.dag;
        let node = dag.node_for_room(&room, args.plan_id.as_deref());
        if let (Some(p), None) = (&args.plan_id, node) {
            return Err(Error::NotFound(format!(
                "plan `{p}` has no epic run by room `{room}`. Fix: check the plan with `warroom-memory plan show`, or leave plan_id out"
            )));
        }
        let keywords = args
            .brief_keywords
            .clone()
            .or_else(|| node.map(|n| dag.nodes[n].brief_keywords.clone()))
            .unwrap_or_default();
        let ancestors = node.map(|n| dag.ancestors(n)).unwrap_or_default();
        let upstream: Vec<UpstreamOut> = ancestors
            .iter()
            .map(|&(a, d)| UpstreamOut {
                plan_id: dag.nodes[a].plan_id.clone(),
                ref_: dag.nodes[a].ref_.clone(),
                room_id: dag.nodes[a].room_id.clone(),
                distance: d,
            })
            .collect();
        let mut outputs = Vec::new();
        for &(a, d) in &ancestors {
            if d != 1 {
                continue;
            }
            let up = &dag.nodes[a];
            if self
                .paths()
                .confine(&self.paths().channel(&up.room_id))
                .is_err()
            {
                tracing::warn!(room = %up.room_id, "room directory leaves the project root; its done output is skipped");
                continue;
            }
            let ch = state
                .channels
                .get(&up.room_id, self.paths().channel(&up.room_id))?;
            if let Some(stored) = ch.latest("done") {
                // Its body read back from its line when the channel does not hold it.
                let m = ch.message(stored)?;
                outputs.push(PredecessorOutput {
                    room_id: up.room_id.clone(),
                    ref_: up.ref_.clone(),
                    from: m.from,
                    ts: stored.ts,
                    id: m.id,
                    body: m.body,
                });
            }
        }
        let inputs = BriefInputs {
            siblings: Some(node.map(|n| dag.sibling_rooms(n)).unwrap_or_default()),
            room,
            plan_id: node.map(|n| dag.nodes[n].plan_id.clone()),
            epic_ref: node.map(|n| dag.nodes[n].ref_.clone()),
            keywords,
            epic_title: node
                .map(|n| dag.nodes[n].title.trim().to_string())
                .filter(|t| !t.is_empty()),
            epic_words: node
                .map(|n| dag.nodes[n].purpose.words())
                .filter(|w| !w.is_empty()),
            upstream,
            outputs,
            max,
            selection: crate::brief::select::Version::CURRENT,
        };
        // The exclusive lock was for catching up with the files and reading the channels;
        // the ranking needs only the shared one, so publishes do not wait on briefs.
        drop(guard);
        let guard = self.fresh_read()?;
        let state = &*guard;
        let scorer = self.scorer(now);
        let meaning = self.semantic_in_use().and_then(|u| {
            let ix = state.ledger.index();
            let scoring = scorer.ranking.scoring();
            crate::index::with_spare_scratch(|scratch| {
                self.brief_meaning(
                    ix,
                    &inputs.room,
                    &inputs.keywords,
                    searched_too(
                        inputs.epic_title.as_deref(),
                        inputs
                            .epic_words
                            .as_deref()
                            .and_then(|w| compose::epic_search_words(ix, w, None))
                            .as_deref(),
                    )
                    .as_deref(),
                    scoring,
                    scratch,
                    u.weight,
                )
            })
        });
        let brief = compose(&state.ledger, &scorer, &inputs, meaning.as_ref(), None)?;
        let position = state.ledger.position()?;
        drop(guard);
        let output_refs = inputs
            .outputs
            .iter()
            .map(|o| crate::receipts::OutputRef {
                room_id: o.room_id.clone(),
                id: o.id.clone(),
            })
            .collect();
        let served = super::receipts::Served {
            now,
            max,
            ledger: position,
            outputs: output_refs,
            semantic: meaning.map(|m| m.used),
        };
        Ok((brief.output(inputs), served))
    }
}
