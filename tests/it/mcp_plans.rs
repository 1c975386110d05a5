//! Plans from every source through the real binary: the same room id in two plans, plan
//! files written by other processes, and OSTwin's DAG, config and channel files driving
//! predecessor context.

use crate::common;

use common::*;
use serde_json::json;

#[tokio::test]
async fn same_room_id_in_two_plans_stays_distinguishable() {
    let p = project();
    let root = p.path();
    let admin = agent(root).now("2026-11-01T00:00:00Z").start().await;
    admin.ok("memory_register_plan", json!({"plan": {"plan_id": "p1", "epics": [
        {"ref": "A", "room_id": "room-1"}, {"ref": "B", "room_id": "room-2", "depends_on": ["A"]}]}})).await;
    let old = agent(root).room("room-1").role("engineer").start().await;
    let from_p1 = publish(&old, "decision", "p1 room-1 decision", json!({})).await;
    assert_eq!(from_p1["plan_id"], "p1");
    let later = agent(root).now("2026-11-10T00:00:00Z").start().await;
    later
        .ok(
            "memory_register_plan",
            json!({"plan": {"plan_id": "p2", "epics": [
        {"ref": "C", "room_id": "room-1", "depends_on": ["p1/B"]}]}}),
        )
        .await;
    let up = agent(root).room("room-2").role("engineer").start().await;
    publish(&up, "decision", "p1 room-2 decision", json!({})).await;
    // room-1 of plan p2 sees p1's room-1 entry as upstream (two steps up), not as its own.
    let me = agent(root).room("room-1").start().await;
    let ctx = me.ok("memory_get_context", json!({})).await;
    assert_eq!(ctx["plan_id"], "p2");
    let ids = strs(&ctx["entry_ids"]);
    assert!(ids.contains(&from_p1["id"].as_str().unwrap()), "{ids:?}");
    let ctx = me.ok("memory_get_context", json!({"plan_id": "p1"})).await;
    assert_eq!(ctx["markdown"], "No cross-room context available yet.");
}

#[tokio::test]
async fn plans_written_by_others_are_noticed_without_restart() {
    let p = project();
    let root = p.path();
    let r3 = agent(root).room("room-003").start().await;
    let up = agent(root).room("room-002").role("engineer").start().await;
    let e = publish(&up, "decision", "Orders are immutable once paid", json!({})).await;
    let ctx = r3
        .ok("memory_get_context", json!({"brief_keywords": []}))
        .await;
    assert_eq!(ctx["upstream"], json!([]));
    assert!(
        ctx["entry_ids"].as_array().unwrap().is_empty(),
        "a decision of an unrelated room is not eligible"
    );
    let plan = p.path().join("plan.json");
    std::fs::write(&plan, shop_plan().to_string()).unwrap();
    let (code, _, err) = cli(root, &["plan", "register", plan.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let ctx = r3
        .ok("memory_get_context", json!({"brief_keywords": []}))
        .await;
    assert_eq!(ctx["entry_ids"], json!([e["id"]]));
}

#[tokio::test]
async fn ostwin_dag_config_and_channel_files_drive_context() {
    let p = project();
    let root = p.path();
    let rooms = root.join(".agents/war-rooms");
    std::fs::create_dir_all(rooms.join("room-001")).unwrap();
    std::fs::create_dir_all(rooms.join("room-002")).unwrap();
    std::fs::create_dir_all(rooms.join("room-003")).unwrap();
    std::fs::write(rooms.join("DAG.json"), json!({
        "nodes": {
            "EPIC-001": {"room_id": "room-001", "task_ref": "EPIC-001", "depends_on": null, "dependents": ["EPIC-002"], "depth": 0},
            "EPIC-002": {"room_id": "room-002", "task_ref": "EPIC-002", "depends_on": "EPIC-001", "dependents": [], "depth": 1}
        },
        "topological_order": ["EPIC-001", "EPIC-002"]
    }).to_string()).unwrap();
    std::fs::write(rooms.join("room-003/config.json"), json!({
        "room_id": "room-003", "task_ref": "EPIC-003", "depends_on": ["EPIC-002"], "status": "pending"
    }).to_string()).unwrap();
    std::fs::write(rooms.join("room-002/channel.jsonl"), concat!(
        r#"{"v":1,"id":"manager-task-1775214241555000000-78833","ts":"2026-04-03T11:04:01Z","from":"manager","to":"engineer","type":"task","ref":"EPIC-002","body":"Build the catalog"}"#, "\n",
        r#"{"v":1,"id":"engineer-done-1775214300000000000-78840","ts":"2026-04-03T12:00:00Z","from":"engineer","to":"manager","type":"done","ref":"EPIC-002","body":"Catalog done: GET /products"}"#, "\n",
    )).unwrap();
    std::fs::write(ledger(root), concat!(
        r#"{"id":"mem-dec-1","ts":"2026-04-03T11:00:00Z","kind":"decision","room_id":"room-001","author_role":"architect","ref":"EPIC-001","tags":["auth"],"summary":"JWT for auth"}"#, "\n",
        r#"{"id":"mem-int-2","ts":"2026-04-03T11:30:00Z","kind":"interface","room_id":"room-002","author_role":"engineer","ref":"EPIC-002","tags":["api"],"summary":"GET /products lists products"}"#, "\n",
    )).unwrap();
    let r3 = agent(root)
        .room("room-003")
        .now("2026-04-04T00:00:00Z")
        .start()
        .await;
    let ctx = r3.ok("memory_get_context", json!({})).await;
    assert_eq!(ctx["plan_id"], "ostwin");
    assert_eq!(ctx["upstream"].as_array().unwrap().len(), 2);
    assert_eq!(ctx["entry_ids"], json!(["mem-int-2", "mem-dec-1"]));
    assert!(
        ctx["markdown"]
            .as_str()
            .unwrap()
            .contains("Catalog done: GET /products")
    );
}
