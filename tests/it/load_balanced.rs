//! Several daemons behind one load balancer: two daemons on one PostgreSQL ledger, sharing
//! an operator token (`--token-file`), and one client whose requests alternate between
//! them. MCP 2026-07-28 needs no session, so each request stands alone: what one daemon
//! wrote, the other finds, and a `subscriptions/listen` stream on one hears a publish made
//! through the other. (docs/operations.md § Several daemons behind one load balancer.)

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use common::daemon::*;
use common::*;
use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};

/// One stateless 2026-07-28 request to `url`, acting as room-a's engineer (or `room`).
async fn request(url: &str, token: &str, room: &str, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "alternating", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut req = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("x-warroom-room", room)
        .header("x-warroom-role", "engineer");
    if let Some(name) = params["name"].as_str() {
        req = req.header("mcp-name", name.to_string());
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let resp = req.body(body.to_string()).send().await.unwrap();
    assert!(
        resp.headers().get("mcp-session-id").is_none(),
        "a 2026-07-28 request opens no session"
    );
    let status = resp.status();
    let text = resp.text().await.unwrap();
    assert!(status.is_success(), "{status}: {text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert!(v.get("error").is_none(), "{v}");
    v["result"].clone()
}

async fn tool(url: &str, token: &str, room: &str, name: &str, args: Value) -> Value {
    let r = request(
        url,
        token,
        room,
        "tools/call",
        json!({"name": name, "arguments": args}),
    )
    .await;
    assert_eq!(r["isError"], false, "{r}");
    r["structuredContent"].clone()
}

fn project_on(db: &str) -> tempfile::TempDir {
    let dir = project();
    std::fs::write(
        dir.path().join(".agents/warroom.yaml"),
        format!("ledger: \"{db}\"\n"),
    )
    .unwrap();
    dir
}

fn shared_token(dir: &Path) -> (std::path::PathBuf, String) {
    let file = dir.join("operator.token");
    let token = "5".repeat(64);
    std::fs::write(&file, &token).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    (file, token)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_daemons_on_one_database_serve_a_client_that_alternates_between_them() {
    let db = tokio::task::spawn_blocking(|| common::pg::server().fresh_db())
        .await
        .unwrap();
    let secrets = tempfile::tempdir().unwrap();
    let (token_file, token) = shared_token(secrets.path());
    let token_arg = token_file.display().to_string();
    let (root_a, root_b) = (project_on(&db), project_on(&db));
    let (run_a, run_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        token_arg.as_str(),
    ];
    let _a = start_daemon_with(root_a.path(), run_a.path(), &args);
    let _b = start_daemon_with(root_b.path(), run_b.path(), &args);
    let urls = [
        url_of(root_a.path(), run_a.path()),
        url_of(root_b.path(), run_b.path()),
    ];
    assert_ne!(urls[0], urls[1]);

    // The listener: a discover-only client of daemon B, on room-b's resource.
    let transport = http_transport(&urls[1], &token, Some("room-z"), Some("qa"));
    let listener = ()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let uri = "warroom://room/room-b";
    let mut sub = listener
        .peer()
        .listen(
            SubscriptionFilter::builder()
                .resource_subscription(uri)
                .build(),
        )
        .await
        .unwrap();

    // One client, each request to the other daemon in turn.
    let mut ids = Vec::new();
    for (k, room) in ["room-a", "room-b", "room-a", "room-b"].iter().enumerate() {
        let url = &urls[k % 2];
        let out = tool(
            url,
            &token,
            room,
            "memory_publish",
            json!({"kind": "decision", "summary": format!("Ledger shared by daemons, fact {k}")}),
        )
        .await;
        let id = out["entry"]["id"].as_str().unwrap().to_string();
        // The next request goes to the other daemon, which finds what this one wrote.
        let other = &urls[(k + 1) % 2];
        let found = tool(
            other,
            &token,
            "room-z",
            "memory_search",
            json!({"text": format!("ledger shared daemons fact {k}")}),
        )
        .await;
        assert!(hit_ids(&found).contains(&id), "{k}: {found}");
        ids.push(id);
    }
    let all = tool(
        &urls[0],
        &token,
        "room-z",
        "memory_query",
        json!({"last_n": 50}),
    )
    .await;
    let seen = entry_ids(&all);
    assert!(ids.iter().all(|i| seen.contains(i)), "{all}");

    // room-b published through daemon A (k = 1 went to B; make one more through A): the
    // stream opened on B hears it.
    tool(
        &urls[0],
        &token,
        "room-b",
        "memory_publish",
        json!({"kind": "warning", "summary": "The shared ledger is read by both daemons"}),
    )
    .await;
    let mut heard = false;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !heard && tokio::time::Instant::now() < deadline {
        match tokio::time::timeout_at(deadline, sub.next()).await {
            Ok(Ok(Some(ServerNotification::ResourceUpdatedNotification(n)))) => {
                heard = n.params.uri == uri;
            }
            Ok(Ok(Some(_))) => {}
            other => panic!("the stream ended: {other:?}"),
        }
    }
    assert!(heard, "daemon B's listener hears a publish made through A");
    sub.cancel().await.unwrap();
    listener.cancel().await.unwrap();
}
