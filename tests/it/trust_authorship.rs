//! Authorship agents cannot forge (issue: trust boundaries): an agent writes only as its own
//! room and role, retires only its own room's entries unless the project allows it, cannot
//! take over another owner's plan or claim another team's room, and `--now` never dates a
//! write. Everything through the real binary.

use crate::common;

use common::*;
use serde_json::{Value, json};

#[tokio::test]
async fn an_agent_writes_only_as_its_own_room_and_role() {
    let p = project();
    let root = p.path();
    let a = agent(root).room("room-a").role("engineer").start().await;
    let e = a
        .err("memory_publish", json!({"kind": "decision", "summary": "forged", "room_id": "room-b", "author_role": "manager"}))
        .await;
    assert!(
        e.contains("room `room-a`") && e.contains("`room_id`"),
        "{e}"
    );
    let e = a
        .err(
            "memory_publish",
            json!({"kind": "decision", "summary": "forged", "author_role": "manager"}),
        )
        .await;
    assert!(
        e.contains("role `engineer`") && e.contains("`author_role`"),
        "{e}"
    );
    let e = a
        .err("memory_get_context", json!({"room_id": "room-b"}))
        .await;
    assert!(e.contains("room `room-a`"), "{e}");
    assert!(ledger_lines(root).is_empty(), "nothing written");
    // Naming itself is fine.
    let out = a
        .ok("memory_publish", json!({"kind": "decision", "summary": "mine", "room_id": "room-a", "author_role": "engineer"}))
        .await;
    assert_eq!(out["entry"]["room_id"], "room-a");
}

#[tokio::test]
async fn only_the_own_room_or_a_listed_role_supersedes() {
    let p = project();
    let root = p.path();
    let b = agent(root).room("room-b").role("manager").start().await;
    let theirs = publish(&b, "decision", "use postgres", json!({})).await;
    let id = theirs["id"].as_str().unwrap().to_string();
    let a = agent(root).room("room-a").role("engineer").start().await;
    let before = ledger_lines(root).len();
    let e = a
        .err(
            "memory_publish",
            json!({"kind": "decision", "summary": "use sqlite", "supersedes": id}),
        )
        .await;
    assert!(
        e.contains("room `room-b`") && e.contains("supersede_others"),
        "{e}"
    );
    assert_eq!(ledger_lines(root).len(), before);
    // The project names architects as allowed to retire any room's entries.
    std::fs::write(
        root.join(".agents/warroom.yaml"),
        "supersede_others:\n  roles: [architect]\n",
    )
    .unwrap();
    let arch = agent(root).room("room-c").role("architect").start().await;
    let out = arch
        .ok(
            "memory_publish",
            json!({"kind": "decision", "summary": "use sqlite", "supersedes": id}),
        )
        .await;
    assert_eq!(out["entry"]["supersedes"], json!(id));
    // The room itself always may.
    let own = publish(&b, "decision", "cache in redis", json!({})).await;
    let own_id = own["id"].as_str().unwrap();
    b.ok(
        "memory_publish",
        json!({"kind": "decision", "summary": "cache in memcached", "supersedes": own_id}),
    )
    .await;
}

fn plan(id: &str, rooms: &[(&str, &str, &[&str])]) -> Value {
    let epics: Vec<Value> = rooms
        .iter()
        .map(|(r, room, deps)| json!({"ref": r, "room_id": room, "depends_on": deps}))
        .collect();
    json!({"plan": {"plan_id": id, "title": id, "epics": epics}})
}

#[tokio::test]
async fn plans_are_replaced_only_by_their_owner_or_an_operator() {
    let p = project();
    let root = p.path();
    let b = agent(root).room("room-b").role("manager").start().await;
    b.ok(
        "memory_register_plan",
        plan("shop", &[("E1", "room-b", &[])]),
    )
    .await;
    let file = root.join(".agents/plan/shop.json");
    let original = std::fs::read_to_string(&file).unwrap();
    assert!(
        original.contains("\"registered_by\": \"room-b\""),
        "{original}"
    );
    // Another room may not replace it, nor claim room-b in a plan of its own.
    let a = agent(root).room("room-a").role("manager").start().await;
    let e = a
        .err(
            "memory_register_plan",
            plan("shop", &[("E1", "room-a", &[])]),
        )
        .await;
    assert!(e.contains("registered by room `room-b`"), "{e}");
    let e = a
        .err(
            "memory_register_plan",
            plan("spy", &[("E1", "room-b", &[]), ("E2", "room-a", &["E1"])]),
        )
        .await;
    assert!(
        e.contains("room `room-b`") && e.contains("another team"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
    assert!(!root.join(".agents/plan/spy.json").exists());
    // The owner may; an operator (no room identity) may replace anything.
    b.ok(
        "memory_register_plan",
        plan("shop", &[("E1", "room-b", &[]), ("E2", "room-d", &["E1"])]),
    )
    .await;
    let op = agent(root).start().await;
    let out = op
        .ok(
            "memory_register_plan",
            plan("shop", &[("E1", "room-b", &[])]),
        )
        .await;
    assert_eq!(out["replaced"], true);
}

#[test]
fn now_never_dates_a_write_and_a_clock_behind_the_ledger_is_refused() {
    let p = project();
    let root = p.path();
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let args = [
        "--json",
        "publish",
        "--kind",
        "decision",
        "--summary",
        "when",
        "--room",
        "room-1",
        "--role",
        "eng",
    ];
    let mut with_now = vec!["--now", "2020-01-01T00:00:00Z"];
    with_now.extend(args);
    // A clock file anywhere but the project's own scenario clock pins reads only.
    let elsewhere = tempfile::tempdir().unwrap();
    let file = elsewhere.path().join("clock");
    std::fs::write(&file, "2020-01-01T00:00:00Z").unwrap();
    let file = file.display().to_string();
    for (code, out, err) in [
        cli(root, &with_now),
        cli_env(root, &args, &[("WARROOM_NOW", "2020-01-01T00:00:00Z")]),
        cli_env(root, &args, &[("WARROOM_NOW_FILE", &file)]),
    ] {
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        let ts = v["entry"]["ts"].as_str().unwrap();
        let t = warroom_memory::clock::parse_rfc3339(ts).unwrap().0;
        assert!(
            t >= start - 1,
            "a write was dated {ts} by --now / WARROOM_NOW"
        );
    }
    // The scenario clock moves writes. One dated before the ledger's last line is written
    // (one future-dated line must not stop every writer) with a warning, and `verify`
    // reports it as backdated: the lines before it agree with each other, not with it.
    let before = ledger_lines(root).len();
    let (code, _, err) = cli_at(root, "2020-01-01T00:00:00Z", &args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("writing anyway"), "{err}");
    assert_eq!(ledger_lines(root).len(), before + 1);
    let (code, out, _) = cli(root, &["--json", "verify"]);
    assert_eq!(code, 1, "{out}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["violations"][0]["kind"], "backdated", "{r}");
    assert_eq!(r["violations"][0]["line"], before as u64 + 1);
}
