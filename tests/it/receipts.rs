//! Context receipts through the real binary: every brief served — over stdio,
//! through the daemon's relay, over HTTP, by the CLI — leaves one receipt with the asking
//! session's identity; a receipt replays byte for byte after later publishes and a
//! supersede of an included entry; a tampered receipts file is reported by `verify`;
//! concurrent briefs leave every receipt exactly once; the same on PostgreSQL.

use crate::common;

use std::path::Path;

use common::daemon::*;
use common::*;
use serde_json::{Value, json};

/// A plan of three rooms (room-b depends on room-a) with a few entries.
fn planned_project() -> tempfile::TempDir {
    let p = project();
    std::fs::create_dir_all(p.path().join(".agents/plan")).unwrap();
    std::fs::write(
        p.path().join(".agents/plan/shop.json"),
        json!({"plan_id": "shop", "title": "shop", "epics": [
            {"ref": "E1", "room_id": "room-a", "brief_keywords": ["auth"]},
            {"ref": "E2", "room_id": "room-b", "depends_on": ["E1"], "brief_keywords": ["catalog", "auth"]},
            {"ref": "E3", "room_id": "room-c"}]})
        .to_string(),
    )
    .unwrap();
    for (kind, summary) in [
        ("interface", "Catalog calls authenticate with require_user"),
        ("decision", "Sessions last 24 hours, refreshed on use"),
        (
            "warning",
            "The auth service rate limits logins to 5 per minute",
        ),
    ] {
        cli_publish_as(p.path(), None, (kind, "room-a", "architect"), summary, &[]);
    }
    p
}

fn receipts(root: &Path) -> Vec<Value> {
    let (code, out, err) = cli(root, &["--json", "receipts", "--last", "1000"]);
    assert!(code == 0 || code == 1, "{err}");
    serde_json::from_str::<Value>(&out)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn replay(root: &Path, id: &str) -> (i32, Value) {
    let (code, out, err) = cli(root, &["--json", "context", "--replay", id]);
    assert!(code == 0 || code == 1, "{err}");
    (code, serde_json::from_str(&out).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn briefs_over_stdio_the_relay_http_and_the_cli_each_leave_one_receipt() {
    let p = planned_project();
    let root = p.path();
    // Direct stdio.
    let direct = agent(root)
        .room("room-b")
        .role("manager")
        .env("WARROOM_DAEMON", "off")
        .start()
        .await;
    let r1 = direct.ok("memory_get_context", json!({})).await;
    // Through the daemon's relay, and over HTTP with an agent token.
    let rt = tempfile::tempdir().unwrap();
    let _d = start_daemon(root, rt.path());
    let relayed = attached(root, rt.path(), "room-c").await;
    let r2 = relayed.ok("memory_get_context", json!({})).await;
    let (_, token) = issue_token(root, rt.path(), "room-b", "qa");
    let r3 = {
        use rmcp::ServiceExt;
        let client =
            ().serve(http_transport(&url_of(root, rt.path()), &token, None, None))
                .await
                .unwrap();
        let r = client
            .call_tool(rmcp::model::CallToolRequestParams::new(
                "memory_get_context",
            ))
            .await
            .unwrap();
        client.cancel().await.unwrap();
        r.structured_content.unwrap()
    };
    // The CLI (an operator).
    let (code, out, err) = cli(root, &["--json", "context", "room-b"]);
    assert_eq!(code, 0, "{err}");
    let r4: Value = serde_json::from_str(&out).unwrap();
    let list = receipts(root);
    assert_eq!(list.len(), 4, "{list:?}");
    let by = |r: &Value| (r["by"]["room"].clone(), r["by"]["role"].clone());
    for (result, room, role) in [
        (&r1, json!("room-b"), json!("manager")),
        (&r2, json!("room-c"), json!("engineer")),
        (&r3, json!("room-b"), json!("qa")),
        (&r4, Value::Null, Value::Null),
    ] {
        let id = result["receipt"].as_str().expect("a receipt id");
        let found: Vec<&Value> = list.iter().filter(|r| r["id"] == id).collect();
        assert_eq!(found.len(), 1, "{id}: exactly once");
        assert_eq!(by(found[0]), (room, role));
        // The receipt holds ids and hashes: the result's, not its text.
        assert_eq!(found[0]["bytes"], result["bytes"]);
        assert_eq!(
            found[0]["included"].as_array().unwrap().len(),
            result["entry_ids"].as_array().unwrap().len()
        );
        let line = std::fs::read_to_string(root.join(".agents/receipts.jsonl")).unwrap();
        assert!(!line.contains("require_user"), "no entry text in receipts");
    }
    // room-b's brief says why: its upstream room-a's entries matched its keywords, in
    // room-a's first share (docs/brief.md).
    assert_eq!(r1["included"][0]["reason"], "near-1-match");
    assert_eq!(r1["included"][0]["distance"], 1);
    assert_eq!(r1["included"][0]["matched"], json!(["catalog"]));
}

#[test]
fn a_receipt_replays_byte_for_byte_after_later_writes() {
    let p = planned_project();
    let root = p.path();
    let (code, out, err) = cli_env(
        root,
        &["--json", "context"],
        &[("WARROOM_ROOM_ID", "room-b"), ("WARROOM_ROLE", "manager")],
    );
    assert_eq!(code, 0, "{err}");
    let first: Value = serde_json::from_str(&out).unwrap();
    let id = first["receipt"].as_str().unwrap().to_string();
    let included = first["entry_ids"][0].as_str().unwrap().to_string();
    // Later: more entries, a supersede of an included entry, a new done message.
    cli_publish_as(
        root,
        None,
        ("decision", "room-a", "architect"),
        "Sessions last 12 hours now; auth tokens rotate",
        &["--supersedes", &included],
    );
    cli_publish_as(
        root,
        None,
        ("interface", "room-a", "architect"),
        "Auth exposes /auth/whoami",
        &[],
    );
    let (code, _, err) = cli(
        root,
        &[
            "channel", "post", "--room", "room-a", "--from", "engineer", "--type", "done",
            "--body", "E1 done",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, r) = replay(root, &id);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["identical"], true);
    assert_eq!(r["sha256"], r["receipt"]["sha256"]);
    assert_eq!(
        r["markdown"].as_str().unwrap().len() as u64,
        first["bytes"].as_u64().unwrap()
    );
    assert_eq!(r["markdown"], first["markdown"]);
    // Today's brief is another one, and replays too.
    let (_, out, _) = cli_env(
        root,
        &["--json", "context"],
        &[("WARROOM_ROOM_ID", "room-b"), ("WARROOM_ROLE", "manager")],
    );
    let today: Value = serde_json::from_str(&out).unwrap();
    assert_ne!(today["markdown"], first["markdown"]);
    assert_eq!(replay(root, today["receipt"].as_str().unwrap()).0, 0);
    // An unknown receipt is an error naming it.
    let (code, _, err) = cli(root, &["context", "--replay", "rcpt-nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no receipt `rcpt-nope`"), "{err}");
    // A rewritten ledger line before the receipt's position: the replay says so, exit 1.
    let ledger = common::ledger(root);
    let text = std::fs::read_to_string(&ledger).unwrap();
    std::fs::write(&ledger, text.replacen("24 hours", "48 hours", 1)).unwrap();
    let (code, r) = replay(root, &id);
    assert_eq!(code, 1, "{r}");
    assert_eq!(r["identical"], false);
    assert!(
        r["differences"]
            .to_string()
            .contains("not those the brief read"),
        "{r}"
    );
}

#[test]
fn a_tampered_receipts_file_is_reported_by_verify() {
    let p = planned_project();
    let root = p.path();
    // Three different briefs (the same brief asked again is recorded once).
    for args in [
        &["context", "room-b"][..],
        &["context", "room-c"],
        &["context", "room-b", "--keyword", "auth"],
    ] {
        assert_eq!(cli(root, args).0, 0);
    }
    let (code, out, _) = cli(root, &["--json", "verify"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["receipts"]["receipts"], 3);
    let file = root.join(".agents/receipts.jsonl");
    let lines: Vec<String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    // An edited receipt (another room), and separately a removed one.
    let edited = lines[0].replacen("\"room-b\"", "\"room-x\"", 1);
    std::fs::write(
        &file,
        [edited, lines[1].clone(), lines[2].clone()].join("\n") + "\n",
    )
    .unwrap();
    let (code, out, _) = cli(root, &["--json", "verify"]);
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["receipts"]["violations"][0]["kind"], "broken-link", "{v}");
    std::fs::write(
        &file,
        [lines[0].clone(), lines[2].clone()].join("\n") + "\n",
    )
    .unwrap();
    let (code, out, _) = cli(root, &["verify"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("receipts line 2 [broken-link]"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_briefs_leave_every_receipt_exactly_once() {
    let p = planned_project();
    let root = p.path();
    let mut agents = Vec::new();
    for i in 0..8 {
        agents.push(
            agent(root)
                .room(if i % 2 == 0 { "room-b" } else { "room-c" })
                .role(&format!("agent-{i}"))
                .env("WARROOM_DAEMON", "off")
                .start()
                .await,
        );
    }
    let ids = futures::future::join_all(agents.iter().map(|a| async move {
        let mut ids = Vec::new();
        // Five different briefs each (the same brief asked again is recorded once).
        for k in 0..5 {
            let r = a
                .ok(
                    "memory_get_context",
                    json!({"brief_keywords": [format!("auth{k}")]}),
                )
                .await;
            ids.push(r["receipt"].as_str().unwrap().to_string());
        }
        ids
    }))
    .await
    .concat();
    let list = receipts(root);
    assert_eq!(list.len(), 40);
    let mut stored: Vec<String> = list
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    let mut acked = ids.clone();
    stored.sort();
    acked.sort();
    assert_eq!(
        stored, acked,
        "every acknowledged receipt once, nothing else"
    );
    let (code, out, _) = cli(root, &["verify"]);
    assert_eq!(
        code, 0,
        "the receipts' chain holds under concurrency: {out}"
    );
}

#[test]
fn receipts_on_postgresql_are_the_same() {
    let p = planned_project();
    let root = p.path();
    let url = std::thread::spawn(|| common::pg::server().fresh_db())
        .join()
        .unwrap();
    std::fs::write(
        root.join(".agents/warroom.yaml"),
        format!("ledger: \"{url}\"\n"),
    )
    .unwrap();
    assert_eq!(cli(root, &["db", "import"]).0, 0);
    let (code, out, err) = cli(root, &["--json", "context", "room-b"]);
    assert_eq!(code, 0, "{err}");
    let first: Value = serde_json::from_str(&out).unwrap();
    let id = first["receipt"].as_str().unwrap().to_string();
    assert!(
        !root.join(".agents/receipts.jsonl").exists(),
        "kept in the database"
    );
    cli_publish_as(
        root,
        None,
        ("warning", "room-a", "architect"),
        "Auth tokens now expire hourly",
        &[],
    );
    let (code, r) = replay(root, &id);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["identical"], true);
    assert_eq!(receipts(root).len(), 1);
    let (code, out, _) = cli(root, &["--json", "verify"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["receipts"]["receipts"], 1);
    // Append-only, enforced by the database.
    let mut c = common::pg::PgServer::client(&url);
    let e = c
        .batch_execute("UPDATE receipt_lines SET line = 'x'")
        .unwrap_err();
    let said = e
        .as_db_error()
        .map(|d| d.message().to_string())
        .unwrap_or_default();
    assert!(said.contains("append-only"), "{e:?}");
}

/// A secret among an agent's brief keywords never reaches the receipts file (redacted
/// there, in the brief and on the console's receipt page), or the call is refused under
/// `secrets: refuse`; the receipts file is no more readable than the ledger.
#[test]
fn a_secret_among_brief_keywords_never_reaches_receipts() {
    use std::os::unix::fs::PermissionsExt;
    let p = planned_project();
    let root = p.path();
    let ledger = common::ledger(root);
    std::fs::set_permissions(&ledger, std::fs::Permissions::from_mode(0o600)).unwrap();
    let secret = "ghp_Zq8xW3vN5mK2pL7rT9yB4cD6fH1jA0sE3gU5";
    let as_b = [("WARROOM_ROOM_ID", "room-b"), ("WARROOM_ROLE", "manager")];
    let (code, out, err) = cli_env(
        root,
        &[
            "--json",
            "context",
            "--keyword",
            "auth",
            "--keyword",
            secret,
        ],
        &as_b,
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(!out.contains(secret), "the brief shows no secret: {out}");
    let file = root.join(".agents/receipts.jsonl");
    let stored = std::fs::read_to_string(&file).unwrap();
    assert!(
        !stored.contains(secret),
        "receipts hold no secret: {stored}"
    );
    assert!(
        stored.contains("[REDACTED:"),
        "the keyword is redacted: {stored}"
    );
    let kept: Value = serde_json::from_str(stored.lines().last().unwrap()).unwrap();
    assert_eq!(
        kept["args"]["brief_keywords"][0], "auth",
        "only the secret's own word is redacted: {kept}"
    );
    // Words that are no secret stay as they were, whatever stands beside them: a keyword
    // no language spells, and a topic next to an AWS key; two lists that differ in such a
    // word make two receipts.
    let key = "AKIAZ3MHJK7LQPN4XR2T";
    let mut receipts = Vec::new();
    for kw in [["kw12x345", "sessions"], ["checkout", key], ["cart", key]] {
        let (code, out, err) = cli_env(
            root,
            &["--json", "context", "--keyword", kw[0], "--keyword", kw[1]],
            &as_b,
        );
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        receipts.push(v["receipt"].as_str().unwrap().to_string());
        let line = std::fs::read_to_string(&file).unwrap();
        let last: Value = serde_json::from_str(line.lines().last().unwrap()).unwrap();
        assert_eq!(last["args"]["brief_keywords"][0], kw[0], "{last}");
        assert!(!line.contains(key), "{line}");
    }
    receipts.dedup();
    assert_eq!(receipts.len(), 3, "{receipts:?}");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "receipts get the ledger's mode, not {mode:o}");
    // The replay of that receipt, with redacted keywords, is still byte-identical.
    let (code, r) = replay(root, v["receipt"].as_str().unwrap());
    assert_eq!(code, 0, "{r}");
    // Refused under `secrets: refuse`, naming the field; nothing written.
    let before = std::fs::read_to_string(&file).unwrap();
    let (code, _, err) = cli_env(
        root,
        &["context", "--keyword", secret],
        &[as_b[0], as_b[1], ("WARROOM_SECRETS", "refuse")],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("brief_keywords[0]"), "{err}");
    assert!(!err.contains(secret), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
}

/// A recorded receipts head is checked by `verify --receipts-head`: truncation, a
/// rewrite and a whole re-chained file are caught; `context --replay` compares the whole
/// receipt (who, when, arguments) and checks its line in the chain.
#[test]
fn a_recorded_receipts_head_catches_truncation_rewrites_and_rechains() {
    let p = planned_project();
    let root = p.path();
    let as_b = [("WARROOM_ROOM_ID", "room-b"), ("WARROOM_ROLE", "manager")];
    for _ in 0..3 {
        assert_eq!(cli_env(root, &["context"], &as_b).0, 0);
    }
    let (code, out, _) = cli(root, &["--json", "verify"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let head = v["receipts"]["head"].as_str().unwrap().to_string();
    let (code, out, _) = cli(root, &["verify", "--receipts-head", &head]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("recorded receipts head"), "{out}");
    // More receipts later: the recorded head is still vouched for.
    assert_eq!(cli_env(root, &["context"], &as_b).0, 0);
    assert_eq!(cli(root, &["verify", "--receipts-head", &head]).0, 0);

    let file = root.join(".agents/receipts.jsonl");
    let original = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = original.lines().collect();
    let head_kind = |text: &str| -> Vec<String> {
        std::fs::write(&file, text).unwrap();
        let (code, out, _) = cli(root, &["--json", "verify", "--receipts-head", &head]);
        assert_eq!(code, 1, "{out}");
        let v: Value = serde_json::from_str(&out).unwrap();
        v["receipts"]["violations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["kind"].as_str().unwrap().to_string())
            .collect()
    };
    // Truncated back before the recorded head: the head is gone.
    let kinds = head_kind(&(lines[..2].join("\n") + "\n"));
    assert!(kinds.contains(&"head-missing".to_string()), "{kinds:?}");
    // The whole file removed.
    let kinds = head_kind("");
    assert!(kinds.contains(&"head-missing".to_string()), "{kinds:?}");
    // Rewritten and re-chained (every link recomputed, so the chain alone is intact):
    // the recorded head is in no line.
    let rechained = rechain(&lines, |i, l| {
        if i == 0 {
            l.replacen("\"room-b\",\"role\"", "\"room-c\",\"role\"", 1)
        } else {
            l.to_string()
        }
    });
    std::fs::write(&file, &rechained).unwrap();
    assert_eq!(
        cli(root, &["verify"]).0,
        0,
        "a re-chained file passes without a head"
    );
    let kinds = head_kind(&rechained);
    assert!(kinds.contains(&"head-missing".to_string()), "{kinds:?}");

    // The replay compares the whole receipt. Who: a re-chained receipt claiming an agent
    // of another room asked is caught even without a head; with the head, any rewrite is.
    let first: Value = serde_json::from_str(lines[0]).unwrap();
    let id = first["id"].as_str().unwrap();
    std::fs::write(&file, &rechained).unwrap();
    let (code, r) = replay(root, id);
    assert_eq!(code, 1, "{r}");
    assert!(
        r["differences"]
            .to_string()
            .contains("briefed only for its own room"),
        "{r}"
    );
    // When: a receipt dated before the ledger lines it read.
    let backdated = rechain(&lines, |i, l| {
        if i == 0 {
            let v: Value = serde_json::from_str(l).unwrap();
            l.replacen(v["ts"].as_str().unwrap(), "2001-01-01T00:00:00Z", 1)
        } else {
            l.to_string()
        }
    });
    std::fs::write(&file, &backdated).unwrap();
    let (code, r) = replay(root, id);
    assert_eq!(code, 1, "{r}");
    assert!(
        r["differences"]
            .to_string()
            .contains("before the last ledger line"),
        "{r}"
    );
    // Arguments: keywords that are not those asked.
    let reasked = rechain(&lines, |i, l| {
        if i == 0 {
            l.replacen("\"max_entries\":null", "\"max_entries\":3", 1)
        } else {
            l.to_string()
        }
    });
    std::fs::write(&file, &reasked).unwrap();
    let (code, r) = replay(root, id);
    assert_eq!(code, 1, "{r}");
    assert!(r["differences"].to_string().contains("entry limit"), "{r}");
    // An edit without re-chaining breaks the next line's link: the replay says so.
    let edited: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.replacen("\"manager\"", "\"qa\"", 1)
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&file, edited.join("\n") + "\n").unwrap();
    let (code, r) = replay(root, id);
    assert_eq!(code, 1, "{r}");
    assert!(r["differences"].to_string().contains("broken-link"), "{r}");
    // The last receipt edited and re-chained: only the recorded head tells.
    std::fs::write(&file, &original).unwrap();
    let last: Value = serde_json::from_str(lines[lines.len() - 1]).unwrap();
    let last_id = last["id"].as_str().unwrap();
    let n = lines.len();
    let rewritten = rechain(&lines, |i, l| {
        if i == n - 1 {
            l.replacen("\"manager\"", "\"qa\"", 1)
        } else {
            l.to_string()
        }
    });
    std::fs::write(&file, &rewritten).unwrap();
    let new_head = {
        let (_, out, _) = cli(root, &["--json", "verify"]);
        let v: Value = serde_json::from_str(&out).unwrap();
        v["receipts"]["head"].as_str().unwrap().to_string()
    };
    let (code, out, err) = cli(
        root,
        &[
            "--json",
            "context",
            "--replay",
            last_id,
            "--receipts-head",
            &new_head,
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let recorded_before = {
        std::fs::write(&file, &original).unwrap();
        let (_, out, _) = cli(root, &["--json", "verify"]);
        let v: Value = serde_json::from_str(&out).unwrap();
        std::fs::write(&file, &rewritten).unwrap();
        v["receipts"]["head"].as_str().unwrap().to_string()
    };
    let (code, out, _) = cli(
        root,
        &[
            "--json",
            "context",
            "--replay",
            last_id,
            "--receipts-head",
            &recorded_before,
        ],
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("head-missing"), "{out}");
}

/// The lines, each changed by `f(index, line)`, chained again from the start exactly as
/// the writer does (what an attacker with write access can do).
fn rechain(lines: &[&str], f: impl Fn(usize, &str) -> String) -> String {
    let mut prev = warroom_memory::chain::GENESIS.to_string();
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        let mut v: Value = serde_json::from_str(&f(i, l)).unwrap();
        v.as_object_mut().unwrap().remove("prev");
        let bare = serde_json::to_string(&v).unwrap();
        let sealed = warroom_memory::chain::seal(&bare, &prev);
        prev = warroom_memory::chain::hex(&warroom_memory::chain::link_of(sealed.as_bytes()));
        out.push_str(&sealed);
        out.push('\n');
    }
    out
}

/// What one asker can make the server write is bounded: the same brief asked again at the
/// same ledger position is recorded once (the call returns that receipt), and new
/// receipts are capped per asker in any 60 seconds (`receipts_per_minute`; a sliding
/// window, so a burst across a minute's boundary is not twice the cap).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_asker_cannot_make_receipts_grow_without_bound() {
    let p = planned_project();
    let root = p.path();
    std::fs::write(
        root.join(".agents/warroom.yaml"),
        "receipts_per_minute: 3\n",
    )
    .unwrap();
    let file = root.join(".agents/receipts.jsonl");
    let clock = common::scenario_clock(root, "2027-01-20T10:00:59Z");
    let manager = agent(root)
        .room("room-b")
        .role("manager")
        .env("WARROOM_DAEMON", "off")
        .env("WARROOM_NOW_FILE", &clock.display().to_string())
        .start()
        .await;
    let mut ids = Vec::new();
    for _ in 0..5 {
        let v = manager
            .ok("memory_get_context", json!({"brief_keywords": ["auth"]}))
            .await;
        ids.push(v["receipt"].as_str().unwrap().to_string());
    }
    ids.dedup();
    assert_eq!(ids.len(), 1, "the same brief five times: one receipt");
    assert_eq!(std::fs::read_to_string(&file).unwrap().lines().count(), 1);
    assert_eq!(replay(root, &ids[0]).0, 0);
    // Two more different briefs fit the cap of 3 a minute; the fourth is refused, and
    // nothing is written for it.
    for k in ["catalog", "sessions"] {
        manager
            .ok("memory_get_context", json!({"brief_keywords": [k]}))
            .await;
    }
    let before = std::fs::read_to_string(&file).unwrap();
    let err = manager
        .err("memory_get_context", json!({"brief_keywords": ["tokens"]}))
        .await;
    assert!(err.contains("receipts_per_minute"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    // A second later the clock's minute has turned, but the last 60 s still hold three.
    common::scenario_clock(root, "2027-01-20T10:01:00Z");
    let err = manager
        .err("memory_get_context", json!({"brief_keywords": ["tokens"]}))
        .await;
    assert!(err.contains("receipts_per_minute"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    // Sixty seconds after those three, new briefs are admitted again.
    common::scenario_clock(root, "2027-01-20T10:01:59Z");
    manager
        .ok("memory_get_context", json!({"brief_keywords": ["tokens"]}))
        .await;
    // Listing reads through the index: the newest first, as many as asked.
    let (code, out, _) = cli(
        root,
        &["--json", "receipts", "--room", "room-b", "--last", "2"],
    );
    assert_eq!(code, 0);
    let list: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 2);
    assert_eq!(list[1]["keywords"], json!(["tokens"]));
}
