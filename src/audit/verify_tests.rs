//! A verification reads batches of lines on several threads: its report must be the one
//! a single thread gives, whatever is wrong with the ledger and wherever it is.

use super::*;
use crate::chain::{GENESIS, hex, link_of};

/// A chained ledger of `n` entries with a fault every few hundred lines: a line that is
/// not JSON, a blank line, a duplicate id, a line edited after the next one linked to it,
/// a `prev` that is not hex, an unchained line, an entry that fails the schema and a
/// supersede of an unknown id.
fn faulty(n: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    for i in 0..n {
        let prev = lines
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map_or(GENESIS.to_string(), |l| hex(&link_of(l.as_bytes())));
        let id = if i % 401 == 400 { i - 1 } else { i };
        let sup = if i % 577 == 576 {
            "\"mem-none\"".to_string()
        } else {
            "null".to_string()
        };
        let prev = if i % 613 == 612 {
            "XYZ".to_string()
        } else {
            prev
        };
        let kind = if i % 733 == 732 {
            "opinion"
        } else {
            "decision"
        };
        let line = format!(
            r#"{{"id":"mem-{id:05}","ts":"2026-11-20T00:{:02}:00Z","kind":"{kind}","room_id":"room-1","author_role":"eng","ref":"","tags":[],"summary":"decision {i}","detail":"","supersedes":{sup},"prev":"{prev}"}}"#,
            i % 60
        );
        lines.push(match i % 509 {
            508 => "{not json".to_string(),
            254 => line.replace(r#""prev":"#, r#""unused":"#),
            _ => line,
        });
        if i % 457 == 456 {
            lines.push("   ".to_string());
        }
    }
    // Edited after the line after it was linked to it: that line's link breaks.
    lines[700] = lines[700].replace("decision 6", "decision 9");
    lines.join("\n") + "\n"
}

fn report(text: &str, threads: usize) -> serde_json::Value {
    let path = Path::new("ledger.jsonl");
    let mut v = Verifier::new(path, &VerifyOptions::default());
    v.feed_on(
        text.as_bytes(),
        path,
        text.len() as u64,
        &mut |_, _| {},
        threads,
    )
    .unwrap();
    serde_json::to_value(v.report(None)).unwrap()
}

#[test]
fn every_thread_count_reports_what_one_thread_does() {
    let text = faulty(2_500);
    let one = report(&text, 1);
    let kinds: std::collections::BTreeSet<&str> = one["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["kind"].as_str().unwrap())
        .collect();
    for kind in [
        "malformed-json",
        "duplicate-id",
        "broken-link",
        "bad-link",
        "unchained",
        "schema",
        "dangling-supersede",
    ] {
        assert!(kinds.contains(kind), "{kind} not found: {kinds:?}");
    }
    assert!(one["blank"].as_u64().unwrap() >= 5);
    for threads in 2..=4 {
        assert_eq!(report(&text, threads), one, "{threads} threads");
    }
}

#[test]
fn a_verification_fed_in_pieces_reports_what_one_feed_does() {
    let text = faulty(1_200);
    let cut = crate::text::prefix(&text, text.len() / 2)
        .rfind('\n')
        .unwrap()
        + 1;
    let path = Path::new("ledger.jsonl");
    let mut v = Verifier::new(path, &VerifyOptions::default());
    let (head, tail) = text.split_at(cut);
    for piece in [head, tail] {
        v.feed_on(piece.as_bytes(), path, text.len() as u64, &mut |_, _| {}, 2)
            .unwrap();
    }
    assert_eq!(
        serde_json::to_value(v.report(None)).unwrap(),
        report(&text, 1)
    );
}

#[test]
fn a_chain_check_of_lines_read_on_threads_finds_what_one_thread_does() {
    let text = faulty(1_500);
    let lines: Vec<&[u8]> = text.trim_end().split('\n').map(str::as_bytes).collect();
    let check = |threads: usize| {
        let mut chain = ChainCheck::default();
        let reads = super::super::chain_check::LineRead::of_lines(&lines, threads);
        assert_eq!(reads.len(), lines.len());
        let found: Vec<_> = reads
            .into_iter()
            .enumerate()
            .filter_map(|(i, r)| chain.observe_read(r, i as u64 + 1))
            .collect();
        (found, serde_json::to_value(&chain.report).unwrap())
    };
    let one = check(1);
    assert!(one.0.iter().any(|(kind, _)| *kind == "broken-link"));
    assert_eq!(check(3), one);
}
