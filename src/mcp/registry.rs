//! The machinery every tool profile shares: a tool's definition ([`ToolDef`]), its
//! description with portable schemas, argument validation against the advertised input
//! schema, and the glue that turns a `tools/call` into a core call and its result into
//! MCP content. The profiles — ours ([`super::tools`]) and OSTwin's ([`super::ostwin`]) —
//! each hold a table of [`ToolDef`]s built with these helpers; [`super::profiles`] picks
//! one. Neither profile imports the other.
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

use crate::config::Identity;
use crate::error::Error;
use crate::memory::Memory;

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

/// The annotations every tool carries: whether it only reads, that none reaches outside
/// the project, and for a tool that writes, that it destroys nothing. Hints the
/// specification defines only for tools that write (destructive, idempotent) are left out
/// of read-only ones, and a hint equal to its default (idempotent: false) is not repeated:
/// every agent pays for these bytes in its context.
fn annotations(d: &ToolDef) -> ToolAnnotations {
    let a = ToolAnnotations::new()
        .read_only(d.read_only)
        .open_world(false);
    if d.read_only { a } else { a.destructive(false) }
}

pub(super) fn describe<A: JsonSchema + 'static, O: JsonSchema + 'static>(d: &ToolDef) -> Tool {
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

/// A tool error with `text` as its content, screened (secrets redacted, long words
/// clipped, at most [`super::echo::MAX_MESSAGE`] bytes).
pub fn tool_error(text: impl Into<String>) -> CallToolResult {
    // Errors repeat what a client sent: screened as every error (`super::echo`).
    CallToolResult::error(vec![ContentBlock::text(super::echo::message(&text.into()))])
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
pub(super) fn run<A, O>(
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
