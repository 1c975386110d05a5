//! A large search through the binary: pruned (MaxScore), it returns the same hits as the
//! exhaustive path would and says that its total is a lower bound. (The equality itself is
//! a property test in crates/index/src/tests.rs; this checks the edge end to end.)

use crate::common;

use common::cli;
use serde_json::{Value, json};

#[test]
fn a_large_search_is_pruned_and_says_its_total_is_a_lower_bound() {
    let p = common::project();
    // 16,000 entries sharing common words: far more postings than PRUNE_ABOVE (5,000).
    let mut text = String::new();
    for i in 0..16_000 {
        let words = ["cache", "retry", "budget", "queue", "index", "deploy"];
        let summary = format!(
            "{} {} {} note {i}",
            words[i % 6],
            words[(i / 6) % 6],
            words[(i / 36) % 6]
        );
        let line = json!({"id": format!("mem-{i:06}"), "ts": format!("2026-11-{:02}T10:00:00Z", 1 + i % 25),
            "kind": "decision", "room_id": format!("room-{}", i % 7), "author_role": "engineer",
            "ref": "", "tags": [], "summary": summary, "detail": "", "supersedes": null});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(common::ledger(p.path()), text).unwrap();
    let args = [
        "--json",
        "--now",
        "2026-11-26T00:00:00Z",
        "search",
        "--room",
        "*",
        "cache retry budget queue",
    ];
    let (code, out, err) = cli(p.path(), &args);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["total_exact"], false, "{r}");
    assert_eq!(r["hits"].as_array().unwrap().len(), 10);
    // The best hits hold three of the four words.
    let top = r["hits"][0]["entry"]["summary"].as_str().unwrap();
    let held = ["cache", "retry", "budget", "queue"]
        .iter()
        .filter(|w| top.contains(**w))
        .count();
    assert_eq!(held, 3, "{top}");
    assert!(r["total"].as_u64().unwrap() >= 10);
    let (_, human, _) = cli(p.path(), &args[1..]);
    assert!(human.contains("of at least"), "{human}");
    // A small search (one entry's number) is exact.
    let (_, out, _) = cli(p.path(), &["--json", "search", "--room", "*", "42"]);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["total_exact"], true, "{r}");
    assert_eq!(r["total"], 1, "{r}");
    assert_eq!(r["hits"][0]["entry"]["id"], "mem-000042", "{r}");
}
