//! The console over HTTP, through the real binary: its guard (credential, cookie, Host,
//! Origin, method, headers), its pages on the example project (escaping, bidi markers,
//! pagination, the supersede chain, the hash-chain links, search, audit and diff against
//! `verify`), and the live stream (`/events`: delivery, `Last-Event-ID`, the client cap).
//! The same pages in a real browser: tests/it/console_browser.rs.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use common::daemon::{Daemon, daemon_cmd, operator_token, start_daemon, url_of};
use common::{cli, example_project};
use xtask::http_client::{Reply, get, request};

struct Console {
    _daemon: Daemon,
    base: String,
    token: String,
    root: tempfile::TempDir,
    runtime: tempfile::TempDir,
}

impl Console {
    fn start() -> Console {
        let root = example_project();
        let runtime = tempfile::tempdir().unwrap();
        let daemon = start_daemon(root.path(), runtime.path());
        let base = url_of(root.path(), runtime.path())
            .trim_end_matches("/mcp")
            .to_string();
        let token = operator_token(root.path(), runtime.path());
        Console {
            _daemon: daemon,
            base,
            token,
            root,
            runtime,
        }
    }

    fn get(&self, path: &str) -> Reply {
        let auth = format!("Bearer {}", self.token);
        get(&format!("{}{path}", self.base), &[("Authorization", &auth)]).unwrap()
    }

    fn page(&self, path: &str) -> String {
        let r = self.get(path);
        assert_eq!(r.status, 200, "GET {path}: {}", r.body);
        r.body
    }

    /// A sign-in address, as `warroom-memory console` prints it.
    fn login_url(&self) -> String {
        common::daemon::console_login_url(self.root.path(), self.runtime.path())
    }

    fn authority(&self) -> &str {
        self.base.trim_start_matches("http://")
    }
}

fn publish(root: &Path, kind: &str, room: &str, summary: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "publish",
        "--json",
        "--kind",
        kind,
        "--room",
        room,
        "--role",
        "engineer",
        "--summary",
        summary,
    ];
    args.extend(extra);
    let (code, out, err) = cli(root, &args);
    assert_eq!(code, 0, "publish: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["entry"]["id"].as_str().unwrap().to_string()
}

/// The ids of the rows of the page's `#feed` list, in order.
fn row_ids(html: &str) -> Vec<String> {
    let feed = html.split("id=\"feed\"").nth(1).expect("a #feed list");
    let feed = feed.split("</ol>").next().unwrap();
    feed.split("<li class=\"entry")
        .skip(1)
        .map(|r| {
            r.split("data-id=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn the_console_guards_every_request() {
    let c = Console::start();
    let url = format!("{}/", c.base);

    // No credential: 401, with the way in, and the security headers on it too.
    let r = get(&url, &[]).unwrap();
    assert_eq!(r.status, 401, "{}", r.body);
    assert!(r.body.contains("warroom-memory console"), "{}", r.body);
    let csp = r.header("content-security-policy").expect("a CSP");
    for part in [
        "default-src 'none'",
        "script-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(part), "{csp}");
    }
    assert!(
        !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
        "{csp}"
    );
    assert_eq!(
        r.header("x-content-type-options").as_deref(),
        Some("nosniff")
    );

    // The operator token itself signs nobody in through the address bar, and neither does
    // a wrong code; a code the command printed sets an HttpOnly, SameSite=Strict session
    // cookie of its own, once, and redirects to a path of ours only.
    let r = get(&format!("{}/login?token={}", c.base, c.token), &[]).unwrap();
    assert_eq!(r.status, 401, "{}", r.body);
    assert!(r.header("set-cookie").is_none());
    let r = get(&format!("{}/login?code=1.2.3", c.base), &[]).unwrap();
    assert_eq!(r.status, 401);
    assert!(r.header("set-cookie").is_none());
    let login = c.login_url();
    assert!(
        !login.contains(&c.token),
        "the printed address must not carry the operator token: {login}"
    );
    let r = get(&format!("{login}&next=//evil.example/x"), &[]).unwrap();
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(r.header("location").as_deref(), Some("/"));
    let cookie = r.header("set-cookie").expect("a cookie");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    assert!(cookie.contains("Max-Age="), "the session expires: {cookie}");
    assert!(
        !cookie.contains(&c.token),
        "the cookie must not carry the token"
    );
    let pair = cookie.split(';').next().unwrap().to_string();
    let r = get(&url, &[("Cookie", &pair)]).unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    // The same address a second time: refused, no new session.
    let again = get(&login, &[]).unwrap();
    assert_eq!(again.status, 401, "{}", again.body);
    assert!(again.body.contains("already used"), "{}", again.body);
    assert!(again.header("set-cookie").is_none());
    // Each sign-in gets a session of its own.
    let second = get(&c.login_url(), &[]).unwrap();
    let second_pair = second
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    assert_ne!(
        second_pair, pair,
        "sessions are random, not derived from the token"
    );
    let port = c.authority().rsplit_once(':').unwrap().1.to_string();
    assert!(
        pair.starts_with(&format!("warroom_console_{port}=")),
        "the cookie is named after the daemon's port: {pair}"
    );
    let r = get(&url, &[("Cookie", &format!("warroom_console_{port}=0000"))]).unwrap();
    assert_eq!(r.status, 401);
    // Another daemon's cookie (another port's name) opens nothing here.
    let value = pair.split_once('=').unwrap().1;
    let foreign = format!("warroom_console_1{port}={value}");
    assert_eq!(get(&url, &[("Cookie", &foreign)]).unwrap().status, 401);
    let r = get(
        &format!("{}&next=/timeline%3Fkind%3Dwarning", c.login_url()),
        &[],
    )
    .unwrap();
    assert_eq!(
        r.header("location").as_deref(),
        Some("/timeline?kind=warning")
    );
    // Signing out is a POST from our own page. A GET only shows the button; a POST from
    // another loopback port (the same *site* to a browser), or one that proves no origin,
    // is refused — an <img src=/logout> or a form elsewhere signs nobody out.
    let logout = format!("{}/logout", c.base);
    let r = get(&logout, &[("Cookie", &pair)]).unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains(r#"method="post""#), "{}", r.body);
    assert!(r.header("set-cookie").is_none());
    assert_eq!(get(&url, &[("Cookie", &pair)]).unwrap().status, 200);
    let other_port = "http://127.0.0.1:1".to_string();
    for headers in [
        vec![("Cookie", pair.as_str())],
        vec![("Cookie", pair.as_str()), ("Sec-Fetch-Site", "same-site")],
        vec![("Cookie", pair.as_str()), ("Sec-Fetch-Site", "cross-site")],
        vec![("Cookie", pair.as_str()), ("Origin", other_port.as_str())],
        vec![("Cookie", pair.as_str()), ("Origin", "null")],
    ] {
        let r = request("POST", &logout, &headers, "").unwrap();
        assert_eq!(r.status, 403, "{headers:?}: {}", r.body);
        assert!(r.header("set-cookie").is_none());
        assert_eq!(get(&url, &[("Cookie", &pair)]).unwrap().status, 200);
    }
    // From the console's own page: that session only ends, and its cookie is cleared.
    let r = request(
        "POST",
        &logout,
        &[("Cookie", &pair), ("Sec-Fetch-Site", "same-origin")],
        "",
    )
    .unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.header("set-cookie").is_some_and(
            |v| v.contains("Max-Age=0") && v.starts_with(&format!("warroom_console_{port}="))
        ),
        "the cookie is cleared"
    );
    assert_eq!(get(&url, &[("Cookie", &pair)]).unwrap().status, 401);
    assert_eq!(get(&url, &[("Cookie", &second_pair)]).unwrap().status, 200);
    // A script of ours (no Sec-Fetch-Site, our Origin) may sign out too.
    let ours = format!("http://{}", c.authority());
    let r = request(
        "POST",
        &logout,
        &[("Cookie", &second_pair), ("Origin", &ours)],
        "",
    )
    .unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(get(&url, &[("Cookie", &second_pair)]).unwrap().status, 401);

    // DNS rebinding and cross-site requests: a foreign Host or Origin is refused even
    // with the credential; our own origin passes.
    let auth = format!("Bearer {}", c.token);
    let r = get(
        &url,
        &[("Authorization", &auth), ("Host", "evil.example:80")],
    )
    .unwrap();
    assert_eq!(r.status, 403, "{}", r.body);
    let r = get(
        &url,
        &[("Authorization", &auth), ("Origin", "http://evil.example")],
    )
    .unwrap();
    assert_eq!(r.status, 403, "{}", r.body);
    let ours = format!("http://{}", c.authority());
    let r = get(&url, &[("Authorization", &auth), ("Origin", &ours)]).unwrap();
    assert_eq!(r.status, 200);

    // Read only.
    let r = request("POST", &url, &[("Authorization", &auth)], "{}").unwrap();
    assert_eq!(r.status, 405, "{}", r.body);
    assert_eq!(r.header("allow").as_deref(), Some("GET, HEAD"));

    // Unknown things are 404 pages that say what was not found.
    let r = c.get("/entry/mem-nope");
    assert_eq!(r.status, 404);
    assert!(r.body.contains("no entry `mem-nope`"), "{}", r.body);
    let r = c.get("/room/room-404");
    assert_eq!(r.status, 404);
    assert!(r.body.contains("no room `room-404`"), "{}", r.body);
    assert_eq!(c.get("/no/such/page").status, 404);
    let r = c.get("/plan/no-such-plan");
    assert_eq!(r.status, 404);
    assert!(r.body.contains("no plan `no-such-plan`"), "{}", r.body);
    assert_eq!(c.get("/plan/shop-v1").status, 200);
    let r = c.get("/receipt/rcpt-nope");
    assert_eq!(r.status, 404);
    assert!(r.body.contains("no receipt"), "{}", r.body);

    // `/mcp` keeps its own bearer check: a cookie does not open it.
    let r = request(
        "POST",
        &format!("{}/mcp", c.base),
        &[("Cookie", &pair)],
        xtask::http_client::INITIALIZE,
    )
    .unwrap();
    assert_eq!(r.status, 401);

    // `console` prints the sign-in address of the running daemon, and it works.
    let out = console_cmd(c.root.path(), c.runtime.path(), &["--json", "--no-start"]);
    let v = common::succeeded_json(out);
    assert_eq!(v["url"], format!("{}/", c.base));
    let r = get(v["login_url"].as_str().unwrap(), &[]).unwrap();
    assert_eq!(r.status, 303);
}

#[test]
fn pages_show_the_memory_escaped_paged_and_proven() {
    let c = Console::start();
    let root = c.root.path();
    let head_before = {
        let (code, out, _) = cli(root, &["verify", "--json"]);
        assert_eq!(code, 0);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["chain"]["head"].as_str().unwrap().to_string()
    };

    // Agent text is shown as text: markup escaped, a bidi override as a visible marker.
    let hostile = "Use <script>alert(1)</script> for \u{202E}gnp.exe";
    let id = publish(root, "warning", "room-003", hostile, &[]);
    let page = c.page("/timeline");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "escaped markup"
    );
    assert!(!page.contains("<script>alert"), "raw markup");
    assert!(!page.contains('\u{202E}'), "a raw bidi override");
    assert!(page.contains("U+202E"), "the override's marker");
    let entry = c.page(&format!("/entry/{id}"));
    assert!(entry.contains("U+202E") && !entry.contains('\u{202E}'));

    // Pages of 50 through the cursor: disjoint, newest first, together every live entry.
    for i in 0..40 {
        publish(
            root,
            "code",
            "room-004",
            &format!("snippet number {i}"),
            &[],
        );
    }
    let first = c.page("/timeline");
    let ids1 = row_ids(&first);
    assert_eq!(ids1.len(), 50);
    let next = first
        .split("href=\"/timeline?before=")
        .nth(1)
        .expect("an older-entries link")
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let ids2 = row_ids(&c.page(&format!("/timeline?before={next}")));
    let (code, out, _) = cli(root, &["query", "--json", "--last", "50", "--room", "*"]);
    assert_eq!(code, 0);
    let live = serde_json::from_str::<serde_json::Value>(&out).unwrap()["total"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(
        ids1.len() + ids2.len(),
        live,
        "two pages hold every live entry"
    );
    assert!(ids2.iter().all(|i| !ids1.contains(i)), "pages overlap");
    assert_eq!(ids1[0], row_ids(&first)[0]);
    assert!(ids1[0] != id && ids1.contains(&id), "newest first");
    let warnings = c.page("/timeline?kind=warning");
    assert!(!row_ids(&warnings).is_empty());
    assert_eq!(
        warnings.matches("class=\"kind k-").count(),
        warnings.matches("class=\"kind k-warning").count(),
        "a kind filter shows that kind only"
    );
    let r = c.get("/timeline?before=junk");
    assert_eq!(r.status, 400);
    assert!(r.body.contains("before"), "{}", r.body);

    // An entry replaced by a later one: the chain both ways with a diff, and the line's
    // link is the SHA-256 of its bytes, which the next line carries.
    let old = "mem-01M7PYTRR0M9S346Q3D25VT4F5";
    let page = c.page(&format!("/entry/{old}"));
    assert!(
        page.contains("mem-01M7SR8PS04MNPZX45HY43KWJR"),
        "the successor"
    );
    assert!(page.contains("<del>") && page.contains("<ins>"), "a diff");
    assert!(
        page.contains("an unchained line"),
        "the example's lines carry no link"
    );
    // A line this server wrote: its link is the SHA-256 of its bytes, and the next line
    // (the first snippet) carries it.
    let page = c.page(&format!("/entry/{id}"));
    let lines = common::ledger_lines(root);
    let n = lines.iter().position(|l| l.contains(&id)).unwrap();
    use sha2::Digest;
    let link: String = sha2::Sha256::digest(lines[n].as_bytes())[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert!(
        page.contains(&format!("<code id=\"link\">{link}</code>")),
        "its link"
    );
    assert!(lines[n + 1].contains(&format!("\"prev\":\"{link}\"")));
    assert!(page.contains("carries this link"));

    // A brief served through the CLI: the room lists its receipt, and the receipt page
    // replays it byte for byte, with its reasons and omissions.
    let (code, out, err) = cli(root, &["context", "room-003", "--json"]);
    assert_eq!(code, 0, "{err}");
    let served: serde_json::Value = serde_json::from_str(&out).unwrap();
    let receipt = served["receipt"]
        .as_str()
        .expect("a receipt id")
        .to_string();
    let room = c.page("/room/room-003");
    assert!(
        room.contains(&format!("href=\"/receipt/{receipt}\"")),
        "the room lists it"
    );
    let page = c.page(&format!("/receipt/{receipt}"));
    assert!(
        page.contains("id=\"replay\"") && page.contains("byte-identical"),
        "{page}"
    );
    let first_included = served["entry_ids"][0].as_str().unwrap();
    assert!(page.contains(&format!("href=\"/entry/{first_included}\"")));
    assert!(page.contains("past the entry limit"));
    // The brief the room page shows is the one `context` printed (nothing written since).
    let md = served["markdown"].as_str().unwrap();
    let shown = room
        .split("id=\"brief\">")
        .nth(1)
        .unwrap()
        .split("</pre>")
        .next()
        .unwrap();
    let unescaped = shown
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    assert_eq!(unescaped, md);

    // Search ranks as memory_search and explains each hit.
    let page = c.page("/search?q=password+hashing");
    assert!(page.contains("argon2"), "the decision on password hashing");
    assert!(page.contains("BM25F") && page.contains("× time"));

    // Audit: the head is verify's; a diff from the head recorded before shows what came.
    let (_, out, _) = cli(root, &["verify", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let audit = c.page("/audit");
    assert!(audit.contains(&format!(
        "<code id=\"head\">{}</code>",
        v["chain"]["head"].as_str().unwrap()
    )));
    assert!(audit.contains("Clean"));
    let diff = c.page(&format!("/audit/diff?since={head_before}"));
    assert!(
        diff.contains("snippet number 0")
            && diff.contains("snippet number 39")
            && diff.contains("Append-only"),
        "{diff}"
    );
    assert!(!diff.contains("rel=\"next\""), "41 changes fit one page");
    // A diff from the first line is paged like the timeline: 50 changes a page, linked.
    let first = c.page("/audit/diff?since=line:0");
    let total: usize = first
        .split("Changes 1–50 of ")
        .nth(1)
        .expect("the page says which changes it shows")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        total > 50 && total < 100,
        "{total}: the 15 example entries and 41 new ones"
    );
    assert!(!first.contains("rel=\"prev\""));
    let next = first
        .split("rel=\"next\" href=\"")
        .nth(1)
        .expect("a link to the next page")
        .split('"')
        .next()
        .unwrap()
        .replace("&amp;", "&");
    let second = c.page(&next);
    assert!(
        second.contains(&format!("Changes 51–{total} of {total}")),
        "{second}"
    );
    assert!(second.contains("rel=\"prev\"") && !second.contains("rel=\"next\""));
    let r = c.get("/audit/diff?since=ffffffffffffffffffffffffffffffff");
    assert_eq!(r.status, 404);

    // A line rewritten in place, one byte longer: the verified prefix no longer ends
    // where it did, so the page runs a full pass and shows the violation at its line (a
    // same-length edit waits for the background full pass: tests/it/audit_continued.rs).
    let path = common::ledger(root);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("snippet number 7\"", "snippet number 77\"", 1),
    )
    .unwrap();
    let audit = c.page("/audit");
    assert!(audit.contains("violations"), "{audit}");
    assert!(
        audit.contains("broken-link") || audit.contains("bad-link"),
        "{audit}"
    );
}

/// `warroom-memory --root ROOT console ARGS…` with the daemon's places under `runtime`
/// and no token or listen address from the environment.
fn console_cmd(root: &Path, runtime: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(common::BIN)
        .arg("--root")
        .arg(root)
        .arg("console")
        .args(args)
        .env("XDG_RUNTIME_DIR", runtime)
        .env("XDG_STATE_HOME", runtime)
        .env_remove("WARROOM_TOKEN")
        .env_remove("WARROOM_LISTEN")
        .output()
        .unwrap()
}

/// Stops the daemon of a root when dropped (the one `console` started, detached).
struct StopOnDrop<'a>(&'a Path, &'a Path);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        let _ = daemon_cmd(self.0, self.1, &["stop"]).output();
    }
}

#[test]
fn console_starts_the_daemon_when_none_runs_and_reuses_it() {
    let root = example_project();
    let runtime = tempfile::tempdir().unwrap();
    let console = |extra: &[&str]| {
        let mut args = vec!["--json", "--listen", "127.0.0.1:0"];
        args.extend(extra);
        let out = console_cmd(root.path(), runtime.path(), &args);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
            panic!(
                "console: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code(), v)
    };
    // --no-start with no daemon: says so, starts nothing.
    let out = console_cmd(root.path(), runtime.path(), &["--no-start"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no daemon serves"));
    let _stop = StopOnDrop(root.path(), runtime.path());
    let (code, first) = console(&[]);
    assert_eq!(code, Some(0), "{first}");
    assert_eq!(first["started"], true);
    let r = get(first["login_url"].as_str().unwrap(), &[]).unwrap();
    assert_eq!(r.status, 303, "{}", r.body);
    let cookie = r.header("set-cookie").unwrap();
    let pair = cookie.split(';').next().unwrap();
    let home = get(first["url"].as_str().unwrap(), &[("Cookie", pair)]).unwrap();
    assert_eq!(home.status, 200);
    assert!(home.body.contains("shop-v1"), "the example's plan");
    // A second call reuses the running daemon.
    let (code, second) = console(&[]);
    assert_eq!(code, Some(0));
    assert_eq!(second["started"], false);
    assert_eq!(second["pid"], first["pid"]);
    assert_eq!(second["url"], first["url"]);
}

/// Reads SSE lines from `s` until `want` is seen or `within` passes; the lines read.
fn read_until(s: &mut BufReader<std::net::TcpStream>, want: &str, within: Duration) -> Vec<String> {
    let deadline = Instant::now() + within;
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        let mut line = String::new();
        match s.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {
                let done = line.contains(want);
                seen.push(line.trim_end().to_string());
                if done {
                    return seen;
                }
            }
            Err(_) => continue,
        }
    }
    panic!("`{want}` did not arrive within {within:?}; read: {seen:?}");
}

fn open_events(c: &Console, path: &str, extra: &[(&str, &str)]) -> BufReader<std::net::TcpStream> {
    let mut s = std::net::TcpStream::connect(c.authority()).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut req = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nAccept: text/event-stream\r\n",
        c.authority(),
        c.token
    );
    for (k, v) in extra {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    BufReader::new(s)
}

#[test]
fn the_event_stream_delivers_new_entries_and_messages_and_resumes() {
    let c = Console::start();
    let root = c.root.path();
    let count = common::ledger_lines(root).len();
    let mut s = open_events(&c, &format!("/events?after={count}"), &[]);
    read_until(&mut s, "text/event-stream", Duration::from_secs(5));
    publish(
        root,
        "decision",
        "room-004",
        "Notifications go out through the outbox table",
        &[],
    );
    let got = read_until(&mut s, "outbox table", Duration::from_secs(10));
    let id = got
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("an event id")
        .to_string();
    assert_eq!(id, (count + 1).to_string());
    assert!(got.iter().any(|l| l == "event: entry"));

    // A browser reconnecting with Last-Event-ID gets what came after it, not before.
    publish(
        root,
        "warning",
        "room-004",
        "The outbox must be drained in id order",
        &[],
    );
    let mut again = open_events(&c, "/events?after=0", &[("Last-Event-ID", &id)]);
    let got = read_until(&mut again, "drained in id order", Duration::from_secs(10));
    assert!(
        !got.iter().any(|l| l.contains("outbox table")),
        "resumed before its id: {got:?}"
    );

    // A room's stream carries its channel's new messages.
    let mut room = open_events(&c, "/events?room=room-004&chan=0", &[]);
    read_until(&mut room, "text/event-stream", Duration::from_secs(5));
    let (code, _, err) = cli(
        root,
        &[
            "channel",
            "post",
            "--room",
            "room-004",
            "--from",
            "manager",
            "--type",
            "task",
            "--body",
            "Start the notifier",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let got = read_until(&mut room, "Start the notifier", Duration::from_secs(10));
    assert!(got.iter().any(|l| l == "event: message"), "{got:?}");

    // Bounded: past the cap a stream is refused, and the others keep working.
    let mut open = Vec::new();
    for _ in 0..70 {
        open.push(open_events(&c, "/events", &[]));
    }
    let statuses: Vec<String> = open
        .iter_mut()
        .map(|s| {
            let mut line = String::new();
            let deadline = Instant::now() + Duration::from_secs(5);
            while line.is_empty() && Instant::now() < deadline {
                let _ = s.read_line(&mut line);
            }
            line
        })
        .collect();
    // Refused by the streams' cap (503) or, first, by the credential's share of the
    // edge's connections (429: the operator's 64, these streams and the pages included).
    let refused = statuses
        .iter()
        .filter(|l| l.contains(" 503 ") || l.contains(" 429 "))
        .count();
    assert!(refused >= 9, "73 streams for a cap of 64: {statuses:?}");
    drop(open);
    let _ = daemon_cmd(root, c.runtime.path(), &["status"]).output();
}

/// The cookie pair (`name=value`) a sign-in address sets.
fn sign_in(root: &Path, runtime: &Path) -> String {
    let r = get(&common::daemon::console_login_url(root, runtime), &[]).unwrap();
    assert_eq!(r.status, 303, "{}", r.body);
    r.header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn console_sessions_end_when_idle_and_when_the_operator_token_changes() {
    let root = example_project();
    let runtime = tempfile::tempdir().unwrap();
    let args = ["--listen", "127.0.0.1:0", "--console-idle", "4"];
    let daemon = common::daemon::start_daemon_with(root.path(), runtime.path(), &args);
    let home = format!(
        "{}/",
        url_of(root.path(), runtime.path()).trim_end_matches("/mcp")
    );

    // Idle: a session used within the idle time lives on; one left alone ends.
    let busy = sign_in(root.path(), runtime.path());
    let idle = sign_in(root.path(), runtime.path());
    // A request every half second keeps one alive (a loaded machine may stretch a gap,
    // not to 4 s); the other, left alone for 5 s, ends.
    let left = Instant::now();
    while left.elapsed() < Duration::from_millis(5000) {
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(get(&home, &[("Cookie", &busy)]).unwrap().status, 200);
    }
    assert_eq!(
        get(&home, &[("Cookie", &idle)]).unwrap().status,
        401,
        "a session idle for 5 s outlived --console-idle 4"
    );

    // A new operator token (a new token file, the daemon restarted): no old session opens
    // anything, and the new token's sign-in works.
    let before = operator_token(root.path(), runtime.path());
    let live = sign_in(root.path(), runtime.path());
    assert_eq!(get(&home, &[("Cookie", &live)]).unwrap().status, 200);
    let status = daemon_cmd(root.path(), runtime.path(), &["status", "--json"])
        .output()
        .unwrap();
    let info: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let token_file = info["token_file"].as_str().unwrap().to_string();
    let stopped = daemon_cmd(root.path(), runtime.path(), &["stop"])
        .output()
        .unwrap();
    assert!(
        stopped.status.success(),
        "{}",
        String::from_utf8_lossy(&stopped.stderr)
    );
    drop(daemon);
    std::fs::remove_file(&token_file).unwrap();
    let _daemon = common::daemon::start_daemon_with(root.path(), runtime.path(), &args);
    assert_ne!(operator_token(root.path(), runtime.path()), before);
    let home = format!(
        "{}/",
        url_of(root.path(), runtime.path()).trim_end_matches("/mcp")
    );
    assert_eq!(get(&home, &[("Cookie", &live)]).unwrap().status, 401);
    let fresh = sign_in(root.path(), runtime.path());
    assert_eq!(get(&home, &[("Cookie", &fresh)]).unwrap().status, 200);
}
