//! PostgreSQL stopped and started again while agents publish: calls fail with a clear
//! tool error (never hang), the servers reconnect by themselves, and every acknowledged
//! entry is stored exactly once (agents retry with an idempotency key).

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::pg::{PgServer, pg_command, start_cluster};
use common::{Agent, agent};
use serde_json::{Value, json};

/// A cluster of this test's own (restarting the shared one would disturb other tests).
struct Cluster {
    dir: tempfile::TempDir,
}

impl Cluster {
    fn start() -> Cluster {
        let dir = tempfile::Builder::new()
            .prefix("wr-pg-")
            .tempdir_in("/tmp")
            .unwrap();
        start_cluster(dir.path(), &[]);
        Cluster { dir }
    }
    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }
    fn ctl(&self, args: &[&str]) {
        let mut c = pg_command("pg_ctl");
        c.args(["-w", "-t", "60", "-D"]).arg(self.data());
        c.args(args);
        if args.contains(&"start") {
            c.args(["-l"]).arg(self.dir.path().join("log"));
            c.args([
                "-o",
                &format!(
                    "-p 55439 -k {} -c listen_addresses='' -c fsync=off",
                    self.dir.path().display()
                ),
            ]);
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "pg_ctl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    fn admin(&self) -> String {
        format!(
            "host={} port=55439 user=postgres dbname=postgres",
            self.dir.path().display()
        )
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let mut c = pg_command("pg_ctl");
        c.args(["-D"])
            .arg(self.data())
            .args(["-m", "immediate", "stop"]);
        let _ = c.output();
    }
}

fn project_on(url: &str) -> tempfile::TempDir {
    let dir = common::project();
    std::fs::write(
        dir.path().join(".agents/warroom.yaml"),
        format!("ledger: \"{url}\"\n"),
    )
    .unwrap();
    dir
}

/// Publishes entries until `done` is set, retrying each failed call with the same
/// idempotency key until it is acknowledged; returns the acknowledged ids and the errors
/// seen. (A fixed number of entries raced the outage: on a fast machine all were
/// acknowledged before the database stopped.)
async fn publisher(
    a: Agent,
    name: String,
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> (Vec<String>, Vec<String>) {
    let (mut ids, mut errors) = (Vec::new(), Vec::new());
    for i in 0.. {
        // Bounded: far more than the outage's few seconds take.
        if done.load(std::sync::atomic::Ordering::SeqCst) || i == 20_000 {
            break;
        }
        let args = json!({"kind": "decision", "summary": format!("{name} decision {i}"),
                          "idempotency_key": format!("{name}-{i}")});
        loop {
            let Value::Object(map) = args.clone() else {
                unreachable!()
            };
            let call = a.client.call_tool(
                rmcp::model::CallToolRequestParams::new("memory_publish").with_arguments(map),
            );
            // Every call returns: a bound far above any timeout of the server.
            let r = tokio::time::timeout(Duration::from_secs(60), call)
                .await
                .expect("a call hung during the outage")
                .unwrap();
            if r.is_error == Some(true) {
                errors.push(common::text(&r));
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            let v = r.structured_content.expect("structured content");
            ids.push(v["entry"]["id"].as_str().unwrap().to_string());
            break;
        }
    }
    a.stop().await;
    (ids, errors)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_restart_of_the_database_loses_nothing_and_duplicates_nothing() {
    let cluster = tokio::task::spawn_blocking(Cluster::start).await.unwrap();
    let admin = cluster.admin();
    let server = PgServer {
        admin: admin.clone(),
    };
    let url = tokio::task::spawn_blocking(move || server.fresh_db())
        .await
        .unwrap();
    let p = project_on(&url);
    let root: &Path = p.path();
    let reader = agent(root).room("room-r").role("qa").start().await;
    reader
        .ok("memory_search", json!({"text": "decision"}))
        .await;
    let mut tasks = Vec::new();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for w in 0..4 {
        let a = agent(root)
            .room(&format!("room-{w}"))
            .role("engineer")
            .start()
            .await;
        tasks.push(tokio::spawn(publisher(
            a,
            format!("agent{w}"),
            done.clone(),
        )));
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    let c = &cluster;
    std::thread::scope(|s| s.spawn(|| c.ctl(&["-m", "fast", "stop"])).join().unwrap());
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Reads fail too, at once and clearly, while the database is down…
    let e = reader
        .err("memory_search", json!({"text": "decision"}))
        .await;
    assert!(e.contains("database") && e.contains("retry"), "{e}");
    tokio::time::sleep(Duration::from_millis(1700)).await;
    std::thread::scope(|s| s.spawn(|| c.ctl(&["start"])).join().unwrap());
    // …and work again after it is back, without restarting the server.
    let found = reader
        .ok("memory_search", json!({"text": "decision", "room_id": "*"}))
        .await;
    assert!(found["total"].as_u64().unwrap() > 0, "{found}");
    // The publishers go on a little after the database is back, then stop.
    tokio::time::sleep(Duration::from_millis(500)).await;
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let (mut acked, mut errors) = (Vec::new(), Vec::new());
    for t in tasks {
        let (ids, errs) = t.await.unwrap();
        acked.extend(ids);
        errors.extend(errs);
    }
    assert!(!errors.is_empty(), "the outage was seen by the agents");
    for e in &errors {
        assert!(
            e.contains("database") && e.contains("retry"),
            "an outage error says what failed and what to do: {e}"
        );
        assert!(!e.contains("password"), "{e}");
    }
    let rows: Vec<Value> = std::thread::scope(|s| {
        s.spawn(|| {
            PgServer::client(&url)
                .query("SELECT line FROM ledger_lines ORDER BY seq", &[])
                .unwrap()
                .iter()
                .map(|r| serde_json::from_slice(r.get::<_, &[u8]>(0)).unwrap())
                .collect()
        })
        .join()
        .unwrap()
    });
    assert!(
        acked.len() >= 4,
        "every publisher was acknowledged: {}",
        acked.len()
    );
    assert_eq!(rows.len(), acked.len(), "no entry lost, none written twice");
    let stored: std::collections::HashSet<&str> =
        rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for id in &acked {
        assert!(stored.contains(id.as_str()), "acknowledged {id} is stored");
    }
    let mut summaries: Vec<&str> = rows
        .iter()
        .map(|r| r["summary"].as_str().unwrap())
        .collect();
    summaries.sort_unstable();
    summaries.dedup();
    assert_eq!(summaries.len(), acked.len());
    reader.stop().await;
    let (code, out, err) = common::cli(root, &["verify"]);
    assert_eq!(code, 0, "{out}{err}");
}
