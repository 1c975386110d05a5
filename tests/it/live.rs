//! Live updates through a real MCP client (rmcp): a room subscribes to its upstream rooms
//! and is told of their new entries without polling — in direct mode and attached to a
//! daemon — and reads them from the resource.

// `resources/subscribe` is what the protocol versions with `initialize` (every client today)
// use; rmcp marks it legacy in favour of the 2026-07-28 draft.
#![allow(deprecated)]

use crate::common;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::daemon::*;
use common::*;
use rmcp::model::{
    ReadResourceRequestParams, ResourceContents, ResourceUpdatedNotificationParam,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;
use tokio::sync::mpsc;

/// A client that forwards every `notifications/resources/updated` to a channel.
struct Updates(mpsc::UnboundedSender<String>);

impl ClientHandler for Updates {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params.uri);
    }
}

type Client = RunningService<RoleClient, Updates>;

async fn subscriber(
    root: &Path,
    room: &str,
    env: &[(&str, &str)],
) -> (Client, mpsc::UnboundedReceiver<String>) {
    let mut cmd = tokio::process::Command::new(BIN);
    cmd.arg("serve")
        .arg("--root")
        .arg(root)
        .env("WARROOM_ROOM_ID", room)
        .env("WARROOM_ROLE", "manager")
        .env_remove("WARROOM_NOW")
        .env_remove("WARROOM_NOW_FILE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    (Updates(tx).serve(transport).await.unwrap(), rx)
}

fn publish_as(root: &Path, room: &str, summary: &str) {
    cli_publish_as(root, None, ("decision", room, "architect"), summary, &[]);
}

async fn read(client: &Client, uri: &str) -> String {
    let r = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap();
    match &r.contents[0] {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("not text: {other:?}"),
    }
}

/// A plan where room-a is upstream of room-b; room-c is unrelated.
fn planned_project() -> tempfile::TempDir {
    let p = project();
    std::fs::create_dir_all(p.path().join(".agents/plan")).unwrap();
    std::fs::write(
        p.path().join(".agents/plan/shop.json"),
        json!({"plan_id": "shop", "title": "shop", "epics": [
            {"ref": "E1", "room_id": "room-a"},
            {"ref": "E2", "room_id": "room-b", "depends_on": ["E1"]},
            {"ref": "E3", "room_id": "room-c"}]})
        .to_string(),
    )
    .unwrap();
    p
}

async fn upstream_updates_arrive(
    root: &Path,
    client: Client,
    mut rx: mpsc::UnboundedReceiver<String>,
) {
    let resources = client.list_all_resources().await.unwrap();
    assert!(
        resources.iter().any(|r| r.uri == "warroom://upstream"),
        "{resources:?}"
    );
    client
        .subscribe(SubscribeRequestParams::new("warroom://upstream"))
        .await
        .unwrap();
    // An unrelated room's entry is not news for room-b…
    publish_as(root, "room-c", "room-c picks a font");
    assert!(
        tokio::time::timeout(Duration::from_millis(1200), rx.recv())
            .await
            .is_err(),
        "notified of an unrelated room"
    );
    // …an upstream room's entry is, without polling, and the resource shows it. Exactly
    // one notification comes: a late one about room-c would be a second.
    publish_as(root, "room-a", "orders use idempotency keys");
    let uri = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("no notification within 10 s")
        .unwrap();
    assert_eq!(uri, "warroom://upstream");
    assert!(
        tokio::time::timeout(Duration::from_millis(1200), rx.recv())
            .await
            .is_err(),
        "a second notification: one was about the unrelated room"
    );
    let text = read(&client, &uri).await;
    assert!(text.contains("orders use idempotency keys"), "{text}");
    assert!(!text.contains("room-c picks a font"), "{text}");
    // After unsubscribing, nothing more.
    client
        .unsubscribe(UnsubscribeRequestParams::new("warroom://upstream"))
        .await
        .unwrap();
    while rx.try_recv().is_ok() {}
    publish_as(root, "room-a", "orders expire after 15 minutes");
    assert!(
        tokio::time::timeout(Duration::from_millis(1200), rx.recv())
            .await
            .is_err(),
        "notified after unsubscribing"
    );
    // Subscribed again, the next upstream entry gives exactly one notification: a late one
    // from while unsubscribed would be a second.
    client
        .subscribe(SubscribeRequestParams::new("warroom://upstream"))
        .await
        .unwrap();
    publish_as(root, "room-a", "orders are archived after 90 days");
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("no notification within 10 s")
        .unwrap();
    assert!(
        tokio::time::timeout(Duration::from_millis(1200), rx.recv())
            .await
            .is_err(),
        "a second notification: one came while unsubscribed"
    );
    client
        .unsubscribe(UnsubscribeRequestParams::new("warroom://upstream"))
        .await
        .unwrap();
    // One room's resource.
    let text = read(&client, "warroom://room/room-c").await;
    assert!(text.contains("room-c picks a font"), "{text}");
    let err = client
        .read_resource(ReadResourceRequestParams::new("warroom://nope"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("warroom://upstream"), "{err}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_room_is_told_of_its_upstream_rooms_new_entries_in_direct_mode() {
    let p = planned_project();
    let (client, rx) = subscriber(p.path(), "room-b", &[("WARROOM_DAEMON", "off")]).await;
    upstream_updates_arrive(p.path(), client, rx).await;
}

#[tokio::test]
async fn a_room_is_told_of_its_upstream_rooms_new_entries_on_postgres() {
    // The ledger in a database: the server is woken by the database's NOTIFY.
    let p = planned_project();
    let url = std::thread::spawn(|| pg::server().fresh_db())
        .join()
        .unwrap();
    std::fs::write(
        p.path().join(".agents/warroom.yaml"),
        format!("ledger: \"{url}\"\n"),
    )
    .unwrap();
    // A plan file beside a database is not used until imported, and `plan show` says so.
    let (_, out, _) = cli(p.path(), &["plan", "show"]);
    assert!(out.contains("not registered in the database"), "{out}");
    let (code, _, err) = cli(p.path(), &["db", "import", "--json"]);
    assert_eq!(code, 0, "{err}");
    let (client, rx) = subscriber(p.path(), "room-b", &[("WARROOM_DAEMON", "off")]).await;
    upstream_updates_arrive(p.path(), client, rx).await;
    assert!(!common::ledger(p.path()).exists());
}

#[tokio::test]
async fn a_room_is_told_of_its_upstream_rooms_new_entries_through_the_daemon() {
    let p = planned_project();
    let runtime = tempfile::tempdir().unwrap();
    let _d = start_daemon(p.path(), runtime.path());
    let rt = runtime.path().display().to_string();
    let (client, rx) = subscriber(
        p.path(),
        "room-b",
        &[("WARROOM_DAEMON", "require"), ("XDG_RUNTIME_DIR", &rt)],
    )
    .await;
    upstream_updates_arrive(p.path(), client, rx).await;
}

#[tokio::test]
async fn an_http_session_is_told_of_its_upstream_rooms_new_entries() {
    let p = planned_project();
    let runtime = tempfile::tempdir().unwrap();
    let _d = start_daemon(p.path(), runtime.path());
    let transport = http_transport(
        &url_of(p.path(), runtime.path()),
        &operator_token(p.path(), runtime.path()),
        Some("room-b"),
        Some("manager"),
    );
    let (tx, rx) = mpsc::unbounded_channel();
    let client = Updates(tx).serve(transport).await.unwrap();
    upstream_updates_arrive(p.path(), client, rx).await;
}
