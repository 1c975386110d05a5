//! The tool table: name, description, schemas and annotations of every MCP tool, and the
//! glue that turns a `tools/call` into a core call and its result into MCP content.
//!
//! Every failure a caller can fix — unknown argument, wrong type, over-limit value, unknown
//! id — becomes a tool error (`isError: true`) whose text names the field and the fix, so
//! the model reading it can correct itself. Successful results carry `structuredContent`
//! (matching the tool's `outputSchema`) plus a readable text copy.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

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

/// The annotations every tool carries: read-only ones are idempotent; none is
/// destructive or reaches outside the project.
fn annotations(d: &ToolDef) -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(d.read_only)
        .destructive(false)
        .idempotent(d.read_only)
        .open_world(false)
}

fn describe<A: JsonSchema + 'static, O: JsonSchema + 'static>(d: &ToolDef) -> Tool {
    let input = input_schema::<A>().0.clone();
    let output = super::portable::output((*schema_for_output::<O>()).clone());
    Tool::new(d.name, d.description, input)
        .with_title(d.title)
        .with_raw_output_schema(Arc::new(output))
        .annotate(annotations(d))
}

/// A tool whose result is text only (the OSTwin profile): input schema, no output schema.
pub(super) fn describe_text<A: JsonSchema + 'static>(d: &ToolDef) -> Tool {
    let input = input_schema::<A>().0.clone();
    Tool::new(d.name, d.description, input)
        .with_title(d.title)
        .annotate(annotations(d))
}

/// Parses, runs `op`, and packs its text (or the error) for MCP.
pub(super) fn run_text<A: DeserializeOwned + JsonSchema + 'static>(
    tool: &str,
    args: JsonObject,
    op: impl FnOnce(A) -> Result<String, Error>,
) -> CallToolResult {
    match parse_args::<A>(tool, args) {
        Ok(a) => match op(a) {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(e) => tool_error(format!("{tool} failed: {e}")),
        },
        Err(msg) => tool_error(msg),
    }
}

/// The advertised (portable) input schema of `A` and its compiled validator, built once.
fn input_schema<A: JsonSchema + 'static>() -> Arc<(JsonObject, jsonschema::Validator)> {
    type Cache = Mutex<HashMap<TypeId, Arc<(JsonObject, jsonschema::Validator)>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    map.entry(TypeId::of::<A>())
        .or_insert_with(|| {
            let raw = schema_for_input::<A>().expect("argument types are objects");
            let schema = super::portable::input((*raw).clone());
            let validator = jsonschema::validator_for(&serde_json::Value::Object(schema.clone()))
                .expect("generated schemas compile");
            Arc::new((schema, validator))
        })
        .clone()
}

/// A tool error with `text` as its content.
pub fn tool_error(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.into())])
}

/// Deserializes `args` into `A`: an argument given as `null` counts as absent (clients
/// send that for optional arguments), unknown argument names are refused, the rest is
/// validated against the tool's advertised input schema (so every error names the argument
/// at fault), then deserialized.
pub fn parse_args<A: DeserializeOwned + JsonSchema + 'static>(
    tool: &str,
    mut args: JsonObject,
) -> Result<A, String> {
    args.retain(|_, v| !v.is_null());
    let compiled = input_schema::<A>();
    let (schema, validator) = (&compiled.0, &compiled.1);
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
    if let Some(msg) = schema_error(tool, schema, validator, &value) {
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
fn schema_error(
    tool: &str,
    schema: &JsonObject,
    validator: &jsonschema::Validator,
    value: &serde_json::Value,
) -> Option<String> {
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
        description: "Share one fact other war-rooms need. kind: decision (a choice and why), interface (a \
            contract others code against), convention (a team rule), warning (a trap), artifact \
            (what was built, where), code (a snippet to reuse). A fact changed? Publish the new \
            one with supersedes=<old id>.",
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
        description: "List live entries by filters, newest first (≤ 50). Your own room is hidden unless \
            you pass room_id or exclude_room.",
        read_only: true,
        describe: describe::<QueryArgs, crate::api::ledger::QueryOutput>,
        call: |m, who, args| run("memory_query", args, |a| m.query(a, who), render::query),
    },
    ToolDef {
        name: "memory_search",
        title: "Search shared memory",
        description: "Find live entries by words or identifiers in summary, tags, detail and ref; the \
            most relevant first, the fresher first among equals. Filters as in memory_query.",
        read_only: true,
        describe: describe::<SearchArgs, crate::api::ledger::SearchOutput>,
        call: |m, who, args| run("memory_search", args, |a| m.search(a, who), render::search),
    },
    ToolDef {
        name: "memory_get",
        title: "Get one entry and its history",
        description: "One entry by id, live or superseded, with what it replaced and what replaced it.",
        read_only: true,
        describe: describe::<GetArgs, crate::api::ledger::GetOutput>,
        call: |m, _who, args| run("memory_get", args, |a| m.get(a), render::get),
    },
    ToolDef {
        name: "memory_history",
        title: "History of a ref or room",
        description: "Every entry of a ref and/or room, superseded ones marked, oldest first (for \
            audits).",
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
        description: "What changed between two times or two git revisions: entries added, superseded \
            (with a text diff) and append-only violations. Paged.",
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
        description: "Call before your room's first task: a markdown brief (≤ 15 entries, ≤ 10 KB) of \
            what upstream rooms decided, defined and warned about, their latest done \
            outputs, and project-wide conventions.",
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
        description: "Register a plan's epics, rooms and dependencies (a JSON object, or OSTwin \
            markdown) so each room gets predecessor context. Cycles and unknown refs are \
            refused.",
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
        description: "Post to your room's channel (OSTwin format). Your room's latest done message is \
            shown to downstream rooms.",
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
        description: "Read your room's channel, oldest first, optionally by type, since or last_n.",
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

/// Which tools a server lists and accepts (`serve --tools`, `serve --profile`).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ToolSet {
    /// Every tool.
    #[default]
    All,
    /// The basics an agent needs: publish, query, search, get, get_context.
    Core,
    /// OSTwin's tool names and shapes (`serve --profile ostwin`).
    #[value(skip)]
    Ostwin,
}

/// The tools of [`ToolSet::Core`].
pub const CORE_TOOLS: [&str; 5] = [
    "memory_publish",
    "memory_query",
    "memory_search",
    "memory_get",
    "memory_get_context",
];

impl ToolSet {
    /// True if the set has the tool `name`.
    pub fn includes(self, name: &str) -> bool {
        match self {
            ToolSet::All => true,
            ToolSet::Core => CORE_TOOLS.contains(&name),
            ToolSet::Ostwin => super::ostwin::TOOLS.iter().any(|t| t.name == name),
        }
    }

    fn table(self) -> &'static [ToolDef] {
        match self {
            ToolSet::Ostwin => &super::ostwin::TOOLS,
            _ => TOOLS,
        }
    }
}

/// Looks a tool of `set` up by name.
pub fn find(set: ToolSet, name: &str) -> Option<&'static ToolDef> {
    set.table()
        .iter()
        .find(|t| t.name == name && set.includes(t.name))
}

/// The `tools/list` descriptions of `set`.
pub fn list(set: ToolSet) -> Vec<Tool> {
    set.table()
        .iter()
        .filter(|t| set.includes(t.name))
        .map(|t| (t.describe)(t))
        .collect()
}

/// Shared handle type used by the server.
pub type SharedMemory = Arc<Memory>;
