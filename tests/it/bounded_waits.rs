//! Waits are bounded, through the real binary: a process holding the ledger's lock (here:
//! this test, as a stopped publisher or `flock` would) costs a publish a clear error naming
//! the holder after `lock_wait_seconds`, writes nothing, and never keeps the same server's
//! readers waiting.

use crate::common;

use std::fs::OpenOptions;

use common::*;
use serde_json::json;

fn hold_ledger_lock(root: &std::path::Path) -> std::fs::File {
    let f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(ledger(root))
        .unwrap();
    f.lock().unwrap();
    f
}

/// `warroom-memory publish` of a decision as room r1, role qa: (exit code, stderr).
fn cli_publish(root: &std::path::Path, summary: &str) -> (i32, String) {
    let args = [
        "publish",
        "--kind",
        "decision",
        "--summary",
        summary,
        "--as-room",
        "r1",
    ];
    let (code, _, err) = cli_env(root, &args, &[("WARROOM_ROLE", "qa")]);
    (code, err)
}

#[test]
fn a_held_lock_fails_the_cli_publish_with_the_holder_named() {
    let p = project();
    std::fs::write(
        p.path().join(".agents/warroom.yaml"),
        "lock_wait_seconds: 0.3\n",
    )
    .unwrap();
    let held = hold_ledger_lock(p.path());
    let (code, err) = cli_publish(p.path(), "blocked");
    assert_eq!(code, 2, "{err}");
    let me = format!("by PID {}", std::process::id());
    assert!(
        err.contains("is locked") && err.contains(&me) && err.contains("lock_wait_seconds"),
        "{err}"
    );
    assert!(ledger_lines(p.path()).is_empty(), "nothing written");
    drop(held);
    let (code, err) = cli_publish(p.path(), "free");
    assert_eq!(code, 0, "{err}");
    assert_eq!(ledger_lines(p.path()).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_of_a_server_never_wait_behind_its_blocked_publish() {
    let p = project();
    std::fs::write(
        p.path().join(".agents/warroom.yaml"),
        "lock_wait_seconds: 3\n",
    )
    .unwrap();
    let a = agent(p.path()).room("room-1").role("qa").start().await;
    publish(&a, "decision", "readable while blocked", json!({})).await;
    let held = hold_ledger_lock(p.path());
    // The publish goes out first and is polled until the server holds it waiting for the
    // file lock (it waits up to 3 s); only then is the query sent.
    let blocked = a.call(
        "memory_publish",
        json!({"kind": "warning", "summary": "waits"}),
    );
    tokio::pin!(blocked);
    let head_start = tokio::time::sleep(std::time::Duration::from_millis(500));
    tokio::select! {
        biased;
        r = &mut blocked => panic!("the publish returned while the lock was held: {r:?}"),
        () = head_start => {}
    }
    // The query is answered while the publish is still unanswered. A server that
    // serialised calls would answer the publish (after its 3 s wait) before the query,
    // and the publish would be ready by the time the query's answer is read.
    let q = a.ok("memory_query", json!({"room_id": "*"})).await;
    assert_eq!(q["total"], 1);
    assert!(
        futures::poll!(&mut blocked).is_pending(),
        "the publish was answered before the query"
    );
    let r = blocked.await;
    assert_eq!(r.is_error, Some(true));
    let text = text(&r);
    assert!(
        text.contains(&format!("by PID {}", std::process::id())),
        "{text}"
    );
    drop(held);
    assert_eq!(
        ledger_lines(p.path()).len(),
        1,
        "the refused publish wrote nothing"
    );
    publish(&a, "warning", "after the lock is free", json!({})).await;
    assert_eq!(ledger_lines(p.path()).len(), 2);
}

fn mkfifo(path: &std::path::Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(ok.success());
}

#[test]
fn a_fifo_at_the_ledger_is_refused_never_waited_on() {
    let p = project();
    mkfifo(&ledger(p.path()));
    for args in [
        vec!["query"],
        vec!["verify"],
        vec![
            "publish",
            "--kind",
            "code",
            "--summary",
            "x",
            "--as-room",
            "r",
        ],
    ] {
        let (code, _, err) = run_bounded(&args, p.path());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("a FIFO, not a regular file"),
            "{args:?}: {err}"
        );
        // The reason is said once, not once per layer of its error.
        assert_eq!(
            err.matches("refusing to use it").count(),
            1,
            "{args:?}: {err}"
        );
    }
}

/// `serve` on a project whose ledger cannot be used still answers `initialize` and lists
/// its tools, and every tool call returns the reason (once) as a tool error: an agent
/// reads why instead of its client's "server failed to start".
#[tokio::test]
async fn serve_on_an_unusable_ledger_answers_and_says_why_on_every_call() {
    let p = project();
    mkfifo(&ledger(p.path()));
    let a = common::agent(p.path()).room("room-001").start().await;
    assert!(a.tools().await.iter().any(|t| t.name == "memory_publish"));
    for (tool, args) in [
        ("memory_query", serde_json::json!({})),
        (
            "memory_publish",
            serde_json::json!({"kind": "decision", "summary": "Задачи хранятся в очереди"}),
        ),
    ] {
        let e = a.err(tool, args).await;
        assert!(e.contains("a FIFO, not a regular file"), "{tool}: {e}");
        assert!(
            e.contains("Fix: replace it with a regular file"),
            "{tool}: {e}"
        );
        assert_eq!(e.matches("refusing to use it").count(), 1, "{tool}: {e}");
    }
    a.stop().await;
}

#[tokio::test]
async fn fifos_among_plans_configs_channels_and_settings_never_hang_a_server() {
    let p = example_project();
    let a = agent(p.path())
        .room("room-003")
        .role("manager")
        .start()
        .await;
    // Planted while the server runs: a plan, a room config, the DAG, a channel.
    mkfifo(&p.path().join(".agents/plan/evil.json"));
    mkfifo(&p.path().join(".agents/war-rooms/room-009/config.json"));
    mkfifo(&p.path().join(".agents/war-rooms/DAG.json"));
    std::fs::remove_file(p.path().join(".agents/war-rooms/room-003/channel.jsonl")).unwrap();
    mkfifo(&p.path().join(".agents/war-rooms/room-003/channel.jsonl"));
    let ctx = a.ok("memory_get_context", json!({})).await;
    assert!(
        ctx["markdown"].as_str().unwrap().contains("EPIC-001"),
        "{ctx}"
    );
    let e = a.err("channel_read", json!({})).await;
    assert!(e.contains("a FIFO, not a regular file"), "{e}");
    let e = a
        .err("channel_post", json!({"type": "done", "body": "x"}))
        .await;
    assert!(e.contains("a FIFO, not a regular file"), "{e}");
    // A FIFO as the settings file stops the next process with a clear error.
    mkfifo(&p.path().join(".agents/warroom.yaml"));
    let (code, _, err) = run_bounded(&["query"], p.path());
    assert_eq!(code, 2);
    assert!(
        err.contains("warroom.yaml") && err.contains("a FIFO"),
        "{err}"
    );
}

/// Runs the binary (as role qa) and fails the test, instead of hanging the suite, if it
/// does not finish within a minute. Returns (exit code, stdout, stderr).
fn run_bounded(args: &[&str], root: &std::path::Path) -> (i32, String, String) {
    let mut cmd = std::process::Command::new(BIN);
    cmd.arg("--root")
        .arg(root)
        .args(args)
        .env_remove("WARROOM_ROOM_ID")
        .env("WARROOM_ROLE", "qa");
    output_within(&mut cmd, std::time::Duration::from_secs(60))
}

#[test]
fn a_forty_thousand_entry_supersede_chain_loads_verifies_and_gets_in_bounded_work() {
    let n = 40_000;
    let line = |i: usize| {
        let sup = if i == 0 {
            "null".to_string()
        } else {
            format!("\"c-{}\"", i - 1)
        };
        format!(
            "{{\"id\":\"c-{i}\",\"ts\":\"2026-11-01T00:00:00Z\",\"kind\":\"decision\",\"room_id\":\"r\",\"author_role\":\"a\",\"ref\":\"\",\"tags\":[],\"summary\":\"version {i}\",\"detail\":\"\",\"supersedes\":{sup}}}\n"
        )
    };
    // In file order, and reversed (every supersede names an entry further down the file).
    for order in ["forward", "reversed"] {
        let p = project();
        let text: String = if order == "forward" {
            (0..n).map(line).collect()
        } else {
            (0..n).rev().map(line).collect()
        };
        std::fs::write(ledger(p.path()), text).unwrap();
        let (code, out, err) = run_bounded(&["--json", "verify"], p.path());
        assert_eq!(code, 0, "{order}: {err}{out}");
        let (code, out, err) = run_bounded(&["--json", "get", "c-0"], p.path());
        assert_eq!(code, 0, "{order}: {err}");
        let got: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(got["replaced_by"].as_array().unwrap().len(), 20, "{order}");
        assert_eq!(got["replaced_by_more"], n - 1 - 20, "{order}");
        assert!(
            out.len() < 64 * 1024,
            "memory_get stays small: {} bytes",
            out.len()
        );
        let (code, out, _) = run_bounded(&["--json", "query", "--room", "*"], p.path());
        assert_eq!(code, 0);
        let q: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            q["total"], 1,
            "{order}: only the chain's last entry is live"
        );
    }
}

#[test]
fn huge_room_patterns_are_refused_with_the_limit_named() {
    let p = project();
    let stars = "*".repeat(100_000);
    let (code, _, err) = run_bounded(&["query", "--exclude-room", &stars], p.path());
    assert_eq!(code, 2, "a clear error, not a panic: {err}");
    assert!(err.contains("exclude_room") && err.contains("256"), "{err}");
}

/// Red-team finding 10: every file the CLI is pointed at is refused unless regular, and
/// read with a limit — `/dev/zero` used to be read until memory ran out, a FIFO waited on.
#[test]
fn files_named_on_the_command_line_are_regular_and_bounded() {
    let p = project();
    let fifo = p.path().join("pipe");
    mkfifo(&fifo);
    let fifo = fifo.to_str().unwrap();
    let big = p.path().join("big.md");
    std::fs::write(&big, vec![b'#'; (4 << 20) + 1]).unwrap();
    let big = big.to_str().unwrap();
    let ledger = ledger(p.path());
    std::fs::write(&ledger, "").unwrap();
    let ledger = ledger.to_str().unwrap();
    let publish = [
        "publish",
        "--kind",
        "code",
        "--summary",
        "x",
        "--as-room",
        "r",
    ];
    for (args, said) in [
        (
            [&publish[..], &["--detail-file", "/dev/zero"]].concat(),
            "--detail-file /dev/zero",
        ),
        ([&publish[..], &["--detail-file", fifo]].concat(), "a FIFO"),
        (vec!["plan", "register", "/dev/zero"], "a device"),
        (
            vec!["plan", "register", big],
            "larger than the limit of 4194304 bytes",
        ),
        (vec!["diff", fifo, ledger], "a FIFO"),
        (vec!["diff", ledger, "/dev/zero"], "a device"),
        (
            vec!["daemon", "--token-file", "/dev/zero"],
            "--token-file /dev/zero",
        ),
    ] {
        let (code, _, err) = run_bounded(&args, p.path());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(ledger).unwrap(), b"", "nothing was written");
}
