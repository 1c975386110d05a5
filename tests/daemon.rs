//! The daemon through the real binary: one global server per root that stdio agents
//! attach to (`serve` becomes a relay), identity per session, one daemon per root, status
//! and stop, and agents that keep answering when the daemon is killed mid-session.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};

/// A daemon for `root`, with its socket under `runtime` (so tests never meet a real one).
struct Daemon {
    child: Child,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn daemon_cmd(root: &Path, runtime: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.arg("--root")
        .arg(root)
        .arg("daemon")
        .args(args)
        .env("XDG_RUNTIME_DIR", runtime)
        .env_remove("WARROOM_ROOM_ID")
        .env_remove("WARROOM_ROLE");
    cmd
}

fn start_daemon(root: &Path, runtime: &Path) -> Daemon {
    let log = std::fs::File::create(root.join("daemon.log")).unwrap();
    let child = daemon_cmd(root, runtime, &[])
        .stderr(Stdio::from(log))
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !daemon_cmd(root, runtime, &["status"])
        .output()
        .unwrap()
        .status
        .success()
    {
        assert!(Instant::now() < deadline, "the daemon did not come up");
        std::thread::sleep(Duration::from_millis(50));
    }
    Daemon { child }
}

async fn attached(root: &Path, runtime: &Path, room: &str) -> Agent {
    agent(root)
        .room(room)
        .role("engineer")
        .env("XDG_RUNTIME_DIR", &runtime.display().to_string())
        .env("WARROOM_DAEMON", "require")
        .start()
        .await
}

fn ids_in_ledger(root: &Path) -> Vec<String> {
    ledger_lines(root)
        .iter()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_agents_share_one_daemon_each_with_its_own_identity() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let _d = start_daemon(p.path(), rt.path());
    let mut agents = Vec::new();
    for i in 0..16 {
        agents.push(attached(p.path(), rt.path(), &format!("room-{i:02}")).await);
    }
    let published = futures::future::join_all(agents.iter().enumerate().map(|(i, a)| async move {
        let mut ids = Vec::new();
        for n in 0..5 {
            let e = publish(
                a,
                "decision",
                &format!("agent {i} fact {n} about caching"),
                json!({}),
            )
            .await;
            assert_eq!(
                e["room_id"],
                format!("room-{i:02}"),
                "identity comes from the session"
            );
            ids.push(e["id"].as_str().unwrap().to_string());
        }
        ids
    }))
    .await;
    let all: Vec<String> = published.concat();
    assert_eq!(all.len(), 80);
    for (i, a) in agents.iter().enumerate() {
        // Everyone sees every entry exactly once…
        let everything = a
            .ok(
                "memory_search",
                json!({"text": "caching", "room_id": "*", "max_results": 50}),
            )
            .await;
        assert_eq!(everything["total"], 80, "agent {i}: {everything}");
        // …and by default never its own room.
        let others = a.ok("memory_query", json!({})).await;
        assert_eq!(others["total"], 75, "agent {i}");
        let own = format!("room-{i:02}");
        assert!(
            others["entries"]
                .as_array()
                .unwrap()
                .iter()
                .all(|e| e["room_id"] != own.as_str())
        );
    }
    let mut in_ledger = ids_in_ledger(p.path());
    in_ledger.sort();
    let mut want = all.clone();
    want.sort();
    assert_eq!(
        in_ledger, want,
        "every acknowledged entry exactly once in the file"
    );
    for a in &agents {
        let log = a.stderr();
        assert!(log.contains("attached to the project's daemon"), "{log}");
        assert!(
            !log.contains("entries="),
            "a relay does not load the ledger: {log}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn agents_keep_answering_when_the_daemon_is_killed() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let mut d = start_daemon(p.path(), rt.path());
    let agents = vec![
        attached(p.path(), rt.path(), "room-a").await,
        attached(p.path(), rt.path(), "room-b").await,
        attached(p.path(), rt.path(), "room-c").await,
    ];
    let mut acked = Vec::new();
    for (i, a) in agents.iter().enumerate() {
        acked.push(publish(a, "warning", &format!("before {i}"), json!({})).await["id"].clone());
    }
    d.child.kill().unwrap(); // SIGKILL
    d.child.wait().unwrap();
    for round in 0..3 {
        for (i, a) in agents.iter().enumerate() {
            // A call racing the failover may be refused (never applied twice); the next works.
            let r = a
                .call(
                    "memory_publish",
                    json!({"kind": "warning", "summary": format!("after {i}.{round}")}),
                )
                .await;
            if r.is_error != Some(true) {
                acked.push(r.structured_content.unwrap()["entry"]["id"].clone());
            }
        }
    }
    assert!(
        acked.len() >= 3 + 6,
        "agents answered after the kill: {}",
        acked.len()
    );
    let ids = ids_in_ledger(p.path());
    for id in &acked {
        let n = ids.iter().filter(|x| *x == id.as_str().unwrap()).count();
        assert_eq!(n, 1, "acknowledged {id} is in the ledger exactly once");
    }
    for a in &agents {
        assert!(
            a.stderr().contains("went away"),
            "the relay failed over: {}",
            a.stderr()
        );
    }
    // Direct mode after failover still sees everyone's entries.
    let all = agents[0].ok("memory_query", json!({"room_id": "*"})).await;
    assert_eq!(all["total"].as_u64().unwrap() as usize, ids.len());
}

#[test]
fn one_daemon_per_root_with_status_and_stop() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let no = daemon_cmd(p.path(), rt.path(), &["status"])
        .output()
        .unwrap();
    assert_eq!(no.status.code(), Some(1), "no daemon yet");
    let d = start_daemon(p.path(), rt.path());
    let second = daemon_cmd(p.path(), rt.path(), &[]).output().unwrap();
    assert_eq!(second.status.code(), Some(2));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains("already serves") && err.contains(&format!("PID {}", d.child.id())),
        "{err}"
    );
    let status = daemon_cmd(p.path(), rt.path(), &["status"])
        .arg("--json")
        .output()
        .unwrap();
    let info: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(info["pid"], d.child.id());
    let socket = info["socket"].as_str().unwrap().to_string();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the socket is the user's alone");
    let stop = daemon_cmd(p.path(), rt.path(), &["stop"]).output().unwrap();
    assert!(
        stop.status.success(),
        "{}",
        String::from_utf8_lossy(&stop.stderr)
    );
    assert!(
        !Path::new(&socket).exists(),
        "the socket is removed on stop"
    );
    let after = daemon_cmd(p.path(), rt.path(), &["status"])
        .output()
        .unwrap();
    assert_eq!(after.status.code(), Some(1));
}

#[test]
fn serve_requires_a_daemon_only_when_asked() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["serve", "--daemon", "require", "--root"])
        .arg(p.path())
        .env("XDG_RUNTIME_DIR", rt.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no daemon serves") && err.contains("warroom-memory daemon"),
        "{err}"
    );
}
