//! The PostgreSQL backend through the real binary, against a real server
//! (tests/it/common/pg.rs): the same tools on the same semantics, append-only enforced by the
//! database, supersede races won once across processes, and a byte-exact move between
//! backends.

use crate::common;

use common::pg::{PgServer, db_export, server};
use common::{BIN, agent, cli, cli_publish_as, publish};
use serde_json::{Value, json};

/// A CLI publish of one decision by room-001's engineer.
const PUBLISH_ARGON2: [&str; 9] = [
    "publish",
    "--kind",
    "decision",
    "--room",
    "room-001",
    "--role",
    "engineer",
    "--summary",
    "Use argon2id",
];

/// Runs blocking database code off the async test's runtime threads.
fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| s.spawn(f).join().unwrap())
}

/// A project of files holding the lines `db export` writes for the project at `root`.
fn exported(root: &std::path::Path) -> tempfile::TempDir {
    let files = common::project();
    std::fs::write(files.path().join(".agents/ledger.jsonl"), db_export(root)).unwrap();
    files
}

fn lines_in_db(url: &str) -> Vec<Vec<u8>> {
    off_runtime(|| {
        PgServer::client(url)
            .query("SELECT line FROM ledger_lines ORDER BY seq", &[])
            .unwrap()
            .iter()
            .map(|r| r.get::<_, Vec<u8>>(0))
            .collect()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_work_on_postgres_and_nothing_is_written_to_files() {
    let (dir, url) = off_runtime(|| server().project());
    let root = dir.path();
    let eng = agent(root).room("room-001").role("engineer").start().await;
    let qa = agent(root).room("room-002").role("qa").start().await;
    let e = publish(
        &eng,
        "decision",
        "Sessions are stored in Redis with a 30 minute TTL",
        json!({"tags": ["sessions"]}),
    )
    .await;
    let id = e["id"].as_str().unwrap().to_string();
    // The other process sees it at once (it catches up by sequence number before a call).
    let found = qa
        .ok("memory_search", json!({"text": "redis sessions"}))
        .await;
    assert_eq!(common::hit_ids(&found), vec![id.clone()]);
    // Supersede, channels and context run on the same code.
    let sup = publish(
        &eng,
        "decision",
        "Sessions are stored in Postgres",
        json!({"supersedes": id}),
    )
    .await;
    let again = eng
        .err(
            "memory_publish",
            json!({"kind": "decision", "summary": "x", "supersedes": id}),
        )
        .await;
    assert!(again.contains("already superseded"), "{again}");
    eng.ok(
        "channel_post",
        json!({"type": "done", "body": "Sessions moved to Postgres", "ref": "EPIC-001"}),
    )
    .await;
    let read = eng.ok("channel_read", json!({})).await;
    assert_eq!(read["messages"][0]["body"], "Sessions moved to Postgres");
    let q = qa.ok("memory_query", json!({"room_id": "room-001"})).await;
    assert_eq!(
        common::entry_ids(&q),
        vec![sup["id"].as_str().unwrap().to_string()]
    );
    // The rows are the lines: chained, byte for byte what the tools returned.
    let rows = lines_in_db(&url);
    assert_eq!(rows.len(), 2);
    let first: Value = serde_json::from_slice(&rows[0]).unwrap();
    assert_eq!(first["id"], id.as_str());
    assert_eq!(first["prev"], "00000000000000000000000000000000");
    let channel: i64 = off_runtime(|| {
        PgServer::client(&url)
            .query_one(
                "SELECT count(*) FROM channel_lines WHERE room = 'room-001'",
                &[],
            )
            .unwrap()
            .get(0)
    });
    assert_eq!(channel, 1);
    assert!(!root.join(".agents/ledger.jsonl").exists());
    assert!(
        !root
            .join(".agents/war-rooms/room-001/channel.jsonl")
            .exists()
    );
    let (code, out, err) = cli(root, &["verify"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("OK"), "{out}");
    eng.stop().await;
    qa.stop().await;
}

#[test]
fn the_database_refuses_update_delete_and_truncate_with_the_apps_credentials() {
    let (dir, owner_url) = server().project();
    let root = dir.path();
    // Migrated by the owner; the servers run as the restricted role the docs recommend.
    assert_eq!(cli(root, &["db", "migrate"]).0, 0);
    let role = format!("app_{}", ulid::Ulid::generate().to_string().to_lowercase());
    let mut owner = PgServer::client(&owner_url);
    owner
        .batch_execute(&format!(
            "CREATE ROLE {role} LOGIN;
             GRANT SELECT, INSERT ON ledger_lines, channel_lines, plan_lines, receipt_lines TO {role};
             GRANT SELECT ON warroom_meta TO {role};
             GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {role};"
        ))
        .unwrap();
    let app_url = owner_url.replacen(
        "postgresql://postgres@",
        &format!("postgresql://{role}@"),
        1,
    );
    assert_ne!(app_url, owner_url);
    std::fs::write(
        root.join(".agents/warroom.yaml"),
        format!("ledger: \"{app_url}\"\n"),
    )
    .unwrap();
    // The application works with these rights: an entry, a message, a plan, a brief.
    cli_publish_as(
        root,
        None,
        ("decision", "room-001", "engineer"),
        "Use argon2id",
        &[],
    );
    let post = [
        "--as-room",
        "room-001",
        "--as-role",
        "engineer",
        "channel",
        "post",
        "--type",
        "done",
        "--body",
        "done",
    ];
    let (code, _, err) = cli(root, &post);
    assert_eq!(code, 0, "{err}");
    let plan = root.join("p.json");
    std::fs::write(
        &plan,
        r#"{"plan_id": "p", "epics": [{"ref": "E1", "room_id": "room-002"}]}"#,
    )
    .unwrap();
    assert_eq!(
        cli(root, &["plan", "register", plan.to_str().unwrap()]).0,
        0
    );
    let (code, _, err) = cli(root, &["context", "room-002"]);
    assert!(code == 0 || code == 1, "{err}");
    let tables = [
        "ledger_lines",
        "channel_lines",
        "plan_lines",
        "receipt_lines",
    ];
    let count = |c: &mut postgres::Client, t: &str| -> i64 {
        c.query_one(&format!("SELECT count(*) FROM {t}"), &[])
            .unwrap()
            .get(0)
    };
    let before: Vec<i64> = tables.iter().map(|t| count(&mut owner, t)).collect();
    assert!(before.iter().all(|&n| n >= 1), "{before:?}");
    // Neither the application's role nor the owner can rewrite any of them.
    let mut app = PgServer::client(&app_url);
    for (who, c) in [("app", &mut app), ("owner", &mut owner)] {
        for t in tables {
            for sql in [
                format!("UPDATE {t} SET line = 'x'::bytea"),
                format!("DELETE FROM {t}"),
                format!("TRUNCATE {t}"),
            ] {
                let e = c.batch_execute(&sql).unwrap_err();
                let msg = e
                    .as_db_error()
                    .map(|d| d.message().to_string())
                    .unwrap_or_default();
                assert!(
                    msg.contains("append-only") || msg.contains("permission denied"),
                    "{who}: {sql}: {e:?}"
                );
            }
        }
    }
    // The application's role cannot take the triggers away either.
    let e = app
        .batch_execute("DROP TRIGGER ledger_lines_append_only ON ledger_lines")
        .unwrap_err();
    assert!(
        e.as_db_error().unwrap().message().contains("owner"),
        "{e:?}"
    );
    let after: Vec<i64> = tables.iter().map(|t| count(&mut owner, t)).collect();
    assert_eq!(before, after, "nothing was changed");
    assert_eq!(lines_in_db(&owner_url).len(), 1);
    // A second supersede of one entry is refused by the database itself, whatever the app.
    let e = owner
        .batch_execute(
            "INSERT INTO ledger_lines (line, entry_id, supersedes) VALUES ('{}', 'a', 'mem-x');
             INSERT INTO ledger_lines (line, entry_id, supersedes) VALUES ('{}', 'b', 'mem-x')",
        )
        .unwrap_err();
    assert!(
        e.as_db_error()
            .unwrap()
            .constraint()
            .unwrap()
            .contains("supersedes")
    );
}

#[test]
fn supersede_races_across_processes_are_won_exactly_once() {
    let (dir, url) = server().project();
    let root = dir.path();
    for round in 0..5 {
        let target = cli_publish_as(
            root,
            None,
            ("decision", "room-001", "engineer"),
            &format!("Target {round}"),
            &[],
        );
        let id = target["entry"]["id"].as_str().unwrap().to_string();
        let children: Vec<_> = (0..6)
            .map(|i| {
                std::process::Command::new(BIN)
                    .arg("--root")
                    .arg(root)
                    .args([
                        "--json", "publish", "--kind", "decision", "--room", "room-001",
                    ])
                    .args([
                        "--role",
                        "engineer",
                        "--summary",
                        &format!("Replacement {round}.{i}"),
                    ])
                    .args(["--supersedes", &id])
                    .env_remove("WARROOM_DATABASE_URL")
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outs: Vec<_> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        let won = outs.iter().filter(|o| o.status.success()).count();
        assert_eq!(won, 1, "round {round}: exactly one supersede wins");
        for o in outs.iter().filter(|o| !o.status.success()) {
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains("already superseded"), "{err}");
        }
    }
    let n: i64 = PgServer::client(&url)
        .query_one(
            "SELECT count(*) FROM ledger_lines WHERE supersedes IS NOT NULL",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 5);
    let (code, out, err) = cli(root, &["verify"]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn concurrent_writers_lose_nothing_and_keep_one_chain() {
    let (dir, url) = server().project();
    let root = dir.path();
    let children: Vec<_> = (0..6)
        .map(|w| {
            let script = (0..25)
                .map(|i| {
                    format!(
                        "{BIN} --root {} publish --kind decision --room room-{w:03} --role engineer --summary 'writer {w} note {i}' >/dev/null || exit 1",
                        root.display()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n");
            std::process::Command::new("sh").arg("-c").arg(script).spawn().unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let rows = lines_in_db(&url);
    assert_eq!(rows.len(), 150);
    let mut summaries: Vec<String> = rows
        .iter()
        .map(|r| {
            serde_json::from_slice::<Value>(r).unwrap()["summary"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    summaries.sort();
    summaries.dedup();
    assert_eq!(summaries.len(), 150, "every publish stored exactly once");
    let (code, out, err) = cli(root, &["--json", "verify"]);
    assert_eq!(code, 0, "{out}{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["lines"], 150);
}

#[test]
fn a_held_database_lock_costs_a_clear_error_after_lock_wait_never_a_hang() {
    let (dir, url) = server().project();
    let root = dir.path();
    let config = root.join(".agents/warroom.yaml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("lock_wait_seconds: 1\n");
    std::fs::write(&config, text).unwrap();
    // Another client (a stuck writer on another host) holds the ledger's append lock
    // (namespace 0x57520001, see store::pg::schema::LOCK_LEDGER).
    let mut holder = PgServer::client(&url);
    holder
        .batch_execute("BEGIN; SELECT pg_advisory_xact_lock(1464991745, hashtext(''))")
        .unwrap();
    let started = std::time::Instant::now();
    let (code, _, err) = cli(root, &PUBLISH_ARGON2);
    let waited = started.elapsed();
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("another writer holds the append lock") && err.contains("wrote nothing"),
        "{err}"
    );
    assert!(
        waited < std::time::Duration::from_secs(30),
        "bounded: {waited:?}"
    );
    assert!(lines_in_db(&url).is_empty());
    holder.batch_execute("COMMIT").unwrap();
    cli_publish_as(
        root,
        None,
        ("decision", "room-001", "engineer"),
        "Not blocked",
        &[],
    );
    assert_eq!(lines_in_db(&url).len(), 1);
}

#[test]
fn diff_since_reads_the_right_rows_across_sequence_gaps() {
    let (dir, url) = server().project();
    let root = dir.path();
    let gap = || {
        // A rolled-back insert consumes a sequence number: rows and lines part ways.
        let mut c = PgServer::client(&url);
        c.batch_execute(
            "BEGIN; INSERT INTO ledger_lines (line) VALUES ('{}'::bytea); ROLLBACK;
             BEGIN; INSERT INTO ledger_lines (line) VALUES ('{}'::bytea); ROLLBACK;",
        )
        .unwrap();
    };
    for (i, day) in ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"]
        .iter()
        .enumerate()
    {
        cli_publish_as(
            root,
            Some(&format!("{day}T10:00:00Z")),
            ("decision", "room-001", "engineer"),
            &format!("Decision {i}"),
            &[],
        );
        gap();
    }
    let seqs: Vec<i64> = PgServer::client(&url)
        .query("SELECT seq FROM ledger_lines ORDER BY seq", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(seqs, vec![1, 4, 7, 10], "the test made gaps");
    // The same ledger as a file.
    let files = exported(root);
    for since in ["2026-11-02", "2026-11-03T12:00:00Z", "2026-10-01"] {
        let args = [
            "--json",
            "--now",
            "2026-11-05T00:00:00Z",
            "diff",
            "--since",
            since,
        ];
        let (c1, a, e1) = cli(root, &args);
        let (c2, b, e2) = cli(files.path(), &args);
        assert_eq!((c1, c2), (0, 0), "{e1}{e2}");
        assert_eq!(a, b, "since {since}");
    }
    let (_, a, _) = cli(
        root,
        &[
            "--json",
            "--now",
            "2026-11-05T00:00:00Z",
            "diff",
            "--since",
            "2026-11-02",
        ],
    );
    let report: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(report["counts"]["added"], 3, "{report}");
}

/// `overlaps` reads the index a round at a time (each round checks the database for news):
/// on a ledger in PostgreSQL it lists the same open pairs as on the same lines in a file.
#[test]
fn open_overlaps_in_the_database_are_those_of_the_same_ledger_in_a_file() {
    let (dir, _url) = server().project();
    let root = dir.path();
    for (room, summary) in [
        (
            "room-001",
            "Money is stored as integer cents (amount_cents).",
        ),
        (
            "room-002",
            "Money is stored as DECIMAL dollars, not amount_cents.",
        ),
        (
            "room-003",
            "Access tokens expire after 15 minutes (ACCESS_TTL).",
        ),
        (
            "room-004",
            "ACCESS_TTL is 24 hours so nobody logs in twice a day.",
        ),
        (
            "room-005",
            "The background image of the landing page is a photo.",
        ),
    ] {
        cli_publish_as(
            root,
            Some("2026-11-02T10:00:00Z"),
            ("decision", room, "engineer"),
            summary,
            &[],
        );
    }
    let files = exported(root);
    let args = ["--json", "--now", "2026-11-03T00:00:00Z", "overlaps"];
    let (c1, a, e1) = cli(root, &args);
    let (c2, b, e2) = cli(files.path(), &args);
    assert_eq!((c1, c2), (1, 1), "exit 1 while overlaps are open: {e1}{e2}");
    assert_eq!(a, b);
    let listed: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(listed["open"], 2, "{listed}");
}

#[test]
fn migrations_upgrade_an_older_schema_and_refuse_a_newer_one() {
    let (dir, url) = server().project();
    let root = dir.path();
    let (code, out, err) = cli(root, &["--json", "db", "migrate"]);
    assert_eq!(code, 0, "{err}");
    let m: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((m["from"].as_i64(), m["to"].as_i64()), (Some(0), Some(3)));
    // Back to version 1 (what a server of the first release created): the plans and
    // receipts tables did not exist yet.
    let mut c = PgServer::client(&url);
    c.batch_execute(
        "DROP TABLE plan_lines; DROP FUNCTION warroom_notify_plans(); DROP TABLE receipt_lines;
         UPDATE warroom_meta SET value = '1' WHERE key = 'schema_version'",
    )
    .unwrap();
    let (code, out, _) = cli(root, &["db", "migrate"]);
    assert_eq!(code, 0);
    assert!(out.contains("from version 1 to 3"), "{out}");
    // Briefs on the upgraded database leave receipts.
    let (code, out, err) = cli(root, &["--json", "context", "room-001"]);
    assert!(code == 0 || code == 1, "{err}");
    assert!(out.contains("rcpt-"), "{out}");
    let plan = r#"{"plan_id": "p1", "epics": [{"ref": "EPIC-001", "room_id": "room-001"}]}"#;
    let file = root.join("p1.json");
    std::fs::write(&file, plan).unwrap();
    let (code, _, err) = cli(root, &["plan", "register", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // A schema newer than this binary is refused, and nothing is changed.
    c.batch_execute("UPDATE warroom_meta SET value = '99' WHERE key = 'schema_version'")
        .unwrap();
    let (code, _, err) = cli(root, &["search", "anything"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("version 99, newer than this binary knows"),
        "{err}"
    );
    let v: String = c
        .query_one(
            "SELECT value FROM warroom_meta WHERE key = 'schema_version'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(v, "99");
}

#[test]
fn a_password_in_the_url_is_never_printed_or_logged() {
    // The test server trusts local connections, so the password is accepted and unused:
    // every command succeeds, and none may print it, even at debug level.
    let s = server();
    let url = s.fresh_db().replacen(
        "postgresql://postgres@",
        "postgresql://postgres:hunter2-s3cret@",
        1,
    );
    assert!(url.contains("hunter2"), "{url}");
    let dir = common::project();
    let root = dir.path();
    let env = [
        ("WARROOM_DATABASE_URL", url.as_str()),
        ("WARROOM_LOG", "debug"),
    ];
    for args in [
        &PUBLISH_ARGON2[..],
        &["search", "argon2id"],
        &["db", "status"],
        &["verify"],
        &["db", "export"],
    ] {
        let (code, out, err) = common::cli_env(root, args, &env);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(
            !out.contains("hunter2") && !err.contains("hunter2"),
            "{args:?} printed the password:\n{out}\n{err}"
        );
    }
    let (_, help, _) = common::cli_env(root, &["--help"], &env);
    assert!(!help.contains("hunter2"));
}
