//! The ledger tools at their edges, through the real binary over MCP stdio: identity
//! requirements, page caps, foreign (OSTwin) ledgers with bad lines, and scores that
//! follow the half-lives at a pinned now.

use crate::common;

use common::*;
use serde_json::json;

const NOW: &str = "2026-11-25T12:00:00Z";

#[tokio::test]
async fn publish_needs_an_identity_or_explicit_room_and_role() {
    let p = project();
    let anon = agent(p.path()).start().await;
    let e = anon
        .err("memory_publish", json!({"kind": "code", "summary": "x"}))
        .await;
    assert!(
        e.contains("`room_id`") && e.contains("WARROOM_ROOM_ID"),
        "{e}"
    );
    let e = anon
        .err(
            "memory_publish",
            json!({"kind": "code", "summary": "x", "room_id": "r1"}),
        )
        .await;
    assert!(
        e.contains("`author_role`") && e.contains("WARROOM_ROLE"),
        "{e}"
    );
    let e = publish(
        &anon,
        "code",
        "use `cargo xtask`",
        json!({"room_id": "r1", "author_role": "engineer"}),
    )
    .await;
    assert_eq!(e["room_id"], "r1");
    // OSTwin's variables work too.
    let ost = agent(p.path())
        .env("AGENT_OS_ROOM_DIR", "/proj/.war-rooms/room-007")
        .env("AGENT_OS_ROLE", "qa")
        .start()
        .await;
    let e = publish(&ost, "warning", "flaky login test", json!({})).await;
    assert_eq!(
        (e["room_id"].as_str(), e["author_role"].as_str()),
        (Some("room-007"), Some("qa"))
    );
}

#[tokio::test]
async fn query_caps_at_fifty_and_reports_truncation() {
    let p = project();
    let lines: Vec<String> = (0..60)
        .map(|i| {
            format!(
                r#"{{"id":"mem-{i:03}","ts":"2026-11-{:02}T00:00:00Z","kind":"code","room_id":"room-1","author_role":"engineer","ref":"","tags":["t"],"summary":"snippet {i}"}}"#,
                1 + i / 4
            )
        })
        .collect();
    std::fs::write(ledger(p.path()), lines.join("\n") + "\n").unwrap();
    let a = agent(p.path()).room("room-2").start().await;
    let q = a.ok("memory_query", json!({})).await;
    assert_eq!(q["entries"].as_array().unwrap().len(), 50);
    assert_eq!(
        (q["total"].as_u64(), q["truncated"].as_bool()),
        (Some(60), Some(true))
    );
    assert_eq!(q["entries"][0]["id"], "mem-059", "newest first");
    let q = a.ok("memory_query", json!({"last_n": 3})).await;
    assert_eq!(entry_ids(&q), vec!["mem-059", "mem-058", "mem-057"]);
    let s = a.ok("memory_search", json!({"text": "snippet"})).await;
    assert_eq!(
        s["hits"].as_array().unwrap().len(),
        10,
        "search defaults to 10"
    );
    assert_eq!(s["total"], 60);
}

#[tokio::test]
async fn ostwin_ledgers_and_bad_lines_load_and_serve() {
    let p = project();
    let fixture = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/ostwin-ledger.jsonl"
    ))
    .unwrap();
    std::fs::write(ledger(p.path()), &fixture).unwrap();
    let a = agent(p.path())
        .room("room-099")
        .now("2026-04-05T00:00:00Z")
        .start()
        .await;
    let q = a.ok("memory_query", json!({"room_id": "*"})).await;
    // 4 OSTwin lines, one superseded by another; the garbage and invalid-UTF-8 lines are skipped.
    assert_eq!(q["total"], 3, "{q}");
    let ids = entry_ids(&q);
    assert!(ids.contains(&"mem-dec-1775214241555000000-78833".to_string()));
    assert!(
        !ids.contains(&"mem-dec-1775214200000000000-78833".to_string()),
        "superseded"
    );
    let s = a.ok("memory_search", json!({"text": "jwt"})).await;
    assert_eq!(hit_ids(&s), vec!["mem-int-1775214300000000000-78840"]);
    let g = a
        .ok(
            "memory_get",
            json!({"id": "mem-dec-1775214200000000000-78833"}),
        )
        .await;
    assert_eq!(g["live"], false);
    assert_eq!(g["entry"]["detail"], "");
    assert!(
        a.stderr().contains("malformed line"),
        "problems are logged: {}",
        a.stderr()
    );
    // The file is never rewritten by readers.
    assert_eq!(std::fs::read(ledger(p.path())).unwrap(), fixture);
}

#[tokio::test]
async fn scores_follow_the_half_lives_at_a_pinned_now() {
    let p = project();
    // Same text as four kinds, each exactly one of its half-lives old at NOW.
    for (kind, age_h) in [
        ("convention", 720),
        ("interface", 480),
        ("decision", 336),
        ("code", 72),
    ] {
        let at = 1_795_608_000 - age_h * 3600; // NOW = 2026-11-25T12:00:00Z
        let ts = warroom_memory::clock::Timestamp(at).to_rfc3339();
        let (code, _, err) = cli_at(
            p.path(),
            &ts,
            &[
                "publish",
                "--kind",
                kind,
                "--summary",
                "retry budget for flaky network calls",
                "--room",
                "room-1",
                "--role",
                "engineer",
            ],
        );
        assert_eq!(code, 0, "{err}");
    }
    let a = agent(p.path()).room("room-9").now(NOW).start().await;
    let s = a.ok("memory_search", json!({"text": "retry budget"})).await;
    let hits = s["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 4);
    for h in hits {
        assert!((h["decay"].as_f64().unwrap() - 0.5).abs() < 1e-9, "{h}");
    }
    // Same bm25 and decay: ties go to the newer entry, i.e. the shortest half-life.
    let kinds: Vec<&str> = hits
        .iter()
        .map(|h| h["entry"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, vec!["code", "decision", "interface", "convention"]);
    // At an age of 72 h for all, the longer half-life wins.
    let p2 = project();
    for kind in ["code", "decision", "convention"] {
        cli_at(
            p2.path(),
            "2026-11-22T12:00:00Z",
            &[
                "publish",
                "--kind",
                kind,
                "--summary",
                "retry budget",
                "--room",
                "r",
                "--role",
                "e",
            ],
        );
    }
    let b = agent(p2.path()).room("room-9").now(NOW).start().await;
    let s = b.ok("memory_search", json!({"text": "retry budget"})).await;
    let kinds: Vec<&str> = s["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["entry"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, vec!["convention", "decision", "code"]);
    let code_decay = s["hits"][2]["decay"].as_f64().unwrap();
    assert!((code_decay - 0.5).abs() < 1e-9);
    let conv_decay = s["hits"][0]["decay"].as_f64().unwrap();
    assert!((conv_decay - (-std::f64::consts::LN_2 * 72.0 / 720.0).exp()).abs() < 1e-9);
}
