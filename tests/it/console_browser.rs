//! The console in a real browser (Debian's chromium through chromedriver), served by a real
//! daemon on the example project plus a generated 30-epic plan: the DAG's nodes and edges,
//! the timeline and its filter form, a supersede chain followed by clicking, a room's
//! channel and brief (equal to `context`'s), search, the audit head (equal to `verify`'s),
//! an entry published through the CLI appearing on the open page within 2 s without a
//! reload, markup and a bidi override shown as text, a violation shown after a line is
//! rewritten, and no console error (a CSP violation would be one) on any page.

use crate::common;

use std::time::Duration;

use common::browser::Browser;
use common::cli;
use common::daemon::{console_login_url, start_daemon, url_of};
use serde_json::{Value, json};

/// A plan of `n` epics in a lattice: each depends on the one before it and, every third,
/// on the one three before (the shape of a plan with parallel tracks).
fn generated_plan(n: usize) -> (Value, usize) {
    let mut edges = 0;
    let epics: Vec<Value> = (1..=n)
        .map(|i| {
            let mut deps = Vec::new();
            if i > 1 {
                deps.push(format!("G-{:02}", i - 1));
            }
            if i > 3 && i % 3 == 0 {
                deps.push(format!("G-{:02}", i - 3));
            }
            edges += deps.len();
            json!({"ref": format!("G-{i:02}"), "room_id": format!("gen-{i:02}"),
                   "title": format!("Generated epic {i}"), "depends_on": deps})
        })
        .collect();
    (
        json!({"plan_id": "gen", "title": "Generated", "epics": epics}),
        edges,
    )
}

/// Serves, on a port of its own, a page that asks the browser for `GET logout` (an image)
/// and posts a form to it at once, as a hostile local page would; its address.
fn hostile_page(logout: &str) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let body = format!(
        "<!doctype html><html><body><img src=\"{logout}\">\
         <form id=f method=post action=\"{logout}\"></form>\
         <script>setTimeout(function(){{document.getElementById('f').submit()}},200)</script>\
         </body></html>"
    );
    std::thread::spawn(move || {
        for mut s in listener.incoming().flatten().take(4) {
            let mut buf = [0u8; 4096];
            let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
            let _ = s.read(&mut buf);
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}/")
}

#[test]
fn the_console_works_in_a_real_browser() {
    let root = common::example_project();
    let root = root.path();
    let (plan, gen_edges) = generated_plan(30);
    let plan_file = root.join("gen-plan.json");
    std::fs::write(&plan_file, plan.to_string()).unwrap();
    let (code, _, err) = cli(root, &["plan", "register", plan_file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for i in [1, 2, 3] {
        let room = format!("gen-{i:02}");
        let (code, _, err) = cli(
            root,
            &[
                "publish",
                "--kind",
                "decision",
                "--room",
                &room,
                "--role",
                "architect",
                "--summary",
                &format!("Generated decision {i}"),
            ],
        );
        assert_eq!(code, 0, "{err}");
    }
    let (code, _, err) = cli(
        root,
        &[
            "channel",
            "post",
            "--room",
            "gen-01",
            "--from",
            "engineer",
            "--type",
            "done",
            "--body",
            "G-01 shipped",
        ],
    );
    assert_eq!(code, 0, "{err}");

    let runtime = tempfile::tempdir().unwrap();
    let _daemon = start_daemon(root, runtime.path());
    let base = url_of(root, runtime.path())
        .trim_end_matches("/mcp")
        .to_string();
    let login = console_login_url(root, runtime.path());
    let b = Browser::start();
    let mut errors = Vec::new();

    // Signing in: the one-time code leaves the address bar at once.
    b.goto(&login);
    assert_eq!(b.url(), format!("{base}/"));

    // The plans page: every epic a node, every dependency an edge, nodes link to rooms.
    let nodes = b.eval("return document.querySelectorAll('svg g.node').length");
    assert_eq!(nodes, json!(4 + 30));
    let edges = b.eval("return document.querySelectorAll('svg path.edge').length");
    assert_eq!(edges, json!(4 + gen_edges));
    let shop_edges = b.eval(
        "return [...document.querySelectorAll('[data-plan=\"shop-v1\"] path.edge')]\
         .map(e => e.dataset.from + '>' + e.dataset.to).sort().join(' ')",
    );
    assert_eq!(
        shop_edges,
        json!("EPIC-001>EPIC-002 EPIC-001>EPIC-003 EPIC-002>EPIC-003 EPIC-003>EPIC-004")
    );
    let status = b.eval(
        "return document.querySelector('[data-plan=\"gen\"] g.node[data-ref=\"G-01\"]')\
         .getAttribute('class')",
    );
    assert_eq!(
        status,
        json!("node s-done"),
        "an epic's status from its channel"
    );
    // Legible: no two nodes overlap, and the drawing of 30 epics fits its box.
    let overlaps = b.eval(
        "const r = [...document.querySelectorAll('[data-plan=\"gen\"] g.node rect')]\
           .map(e => e.getBoundingClientRect());\
         let n = 0; for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++)\
           if (r[i].left < r[j].right && r[j].left < r[i].right && r[i].top < r[j].bottom && r[j].top < r[i].bottom) n++;\
         return n",
    );
    assert_eq!(overlaps, json!(0));
    b.click("[data-plan=\"shop-v1\"] g.node[data-ref=\"EPIC-003\"] text.ref");
    b.wait_for(
        "return location.pathname === '/room/room-003'",
        Duration::from_secs(5),
        "a node leads to its room",
    );
    errors.extend(b.console_errors());

    // The room: its brief is exactly what `context` prints; its channel is there.
    let (code, out, err) = cli(root, &["context", "room-003", "--json"]);
    assert_eq!(code, 0, "{err}");
    let md = serde_json::from_str::<Value>(&out).unwrap()["markdown"].clone();
    assert_eq!(
        b.eval("return document.getElementById('brief').textContent"),
        md
    );
    let msgs = b.eval("return document.querySelectorAll('#channel li.msg').length");
    assert!(msgs.as_u64().unwrap() > 0, "the room's channel");
    errors.extend(b.console_errors());

    // The timeline's filter form.
    b.goto(&format!("{base}/timeline"));
    b.eval("document.querySelector('select[name=kind]').value = 'warning'; return 0");
    b.click("form.filters button");
    b.wait_for(
        "return location.search.includes('kind=warning')",
        Duration::from_secs(5),
        "the filter form submits",
    );
    let kinds =
        b.eval("return [...document.querySelectorAll('#feed .kind')].map(k => k.textContent)");
    let kinds: Vec<String> = serde_json::from_value(kinds).unwrap();
    assert!(
        !kinds.is_empty() && kinds.iter().all(|k| k == "warning"),
        "{kinds:?}"
    );
    errors.extend(b.console_errors());

    // A supersede chain followed by clicking: from the live decision to the one it replaced.
    b.goto(&format!("{base}/entry/mem-01M7SR8PS04MNPZX45HY43KWJR"));
    b.click("ol.chain li a[href=\"/entry/mem-01M7PYTRR0M9S346Q3D25VT4F5\"]");
    b.wait_for(
        "return location.pathname === '/entry/mem-01M7PYTRR0M9S346Q3D25VT4F5'",
        Duration::from_secs(5),
        "the older version opens",
    );
    let status = b.eval("return document.querySelector('table.fields .badge').textContent");
    assert_eq!(status, json!("superseded"));
    assert!(
        b.eval("return document.querySelectorAll('ol.chain del, ol.chain ins').length")
            .as_u64()
            .unwrap()
            > 0,
        "the diff between versions"
    );
    errors.extend(b.console_errors());

    // Search from the header's box.
    b.type_into("header input[name=q]", "password hashing\n");
    b.wait_for(
        "return location.pathname === '/search'",
        Duration::from_secs(5),
        "the search box submits",
    );
    let first = b.eval("return document.querySelector('ol.hits .summary').textContent");
    assert!(first.as_str().unwrap().contains("argon2"), "{first}");
    assert!(
        b.eval("return document.querySelector('li.explain').textContent")
            .as_str()
            .unwrap()
            .contains("BM25F")
    );
    errors.extend(b.console_errors());

    // Audit: the head is verify's.
    let (_, out, _) = cli(root, &["verify", "--json"]);
    let head = serde_json::from_str::<Value>(&out).unwrap()["chain"]["head"].clone();
    b.goto(&format!("{base}/audit"));
    assert_eq!(
        b.eval("return document.getElementById('head').textContent"),
        head
    );
    b.screenshot("audit");
    errors.extend(b.console_errors());

    // Live: an entry published through the CLI appears on the open timeline within 2 s,
    // without a reload; its markup and bidi override show as text.
    b.goto(&format!("{base}/timeline"));
    b.eval("window.stillHere = true; return 0");
    b.wait_for(
        "return document.getElementById('live').classList.contains('on')",
        Duration::from_secs(10),
        "the live stream connects",
    );
    let hostile = "Never use <img src=x onerror=alert(1)> in \u{202E}emails";
    let (code, _, err) = cli(
        root,
        &[
            "publish",
            "--kind",
            "warning",
            "--room",
            "room-004",
            "--role",
            "qa",
            "--summary",
            hostile,
        ],
    );
    assert_eq!(code, 0, "{err}");
    b.wait_for(
        "return [...document.querySelectorAll('#feed li .summary')].some(s => s.textContent.includes('in emails') || s.textContent.includes('emails'))",
        Duration::from_secs(2),
        "the new entry appears without a reload",
    );
    assert_eq!(
        b.eval("return window.stillHere === true"),
        json!(true),
        "no reload"
    );
    let row =
        b.eval("return document.querySelector('#feed li').querySelector('.summary').textContent");
    let row = row.as_str().unwrap();
    assert!(
        row.contains("<img src=x onerror=alert(1)>"),
        "markup as text: {row}"
    );
    assert!(
        row.contains("U+202E") && !row.contains('\u{202E}'),
        "the override as a marker: {row}"
    );
    assert_eq!(
        b.eval("return document.querySelectorAll('#feed img').length"),
        json!(0)
    );
    errors.extend(b.console_errors());

    // A line rewritten in place (one byte longer, so the verified prefix no longer ends
    // where it did and the page runs a full pass): the audit page shows a violation.
    let path = common::ledger(root);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("Generated decision 2", "Generated decision 22", 1),
    )
    .unwrap();
    b.goto(&format!("{base}/audit"));
    b.screenshot("audit-violations");
    let rows = b.eval("return document.querySelectorAll('table.violations tbody tr').length");
    assert!(
        rows.as_u64().unwrap() > 0,
        "a violation for the rewritten line"
    );
    errors.extend(b.console_errors());

    // A page on another loopback port (the same *site* to the browser, so SameSite does
    // not hold its requests back) tries to sign the console out: an image of /logout and a
    // form posted to it. The session survives both.
    let hostile = hostile_page(&format!("{base}/logout"));
    b.goto(&hostile);
    std::thread::sleep(std::time::Duration::from_millis(800));
    // Its refused requests are errors of that page, not of the console's.
    let _refused = b.console_errors();
    b.goto(&format!("{base}/timeline"));
    assert!(
        !b.eval("return document.title")
            .as_str()
            .unwrap()
            .contains("Sign in"),
        "a page on another port signed the console out"
    );

    // Signing out: the button in the header ends the session; the page needs a new
    // sign-in, and the old address (already used) does not give one.
    b.eval("document.querySelector('header.top form.signout button').click(); return true");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        b.eval("return document.title")
            .as_str()
            .unwrap()
            .contains("Signed out"),
        "the sign-out page: {}",
        b.eval("return document.title + ' | ' + document.body.innerText")
    );
    b.goto(&format!("{base}/timeline"));
    assert!(
        b.eval("return document.title")
            .as_str()
            .unwrap()
            .contains("Sign in"),
        "signed out: {}",
        b.eval("return document.body.innerText")
    );
    b.goto(&login);
    assert!(
        b.eval("return document.body.innerText")
            .as_str()
            .unwrap()
            .contains("already used"),
        "a used sign-in address is refused"
    );

    assert!(errors.is_empty(), "browser console errors: {errors:?}");
}
