//! The daemon through the real binary: one global server per root that stdio agents
//! attach to (`serve` becomes a relay), identity per session, one daemon per root, status
//! and stop, and agents that keep answering when the daemon is killed mid-session.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::daemon::*;
use common::*;
use serde_json::{Value, json};

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

/// An HTTP MCP session (rmcp's Streamable HTTP client) acting as `room`: publishes `n`
/// entries, returns their ids. `token` is the operator's (then the session names `room`
/// with headers) or an agent token issued for `room` (then it sends no identity header).
async fn http_agent_publishes(
    url: String,
    token: String,
    operator: bool,
    room: String,
    n: usize,
) -> Vec<String> {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    let transport = if operator {
        http_transport(&url, &token, Some(&room), Some("engineer"))
    } else {
        http_transport(&url, &token, None, None)
    };
    let client = ().serve(transport).await.expect("an HTTP session opens");
    let mut ids = Vec::new();
    for k in 0..n {
        let args = json!({"kind": "decision", "summary": format!("{room} fact {k} about caching")});
        let Value::Object(map) = args else {
            unreachable!()
        };
        let r = client
            .call_tool(CallToolRequestParams::new("memory_publish").with_arguments(map))
            .await
            .unwrap();
        let v = r.structured_content.expect("structured result");
        assert_eq!(v["entry"]["room_id"], room.as_str(), "{v}");
        ids.push(v["entry"]["id"].as_str().unwrap().to_string());
        // Context and the room's channel, meanwhile.
        for (tool, args) in [
            ("memory_get_context", json!({})),
            (
                "channel_post",
                json!({"type": "task", "body": format!("step {k}")}),
            ),
        ] {
            let Value::Object(map) = args else {
                unreachable!()
            };
            let r = client
                .call_tool(CallToolRequestParams::new(tool).with_arguments(map))
                .await
                .unwrap();
            assert_ne!(r.is_error, Some(true), "{tool}: {r:?}");
        }
    }
    client.cancel().await.unwrap();
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_agents_share_one_daemon_each_with_its_own_identity() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let _d = start_daemon(p.path(), rt.path());
    let url = url_of(p.path(), rt.path());
    let operator = operator_token(p.path(), rt.path());
    // Two sessions with the operator token naming their room, two with agent tokens.
    let http: Vec<_> = (0..4)
        .map(|k| {
            let room = format!("room-h{k}");
            let (token, is_operator) = if k < 2 {
                (operator.clone(), true)
            } else {
                (issue_token(p.path(), rt.path(), &room, "engineer").1, false)
            };
            tokio::spawn(http_agent_publishes(
                url.clone(),
                token,
                is_operator,
                room,
                5,
            ))
        })
        .collect();
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
            // Reading context and the room's channel while the others publish.
            a.ok(
                "channel_post",
                json!({"type": "task", "body": format!("step {n}")}),
            )
            .await;
            let ctx = a.ok("memory_get_context", json!({})).await;
            assert_eq!(ctx["room_id"], format!("room-{i:02}"));
        }
        let ch = a.ok("channel_read", json!({})).await;
        assert_eq!(ch["total"], 5, "agent {i}'s own channel: {ch}");
        ids
    }))
    .await;
    let mut all: Vec<String> = published.concat();
    for t in http {
        all.extend(t.await.unwrap());
    }
    assert_eq!(
        all.len(),
        100,
        "16 stdio agents and 4 HTTP sessions, 5 entries each"
    );
    for (i, a) in agents.iter().enumerate() {
        // Everyone sees every entry exactly once…
        let everything = a
            .ok(
                "memory_search",
                json!({"text": "caching", "room_id": "*", "max_results": 50}),
            )
            .await;
        assert_eq!(everything["total"], 100, "agent {i}: {everything}");
        // …and by default never its own room.
        let others = a.ok("memory_query", json!({})).await;
        assert_eq!(others["total"], 95, "agent {i}");
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
    let mut refused = Vec::new();
    for round in 0..3 {
        for (i, a) in agents.iter().enumerate() {
            // The first call after the kill may be refused (the relay found the daemon
            // gone; never resent, so never applied); every later call of every agent works.
            let summary = format!("after {i}.{round}");
            let r = a
                .call(
                    "memory_publish",
                    json!({"kind": "warning", "summary": summary}),
                )
                .await;
            if r.is_error == Some(true) {
                assert_eq!(round, 0, "agent {i} failed again after failover: {r:?}");
                refused.push(summary);
            } else {
                acked.push(r.structured_content.unwrap()["entry"]["id"].clone());
            }
        }
    }
    assert!(
        acked.len() >= 3 + 6,
        "every agent answers after the kill: {}",
        acked.len()
    );
    let text = std::fs::read_to_string(ledger(p.path())).unwrap();
    for s in &refused {
        assert!(
            !text.contains(&format!("\"{s}\"")),
            "a call reported refused was written: {s}"
        );
    }
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
    let second = daemon_cmd(p.path(), rt.path(), &["--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
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

/// One HTTP/1.1 exchange on loopback: status, headers, de-chunked body.
fn http_post(url: &str, headers: &[(&str, &str)], body: &str) -> (u16, String, String) {
    let r = xtask::http_client::post(url, headers, body).unwrap();
    (r.status, r.head, r.body)
}

const INIT: &str = xtask::http_client::INITIALIZE;

#[test]
fn http_sessions_take_their_identity_from_headers_and_keep_it() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let _d = start_daemon(p.path(), rt.path());
    let url = url_of(p.path(), rt.path());
    let bearer = format!("Bearer {}", operator_token(p.path(), rt.path()));
    let who = [
        ("X-Warroom-Room", "room-h"),
        ("X-Warroom-Role", "qa"),
        ("Authorization", bearer.as_str()),
    ];
    let reply = xtask::http_client::post(&url, &who, INIT).unwrap();
    assert_eq!(reply.status, 200, "{}", reply.head);
    let sid = reply.header("mcp-session-id").expect("a session id");
    fn with<'a>(sid: &'a str, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        let mut h: Vec<(&str, &str)> = vec![
            ("mcp-session-id", sid),
            ("MCP-Protocol-Version", "2025-06-18"),
        ];
        h.extend_from_slice(extra);
        h
    }
    let session = |extra| with(&sid, extra);
    let (status, _, _) = http_post(
        &url,
        &session(&who),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(status, 202);
    let publish = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_publish","arguments":{"kind":"decision","summary":"over http"}}}"#;
    let (status, _, body) = http_post(&url, &session(&who), publish);
    assert_eq!(status, 200);
    assert!(
        body.contains(r#"\"room_id\":\"room-h\""#) || body.contains(r#""room_id":"room-h""#),
        "{body}"
    );
    // The same session cannot act as another room, whatever its headers say.
    let other = [
        ("X-Warroom-Room", "room-x"),
        ("X-Warroom-Role", "qa"),
        ("Authorization", bearer.as_str()),
    ];
    let query = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_query","arguments":{}}}"#;
    let (_, _, body) = http_post(&url, &session(&other), query);
    assert!(body.contains("this session acts as room room-h"), "{body}");
    assert_eq!(ids_in_ledger(p.path()).len(), 1);
    let line: Value = serde_json::from_str(&ledger_lines(p.path())[0]).unwrap();
    assert_eq!(line["room_id"], "room-h");
    // A browser page from a foreign origin is refused (DNS-rebinding defence), even
    // with the token.
    let (status, _, _) = http_post(
        &url,
        &[
            ("Origin", "http://evil.example"),
            ("Authorization", bearer.as_str()),
        ],
        INIT,
    );
    assert_eq!(status, 403);
}

/// Loopback is not trust: with no token given, the daemon makes an operator token (0600,
/// in a 0700 directory) and refuses every request without it — including one from
/// another account on the machine, which cannot read the token file either.
#[test]
fn loopback_http_needs_a_credential_even_from_this_machine() {
    use std::os::unix::fs::PermissionsExt;
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let _d = start_daemon(p.path(), rt.path());
    let url = url_of(p.path(), rt.path());
    let token = operator_token(p.path(), rt.path());
    assert_eq!(token.len(), 64, "32 random bytes, hex");
    let who = [
        ("X-Warroom-Room", "room-x"),
        ("X-Warroom-Role", "architect"),
    ];
    assert_eq!(http_post(&url, &who, INIT).0, 401, "no token, no session");
    let wrong = [("Authorization", "Bearer 0000000000000000000000000000000000")];
    assert_eq!(http_post(&url, &wrong, INIT).0, 401);
    let bearer = format!("Bearer {token}");
    assert_eq!(
        http_post(&url, &[("Authorization", bearer.as_str())], INIT).0,
        200
    );
    let status = daemon_cmd(p.path(), rt.path(), &["status"])
        .arg("--json")
        .output()
        .unwrap();
    let info: Value = serde_json::from_slice(&status.stdout).unwrap();
    let file = std::path::PathBuf::from(info["token_file"].as_str().unwrap());
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(file.parent().unwrap()), 0o700);
    // A restarted daemon keeps the same token (clients' configs stay valid).
    drop(_d);
    let _d = start_daemon(p.path(), rt.path());
    assert_eq!(operator_token(p.path(), rt.path()), token);
    // Another OS user (nobody, uid 65534) on the same machine: no session without the
    // token, and the token file is unreadable to it. Run as root (CI is), the client
    // really is another account; otherwise it is this one without the token.
    let url = url_of(p.path(), rt.path());
    let as_other = |cmd: &mut Command| {
        if warroom_memory::fsx::current_uid() == 0 {
            use std::os::unix::process::CommandExt;
            cmd.uid(65534).gid(65534);
        }
    };
    let mut curl = Command::new("curl");
    curl.args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST"])
        .args(["-H", "Content-Type: application/json"])
        .args(["-H", "Accept: application/json, text/event-stream"])
        .args([
            "-H",
            "X-Warroom-Room: room-001",
            "-H",
            "X-Warroom-Role: architect",
        ])
        .args(["--data", INIT, &url]);
    as_other(&mut curl);
    let out = curl
        .output()
        .expect("curl is missing. Fix: run `scripts/test`, which installs what the tests need");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "401");
    if warroom_memory::fsx::current_uid() == 0 {
        let mut cat = Command::new("cat");
        cat.arg(&file);
        as_other(&mut cat);
        let out = cat.output().unwrap();
        assert!(!out.status.success(), "another user read the token file");
        assert!(!String::from_utf8_lossy(&out.stdout).contains(&token));
    }
    assert!(ledger_lines(p.path()).is_empty(), "nothing was published");
}

/// An agent token is an identity: its sessions act as its room and role, a header naming
/// another is refused, and a revoked token stops at its next request.
#[test]
fn agent_tokens_bind_the_identity_and_can_be_revoked() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let _d = start_daemon(p.path(), rt.path());
    let url = url_of(p.path(), rt.path());
    let (id, token) = issue_token(p.path(), rt.path(), "room-a", "engineer");
    let bearer = format!("Bearer {token}");
    let open = |extra: &[(&str, &str)]| {
        let mut h = vec![("Authorization", bearer.as_str())];
        h.extend_from_slice(extra);
        let reply = xtask::http_client::post(&url, &h, INIT).unwrap();
        assert_eq!(reply.status, 200, "{}", reply.head);
        let sid = reply.header("mcp-session-id").expect("a session id");
        let mut h: Vec<(String, String)> = vec![
            ("Authorization".into(), bearer.clone()),
            ("mcp-session-id".into(), sid),
            ("MCP-Protocol-Version".into(), "2025-06-18".into()),
        ];
        h.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let refs: Vec<(&str, &str)> = h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(http_post(&url, &refs, note).0, 202);
        h
    };
    let call = |h: &[(String, String)], body: &str| {
        let refs: Vec<(&str, &str)> = h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        http_post(&url, &refs, body)
    };
    let publish = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_publish","arguments":{"kind":"decision","summary":"over an agent token"}}}"#;
    let plain = open(&[]);
    let (status, _, body) = call(&plain, publish);
    assert_eq!(status, 200, "{body}");
    let line: Value = serde_json::from_str(&ledger_lines(p.path())[0]).unwrap();
    assert_eq!(line["room_id"], "room-a");
    assert_eq!(line["author_role"], "engineer");
    // Headers naming another identity cannot move the token's session.
    let lying = open(&[
        ("X-Warroom-Room", "room-b"),
        ("X-Warroom-Role", "architect"),
    ]);
    let (_, _, body) = call(&lying, publish);
    assert!(body.contains("this token acts as room room-a"), "{body}");
    // Nor can an argument.
    let as_b = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_publish","arguments":{"kind":"decision","summary":"as b","room_id":"room-b"}}}"#;
    let (_, _, body) = call(&plain, as_b);
    assert!(body.contains("isError") || body.contains("error"), "{body}");
    assert_eq!(
        ledger_lines(p.path()).len(),
        1,
        "only the first publish was written"
    );
    // Revoked: refused at the next request, on an open session too.
    let revoke = Command::new(BIN)
        .arg("--root")
        .arg(p.path())
        .args(["token", "revoke", &id])
        .env("XDG_RUNTIME_DIR", rt.path())
        .env("XDG_STATE_HOME", rt.path())
        .output()
        .unwrap();
    assert!(revoke.status.success());
    assert_eq!(call(&plain, publish).0, 401);
    assert_eq!(
        http_post(&url, &[("Authorization", bearer.as_str())], INIT).0,
        401
    );
    assert_eq!(ledger_lines(p.path()).len(), 1);
}

#[test]
fn off_loopback_http_needs_a_token_and_checks_it() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let refused = daemon_cmd(p.path(), rt.path(), &["--listen", "0.0.0.0:0"])
        .env_remove("WARROOM_TOKEN")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("without a bearer token") && err.contains("--token-file"),
        "{err}"
    );
    let token = "0123456789abcdef0123456789abcdef";
    let token_file = p.path().join("token");
    std::fs::write(&token_file, format!("{token}\n")).unwrap();
    // A token file others can read or write is refused (another account could choose
    // or learn the operator's token), naming the file, its mode and the fix.
    use std::os::unix::fs::PermissionsExt;
    for mode in [0o666, 0o644, 0o620] {
        std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(mode)).unwrap();
        let refused = daemon_cmd(
            p.path(),
            rt.path(),
            &[
                "--listen",
                "0.0.0.0:0",
                "--token-file",
                token_file.to_str().unwrap(),
            ],
        )
        .output()
        .unwrap();
        assert_eq!(refused.status.code(), Some(2), "mode {mode:o}");
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(
            err.contains("--token-file")
                && err.contains(&format!("mode {mode:o}"))
                && err.contains("chmod 600"),
            "{err}"
        );
    }
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let _d = start_daemon_with(
        p.path(),
        rt.path(),
        &[
            "--listen",
            "0.0.0.0:0",
            "--token-file",
            token_file.to_str().unwrap(),
        ],
    );
    // Talk to it on loopback only.
    let port = url_of(p.path(), rt.path())
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp")
        .to_string();
    let url = format!("http://127.0.0.1:{port}/mcp");
    assert_eq!(http_post(&url, &[], INIT).0, 401);
    assert_eq!(
        http_post(
            &url,
            &[("Authorization", "Bearer wrong-token-wrong-token")],
            INIT
        )
        .0,
        401
    );
    let bearer = format!("Bearer {token}");
    assert_eq!(
        http_post(&url, &[("Authorization", bearer.as_str())], INIT).0,
        200
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_agent_can_bring_the_daemon_up() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let spawn = |room: &str| {
        agent(p.path())
            .room(room)
            .role("manager")
            .env("XDG_RUNTIME_DIR", &rt.path().display().to_string())
            .env("WARROOM_SPAWN", "true")
            .env("WARROOM_DAEMON", "require")
            .start()
    };
    let first = spawn("room-1").await;
    publish(
        &first,
        "decision",
        "the first agent started the daemon",
        json!({}),
    )
    .await;
    let status = daemon_cmd(p.path(), rt.path(), &["status"])
        .arg("--json")
        .output()
        .unwrap();
    assert!(status.status.success(), "a daemon runs now");
    let info: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert!(
        info["url"].is_null(),
        "a spawned daemon serves no HTTP unless asked"
    );
    let second = spawn("room-2").await;
    let seen = second.ok("memory_query", json!({})).await;
    assert_eq!(seen["total"], 1, "{seen}");
    for a in [&first, &second] {
        assert!(
            a.stderr().contains("attached to the project's daemon"),
            "{}",
            a.stderr()
        );
    }
    assert!(first.stderr().contains("started one"));
    assert!(
        !second.stderr().contains("started one"),
        "the second agent found it running"
    );
    let stop = daemon_cmd(p.path(), rt.path(), &["stop"]).output().unwrap();
    assert!(stop.status.success());
}

/// Red-team finding 11: `daemon --tools core` applies to relayed stdio agents too (they
/// used to get every tool, while HTTP sessions got the core set).
#[tokio::test]
async fn the_daemons_tool_set_applies_to_relayed_agents() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let _d = start_daemon_with(
        p.path(),
        rt.path(),
        &["--listen", "none", "--tools", "core"],
    );
    let a = attached(p.path(), rt.path(), "room-1").await;
    let mut names: Vec<String> = a.tools().await.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "memory_get",
            "memory_get_context",
            "memory_publish",
            "memory_query",
            "memory_search"
        ]
    );
    let Value::Object(args) = json!({"type": "task", "body": "x"}) else {
        unreachable!()
    };
    let refused = a
        .client
        .call_tool(rmcp::model::CallToolRequestParams::new("channel_post").with_arguments(args))
        .await;
    let said = format!("{refused:?}");
    assert!(
        refused.is_err() && said.contains("unknown tool `channel_post`"),
        "{said}"
    );
    assert!(
        !p.path()
            .join(".agents/war-rooms/room-1/channel.jsonl")
            .exists()
    );
}

/// Reads from `s` until the peer closes it (Ok) or `within` passes (Err): how a test sees
/// that the server dropped a connection, without timing anything.
fn closed_by_peer(
    s: &mut std::net::TcpStream,
    within: std::time::Duration,
) -> Result<Vec<u8>, String> {
    use std::io::{ErrorKind, Read};
    let deadline = std::time::Instant::now() + within;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        // A read with a timeout is not restarted after a signal (signal(7)): another
        // test's child exiting delivers SIGCHLD to this thread, so EINTR means "read again"
        // with what is left of the wait.
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(format!("still open after {within:?}"));
        }
        s.set_read_timeout(Some(left)).unwrap();
        match s.read(&mut buf) {
            Ok(0) => return Ok(got),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return Ok(got),
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("still open after {within:?}: {e}")),
        }
    }
}

/// Red-team finding 6 and 7: a connection that sends half a header (or nothing) is
/// closed after the header timeout; past the connection cap new connections are closed at
/// once; past the session cap an initialize is refused with 503 naming the cap; idle
/// sessions expire and their places (and memory) are given back.
#[test]
fn http_connections_and_sessions_are_bounded() {
    use std::io::Write;
    use std::time::Duration;
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let _d = start_daemon_with(
        p.path(),
        rt.path(),
        &[
            "--listen",
            "127.0.0.1:0",
            "--max-connections",
            "3",
            "--max-sessions",
            "2",
            "--session-idle",
            "2",
            "--header-timeout",
            "2",
        ],
    );
    let url = url_of(p.path(), rt.path());
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let bearer = format!("Bearer {}", operator_token(p.path(), rt.path()));
    let auth = [("Authorization", bearer.as_str())];
    // Half a header: closed by the server, never answered.
    let mut half = std::net::TcpStream::connect(&addr).unwrap();
    half.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    let got = closed_by_peer(&mut half, Duration::from_secs(20)).expect("closed");
    assert!(!String::from_utf8_lossy(&got).contains("200 OK"));
    // Three idle connections fill the cap; a fourth takes the place of the oldest one that
    // never authenticated (idle sockets must not starve agents) and is served.
    let mut idle: Vec<_> = (0..3)
        .map(|_| std::net::TcpStream::connect(&addr).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut fourth = std::net::TcpStream::connect(&addr).unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: {bearer}\r\nContent-Length: {}\r\n\r\n{INIT}",
        INIT.len()
    );
    let _ = fourth.write_all(request.as_bytes());
    let mut answer = [0u8; 12];
    std::io::Read::read_exact(&mut fourth, &mut answer).unwrap();
    assert_eq!(&answer, b"HTTP/1.1 200", "the fourth is answered");
    let got = closed_by_peer(&mut idle[0], Duration::from_secs(20)).expect("the oldest closed");
    assert!(got.is_empty(), "{}", String::from_utf8_lossy(&got));
    drop(fourth);
    // The other idle ones time out, and the daemon serves again.
    for s in &mut idle[1..] {
        closed_by_peer(s, Duration::from_secs(20)).expect("idle connection closed");
    }
    // The fourth's session and one more fill the session cap of two; a third initialize
    // is refused, saying why.
    assert_eq!(http_post(&url, &auth, INIT).0, 200);
    let (status, head, body) = http_post(&url, &auth, INIT);
    assert_eq!(status, 503, "{head}");
    assert!(body.contains("--max-sessions 2"), "{body}");
    // Idle sessions end (2 s) and give their places back.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        if http_post(&url, &auth, INIT).0 == 200 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "idle sessions never expired"
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Red-team finding 6: with its open-file limit reached, the daemon's socket accept loop
/// backs off and logs once, instead of spinning and logging every attempt; and it serves
/// again once descriptors are free.
#[tokio::test]
async fn running_out_of_descriptors_does_not_make_the_daemon_spin() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let log = p.path().join("daemon.log");
    let runtime = rt.path().display().to_string();
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n 40; exec '{BIN}' --root '{}' daemon --listen none",
            p.path().display()
        ))
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("XDG_STATE_HOME", &runtime)
        .env_remove("WARROOM_ROOM_ID")
        .env_remove("WARROOM_ROLE")
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    wait_until_ready(p.path(), rt.path());
    let info: Value = serde_json::from_slice(
        &daemon_cmd(p.path(), rt.path(), &["status"])
            .arg("--json")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let socket = info["socket"].as_str().unwrap().to_string();
    // Far more connections than the daemon has descriptors for, held open.
    let held: Vec<_> = (0..120)
        .filter_map(|_| std::os::unix::net::UnixStream::connect(&socket).ok())
        .collect();
    assert!(held.len() > 40, "connected {}", held.len());
    // A relay that cannot get an answer now is told the daemon is overloaded, not that
    // there is none.
    let mut relay = std::process::Command::new(BIN);
    relay
        .arg("--root")
        .arg(p.path())
        .args(["serve", "--daemon", "require"])
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("XDG_STATE_HOME", &runtime)
        .env("WARROOM_ROOM_ID", "room-9");
    let (code, _, err) = output_within(&mut relay, std::time::Duration::from_secs(60));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("did not answer within 2 s") && !err.contains("no daemon serves"),
        "{err}"
    );
    std::thread::sleep(std::time::Duration::from_secs(2));
    let text = std::fs::read_to_string(&log).unwrap();
    let failures = text.matches("accept failed").count();
    assert!(
        (1..=3).contains(&failures),
        "{failures} `accept failed` lines:\n{}",
        text.get(..4000).unwrap_or(&text)
    );
    // Descriptors free again: an agent attaches and is served.
    drop(held);
    let a = attached(p.path(), rt.path(), "room-1").await;
    publish(&a, "decision", "served after the storm", json!({})).await;
    assert!(
        std::fs::read_to_string(&log)
            .unwrap()
            .contains("accepting connections again")
    );
    let _ = child.kill();
    let _ = child.wait();
}
