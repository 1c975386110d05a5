//! Replay at a horizon: a receipt's brief is recomputed on the index as it
//! was at the receipt's position — no copy of the prefix, no re-index — and says exactly
//! what a replay on an index rebuilt from the prefix says (`context --replay --rebuild`),
//! through the real binary: after later entries in old and new rooms, with new words,
//! supersedes of entries before and after each receipt, in direct mode and in a daemon
//! whose index was built before the later lines; a line edited under the daemon's index
//! is still caught.

use crate::common;

use std::path::Path;

use common::daemon::{daemon_cmd, operator_token, start_daemon_cmd, url_of};
use common::{cli, cli_publish_as, ledger, project};
use serde_json::{Value, json};
use xtask::http_client::get;

/// A plan: room-b depends on room-a; room-c and room-d are its siblings.
fn plan(root: &Path) {
    std::fs::create_dir_all(root.join(".agents/plan")).unwrap();
    std::fs::write(
        root.join(".agents/plan/shop.json"),
        json!({"plan_id": "shop", "title": "shop", "epics": [
            {"ref": "E1", "room_id": "room-a", "brief_keywords": ["auth"]},
            {"ref": "E2", "room_id": "room-b", "depends_on": ["E1"], "brief_keywords": ["auth", "token"]},
            {"ref": "E3", "room_id": "room-c"},
            {"ref": "E4", "room_id": "room-d"}]})
        .to_string(),
    )
    .unwrap();
}

/// A brief for room-b with `keywords`; its receipt id.
fn brief(root: &Path, keywords: &[&str]) -> String {
    let mut args = vec!["--json", "context", "room-b"];
    for k in keywords {
        args.extend(["--keyword", k]);
    }
    let (code, out, err) = cli(root, &args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    v["receipt"].as_str().unwrap().to_string()
}

fn replay(root: &Path, id: &str, rebuild: bool) -> (i32, String) {
    let mut args = vec!["--json", "context", "--replay", id];
    if rebuild {
        args.push("--rebuild");
    }
    let (code, out, err) = cli(root, &args);
    assert!(code == 0 || code == 1, "{err}");
    (code, out)
}

const WORDS: [&str; 12] = [
    "auth", "token", "expiry", "session", "queue", "cache", "login", "refresh", "schema", "ledger",
    "webhook", "retry",
];

#[test]
fn every_receipt_replays_the_same_at_its_horizon_and_rebuilt() {
    let p = project();
    let root = p.path();
    plan(root);
    let rooms = ["room-a", "room-c", "room-d", "room-e"];
    let kinds = ["decision", "interface", "convention", "warning", "artifact"];
    let mut published: Vec<String> = Vec::new();
    let mut receipts: Vec<String> = Vec::new();
    for i in 0..36usize {
        // New rooms (room-e only after the first receipts) and new words as it goes.
        let room = rooms[i % if i < 12 { 3 } else { 4 }];
        let summary = format!(
            "{} {} {} step{}",
            WORDS[i % WORDS.len()],
            WORDS[(i * 5 + 1) % WORDS.len()],
            if i > 18 { "latecomer" } else { "early" },
            i
        );
        // Supersede an entry published long before (some before a receipt, some after).
        let target = (i % 7 == 6).then(|| published[i - 4].clone());
        let mut extra = Vec::new();
        if let Some(t) = &target {
            extra.extend(["--supersedes", t.as_str()]);
        }
        let e = cli_publish_as(
            root,
            None,
            (kinds[i % kinds.len()], room, "architect"),
            &summary,
            &extra,
        );
        published.push(e["entry"]["id"].as_str().unwrap().to_string());
        if i % 5 == 4 {
            receipts.push(brief(root, &[]));
            receipts.push(brief(root, &[WORDS[i % 4], "latecomer"]));
        }
    }
    assert!(receipts.len() >= 12);
    for id in &receipts {
        let (code, at) = replay(root, id, false);
        assert_eq!(code, 0, "{id} at its horizon: {at}");
        let (code, rebuilt) = replay(root, id, true);
        assert_eq!(code, 0, "{id} rebuilt: {rebuilt}");
        assert_eq!(at, rebuilt, "{id}");
        let v: Value = serde_json::from_str(&at).unwrap();
        assert_eq!(v["identical"], true);
    }
}

#[test]
fn a_daemon_replays_on_its_live_index_and_still_catches_an_edited_line() {
    let p = project();
    let root = p.path();
    plan(root);
    for (kind, room, summary) in [
        (
            "decision",
            "room-a",
            "Access tokens expire after 15 minutes",
        ),
        (
            "interface",
            "room-a",
            "Auth exposes /auth/refresh for token refresh",
        ),
        (
            "decision",
            "room-c",
            "Sessions are kept in redis with a token index",
        ),
    ] {
        cli_publish_as(root, None, (kind, room, "architect"), summary, &[]);
    }
    let runtime = tempfile::tempdir().unwrap();
    let cmd = daemon_cmd(root, runtime.path(), &["--listen", "127.0.0.1:0"]);
    let _daemon = start_daemon_cmd(root, runtime.path(), cmd);
    let base = url_of(root, runtime.path())
        .trim_end_matches("/mcp")
        .to_string();
    let token = operator_token(root, runtime.path());
    let page = |id: &str| {
        let r = get(
            &format!("{base}/receipt/{id}"),
            &[("Authorization", &format!("Bearer {token}"))],
        )
        .unwrap();
        assert_eq!(r.status, 200, "{}", r.body);
        r.body
    };
    let id = brief(root, &["token"]);
    // Later lines the daemon indexes: a supersede of an entry the brief read, a new room,
    // new words.
    let (_, out, _) = cli(root, &["--json", "search", "expire"]);
    let first: Value = serde_json::from_str(&out).unwrap();
    let old = first["hits"][0]["entry"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    cli_publish_as(
        root,
        None,
        ("decision", "room-a", "architect"),
        "Access tokens expire after 5 minutes now",
        &["--supersedes", &old],
    );
    cli_publish_as(
        root,
        None,
        ("warning", "room-f", "qa"),
        "Token rotation breaks long downloads",
        &[],
    );
    let shown = page(&id);
    assert!(shown.contains("✓ Replayed"), "{shown}");
    // The daemon's index holds the line as it was read; the file is edited in place (same
    // length) afterwards. The replay reads the prefix's chain and says so.
    let text = std::fs::read_to_string(ledger(root)).unwrap();
    let edited = text.replacen("15 minutes", "16 minutes", 1);
    assert_eq!(edited.len(), text.len());
    std::fs::write(ledger(root), edited).unwrap();
    let shown = page(&id);
    assert!(shown.contains("✗ Replay differs"), "{shown}");
    assert!(shown.contains("not those the brief read"), "{shown}");
}
