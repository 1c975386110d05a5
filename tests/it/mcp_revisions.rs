//! Both MCP revisions through the real binary: a client that speaks only 2026-07-28
//! (`server/discover`, per-request `_meta`, `subscriptions/listen`, no `initialize`) over
//! stdio directly, over stdio relayed to a daemon, and over HTTP; and a client that speaks
//! only 2025-11-25 (the `initialize` handshake). Plus the raw lines a client without an
//! SDK sends, and the errors the revision defines.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::daemon::*;
use common::*;
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use serde_json::{Value, json};

fn only_2026() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    }
}

fn negotiated(client: &RunningService<RoleClient, ()>) -> String {
    client
        .peer_info()
        .expect("the server answered")
        .protocol_version
        .to_string()
}

async fn call(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> Value {
    let Value::Object(map) = args else {
        panic!("arguments must be an object")
    };
    let r = client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert_ne!(r.is_error, Some(true), "{tool}: {r:?}");
    r.structured_content.expect("structured content")
}

/// room-b publishes a decision through the CLI (another process, as another agent would).
fn room_b_decides(root: &std::path::Path) {
    cli_publish_as(
        root,
        None,
        ("decision", "room-b", "engineer"),
        "Use cents for money",
        &[],
    );
}

/// What a 2026-07-28 client does: lists tools twice (same answer), publishes, finds it,
/// and listens to `room`'s resource while `publish_there` publishes in it.
async fn exercise_2026(
    client: &RunningService<RoleClient, ()>,
    room: &str,
    publish_there: impl std::future::Future<Output = ()>,
) {
    assert_eq!(negotiated(client), "2026-07-28");
    let names = |tools: Vec<rmcp::model::Tool>| -> Vec<String> {
        tools.iter().map(|t| t.name.to_string()).collect()
    };
    let first = names(client.list_all_tools().await.unwrap());
    assert!(first.contains(&"memory_publish".to_string()), "{first:?}");
    assert_eq!(first, names(client.list_all_tools().await.unwrap()));

    let published = call(
        client,
        "memory_publish",
        json!({"kind": "decision", "summary": "Sessions expire after 15 minutes of idle time"}),
    )
    .await;
    let id = published["entry"]["id"].as_str().unwrap().to_string();
    let found = call(
        client,
        "memory_search",
        json!({"text": "sessions expire idle", "room_id": published["entry"]["room_id"]}),
    )
    .await;
    assert!(hit_ids(&found).contains(&id), "{found}");

    let uri = format!("warroom://room/{room}");
    let mut sub = client
        .peer()
        .listen(
            SubscriptionFilter::builder()
                .resource_subscription(uri.clone())
                .resource_subscription("warroom://nothing-here")
                .build(),
        )
        .await
        .expect("subscriptions/listen is acknowledged");
    assert_eq!(
        sub.acknowledged().resource_subscriptions.as_deref(),
        Some(&[uri.clone()][..]),
        "a URI the server does not serve is left out of the acknowledgment"
    );
    publish_there.await;
    let note = tokio::time::timeout(Duration::from_secs(10), sub.next())
        .await
        .expect("an update arrives within 10 s")
        .expect("the stream is open")
        .expect("a notification");
    match note {
        ServerNotification::ResourceUpdatedNotification(n) => assert_eq!(n.params.uri, uri),
        other => panic!("expected resources/updated, got {other:?}"),
    }
    sub.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_speaking_only_2026_07_28_works_over_stdio_directly() {
    let dir = project();
    let client = agent(dir.path())
        .room("room-a")
        .role("engineer")
        .env("WARROOM_DAEMON", "off")
        .start_with(only_2026())
        .await;
    let root = dir.path().to_path_buf();
    exercise_2026(
        &client.client,
        "room-b",
        async move { room_b_decides(&root) },
    )
    .await;
    client.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_speaking_only_2026_07_28_works_relayed_to_the_daemon() {
    let dir = project();
    let runtime = tempfile::tempdir().unwrap();
    let _daemon = start_daemon(dir.path(), runtime.path());
    let client = agent(dir.path())
        .room("room-a")
        .role("engineer")
        .env("XDG_RUNTIME_DIR", &runtime.path().display().to_string())
        .env("WARROOM_DAEMON", "require")
        .start_with(only_2026())
        .await;
    // The relayed agent's identity comes from its environment, not from a message.
    let other = attached(dir.path(), runtime.path(), "room-b").await;
    exercise_2026(&client.client, "room-b", async {
        publish(&other, "decision", "Use cents for money", json!({})).await;
    })
    .await;
    let mine = call(&client.client, "memory_query", json!({"room_id": "room-a"})).await;
    assert_eq!(mine["entries"][0]["author_role"], "engineer", "{mine}");
    client.stop().await;
    other.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_speaking_only_2026_07_28_works_over_http() {
    let dir = project();
    let runtime = tempfile::tempdir().unwrap();
    let _daemon = start_daemon(dir.path(), runtime.path());
    let (url, token) = (
        url_of(dir.path(), runtime.path()),
        operator_token(dir.path(), runtime.path()),
    );
    let transport = http_transport(&url, &token, Some("room-a"), Some("engineer"));
    let client = ().serve_with_lifecycle(transport, only_2026()).await.unwrap();
    let root = dir.path().to_path_buf();
    exercise_2026(&client, "room-b", async move { room_b_decides(&root) }).await;
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_speaking_only_2025_11_25_keeps_the_handshake() {
    let dir = project();
    let runtime = tempfile::tempdir().unwrap();
    let _daemon = start_daemon(dir.path(), runtime.path());
    for relayed in [false, true] {
        let mut spawn = agent(dir.path()).room("room-a").role("engineer");
        spawn = if relayed {
            spawn
                .env("XDG_RUNTIME_DIR", &runtime.path().display().to_string())
                .env("WARROOM_DAEMON", "require")
        } else {
            spawn.env("WARROOM_DAEMON", "off")
        };
        let a = spawn.start_with(ClientLifecycleMode::Initialize).await;
        assert_eq!(negotiated(&a.client), "2025-11-25");
        let out = a
            .ok(
                "memory_publish",
                json!({"kind": "decision", "summary": format!("Legacy client {relayed}")}),
            )
            .await;
        assert_eq!(out["entry"]["room_id"], "room-a");
        a.stop().await;
    }
    let (url, token) = (
        url_of(dir.path(), runtime.path()),
        operator_token(dir.path(), runtime.path()),
    );
    let transport = http_transport(&url, &token, Some("room-a"), Some("engineer"));
    let client = ().serve_with_lifecycle(transport, ClientLifecycleMode::Initialize).await.unwrap();
    assert_eq!(negotiated(&client), "2025-11-25");
    client.cancel().await.unwrap();
}

/// The raw stdio lines of a client without an SDK, and the answers the revision defines.
#[test]
fn raw_2026_07_28_lines_on_stdio_get_the_revisions_answers() {
    let dir = project();
    let meta = |version: &str| {
        json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        })
    };
    let lines = [
        // Nothing opened a lifecycle: refused, naming both ways in.
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {"_meta": meta("2026-07-28")}}),
        // A protocol version without the rest of the metadata.
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
               "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": meta("2099-01-01")}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": meta("2026-07-28")}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"_meta": meta("2026-07-28"),
               "name": "memory_publish", "arguments": {"kind": "decision", "summary": "Raw lines work"}}}),
        // Client strings an error repeats come back scanned and clipped: a 1 MB version,
        // a token given as the version, a method name of 100 KB.
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": meta(&"9".repeat(1 << 20))}}),
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {"_meta": meta(GH_TOKEN)}}),
        json!({"jsonrpc": "2.0", "id": 9, "method": "x".repeat(100_000), "params": {"_meta": meta("2026-07-28")}}),
        // This stream speaks 2026-07-28 now: a late `initialize` is refused, saying so,
        // and the stream goes on as it was.
        json!({"jsonrpc": "2.0", "id": 10, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
               "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": {"_meta": meta("2026-07-28")}}),
    ];
    let mut child = Command::new(BIN)
        .args(["serve", "--root"])
        .arg(dir.path())
        .env("WARROOM_ROOM_ID", "room-a")
        .env("WARROOM_ROLE", "engineer")
        .env("WARROOM_DAEMON", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut answers = std::collections::HashMap::new();
    for line in &lines {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut got = String::new();
        out.read_line(&mut got).unwrap();
        let v: Value = serde_json::from_str(&got).unwrap();
        answers.insert(v["id"].as_i64().unwrap(), v);
    }
    drop(stdin);
    let _ = child.wait();

    assert_eq!(answers[&1]["error"]["code"], -32002, "{}", answers[&1]);
    let msg = answers[&1]["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("server/discover") && msg.contains("initialize"),
        "{msg}"
    );
    let discovered = &answers[&2]["result"];
    let versions = strs(&discovered["supportedVersions"]);
    assert!(
        versions.contains(&"2026-07-28") && versions.contains(&"2025-11-25"),
        "{discovered}"
    );
    assert_eq!(discovered["capabilities"]["resources"]["subscribe"], true);
    assert!(
        discovered["instructions"]
            .as_str()
            .unwrap()
            .contains("room room-a")
    );
    assert_eq!(answers[&3]["error"]["code"], -32602, "{}", answers[&3]);
    assert!(
        answers[&3]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("clientCapabilities")
    );
    assert_eq!(answers[&4]["error"]["code"], -32022, "{}", answers[&4]);
    assert!(strs(&answers[&4]["error"]["data"]["supported"]).contains(&"2026-07-28"));
    let listed = &answers[&5]["result"];
    assert_eq!(listed["resultType"], "complete");
    assert_eq!(listed["ttlMs"], 3_600_000);
    assert_eq!(listed["cacheScope"], "private");
    let called = &answers[&6]["result"];
    assert_eq!(called["resultType"], "complete", "{called}");
    assert_eq!(called["structuredContent"]["entry"]["room_id"], "room-a");
    assert_eq!(ledger_lines(dir.path()).len(), 1);
    assert_screened(&answers[&7], &answers[&8], &answers[&9]);
    let late = &answers[&10]["error"];
    assert_eq!(late["code"], -32600, "{}", answers[&10]);
    assert!(
        late["message"].as_str().unwrap().contains("2026-07-28"),
        "{late}"
    );
    assert_eq!(
        answers[&11]["result"]["resultType"], "complete",
        "{}",
        answers[&11]
    );
}

/// A token as a client would paste it where a version goes.
const GH_TOKEN: &str = "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6";

/// The answers to a 1 MB version, a token as the version and a 100 KB method name: the
/// errors the revision defines, each client string clipped to 256 bytes, the token
/// redacted.
fn assert_screened(huge: &Value, token: &Value, method: &Value) {
    assert_eq!(
        huge["error"]["code"],
        -32022,
        "{}",
        warroom_memory::text::prefix(&huge.to_string(), 500)
    );
    let requested = huge["error"]["data"]["requested"].as_str().unwrap();
    assert!(requested.len() <= 256, "{}", requested.len());
    assert!(huge.to_string().len() < 2_000, "{}", huge.to_string().len());
    assert_eq!(token["error"]["code"], -32022, "{token}");
    assert!(
        !token
            .to_string()
            .contains(GH_TOKEN.trim_start_matches("ghp_")),
        "{token}"
    );
    assert!(token.to_string().contains("REDACTED"), "{token}");
    assert!(
        method.get("error").is_some(),
        "{}",
        warroom_memory::text::prefix(&method.to_string(), 500)
    );
    assert!(
        method.to_string().len() < 5_000,
        "{}",
        method.to_string().len()
    );
}

/// Over HTTP the same client strings come back screened as over stdio.
#[test]
fn http_errors_repeat_client_strings_scanned_and_clipped() {
    let dir = project();
    let runtime = tempfile::tempdir().unwrap();
    let _daemon = start_daemon(dir.path(), runtime.path());
    let (url, token) = (
        url_of(dir.path(), runtime.path()),
        operator_token(dir.path(), runtime.path()),
    );
    let auth = format!("Bearer {token}");
    let send = |version: &str, method: &str| -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}}});
        let r = xtask::http_client::post(
            &url,
            &[
                ("Authorization", &auth),
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
                ("X-Warroom-Room", "room-a"),
                ("X-Warroom-Role", "engineer"),
                ("MCP-Protocol-Version", version),
                ("Mcp-Method", method),
            ],
            &body.to_string(),
        )
        .unwrap();
        assert!(r.body.len() < 5_000, "{}: {} bytes", r.status, r.body.len());
        serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.body))
    };
    // A version as long as a request head may be (hyper refuses longer heads itself).
    let huge = send(&"9".repeat(12 << 10), "tools/list");
    let token = send(GH_TOKEN, "tools/list");
    let method = send("2026-07-28", &"x".repeat(100_000));
    assert_screened(&huge, &token, &method);
}
