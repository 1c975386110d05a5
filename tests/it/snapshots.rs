//! Snapshot tests of what people and agents read: predecessor context markdown on the
//! bundled example project, the DAG renderings, and the `tools/list` schemas.
//! Regenerate with `UPDATE_SNAPSHOTS=1 cargo test --test snapshots` and review the diff.

use crate::common;

use common::*;

const NOW: &str = "2026-11-25T09:00:00Z";

#[test]
fn context_markdown_of_the_example_project() {
    let p = example_project();
    for room in ["room-002", "room-003", "room-004"] {
        let (code, out, err) = cli(p.path(), &["--now", NOW, "context", room]);
        assert_eq!(code, 0, "{err}");
        assert!(out.len() <= 10_241);
        assert_snapshot(&format!("context-{room}.md"), &out);
    }
    let (code, out, _) = cli(p.path(), &["--now", NOW, "context", "room-001"]);
    assert_eq!(code, 0);
    assert_snapshot("context-room-001.md", &out);
}

#[test]
fn dag_renderings_of_the_example_project() {
    let p = example_project();
    for (format, file) in [
        ("text", "dag.txt"),
        ("mermaid", "dag.mmd"),
        ("dot", "dag.dot"),
    ] {
        let (code, out, err) = cli(p.path(), &["plan", "show", "--format", format]);
        assert_eq!(code, 0, "{err}");
        assert_snapshot(file, &out);
    }
}

#[tokio::test]
async fn tools_list_schema() {
    let p = project();
    let a = agent(p.path()).start().await;
    let tools = a.tools().await;
    let json = serde_json::to_string_pretty(&tools).unwrap() + "\n";
    assert_snapshot("tools-list.json", &json);
}

/// Every input property of every tool, at any depth, says its JSON type (clients that
/// build function-calling schemas from `tools/list` require one on each).
#[tokio::test]
async fn every_tool_input_property_has_a_type() {
    fn walk(
        path: &str,
        schema: &serde_json::Value,
        defs: &serde_json::Value,
        bad: &mut Vec<String>,
    ) {
        let Some(props) = schema.get("properties").and_then(|p| p.as_object()) else {
            return;
        };
        for (name, prop) in props {
            let here = format!("{path}.{name}");
            // A reference or a choice of schemas: the referenced or chosen ones must say.
            let resolved = match prop.get("$ref").and_then(|r| r.as_str()) {
                Some(r) => defs
                    .get(r.rsplit('/').next().unwrap_or(""))
                    .cloned()
                    .unwrap_or(serde_json::Value::Null),
                None => prop.clone(),
            };
            let typed = resolved.get("type").is_some()
                || ["anyOf", "oneOf", "allOf"].iter().any(|k| {
                    resolved
                        .get(k)
                        .and_then(|v| v.as_array())
                        .is_some_and(|alts| {
                            alts.iter().all(|a| {
                                a.get("type").is_some()
                                    || a.get("$ref").is_some_and(|r| {
                                        defs.get(
                                            r.as_str()
                                                .unwrap_or("")
                                                .rsplit('/')
                                                .next()
                                                .unwrap_or(""),
                                        )
                                        .is_some_and(|d| d.get("type").is_some())
                                    })
                            })
                        })
                });
            if !typed {
                bad.push(here.clone());
            }
            walk(&here, &resolved, defs, bad);
            if let Some(items) = resolved.get("items") {
                walk(&format!("{here}[]"), items, defs, bad);
            }
        }
    }
    let p = project();
    let a = agent(p.path()).start().await;
    let tools = serde_json::to_value(a.tools().await).unwrap();
    let list = tools.as_array().expect("tools is a list");
    assert!(list.len() >= 5, "{tools}");
    let mut bad = Vec::new();
    for t in list {
        let name = t["name"].as_str().unwrap_or("?");
        let schema = &t["inputSchema"];
        let defs = schema
            .get("$defs")
            .or_else(|| schema.get("definitions"))
            .cloned()
            .unwrap_or(serde_json::Value::Null);
        walk(name, schema, &defs, &mut bad);
    }
    assert!(bad.is_empty(), "input properties without a type: {bad:?}");
}
