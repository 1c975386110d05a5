//! Several server processes on one ledger: no lost entry, no duplicate, every process sees
//! everything on its next call; and a torn tail left by a crash is survived.

use crate::common;

use std::collections::HashSet;

use common::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_publishers_lose_nothing() {
    let p = project();
    let mut agents = Vec::new();
    for i in 0..4 {
        agents.push(
            agent(p.path())
                .room(&format!("room-{i}"))
                .role("engineer")
                .start()
                .await,
        );
    }
    let per = 25;
    let mut tasks = Vec::new();
    for (i, a) in agents.iter().enumerate() {
        tasks.push(async move {
            let mut ids = Vec::new();
            for n in 0..per {
                let e = publish(
                    a,
                    "code",
                    &format!("snippet {n} from room {i}"),
                    json!({"tags": ["load"]}),
                )
                .await;
                ids.push(e["id"].as_str().unwrap().to_string());
                if n % 5 == 0 {
                    a.ok("memory_query", json!({"tags": ["load"], "last_n": 5}))
                        .await;
                }
            }
            ids
        });
    }
    let published: Vec<String> = futures::future::join_all(tasks)
        .await
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(published.len(), 4 * per);

    let lines = ledger_lines(p.path());
    assert_eq!(lines.len(), 4 * per, "one line per publish");
    let mut seen = HashSet::new();
    for l in &lines {
        let v: serde_json::Value = serde_json::from_str(l).expect("every line is valid JSON");
        assert!(
            seen.insert(v["id"].as_str().unwrap().to_string()),
            "duplicate id"
        );
    }
    for id in &published {
        assert!(seen.contains(id), "{id} missing from the file");
    }
    for a in &agents {
        let q = a
            .ok("memory_query", json!({"room_id": "*", "last_n": 1}))
            .await;
        assert_eq!(q["total"], 4 * per, "every process sees every entry");
    }
}

#[tokio::test]
async fn a_torn_tail_is_reported_and_the_next_publish_stays_valid() {
    let p = project();
    let good = [
        r#"{"id":"mem-a","ts":"2026-11-20T00:00:00Z","kind":"decision","room_id":"room-1","author_role":"architect","ref":"","tags":[],"summary":"first","detail":"","supersedes":null}"#,
        r#"{"id":"mem-b","ts":"2026-11-21T00:00:00Z","kind":"decision","room_id":"room-1","author_role":"architect","ref":"","tags":[],"summary":"second","detail":"","supersedes":null}"#,
    ];
    let torn = r#"{"id":"mem-torn","ts":"2026-11-22T00:00:00Z","kind":"deci"#;
    std::fs::write(
        ledger(p.path()),
        format!("{}\n{}\n{torn}", good[0], good[1]),
    )
    .unwrap();

    let a = agent(p.path())
        .room("room-2")
        .role("engineer")
        .start()
        .await;
    let q = a.ok("memory_query", json!({})).await;
    assert_eq!(q["total"], 2, "entries before the torn line are served");
    assert!(
        a.stderr().contains("unterminated line"),
        "startup reports the torn tail: {}",
        a.stderr()
    );

    let e = publish(&a, "warning", "after the crash", json!({})).await;
    let text = std::fs::read_to_string(ledger(p.path())).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(text.ends_with('\n'));
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[2], torn, "the fragment is kept, on its own line");
    let last: serde_json::Value = serde_json::from_str(lines[3]).unwrap();
    assert_eq!(last["id"], e["id"]);

    // A fresh process reads the repaired file: three entries, the fragment reported.
    let b = agent(p.path()).room("room-3").start().await;
    let q = b.ok("memory_query", json!({})).await;
    assert_eq!(q["total"], 3);
    assert!(
        b.stderr().contains("line 3") || b.stderr().contains("line=3"),
        "{}",
        b.stderr()
    );
    // And the first process saw nothing lost either.
    let q = a.ok("memory_query", json!({"room_id": "*"})).await;
    assert_eq!(q["total"], 3);
}
