//! OSTwin drop-in through the real binary: an OSTwin project directory (our fixture in
//! OSTwin's formats: Python `json.dumps` ledger lines with `\u` escapes and a corrupt
//! line, PowerShell `config.json` files with a BOM and `PLAN-REVIEW`) served with only
//! OSTwin's environment, through OSTwin's tool names and result shapes.

use crate::common;

use std::path::Path;

use common::*;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ostwin/project");

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// A copy of the fixture project.
fn ostwin_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(Path::new(FIXTURE), dir.path());
    dir
}

type Client = RunningService<RoleClient, ()>;

/// `serve` as OSTwin starts an agent: only `AGENT_OS_ROOM_DIR` and `AGENT_OS_ROLE`, run
/// from the room's directory, no `--root`.
async fn ostwin_agent(root: &Path, room: &str, role: &str) -> (Client, std::path::PathBuf) {
    ostwin_agent_with(root, room, role, &[("WARROOM_DAEMON", "off")]).await
}

async fn ostwin_agent_with(
    root: &Path,
    room: &str,
    role: &str,
    env: &[(&str, &str)],
) -> (Client, std::path::PathBuf) {
    let room_dir = root.join(".war-rooms").join(room);
    std::fs::create_dir_all(&room_dir).unwrap();
    let log = root.join(format!("serve-{room}.log"));
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.arg("serve")
        .current_dir(&room_dir)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("AGENT_OS_ROOM_DIR", &room_dir)
        .env("AGENT_OS_ROLE", role);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    (().serve(transport).await.unwrap(), log)
}

async fn tool_names(c: &Client) -> Vec<String> {
    c.list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

async fn call(c: &Client, tool: &str, args: Value) -> (bool, String) {
    let Value::Object(map) = args else { panic!() };
    let r = c
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map))
        .await
        .unwrap();
    let text = r
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<String>();
    (r.is_error != Some(true), text)
}

async fn ok(c: &Client, tool: &str, args: Value) -> String {
    let (fine, text) = call(c, tool, args.clone()).await;
    assert!(fine, "{tool} {args}: {text}");
    text
}

async fn json_of(c: &Client, tool: &str, args: Value) -> Vec<Value> {
    serde_json::from_str(&ok(c, tool, args).await).unwrap()
}

fn summaries(v: &[Value]) -> Vec<&str> {
    v.iter().map(|e| e["summary"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn an_untouched_ostwin_project_is_served_with_only_ostwin_environment() {
    let p = ostwin_project();
    let root = p.path();
    let (a, log) = ostwin_agent(root, "room-002", "engineer").await;
    let names = tool_names(&a).await;
    assert_eq!(
        names,
        [
            "publish",
            "query",
            "search",
            "get_context",
            "list_memories",
            "post_message",
            "read_messages",
            "get_latest"
        ]
    );
    // Existing entries are there (the superseded one and the corrupt line are not).
    let all = json_of(&a, "query", json!({})).await;
    assert_eq!(all.len(), 3, "{all:?}");
    assert!(
        summaries(&all)
            .contains(&"Sessions use JWT (RS256) — 30 minute expiry with refresh tokens")
    );
    // New entries go to OSTwin's ledger; no second ledger appears.
    let text = ok(
        &a,
        "publish",
        json!({"kind": "artifact", "summary": "Cart service at src/cart", "tags": [" Cart ", "API"], "room_id": "room-002", "author_role": "engineer", "ref": "EPIC-002"}),
    )
    .await;
    assert!(text.starts_with("published:mem-"), "{text}");
    let ledger = std::fs::read_to_string(root.join(".agents/memory/ledger.jsonl")).unwrap();
    assert!(ledger.contains("Cart service at src/cart"));
    assert!(
        !root.join(".agents/ledger.jsonl").exists(),
        "no second ledger"
    );
    let mine = json_of(&a, "query", json!({"room_id": "room-002"})).await;
    assert_eq!(
        mine[0]["tags"],
        json!(["cart", "api"]),
        "tags lowercased and trimmed"
    );
    // Channels come from .war-rooms; the room's own channel is its directory's.
    let posted = ok(
        &a,
        "post_message",
        json!({"room_dir": ".war-rooms/room-002", "from_role": "engineer", "to_role": "manager", "msg_type": "done", "ref": "EPIC-002", "body": "cart done"}),
    )
    .await;
    assert!(posted.starts_with("posted:engineer-done-"), "{posted}");
    let channel = std::fs::read_to_string(root.join(".war-rooms/room-002/channel.jsonl")).unwrap();
    assert!(channel.contains("cart done"));
    let latest = ok(
        &a,
        "get_latest",
        json!({"room_dir": ".war-rooms/room-002", "msg_type": "done"}),
    )
    .await;
    assert_eq!(
        serde_json::from_str::<Value>(&latest).unwrap()["body"],
        "cart done"
    );
    let none = ok(
        &a,
        "get_latest",
        json!({"room_dir": ".war-rooms/room-002", "msg_type": "fail"}),
    )
    .await;
    assert_eq!(none, "null");
    // Context from the upstream room, in OSTwin's markdown.
    let ctx = ok(&a, "get_context", json!({"room_id": "room-002"})).await;
    assert!(
        ctx.starts_with("## Cross-Room Context (auto-generated)"),
        "{ctx}"
    );
    assert!(
        ctx.contains("### Interfaces (API contracts & schemas)"),
        "{ctx}"
    );
    assert!(
        ctx.contains("- **[EPIC-001]** (room-001): POST /api/v1/login"),
        "{ctx}"
    );
    assert!(
        ctx.contains("  ```\n  Request body"),
        "detail preview in a code block: {ctx}"
    );
    assert!(!ctx.contains("Cart service"), "own room excluded: {ctx}");
    let log = std::fs::read_to_string(log).unwrap();
    assert!(
        log.contains("layout=\"ostwin\"") || log.contains("layout=ostwin"),
        "{log}"
    );
    // The upstream room reads its own channel, as OSTwin wrote it.
    let (up, _) = ostwin_agent(root, "room-001", "manager").await;
    let msgs = json_of(
        &up,
        "read_messages",
        json!({"room_dir": ".war-rooms/room-001"}),
    )
    .await;
    assert_eq!(msgs.len(), 2);
    let done = json_of(
        &up,
        "read_messages",
        json!({"room_dir": ".war-rooms/room-001", "from_role": "engineer", "to_role": "manager", "ref": "EPIC-001"}),
    )
    .await;
    assert_eq!(done.len(), 1);
    assert_eq!(done[0]["type"], "done");
}

#[tokio::test]
async fn through_the_daemon_an_ostwin_agent_keeps_its_profile() {
    let p = ostwin_project();
    let runtime = tempfile::tempdir().unwrap();
    let _d = common::daemon::start_daemon(p.path(), runtime.path());
    let rt = runtime.path().display().to_string();
    let (a, _) = ostwin_agent_with(
        p.path(),
        "room-002",
        "engineer",
        &[("WARROOM_DAEMON", "require"), ("XDG_RUNTIME_DIR", &rt)],
    )
    .await;
    let names = tool_names(&a).await;
    assert!(
        names.contains(&"get_latest".to_string())
            && !names.iter().any(|n| n.starts_with("memory_")),
        "{names:?}"
    );
    assert_eq!(json_of(&a, "query", json!({})).await.len(), 3);
}

#[tokio::test]
async fn ostwin_query_search_list_and_supersedes_behave_as_its_test_suite_expects() {
    let p = ostwin_project();
    let root = p.path();
    let (a, _) = ostwin_agent(root, "room-003", "qa").await;
    let publish = |kind: &'static str,
                   summary: &'static str,
                   tags: Value,
                   room: &'static str,
                   role: &'static str,
                   r: &'static str| {
        json!({"kind": kind, "summary": summary, "tags": tags, "room_id": room, "author_role": role, "ref": r})
    };
    // Another agent, of room-004, publishes too (rooms write only as themselves).
    let (b, _) = ostwin_agent(root, "room-004", "engineer").await;
    ok(
        &b,
        "publish",
        publish(
            "warning",
            "Payment gateway times out under load",
            json!(["payments"]),
            "room-004",
            "engineer",
            "EPIC-004",
        ),
    )
    .await;
    ok(
        &b,
        "publish",
        publish(
            "code",
            "Retry helper in src/retry.rs",
            json!(["payments", "retry"]),
            "room-004",
            "engineer",
            "EPIC-004",
        ),
    )
    .await;
    // Invalid kind: an error naming the kinds.
    let (fine, e) = call(
        &a,
        "publish",
        publish("gossip", "x", json!([]), "room-003", "qa", "EPIC-003"),
    )
    .await;
    assert!(!fine && e.contains("decision"), "{e}");
    // Query filters.
    assert_eq!(
        json_of(&a, "query", json!({"kind": "warning"})).await.len(),
        1
    );
    assert_eq!(
        json_of(&a, "query", json!({"ref": "EPIC-004"})).await.len(),
        2
    );
    assert_eq!(
        json_of(&a, "query", json!({"room_id": "room-001"}))
            .await
            .len(),
        3
    );
    assert_eq!(
        json_of(&a, "query", json!({"author_role": "architect"}))
            .await
            .len(),
        2
    );
    assert_eq!(
        json_of(&a, "query", json!({"tags": ["retry", "jwt"]}))
            .await
            .len(),
        2,
        "tags OR"
    );
    assert_eq!(
        json_of(&a, "query", json!({"exclude_room": "room-001"}))
            .await
            .len(),
        2
    );
    let last = json_of(&a, "query", json!({"last_n": 2})).await;
    assert_eq!(
        summaries(&last),
        [
            "Payment gateway times out under load",
            "Retry helper in src/retry.rs"
        ],
        "oldest first"
    );
    assert_eq!(
        json_of(&a, "query", json!({"kind": "code", "room_id": "room-004"}))
            .await
            .len(),
        1
    );
    assert_eq!(ok(&a, "query", json!({"ref": "EPIC-999"})).await, "[]");
    // Search.
    let hits = json_of(&a, "search", json!({"text": "gateway"})).await;
    assert_eq!(summaries(&hits), ["Payment gateway times out under load"]);
    assert_eq!(
        json_of(&a, "search", json!({"text": "retry"})).await.len(),
        1,
        "tag content"
    );
    assert_eq!(
        json_of(&a, "search", json!({"text": "attempts"}))
            .await
            .len(),
        1,
        "detail field"
    );
    assert!(
        json_of(&a, "search", json!({"text": "payments", "kind": "code"}))
            .await
            .len()
            == 1
    );
    assert!(
        json_of(
            &a,
            "search",
            json!({"text": "payments", "exclude_room": "room-004"})
        )
        .await
        .is_empty()
    );
    assert_eq!(
        json_of(&a, "search", json!({"text": "api", "max_results": 1}))
            .await
            .len(),
        1
    );
    assert_eq!(ok(&a, "search", json!({"text": "zzqxv"})).await, "[]");
    assert_eq!(ok(&a, "search", json!({"text": ""})).await, "[]");
    // Supersede chains: A → B → C, only C survives, in query, search and list.
    let id = |t: String| t.trim_start_matches("published:").to_string();
    let a1 = id(ok(
        &a,
        "publish",
        publish(
            "decision",
            "cache ttl 60s",
            json!(["cache"]),
            "room-003",
            "qa",
            "EPIC-003",
        ),
    )
    .await);
    let mut sup = publish(
        "decision",
        "cache ttl 120s",
        json!(["cache"]),
        "room-003",
        "qa",
        "EPIC-003",
    );
    sup["supersedes"] = json!(a1);
    let b1 = id(ok(&a, "publish", sup).await);
    let mut sup = publish(
        "decision",
        "cache ttl 300s",
        json!(["cache"]),
        "room-003",
        "qa",
        "EPIC-003",
    );
    sup["supersedes"] = json!(b1);
    ok(&a, "publish", sup).await;
    let cache = json_of(&a, "query", json!({"tags": ["cache"]})).await;
    assert_eq!(summaries(&cache), ["cache ttl 300s"]);
    assert_eq!(
        json_of(&a, "search", json!({"text": "cache ttl"}))
            .await
            .len(),
        1
    );
    // list_memories: lightweight rows, previews ≤ 200 characters, kind filter.
    let list = json_of(&a, "list_memories", json!({})).await;
    assert_eq!(list.len(), 6);
    for row in &list {
        let keys: Vec<&String> = row.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 7, "{row}");
        assert!(row["summary_preview"].as_str().unwrap().chars().count() <= 200);
        assert!(row.get("detail").is_none());
    }
    assert_eq!(
        json_of(&a, "list_memories", json!({"kind": "code"}))
            .await
            .len(),
        1
    );
    // get_context: keywords rank, max_entries bounds, a room with nothing else gets the
    // fallback text.
    let ctx = ok(
        &a,
        "get_context",
        json!({"room_id": "room-003", "brief_keywords": ["payments"], "max_entries": 1}),
    )
    .await;
    assert_eq!(ctx.matches("- **[").count(), 1, "{ctx}");
    assert!(ctx.contains("(room-004)"), "{ctx}");
    let empty = ostwin_project();
    std::fs::write(empty.path().join(".agents/memory/ledger.jsonl"), "").unwrap();
    let (c, _) = ostwin_agent(empty.path(), "room-009", "qa").await;
    assert_eq!(
        ok(&c, "get_context", json!({"room_id": "room-009"})).await,
        "No cross-room context available yet."
    );
    assert_eq!(ok(&c, "list_memories", json!({})).await, "[]");
}

#[test]
fn both_layouts_at_once_are_refused_naming_the_setting() {
    let p = ostwin_project();
    std::fs::write(p.path().join(".agents/ledger.jsonl"), "").unwrap();
    let (code, _, err) = cli(p.path(), &["query"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("both layouts") && err.contains("layout: ostwin"),
        "{err}"
    );
    std::fs::write(p.path().join(".agents/warroom.yaml"), "layout: ostwin\n").unwrap();
    let (code, out, err) = cli(p.path(), &["query", "--room", "*"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("3 of 3"), "{out}");
}

#[test]
fn plan_review_gates_and_bom_files_are_accepted() {
    let p = ostwin_project();
    let (code, out, err) = cli(p.path(), &["--json", "plan", "show"]);
    assert_eq!(code, 0, "{err}");
    let dag: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(dag["problems"], json!([]), "{dag}");
    assert_eq!(
        dag["edges"],
        json!([["ostwin/EPIC-001", "ostwin/EPIC-002"]])
    );
    let md = "\u{feff}# Plan: Shop\n\n## EPIC-001 — Login\n- **Room**: room-login\ndepends_on: [PLAN-REVIEW]\n\n## EPIC-002 — Cart\n- **Room**: room-cart\ndepends_on: [EPIC-001, PLAN-REVIEW]\n";
    let file = p.path().join("plan.md");
    std::fs::write(&file, md).unwrap();
    let (code, _, err) = cli(
        p.path(),
        &[
            "plan",
            "register",
            file.to_str().unwrap(),
            "--plan-id",
            "shop",
        ],
    );
    assert_eq!(code, 0, "PLAN-REVIEW is a gate, not an unknown epic: {err}");
}

#[test]
fn a_dag_json_and_the_room_configs_of_one_plan_are_one_plan() {
    let p = ostwin_project();
    let root = p.path();
    for (room, deps) in [
        ("room-001", "[\"PLAN-REVIEW\"]"),
        ("room-002", "[\"EPIC-001\"]"),
    ] {
        let epic = if room == "room-001" {
            "EPIC-001"
        } else {
            "EPIC-002"
        };
        std::fs::write(
            root.join(format!(".war-rooms/{room}/config.json")),
            format!("\u{feff}{{\"room_id\": \"{room}\", \"task_ref\": \"{epic}\", \"plan_id\": \"shop\", \"depends_on\": {deps}}}"),
        )
        .unwrap();
    }
    // DAG.json as Build-DependencyGraph writes it: no plan id, depends_on as an array,
    // a string or null.
    std::fs::write(
        root.join(".war-rooms/DAG.json"),
        "\u{feff}{\"generated_at\": \"2026-11-20T09:00:00Z\", \"nodes\": {\"EPIC-001\": {\"room_id\": \"room-001\", \"task_ref\": \"EPIC-001\", \"depends_on\": null}, \"EPIC-002\": {\"room_id\": \"room-002\", \"task_ref\": \"EPIC-002\", \"depends_on\": \"EPIC-001\"}}}",
    )
    .unwrap();
    let (code, out, err) = cli(root, &["--json", "plan", "show"]);
    assert_eq!(code, 0, "{err}");
    let dag: Value = serde_json::from_str(&out).unwrap();
    let plans: std::collections::BTreeSet<&str> = dag["epics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["plan_id"].as_str().unwrap())
        .collect();
    assert_eq!(plans.into_iter().collect::<Vec<_>>(), ["shop"], "{dag}");
    assert_eq!(dag["epics"].as_array().unwrap().len(), 2, "{dag}");
    assert_eq!(dag["edges"], json!([["shop/EPIC-001", "shop/EPIC-002"]]));
}

#[tokio::test]
async fn a_fresh_ostwin_project_gets_its_ledger_where_ostwin_keeps_it_and_many_entries_work() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join(".war-rooms/room-001")).unwrap();
    let (a, _) = ostwin_agent(root.path(), "room-001", "engineer").await;
    // Only its own room has entries: the fallback text.
    for i in 0..300 {
        ok(
            &a,
            "publish",
            json!({"kind": "artifact", "summary": format!("module {i} shipped"), "tags": ["build"], "room_id": "room-001", "author_role": "engineer", "ref": "EPIC-001"}),
        )
        .await;
    }
    assert!(root.path().join(".agents/memory/ledger.jsonl").exists());
    assert!(!root.path().join(".agents/ledger.jsonl").exists());
    assert_eq!(
        ok(&a, "get_context", json!({"room_id": "room-001"})).await,
        "No cross-room context available yet."
    );
    let newest = json_of(&a, "query", json!({})).await;
    assert_eq!(newest.len(), 20, "capped at 20");
    assert_eq!(
        newest[19]["summary"], "module 299 shipped",
        "the newest 20, oldest first"
    );
    assert_eq!(json_of(&a, "list_memories", json!({})).await.len(), 300);
    assert_eq!(
        json_of(
            &a,
            "search",
            json!({"text": "module 42", "max_results": 50})
        )
        .await[0]["summary"],
        "module 42 shipped"
    );
}
