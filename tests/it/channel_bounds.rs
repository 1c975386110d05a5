//! A channel's large messages, through the binary: a `channel_read` answer holds at most
//! 4 MiB of messages, says how many it left out and pages on with `before`; a
//! downstream room's brief shows its predecessor's latest `done`, read back from its
//! line however large the channel around it.

use crate::common;

use common::agent;
use serde_json::{Value, json};

const MAX_READ: usize = 4 << 20;

fn bodies(r: &Value) -> Vec<String> {
    r["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["body"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn channel_answers_are_bounded_and_page_on_and_a_done_body_is_read_back() {
    let dir = common::project();
    let root = dir.path();
    let a = agent(root).room("room-a").role("manager").start().await;
    a.ok(
        "memory_register_plan",
        json!({"plan": {"plan_id": "ch", "epics": [
            {"ref": "E1", "room_id": "room-a"},
            {"ref": "E2", "room_id": "room-b", "depends_on": ["E1"]}]}}),
    )
    .await;
    // Six bodies of about 1 MiB (in Cyrillic: two bytes a letter), then a `done`.
    let big = |i: usize| format!("Сообщение {i}: ") + &"данные журнала ".repeat(36_000);
    for i in 0..6 {
        a.ok("channel_post", json!({"type": "review", "body": big(i)}))
            .await;
    }
    let done = format!("Готово: выпущено. {}", "подробности ".repeat(200));
    a.ok(
        "channel_post",
        json!({"type": "done", "body": done.clone()}),
    )
    .await;
    let r = a.ok("channel_read", json!({"last_n": 200})).await;
    let first = bodies(&r);
    let bytes: usize = first.iter().map(String::len).sum();
    assert!(bytes <= MAX_READ, "{bytes} bytes of bodies");
    assert_eq!(r["total"], 7);
    assert_eq!(r["truncated"], true);
    let more = r["more"].as_str().unwrap();
    assert!(more.contains("4 MiB") && more.contains("before"), "{more}");
    // The newest come back whole, the `done` last.
    assert_eq!(first.last().unwrap(), &done);
    // Paging back from the oldest returned reaches the rest, each message once.
    let oldest = r["messages"][0]["id"].as_str().unwrap().to_string();
    assert!(more.contains(&oldest), "{more}");
    let r2 = a
        .ok("channel_read", json!({"last_n": 200, "before": oldest}))
        .await;
    let second = bodies(&r2);
    assert_eq!(
        second.len() + first.len(),
        7,
        "{} then {}",
        first.len(),
        second.len()
    );
    assert!(second[0].starts_with("Сообщение 0: "));
    let e = a
        .err("channel_read", json!({"before": "no-such-message"}))
        .await;
    assert!(e.contains("before"), "{e}");
    a.stop().await;

    let b = agent(root).room("room-b").role("manager").start().await;
    let brief = b.ok("memory_get_context", json!({})).await;
    let md = brief["markdown"].as_str().unwrap();
    assert!(
        md.contains("Готово: выпущено."),
        "{}",
        md.chars().take(800).collect::<String>()
    );
    b.stop().await;
}
