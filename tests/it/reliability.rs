//! Reliability through the real binary: many concurrent processes, kill -9 mid-stream,
//! crashes inside an append, a full disk, shutdown with requests in flight.

use crate::common;

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};

fn ids_of_lines(text: &str) -> (Vec<String>, usize) {
    let mut ids = Vec::new();
    let mut bad = 0;
    for l in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Value>(l) {
            Ok(v) => ids.push(v["id"].as_str().unwrap().to_string()),
            Err(_) => bad += 1,
        }
    }
    (ids, bad)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_processes_publish_and_post_2000_each_without_loss() {
    let p = project();
    let root = p.path();
    let mut agents = Vec::new();
    for i in 0..8 {
        agents.push(
            agent(root)
                .room("room-shared")
                .role(&format!("eng-{i}"))
                .start()
                .await,
        );
    }
    let per = 250;
    let tasks = agents.iter().enumerate().map(|(i, a)| async move {
        let mut acked = (Vec::new(), Vec::new());
        for n in 0..per {
            let e = a
                .ok(
                    "memory_publish",
                    json!({"kind": "code", "summary": format!("p{i} n{n}"), "tags": ["load"]}),
                )
                .await;
            acked.0.push(e["entry"]["id"].as_str().unwrap().to_string());
            let m = a
                .ok(
                    "channel_post",
                    json!({"type": "review", "body": format!("p{i} message {n}")}),
                )
                .await;
            acked
                .1
                .push(m["message"]["id"].as_str().unwrap().to_string());
            if n % 25 == 0 {
                a.ok(
                    "memory_query",
                    json!({"room_id": "*", "tags": ["load"], "last_n": 5}),
                )
                .await;
                a.ok("channel_read", json!({"last_n": 5})).await;
            }
        }
        acked
    });
    let acked: Vec<(Vec<String>, Vec<String>)> = futures::future::join_all(tasks).await;
    for (file, which) in [
        (ledger(root), 0),
        (root.join(".agents/war-rooms/room-shared/channel.jsonl"), 1),
    ] {
        let text = std::fs::read_to_string(&file).unwrap();
        let (ids, bad) = ids_of_lines(&text);
        assert_eq!(bad, 0, "every line of {} is valid", file.display());
        assert_eq!(ids.len(), 8 * per);
        let unique: HashSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), 8 * per, "no duplicates in {}", file.display());
        for a in &acked {
            let mine = if which == 0 { &a.0 } else { &a.1 };
            assert!(
                mine.iter().all(|id| unique.contains(id)),
                "every acknowledged write is present"
            );
        }
    }
    for a in &agents {
        let q = a
            .ok("memory_query", json!({"room_id": "*", "last_n": 1}))
            .await;
        assert_eq!(q["total"], 8 * per);
        let c = a.ok("channel_read", json!({"last_n": 1})).await;
        assert_eq!(c["total"], 8 * per);
    }
    let (code, out, _) = cli(root, &["verify"]);
    assert_eq!(code, 0, "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill9_and_crashes_inside_appends_lose_nothing_acknowledged() {
    let p = project();
    let root = p.path();
    let mut acked: Vec<String> = Vec::new();
    let mut tears = 0;
    for round in 0..6u64 {
        // Odd rounds crash inside an append (a torn write); even rounds are killed -9.
        let tear = round % 2 == 1;
        let mut spawn = agent(root)
            .room("room-1")
            .role("engineer")
            .env("WARROOM_LOG", "warn");
        if tear {
            spawn = spawn.env(
                "WARROOM_FAULT_CRASH_AFTER_BYTES",
                &(2_000 + round * 137).to_string(),
            );
        }
        let a = spawn.start().await;
        let killer = async {
            tokio::time::sleep(Duration::from_millis(60 + round * 20)).await;
            if !tear {
                a.kill9();
            }
        };
        let writer = async {
            let mut mine = Vec::new();
            for n in 0..100_000 {
                let args = json!({"kind": "decision", "summary": format!("round {round} entry {n} {}", "x".repeat(40))});
                let Value::Object(map) = args else {
                    unreachable!()
                };
                match a
                    .client
                    .call_tool(
                        rmcp::model::CallToolRequestParams::new("memory_publish")
                            .with_arguments(map),
                    )
                    .await
                {
                    Ok(r) if r.is_error != Some(true) => mine.push(
                        r.structured_content.unwrap()["entry"]["id"]
                            .as_str()
                            .unwrap()
                            .to_string(),
                    ),
                    _ => break,
                }
            }
            mine
        };
        let (mine, ()) = tokio::join!(writer, killer);
        acked.extend(mine);
        if tear {
            tears += 1;
        }
    }
    assert!(
        acked.len() >= 6,
        "the writers got going before the crashes: {}",
        acked.len()
    );
    // A fresh process serves everything acknowledged and reports the torn lines.
    let reader = agent(root).room("room-2").start().await;
    let q = reader
        .ok("memory_query", json!({"room_id": "*", "last_n": 1}))
        .await;
    let text = std::fs::read_to_string(ledger(root)).unwrap();
    let (ids, bad) = ids_of_lines(&text);
    assert_eq!(q["total"].as_u64().unwrap() as usize, ids.len());
    assert_eq!(
        bad, tears,
        "exactly one torn fragment per crash inside an append, never glued"
    );
    let present: HashSet<&String> = ids.iter().collect();
    assert_eq!(present.len(), ids.len(), "no duplicates");
    for id in &acked {
        assert!(present.contains(id), "acknowledged {id} was lost");
    }
    for line in text.lines() {
        assert!(line.matches("\"id\":").count() <= 1, "a glued line: {line}");
    }
    // Three crashes inside an append left three torn fragments (checked above): each is
    // reported by the server that reads past it, and named by verify.
    assert!(
        reader.stderr().contains("malformed line"),
        "the torn line is reported"
    );
    let (code, out, _) = cli(root, &["verify"]);
    assert_eq!(code, 1);
    assert!(out.contains("malformed-json"), "{out}");
}

#[tokio::test]
async fn a_full_disk_is_a_clear_tool_error_and_leaves_the_file_valid() {
    let p = project();
    let a = agent(p.path())
        .room("room-1")
        .role("engineer")
        .env("WARROOM_FAULT_APPEND_AFTER_BYTES", "1000")
        .start()
        .await;
    let mut ok = 0;
    let mut error = String::new();
    for n in 0..20 {
        let r = a
            .call(
                "memory_publish",
                json!({"kind": "code", "summary": format!("snippet {n} {}", "y".repeat(100))}),
            )
            .await;
        if r.is_error == Some(true) {
            error = text(&r);
            break;
        }
        ok += 1;
    }
    assert!((1..20).contains(&ok), "{ok}");
    assert!(
        error.contains("No space left on device") && error.contains("nothing was written"),
        "{error}"
    );
    let again = a
        .err(
            "memory_publish",
            json!({"kind": "code", "summary": "after"}),
        )
        .await;
    assert!(again.contains("No space left"), "{again}");
    let lines = ledger_lines(p.path());
    assert_eq!(
        lines.len(),
        ok,
        "exactly the successful publishes are in the file"
    );
    let (code, out, _) = cli(p.path(), &["verify"]);
    assert_eq!(code, 0, "{out}");
    // The server is still serving.
    assert_eq!(
        a.ok("memory_query", json!({"room_id": "*"})).await["total"],
        ok
    );
}

/// A raw JSON-RPC session with `serve`, to control stdin and signals exactly.
struct Raw {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Raw {
    fn start(root: &std::path::Path) -> Raw {
        let mut child = Command::new(BIN)
            .args(["serve", "--root"])
            .arg(root)
            .env("WARROOM_ROOM_ID", "room-1")
            .env("WARROOM_ROLE", "engineer")
            .env("WARROOM_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut raw = Raw { child, out };
        raw.send(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}).to_string());
        let init = raw.read();
        assert!(init["result"]["serverInfo"].is_object(), "{init}");
        raw.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string());
        raw
    }
    fn send(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }
    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or(Value::Null)
    }
    fn publish_request(id: u64) -> String {
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"memory_publish","arguments":{"kind":"decision","summary":format!("in flight {id}")}}}).to_string()
    }
    fn wait(mut self) -> Option<i32> {
        for _ in 0..100 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        None
    }
}

impl Raw {
    /// Every answer left on stdout until the server closes it: the ids of the publishes
    /// it acknowledged.
    fn acknowledged(&mut self) -> Vec<String> {
        let mut acked = Vec::new();
        loop {
            let mut line = String::new();
            if self.out.read_line(&mut line).unwrap_or(0) == 0 {
                return acked;
            }
            let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if let Some(id) = v["result"]["structuredContent"]["entry"]["id"].as_str() {
                acked.push(id.to_string());
            }
        }
    }
}

/// The entry ids in the ledger, each line checked to be a whole entry.
fn ledger_ids(root: &std::path::Path) -> Vec<String> {
    ledger_lines(root)
        .iter()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("no partial line");
            v["id"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn closing_stdin_or_sigterm_finishes_in_flight_appends_and_exits_cleanly() {
    let p = project();
    let mut raw = Raw::start(p.path());
    raw.send(&Raw::publish_request(1));
    drop(raw.child.stdin.take()); // the client disappears with the request in flight
    let acked = raw.acknowledged();
    assert_eq!(raw.wait(), Some(0), "stdin closed: exit 0");
    // The in-flight publish either ran to the end and was acknowledged, or was never
    // written: what is on disk is exactly what was acknowledged.
    assert_eq!(ledger_ids(p.path()), acked, "stdin closed");

    let mut raw = Raw::start(p.path());
    raw.send(&Raw::publish_request(2));
    let first = raw.read();
    let two = first["result"]["structuredContent"]["entry"]["id"]
        .as_str()
        .expect("request 2 acknowledged")
        .to_string();
    raw.send(&Raw::publish_request(3));
    let _ = Command::new("kill")
        .args(["-TERM", &raw.child.id().to_string()])
        .status();
    let mut later = raw.acknowledged();
    assert_eq!(raw.wait(), Some(0), "SIGTERM: exit 0");
    let mut expected = acked.clone();
    expected.push(two);
    expected.append(&mut later);
    assert_eq!(ledger_ids(p.path()), expected, "SIGTERM");
    let (code, out, _) = cli(p.path(), &["verify"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn huge_and_deeply_nested_messages_are_refused_without_exhausting_memory() {
    let p = project();
    let mut raw = Raw::start(p.path());
    let big = "z".repeat(6 * 1024 * 1024);
    raw.send(&json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_publish","arguments":{"kind":"code","summary":big}}}).to_string());
    let nested = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{{\"name\":\"memory_query\",\"arguments\":{{\"tags\":{}{}}}}}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    raw.send(&nested);
    raw.send(&json!({"jsonrpc":"2.0","id":9,"method":"tools/list"}).to_string());
    // Responses to the refused messages, if any, come first; the server must answer 9.
    let mut answered = false;
    for _ in 0..5 {
        let v = raw.read();
        if v["id"] == 9 {
            answered = v["result"]["tools"].is_array();
            break;
        }
    }
    assert!(answered, "the server keeps serving after hostile messages");
    let status = std::fs::read_to_string(format!("/proc/{}/status", raw.child.id())).unwrap();
    let hwm_kb: u64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(hwm_kb < 64 * 1024, "peak memory {hwm_kb} kB");
    assert!(
        ledger_lines(p.path()).is_empty(),
        "nothing from the oversized message was written"
    );
    drop(raw.child.stdin.take());
    assert_eq!(raw.wait(), Some(0));
}

#[tokio::test]
async fn secrets_are_redacted_or_refused_and_never_reach_disk() {
    let p = project();
    let a = agent(p.path())
        .room("room-1")
        .role("engineer")
        .start()
        .await;
    let aws = "AKIAIOSFODNN7EXAMPLE";
    let pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----";
    let out = a.ok("memory_publish", json!({"kind": "warning", "summary": format!("deploy key {aws} is in CI"), "detail": format!("key:\n{pem}\npassword=hunter2!")})).await;
    assert_eq!(
        out["redacted"],
        json!(["aws-access-key", "private-key", "password"])
    );
    assert!(
        out["entry"]["summary"]
            .as_str()
            .unwrap()
            .contains("[REDACTED:aws-access-key]")
    );
    let m = a
        .ok(
            "channel_post",
            json!({"type": "task", "body": "use token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"}),
        )
        .await;
    assert_eq!(m["redacted"], json!(["github-pat"]));
    let disk = std::fs::read_to_string(ledger(p.path())).unwrap()
        + &std::fs::read_to_string(p.path().join(".agents/war-rooms/room-1/channel.jsonl"))
            .unwrap();
    for secret in [
        aws,
        "b3BlbnNzaC1rZXktdjEAAAAA",
        "hunter2",
        "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d",
    ] {
        assert!(!disk.contains(secret), "{secret} reached disk");
    }
    let strict = agent(p.path())
        .room("room-1")
        .role("engineer")
        .env("WARROOM_SECRETS", "refuse")
        .start()
        .await;
    let before = ledger_lines(p.path()).len();
    let e = strict
        .err(
            "memory_publish",
            json!({"kind": "code", "summary": format!("export AWS_ACCESS_KEY_ID={aws}")}),
        )
        .await;
    assert!(
        e.contains("aws-access-key") && e.contains("never stored"),
        "{e}"
    );
    let channel = p.path().join(".agents/war-rooms/room-1/channel.jsonl");
    let channel_before = std::fs::read_to_string(&channel).unwrap();
    let e = strict
        .err(
            "channel_post",
            json!({"type": "task", "body": "client_secret=abc123xyz"}),
        )
        .await;
    assert!(e.contains("never stored"), "{e}");
    assert_eq!(ledger_lines(p.path()).len(), before);
    let channel_after = std::fs::read_to_string(&channel).unwrap();
    assert_eq!(
        channel_after, channel_before,
        "the refused post wrote nothing"
    );
    assert!(!channel_after.contains("abc123xyz"));
}

#[tokio::test]
async fn symlinks_out_of_the_project_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    let p = project();
    let rooms = p.path().join(".agents/war-rooms");
    std::fs::create_dir_all(&rooms).unwrap();
    std::os::unix::fs::symlink(outside.path(), rooms.join("room-evil")).unwrap();
    let a = agent(p.path())
        .room("room-evil")
        .role("engineer")
        .start()
        .await;
    let e = a
        .err("channel_post", json!({"type": "task", "body": "hello"}))
        .await;
    assert!(e.contains("outside the project root"), "{e}");
    a.err("channel_read", json!({})).await;
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        0,
        "nothing written outside"
    );

    let q = project();
    let target = outside.path().join("elsewhere.jsonl");
    std::fs::write(&target, "").unwrap();
    std::os::unix::fs::symlink(&target, ledger(q.path())).unwrap();
    let (code, _, err) = cli(q.path(), &["query"]);
    assert_eq!(code, 2);
    assert!(err.contains("outside the project root"), "{err}");
    // Configured explicitly, the same location is accepted.
    let (code, _, err) = cli(q.path(), &["--ledger", target.to_str().unwrap(), "query"]);
    assert_eq!(code, 1, "nothing found, but no error: {err}");
}
