//! The tool table: name, description, schemas and annotations of every MCP tool, and the
//! glue that turns a `tools/call` into a core call and its result into MCP content.
//!
//! Every failure a caller can fix — unknown argument, wrong type, over-limit value, unknown
//! id — becomes a tool error (`isError: true`) whose text names the field and the fix, so
//! the model reading it can correct itself. Successful results carry `structuredContent`
//! (matching the tool's `outputSchema`) plus a readable text copy.

use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_input, schema_for_output};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::api::audit::{DiffArgs, DiffPage, HistoryArgs, HistoryOutput};
use crate::api::channel::{ChannelPostArgs, ChannelPostOutput, ChannelReadArgs, ChannelReadOutput};
use crate::api::context::{ContextArgs, ContextOutput};
use crate::api::ledger::{GetArgs, PublishArgs, QueryArgs, SearchArgs};
use crate::api::plan::{RegisterPlanArgs, RegisterPlanOutput};
use crate::config::Identity;
use crate::error::Error;
use crate::memory::Memory;
use crate::{render, render_audit};

/// Calls one tool with raw JSON arguments.
pub type Call = fn(&Memory, &Identity, JsonObject) -> CallToolResult;

/// One MCP tool.
pub struct ToolDef {
    /// Tool name as called.
    pub name: &'static str,
    /// Human title.
    pub title: &'static str,
    /// What the tool does and when to use it, for the model.
    pub description: &'static str,
    /// True if the tool never writes.
    pub read_only: bool,
    /// Builds the tool's `Tool` description (schemas included).
    pub describe: fn(&ToolDef) -> Tool,
    /// Runs the tool.
    pub call: Call,
}

fn describe<A: JsonSchema + 'static, O: JsonSchema + 'static>(d: &ToolDef) -> Tool {
    let input = schema_for_input::<A>().expect("argument types are objects");
    let annotations = ToolAnnotations::with_title(d.title)
        .read_only(d.read_only)
        .destructive(false)
        .idempotent(d.read_only)
        .open_world(false);
    Tool::new(d.name, d.description, input)
        .with_title(d.title)
        .with_raw_output_schema(schema_for_output::<O>())
        .annotate(annotations)
}

/// A tool error with `text` as its content.
pub fn tool_error(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.into())])
}

/// Deserializes `args` into `A`: refuses unknown argument names, validates against the
/// tool's input schema (so every error names the argument at fault), then deserializes.
pub fn parse_args<A: DeserializeOwned + JsonSchema + 'static>(
    tool: &str,
    args: JsonObject,
) -> Result<A, String> {
    let schema = schema_for_input::<A>().expect("argument types are objects");
    let props = schema.get("properties").and_then(|p| p.as_object());
    let known: Vec<&str> = props
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    if let Some(unknown) = args.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(format!(
            "{tool}: unknown argument `{}`. Fix: use only {}",
            crate::validate::printable(unknown),
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let value = serde_json::Value::Object(args);
    if let Some(msg) = schema_error(tool, &schema, &value) {
        return Err(msg);
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let field = if path == "." {
            "arguments".to_string()
        } else {
            format!("`{path}`")
        };
        format!("{tool}: invalid {field}: {inner}. Fix: see the tool's input schema")
    })
}

/// The first violation of the input schema, phrased for the caller, if any.
fn schema_error(tool: &str, schema: &JsonObject, value: &serde_json::Value) -> Option<String> {
    let doc = serde_json::Value::Object(schema.clone());
    let validator = jsonschema::validator_for(&doc).expect("generated schemas compile");
    let err = validator.iter_errors(value).next()?;
    let pointer = err.instance_path().to_string();
    // `/tags/0` → `tags[0]`; the root → the missing property named in the message.
    let mut parts = pointer
        .trim_start_matches('/')
        .split('/')
        .filter(|p| !p.is_empty());
    let field = match parts.next() {
        Some(first) => parts.fold(first.to_string(), |acc, p| format!("{acc}[{p}]")),
        None => "arguments".to_string(),
    };
    let allowed = pointer
        .strip_prefix('/')
        .and_then(|name| schema.get("properties")?.get(name))
        .map(|prop| allowed_values(schema, prop))
        .filter(|v| !v.is_empty())
        .map(|v| format!("use one of: {}", v.join(", ")))
        .unwrap_or_else(|| "see the tool's input schema".into());
    let text = err.to_string();
    if let Some(name) = text.strip_suffix(" is a required property") {
        return Some(format!(
            "{tool}: missing required argument `{}`. Fix: pass it (see the tool's input schema)",
            name.trim_matches('"')
        ));
    }
    Some(format!("{tool}: invalid `{field}`: {text}. Fix: {allowed}"))
}

/// The constant values a property accepts (enums such as `kind`), following `$ref`.
fn allowed_values(root: &JsonObject, prop: &serde_json::Value) -> Vec<String> {
    let resolve = |v: &serde_json::Value| -> Option<serde_json::Value> {
        let r = v.get("$ref")?.as_str()?.strip_prefix("#/$defs/")?;
        root.get("$defs")?.get(r).cloned()
    };
    let mut candidates = vec![prop.clone()];
    for key in ["anyOf", "oneOf"] {
        if let Some(list) = prop.get(key).and_then(|l| l.as_array()) {
            candidates.extend(list.iter().cloned());
        }
    }
    let mut out = Vec::new();
    for c in candidates {
        let c = resolve(&c).unwrap_or(c);
        let consts = c
            .get("enum")
            .and_then(|e| e.as_array().cloned())
            .or_else(|| {
                c.get("oneOf")?
                    .as_array()
                    .map(|l| l.iter().filter_map(|v| v.get("const").cloned()).collect())
            })
            .unwrap_or_default();
        out.extend(consts.iter().filter_map(|v| v.as_str().map(str::to_string)));
    }
    out
}

/// Parses, runs `op`, and packs the result (or the error) for MCP.
fn run<A, O>(
    tool: &str,
    args: JsonObject,
    op: impl FnOnce(A) -> Result<O, Error>,
    text: fn(&O) -> String,
) -> CallToolResult
where
    A: DeserializeOwned + JsonSchema + 'static,
    O: Serialize,
{
    let parsed = match parse_args::<A>(tool, args) {
        Ok(a) => a,
        Err(msg) => return tool_error(msg),
    };
    match op(parsed) {
        Ok(out) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(text(&out))]);
            result.structured_content =
                Some(serde_json::to_value(&out).expect("results serialize"));
            result
        }
        Err(e) => tool_error(format!("{tool} failed: {e}")),
    }
}

/// Every tool, in the order `tools/list` shows them.
pub static TOOLS: &[ToolDef] = &[
    ToolDef {
        name: "memory_publish",
        title: "Publish to shared memory",
        description: "Publish one piece of knowledge other war-rooms need: a decision (and \
            why), an interface (a contract others code against), a convention (team rule), \
            a warning (trap to avoid), an artifact (what was built, where) or code (snippet \
            or command to reuse). One fact per entry; summary ≤ 4096 bytes, detail ≤ 16384. \
            To change a published fact, publish the new one with `supersedes` set to the old \
            id. room_id/author_role default to this server's identity.",
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
        description: "List live entries matching filters (tags any-of, kind, room_id, \
            exclude_room, author_role, ref, since, until), newest first, at most 50 \
            (`last_n` for fewer). Your own room is left out unless you pass room_id or \
            exclude_room. Returns `total` and `truncated`.",
        read_only: true,
        describe: describe::<QueryArgs, crate::api::ledger::QueryOutput>,
        call: |m, who, args| run("memory_query", args, |a| m.query(a, who), render::query),
    },
    ToolDef {
        name: "memory_search",
        title: "Search shared memory",
        description: "Full-text search of live entries' summaries and tags, ranked by BM25 \
            relevance × time decay by kind (half-lives: convention 30 d, interface 20 d, \
            decision 14 d, artifact and warning 7 d, code 3 d). Same filters as \
            memory_query; 10 hits by default, at most 50. Each hit reports score, bm25, \
            decay and age_hours.",
        read_only: true,
        describe: describe::<SearchArgs, crate::api::ledger::SearchOutput>,
        call: |m, who, args| run("memory_search", args, |a| m.search(a, who), render::search),
    },
    ToolDef {
        name: "memory_get",
        title: "Get one entry and its history",
        description: "Fetch one entry by id — live or superseded — with its supersede chain \
            both ways: what it replaced and what replaced it.",
        read_only: true,
        describe: describe::<GetArgs, crate::api::ledger::GetOutput>,
        call: |m, _who, args| run("memory_get", args, |a| m.get(a), render::get),
    },
    ToolDef {
        name: "memory_history",
        title: "History of a ref or room",
        description: "Every entry about an epic ref and/or from a room — superseded ones \
            included and marked, with what superseded them — oldest first (the newest 50 by \
            default, ≤ 200). For auditors reconstructing how a decision evolved.",
        read_only: true,
        describe: describe::<HistoryArgs, HistoryOutput>,
        call: |m, _who, args| {
            run(
                "memory_history",
                args,
                |a| m.history(a),
                render_audit::history,
            )
        },
    },
    ToolDef {
        name: "memory_diff",
        title: "What changed in the ledger",
        description: "Diff the ledger between two times (since/until) or two git revisions \
            (git_from/git_to): entries added, entries superseded with a unified diff of old \
            vs new text, and violations — any earlier line changed or missing (append-only \
            broken; git mode). Paginated: `limit` ≤ 50 changes per call, then `offset`.",
        read_only: true,
        describe: describe::<DiffArgs, DiffPage>,
        call: |m, _who, args| {
            run(
                "memory_diff",
                args,
                |a| m.diff_page(a),
                render_audit::diff_page,
            )
        },
    },
    ToolDef {
        name: "memory_get_context",
        title: "Predecessor context for a war-room",
        description: "Call before your room's first task. Returns a short markdown brief \
            (≤ 15 entries, ≤ 10240 bytes) of what upstream rooms in the plan's DAG decided, \
            defined and warned about, the direct predecessors' latest `done` outputs, and \
            project-wide conventions, warnings and interfaces — ranked by the brief keywords \
            (BM25 × decay), nearer rooms first. Your own room's entries never appear.",
        read_only: true,
        describe: describe::<ContextArgs, ContextOutput>,
        call: |m, who, args| {
            run(
                "memory_get_context",
                args,
                |a| m.get_context(a, who),
                render::context,
            )
        },
    },
    ToolDef {
        name: "memory_register_plan",
        title: "Register a plan (epics, rooms, dependencies)",
        description: "Register a plan so that every room gets predecessor context: a JSON \
            object {plan_id, title, epics:[{ref, room_id, title, depends_on, brief_keywords, \
            roles}]} or OSTwin plan markdown (`## EPIC-001 — Title`, `depends_on: [EPIC-…]`). \
            Dependency cycles and unknown refs are refused with the epics named; nothing is \
            stored then. Later plans may depend on earlier plans' epics (PLAN_ID/REF). \
            Registering the same plan_id again replaces it.",
        read_only: false,
        describe: describe::<RegisterPlanArgs, RegisterPlanOutput>,
        call: |m, _who, args| {
            run(
                "memory_register_plan",
                args,
                |a| m.register_plan(a),
                render::register_plan,
            )
        },
    },
    ToolDef {
        name: "channel_post",
        title: "Post to your war-room channel",
        description: "Append a message to your room's channel (OSTwin format: from, to, \
            type, ref, body ≤ 65536 bytes). Types: task, done, review, pass, fail, fix, \
            error, signoff, or another word. Your room's latest `done` message is shown to \
            downstream rooms as your output. Only your own room's channel can be written.",
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
        description: "Read your room's channel: the newest `last_n` messages (default 50, \
            ≤ 200), oldest first, optionally only one `type` or those `since` a time. A \
            room's conversation is private to it.",
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

/// Looks a tool up by name.
pub fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The `tools/list` descriptions.
pub fn list() -> Vec<Tool> {
    TOOLS.iter().map(|t| (t.describe)(t)).collect()
}

/// Shared handle type used by the server.
pub type SharedMemory = Arc<Memory>;
