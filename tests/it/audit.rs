//! Auditor tools through the real binary: verify, diff (files, git, time), log, history,
//! memory_get chains, memory_diff — on fixture ledgers, with snapshots of the outputs.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::{Value, json};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/audit")
        .join(name)
        .display()
        .to_string()
}

/// Runs the CLI from the manifest dir so fixture paths in outputs are stable.
fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("WARROOM_ROOM_ID")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const FIX: &str = "tests/fixtures/audit";

#[test]
fn verify_reports_each_violation_with_exit_codes() {
    let (code, out, _) = run(&["verify", &format!("{FIX}/clean.jsonl")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("OK"));
    let (code, out, _) = run(&["verify", &format!("{FIX}/superseded.jsonl")]);
    assert_eq!(code, 0);
    assert!(out.contains("5 entries (1 superseded)"), "{out}");

    let (code, out, _) = run(&["verify", &format!("{FIX}/torn.jsonl")]);
    assert_eq!(code, 1);
    assert!(out.contains("line 4 (byte 734) [torn-tail]"), "{out}");
    assert_snapshot("verify-torn.txt", &out);

    let (code, out, _) = run(&["verify", &format!("{FIX}/broken.jsonl")]);
    assert_eq!(code, 1);
    for want in [
        "line 3 (byte 513) [duplicate-id]",
        "line 4 (byte 756) [dangling-supersede]",
        "line 6 (byte 1091) [double-supersede]",
        "[supersede-cycle]",
        "line 9 (byte 1591) [schema]",
        "line 10 (byte 1670) [schema]",
        "line 11 (byte 1741) [malformed-json]",
    ] {
        assert!(out.contains(want), "verify reports `{want}`:\n{out}");
    }
    assert_snapshot("verify-broken.txt", &out);
    let (code, json_out, _) = run(&["--json", "verify", &format!("{FIX}/broken.jsonl")]);
    assert_eq!(code, 1);
    assert_snapshot("verify-broken.json", &json_out);
    let v: Value = serde_json::from_str(&json_out).unwrap();
    assert_eq!(v["violations"].as_array().unwrap().len(), 8);

    let (code, _, err) = run(&["verify", "/nonexistent/ledger.jsonl"]);
    assert_eq!(code, 2, "could not run");
    assert!(err.contains("/nonexistent/ledger.jsonl"), "{err}");
}

#[test]
fn diff_of_files_shows_additions_supersedes_and_violations() {
    let (code, out, _) = run(&[
        "diff",
        &format!("{FIX}/clean.jsonl"),
        &format!("{FIX}/superseded.jsonl"),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("2 added · 1 superseded · 0 violations"),
        "{out}"
    );
    assert!(
        out.contains("-Hash passwords with bcrypt (cost 12).")
            && out.contains("+Hash passwords with argon2id"),
        "{out}"
    );
    assert!(
        out.contains("+bcrypt truncates inputs at 72 bytes."),
        "detail diff: {out}"
    );
    assert!(out.contains("room-042 · convention (1)"), "{out}");
    assert_snapshot("diff-superseded.txt", &out);

    let (code, out, _) = run(&[
        "diff",
        &format!("{FIX}/superseded.jsonl"),
        &format!("{FIX}/edited.jsonl"),
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("line 2 (byte 270) id mem-02: changed"),
        "{out}"
    );
    assert!(
        out.contains("0 added"),
        "the edited line is not an addition: {out}"
    );
    assert_snapshot("diff-edited.txt", &out);

    let (code, out, _) = run(&[
        "diff",
        &format!("{FIX}/superseded.jsonl"),
        &format!("{FIX}/deleted.jsonl"),
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("line 2 (byte 270) id mem-02: missing from B"),
        "{out}"
    );

    let (code, out, _) = run(&[
        "--json",
        "diff",
        &format!("{FIX}/superseded.jsonl"),
        &format!("{FIX}/deleted.jsonl"),
    ]);
    assert_eq!(code, 1);
    assert_snapshot("diff-deleted.json", &out);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["violations"][0]["kind"], "missing");
    assert_eq!(v["violations"][0]["line"], 2);

    // A torn tail is a malformed addition, not a violation; its repair is not one either.
    let (code, out, _) = run(&[
        "diff",
        &format!("{FIX}/clean.jsonl"),
        &format!("{FIX}/torn.jsonl"),
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("1 malformed additions") && out.contains("line 4 (byte 734)"),
        "{out}"
    );
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn diff_git_of_a_union_merged_two_branch_history_has_no_violations() {
    let p = project();
    let root = p.path();
    let ledger_path: PathBuf = ledger(root);
    std::fs::copy(fixture("clean.jsonl"), &ledger_path).unwrap();
    std::fs::write(
        root.join(".gitattributes"),
        ".agents/ledger.jsonl merge=union\n",
    )
    .unwrap();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "base"]);
    let base = git(root, &["rev-parse", "HEAD"]);
    git(root, &["checkout", "-qb", "left"]);
    cli_at(
        root,
        "2026-11-22T00:00:00Z",
        &[
            "publish",
            "--kind",
            "decision",
            "--summary",
            "left branch decision",
            "--room",
            "room-1",
            "--role",
            "architect",
        ],
    );
    git(root, &["commit", "-qam", "left"]);
    git(root, &["checkout", "-q", "main"]);
    cli_at(
        root,
        "2026-11-22T00:00:01Z",
        &[
            "publish",
            "--kind",
            "warning",
            "--summary",
            "right branch warning",
            "--room",
            "room-2",
            "--role",
            "qa",
        ],
    );
    git(root, &["commit", "-qam", "right"]);
    git(root, &["merge", "-q", "--no-edit", "left"]);

    let (code, out, err) = cli(root, &["--json", "diff", "--git", &format!("{base}..HEAD")]);
    assert_eq!(code, 0, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["counts"]["added"], 2, "{v}");
    assert_eq!(v["counts"]["violations"], 0);
    let (code, out, _) = cli(root, &["verify"]);
    assert_eq!(code, 0, "{out}");

    // Rewrite a past line in the working tree: `REV..` compares against it.
    let text = std::fs::read_to_string(&ledger_path)
        .unwrap()
        .replace("bcrypt (cost 12)", "bcrypt (cost 10)");
    std::fs::write(&ledger_path, text).unwrap();
    let (code, out, _) = cli(root, &["diff", "--git", "HEAD.."]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("id mem-01: changed"), "{out}");
    let (code, _, err) = cli(root, &["diff", "--git=--upload-pack=evil..HEAD"]);
    assert_eq!(code, 2);
    assert!(err.contains("revision"), "{err}");
}

#[tokio::test]
async fn memory_diff_history_and_log_over_mcp() {
    let p = project();
    let root = p.path();
    let early = agent(root)
        .room("room-038")
        .role("architect")
        .now("2026-11-20T00:00:00Z")
        .start()
        .await;
    let bcrypt = publish(
        &early,
        "decision",
        "Hash passwords with bcrypt",
        json!({"ref": "EPIC-007"}),
    )
    .await;
    early.stop().await;
    let later = agent(root)
        .room("room-038")
        .role("architect")
        .now("2026-11-22T00:00:00Z")
        .start()
        .await;
    let argon = publish(
        &later,
        "decision",
        "Hash passwords with argon2id",
        json!({"ref": "EPIC-007", "supersedes": bcrypt["id"]}),
    )
    .await;
    publish(
        &later,
        "warning",
        "Rehash on next login",
        json!({"ref": "EPIC-007"}),
    )
    .await;
    publish(
        &later,
        "artifact",
        "migration 0007 adds hash_algo column",
        json!({"ref": "EPIC-008"}),
    )
    .await;

    let auditor = agent(root).now("2026-11-23T00:00:00Z").start().await;
    let d = auditor
        .ok("memory_diff", json!({"since": "2026-11-21"}))
        .await;
    assert_eq!(d["counts"]["added"], 3);
    assert_eq!(d["counts"]["superseded"], 1);
    assert_eq!(d["append_only"], true);
    let types: Vec<&str> = d["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, vec!["superseded", "added", "added"]);
    assert!(
        d["changes"][0]["summary_diff"]
            .as_str()
            .unwrap()
            .contains("+Hash passwords with argon2id")
    );
    let page = auditor
        .ok(
            "memory_diff",
            json!({"since": "2026-11-21", "limit": 1, "offset": 1}),
        )
        .await;
    assert_eq!(page["changes"].as_array().unwrap().len(), 1);
    assert_eq!(page["next_offset"], 2);
    let e = auditor.err("memory_diff", json!({})).await;
    assert!(e.contains("since") && e.contains("git_from"), "{e}");

    let h = auditor
        .ok("memory_history", json!({"ref": "EPIC-007"}))
        .await;
    let hs = h["entries"].as_array().unwrap();
    assert_eq!(hs.len(), 3);
    assert_eq!(hs[0]["entry"]["id"], bcrypt["id"]);
    assert_eq!(hs[0]["live"], false);
    assert_eq!(hs[0]["superseded_by"], argon["id"]);
    let e = auditor.err("memory_history", json!({})).await;
    assert!(e.contains("`ref`"), "{e}");

    let (code, out, _) = cli(root, &["log", "--include-superseded", "--ref", "EPIC-007"]);
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!("SUPERSEDED by {}", argon["id"].as_str().unwrap())),
        "{out}"
    );
    let (_, out, _) = cli(root, &["--json", "log", "--ref", "EPIC-007"]);
    let ids: Vec<String> = serde_json::from_str::<Value>(&out).unwrap()["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["entry"]["id"].as_str().unwrap().to_string())
        .collect();
    assert!(
        !ids.contains(&bcrypt["id"].as_str().unwrap().to_string()),
        "live only by default: {ids:?}"
    );
    assert_eq!(ids.len(), 2);
    let (code, out, _) = cli(root, &["--json", "history", "--room", "room-038"]);
    assert_eq!(code, 0);
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["total"], 4);
}
