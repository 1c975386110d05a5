//! Text in any script, through the real binary: summaries, details, tags, refs,
//! roles, channel bodies, plan titles and brief keywords in fourteen scripts, published over
//! MCP and the CLI on both backends; then every read path answers without error, search
//! finds each entry by its own words, and the ledger holds exactly one line per
//! acknowledged publish. The console's pages on the same project: tests `console_pages…`.

use crate::common;

use std::path::Path;

use common::pg::server;
use common::{agent, cli, ledger_lines};
use serde_json::{Value, json};

/// (script, a summary in it, a word of the summary that must find it, a tag in it).
const TEXTS: [(&str, &str, &str, &str); 14] = [
    ("latin", "Café menu uses UTF-8 everywhere", "Café", "café"),
    (
        "german",
        "Größe der Straße wird gespeichert",
        "Straße",
        "größe",
    ),
    (
        "cyrillic",
        "Привет мир: база данных готова",
        "Привет",
        "база",
    ),
    (
        "greek",
        "Καλημέρα κόσμε από τον διακομιστή",
        "Καλημέρα",
        "κόσμε",
    ),
    ("han", "数据库使用 PostgreSQL 存储订单", "数据库", "数据库"),
    (
        "japanese",
        "データベースは東京リージョンに置く",
        "東京",
        "東京",
    ),
    ("hangul", "데이터베이스 서울 리전 사용", "서울", "서울"),
    ("arabic", "مرحبا بالعالم قاعدة البيانات", "مرحبا", "مرحبا"),
    ("hebrew", "שלום עולם מסד נתונים", "שלום", "שלום"),
    ("devanagari", "नमस्ते दुनिया डेटाबेस", "नमस्ते", "नमस्ते"),
    ("thai", "สวัสดี ฐานข้อมูล พร้อม", "สวัสดี", "สวัสดี"),
    ("turkish", "İstanbul ılık ışık sunucusu", "İstanbul", "ılık"),
    (
        "emoji",
        "🚀 launch 👩\u{200d}💻 team e\u{301}cole",
        "launch",
        "🚀",
    ),
    (
        "bidi",
        "\u{202e}reversed\u{202c} zero\u{200b}width snake_cäse v2ñ",
        "snake_cäse",
        "v2ñ",
    ),
];

const KINDS: [&str; 6] = [
    "decision",
    "interface",
    "convention",
    "warning",
    "artifact",
    "code",
];

/// A CLI command that must succeed (exit 0, or 1 where the command says "found
/// something", as `overlaps` and `diff` do); its stdout.
fn run(root: &Path, args: &[&str]) -> String {
    let (code, out, err) = cli(root, args);
    assert!(code == 0 || code == 1, "{args:?} exited {code}: {err}");
    assert!(!err.contains("internal error"), "{args:?}: {err}");
    out
}

fn json_of(root: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend(args);
    serde_json::from_str(&run(root, &all)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// Publishes, reads and verifies a project in every script; `root` is a files project or
/// one whose `warroom.yaml` names a database.
async fn every_path_in_every_script(root: &Path) {
    // A plan whose titles and brief keywords are in the scripts too.
    let plan = json!({
        "plan_id": "welt",
        "title": "Платформа 数据 🌍",
        "epics": [
            {"ref": "EPIC-1", "room_id": "room-a", "title": "Сервер über 東京",
             "brief_keywords": ["база", "数据库"]},
            {"ref": "EPIC-2", "room_id": "room-b", "title": "İstanbul ışık", "depends_on": ["EPIC-1"],
             "brief_keywords": ["Привет", "東京", "ÉCOLE"]}
        ]
    });
    let a = agent(root).room("room-a").role("инженер").start().await;
    let out = a.ok("memory_register_plan", json!({"plan": plan})).await;
    assert_eq!(out["title"], "Платформа 数据 🌍");

    // Every text in every kind over MCP (room-a), with a tag, a ref and a detail in the
    // script; every text once over the CLI (room-b), in turn through the kinds.
    let mut acknowledged = 0;
    let mut own_ids: Vec<(String, &str)> = Vec::new();
    for (i, (script, summary, _, tag)) in TEXTS.iter().enumerate() {
        for kind in KINDS {
            let r = a
                .ok(
                    "memory_publish",
                    json!({"kind": kind, "summary": format!("{summary} ({kind})"),
                           "tags": [tag, script], "ref": format!("Задача-{i}"),
                           "detail": format!("{summary}. Détails: 详细 {tag}")}),
                )
                .await;
            assert!(
                r.get("warnings").is_none(),
                "{script}/{kind}: {:?}",
                r["warnings"]
            );
            acknowledged += 1;
        }
        let v = json_of(
            root,
            &[
                "publish",
                "--kind",
                KINDS[i % 6],
                "--room",
                "room-b",
                "--role",
                "qa",
                "--summary",
                summary,
                "--tag",
                tag,
                "--ref",
                "EPIC-2",
                "--detail",
                summary,
            ],
        );
        own_ids.push((v["entry"]["id"].as_str().unwrap().to_string(), script));
        acknowledged += 1;
        // Channel bodies, over MCP and the CLI.
        a.ok(
            "channel_post",
            json!({"type": "done", "to": "manager", "body": format!("Готово: {summary}")}),
        )
        .await;
        run(
            root,
            &[
                "channel", "post", "--room", "room-b", "--from", "qa", "--type", "review",
                "--body", summary,
            ],
        );
    }
    // Exactly one line per acknowledged publish.
    if !root.join(".agents/warroom.yaml").exists() {
        assert_eq!(ledger_lines(root).len(), acknowledged);
    }
    let all = a
        .ok("memory_query", json!({"room_id": "*", "last_n": 50}))
        .await;
    assert_eq!(all["total"], acknowledged);

    // Search finds each entry by its own words, and case folds as Unicode does.
    for (id, script) in &own_ids {
        let (_, _, word, _) = TEXTS.iter().find(|t| t.0 == *script).unwrap();
        let hits = json_of(root, &["search", "--room", "room-b", "--max", "50", word]);
        let ids: Vec<&str> = hits["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["entry"]["id"].as_str().unwrap())
            .collect();
        assert!(
            ids.contains(&id.as_str()),
            "{script}: `{word}` did not find {id}"
        );
        run(root, &["search", "--room", "*", "--explain", word]);
    }
    // `ÉCOLE` finds the decomposed `e\u{301}cole` too: both fold to the same letters.
    for (query, want) in [
        ("ÉCOLE", "e\u{301}cole"),
        ("привет", "Привет"),
        ("İSTANBUL", "İstanbul"),
    ] {
        let hits = json_of(root, &["search", "--room", "*", query]);
        let first = hits["hits"][0]["entry"]["summary"].as_str().unwrap_or("");
        assert!(first.contains(want), "{query}: {first}");
    }

    // Every other read path answers.
    for (_, _, _, tag) in TEXTS {
        let q = json_of(root, &["query", "--room", "*", "--tag", tag]);
        assert!(q["total"].as_u64().unwrap() >= 7, "tag {tag}: {q}");
    }
    let (first, _) = &own_ids[0];
    let got = json_of(root, &["get", first]);
    assert_eq!(got["entry"]["summary"], TEXTS[0].1);
    run(root, &["history", "--ref", "Задача-3"]);
    run(root, &["log", "--room", "*", "--tag", "база"]);
    let ctx = json_of(root, &["context", "room-b", "--as-room", "room-b"]);
    let md = ctx["markdown"].as_str().unwrap();
    assert!(md.contains("инженер") || md.contains("room-a"), "{md}");
    let receipts = json_of(root, &["receipts", "--room", "room-b"]);
    let rid = receipts[0]["id"].as_str().unwrap().to_string();
    run(root, &["context", "--replay", &rid]);
    let ov = json_of(root, &["overlaps"]);
    assert!(ov["open"].as_u64().unwrap() > 0, "{ov}");
    run(root, &["overlaps"]);
    run(root, &["diff", "--since", "1h"]);
    let read = json_of(root, &["channel", "read", "--room", "room-b"]);
    assert_eq!(read["messages"].as_array().unwrap().len(), TEXTS.len());
    let v = json_of(root, &["verify"]);
    assert_eq!(v["violations"].as_array().map_or(0, Vec::len), 0, "{v}");
    a.stop().await;
    // room-b's manager over MCP, with brief keywords in two scripts.
    let m = agent(root).room("room-b").role("manager").start().await;
    let brief = m
        .ok(
            "memory_get_context",
            json!({"brief_keywords": ["数据库", "Привет"]}),
        )
        .await;
    assert!(
        brief["markdown"].as_str().unwrap().contains("room-a"),
        "{brief}"
    );
    m.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_path_answers_in_every_script_on_files() {
    let dir = common::project();
    every_path_in_every_script(dir.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_path_answers_in_every_script_on_postgres() {
    let (dir, _url) = std::thread::scope(|s| s.spawn(|| server().project()).join().unwrap());
    every_path_in_every_script(dir.path()).await;
}

/// Every console page on a project written in every script answers 200, shows the text
/// (escaped, so the bidi override is a visible marker, not a reordering) and never an
/// internal error.
#[test]
fn console_pages_answer_in_every_script() {
    use common::daemon::{operator_token, start_daemon, url_of};
    let dir = common::project();
    let root = dir.path();
    let mut ids = Vec::new();
    for (i, (_, summary, _, tag)) in TEXTS.iter().enumerate() {
        for room in ["room-a", "room-b"] {
            let v = json_of(
                root,
                &[
                    "publish",
                    "--kind",
                    KINDS[i % 4],
                    "--room",
                    room,
                    "--role",
                    "инженер",
                    "--summary",
                    summary,
                    "--tag",
                    tag,
                    "--ref",
                    "Задача-1",
                ],
            );
            ids.push(v["entry"]["id"].as_str().unwrap().to_string());
        }
    }
    run(
        root,
        &[
            "channel",
            "post",
            "--room",
            "room-a",
            "--from",
            "qa",
            "--type",
            "done",
            "--body",
            "Готово: 数据库 🚀",
        ],
    );
    let plan = root.join("plan.json");
    std::fs::write(
        &plan,
        serde_json::to_string(&json!({"plan_id": "welt", "title": "Платформа 数据 🌍", "epics": [
            {"ref": "EPIC-1", "room_id": "room-a", "title": "Сервер über 東京"},
            {"ref": "EPIC-2", "room_id": "room-b", "title": "İstanbul ışık", "depends_on": ["EPIC-1"]}
        ]}))
        .unwrap(),
    )
    .unwrap();
    run(root, &["plan", "register", plan.to_str().unwrap()]);
    run(root, &["context", "room-b", "--keyword", "数据库"]);
    let receipts = json_of(root, &["receipts"]);
    let rid = receipts[0]["id"].as_str().unwrap().to_string();
    let runtime = tempfile::tempdir().unwrap();
    let _d = start_daemon(root, runtime.path());
    let base = url_of(root, runtime.path())
        .trim_end_matches("/mcp")
        .to_string();
    let auth = format!("Bearer {}", operator_token(root, runtime.path()));
    let get = |path: &str| {
        let r =
            xtask::http_client::get(&format!("{base}{path}"), &[("Authorization", &auth)]).unwrap();
        assert_eq!(r.status, 200, "GET {path}: {}", r.body);
        r.body
    };
    let q = |s: &str| -> String {
        s.bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect()
    };
    for path in [
        "/".to_string(),
        "/timeline".into(),
        "/room/room-a".into(),
        format!("/entry/{}", ids[4]),
        format!("/search?q={}", q("数据库")),
        format!("/search?q={}", q("ÉCOLE")),
        "/overlaps".into(),
        "/audit".into(),
        "/audit/diff?since=1h".into(),
        format!("/receipt/{rid}"),
        "/plan/welt".into(),
    ] {
        let html = get(&path);
        assert!(!html.contains("internal error"), "{path}");
    }
    assert!(get("/timeline").contains("Привет мир"));
    assert!(get(&format!("/search?q={}", q("Привет"))).contains("Привет мир"));
    // The right-to-left override is shown as a marker, never passed through raw.
    let bidi = get("/timeline");
    assert!(!bidi.contains('\u{202e}'), "a raw U+202E reached the page");
    assert!(get("/overlaps").contains("数据库"));
    assert!(get("/plan/welt").contains("İstanbul ışık"));
    // The room page's brief has its per-upstream-room account.
    assert!(get("/room/room-b").contains("id=\"accounts\""));
}
