//! A ledger whose tampering is provable (issue: trust boundaries): every line the server
//! writes links to the one before it; `verify` alone finds changed, removed, reordered and
//! backdated lines, `verify --head` finds rollbacks and insertions before a recorded head,
//! union merges and older writers' lines still verify, and `diff --since` selects by
//! position. Everything through the real binary.

use crate::common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};
use warroom_memory::chain::{hex, link_of};

fn publish_at(root: &Path, time: &str, summary: &str) -> String {
    let v = cli_publish_as(
        root,
        Some(time),
        ("decision", "room-1", "eng"),
        summary,
        &[],
    );
    v["entry"]["id"].as_str().unwrap().to_string()
}

fn seeded(n: usize) -> tempfile::TempDir {
    let p = project();
    for i in 0..n {
        publish_at(
            p.path(),
            &format!("2026-11-20T0{i}:00:00Z"),
            &format!("decision {i}"),
        );
    }
    p
}

fn verify(root: &Path, head: Option<&str>) -> (i32, Value) {
    let mut args = vec!["--json", "verify"];
    if let Some(h) = head {
        args.extend(["--head", h]);
    }
    let (code, out, err) = cli(root, &args);
    assert!(code == 0 || code == 1, "{err}");
    (code, serde_json::from_str(&out).unwrap())
}

fn kinds(r: &Value) -> Vec<String> {
    r["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["kind"].as_str().unwrap().to_string())
        .collect()
}

fn set_lines(root: &Path, lines: &[String]) {
    std::fs::write(ledger(root), lines.join("\n") + "\n").unwrap();
}

/// A line linked correctly after `prev`, as a forger who knows the format would write it.
fn forged(prev: &str, id: &str, ts: &str, supersedes: Option<&str>) -> String {
    let sup = supersedes.map_or("null".to_string(), |s| format!("\"{s}\""));
    format!(
        r#"{{"id":"{id}","ts":"{ts}","kind":"decision","room_id":"room-1","author_role":"eng","ref":"","tags":[],"summary":"forged","detail":"","supersedes":{sup},"prev":"{}"}}"#,
        hex(&link_of(prev.as_bytes()))
    )
}

#[test]
fn a_clean_ledger_verifies_and_reports_its_head() {
    let p = seeded(4);
    let (code, r) = verify(p.path(), None);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["chain"]["chained"], 4);
    let last = ledger_lines(p.path()).pop().unwrap();
    assert_eq!(r["chain"]["head"], json!(hex(&link_of(last.as_bytes()))));
}

#[test]
fn changed_removed_and_reordered_lines_break_the_chain() {
    for (what, edit) in [
        (
            "changed byte",
            &(|l: &mut Vec<String>| l[1] = l[1].replace("decision 1", "decision X"))
                as &dyn Fn(&mut Vec<String>),
        ),
        ("removed line", &|l: &mut Vec<String>| {
            l.remove(1);
        }),
        ("reordered", &|l: &mut Vec<String>| l.swap(1, 2)),
    ] {
        let p = seeded(4);
        let mut lines = ledger_lines(p.path());
        edit(&mut lines);
        set_lines(p.path(), &lines);
        let (code, r) = verify(p.path(), None);
        assert_eq!(code, 1, "{what}: {r}");
        assert!(
            kinds(&r).contains(&"broken-link".to_string()),
            "{what}: {r}"
        );
    }
}

#[test]
fn a_recorded_head_proves_no_rollback_and_no_insertion() {
    let p = seeded(5);
    let root = p.path();
    let (_, r) = verify(root, None);
    let head = r["chain"]["head"].as_str().unwrap().to_string();
    // More entries later: the old head still verifies.
    publish_at(root, "2026-11-20T06:00:00Z", "later");
    let (code, r) = verify(root, Some(&head));
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["chain"]["recorded_head_line"], 5);
    // A forged line inserted mid-file with a correct link looks like a merge to verify
    // alone (a fork), and is exposed by the head.
    let mut lines = ledger_lines(root);
    let f = forged(&lines[1], "mem-forged", "2026-11-20T01:30:00Z", None);
    lines.insert(2, f);
    set_lines(root, &lines);
    let (code, r) = verify(root, None);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["chain"]["forks"], json!([{"line": 4, "continues": 2}]));
    let (code, r) = verify(root, Some(&head));
    assert_eq!(code, 1, "{r}");
    assert_eq!(kinds(&r), vec!["outside-head"]);
    assert_eq!(r["violations"][0]["line"], 3);
    // A rollback of the last lines: verify alone cannot tell, the head can.
    let q = seeded(5);
    let (_, r) = verify(q.path(), None);
    let head = r["chain"]["head"].as_str().unwrap().to_string();
    let lines = ledger_lines(q.path());
    set_lines(q.path(), &lines[..3]);
    assert_eq!(verify(q.path(), None).0, 0);
    let (code, r) = verify(q.path(), Some(&head));
    assert_eq!(code, 1, "{r}");
    assert_eq!(kinds(&r), vec!["head-missing"]);
}

#[test]
fn a_backdated_line_is_a_violation_and_diff_since_shows_it() {
    let p = seeded(3);
    let root = p.path();
    let lines = ledger_lines(root);
    let first: Value = serde_json::from_str(&lines[0]).unwrap();
    let target = first["id"].as_str().unwrap();
    // Appended last, dated before everything: it retires decision 0 "in the past".
    let f = forged(
        lines.last().unwrap(),
        "mem-backdated",
        "2026-11-19T00:00:00Z",
        Some(target),
    );
    let mut all = lines.clone();
    all.push(f);
    set_lines(root, &all);
    let (code, r) = verify(root, None);
    assert_eq!(code, 1, "{r}");
    assert_eq!(kinds(&r), vec!["backdated"]);
    let (code, out, err) = cli(
        root,
        &[
            "--json",
            "diff",
            "--since",
            "2026-11-20T01:30:00Z",
            "--until",
            "2026-11-21T00:00:00Z",
        ],
    );
    assert!(code == 0 || code == 1, "{err}");
    assert!(
        out.contains("mem-backdated"),
        "diff --since must show the backdated supersede: {out}"
    );
}

#[test]
fn union_merges_and_older_writers_still_verify() {
    let base = seeded(2);
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    for d in [&a, &b] {
        std::fs::create_dir_all(d.path().join(".agents")).unwrap();
        std::fs::copy(ledger(base.path()), ledger(d.path())).unwrap();
    }
    publish_at(a.path(), "2026-11-21T00:00:00Z", "left 1");
    publish_at(a.path(), "2026-11-21T01:00:00Z", "left 2");
    publish_at(b.path(), "2026-11-21T00:30:00Z", "right 1");
    publish_at(b.path(), "2026-11-21T01:30:00Z", "right 2");
    // git's merge=union: the base, then ours' additions, then theirs'.
    let mut merged = ledger_lines(a.path());
    merged.extend(ledger_lines(b.path()).into_iter().skip(2));
    set_lines(base.path(), &merged);
    let (code, r) = verify(base.path(), None);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["chain"]["forks"], json!([{"line": 5, "continues": 2}]));
    publish_at(base.path(), "2026-11-21T02:00:00Z", "after the merge");
    assert_eq!(verify(base.path(), None).0, 0);
    // Lines without `prev` (older versions, OSTwin) are accepted and counted.
    let legacy = project();
    let line = r#"{"id":"mem-legacy-1","ts":"2026-11-01T00:00:00Z","kind":"decision","room_id":"room-1","author_role":"eng","ref":"","tags":[],"summary":"old","detail":"","supersedes":null}"#;
    std::fs::write(ledger(legacy.path()), format!("{line}\n")).unwrap();
    publish_at(legacy.path(), "2026-11-20T00:00:00Z", "new");
    let (code, r) = verify(legacy.path(), None);
    assert_eq!(code, 0, "{r}");
    assert_eq!(
        (
            r["chain"]["unchained"].as_u64(),
            r["chain"]["chained"].as_u64()
        ),
        (Some(1), Some(1))
    );
}

/// Red-team finding 2: this server never writes an unchained line after a chained one,
/// so such a line — inserted after line 4 of a chained ledger, or before its first line —
/// is a violation, not a fork; a project that really has an unchained writer says so.
#[test]
fn an_unchained_line_inserted_into_a_chained_ledger_is_a_violation() {
    let p = seeded(5);
    let root = p.path();
    let lines = ledger_lines(root);
    let unchained = |id: &str, ts: &str| {
        format!(
            r#"{{"id":"{id}","ts":"{ts}","kind":"decision","room_id":"room-1","author_role":"eng","ref":"","tags":[],"summary":"inserted","detail":"","supersedes":null}}"#
        )
    };
    let mut all = lines.clone();
    all.insert(4, unchained("mem-inserted", "2026-11-20T03:30:00Z"));
    set_lines(root, &all);
    let (code, r) = verify(root, None);
    assert_eq!(code, 1, "{r}");
    assert_eq!(kinds(&r), vec!["unchained"]);
    assert_eq!(r["violations"][0]["line"], 5);
    // The setting, on the command line or in warroom.yaml, accepts it (reported as counted).
    let (code, out, _) = cli(root, &["--json", "verify", "--allow-unchained"]);
    assert_eq!(code, 0, "{out}");
    std::fs::write(root.join(".agents/warroom.yaml"), "allow_unchained: true\n").unwrap();
    assert_eq!(verify(root, None).0, 0);
    std::fs::remove_file(root.join(".agents/warroom.yaml")).unwrap();
    // Before the first line, whatever its date: the line that links to the start of the
    // ledger shows it was not there when the chain began.
    for ts in ["2026-11-19T00:00:00Z", "2026-11-20T00:00:00Z"] {
        let mut all = lines.clone();
        all.insert(0, unchained("mem-first", ts));
        set_lines(root, &all);
        let (code, r) = verify(root, None);
        assert_eq!(code, 1, "{r}");
        assert_eq!(kinds(&r), vec!["unchained"]);
        assert!(
            r.to_string().contains("inserted before the chain began"),
            "{r}"
        );
    }
    // In an older writer's unchained prefix, a line dated before the ledger's first line.
    let mut legacy = vec![
        unchained("mem-old-1", "2026-11-01T00:00:00Z"),
        unchained("mem-old-2", "2026-10-01T00:00:00Z"),
    ];
    legacy.push(forged(&legacy[1], "mem-new", "2026-11-02T00:00:00Z", None));
    set_lines(root, &legacy);
    let (code, r) = verify(root, None);
    assert_eq!(code, 1, "{r}");
    assert_eq!(kinds(&r), vec!["unchained"]);
    assert!(r.to_string().contains("s before the ledger"), "{r}");
}

/// Red-team finding 5: one line dated a year ahead (a skewed clock, a bad merge) is
/// reported by `verify` as future-dated, and writers keep working after it; the lines they
/// write after it are not called backdated.
#[test]
fn a_future_dated_line_is_reported_and_writers_keep_working() {
    let p = seeded(3);
    let root = p.path();
    let mut all = ledger_lines(root);
    all.push(forged(
        all.last().unwrap(),
        "mem-future",
        "2027-11-20T00:00:00Z",
        None,
    ));
    set_lines(root, &all);
    // At the verifier's now it is already in the future.
    let (code, out, _) = cli(root, &["--json", "--now", "2026-11-20T05:00:00Z", "verify"]);
    assert_eq!(code, 1, "{out}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(kinds(&r), vec!["future-dated"]);
    assert_eq!(r["violations"][0]["line"], 4);
    // A writer whose clock is right goes on (it used to refuse every publish).
    let id = publish_at(root, "2026-11-20T05:00:00Z", "after the future line");
    assert!(ledger_lines(root).last().unwrap().contains(&id));
    publish_at(root, "2026-11-20T06:00:00Z", "and another");
    // Judged from the lines around it, even once its date has passed: the odd one out is
    // the future-dated line, not the writers' lines after it.
    let (code, out, _) = cli(root, &["--json", "--now", "2028-01-01T00:00:00Z", "verify"]);
    assert_eq!(code, 1, "{out}");
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(kinds(&r), vec!["future-dated"], "{r}");
    assert_eq!(r["violations"][0]["line"], 4);
}
