//! What a hostile or unlucky environment used to break (issue: no hangs, no quadratic
//! paths, no escapes): each case through the real binary, bounded in time.

use crate::common;

use common::*;

const HOSTILE: &str = "clear\u{1b}[2J\u{1b}]0;pwned\u{7} and \u{202e}txt.exe\r over";

#[test]
fn control_characters_never_reach_the_auditors_terminal_raw() {
    let p = project();
    let root = p.path();
    cli_publish_as(
        root,
        None,
        ("decision", "room-1", "eng"),
        HOSTILE,
        &["--detail", HOSTILE, "--tag", "x"],
    );
    let raw = |s: &str| {
        s.chars()
            .any(|c| matches!(c, '\u{1b}' | '\u{7}' | '\r' | '\u{202e}'))
    };
    for args in [
        vec!["query", "--room", "*"],
        vec!["log"],
        vec!["search", "clear", "--room", "*"],
        vec!["history", "--room", "room-1"],
        vec!["diff", "--since", "2000-01-01", "--color", "never"],
    ] {
        let (code, out, err) = cli(root, &args);
        assert!(code == 0 || code == 1, "{args:?}: {err}");
        assert!(
            !raw(&out),
            "{args:?} printed control characters raw: {out:?}"
        );
        assert!(
            out.contains("\\u{1b}[2J"),
            "{args:?} shows them escaped: {out}"
        );
    }
    // With colour, only our own codes are raw: the entry's are still escaped.
    let (_, out, _) = cli(
        root,
        &["diff", "--since", "2000-01-01", "--color", "always"],
    );
    assert!(out.contains("\u{1b}[1m"), "our colours: {out:?}");
    assert!(
        !out.contains("\u{1b}[2J") && !out.contains('\u{202e}'),
        "{out:?}"
    );
    // Machines get the bytes as they are, in JSON.
    let (_, out, _) = cli(root, &["--json", "query", "--room", "*"]);
    assert!(out.contains("\\u001b[2J"), "{out}");
}

#[test]
fn verify_names_a_line_the_server_cannot_serve() {
    let p = project();
    let root = p.path();
    let pad = "x".repeat(17 * 1024 * 1024);
    let line = format!(
        r#"{{"id":"mem-big","ts":"2026-11-20T00:00:00Z","kind":"decision","room_id":"room-1","author_role":"eng","ref":"","tags":[],"summary":"big","detail":"","supersedes":null,"pad":"{pad}"}}"#
    );
    std::fs::write(ledger(root), format!("{line}\n")).unwrap();
    let (code, out, err) = cli(root, &["--json", "verify"]);
    assert_eq!(code, 1, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["violations"][0]["kind"], "oversized-line", "{r}");
    // …and indeed the server skips it: not found (exit 1), not a crash (exit 2 or a signal).
    let (code, _, err) = cli(root, &["get", "mem-big"]);
    assert_eq!(code, 1, "{err}");
}

#[tokio::test]
async fn a_ledger_rewritten_in_place_is_reread_not_trusted() {
    let p = project();
    let root = p.path();
    let a = agent(root).room("room-9").start().await;
    for s in ["alpha decision", "beta decision", "gamma decision"] {
        cli(
            root,
            &[
                "publish",
                "--kind",
                "decision",
                "--summary",
                s,
                "--room",
                "room-1",
                "--role",
                "eng",
            ],
        );
    }
    let seen = a.ok("memory_query", serde_json::json!({})).await;
    assert_eq!(seen["total"], 3);
    // Same inode, same length: every summary and id changed in place.
    let old = std::fs::read_to_string(ledger(root)).unwrap();
    let new = old
        .replace("alpha", "ALPHA")
        .replace("beta", "BETA")
        .replace("gamma", "GAMMA")
        .replace("mem-", "mex-");
    assert_eq!(new.len(), old.len());
    std::fs::write(ledger(root), &new).unwrap();
    let seen = a.ok("memory_query", serde_json::json!({})).await;
    let text = seen.to_string();
    assert!(text.contains("ALPHA") && text.contains("mex-"), "{text}");
    assert!(
        !text.contains("alpha") && !text.contains("\"mem-"),
        "{text}"
    );
    // Longer, with a line boundary where the old file ended: the old lines are gone too.
    let longer = new.replace("ALPHA", "OMEGA")
        + &new
            .lines()
            .next()
            .unwrap()
            .replace("mex-", "mey-")
            .replace("ALPHA", "ZETA")
        + "\n";
    std::fs::write(ledger(root), &longer).unwrap();
    let seen = a.ok("memory_query", serde_json::json!({})).await;
    let text = seen.to_string();
    assert_eq!(seen["total"], 4, "{text}");
    assert!(!text.contains("ALPHA"), "{text}");
}

#[tokio::test]
async fn a_symlink_leaving_the_project_is_refused_at_every_open() {
    let p = project();
    let root = p.path();
    let outside = tempfile::tempdir().unwrap();
    let a = agent(root).room("room-1").role("eng").start().await;
    publish(&a, "decision", "first", serde_json::json!({})).await;
    // After startup, the ledger becomes a link to a file outside the root.
    let target = outside.path().join("elsewhere.jsonl");
    std::fs::copy(ledger(root), &target).unwrap();
    let before = std::fs::read(&target).unwrap();
    std::fs::remove_file(ledger(root)).unwrap();
    std::os::unix::fs::symlink(&target, ledger(root)).unwrap();
    let e = a
        .err(
            "memory_publish",
            serde_json::json!({"kind": "decision", "summary": "second"}),
        )
        .await;
    assert!(e.contains("outside the project root"), "{e}");
    assert_eq!(
        std::fs::read(&target).unwrap(),
        before,
        "nothing written outside"
    );
    std::fs::remove_file(ledger(root)).unwrap();
    // Plans and room configs linked from outside are not used.
    let plan = outside.path().join("plan.json");
    std::fs::write(
        &plan,
        r#"{"plan_id":"evil","title":"evil","epics":[{"ref":"E1","room_id":"room-evil"}]}"#,
    )
    .unwrap();
    std::fs::create_dir_all(root.join(".agents/plan")).unwrap();
    std::os::unix::fs::symlink(&plan, root.join(".agents/plan/evil.json")).unwrap();
    let cfg = outside.path().join("config.json");
    std::fs::write(
        &cfg,
        r#"{"room_id":"room-cfg","task_ref":"EPIC-9","depends_on":[]}"#,
    )
    .unwrap();
    std::fs::create_dir_all(root.join(".agents/war-rooms/room-cfg")).unwrap();
    std::os::unix::fs::symlink(&cfg, root.join(".agents/war-rooms/room-cfg/config.json")).unwrap();
    let (code, out, err) = cli(root, &["--json", "plan", "show"]);
    assert!(code == 0 || code == 1, "{err}");
    let dag: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(dag["epics"], serde_json::json!([]), "{out}");
    assert!(
        err.contains("outside the project root"),
        "a warning names it: {err}"
    );
}

/// A `serve` process spoken to in raw JSON-RPC lines.
struct Raw {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    out: std::sync::mpsc::Receiver<String>,
}

impl Raw {
    fn start(root: &std::path::Path) -> Raw {
        use std::io::BufRead;
        let mut child = std::process::Command::new(BIN)
            .args(["serve", "--root"])
            .arg(root)
            .env("WARROOM_ROOM_ID", "room-1")
            .env("WARROOM_ROLE", "eng")
            .env("WARROOM_DAEMON", "off")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, out) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                let _ = tx.send(line);
            }
        });
        let mut raw = Raw {
            child,
            stdin: Some(stdin),
            out,
        };
        raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#);
        raw.recv();
        raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        raw
    }
    fn send(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }
    fn recv(&self) -> String {
        self.out
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("an answer within 10 s")
    }
    fn publish(&mut self, id: u32, summary: &str) {
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"memory_publish","arguments":{{"kind":"decision","summary":"{summary}"}}}}}}"#
        ));
    }
    fn term(&self) {
        let status = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }
    /// Waits at most `secs` for the process to exit; its exit code.
    fn exited_within(&mut self, secs: u64) -> Option<i32> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        while std::time::Instant::now() < deadline {
            if let Some(s) = self.child.try_wait().unwrap() {
                return Some(s.code().unwrap_or(-1));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = self.child.kill();
        None
    }
}

fn hold_lock(root: &std::path::Path) -> std::fs::File {
    let f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(ledger(root))
        .unwrap();
    f.lock().unwrap();
    f
}

#[test]
fn a_cancelled_publish_is_written_before_the_cancel_or_never() {
    let p = project();
    let root = p.path();
    std::fs::write(root.join(".agents/warroom.yaml"), "lock_wait_seconds: 5\n").unwrap();
    let mut s = Raw::start(root);
    let held = hold_lock(root);
    s.publish(2, "cancelled while waiting");
    std::thread::sleep(std::time::Duration::from_millis(300));
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"client timeout"}}"#);
    std::thread::sleep(std::time::Duration::from_millis(300));
    drop(held);
    // The server goes on; its next publish lands, the cancelled one never does.
    s.publish(3, "after the cancel");
    let answer = s.recv();
    assert!(
        answer.contains("\"id\":3") && answer.contains("after the cancel"),
        "{answer}"
    );
    std::thread::sleep(std::time::Duration::from_millis(500));
    let lines = ledger_lines(root).join("\n");
    assert!(!lines.contains("cancelled while waiting"), "{lines}");
    assert!(lines.contains("after the cancel"));
    s.stdin = None; // the client goes away
    assert_eq!(s.exited_within(5), Some(0));
}

#[test]
fn sigterm_stops_a_server_at_any_moment_even_blocked_on_the_lock() {
    let p = project();
    let root = p.path();
    std::fs::write(root.join(".agents/warroom.yaml"), "lock_wait_seconds: 30\n").unwrap();
    // Right after initialize.
    let mut s = Raw::start(root);
    s.term();
    assert_eq!(
        s.exited_within(5),
        Some(0),
        "stops cleanly after initialize"
    );
    // While a publish waits for a lock held by someone else: not 30 s later, now; and the
    // publish is abandoned, never written later.
    let mut s = Raw::start(root);
    let held = hold_lock(root);
    s.publish(2, "blocked at shutdown");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let t = std::time::Instant::now();
    s.term();
    assert_eq!(s.exited_within(5), Some(0), "stops while blocked");
    assert!(t.elapsed() < std::time::Duration::from_secs(5));
    drop(held);
    assert!(
        !ledger_lines(root)
            .join("\n")
            .contains("blocked at shutdown")
    );
}

#[tokio::test]
async fn a_retried_publish_or_post_with_its_key_is_written_once() {
    let p = project();
    let root = p.path();
    let a = agent(root).room("room-1").role("eng").start().await;
    let args =
        serde_json::json!({"kind": "decision", "summary": "use argon2", "idempotency_key": "k-1"});
    let first = a.ok("memory_publish", args.clone()).await;
    // The client timed out and retries, from another process even.
    let b = agent(root).room("room-1").role("eng").start().await;
    let again = b.ok("memory_publish", args).await;
    assert_eq!(first["entry"], again["entry"], "the first result");
    assert_eq!(ledger_lines(root).len(), 1, "no second line");
    let e = a
        .err("memory_publish", serde_json::json!({"kind": "decision", "summary": "use bcrypt", "idempotency_key": "k-1"}))
        .await;
    assert!(e.contains("k-1") && e.contains("other content"), "{e}");
    // Another room's key space is its own.
    let c = agent(root).room("room-2").role("eng").start().await;
    c.ok(
        "memory_publish",
        serde_json::json!({"kind": "decision", "summary": "use argon2", "idempotency_key": "k-1"}),
    )
    .await;
    assert_eq!(ledger_lines(root).len(), 2);
    // Channels the same.
    let post = serde_json::json!({"type": "done", "body": "shipped", "idempotency_key": "p-1"});
    let m1 = a.ok("channel_post", post.clone()).await;
    let m2 = b.ok("channel_post", post).await;
    assert_eq!(m1["message"], m2["message"]);
    let channel =
        std::fs::read_to_string(root.join(".agents/war-rooms/room-1/channel.jsonl")).unwrap();
    assert_eq!(channel.lines().count(), 1, "{channel}");
    // The CLI too.
    let args = [
        "--json",
        "publish",
        "--kind",
        "warning",
        "--summary",
        "flaky",
        "--room",
        "room-3",
        "--role",
        "qa",
        "--idempotency-key",
        "cli-1",
    ];
    let (c1, o1, _) = cli(root, &args);
    let (c2, o2, _) = cli(root, &args);
    assert_eq!((c1, c2), (0, 0));
    assert_eq!(o1, o2);
    assert_eq!(ledger_lines(root).len(), 3);
}
