//! Waits are bounded, through the real binary: a process holding the ledger's lock (here:
//! this test, as a stopped publisher or `flock` would) costs a publish a clear error naming
//! the holder after `lock_wait_seconds`, writes nothing, and never keeps the same server's
//! readers waiting.

mod common;

use std::fs::OpenOptions;

use common::*;
use serde_json::json;

fn hold_ledger_lock(root: &std::path::Path) -> std::fs::File {
    let f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(ledger(root))
        .unwrap();
    f.lock().unwrap();
    f
}

#[test]
fn a_held_lock_fails_the_cli_publish_with_the_holder_named() {
    let p = project();
    std::fs::write(
        p.path().join(".agents/warroom.yaml"),
        "lock_wait_seconds: 0.3\n",
    )
    .unwrap();
    let held = hold_ledger_lock(p.path());
    let (code, _, err) = cli_env(
        p.path(),
        &[
            "publish",
            "--kind",
            "decision",
            "--summary",
            "blocked",
            "--as-room",
            "r1",
        ],
        &[("WARROOM_ROLE", "qa")],
    );
    assert_eq!(code, 2, "{err}");
    let me = format!("by PID {}", std::process::id());
    assert!(
        err.contains("is locked") && err.contains(&me) && err.contains("lock_wait_seconds"),
        "{err}"
    );
    assert!(ledger_lines(p.path()).is_empty(), "nothing written");
    drop(held);
    let (code, _, err) = cli_env(
        p.path(),
        &[
            "publish",
            "--kind",
            "decision",
            "--summary",
            "free",
            "--as-room",
            "r1",
        ],
        &[("WARROOM_ROLE", "qa")],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(ledger_lines(p.path()).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_of_a_server_never_wait_behind_its_blocked_publish() {
    let p = project();
    std::fs::write(
        p.path().join(".agents/warroom.yaml"),
        "lock_wait_seconds: 3\n",
    )
    .unwrap();
    let a = agent(p.path()).room("room-1").role("qa").start().await;
    publish(&a, "decision", "readable while blocked", json!({})).await;
    let held = hold_ledger_lock(p.path());
    let blocked = a.call(
        "memory_publish",
        json!({"kind": "warning", "summary": "waits"}),
    );
    let read = a.ok("memory_query", json!({"room_id": "*"}));
    tokio::pin!(blocked);
    // The query answers while the publish still waits for the file lock.
    let first = tokio::select! {
        r = &mut blocked => format!("publish first: {:?}", r.is_error),
        q = read => { assert_eq!(q["total"], 1); "query".to_string() }
    };
    assert_eq!(first, "query");
    let r = blocked.await;
    assert_eq!(r.is_error, Some(true));
    let text = text(&r);
    assert!(
        text.contains(&format!("by PID {}", std::process::id())),
        "{text}"
    );
    drop(held);
    assert_eq!(
        ledger_lines(p.path()).len(),
        1,
        "the refused publish wrote nothing"
    );
    publish(&a, "warning", "after the lock is free", json!({})).await;
    assert_eq!(ledger_lines(p.path()).len(), 2);
}
