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
