//! The ledger tools through the real binary over MCP stdio: tools/list shapes, round trips,
//! filtered views, supersede chains, bounds and bad input, foreign ledgers.

use crate::common;

use common::*;
use serde_json::{Value, json};

const NOW: &str = "2026-11-25T12:00:00Z";

#[tokio::test]
async fn tools_list_describes_every_tool_for_an_agent() {
    let p = project();
    let a = agent(p.path())
        .room("room-042")
        .role("engineer")
        .start()
        .await;
    let info = a.client.peer_info().unwrap();
    let instructions = info.instructions.clone().unwrap();
    for kind in [
        "artifact",
        "decision",
        "interface",
        "convention",
        "warning",
        "code",
    ] {
        assert!(instructions.contains(kind), "instructions explain {kind}");
    }
    assert!(instructions.contains("room-042"));
    let tools = a.tools().await;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for want in [
        "memory_publish",
        "memory_query",
        "memory_search",
        "memory_get",
    ] {
        assert!(names.contains(&want), "{want} listed in {names:?}");
    }
    for t in &tools {
        let props = t.input_schema["properties"].as_object().unwrap();
        for (name, p) in props {
            let has_doc = p.get("description").is_some()
                || p.get("$ref").is_some()
                || p.get("anyOf").is_some();
            assert!(has_doc, "{}.{name} needs a description", t.name);
        }
        assert!(t.output_schema.is_some(), "{} has an outputSchema", t.name);
        let ann = t.annotations.as_ref().unwrap();
        let writes = ["memory_publish", "memory_register_plan", "channel_post"];
        let read_only = !writes.contains(&t.name.as_ref());
        assert_eq!(ann.read_only_hint, Some(read_only), "{}", t.name);
        assert_eq!(ann.open_world_hint, Some(false), "{}", t.name);
        // Said of writes only (the specification defines it for them): none destroys.
        let destructive = (!read_only).then_some(false);
        assert_eq!(ann.destructive_hint, destructive, "{}", t.name);
    }
    let publish = tools.iter().find(|t| t.name == "memory_publish").unwrap();
    let required: Vec<&str> = publish.input_schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(required, vec!["kind", "summary"]);
    let kind_doc = publish.input_schema["properties"]["kind"].to_string();
    assert!(
        kind_doc.contains("decision") && kind_doc.contains("convention"),
        "{kind_doc}"
    );
    a.stop().await;
}

#[tokio::test]
async fn publish_then_query_and_search_round_trip() {
    let p = project();
    let arch = agent(p.path())
        .room("room-038")
        .role("architect")
        .now(NOW)
        .start()
        .await;
    let e = publish(
        &arch,
        "decision",
        "Chose bcrypt over argon2 for password hashing",
        json!({"tags": [" Auth ", "DATABASE"], "ref": "EPIC-007", "detail": "Evaluated bcrypt, argon2 and scrypt."}),
    )
    .await;
    assert!(e["id"].as_str().unwrap().starts_with("mem-"));
    assert_eq!(e["id"].as_str().unwrap().len(), 4 + 26);
    assert_eq!(e["ts"], NOW);
    assert_eq!(e["room_id"], "room-038");
    assert_eq!(e["author_role"], "architect");
    assert_eq!(e["tags"], json!(["auth", "database"]));
    assert_eq!(e["supersedes"], Value::Null);

    let eng = agent(p.path())
        .room("room-042")
        .role("engineer")
        .now(NOW)
        .start()
        .await;
    let q = eng.ok("memory_query", json!({"tags": ["auth"]})).await;
    assert_eq!(entry_ids(&q), vec![e["id"].as_str().unwrap()]);
    assert_eq!(q["total"], 1);
    assert_eq!(q["truncated"], false);
    assert_eq!(q["excluded_room"], "room-042");
    assert_eq!(
        q["entries"][0]["detail"],
        "Evaluated bcrypt, argon2 and scrypt."
    );

    let s = eng
        .ok("memory_search", json!({"text": "password hashing"}))
        .await;
    assert_eq!(hit_ids(&s), vec![e["id"].as_str().unwrap()]);
    let hit = &s["hits"][0];
    assert_eq!(hit["decay"], 1.0);
    assert_eq!(hit["age_hours"], 0.0);
    assert!(hit["bm25"].as_f64().unwrap() > 0.0);
    assert_eq!(hit["score"], hit["bm25"]);
    assert_eq!(s["now"], NOW);
    assert_eq!(ledger_lines(p.path()).len(), 1);
}

#[tokio::test]
async fn rooms_see_each_other_but_not_themselves() {
    let p = project();
    let a = agent(p.path())
        .room("room-038")
        .role("architect")
        .start()
        .await;
    let b = agent(p.path())
        .room("room-042")
        .role("engineer")
        .start()
        .await;
    let theirs = publish(
        &a,
        "decision",
        "JWT access tokens expire after 15 minutes",
        json!({"tags": ["auth"]}),
    )
    .await;
    let mine = publish(
        &b,
        "warning",
        "The auth mock server ignores token expiry",
        json!({"tags": ["auth"]}),
    )
    .await;

    // Visible to the other process on its very next call.
    let q = b.ok("memory_query", json!({"tags": ["auth"]})).await;
    assert_eq!(entry_ids(&q), vec![theirs["id"].as_str().unwrap()]);
    let s = b.ok("memory_search", json!({"text": "auth token"})).await;
    assert_eq!(hit_ids(&s), vec![theirs["id"].as_str().unwrap()]);
    let q = a.ok("memory_query", json!({})).await;
    assert_eq!(entry_ids(&q), vec![mine["id"].as_str().unwrap()]);

    // Asking for your own room, or all rooms, lifts the default.
    let own = b.ok("memory_query", json!({"room_id": "room-042"})).await;
    assert_eq!(entry_ids(&own), vec![mine["id"].as_str().unwrap()]);
    let all = b.ok("memory_query", json!({"room_id": "*"})).await;
    assert_eq!(all["total"], 2);
    assert_eq!(all["excluded_room"], Value::Null);
    let globbed = b
        .ok("memory_query", json!({"exclude_room": "room-03*"}))
        .await;
    assert_eq!(entry_ids(&globbed), vec![mine["id"].as_str().unwrap()]);
}

#[tokio::test]
async fn supersede_chain_hides_old_entries_and_refuses_bad_targets() {
    let p = project();
    let a = agent(p.path())
        .room("room-038")
        .role("architect")
        .start()
        .await;
    let r = agent(p.path()).room("room-050").role("qa").start().await;
    let bcrypt = publish(
        &a,
        "decision",
        "Use bcrypt for password hashing",
        json!({"tags": ["auth"]}),
    )
    .await;
    let bcrypt_id = bcrypt["id"].as_str().unwrap();
    let argon = publish(
        &a,
        "decision",
        "Use argon2id for password hashing",
        json!({"tags": ["auth"], "supersedes": bcrypt_id}),
    )
    .await;
    let argon_id = argon["id"].as_str().unwrap();

    let q = r.ok("memory_query", json!({"tags": ["auth"]})).await;
    assert_eq!(entry_ids(&q), vec![argon_id]);
    let s = r
        .ok("memory_search", json!({"text": "password hashing"}))
        .await;
    assert_eq!(hit_ids(&s), vec![argon_id]);

    let g = r.ok("memory_get", json!({"id": bcrypt_id})).await;
    assert_eq!(g["live"], false);
    assert_eq!(g["replaced_by"][0]["id"], argon_id);
    let g = r.ok("memory_get", json!({"id": argon_id})).await;
    assert_eq!(g["live"], true);
    assert_eq!(g["replaced"][0]["id"], bcrypt_id);

    let lines = ledger_lines(p.path()).len();
    let e = a
        .err(
            "memory_publish",
            json!({"kind": "decision", "summary": "scrypt", "supersedes": bcrypt_id}),
        )
        .await;
    assert!(
        e.contains("already superseded") && e.contains(argon_id),
        "{e}"
    );
    let e = a
        .err(
            "memory_publish",
            json!({"kind": "decision", "summary": "x", "supersedes": "mem-nope"}),
        )
        .await;
    assert!(e.contains("no entry has that id"), "{e}");
    let e = r.err("memory_get", json!({"id": "mem-nope"})).await;
    assert!(e.contains("mem-nope"), "{e}");
    assert_eq!(
        ledger_lines(p.path()).len(),
        lines,
        "failed calls write nothing"
    );
}

async fn refused(a: &Agent, root: &std::path::Path, tool: &str, args: Value, expect: &[&str]) {
    let before = ledger_lines(root).len();
    let e = a.err(tool, args.clone()).await;
    for want in expect {
        assert!(
            e.contains(want),
            "{tool} {args}: error `{e}` should mention `{want}`"
        );
    }
    assert_eq!(
        ledger_lines(root).len(),
        before,
        "{tool} {args} wrote to the ledger"
    );
}

#[tokio::test]
async fn every_bound_and_bad_input_is_a_clear_tool_error() {
    let p = project();
    let root = p.path();
    let a = agent(root).room("room-042").role("engineer").start().await;
    let pb = "memory_publish";
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "x".repeat(4097)}),
        &["`summary`", "4097 bytes", "4096"],
    )
    .await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "é".repeat(2049)}),
        &["`summary`", "4098 bytes"],
    )
    .await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "ok", "detail": "d".repeat(16385)}),
        &["`detail`", "16385", "16384"],
    )
    .await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "   "}),
        &["`summary`", "empty"],
    )
    .await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "memo", "summary": "x"}),
        &["`kind`", "memo", "decision"],
    )
    .await;
    refused(&a, root, pb, json!({"summary": "x"}), &["kind"]).await;
    refused(&a, root, pb, json!({"kind": "decision"}), &["summary"]).await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "x", "tags": [5]}),
        &["`tags[0]`", "string"],
    )
    .await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "x", "tags": "auth"}),
        &["`tags`"],
    )
    .await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "x", "tags": [""]}),
        &["`tags[0]`", "empty"],
    )
    .await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "x", "colour": "red"}),
        &["unknown argument `colour`", "`summary`"],
    )
    .await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "x", "room_id": "../x"}),
        &["`room_id`", "`.`"],
    )
    .await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "x", "room_id": "a/b"}),
        &["`room_id`", "`/`"],
    )
    .await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "x", "room_id": "room\u{FF0F}1"}),
        &["`room_id`", "U+FF0F"],
    )
    .await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "x", "ref": "bad\nref"}),
        &["`ref`", "control"],
    )
    .await;
    refused(
        &a,
        root,
        pb,
        json!({"kind": "decision", "summary": "x", "supersedes": ""}),
        &["`supersedes`", "empty"],
    )
    .await;
    let q = "memory_query";
    refused(
        &a,
        root,
        q,
        json!({"last_n": 51}),
        &["`last_n`", "51", "50"],
    )
    .await;
    refused(&a, root, q, json!({"last_n": 0}), &["`last_n`"]).await;
    refused(&a, root, q, json!({"last_n": -1}), &["`last_n`"]).await;
    refused(
        &a,
        root,
        q,
        json!({"since": "yesterday"}),
        &["`since`", "RFC 3339"],
    )
    .await;
    refused(
        &a,
        root,
        q,
        json!({"since": "2026-11-25", "until": "2026-11-01"}),
        &["`since`", "after"],
    )
    .await;
    refused(
        &a,
        root,
        q,
        json!({"exclude_room": "room-["}),
        &["`exclude_room`", "glob"],
    )
    .await;
    refused(&a, root, q, json!({"tags": []}), &["`tags`", "empty"]).await;
    refused(&a, root, q, json!({"kind": 3}), &["`kind`"]).await;
    let s = "memory_search";
    refused(&a, root, s, json!({"text": ""}), &["`text`", "empty"]).await;
    refused(
        &a,
        root,
        s,
        json!({"text": "x", "max_results": 51}),
        &["`max_results`", "50"],
    )
    .await;
    refused(&a, root, s, json!({}), &["text"]).await;
    refused(
        &a,
        root,
        "memory_get",
        json!({"id": ""}),
        &["`id`", "empty"],
    )
    .await;

    // An unknown tool is a protocol error with a message, and the server stays up.
    let err = a
        .client
        .call_tool(rmcp::model::CallToolRequestParams::new("memory_delete"))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("memory_delete"), "{err}");
    publish(&a, "decision", "still alive", json!({})).await;
    assert_eq!(ledger_lines(root).len(), 1);
}
