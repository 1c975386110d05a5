//! Moving a ledger between backends through the real binary: `db import` keeps every byte
//! (legacy quirks and corrupt lines included), is idempotent and resumable, refuses a
//! database holding another ledger; `db export` gives the file back byte for byte; and
//! the auditor's commands answer the same on either backend.

use crate::common;

use std::path::{Path, PathBuf};

use common::pg::{db_export, server};
use common::{cli, cli_env};
use serde_json::Value;

fn fixture_ledgers() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    vec![
        root.join(".agents/ledger.jsonl"),
        root.join("tests/fixtures/ostwin/project/.agents/memory/ledger.jsonl"),
    ]
}

fn import(root: &Path, file: &Path) -> (i32, Value, String) {
    let (code, out, err) = cli(root, &["--json", "db", "import", file.to_str().unwrap()]);
    let reports: Value = serde_json::from_str(&out).unwrap_or(Value::Null);
    (code, reports[0].clone(), err)
}

/// Copies the example project's `.agents/` into `to`.
fn copy_example(to: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(".agents");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(&from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn import_then_export_is_byte_identical_idempotent_and_resumable() {
    for file in fixture_ledgers() {
        let original = std::fs::read(&file).unwrap();
        let n = original.iter().filter(|&&b| b == b'\n').count() as u64;
        let (dir, _) = server().project();
        let root = dir.path();
        let (code, r, err) = import(root, &file);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            (r["already"].as_u64(), r["imported"].as_u64()),
            (Some(0), Some(n))
        );
        assert_eq!(db_export(root), original, "{}", file.display());
        // Again: nothing new.
        let (code, r, _) = import(root, &file);
        assert_eq!(code, 0);
        assert_eq!(
            (r["already"].as_u64(), r["imported"].as_u64()),
            (Some(n), Some(0))
        );
        assert_eq!(db_export(root), original);

        // Interrupted after half the lines: the second run resumes.
        let (dir2, _) = server().project();
        let half: Vec<u8> = original
            .split_inclusive(|&b| b == b'\n')
            .take(n as usize / 2)
            .flatten()
            .copied()
            .collect();
        let prefix = dir2.path().join("prefix.jsonl");
        std::fs::write(&prefix, &half).unwrap();
        assert_eq!(import(dir2.path(), &prefix).0, 0);
        let (code, r, _) = import(dir2.path(), &file);
        assert_eq!(code, 0);
        assert_eq!(r["already"].as_u64(), Some(n / 2));
        assert_eq!(r["imported"].as_u64(), Some(n - n / 2));
        assert_eq!(db_export(dir2.path()), original);

        // A database holding another ledger is refused, and left as it was.
        let other = dir2.path().join("other.jsonl");
        let mut changed = original.clone();
        let at = changed.iter().position(|&b| b == b'"').unwrap();
        changed.insert(at, b' ');
        std::fs::write(&other, &changed).unwrap();
        let (code, _, err) = import(dir2.path(), &other);
        assert_eq!(code, 2);
        assert!(
            err.contains("line 1 differs") && err.contains("nothing was imported"),
            "{err}"
        );
        assert_eq!(db_export(dir2.path()), original);

        // The export against the original: no violation.
        let exported = dir2.path().join("export.jsonl");
        std::fs::write(&exported, db_export(dir2.path())).unwrap();
        let (code, out, _) = cli(
            root,
            &["diff", file.to_str().unwrap(), exported.to_str().unwrap()],
        );
        assert_eq!(code, 0, "{out}");
        assert!(
            out.contains("0 added") && out.contains("0 violations"),
            "{out}"
        );
    }
}

/// The example project on files, and the same project moved into a database by
/// `db import` (whose files are then deleted, so only the database can answer).
fn both_projects() -> (tempfile::TempDir, tempfile::TempDir) {
    let files = tempfile::tempdir().unwrap();
    copy_example(files.path());
    let (db, url) = server().project();
    std::fs::remove_dir_all(db.path().join(".agents")).unwrap();
    copy_example(db.path());
    std::fs::write(
        db.path().join(".agents/warroom.yaml"),
        format!("ledger: \"{url}\"\n"),
    )
    .unwrap();
    let (code, out, err) = cli(db.path(), &["--json", "db", "import"]);
    assert_eq!(code, 0, "{err}");
    let reports: Value = serde_json::from_str(&out).unwrap();
    let streams: Vec<&str> = reports
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["stream"].as_str().unwrap())
        .collect();
    assert_eq!(
        streams,
        [
            "plans",
            "ledger",
            "channel:room-001",
            "channel:room-002",
            "channel:room-003"
        ]
    );
    // Again: nothing new anywhere.
    let (code, out, _) = cli(db.path(), &["--json", "db", "import"]);
    assert_eq!(code, 0);
    let again: Value = serde_json::from_str(&out).unwrap();
    assert!(
        again.as_array().unwrap().iter().all(|r| r["imported"] == 0),
        "{again}"
    );
    std::fs::remove_file(db.path().join(".agents/ledger.jsonl")).unwrap();
    std::fs::remove_dir_all(db.path().join(".agents/plan")).unwrap();
    for room in ["room-001", "room-002", "room-003"] {
        std::fs::remove_file(
            db.path()
                .join(format!(".agents/war-rooms/{room}/channel.jsonl")),
        )
        .unwrap();
    }
    (files, db)
}

/// Runs `args` on both projects; returns both outputs.
fn on_both(projects: &(tempfile::TempDir, tempfile::TempDir), args: &[&str]) -> (String, String) {
    let env = [("WARROOM_NOW", "2026-11-26T00:00:00Z")];
    let (c1, a, e1) = cli_env(projects.0.path(), args, &env);
    let (c2, b, e2) = cli_env(projects.1.path(), args, &env);
    assert_eq!(c1, c2, "{args:?}: {e1} / {e2}");
    (a, b)
}

#[test]
fn auditors_get_the_same_answers_on_both_backends() {
    let projects = both_projects();
    for args in [
        &["--json", "log", "--include-superseded"][..],
        &["log", "--include-superseded"],
        &["--json", "history", "--room", "*"],
        &[
            "--json",
            "diff",
            "--since",
            "2026-01-01",
            "--until",
            "2026-11-26",
        ],
        &["--json", "search", "--room", "*", "checkout payment"],
        &["context", "room-003"],
        &["--json", "plan", "show"],
        &["--json", "channel", "read", "--room", "room-002"],
    ] {
        let (a, b) = on_both(&projects, args);
        assert!(!a.trim().is_empty(), "{args:?}");
        assert_eq!(a, b, "{args:?}");
    }
    // verify: the same report but for the name of what was read.
    let (a, b) = on_both(&projects, &["--json", "verify"]);
    let (mut a, mut b): (Value, Value) = (
        serde_json::from_str(&a).unwrap(),
        serde_json::from_str(&b).unwrap(),
    );
    assert!(
        b["file"].as_str().unwrap().starts_with("postgres://"),
        "{b}"
    );
    a["file"] = Value::Null;
    b["file"] = Value::Null;
    // Each project's brief above left a receipt of its own (its own id, time and head):
    // both are counted and checked alike.
    for v in [&mut a, &mut b] {
        let r = &v["receipts"];
        v["receipts"] =
            serde_json::json!({"receipts": r["receipts"], "violations": r["violations"]});
    }
    assert_eq!(a["receipts"]["receipts"], 1, "{a}");
    assert_eq!(a, b);
}

#[test]
fn db_commands_explain_a_missing_or_bad_database_and_never_show_a_password() {
    let dir = common::project();
    let (code, _, err) = cli(dir.path(), &["db", "status"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no database is configured") && err.contains("--database-url"),
        "{err}"
    );
    let url = "postgresql://someone:s3cret-pass@127.0.0.1:1/nowhere";
    let (code, out, err) = cli_env(
        dir.path(),
        &["db", "status"],
        &[("WARROOM_DATABASE_URL", url)],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("postgres://someone@127.0.0.1:1/nowhere"),
        "{err}"
    );
    assert!(!err.contains("s3cret") && !out.contains("s3cret"), "{err}");
    let (code, out, err) = cli_env(
        dir.path(),
        &["search", "x"],
        &[("WARROOM_DATABASE_URL", url)],
    );
    assert_eq!(code, 2);
    assert!(!err.contains("s3cret") && !out.contains("s3cret"), "{err}");
    let (_, help, _) = cli_env(dir.path(), &["--help"], &[("WARROOM_DATABASE_URL", url)]);
    assert!(
        help.contains("--database-url") && !help.contains("s3cret"),
        "{help}"
    );
    let (code, _, err) = cli_env(
        dir.path(),
        &["db", "status"],
        &[("WARROOM_DATABASE_URL", "postgres://x:y@/db?port=notaport")],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("--database-url / WARROOM_DATABASE_URL") && !err.contains(":y@"),
        "{err}"
    );
    // Status of a real one.
    let (db, _) = server().project();
    common::cli_publish_as(
        db.path(),
        None,
        ("decision", "room-001", "engineer"),
        "Use argon2id",
        &[],
    );
    let (code, out, err) = cli(db.path(), &["--json", "db", "status"]);
    assert_eq!(code, 0, "{err}");
    let s: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["ledger_lines"], 1);
    assert_eq!(s["schema_version"], 3);
}
