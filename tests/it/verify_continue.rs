//! `verify --continue` on the command line: the verification is kept between
//! runs (in the snapshot directory, authenticated) and continued over the lines appended
//! since — through the real binary, its report equal to a full `verify`'s; every tamper
//! of the new lines found at once; a line changed inside the verified prefix found only
//! by a full pass (as documented); a changed end of the prefix, a damaged kept file or
//! none at all mean a full pass, with the reason said. Also with the ledger in
//! PostgreSQL.

use crate::common;

use std::path::Path;

use common::{cli_env, example_project, ledger};
use serde_json::Value;

/// `--json verify` (with `--continue` when `cont`) with the snapshot directory `snap`.
fn verify(root: &Path, snap: &Path, cont: bool) -> (i32, Value) {
    let mut args = vec!["--json", "verify"];
    if cont {
        args.push("--continue");
    }
    let (code, out, err) = cli_env(
        root,
        &args,
        &[("WARROOM_SNAPSHOT_DIR", snap.to_str().unwrap())],
    );
    assert!(code == 0 || code == 1, "{err}");
    (code, serde_json::from_str(&out).unwrap())
}

/// What a continued report must share with a full one.
fn facts(v: &Value) -> Value {
    serde_json::json!([
        v["lines"],
        v["entries"],
        v["superseded"],
        v["bytes"],
        v["chain"],
        v["violations"],
        v["receipts"]
    ])
}

fn publish(root: &Path, summary: &str) {
    common::cli_publish_as(root, None, ("decision", "room-9", "engineer"), summary, &[]);
}

#[test]
fn verify_continue_reads_only_new_lines_and_says_when_it_cannot() {
    let p = example_project();
    let root = p.path();
    let snap = tempfile::tempdir().unwrap();
    let snap = snap.path();

    // Nothing kept yet: a full pass, kept.
    let (code, first) = verify(root, snap, true);
    assert_eq!(code, 0, "{first}");
    let c = &first["continuation"];
    assert_eq!(c["continued"], false);
    assert!(
        c["full_because"]
            .as_str()
            .unwrap()
            .contains("no verification"),
        "{c}"
    );
    assert!(c.get("not_kept").is_none(), "{c}");

    // New lines: only they are read, and the report is a full pass's.
    for i in 0..3 {
        publish(root, &format!("kept decision {i}"));
    }
    let (code, cont) = verify(root, snap, true);
    assert_eq!(code, 0, "{cont}");
    assert_eq!(cont["continuation"]["continued"], true, "{cont}");
    assert_eq!(cont["continuation"]["lines_read"], 3);
    assert_eq!(facts(&cont), facts(&verify(root, snap, false).1));

    // A line changed inside the verified prefix, same length: a continuation does not
    // read it (the limitation `--continue` documents); a full pass finds it.
    let text = std::fs::read_to_string(ledger(root)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let target = lines[lines.len() - 2];
    let changed = target.replacen("kept decision 1", "kept decision X", 1);
    assert_eq!(changed.len(), target.len());
    let inner = text.replacen(target, &changed, 1);
    std::fs::write(ledger(root), &inner).unwrap();
    let (code, cont) = verify(root, snap, true);
    assert_eq!(
        (code, cont["continuation"]["continued"].clone()),
        (0, Value::Bool(true))
    );
    let (code, full) = verify(root, snap, false);
    assert_eq!(code, 1, "a full pass sees the change: {full}");

    // The end of the verified prefix changed (its last line removed): a full pass, and
    // the reason said.
    let shorter: String = inner
        .lines()
        .take(lines.len() - 1)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(ledger(root), &shorter).unwrap();
    let (code, cont) = verify(root, snap, true);
    assert_eq!(cont["continuation"]["continued"], false);
    assert!(
        cont["continuation"]["full_because"]
            .as_str()
            .unwrap()
            .contains("end of the verified prefix"),
        "{cont}"
    );
    let (full_code, full) = verify(root, snap, false);
    assert_eq!((code, facts(&cont)), (full_code, facts(&full)));

    // A damaged kept file is refused: a full pass.
    let kept: Vec<_> = std::fs::read_dir(snap)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "verify"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let mut bytes = std::fs::read(&kept[0]).unwrap();
    bytes[20] ^= 1;
    std::fs::write(&kept[0], bytes).unwrap();
    let (_, cont) = verify(root, snap, true);
    assert_eq!(cont["continuation"]["continued"], false);
    assert!(
        cont["continuation"]["full_because"]
            .as_str()
            .unwrap()
            .contains("MAC"),
        "{cont}"
    );

    // Tampered new lines are all found at once, as a full pass finds them.
    let mut more = std::fs::read_to_string(ledger(root)).unwrap();
    more.push_str("not json\n");
    std::fs::write(ledger(root), &more).unwrap();
    let (code, cont) = verify(root, snap, true);
    assert_eq!(code, 1);
    assert_eq!(cont["continuation"]["continued"], true, "{cont}");
    assert_eq!(cont["continuation"]["lines_read"], 1);
    let full = verify(root, snap, false).1;
    assert_eq!(facts(&cont), facts(&full));
    assert!(
        full["violations"].to_string().contains("malformed-json"),
        "{full}"
    );

    // Not with a file named, nor without a snapshot directory.
    let (code, _, err) = common::cli(root, &["verify", "--continue", "x.jsonl"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = cli_env(
        root,
        &["verify", "--continue"],
        &[("WARROOM_SNAPSHOT_DIR", "off")],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("snapshot directory") && err.contains("Fix"),
        "{err}"
    );
}

#[test]
fn verify_continue_with_the_ledger_in_postgresql() {
    let (p, _url) = common::pg::server().project();
    let root = p.path();
    let snap = tempfile::tempdir().unwrap();
    let snap = snap.path();
    publish(root, "before");
    let (code, first) = verify(root, snap, true);
    assert_eq!(code, 0, "{first}");
    assert_eq!(first["continuation"]["continued"], false);
    publish(root, "after one");
    publish(root, "after two");
    let (code, cont) = verify(root, snap, true);
    assert_eq!(code, 0, "{cont}");
    assert_eq!(cont["continuation"]["continued"], true, "{cont}");
    assert_eq!(cont["continuation"]["lines_read"], 2);
    assert_eq!(facts(&cont), facts(&verify(root, snap, false).1));
}
