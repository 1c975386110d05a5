//! Portable, compact tool schemas: what `schemars` generates, rewritten so that every MCP
//! client accepts it and it costs few tokens in every agent's context.
//!
//! Rules (checked for the whole `tools/list` by `tests/it/tool_surface.rs`):
//! - standard JSON Schema 2020-12 only: Rust-specific `format`s (`uint32`, `double`, …)
//!   are dropped, an unsigned integer gets `minimum: 0` instead (inputs only: on the
//!   output side the bound tells a client nothing it must check, and costs tokens);
//! - `type` is always one string, never an array: an optional input is simply not
//!   required (null unions are removed; a null argument counts as absent, see
//!   [`super::registry::parse_args`]); an output field that can really be null is
//!   `anyOf: [{…}, {"type": "null"}]`;
//! - enums of string constants become one `enum`;
//! - input schemas are self-contained (`$defs` inlined); output schemas keep `$defs` for
//!   shapes used more than once (the entry) and lose every `description`, `title` and
//!   `default` — clients validate `structuredContent` against them, agents read the text
//!   copy;
//! - descriptions are one line (doc-comment line breaks become spaces).

use rmcp::model::JsonObject;
use serde_json::{Map, Value, json};

/// Which side of a tool a schema describes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Input,
    Output,
}

/// The input schema, portable and self-contained.
pub fn input(schema: JsonObject) -> JsonObject {
    rewrite(schema, Side::Input)
}

/// The output schema, portable and without prose.
pub fn output(schema: JsonObject) -> JsonObject {
    rewrite(schema, Side::Output)
}

fn rewrite(mut schema: JsonObject, side: Side) -> JsonObject {
    schema.remove("$schema");
    let defs = match schema.remove("$defs") {
        Some(Value::Object(d)) => d,
        _ => Map::new(),
    };
    let mut root = Value::Object(schema);
    let mut used = Map::new();
    count_refs(&root, &defs, &mut used);
    // Inline every def on the input side, and defs used once on the output side.
    let inline =
        |name: &str| side == Side::Input || used.get(name).and_then(Value::as_u64) == Some(1);
    walk(&mut root, side, &defs, &inline);
    let Value::Object(mut out) = root else {
        unreachable!("a schema object stays an object")
    };
    let mut kept = Map::new();
    for (name, def) in &defs {
        if !inline(name) && used.contains_key(name) {
            let mut def = def.clone();
            walk(&mut def, side, &defs, &inline);
            kept.insert(name.clone(), def);
        }
    }
    if !kept.is_empty() {
        out.insert("$defs".into(), Value::Object(kept));
    }
    out
}

fn def_name(v: &Value) -> Option<&str> {
    v.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

/// Counts references to each def, following defs (an entry inside a hit counts too).
fn count_refs(v: &Value, defs: &Map<String, Value>, used: &mut Map<String, Value>) {
    if let Some(name) = def_name(v) {
        let n = used.get(name).and_then(Value::as_u64).unwrap_or(0);
        used.insert(name.to_string(), json!(n + 1));
        if n == 0
            && let Some(d) = defs.get(name)
        {
            count_refs(d, defs, used);
        }
    }
    match v {
        Value::Object(m) => m.values().for_each(|c| count_refs(c, defs, used)),
        Value::Array(a) => a.iter().for_each(|c| count_refs(c, defs, used)),
        _ => {}
    }
}

fn walk(v: &mut Value, side: Side, defs: &Map<String, Value>, inline: &dyn Fn(&str) -> bool) {
    let Value::Object(m) = v else {
        if let Value::Array(a) = v {
            a.iter_mut().for_each(|c| walk(c, side, defs, inline));
        }
        return;
    };
    // Collapse null unions first: `anyOf: [{$ref}, null]` becomes a `$ref` to inline.
    nullable(m, side);
    // Inline a referenced def, keeping this node's own keywords (its description).
    if let Some(name) = m
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        && inline(name)
        && let Some(Value::Object(def)) = defs.get(name)
    {
        m.remove("$ref");
        for (k, dv) in def {
            m.entry(k.clone()).or_insert_with(|| dv.clone());
        }
    }
    if side == Side::Output {
        for k in ["description", "title", "default", "examples"] {
            m.remove(k);
        }
        if m.get("minimum") == Some(&json!(0)) {
            m.remove("minimum");
        }
    } else if m.get("default") == Some(&Value::Null) {
        m.remove("default");
    }
    if let Some(Value::String(d)) = m.get_mut("description") {
        *d = d.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    fix_format(m, side);
    consts_to_enum(m);
    for (k, c) in m.iter_mut() {
        // Property names and enum values are data, not schemas.
        if k == "enum" || k == "const" || k == "required" {
            continue;
        }
        if k == "properties" {
            if let Value::Object(props) = c {
                props.values_mut().for_each(|p| walk(p, side, defs, inline));
            }
            continue;
        }
        walk(c, side, defs, inline);
    }
}

/// Drops Rust-specific formats; an unsigned integer input gets `minimum: 0`.
fn fix_format(m: &mut Map<String, Value>, side: Side) {
    let Some(f) = m.get("format").and_then(Value::as_str) else {
        return;
    };
    let unsigned = f.starts_with("uint");
    if unsigned || f.starts_with("int") || f == "double" || f == "float" {
        m.remove("format");
        if unsigned && side == Side::Input && !m.contains_key("minimum") {
            m.insert("minimum".into(), json!(0));
        }
    }
}

/// `oneOf: [{const: "a", type: string}, …]` → `{type: string, enum: ["a", …]}`.
fn consts_to_enum(m: &mut Map<String, Value>) {
    let Some(Value::Array(list)) = m.get("oneOf") else {
        return;
    };
    let consts: Option<Vec<Value>> = list
        .iter()
        .map(|o| o.get("const").filter(|c| c.is_string()).cloned())
        .collect();
    if let Some(values) = consts {
        m.remove("oneOf");
        m.insert("type".into(), json!("string"));
        m.insert("enum".into(), Value::Array(values));
    }
}

/// Removes `type: [X, "null"]` and `anyOf: [A, {type: null}]` unions.
fn nullable(m: &mut Map<String, Value>, side: Side) {
    if let Some(Value::Array(types)) = m.get("type") {
        let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        let had_null = non_null.len() < types.len();
        if non_null.len() == 1 {
            m.insert("type".into(), non_null[0].clone());
            if had_null && side == Side::Output {
                // Keep null as a value: move the typed keywords into an anyOf branch.
                let desc = m.remove("description");
                let typed = std::mem::take(m);
                m.insert("anyOf".into(), json!([typed, {"type": "null"}]));
                if let Some(d) = desc {
                    m.insert("description".into(), d);
                }
            }
        }
        return;
    }
    if side == Side::Input
        && let Some(Value::Array(list)) = m.get("anyOf")
        && list.len() == 2
        && let Some(other) = list.iter().find(|b| b.get("type") != Some(&json!("null")))
        && list.iter().any(|b| b.get("type") == Some(&json!("null")))
        && let Value::Object(branch) = other.clone()
    {
        m.remove("anyOf");
        for (k, v) in branch {
            m.entry(k).or_insert(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> JsonObject {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn inputs_lose_null_unions_custom_formats_and_defs() {
        let s = obj(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {"Kind": {"description": "k", "oneOf": [
                {"const": "a", "type": "string", "description": "A"},
                {"const": "b", "type": "string"}]}},
            "type": "object",
            "properties": {
                "n": {"type": ["integer", "null"], "format": "uint32", "default": null,
                      "description": "How\n   many."},
                "kind": {"anyOf": [{"$ref": "#/$defs/Kind"}, {"type": "null"}], "default": null},
                "enum": {"type": "string"}
            }
        }));
        let out = Value::Object(input(s));
        assert_eq!(
            out,
            json!({"type": "object", "properties": {
                "n": {"type": "integer", "minimum": 0, "description": "How many."},
                "kind": {"type": "string", "enum": ["a", "b"], "description": "k"},
                "enum": {"type": "string"}
            }})
        );
    }

    #[test]
    fn outputs_keep_shared_defs_and_real_nulls_without_prose() {
        let s = obj(json!({
            "$defs": {
                "Entry": {"type": "object", "description": "e",
                          "properties": {"supersedes": {"type": ["string", "null"]}}},
                "Once": {"type": "object", "properties": {"x": {"type": "number", "format": "double"}}}
            },
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/Entry", "description": "first"},
                "b": {"type": "array", "items": {"$ref": "#/$defs/Entry"}},
                "c": {"$ref": "#/$defs/Once"}
            }
        }));
        let out = Value::Object(output(s));
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "a": {"$ref": "#/$defs/Entry"},
                    "b": {"type": "array", "items": {"$ref": "#/$defs/Entry"}},
                    "c": {"type": "object", "properties": {"x": {"type": "number"}}}
                },
                "$defs": {"Entry": {"type": "object", "properties": {
                    "supersedes": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}}
            })
        );
    }
}
