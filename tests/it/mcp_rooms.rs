//! War-rooms, plans, the epic DAG and predecessor context, through the real binary.

use crate::common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};

fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn register_json_plan_returns_the_dag_and_stores_it() {
    let p = project();
    let a = agent(p.path())
        .room("room-001")
        .role("manager")
        .start()
        .await;
    let out = a
        .ok("memory_register_plan", json!({"plan": shop_plan()}))
        .await;
    assert_eq!(out["plan_id"], "shop");
    assert_eq!(
        out["rooms"],
        json!(["room-001", "room-002", "room-003", "room-009"])
    );
    assert_eq!(
        out["edges"],
        json!([
            ["shop/EPIC-001", "shop/EPIC-002"],
            ["shop/EPIC-002", "shop/EPIC-003"]
        ])
    );
    let order = strs(&out["topological_order"]);
    assert!(
        order.iter().position(|x| *x == "shop/EPIC-001")
            < order.iter().position(|x| *x == "shop/EPIC-003")
    );
    assert_eq!(out["replaced"], false);
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(p.path().join(".agents/plan/shop.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(stored["epics"].as_array().unwrap().len(), 4);
    assert!(stored["registered_at"].is_string());
    let again = a
        .ok("memory_register_plan", json!({"plan": shop_plan()}))
        .await;
    assert_eq!(again["replaced"], true);
}

#[tokio::test]
async fn markdown_plans_can_depend_on_earlier_plans() {
    let p = project();
    let a = agent(p.path()).start().await;
    a.ok("memory_register_plan", json!({"plan": shop_plan()}))
        .await;
    let md = "# Shop v2\n\n## EPIC-010 — Wishlist\nRoles: engineer, qa\nObjective: Save products for later\n\
              depends_on: [shop/EPIC-002]\n\n## EPIC-011 — Wishlist emails\ndepends_on: [EPIC-010]\n";
    let out = a
        .ok(
            "memory_register_plan",
            json!({"plan": md, "plan_id": "shop-v2"}),
        )
        .await;
    assert_eq!(out["rooms"], json!(["room-010", "room-011"]));
    assert_eq!(out["epics"][0]["depends_on"], json!(["shop/EPIC-002"]));
    assert!(
        out["edges"]
            .as_array()
            .unwrap()
            .contains(&json!(["shop/EPIC-002", "shop-v2/EPIC-010"]))
    );
    let (code, text, _) = cli(p.path(), &["plan", "show", "--format", "mermaid"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("shop_EPIC_002 --> shop_v2_EPIC_010"),
        "{text}"
    );
    let (_, dot, _) = cli(p.path(), &["plan", "show", "--format", "dot"]);
    assert!(
        dot.contains("\"shop/EPIC-002\" -> \"shop-v2/EPIC-010\";"),
        "{dot}"
    );
}

#[tokio::test]
async fn cycles_unknown_refs_and_bad_plans_are_refused_and_nothing_is_written() {
    let p = project();
    let a = agent(p.path()).start().await;
    let cyc = json!({"plan_id": "cyc", "epics": [
        {"ref": "A", "room_id": "ra", "depends_on": ["C"]},
        {"ref": "B", "room_id": "rb", "depends_on": ["A"]},
        {"ref": "C", "room_id": "rc", "depends_on": ["B"]},
        {"ref": "D", "room_id": "rd"}]});
    let e = a.err("memory_register_plan", json!({"plan": cyc})).await;
    for epic in ["cyc/A", "cyc/B", "cyc/C"] {
        assert!(e.contains(epic), "cycle error names {epic}: {e}");
    }
    assert!(!e.contains("cyc/D"), "{e}");
    let e = a.err("memory_register_plan", json!({"plan": {"plan_id": "u", "epics": [{"ref": "A", "room_id": "ra", "depends_on": ["EPIC-404"]}]}})).await;
    assert!(e.contains("unknown epic `EPIC-404`"), "{e}");
    for (plan, want) in [
        (json!(42), "not of type \"object\""),
        (json!({"plan_id": "x"}), "epics"),
        (
            json!({"plan_id": "x", "epics": [{"ref": "A", "room_id": "../x"}]}),
            "room_id",
        ),
        (
            json!({"plan_id": "x", "epics": [{"ref": "A", "room_id": "a/b"}]}),
            "room_id",
        ),
        (
            json!({"plan_id": "../evil", "epics": [{"ref": "A", "room_id": "r"}]}),
            "plan_id",
        ),
        (json!("no epics in this markdown"), "no epic headers"),
        (json!("# T\n## EPIC-1 — A\nRoom: /etc\n"), "room_id"),
    ] {
        let e = a.err("memory_register_plan", json!({"plan": plan})).await;
        assert!(e.contains(want), "{plan}: {e}");
    }
    let e = a
        .err(
            "memory_register_plan",
            json!({"plan": {"epics": []}, "plan_id": "../../x"}),
        )
        .await;
    assert!(e.contains("plan_id"), "{e}");
    assert!(
        !p.path().join(".agents/plan").exists()
            || files_under(&p.path().join(".agents/plan")).is_empty()
    );
}

#[tokio::test]
async fn channels_are_private_and_path_safe() {
    let p = project();
    let a = agent(p.path())
        .room("room-001")
        .role("engineer")
        .start()
        .await;
    let b = agent(p.path())
        .room("room-002")
        .role("engineer")
        .start()
        .await;
    let posted = a
        .ok(
            "channel_post",
            json!({"type": "task", "to": "qa", "ref": "EPIC-001", "body": "please review"}),
        )
        .await;
    assert_eq!(posted["message"]["from"], "engineer");
    assert!(
        posted["message"]["id"]
            .as_str()
            .unwrap()
            .starts_with("engineer-task-")
    );
    let read = a.ok("channel_read", json!({})).await;
    assert_eq!(read["messages"][0]["body"], "please review");
    let e = b.err("channel_read", json!({"room_id": "room-001"})).await;
    assert!(e.contains("private") && e.contains("room-002"), "{e}");
    let e = b
        .err(
            "channel_post",
            json!({"room_id": "room-001", "type": "task", "body": "x"}),
        )
        .await;
    assert!(e.contains("private"), "{e}");
    // Without an identity (an operator) any room is readable, but paths stay inside.
    let op = agent(p.path()).role("operator").start().await;
    assert_eq!(
        op.ok("channel_read", json!({"room_id": "room-001"})).await["total"],
        1
    );
    for bad in [
        "../x",
        "a/b",
        "/abs",
        "..",
        ".hidden",
        "r\u{0}",
        "room\u{2215}1",
    ] {
        let e = op
            .err(
                "channel_post",
                json!({"room_id": bad, "type": "task", "body": "x"}),
            )
            .await;
        assert!(e.contains("room_id"), "{bad}: {e}");
        op.err("channel_read", json!({"room_id": bad})).await;
    }
    let e = a
        .err("channel_post", json!({"type": "two words", "body": "x"}))
        .await;
    assert!(e.contains("`type`"), "{e}");
    let e = a
        .err(
            "channel_post",
            json!({"type": "task", "body": "x".repeat(1_048_577)}),
        )
        .await;
    assert!(e.contains("1048576"), "{e}");
    // OSTwin's reports reach ~65,000 characters: accepted whole.
    let long = "y".repeat(70_000);
    let ok = a
        .ok("channel_post", json!({"type": "done", "body": long}))
        .await;
    assert_eq!(ok["message"]["body"].as_str().unwrap().len(), 70_000);
    let e = a.err("channel_read", json!({"last_n": 201})).await;
    assert!(e.contains("`last_n`"), "{e}");
    let parent = p.path().parent().unwrap();
    assert!(!parent.join("x").exists() && !parent.join("a").exists());
    assert_eq!(
        files_under(&p.path().join(".agents/war-rooms")),
        vec!["room-001", "room-001/channel.jsonl"]
    );
}

async fn publish_in(
    root: &Path,
    room: &str,
    kind: &str,
    summary: &str,
    extra: Value,
) -> (Agent, Value) {
    let a = agent(root)
        .room(room)
        .role("engineer")
        .now("2026-11-25T12:00:00Z")
        .start()
        .await;
    let e = publish(&a, kind, summary, extra).await;
    (a, e)
}

#[tokio::test]
async fn context_prefers_upstream_hides_own_and_superseded_and_adds_done_outputs() {
    let p = project();
    let root = p.path();
    let admin = agent(root).start().await;
    admin
        .ok("memory_register_plan", json!({"plan": shop_plan()}))
        .await;
    let (r1, old) = publish_in(
        root,
        "room-001",
        "decision",
        "Payments need an authenticated user id",
        json!({}),
    )
    .await;
    let new = publish(
        &r1,
        "decision",
        "Payments need an authenticated user id and a verified email",
        json!({"supersedes": old["id"]}),
    )
    .await;
    assert_eq!(
        new["plan_id"], "shop",
        "entries from a plan's room are stamped"
    );
    let (_r2, up) = publish_in(
        root,
        "room-002",
        "interface",
        "GET /products returns price_cents for checkout payments",
        json!({}),
    )
    .await;
    let (_r9, unrelated) = publish_in(
        root,
        "room-009",
        "decision",
        "Analytics events batch payments and checkout metrics",
        json!({}),
    )
    .await;
    let (_r9b, conv) = publish_in(
        root,
        "room-009",
        "convention",
        "All money amounts are integer cents",
        json!({}),
    )
    .await;
    let (r3, own) = publish_in(
        root,
        "room-003",
        "decision",
        "Checkout payments via Stripe",
        json!({}),
    )
    .await;
    let done = r1_done(root).await;

    let ctx = r3.ok("memory_get_context", json!({})).await;
    let ids = strs(&ctx["entry_ids"]);
    let at = |e: &Value| ids.iter().position(|i| *i == e["id"].as_str().unwrap());
    assert!(at(&own).is_none(), "own room never appears");
    assert!(at(&old).is_none(), "superseded never appears");
    let (iu, inew, iconv, iun) = (
        at(&up).unwrap(),
        at(&new).unwrap(),
        at(&conv).unwrap(),
        at(&unrelated).unwrap(),
    );
    // The selection (docs/brief.md): what binds the project, then every upstream room,
    // then the rest.
    assert!(
        iconv < iu && iconv < inew && iu < iun && inew < iun,
        "binding, then upstream, then unrelated: {ids:?}"
    );
    assert_eq!(ctx["brief_keywords"], json!(["payments", "checkout"]));
    assert_eq!(ctx["upstream"][0]["ref"], "EPIC-002");
    assert_eq!(ctx["upstream"][0]["distance"], 1);
    assert_eq!(ctx["upstream"][1]["distance"], 2);
    let md = ctx["markdown"].as_str().unwrap();
    assert_eq!(ctx["bytes"].as_u64().unwrap() as usize, md.len());
    assert!(
        !md.contains(&done),
        "room-001 is two steps up: its done output is not a direct predecessor's"
    );
    // room-002's done message is.
    let r2 = agent(root).room("room-002").role("engineer").start().await;
    r2.ok(
        "channel_post",
        json!({"type": "done", "body": "EPIC-002 done: catalog API shipped"}),
    )
    .await;
    let ctx = r3.ok("memory_get_context", json!({})).await;
    let md = ctx["markdown"].as_str().unwrap();
    assert!(
        md.contains("## Predecessor outputs") && md.contains("EPIC-002 done: catalog API shipped"),
        "{md}"
    );
    assert_eq!(ctx["predecessor_outputs"].as_array().unwrap().len(), 1);
    for needle in [
        "**interface**",
        "EPIC-002",
        "room-002",
        "engineer",
        "2026-11-25",
        up["id"].as_str().unwrap(),
    ] {
        assert!(md.contains(needle), "item shows {needle}: {md}");
    }
    // Without keywords, unrelated decisions are not eligible.
    let ctx = r3
        .ok("memory_get_context", json!({"brief_keywords": []}))
        .await;
    let ids = strs(&ctx["entry_ids"]);
    assert!(!ids.contains(&unrelated["id"].as_str().unwrap()));
    assert!(ids.contains(&conv["id"].as_str().unwrap()));
}

async fn r1_done(root: &Path) -> String {
    let a = agent(root).room("room-001").role("engineer").start().await;
    let body = "EPIC-001 done: auth shipped";
    a.ok("channel_post", json!({"type": "done", "body": body}))
        .await;
    body.to_string()
}

#[tokio::test]
async fn context_stays_within_fifteen_entries_and_10240_bytes() {
    let p = project();
    let root = p.path();
    let admin = agent(root).start().await;
    admin
        .ok("memory_register_plan", json!({"plan": shop_plan()}))
        .await;
    let big = "d".repeat(16_384);
    let up = agent(root).room("room-002").role("engineer").start().await;
    for i in 0..40 {
        publish(
            &up,
            "decision",
            &format!(
                "{} decision number {i} about checkout payments",
                "long ".repeat(700)
            ),
            json!({"detail": big}),
        )
        .await;
    }
    up.ok(
        "channel_post",
        json!({"type": "done", "body": "z".repeat(60_000)}),
    )
    .await;
    let r3 = agent(root).room("room-003").start().await;
    let ctx = r3.ok("memory_get_context", json!({})).await;
    let md = ctx["markdown"].as_str().unwrap();
    assert!(md.len() <= 10_240, "{} bytes", md.len());
    let n = ctx["entry_ids"].as_array().unwrap().len();
    assert!((1..=15).contains(&n), "{n} entries");
    assert_eq!(ctx["truncated"], true);
    assert_eq!(ctx["left_out"].as_u64().unwrap() as usize, 40 - n);
    assert!(
        md.contains(&format!("{} more entries left out", 40 - n)),
        "{md}"
    );
    let ctx = r3.ok("memory_get_context", json!({"max_entries": 3})).await;
    assert_eq!(ctx["entry_ids"].as_array().unwrap().len(), 3);
    let e = r3
        .err("memory_get_context", json!({"max_entries": 16}))
        .await;
    assert!(e.contains("`max_entries`"), "{e}");
}

#[tokio::test]
async fn empty_context_and_unknown_rooms() {
    let p = project();
    let a = agent(p.path()).room("room-777").start().await;
    let ctx = a.ok("memory_get_context", json!({})).await;
    assert_eq!(ctx["markdown"], "No cross-room context available yet.");
    assert_eq!(ctx["entry_ids"], json!([]));
    let e = a
        .err("memory_get_context", json!({"room_id": "../x"}))
        .await;
    assert!(e.contains("room_id"), "{e}");
    let e = a
        .err("memory_get_context", json!({"plan_id": "nope"}))
        .await;
    assert!(e.contains("nope"), "{e}");
}

#[tokio::test]
async fn duplicate_facts_are_collapsed_not_repeated() {
    let p = project();
    let root = p.path();
    let admin = agent(root).start().await;
    admin
        .ok("memory_register_plan", json!({"plan": shop_plan()}))
        .await;
    let up = agent(root).room("room-002").role("engineer").start().await;
    for i in 0..20 {
        let s = if i % 2 == 0 {
            "Use UTC everywhere."
        } else {
            "use utc   everywhere"
        };
        publish(&up, "convention", s, json!({})).await;
    }
    publish(
        &up,
        "decision",
        "Payments are captured at shipping time",
        json!({}),
    )
    .await;
    let r3 = agent(root).room("room-003").start().await;
    let ctx = r3.ok("memory_get_context", json!({})).await;
    assert_eq!(ctx["entry_ids"].as_array().unwrap().len(), 2);
    assert_eq!(ctx["duplicates_collapsed"], 19);
    assert!(
        ctx["markdown"]
            .as_str()
            .unwrap()
            .contains("published 20 times")
    );
}
