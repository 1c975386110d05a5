//! The console's audit page continues its verification, through the real
//! binary: after new entries it reads only them and says so; every tamper of the new lines
//! is on the page at once, exactly as a full `verify` reports them; a line changed inside
//! the verified prefix is found by the background full pass once one is due, and the page
//! then agrees with `verify` again. Time is the daemon's clock file, moved by the test.
//! With the ledger in PostgreSQL the page continues from the rows after the verified ones.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::daemon::{daemon_cmd, operator_token, start_daemon_cmd, url_of};
use common::{cli, example_project, ledger};
use warroom_memory::chain::{hex, link_of};
use warroom_memory::clock::{Clock, SystemClock, Timestamp};
use xtask::http_client::get;

/// Starts the daemon `cmd` and returns it with the console's address and operator token.
fn console(
    root: &Path,
    runtime: &Path,
    cmd: std::process::Command,
) -> (common::daemon::Daemon, String, String) {
    let daemon = start_daemon_cmd(root, runtime, cmd);
    let base = url_of(root, runtime).trim_end_matches("/mcp").to_string();
    (daemon, base, operator_token(root, runtime))
}

fn page(base: &str, token: &str) -> String {
    let r = get(
        &format!("{base}/audit"),
        &[("Authorization", &format!("Bearer {token}"))],
    )
    .unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    r.body
}

/// (line, kind) of every row of the page's violations table.
fn violations(page: &str) -> Vec<(u64, String)> {
    let Some(table) = page.split("<table class=\"data violations\">").nth(1) else {
        return Vec::new();
    };
    let table = table.split("</table>").next().unwrap();
    table
        .split("<tr><td>")
        .skip(1)
        .map(|row| {
            let line = row.split('<').next().unwrap().parse().unwrap();
            let kind = row
                .split("badge bad\">")
                .nth(1)
                .unwrap()
                .split('<')
                .next()
                .unwrap();
            (line, kind.to_string())
        })
        .collect()
}

/// (line, kind) of every violation a full `verify --json` reports, in its order.
fn verify_full(root: &Path) -> (Vec<(u64, String)>, String) {
    let (code, out, err) = cli(root, &["verify", "--json"]);
    assert!(code == 0 || code == 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let found = v["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["line"].as_u64().unwrap(),
                x["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (found, v["chain"]["head"].as_str().unwrap().to_string())
}

fn continued(page: &str) -> Option<u64> {
    page.split("id=\"continued\">")
        .nth(1)
        .map(|s| s.split('<').next().unwrap().parse().unwrap())
}

fn publish(root: &Path, summary: &str) {
    let (code, _, err) = cli(
        root,
        &[
            "publish",
            "--kind",
            "decision",
            "--room",
            "room-9",
            "--role",
            "engineer",
            "--summary",
            summary,
        ],
    );
    assert_eq!(code, 0, "{err}");
}

fn set_clock(file: &Path, t: Timestamp) {
    std::fs::write(file, t.to_rfc3339()).unwrap();
}

#[test]
fn the_audit_page_continues_over_new_lines_and_a_full_pass_finds_the_rest() {
    let p = example_project();
    let root = p.path();
    std::fs::write(
        root.join(".agents/warroom.yaml"),
        "full_verify_seconds: 3600\n",
    )
    .unwrap();
    let clock = root.join("clock");
    // The first view is ten minutes behind the writers' clock: the lines published after
    // it must be judged against the later view's now, not that one's (else they would be
    // `future-dated`).
    let start = SystemClock.now();
    set_clock(&clock, Timestamp(start.0 - 600));
    let runtime = tempfile::tempdir().unwrap();
    let mut cmd = daemon_cmd(root, runtime.path(), &["--listen", "127.0.0.1:0"]);
    cmd.env("WARROOM_NOW_FILE", &clock);
    let (_daemon, base, token) = console(root, runtime.path(), cmd);

    // The first view is a full pass.
    let first = page(&base, &token);
    assert!(
        first.contains("Clean") && continued(&first).is_none(),
        "{first}"
    );
    assert!(first.contains("id=\"full-at\""));
    set_clock(&clock, start);

    // New entries: only they are read, and the page's head is verify's.
    for i in 0..3 {
        publish(root, &format!("continued decision {i}"));
    }
    let after = page(&base, &token);
    assert_eq!(continued(&after), Some(3), "{after}");
    let (none, head) = verify_full(root);
    assert!(none.is_empty(), "{none:?}");
    assert!(after.contains(&format!("<code id=\"head\">{head}</code>")));
    assert!(after.contains("Clean"));

    // Tampered new lines — a duplicate id, a line that is not JSON, a link to nothing —
    // are all on the next page, exactly as a full verify reports them.
    let text = std::fs::read_to_string(ledger(root)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len() as u64;
    let last = *lines.last().unwrap();
    let dup = format!(
        "{},\"prev\":\"{}\"}}",
        last.rsplit_once(",\"prev\":").unwrap().0,
        hex(&link_of(last.as_bytes()))
    )
    .replace("continued decision 2", "continued decision two");
    let dangling = format!(
        "{},\"prev\":\"{}\"}}",
        lines[lines.len() - 2].rsplit_once(",\"prev\":").unwrap().0,
        "ab".repeat(16)
    );
    let mut more = text.clone();
    for l in [dup.as_str(), "not json", &dangling] {
        more.push_str(l);
        more.push('\n');
    }
    std::fs::write(ledger(root), &more).unwrap();
    let tampered = page(&base, &token);
    assert_eq!(continued(&tampered), Some(6), "{tampered}");
    let (want, _) = verify_full(root);
    let got = violations(&tampered);
    assert_eq!(got, want);
    for v in [
        (n + 1, "duplicate-id"),
        (n + 2, "malformed-json"),
        (n + 3, "broken-link"),
    ] {
        assert!(got.contains(&(v.0, v.1.to_string())), "{v:?} in {got:?}");
    }

    // A line changed inside the verified prefix (same length): the continuation trusts
    // the prefix, so the page is as before until a full pass is due.
    let target = lines[lines.len() - 3];
    let at = target.find("\"summary\":\"").unwrap() + 11;
    let mut changed = target.to_string();
    let swap = if target.as_bytes()[at] == b'X' {
        "Y"
    } else {
        "X"
    };
    changed.replace_range(at..at + 1, swap);
    let inner = more.replacen(target, &changed, 1);
    assert_eq!(inner.len(), more.len());
    std::fs::write(ledger(root), &inner).unwrap();
    let (want, _) = verify_full(root);
    assert!(
        want.len() > got.len(),
        "the full verify sees the change: {want:?}"
    );
    let trusted = page(&base, &token);
    assert_eq!(violations(&trusted), got, "no full pass is due yet");
    assert!(!trusted.contains("id=\"full-running\""));

    // An hour later a view starts a full pass in the background; the pages after it show
    // what the full verify shows.
    set_clock(&clock, Timestamp(start.0 + 3700));
    let due = page(&base, &token);
    assert!(due.contains("id=\"full-running\""), "{due}");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let now = page(&base, &token);
        if violations(&now) == want {
            assert!(continued(&now).is_none(), "a fresh full pass: {now}");
            break;
        }
        assert!(Instant::now() < deadline, "no full pass within 60 s: {now}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn with_the_ledger_in_postgresql_the_page_continues_from_the_rows_after_it() {
    let (p, _url) = common::pg::server().project();
    let root = p.path();
    let yaml = root.join(".agents/warroom.yaml");
    let mut config = std::fs::read_to_string(&yaml).unwrap();
    config.push_str("full_verify_seconds: 3600\n");
    std::fs::write(&yaml, config).unwrap();
    publish(root, "before the daemon");
    let runtime = tempfile::tempdir().unwrap();
    let cmd = daemon_cmd(root, runtime.path(), &["--listen", "127.0.0.1:0"]);
    let (_daemon, base, token) = console(root, runtime.path(), cmd);

    let first = page(&base, &token);
    assert!(
        first.contains("Clean") && continued(&first).is_none(),
        "{first}"
    );
    assert!(first.contains("(ledger)"), "the database's ledger: {first}");
    publish(root, "after one");
    publish(root, "after two");
    // A brief adds a receipt row: continued too.
    let (code, _, err) = cli(root, &["context", "room-9", "--keyword", "after"]);
    assert!(code == 0 || code == 1, "{err}");
    let after = page(&base, &token);
    assert_eq!(
        continued(&after),
        Some(3),
        "two ledger rows and a receipt: {after}"
    );
    let (none, head) = verify_full(root);
    assert!(none.is_empty(), "{none:?}");
    assert!(
        after.contains(&format!("<code id=\"head\">{head}</code>")),
        "{after}"
    );
    assert!(after.contains("Clean"));
}
