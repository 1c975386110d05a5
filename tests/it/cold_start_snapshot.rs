//! The cold-start snapshot through the real binary: a restart reads it (and only the
//! lines after it), and no snapshot — stale, corrupt, forged, or kept under a key others
//! can read — ever changes an answer: every case answers exactly like a start without
//! snapshots.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::json;

const NOW: &str = "2026-11-26T12:00:00Z";
const WORDS: [&str; 10] = [
    "cache", "retry", "budget", "token", "auth", "queue", "schema", "deploy", "index", "login",
];

/// A ledger of `n` entries: 8 rooms, every kind, tags, some details, supersedes, one
/// duplicate id and one malformed line.
fn write_ledger(root: &Path, n: usize) -> PathBuf {
    let mut lines = Vec::new();
    for i in 0..n {
        let kinds = [
            "decision",
            "interface",
            "convention",
            "warning",
            "artifact",
            "code",
        ];
        let mut e = json!({
            "id": format!("e{i:04}"),
            "ts": format!("2026-11-{:02}T{:02}:00:00Z", 1 + i / 24 % 25, i % 24),
            "kind": kinds[i % 6],
            "room_id": format!("room-{}", i % 8),
            "author_role": "engineer",
            "ref": format!("EPIC-{}", i % 8),
            "tags": [WORDS[i % 10], WORDS[(i / 10) % 10]],
            "summary": format!("{} {} for part {i}", WORDS[(i * 7) % 10], WORDS[(i * 3) % 10]),
        });
        if i % 3 == 0 {
            e["detail"] = json!(format!(
                "why: {} then {}",
                WORDS[i % 10],
                WORDS[(i + 4) % 10]
            ));
        }
        if i % 17 == 5 && i > 20 {
            e["supersedes"] = json!(format!("e{:04}", i - 9));
        }
        lines.push(e.to_string());
    }
    lines.push("{not json".into());
    lines.push(
        json!({"id": "e0001", "ts": NOW, "kind": "decision", "room_id": "room-1",
        "author_role": "qa", "ref": "", "tags": [], "summary": "duplicate id"})
        .to_string(),
    );
    let path = common::ledger(root);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// Runs `args` with snapshots in `dir` (or off) from 50 entries up; (stdout, stderr).
fn run(root: &Path, dir: Option<&Path>, args: &[&str]) -> (String, String) {
    let d = dir.map_or("off".to_string(), |d| d.display().to_string());
    let mut all = vec!["--now", NOW, "--json"];
    all.extend(args);
    let (code, out, err) = common::cli_env(
        root,
        &all,
        &[
            ("WARROOM_SNAPSHOT_DIR", &d),
            ("WARROOM_SNAPSHOT_MIN_ENTRIES", "50"),
            ("WARROOM_LOG", "info"),
        ],
    );
    assert!(code == 0 || code == 1, "{args:?}: {err}");
    (out, err)
}

/// The answers the checks compare: search, filtered query, context, full log, one get.
fn answers(root: &Path, dir: Option<&Path>) -> (Vec<String>, String) {
    let calls: [&[&str]; 6] = [
        &["search", "cache retry", "--room", "*"],
        &["search", "deploy token"],
        &["query", "--kind", "warning", "--room", "room-3"],
        &["context", "room-5"],
        &["log", "--include-superseded", "--room", "*", "--last", "50"],
        &["get", "e0030"],
    ];
    let mut logs = String::new();
    let outs = calls
        .iter()
        .map(|a| {
            let (out, err) = run(root, dir, a);
            logs.push_str(&err);
            without_receipt(out)
        })
        .collect();
    (outs, logs)
}

/// A brief's answer without its receipt's id: every brief served gets a new receipt, the
/// brief itself must be the same.
fn without_receipt(out: String) -> String {
    match serde_json::from_str::<serde_json::Value>(&out) {
        Ok(serde_json::Value::Object(mut m)) if m.contains_key("receipt") => {
            m.remove("receipt");
            serde_json::to_string_pretty(&m).unwrap()
        }
        _ => out,
    }
}

fn snapshot_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "snapshot"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_restart_reads_the_snapshot_and_answers_like_a_full_read() {
    let root = common::project();
    let cache = tempfile::tempdir().unwrap();
    write_ledger(root.path(), 400);
    let (reference, _) = answers(root.path(), None);
    // First start writes the snapshot; later ones read it.
    let (first, _) = answers(root.path(), Some(cache.path()));
    assert_eq!(first, reference);
    assert_eq!(snapshot_files(cache.path()).len(), 1);
    let (again, logs) = answers(root.path(), Some(cache.path()));
    assert_eq!(again, reference);
    assert!(logs.contains("index read from the snapshot"), "{logs}");
    // Lines appended after the snapshot are read from the ledger on top of it.
    common::cli_publish_as(
        root.path(),
        Some(NOW),
        ("warning", "room-3", "qa"),
        "cache retry storms after deploy",
        &[],
    );
    let (reference, _) = answers(root.path(), None);
    let (after, logs) = answers(root.path(), Some(cache.path()));
    assert_eq!(after, reference);
    assert!(logs.contains("index read from the snapshot"), "{logs}");
    assert!(after[2].contains("cache retry storms"), "{}", after[2]);
}

/// Prepares a project with a snapshot, applies `spoil`, and checks that every answer is
/// the one a start without snapshots gives, and that the first start says why it did not
/// use the snapshot.
fn never_changes_an_answer(spoil: impl Fn(&Path, &Path), why: &str) {
    let root = common::project();
    let cache = tempfile::tempdir().unwrap();
    write_ledger(root.path(), 300);
    answers(root.path(), Some(cache.path()));
    assert_eq!(snapshot_files(cache.path()).len(), 1);
    spoil(root.path(), cache.path());
    let (reference, _) = answers(root.path(), None);
    let (got, logs) = answers(root.path(), Some(cache.path()));
    assert_eq!(got, reference);
    // The first start rejects it (and writes a good one, which later starts read).
    let rejected = logs.find(why);
    assert!(rejected.is_some(), "expected `{why}` in:\n{logs}");
    let used = logs
        .find("index read from the snapshot")
        .unwrap_or(usize::MAX);
    assert!(rejected < Some(used), "{logs}");
}

#[test]
fn a_corrupt_snapshot_is_ignored() {
    never_changes_an_answer(
        |_, cache| {
            let f = &snapshot_files(cache)[0];
            let mut b = std::fs::read(f).unwrap();
            let mid = b.len() / 2;
            b[mid] ^= 0x40;
            std::fs::write(f, b).unwrap();
        },
        "MAC mismatch",
    );
}

#[test]
fn a_forged_snapshot_is_ignored() {
    // A snapshot made under another key (as anyone without ours would have to), of a
    // ledger whose text differs, copied over ours.
    never_changes_an_answer(
        |root, cache| {
            let other_root = common::project();
            let other_cache = tempfile::tempdir().unwrap();
            let text = std::fs::read_to_string(common::ledger(root)).unwrap();
            let ledger = common::ledger(other_root.path());
            std::fs::create_dir_all(ledger.parent().unwrap()).unwrap();
            std::fs::write(&ledger, text.replace("cache", "CACHE")).unwrap();
            answers(other_root.path(), Some(other_cache.path()));
            let forged = std::fs::read(&snapshot_files(other_cache.path())[0]).unwrap();
            std::fs::write(&snapshot_files(cache)[0], forged).unwrap();
        },
        "MAC mismatch",
    );
}

#[test]
fn a_ledger_edited_in_place_is_read_again() {
    // Same length: only the hash of the covered bytes tells.
    never_changes_an_answer(
        |root, _| {
            let path = common::ledger(root);
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, text.replacen("cache", "cachE", 3)).unwrap();
        },
        "ledger bytes differ",
    );
}

#[test]
fn a_shorter_ledger_is_read_again() {
    never_changes_an_answer(
        |root, _| {
            let path = common::ledger(root);
            let text = std::fs::read_to_string(&path).unwrap();
            let keep: Vec<&str> = text.lines().take(200).collect();
            // Rewritten through the same inode, so only the length tells.
            std::fs::write(&path, keep.join("\n") + "\n").unwrap();
        },
        "shorter than the snapshot covers",
    );
}

#[test]
fn a_key_others_can_read_is_not_trusted() {
    use std::os::unix::fs::PermissionsExt;
    never_changes_an_answer(
        |_, cache| {
            let key = cache.join("key");
            std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
        },
        "readable by others",
    );
}

/// Red-team finding 4: a snapshot directory another user owns or can write is not
/// trusted (there the key could be swapped for a link to predictable bytes and a forged
/// snapshot made to change answers); nor is a key that is a link.
#[test]
fn a_snapshot_directory_others_control_is_not_trusted() {
    use std::os::unix::fs::PermissionsExt;
    never_changes_an_answer(
        |_, cache| {
            std::fs::set_permissions(cache, std::fs::Permissions::from_mode(0o777)).unwrap();
        },
        "writable by other users",
    );
    never_changes_an_answer(
        |_, cache| {
            let key = cache.join("key");
            let predictable = cache.join("predictable");
            std::fs::write(&predictable, [0u8; 32]).unwrap();
            std::fs::set_permissions(&predictable, std::fs::Permissions::from_mode(0o600)).unwrap();
            std::fs::remove_file(&key).unwrap();
            std::os::unix::fs::symlink(&predictable, &key).unwrap();
        },
        "Too many levels of symbolic links",
    );
    // Owned by another account (nobody), mode 0777, as the red team found it. Only root
    // can give a directory away; CI runs as root.
    if warroom_memory::fsx::current_uid() == 0 {
        never_changes_an_answer(
            |_, cache| {
                std::os::unix::fs::chown(cache, Some(65534), Some(65534)).unwrap();
                std::fs::set_permissions(cache, std::fs::Permissions::from_mode(0o777)).unwrap();
            },
            "owned by another user",
        );
    }
}

/// Through a running MCP server: a line edited in place in the middle of a ledger (same
/// length, so neither the size nor the first and last bytes the tail remembers change) is
/// an error naming the line when its text is asked for — never the edited text shown as
/// if it were the indexed entry.
#[tokio::test]
async fn an_entry_edited_in_place_under_a_running_server_is_an_error_not_an_answer() {
    let root = common::project();
    let path = write_ledger(root.path(), 300);
    let a = common::agent(root.path()).now(NOW).start().await;
    let before = a.ok("memory_get", json!({"id": "e0150"})).await;
    let summary = before["entry"]["summary"].as_str().unwrap().to_string();
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text.lines().nth(150).unwrap();
    assert!(line.contains(&summary), "{line}");
    let edited = line.replacen(&summary, &summary.to_uppercase(), 1);
    assert_eq!(edited.len(), line.len());
    std::fs::write(&path, text.replacen(line, &edited, 1)).unwrap();
    let e = a.err("memory_get", json!({"id": "e0150"})).await;
    assert!(e.contains("line 151"), "{e}");
    assert!(e.contains("changed since it was read"), "{e}");
    assert!(!e.contains(&summary.to_uppercase()), "{e}");
    // Entries on other lines are still served.
    let other = a.ok("memory_get", json!({"id": "e0010"})).await;
    assert_eq!(other["entry"]["id"], "e0010");
    a.stop().await;
}

/// The first read of a ledger with no snapshot reports its progress on stderr (a line
/// that rewrites itself on a terminal after ~2 s; every step with
/// `WARROOM_PROGRESS=always`), never on stdout; a restart from the snapshot reads only the
/// lines after it and reports nothing.
#[test]
fn a_first_read_reports_its_progress_on_stderr_only() {
    let p = common::project();
    let root = p.path();
    write_ledger(root, 3000);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let env = [
        ("WARROOM_SNAPSHOT_DIR", d.as_str()),
        ("WARROOM_SNAPSHOT_MIN_ENTRIES", "50"),
        ("WARROOM_PROGRESS", "always"),
    ];
    let (code, out, err) = common::cli_env(root, &["--json", "log", "--last", "1"], &env);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<serde_json::Value>(&out).expect("stdout is only the JSON");
    assert!(err.contains("reading the ledger: 0 of"), "{err}");
    let steps = err.lines().filter(|l| l.ends_with("%)")).count();
    assert!(
        (90..=101).contains(&steps),
        "about every 1 %: {steps}\n{err}"
    );
    assert!(err.contains("(99 %)") && err.contains("MB in"), "{err}");
    // Not a terminal and not asked for: silent.
    let quiet = [
        ("WARROOM_SNAPSHOT_DIR", d.as_str()),
        ("WARROOM_SNAPSHOT_MIN_ENTRIES", "50"),
    ];
    std::fs::remove_dir_all(dir.path()).unwrap();
    std::fs::create_dir_all(dir.path()).unwrap();
    let (_, _, err) = common::cli_env(root, &["log", "--last", "1"], &quiet);
    assert!(!err.contains("reading the ledger"), "{err}");
    // A restart from the snapshot written just now is no first read.
    let (_, _, err) = common::cli_env(root, &["log", "--last", "1"], &env);
    assert!(!err.contains("reading the ledger"), "{err}");
}
