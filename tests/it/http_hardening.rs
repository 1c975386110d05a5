//! The red teams' findings on the daemon's HTTP edge, through the real binary (issues #40
//! and #66): sessions belong to the credential that opened them (another token can
//! neither end nor listen to them), one credential can take neither every session nor
//! every connection (keep-open requests and slowly dripped bodies included), and a
//! session's DELETE is answered 204.

use crate::common;

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

/// Idle sockets without a credential cannot shut agents out: at the connection cap, a
/// new connection takes the place of the oldest one that never authenticated.
#[test]
fn idle_unauthenticated_connections_do_not_starve_agents() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let _d = start_daemon_with(
        p.path(),
        rt.path(),
        &["--listen", "127.0.0.1:0", "--max-connections", "8"],
    );
    let url = url_of(p.path(), rt.path());
    let (_, token) = issue_token(p.path(), rt.path(), "room-a", "engineer");
    let bearer = format!("Bearer {token}");
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    // Another local user's idle sockets: more than the cap, never a byte sent.
    let idle: Vec<std::net::TcpStream> = (0..20)
        .map(|_| std::net::TcpStream::connect(&addr).unwrap())
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    for i in 0..3 {
        let sid = open(&url, &bearer);
        assert!(sid.is_ok(), "attempt {i}: an agent was shut out: {sid:?}");
    }
    drop(idle);
}

/// One agent token holding connections open — requests whose bodies it drips, keep-alive
/// connections — gets its share and no more; the others, the operator and the console
/// still get in, at the cap too (the credential holding the most gives way).
#[test]
fn one_token_cannot_hold_the_http_edge() {
    use std::io::Write;
    use xtask::http_client::Conn;
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let _d = start_daemon_with(
        p.path(),
        rt.path(),
        &[
            "--listen",
            "127.0.0.1:0",
            "--max-connections",
            "8",
            "--max-connections-per-credential",
            "3",
        ],
    );
    let url = url_of(p.path(), rt.path());
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let bearer = |room: &str| {
        format!(
            "Bearer {}",
            issue_token(p.path(), rt.path(), room, "engineer").1
        )
    };
    let (a, b, c) = (bearer("room-a"), bearer("room-b"), bearer("room-c"));
    let operator = format!(
        "Bearer {}",
        common::daemon::operator_token(p.path(), rt.path())
    );
    // Agent A drips three request bodies: a head with its token, a promise of 100 KB, a
    // few bytes.
    let slow: Vec<std::net::TcpStream> = (0..3)
        .map(|_| {
            let mut s = std::net::TcpStream::connect(&addr).unwrap();
            write!(
                s,
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: {a}\r\n\
                 Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
                 Content-Length: 100000\r\n\r\n{{\"jsonrpc\""
            )
            .unwrap();
            s
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(400));
    // Its fourth connection is refused, saying the limit, and closed.
    let (status, body) = open(&url, &a).unwrap_err();
    assert_eq!(status, 429, "{body}");
    assert!(body.contains("--max-connections-per-credential"), "{body}");
    // Others get in and hold keep-alive connections: B three, the operator two — eight
    // open, the cap.
    let mut held = Vec::new();
    for who in [&b, &b, &b, &operator, &operator] {
        let mut conn = Conn::open(&url).unwrap();
        let r = conn.post(&[("Authorization", who)], INITIALIZE).unwrap();
        assert_eq!(r.status, 200, "{}", r.body);
        held.push(conn);
    }
    // At the cap, with every connection authenticated, a newcomer still gets in: the
    // oldest connection of the credential holding the most gives way. Then the console.
    assert!(open(&url, &c).is_ok(), "a third agent was shut out");
    let page = xtask::http_client::get(&format!("http://{addr}/"), &[("Authorization", &operator)])
        .unwrap();
    assert_eq!(page.status, 200, "the console was shut out: {}", page.body);
    drop((slow, held));
}

/// What a client sends reaches logs only scanned and clipped: a token pasted as a method
/// name, a tool name or a resource URI is in no log line (and in no error message).
#[test]
fn logs_never_echo_a_token_a_client_sent() {
    let p = project();
    let token = "ghp_Zq8xW3vN5mK2pL7rT9yB4cD6fH1jA0sE3gU5";
    let lines = [
        xtask::http_client::INITIALIZE.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{token}"}}"#),
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"{token}","arguments":{{}}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{{"uri":"warroom://{token}"}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{{"uri":"warroom://room/{token}"}}}}"#
        ),
    ];
    let input = p.path().join("input.jsonl");
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let child = std::process::Command::new(common::BIN)
        .args(["--root", p.path().to_str().unwrap(), "serve"])
        .env("WARROOM_DAEMON", "off")
        .env("WARROOM_LOG", "debug")
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // serve ends at the end of its input; a watchdog bounds the wait.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let out = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("serve answered within 60 s")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("\"id\":4"), "every call answered: {stdout}");
    assert!(
        !stderr.contains(token),
        "the log echoed the token:\n{stderr}"
    );
    let answers: Vec<&str> = stdout.lines().skip(1).collect();
    for a in &answers {
        // Every error is screened before it is written, rmcp's method-not-found included.
        assert!(!a.contains(token), "an error echoed the token: {a}");
    }
}

/// A flood of requests for a foreign Host, sent before any credential, is logged at most
/// once per 10 s.
#[test]
fn pre_authentication_warnings_are_rate_limited() {
    let p = project();
    let rt = tempfile::tempdir().unwrap();
    let d = start_daemon_with(p.path(), rt.path(), &["--listen", "127.0.0.1:0"]);
    let url = url_of(p.path(), rt.path());
    let home = url.trim_end_matches("mcp").to_string();
    for _ in 0..50 {
        let r = xtask::http_client::get(&home, &[("Host", "evil.example:80")]).unwrap();
        assert_eq!(r.status, 403);
    }
    drop(d);
    let log = std::fs::read_to_string(p.path().join("daemon.log")).unwrap();
    let warned = log.matches("foreign Host").count();
    assert!(
        (1..=2).contains(&warned),
        "{warned} warnings for 50 refused requests:\n{log}"
    );
}
