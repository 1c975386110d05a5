//! `memory_get_context`: resolve the room's epic and its upstream in the DAG, rank the
//! candidates ([`crate::context::rank`]), add the direct predecessors' latest `done`
//! messages, and render within the limits ([`crate::context::render`]).

use std::fmt::Write;

use super::Memory;
use super::read::page_size;
use crate::api::context::{ContextArgs, ContextOutput, UpstreamOut};
use crate::config::Identity;
use crate::context::render::{MAX_CONTEXT_ENTRIES, Output, render};
use crate::context::{Scope, rank};
use crate::error::{Error, Result};
use crate::validate::{path_component, short_id};

/// Candidates ranked in order before rendering; more only if these do not fill the brief.
const RANKED_HEAD: usize = 256;
/// Upstream epics named in the header before "and N more".
const HEADER_UPSTREAM: usize = 8;

impl Memory {
    /// The predecessor context of a room.
    pub fn get_context(&self, args: ContextArgs, who: &Identity) -> Result<ContextOutput> {
        let room = who.room_or_own("room_id", args.room_id)?;
        if let Some(p) = &args.plan_id {
            path_component("plan_id", p)?;
        }
        let max = page_size(
            "max_entries",
            args.max_entries,
            MAX_CONTEXT_ENTRIES as u32,
            MAX_CONTEXT_ENTRIES as u32,
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
        let mut state = self.fresh()?;
        let state = &mut *state;
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
        let scope = Scope {
            room_id: room.clone(),
            plan_id: node.map(|n| dag.nodes[n].plan_id.clone()),
            upstream: upstream
                .iter()
                .map(|u| (u.room_id.clone(), u.plan_id.clone(), u.distance))
                .collect(),
        };
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
            if let Some(m) = ch.latest("done") {
                outputs.push(Output {
                    room_id: up.room_id.clone(),
                    ref_: up.ref_.clone(),
                    from: m.msg.from.clone(),
                    ts: m.ts,
                    id: m.msg.id.clone(),
                    body: m.msg.body.clone(),
                });
            }
        }
        let mut header = format!("# Predecessor context for {room}");
        if let Some(n) = node {
            let _ = write!(
                header,
                " ({} · plan {})",
                dag.nodes[n].ref_, dag.nodes[n].plan_id
            );
        }
        header.push_str("\n\n");
        if !ancestors.is_empty() {
            let names: Vec<String> = ancestors
                .iter()
                .take(HEADER_UPSTREAM)
                .map(|&(a, d)| {
                    let n = &dag.nodes[a];
                    format!(
                        "{} ({}, {})",
                        n.ref_,
                        n.room_id,
                        if d == 1 {
                            "direct".to_string()
                        } else {
                            format!("{d} steps up")
                        }
                    )
                })
                .collect();
            let more = ancestors.len().saturating_sub(HEADER_UPSTREAM);
            let _ = writeln!(
                header,
                "Upstream: {}{}",
                names.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            );
        }
        if !keywords.is_empty() {
            let kw = crate::render::clip(&keywords.join(", "), 300);
            let _ = writeln!(header, "Brief keywords: {kw}");
        }
        header.push('\n');
        // Rank only a head of the candidates; rank them all only if the head runs out
        // (many duplicates or oversized items) before `max` entries are chosen.
        let mut head = RANKED_HEAD;
        let r = loop {
            let (ix, scratch) = state.ledger.index_and_scratch();
            let ranked = rank(ix, &scope, &keywords, &self.scorer(now), scratch, head);
            let r = render(
                ix,
                &header,
                &outputs,
                &ranked.head,
                ranked.total,
                ranked.unrelated,
                max,
            )?;
            if r.entry_ids.len() >= max || ranked.head.len() == ranked.total {
                break r;
            }
            head = ranked.total;
        };
        let ids = outputs.iter().map(|o| o.id.clone()).collect();
        Ok(ContextOutput {
            bytes: r.markdown.len(),
            truncated: r.left_out > 0,
            markdown: r.markdown,
            entry_ids: r.entry_ids,
            candidates: r.candidates,
            left_out: r.left_out,
            duplicates_collapsed: r.duplicates,
            room_id: room,
            plan_id: scope.plan_id.clone(),
            epic_ref: node.map(|n| dag.nodes[n].ref_.clone()),
            brief_keywords: keywords,
            upstream,
            predecessor_outputs: ids,
        })
    }
}
