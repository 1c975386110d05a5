//! Context receipts through the real binary (issue #28): every brief served — over stdio,
//! through the daemon's relay, over HTTP, by the CLI — leaves one receipt with the asking
//! session's identity; a receipt replays byte for byte after later publishes and a
//! supersede of an included entry; a tampered receipts file is reported by `verify`;
//! concurrent briefs leave every receipt exactly once; the same on PostgreSQL.

mod common;

use std::path::Path;

use common::daemon::*;
use common::*;
use serde_json::{Value, json};

/// A plan of three rooms (room-b depends on room-a) with a few entries.
fn planned_project() -> tempfile::TempDir {
    let p = project();
    std::fs::create_dir_all(p.path().join(".agents/plan")).unwrap();
    std::fs::write(
        p.path().join(".agents/plan/shop.json"),
        json!({"plan_id": "shop", "title": "shop", "epics": [
            {"ref": "E1", "room_id": "room-a", "brief_keywords": ["auth"]},
            {"ref": "E2", "room_id": "room-b", "depends_on": ["E1"], "brief_keywords": ["catalog", "auth"]},
            {"ref": "E3", "room_id": "room-c"}]})
        .to_string(),
    )
    .unwrap();
    for (kind, summary) in [
        ("interface", "Catalog calls authenticate with require_user"),
        ("decision", "Sessions last 24 hours, refreshed on use"),
        (
            "warning",
            "The auth service rate limits logins to 5 per minute",
        ),
    ] {
        cli_publish_as(p.path(), None, (kind, "room-a", "architect"), summary, &[]);
    }
    p
}

fn receipts(root: &Path) -> Vec<Value> {
    let (code, out, err) = cli(root, &["--json", "receipts", "--last", "1000"]);
    assert!(code == 0 || code == 1, "{err}");
    serde_json::from_str::<Value>(&out)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn replay(root: &Path, id: &str) -> (i32, Value) {
    let (code, out, err) = cli(root, &["--json", "context", "--replay", id]);
    assert!(code == 0 || code == 1, "{err}");
    (code, serde_json::from_str(&out).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn briefs_over_stdio_the_relay_http_and_the_cli_each_leave_one_receipt() {
    let p = planned_project();
    let root = p.path();
    // Direct stdio.
    let direct = agent(root)
        .room("room-b")
        .role("manager")
        .env("WARROOM_DAEMON", "off")
        .start()
        .await;
    let r1 = direct.ok("memory_get_context", json!({})).await;
    // Through the daemon's relay, and over HTTP with an agent token.
    let rt = tempfile::tempdir().unwrap();
    let _d = start_daemon(root, rt.path());
    let relayed = attached(root, rt.path(), "room-c").await;
    let r2 = relayed.ok("memory_get_context", json!({})).await;
    let (_, token) = issue_token(root, rt.path(), "room-b", "qa");
    let r3 = {
        use rmcp::ServiceExt;
        let client =
            ().serve(http_transport(&url_of(root, rt.path()), &token, None, None))
                .await
                .unwrap();
        let r = client
            .call_tool(rmcp::model::CallToolRequestParams::new(
                "memory_get_context",
            ))
            .await
            .unwrap();
        client.cancel().await.unwrap();
        r.structured_content.unwrap()
    };
    // The CLI (an operator).
    let (code, out, err) = cli(root, &["--json", "context", "room-b"]);
    assert_eq!(code, 0, "{err}");
    let r4: Value = serde_json::from_str(&out).unwrap();
    let list = receipts(root);
    assert_eq!(list.len(), 4, "{list:?}");
    let by = |r: &Value| (r["by"]["room"].clone(), r["by"]["role"].clone());
    for (result, room, role) in [
        (&r1, json!("room-b"), json!("manager")),
        (&r2, json!("room-c"), json!("engineer")),
        (&r3, json!("room-b"), json!("qa")),
        (&r4, Value::Null, Value::Null),
    ] {
        let id = result["receipt"].as_str().expect("a receipt id");
        let found: Vec<&Value> = list.iter().filter(|r| r["id"] == id).collect();
        assert_eq!(found.len(), 1, "{id}: exactly once");
        assert_eq!(by(found[0]), (room, role));
        // The receipt holds ids and hashes: the result's, not its text.
        assert_eq!(found[0]["bytes"], result["bytes"]);
        assert_eq!(
            found[0]["included"].as_array().unwrap().len(),
            result["entry_ids"].as_array().unwrap().len()
        );
        let line = std::fs::read_to_string(root.join(".agents/receipts.jsonl")).unwrap();
        assert!(!line.contains("require_user"), "no entry text in receipts");
    }
    // room-b's brief says why: its upstream room-a's entries matched its keywords.
    assert_eq!(r1["included"][0]["reason"], "upstream-match");
    assert_eq!(r1["included"][0]["distance"], 1);
    assert_eq!(r1["included"][0]["matched"], json!(["catalog"]));
}

#[test]
fn a_receipt_replays_byte_for_byte_after_later_writes() {
    let p = planned_project();
    let root = p.path();
    let (code, out, err) = cli_env(
        root,
        &["--json", "context"],
        &[("WARROOM_ROOM_ID", "room-b"), ("WARROOM_ROLE", "manager")],
    );
    assert_eq!(code, 0, "{err}");
    let first: Value = serde_json::from_str(&out).unwrap();
    let id = first["receipt"].as_str().unwrap().to_string();
    let included = first["entry_ids"][0].as_str().unwrap().to_string();
    // Later: more entries, a supersede of an included entry, a new done message.
    cli_publish_as(
        root,
        None,
        ("decision", "room-a", "architect"),
        "Sessions last 12 hours now; auth tokens rotate",
        &["--supersedes", &included],
    );
    cli_publish_as(
        root,
        None,
        ("interface", "room-a", "architect"),
        "Auth exposes /auth/whoami",
        &[],
    );
    let (code, _, err) = cli(
        root,
        &[
            "channel", "post", "--room", "room-a", "--from", "engineer", "--type", "done",
            "--body", "E1 done",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, r) = replay(root, &id);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["identical"], true);
    assert_eq!(r["sha256"], r["receipt"]["sha256"]);
    assert_eq!(
        r["markdown"].as_str().unwrap().len() as u64,
        first["bytes"].as_u64().unwrap()
    );
    assert_eq!(r["markdown"], first["markdown"]);
    // Today's brief is another one, and replays too.
    let (_, out, _) = cli_env(
        root,
        &["--json", "context"],
        &[("WARROOM_ROOM_ID", "room-b"), ("WARROOM_ROLE", "manager")],
    );
    let today: Value = serde_json::from_str(&out).unwrap();
    assert_ne!(today["markdown"], first["markdown"]);
    assert_eq!(replay(root, today["receipt"].as_str().unwrap()).0, 0);
    // An unknown receipt is an error naming it.
    let (code, _, err) = cli(root, &["context", "--replay", "rcpt-nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no receipt `rcpt-nope`"), "{err}");
    // A rewritten ledger line before the receipt's position: the replay says so, exit 1.
    let ledger = common::ledger(root);
    let text = std::fs::read_to_string(&ledger).unwrap();
    std::fs::write(&ledger, text.replacen("24 hours", "48 hours", 1)).unwrap();
    let (code, r) = replay(root, &id);
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["identical"], false);
    assert!(
        r["differences"]
            .to_string()
            .contains("not those the brief read"),
        "{r}"
    );
}

#[test]
fn a_tampered_receipts_file_is_reported_by_verify() {
    let p = planned_project();
    let root = p.path();
    for room in ["room-b", "room-c", "room-b"] {
        assert_eq!(cli(root, &["context", room]).0, 0);
    }
    let (code, out, _) = cli(root, &["--json", "verify"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["receipts"]["receipts"], 3);
    let file = root.join(".agents/receipts.jsonl");
    let lines: Vec<String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    // An edited receipt (another room), and separately a removed one.
    let edited = lines[0].replacen("\"room-b\"", "\"room-x\"", 1);
    std::fs::write(
        &file,
        [edited, lines[1].clone(), lines[2].clone()].join("\n") + "\n",
    )
    .unwrap();
    let (code, out, _) = cli(root, &["--json", "verify"]);
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["receipts"]["violations"][0]["kind"], "broken-link", "{v}");
    std::fs::write(
        &file,
        [lines[0].clone(), lines[2].clone()].join("\n") + "\n",
    )
    .unwrap();
    let (code, out, _) = cli(root, &["verify"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("receipts line 2 [broken-link]"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_briefs_leave_every_receipt_exactly_once() {
    let p = planned_project();
    let root = p.path();
    let mut agents = Vec::new();
    for i in 0..8 {
        agents.push(
            agent(root)
                .room(if i % 2 == 0 { "room-b" } else { "room-c" })
                .role(&format!("agent-{i}"))
                .env("WARROOM_DAEMON", "off")
                .start()
                .await,
        );
    }
    let ids = futures::future::join_all(agents.iter().map(|a| async move {
        let mut ids = Vec::new();
        for _ in 0..5 {
            let r = a.ok("memory_get_context", json!({})).await;
            ids.push(r["receipt"].as_str().unwrap().to_string());
        }
        ids
    }))
    .await
    .concat();
    let list = receipts(root);
    assert_eq!(list.len(), 40);
    let mut stored: Vec<String> = list
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    let mut acked = ids.clone();
    stored.sort();
    acked.sort();
    assert_eq!(
        stored, acked,
        "every acknowledged receipt once, nothing else"
    );
    let (code, out, _) = cli(root, &["verify"]);
    assert_eq!(
        code, 0,
        "the receipts' chain holds under concurrency: {out}"
    );
}

#[test]
fn receipts_on_postgresql_are_the_same() {
    let p = planned_project();
    let root = p.path();
    let url = std::thread::spawn(|| common::pg::server().fresh_db())
        .join()
        .unwrap();
    std::fs::write(
        root.join(".agents/warroom.yaml"),
        format!("ledger: \"{url}\"\n"),
    )
    .unwrap();
    assert_eq!(cli(root, &["db", "import"]).0, 0);
    let (code, out, err) = cli(root, &["--json", "context", "room-b"]);
    assert_eq!(code, 0, "{err}");
    let first: Value = serde_json::from_str(&out).unwrap();
    let id = first["receipt"].as_str().unwrap().to_string();
    assert!(
        !root.join(".agents/receipts.jsonl").exists(),
        "kept in the database"
    );
    cli_publish_as(
        root,
        None,
        ("warning", "room-a", "architect"),
        "Auth tokens now expire hourly",
        &[],
    );
    let (code, r) = replay(root, &id);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["identical"], true);
    assert_eq!(receipts(root).len(), 1);
    let (code, out, _) = cli(root, &["--json", "verify"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["receipts"]["receipts"], 1);
    // Append-only, enforced by the database.
    let mut c = common::pg::PgServer::client(&url);
    let e = c
        .batch_execute("UPDATE receipt_lines SET line = 'x'")
        .unwrap_err();
    let said = e
        .as_db_error()
        .map(|d| d.message().to_string())
        .unwrap_or_default();
    assert!(said.contains("append-only"), "{e:?}");
}
