//! What one identity may make the server keep, through the binary: appends (entries and
//! channel posts, by count and by bytes) and plan registrations are bounded a minute per
//! identity, plans kept per room, briefs recorded per credential. A refusal names the
//! limit, its figure and when to retry, writes nothing, and leaves other identities'
//! calls alone.

use crate::common;

use common::daemon::{http_transport, issue_token, start_daemon_with, url_of};
use common::{agent, ledger_lines};
use serde_json::{Value, json};

fn configure(root: &std::path::Path, yaml: &str) {
    std::fs::write(root.join(".agents/warroom.yaml"), yaml).unwrap();
}

fn plan(id: &str, room: &str) -> Value {
    json!({"plan": {"plan_id": id, "epics": [
        {"ref": "E1", "room_id": room, "title": "Подготовить данные"}]}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appends_and_plans_are_bounded_per_identity_and_refusals_write_nothing() {
    let dir = common::project();
    let root = dir.path();
    configure(
        root,
        "appends_per_minute: 5\nappend_mib_per_minute: 1\nplans_per_minute: 3\nplans_per_identity: 2\n",
    );
    // Five appends a minute: the sixth, entry or message, is refused and not written.
    let a = agent(root).room("room-a").role("engineer").start().await;
    for i in 0..4 {
        a.ok(
            "memory_publish",
            json!({"kind": "decision", "summary": format!("Решение номер {i}: кэш на 5 минут")}),
        )
        .await;
    }
    a.ok("channel_post", json!({"type": "task", "body": "задача"}))
        .await;
    let e = a
        .err(
            "memory_publish",
            json!({"kind": "decision", "summary": "Шестое решение"}),
        )
        .await;
    assert!(
        e.contains("appends_per_minute") && e.contains("5") && e.contains("retry in"),
        "{e}"
    );
    assert!(e.contains("room-a/engineer"), "names who: {e}");
    let e = a
        .err("channel_post", json!({"type": "task", "body": "ещё"}))
        .await;
    assert!(e.contains("appends_per_minute"), "{e}");
    assert_eq!(ledger_lines(root).len(), 4, "nothing refused was written");
    a.stop().await;
    // Another identity is not held back by room-a's minute.
    let b = agent(root).room("room-b").role("engineer").start().await;
    b.ok(
        "memory_publish",
        json!({"kind": "warning", "summary": "Другая комната пишет"}),
    )
    .await;
    // Bytes: 1 MiB a minute; a second message of 600 kB would pass it.
    let body = "журнал ".repeat(46_000); // about 600 kB
    b.ok(
        "channel_post",
        json!({"type": "review", "body": body.clone()}),
    )
    .await;
    let e = b
        .err("channel_post", json!({"type": "review", "body": body}))
        .await;
    assert!(
        e.contains("append_mib_per_minute") && e.contains("1 MiB"),
        "{e}"
    );
    b.stop().await;

    // Plans: a room keeps at most two; replacing one of its own is not a third; and at
    // most three registrations a minute.
    let c = agent(root).room("room-c").role("manager").start().await;
    c.ok("memory_register_plan", plan("plan-1", "room-c")).await;
    c.ok("memory_register_plan", plan("plan-2", "room-c")).await;
    let e = c
        .err("memory_register_plan", plan("plan-3", "room-c"))
        .await;
    assert!(
        e.contains("plans_per_identity") && e.contains("2 plans"),
        "{e}"
    );
    c.ok("memory_register_plan", plan("plan-2", "room-c")).await;
    let e = c
        .err("memory_register_plan", plan("plan-2", "room-c"))
        .await;
    assert!(
        e.contains("plans_per_minute") && e.contains("retry in"),
        "{e}"
    );
    c.stop().await;
    let (code, out, err) = common::cli(root, &["--json", "plan", "show"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("plan-3"), "a refused plan is not kept");
}

/// Two tokens of one room and role: the first one's briefs use up its own minute, not
/// the second's, and the refusal names the token that asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn brief_budgets_are_per_credential() {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    let p = common::project();
    let rt = tempfile::tempdir().unwrap();
    configure(p.path(), "receipts_per_minute: 2\n");
    let _d = start_daemon_with(p.path(), rt.path(), &[]);
    let url = url_of(p.path(), rt.path());
    let (id_a, token_a) = issue_token(p.path(), rt.path(), "room-a", "manager");
    let (_, token_b) = issue_token(p.path(), rt.path(), "room-a", "manager");
    let brief = |words: &str| {
        let Value::Object(map) = json!({"brief_keywords": [words]}) else {
            unreachable!()
        };
        CallToolRequestParams::new("memory_get_context").with_arguments(map)
    };
    let a = ().serve(http_transport(&url, &token_a, None, None)).await.unwrap();
    let b = ().serve(http_transport(&url, &token_b, None, None)).await.unwrap();
    for w in ["кэш", "очередь"] {
        let r = a.call_tool(brief(w)).await.unwrap();
        assert_ne!(r.is_error, Some(true), "{r:?}");
    }
    let r = a.call_tool(brief("поиск")).await.unwrap();
    assert_eq!(
        r.is_error,
        Some(true),
        "the third brief of token A is refused"
    );
    let said = common::text(&r);
    assert!(
        said.contains("receipts_per_minute") && said.contains(&format!("token whose id is {id_a}")),
        "{said}"
    );
    let r = b.call_tool(brief("поиск")).await.unwrap();
    assert_ne!(r.is_error, Some(true), "token B's first brief: {r:?}");
    let _ = a.cancel().await;
    let _ = b.cancel().await;
}
