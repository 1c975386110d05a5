//! Who sees what, through the binary: an entry published `audience: room` reaches no other
//! room by any path that shows entries to a room — brief (every section, the open overlaps
//! included), query, search, get, history, diff, resources, a publish's related entries —
//! and one said `downstream` reaches only rooms downstream of its publisher (not a
//! sibling). The paths are listed once, here: a new tool that shows entries is named in
//! `PATHS` or the last test fails.

use crate::common;

use common::{Agent, agent};
use rmcp::model::{ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};

/// room-a ← room-b ← room-d, and room-a ← room-c (room-c a sibling of room-b).
fn plan() -> Value {
    json!({"plan_id": "vis", "title": "Visibility", "epics": [
        {"ref": "EPIC-A", "room_id": "room-a", "title": "Сеансы"},
        {"ref": "EPIC-B", "room_id": "room-b", "title": "Корзина", "depends_on": ["EPIC-A"]},
        {"ref": "EPIC-C", "room_id": "room-c", "title": "Каталог", "depends_on": ["EPIC-A"]},
        {"ref": "EPIC-D", "room_id": "room-d", "title": "Заказы", "depends_on": ["EPIC-B"]}
    ]})
}

/// The tools that show entries to a room, each checked below.
const PATHS: &[&str] = &[
    "memory_publish",
    "memory_query",
    "memory_search",
    "memory_get",
    "memory_history",
    "memory_diff",
    "memory_get_context",
];
/// The tools that show no entry (plans, channels: their own rules).
const NO_ENTRIES: &[&str] = &["memory_register_plan", "channel_post", "channel_read"];

async fn id_of(a: &Agent, args: Value) -> String {
    a.ok("memory_publish", args).await["entry"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn read(a: &Agent, uri: &str) -> String {
    let r = a
        .client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap();
    match &r.contents[0] {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("not text: {other:?}"),
    }
}

/// Everything room `a` can be shown, as one text: each path's answer.
async fn everything(a: &Agent, words: &str) -> String {
    let mut all = String::new();
    for (tool, args) in [
        ("memory_query", json!({"last_n": 200})),
        ("memory_query", json!({"room_id": "room-*", "last_n": 200})),
        ("memory_search", json!({"text": words, "room_id": "room-*"})),
        (
            "memory_history",
            json!({"room_id": "room-*", "last_n": 200}),
        ),
        ("memory_diff", json!({"since": "2000-01-01", "limit": 50})),
        ("memory_get_context", json!({})),
        (
            "memory_get_context",
            json!({"brief_keywords": ["сеансов", "кэш"]}),
        ),
    ] {
        let r = a.call(tool, args.clone()).await;
        all.push_str(&serde_json::to_string(&r).unwrap());
    }
    for uri in [
        "warroom://upstream",
        "warroom://room/room-a",
        "warroom://room/room-b",
    ] {
        all.push_str(&read(a, uri).await);
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_room_keeps_stays_in_it_and_downstream_reaches_only_downstream() {
    let dir = common::project();
    let root = dir.path();
    let a = agent(root).room("room-a").role("architect").start().await;
    a.ok("memory_register_plan", json!({"plan": plan()})).await;
    let note_text = "Рабочая заметка: кэш сеансов перестраивается ночью из таблицы sessions";
    let note = id_of(
        &a,
        json!({"kind": "decision", "audience": "room", "summary": note_text, "tags": ["sessions"]}),
    )
    .await;
    let open = id_of(
        &a,
        json!({"kind": "interface", "summary": "GET /sessions/{id} возвращает сеанс и его срок"}),
    )
    .await;
    a.stop().await;
    let b = agent(root).room("room-b").role("architect").start().await;
    let down_text = "Корзина хранит кэш сеансов в Redis, ночью таблица sessions перестраивается";
    let down = id_of(
        &b,
        json!({"kind": "decision", "audience": "downstream", "summary": down_text, "tags": ["sessions"]}),
    )
    .await;
    b.stop().await;
    // room-c writes something close to both: an overlap, and related entries, if leaked.
    let c = agent(root).room("room-c").role("architect").start().await;
    let published = c
        .ok(
            "memory_publish",
            json!({"kind": "decision", "tags": ["sessions"],
                   "summary": "Каталог читает кэш сеансов; таблица sessions перестраивается ночью"}),
        )
        .await;
    let related = published.to_string();
    assert!(
        !related.contains(&note),
        "a working note among related: {related}"
    );
    assert!(
        !related.contains(&down),
        "a sibling's downstream entry among related: {related}"
    );
    c.stop().await;

    let words = "кэш сеансов sessions ночью";
    for room in ["room-b", "room-c", "room-d"] {
        let v = agent(root).room(room).role("manager").start().await;
        let seen = everything(&v, words).await;
        assert!(
            !seen.contains(&note),
            "{room} was shown room-a's working note (id)"
        );
        assert!(
            !seen.contains("Рабочая заметка"),
            "{room} was shown room-a's working note"
        );
        let e = v.err("memory_get", json!({"id": note})).await;
        assert!(e.contains("no entry has id"), "{room}: {e}");
        // What is open reaches every room.
        assert!(seen.contains(&open), "{room} sees room-a's interface");
        let down_seen = seen.contains(&down) || seen.contains("Корзина хранит");
        match room {
            "room-c" => {
                assert!(!down_seen, "a sibling was shown room-b's downstream entry");
                let e = v.err("memory_get", json!({"id": down})).await;
                assert!(e.contains("no entry has id"), "{e}");
            }
            "room-d" => {
                assert!(down_seen, "room-d is downstream of room-b");
                v.ok("memory_get", json!({"id": down})).await;
            }
            _ => {}
        }
        v.stop().await;
    }
    // The room itself, and an operator, see the note.
    let own = agent(root).room("room-a").role("engineer").start().await;
    let got = own.ok("memory_get", json!({"id": note})).await;
    assert!(got.to_string().contains("Рабочая заметка"), "{got}");
    own.stop().await;
    let (code, out, err) = common::cli(root, &["--json", "get", &note]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Рабочая заметка"), "{out}");
}

/// Every tool either shows entries (and is checked above) or is named as showing none.
#[tokio::test]
async fn every_tool_that_shows_entries_is_checked() {
    let p = common::project();
    let a = agent(p.path()).room("room-a").start().await;
    let names: Vec<String> = a.tools().await.iter().map(|t| t.name.to_string()).collect();
    for n in &names {
        assert!(
            PATHS.contains(&n.as_str()) || NO_ENTRIES.contains(&n.as_str()),
            "tool `{n}` is new: check who sees what it shows (tests/it/visibility.rs), then \
             list it in PATHS or NO_ENTRIES"
        );
    }
    a.stop().await;
}
