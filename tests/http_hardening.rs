//! The fourth red team's findings on the daemon's HTTP edge, through the real binary
//! (issue #40): sessions belong to the credential that opened them (another token can
//! neither end nor listen to them), one credential cannot take every session, and a
//! session's DELETE is answered 204.

mod common;

use common::daemon::{issue_token, start_daemon_with, url_of};
use common::project;
use xtask::http_client::{INITIALIZE, post, request};

fn refs(h: &[(String, String)]) -> Vec<(&str, &str)> {
    h.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

/// Opens a session with `bearer`; its id, or the refusal's status.
fn open(url: &str, bearer: &str) -> Result<String, (u16, String)> {
    let r = post(url, &[("Authorization", bearer)], INITIALIZE).unwrap();
    match r.header("mcp-session-id") {
        Some(sid) if r.status == 200 => Ok(sid),
        _ => Err((r.status, r.body)),
    }
}

#[test]
fn a_session_answers_only_the_credential_that_opened_it() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let _d = start_daemon_with(
        p.path(),
        rt.path(),
        &[
            "--listen",
            "127.0.0.1:0",
            "--max-sessions-per-credential",
            "3",
        ],
    );
    let url = url_of(p.path(), rt.path());
    let (_, a) = issue_token(p.path(), rt.path(), "room-a", "engineer");
    let (_, b) = issue_token(p.path(), rt.path(), "room-b", "engineer");
    let (a, b) = (format!("Bearer {a}"), format!("Bearer {b}"));
    let sid = open(&url, &a).unwrap();
    let with = |bearer: &str, sid: &str| {
        vec![
            ("Authorization".to_string(), bearer.to_string()),
            ("mcp-session-id".to_string(), sid.to_string()),
            ("MCP-Protocol-Version".to_string(), "2025-06-18".to_string()),
        ]
    };

    // Another agent's token: it can neither end the session nor listen to it.
    let hb = with(&b, &sid);
    let r = request("DELETE", &url, &refs(&hb), "").unwrap();
    assert_eq!(r.status, 404, "DELETE with another token: {}", r.body);
    let r = request("GET", &url, &refs(&hb), "").unwrap();
    assert_eq!(r.status, 404, "GET with another token: {}", r.body);
    let call = r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#;
    let r = post(&url, &refs(&hb), call).unwrap();
    assert_eq!(r.status, 404, "a call with another token: {}", r.body);

    // Its own token: the session still works, and its DELETE is answered 204.
    let ha = with(&a, &sid);
    let r = post(&url, &refs(&ha), call).unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    let r = request("DELETE", &url, &refs(&ha), "").unwrap();
    assert_eq!(r.status, 204, "{}", r.body);
    let r = post(&url, &refs(&ha), call).unwrap();
    assert_eq!(r.status, 404, "the ended session: {}", r.body);

    // One credential holds at most 3 sessions; another still gets one.
    for _ in 0..3 {
        open(&url, &a).unwrap();
    }
    let (status, body) = open(&url, &a).unwrap_err();
    assert_eq!(status, 429, "{body}");
    assert!(body.contains("--max-sessions-per-credential 3"), "{body}");
    open(&url, &b).expect("another credential still opens a session");
}
