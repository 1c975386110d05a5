//! Our tool profile: name, description, schemas and annotations of every MCP tool
//! (`memory_*`, `channel_*`, audit and plan tools), built with [`super::registry`].

use super::registry::{ToolDef, describe, run};
use crate::api::audit::{DiffArgs, DiffPage, HistoryArgs, HistoryOutput};
use crate::api::brief::{BriefArgs, BriefOutput};
use crate::api::channel::{ChannelPostArgs, ChannelPostOutput, ChannelReadArgs, ChannelReadOutput};
use crate::api::ledger::{GetArgs, PublishArgs, QueryArgs, SearchArgs};
use crate::api::plan::{RegisterPlanArgs, RegisterPlanOutput};
use crate::{render, render_audit};

/// Every tool, in the order `tools/list` shows them.
pub static TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "memory_publish",
        title: "Publish to shared memory",
        description: "Share a fact other war-rooms need. kind: decision (a choice and why), interface (a \
            contract others code against), convention (a team rule), warning (a trap), artifact \
            (what was built, where), code (a snippet to reuse). Changed? Publish anew with \
            supersedes=<old id>. Working notes: audience=room.",
        read_only: false,
        describe: describe::<PublishArgs, crate::api::ledger::PublishOutput>,
        call: |m, who, args| {
            run(
                "memory_publish",
                args,
                |a| m.publish(a, who),
                render::publish,
            )
        },
    },
    ToolDef {
        name: "memory_query",
        title: "Query shared memory",
        description: "Live entries by filters, newest first (≤ 50); your own room only if room_id \
            or exclude_room names it.",
        read_only: true,
        describe: describe::<QueryArgs, crate::api::ledger::QueryOutput>,
        call: |m, who, args| run("memory_query", args, |a| m.query(a, who), render::query),
    },
    ToolDef {
        name: "memory_search",
        title: "Search shared memory",
        description: "Live entries by words or identifiers (summary, tags, detail, ref), most \
            relevant first; filters as in memory_query.",
        read_only: true,
        describe: describe::<SearchArgs, crate::api::ledger::SearchOutput>,
        call: |m, who, args| run("memory_search", args, |a| m.search(a, who), render::search),
    },
    ToolDef {
        name: "memory_get",
        title: "Get one entry and its history",
        description: "One entry by id, live or superseded, with its supersede chain.",
        read_only: true,
        describe: describe::<GetArgs, crate::api::ledger::GetOutput>,
        call: |m, who, args| run("memory_get", args, |a| m.get(a, who), render::get),
    },
    ToolDef {
        name: "memory_history",
        title: "History of a ref or room",
        description: "Every entry of a ref and/or room, superseded ones marked, oldest first.",
        read_only: true,
        describe: describe::<HistoryArgs, HistoryOutput>,
        call: |m, who, args| {
            run(
                "memory_history",
                args,
                |a| m.history(a, who),
                render_audit::history,
            )
        },
    },
    ToolDef {
        name: "memory_diff",
        title: "What changed in the ledger",
        description: "What changed between two times or revisions: entries added, superseded \
            (diffed), append-only violations. Paged.",
        read_only: true,
        describe: describe::<DiffArgs, DiffPage>,
        call: |m, who, args| {
            run(
                "memory_diff",
                args,
                |a| m.diff_page(a, who),
                render_audit::diff_page,
            )
        },
    },
    ToolDef {
        name: "memory_get_context",
        title: "Predecessor context for a war-room",
        description: "Call before your room's first task: a brief (≤ 15 entries, ≤ 10 KB) of what \
            binds the project and what every upstream room exposes.",
        read_only: true,
        describe: describe::<BriefArgs, BriefOutput>,
        call: |m, who, args| {
            run(
                "memory_get_context",
                args,
                |a| m.brief(a, who),
                render::context,
            )
        },
    },
    ToolDef {
        name: "memory_register_plan",
        title: "Register a plan (epics, rooms, dependencies)",
        description: "Register a plan (epics, rooms, dependencies) so each room gets predecessor \
            context; cycles and unknown refs are refused.",
        read_only: false,
        describe: describe::<RegisterPlanArgs, RegisterPlanOutput>,
        call: |m, who, mut args| {
            // Clients that send the plan as a string mean text: read it as `markdown`.
            if let Some(serde_json::Value::String(_)) = args.get("plan")
                && !args.contains_key("markdown")
                && let Some(text) = args.remove("plan")
            {
                args.insert("markdown".into(), text);
            }
            run(
                "memory_register_plan",
                args,
                |a| m.register_plan(a, who),
                render::register_plan,
            )
        },
    },
    ToolDef {
        name: "channel_post",
        title: "Post to your war-room channel",
        description: "Post to your room's channel. Its latest done message reaches downstream \
            rooms' briefs.",
        read_only: false,
        describe: describe::<ChannelPostArgs, ChannelPostOutput>,
        call: |m, who, args| {
            run(
                "channel_post",
                args,
                |a| m.channel_post(a, who),
                render::channel_post,
            )
        },
    },
    ToolDef {
        name: "channel_read",
        title: "Read your war-room channel",
        description: "Read your room's channel, oldest first; by type, since, last_n, before.",
        read_only: true,
        describe: describe::<ChannelReadArgs, ChannelReadOutput>,
        call: |m, who, args| {
            run(
                "channel_read",
                args,
                |a| m.channel_read(a, who),
                render::channel_read,
            )
        },
    },
];
