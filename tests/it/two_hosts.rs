//! Two hosts, one PostgreSQL: network namespaces made by the test (`ip netns`, veth, a
//! bridge), each "host" running a `warroom-memory daemon` with 8 attached agents, and the
//! database server in a third namespace reached over TCP. Every publish and channel post
//! is found exactly once from both hosts, every supersede race across hosts is won
//! exactly once, and the time until one host sees the other's entry is measured.

use crate::common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::pg::{PgServer, pg_command, start_cluster};
use common::{Agent, agent};
use serde_json::{Value, json};

const AGENTS_PER_HOST: usize = 8;
const PUBLISHES: usize = 250;
const POST_EVERY: usize = 10;
const RACES: usize = 20;

fn ip(args: &[&str]) {
    let out = Command::new("ip")
        .args(args)
        .output()
        .expect("`ip` (iproute2) is missing. Fix: run `scripts/test` as root, which installs what the tests need and runs them all");
    assert!(
        out.status.success(),
        "ip {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Three namespaces: `<p>db` (PostgreSQL on 10.213.0.1), `<p>a` and `<p>b` (the hosts,
/// .2 and .3), joined by a bridge in the database's namespace. Removed on drop.
struct Net {
    prefix: String,
    pg_dir: tempfile::TempDir,
}

impl Net {
    fn new() -> Net {
        let prefix = format!("wr{}", std::process::id() % 100_000);
        let db = format!("{prefix}db");
        ip(&["netns", "add", &db]);
        let net = Net {
            prefix: prefix.clone(),
            pg_dir: tempfile::Builder::new()
                .prefix("wr-pg-")
                .tempdir_in("/tmp")
                .unwrap(),
        };
        ip(&["-n", &db, "link", "set", "lo", "up"]);
        ip(&["-n", &db, "link", "add", "br0", "type", "bridge"]);
        ip(&["-n", &db, "addr", "add", "10.213.0.1/24", "dev", "br0"]);
        ip(&["-n", &db, "link", "set", "br0", "up"]);
        for (host, addr) in [("a", "10.213.0.2/24"), ("b", "10.213.0.3/24")] {
            let ns = format!("{prefix}{host}");
            let (outside, inside) = (format!("{prefix}{host}0"), format!("{prefix}{host}1"));
            ip(&["netns", "add", &ns]);
            ip(&["-n", &ns, "link", "set", "lo", "up"]);
            ip(&[
                "link", "add", &inside, "netns", &ns, "type", "veth", "peer", "name", &outside,
                "netns", &db,
            ]);
            ip(&["-n", &ns, "addr", "add", addr, "dev", &inside]);
            ip(&["-n", &ns, "link", "set", &inside, "up"]);
            ip(&["-n", &db, "link", "set", &outside, "master", "br0"]);
            ip(&["-n", &db, "link", "set", &outside, "up"]);
        }
        net
    }

    fn ns(&self, host: &str) -> String {
        format!("{}{host}", self.prefix)
    }

    /// Starts PostgreSQL in the database namespace, listening on 10.213.0.1:5432.
    fn start_postgres(&self) -> String {
        let dir = self.pg_dir.path();
        start_cluster(dir, &["-c listen_addresses=127.0.0.1"]);
        // Reach it from the hosts: stop the loopback-only server, allow the subnet, and
        // start it again inside the database's namespace.
        let data = dir.join("data");
        let mut stop = pg_command("pg_ctl");
        stop.args(["-w", "-D"])
            .arg(&data)
            .args(["-m", "fast", "stop"]);
        assert!(stop.status().unwrap().success());
        let hba = data.join("pg_hba.conf");
        let mut text = std::fs::read_to_string(&hba).unwrap();
        text.push_str("host all all 10.213.0.0/24 trust\n");
        std::fs::write(&hba, text).unwrap();
        self.start_in_netns();
        // The administrator connects over the socket (file system, not network).
        let admin = PgServer {
            admin: format!(
                "host={} port=5432 user=postgres dbname=postgres",
                dir.display()
            ),
        };
        let name = admin.fresh_db();
        let db: postgres::Config = name.parse().unwrap();
        format!(
            "postgresql://postgres@10.213.0.1:5432/{}",
            db.get_dbname().unwrap()
        )
    }

    /// Starts the (stopped) server inside the database's namespace.
    fn start_in_netns(&self) {
        let dir = self.pg_dir.path();
        let data = dir.join("data");
        let mut start = Command::new("ip");
        start.args(["netns", "exec", &self.ns("db")]);
        let pg = pg_command("pg_ctl");
        start.arg(pg.get_program()).args(pg.get_args());
        start
            .args(["-w", "-t", "60", "-D"])
            .arg(&data)
            .arg("-l")
            .arg(dir.join("log"));
        start.args([
            "-o",
            &format!(
                "-p 5432 -k {} -c listen_addresses=10.213.0.1 -c fsync=off -c max_connections=200",
                dir.display()
            ),
        ]);
        start.arg("start");
        let out = start.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Stops the server (fast: open connections are cut, as in a crash of the host).
    fn stop_postgres(&self) {
        let mut stop = pg_command("pg_ctl");
        stop.args(["-w", "-D"])
            .arg(self.pg_dir.path().join("data"))
            .args(["-m", "fast", "stop"]);
        assert!(stop.status().unwrap().success());
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        let mut c = pg_command("pg_ctl");
        c.args(["-D"])
            .arg(self.pg_dir.path().join("data"))
            .args(["-m", "immediate", "stop"]);
        let _ = c.output();
        for host in ["a", "b", "db"] {
            let _ = Command::new("ip")
                .args(["netns", "del", &self.ns(host)])
                .status();
        }
    }
}

/// One host: a project whose ledger is the shared database, and its daemon.
struct Host {
    ns: String,
    daemon: Option<std::process::Child>,
    root: tempfile::TempDir,
    runtime: tempfile::TempDir,
}

impl Host {
    fn start(ns: String, url: &str) -> Host {
        let root = common::project();
        std::fs::write(
            root.path().join(".agents/warroom.yaml"),
            format!("ledger: \"{url}\"\n"),
        )
        .unwrap();
        let mut host = Host {
            ns,
            daemon: None,
            root,
            runtime: tempfile::tempdir().unwrap(),
        };
        let log = std::fs::File::create(host.root.path().join("daemon.log")).unwrap();
        host.daemon = Some(
            host.cmd(&["daemon", "--listen", "none"])
                .stderr(Stdio::from(log))
                .spawn()
                .unwrap(),
        );
        let deadline = Instant::now() + Duration::from_secs(30);
        while !host
            .cmd(&["daemon", "status"])
            .output()
            .unwrap()
            .status
            .success()
        {
            assert!(
                Instant::now() < deadline,
                "the daemon on {} did not come up",
                host.ns
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        host
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.ns, common::BIN, "--root"])
            .arg(self.root.path());
        c.args(args)
            .env("XDG_RUNTIME_DIR", self.runtime.path())
            .env("WARROOM_LOG", "warn");
        c.env_remove("WARROOM_DATABASE_URL")
            .env_remove("WARROOM_ROOM_ID")
            .env_remove("WARROOM_ROLE");
        c.stdout(Stdio::piped()).stderr(Stdio::piped());
        c
    }

    async fn agent(&self, room: &str) -> Agent {
        agent(self.root.path())
            .netns(&self.ns)
            .room(room)
            .role("engineer")
            .env(
                "XDG_RUNTIME_DIR",
                &self.runtime.path().display().to_string(),
            )
            .env("WARROOM_DAEMON", "require")
            .start()
            .await
    }

    /// Every entry as this host reads it (a CLI process on the host), by id.
    fn log(&self) -> Vec<Value> {
        let out = self
            .cmd(&["--json", "log", "--include-superseded"])
            .output()
            .unwrap();
        let v = common::succeeded_json(out);
        v["entries"].as_array().unwrap().clone()
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.cmd(&["daemon", "stop"]).output();
        if let Some(mut d) = self.daemon.take() {
            let _ = d.kill();
            let _ = d.wait();
        }
    }
}

/// Calls `tool` until it succeeds, retrying a failed call (the database restarting) with
/// the same idempotency key; returns the result and the errors seen.
async fn until_ok(a: &Agent, tool: &str, args: Value, errors: &mut Vec<String>) -> Value {
    loop {
        let r = a.call(tool, args.clone()).await;
        if r.is_error != Some(true) {
            return r.structured_content.expect("structured content");
        }
        errors.push(common::text(&r));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One agent's share: publishes and channel posts, each retried until acknowledged;
/// returns the acknowledged entry and message ids and the errors seen.
async fn workload(a: Agent, tag: String) -> (Agent, Vec<String>, Vec<String>, Vec<String>) {
    let (mut ids, mut msgs, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..PUBLISHES {
        let args = json!({"kind": "artifact", "summary": format!("{tag} built part {i}"),
                          "ref": "EPIC-1", "idempotency_key": format!("{tag}/{i}")});
        let e = until_ok(&a, "memory_publish", args, &mut errors).await;
        ids.push(e["entry"]["id"].as_str().unwrap().to_string());
        if i % POST_EVERY == 0 {
            let args = json!({"type": "done", "body": format!("{tag} finished part {i}"),
                              "idempotency_key": format!("{tag}/post/{i}")});
            let m = until_ok(&a, "channel_post", args, &mut errors).await;
            msgs.push(m["message"]["id"].as_str().unwrap().to_string());
        }
    }
    (a, ids, msgs, errors)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hosts_share_one_postgres_ledger() {
    let net = tokio::task::spawn_blocking(Net::new).await.unwrap();
    let url = std::thread::scope(|s| s.spawn(|| net.start_postgres()).join().unwrap());
    let (ns_a, ns_b) = (net.ns("a"), net.ns("b"));
    let (ua, ub) = (url.clone(), url.clone());
    let host_a = tokio::task::spawn_blocking(move || Host::start(ns_a, &ua))
        .await
        .unwrap();
    let host_b = tokio::task::spawn_blocking(move || Host::start(ns_b, &ub))
        .await
        .unwrap();

    // 1. 8 agents per host publish and post at once.
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (h, host) in [("a", &host_a), ("b", &host_b)] {
        for n in 0..AGENTS_PER_HOST {
            let a = host.agent(&format!("room-{h}{n}")).await;
            tasks.push(tokio::spawn(workload(a, format!("host {h} agent {n}"))));
        }
    }
    // PostgreSQL is stopped in the middle of the run and started again 1.5 s later.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let outage = Instant::now();
    let n = &net;
    std::thread::scope(|s| s.spawn(|| n.stop_postgres()).join().unwrap());
    tokio::time::sleep(Duration::from_millis(1500)).await;
    std::thread::scope(|s| s.spawn(|| n.start_in_netns()).join().unwrap());
    let outage_secs = outage.elapsed().as_secs_f64();
    let (mut agents, mut acked, mut posted, mut errors) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for t in tasks {
        let (a, ids, msgs, errs) = t.await.unwrap();
        agents.push(a);
        acked.extend(ids);
        posted.extend(msgs);
        errors.extend(errs);
    }
    let publish_secs = started.elapsed().as_secs_f64();
    let total = 2 * AGENTS_PER_HOST * PUBLISHES;
    assert_eq!(acked.len(), total);
    assert!(!errors.is_empty(), "the agents saw the outage");
    for e in &errors {
        assert!(
            e.contains("database") && e.contains("retry"),
            "a clear error: {e}"
        );
    }

    // 2. Supersede races across hosts: the same room on both hosts replaces one entry at
    //    the same moment; exactly one wins, the other gets the files backend's error.
    let racer_a = host_a.agent("room-shared").await;
    let racer_b = host_b.agent("room-shared").await;
    for r in 0..RACES {
        let target = racer_a
            .ok(
                "memory_publish",
                json!({"kind": "decision", "summary": format!("race target {r}")}),
            )
            .await["entry"]["id"]
            .as_str()
            .unwrap()
            .to_string();
        let args = |h: &str| json!({"kind": "decision", "summary": format!("race {r} won by {h}"), "supersedes": target});
        let (ra, rb) = tokio::join!(
            racer_a.call("memory_publish", args("a")),
            racer_b.call("memory_publish", args("b"))
        );
        let wins = [&ra, &rb]
            .iter()
            .filter(|r| r.is_error != Some(true))
            .count();
        assert_eq!(
            wins,
            1,
            "race {r}: {} / {}",
            common::text(&ra),
            common::text(&rb)
        );
        let lost = if ra.is_error == Some(true) { &ra } else { &rb };
        assert!(
            common::text(lost).contains("already superseded"),
            "{}",
            common::text(lost)
        );
    }

    // A plan registered on A is B's plan too (the epic DAG lives in the database).
    let plan = json!({"plan_id": "hosts", "epics": [
        {"ref": "EPIC-1", "room_id": "room-p1"},
        {"ref": "EPIC-2", "room_id": "room-p2", "depends_on": ["EPIC-1"]}]});
    racer_a
        .ok("memory_register_plan", json!({"plan": plan}))
        .await;
    let shown =
        tokio::task::block_in_place(|| host_b.cmd(&["--json", "plan", "show"]).output().unwrap());
    let dag: Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert!(dag["edges"].to_string().contains("hosts/EPIC-1"), "{dag}");

    // 3. How soon one host sees the other's entry: publish on A, poll search on B.
    let mut lags = Vec::new();
    for probe in 0..20 {
        let phrase = format!("zebracrossing{probe}");
        racer_a
            .ok(
                "memory_publish",
                json!({"kind": "warning", "summary": format!("watch the {phrase}")}),
            )
            .await;
        let t = Instant::now();
        loop {
            let r = racer_b
                .ok("memory_search", json!({"text": phrase, "room_id": "*"}))
                .await;
            if r["total"].as_u64() == Some(1) {
                break;
            }
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "host B never saw {phrase}"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        lags.push(t.elapsed());
    }
    lags.sort();
    // The measurement is this test's report (README § PostgreSQL has the bench's).
    report(&format!(
        "two hosts: {total} publishes + {} posts by {} agents in {publish_secs:.1} s, \
         through a {outage_secs:.1} s database restart ({} failed calls, all retried); \
         A→B visibility p50 {:.1} ms, max {:.1} ms",
        posted.len(),
        2 * AGENTS_PER_HOST,
        errors.len(),
        lags[lags.len() / 2].as_secs_f64() * 1e3,
        lags[lags.len() - 1].as_secs_f64() * 1e3
    ));

    // 4. Both hosts find every entry exactly once, and every message.
    for host in [&host_a, &host_b] {
        let entries = tokio::task::block_in_place(|| host.log());
        let mut seen = std::collections::HashMap::new();
        for e in &entries {
            *seen
                .entry(e["entry"]["id"].as_str().unwrap().to_string())
                .or_insert(0) += 1;
        }
        assert_eq!(entries.len(), total + 2 * RACES + 20, "on {}", host.ns);
        for id in &acked {
            assert_eq!(seen.get(id), Some(&1), "{id} on {}", host.ns);
        }
    }
    // Through the daemons too: each agent reads its own channel, and a sample of the
    // other host's entries.
    for (i, a) in agents.iter().enumerate() {
        let read = a
            .ok("channel_read", json!({"last_n": PUBLISHES / POST_EVERY}))
            .await;
        let got: Vec<&str> = read["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap())
            .collect();
        let mine = &posted[i * (PUBLISHES / POST_EVERY)..(i + 1) * (PUBLISHES / POST_EVERY)];
        assert_eq!(got, mine, "agent {i}'s channel");
        let other = &acked[((i + AGENTS_PER_HOST) % (2 * AGENTS_PER_HOST)) * PUBLISHES + i];
        let e = a.ok("memory_get", json!({"id": other})).await;
        assert_eq!(e["entry"]["id"].as_str(), Some(other.as_str()));
        // The other host reads this agent's channel: the same messages, in the same order.
        let (h, n, other_host) = if i < AGENTS_PER_HOST {
            ("a", i, &host_b)
        } else {
            ("b", i - AGENTS_PER_HOST, &host_a)
        };
        let last = (PUBLISHES / POST_EVERY).to_string();
        let room = format!("room-{h}{n}");
        let out = tokio::task::block_in_place(|| {
            other_host
                .cmd(&[
                    "--json", "channel", "read", "--room", &room, "--last", &last,
                ])
                .output()
                .unwrap()
        });
        let read = common::succeeded_json(out);
        let seen: Vec<&str> = read["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap())
            .collect();
        assert_eq!(seen, mine, "{room}'s channel, read from {}", other_host.ns);
    }
    let out = tokio::task::block_in_place(|| host_b.cmd(&["verify"]).output().unwrap());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    for a in agents.into_iter().chain([racer_a, racer_b]) {
        a.stop().await;
    }
    drop(host_a);
    drop(host_b);
    drop(net);
}

/// Prints a measurement with the test's output (shown with `--nocapture`).
#[allow(clippy::print_stderr)]
fn report(text: &str) {
    eprintln!("{text}");
}
