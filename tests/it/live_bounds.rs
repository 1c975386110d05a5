//! What live streams may hold, through the real binary (MCP 2026-07-28's
//! `subscriptions/listen`, stdio direct and relayed to the daemon): a filter's duplicates
//! collapse, an oversized filter is refused whole, a session holds a bounded number of
//! streams, one identity's streams across sessions share one budget of URIs, and whatever
//! a stream held is given back when it ends.

use crate::common;

use std::time::Duration;

use common::daemon::*;
use common::*;
use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{ClientLifecycleMode, Subscription};

fn only_2026() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    }
}

fn filter(uris: impl IntoIterator<Item = String>) -> SubscriptionFilter {
    let mut b = SubscriptionFilter::builder();
    for u in uris {
        b = b.resource_subscription(u);
    }
    b.build()
}

/// Distinct room URIs `warroom://room/<tag>-<i>`.
fn rooms(tag: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("warroom://room/{tag}-{i}"))
        .collect()
}

/// The error a stream ends with (it was acknowledged, then refused).
async fn refusal(mut sub: Subscription) -> String {
    match tokio::time::timeout(Duration::from_secs(10), sub.next()).await {
        Ok(Err(e)) => e.to_string(),
        other => panic!("expected the stream to end with an error, got {other:?}"),
    }
}

/// Opens a stream, or the error its opening or first message carried.
async fn open(a: &Agent, f: SubscriptionFilter) -> Result<Subscription, String> {
    let sub = a.client.peer().listen(f).await.map_err(|e| e.to_string())?;
    // A refused stream ends right after its acknowledgment; an accepted one stays quiet.
    let mut sub = sub;
    match tokio::time::timeout(Duration::from_millis(400), sub.next()).await {
        Err(_) => Ok(sub),
        Ok(Err(e)) => Err(e.to_string()),
        Ok(other) => panic!("unexpected on a new stream: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_holds_bounded_streams_and_duplicates_collapse() {
    let dir = project();
    let a = agent(dir.path())
        .room("room-a")
        .role("engineer")
        .env("WARROOM_DAEMON", "off")
        .start_with(only_2026())
        .await;
    // 64 copies of one URI: served once, so one publish is one notification.
    let same = "warroom://room/room-b".to_string();
    let mut dup = a
        .client
        .peer()
        .listen(filter(std::iter::repeat_n(same.clone(), 64)))
        .await
        .unwrap();
    let (code, _, err) = cli_env(
        dir.path(),
        &[
            "publish",
            "--kind",
            "decision",
            "--summary",
            "Prices are in cents",
        ],
        &[("WARROOM_ROOM_ID", "room-b"), ("WARROOM_ROLE", "engineer")],
    );
    assert_eq!(code, 0, "{err}");
    let note = tokio::time::timeout(Duration::from_secs(10), dup.next())
        .await
        .expect("an update within 10 s")
        .unwrap()
        .unwrap();
    assert!(matches!(
        note,
        ServerNotification::ResourceUpdatedNotification(_)
    ));
    assert!(
        tokio::time::timeout(Duration::from_millis(800), dup.next())
            .await
            .is_err(),
        "one publish, one notification"
    );
    dup.cancel().await.unwrap();

    // A filter naming more than 1,024 URIs is refused whole, saying the limit.
    let huge = a
        .client
        .peer()
        .listen(filter(rooms("x", 1500)))
        .await
        .unwrap();
    let e = refusal(huge).await;
    assert!(e.contains("1024"), "{e}");

    // Sixteen streams per session; the seventeenth is refused, naming the limit; a
    // cancelled stream gives its place back.
    let mut held = Vec::new();
    for i in 0..16 {
        held.push(
            open(&a, filter(rooms(&format!("s{i}"), 1)))
                .await
                .unwrap_or_else(|e| panic!("stream {i}: {e}")),
        );
    }
    let Err(e) = open(&a, filter(rooms("s16", 1))).await else {
        panic!("the seventeenth stream was accepted")
    };
    assert!(e.contains("16 listen streams"), "{e}");
    held.pop().unwrap().cancel().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let again = open(&a, filter(rooms("s17", 1))).await;
    assert!(again.is_ok(), "{:?}", again.err());
    a.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_identitys_streams_share_one_budget_across_sessions() {
    let dir = project();
    let runtime = tempfile::tempdir().unwrap();
    let _daemon = start_daemon(dir.path(), runtime.path());
    let relayed = |room: &str| {
        agent(dir.path())
            .room(room)
            .role("engineer")
            .env("XDG_RUNTIME_DIR", &runtime.path().display().to_string())
            .env("WARROOM_DAEMON", "require")
            .start_with(only_2026())
    };
    let first = relayed("room-a").await;
    let second = relayed("room-a").await;
    let other = relayed("room-c").await;
    // 256 URIs per identity: four streams of 64 in one session…
    let mut held = Vec::new();
    for i in 0..4 {
        held.push(
            open(&first, filter(rooms(&format!("a{i}"), 64)))
                .await
                .unwrap(),
        );
    }
    // …leave nothing for the same identity in another session,
    let Err(e) = open(&second, filter(rooms("b", 64))).await else {
        panic!("the identity's budget was passed")
    };
    assert!(e.contains("per identity"), "{e}");
    // while another identity gets in,
    assert!(open(&other, filter(rooms("c", 64))).await.is_ok());
    // and what a stream held comes back when it ends.
    held.pop().unwrap().cancel().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let ok = open(&second, filter(rooms("b", 64))).await;
    assert!(ok.is_ok(), "{:?}", ok.err());
    for a in [first, second, other] {
        a.stop().await;
    }
}
