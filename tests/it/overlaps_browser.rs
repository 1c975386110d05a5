//! Open overlaps end to end in a real browser (Debian's chromium through chromedriver): two
//! sibling rooms of a plan decide opposite things about money; the console's `/overlaps`
//! page — reached from the plans page and from a room page — shows the pair side by side
//! with a word diff, leaves out an entry that only shares words, and drops the pair once one
//! room supersedes the other's entry; a decision published after that is paired by the
//! next view's pass. The brief on the room page carries the same pair.

use crate::common;

use std::time::Duration;

use common::browser::Browser;
use common::daemon::{console_login_url, start_daemon, url_of};
use common::{cli, cli_publish_as, project};
use serde_json::{Value, json};

#[test]
fn the_overlaps_page_shows_an_open_pair_and_drops_it_when_reconciled() {
    let dir = project();
    let root = dir.path();
    let plan = json!({"plan_id": "p", "epics": [
        {"ref": "E1", "room_id": "room-001"},
        {"ref": "E2", "room_id": "room-002", "depends_on": ["E1"]},
        {"ref": "E3", "room_id": "room-003", "depends_on": ["E1"]},
    ]});
    let file = root.join("plan.json");
    std::fs::write(&file, plan.to_string()).unwrap();
    assert_eq!(
        cli(root, &["plan", "register", file.to_str().unwrap()]).0,
        0
    );
    let id = |v: Value| v["entry"]["id"].as_str().unwrap().to_string();
    let cents = id(cli_publish_as(
        root,
        None,
        ("decision", "room-002", "engineer"),
        "Money is stored as integer cents in the orders table (amount_cents).",
        &[],
    ));
    let dollars = id(cli_publish_as(
        root,
        None,
        ("decision", "room-003", "engineer"),
        "Money is stored as DECIMAL dollars in the invoices table, not amount_cents.",
        &[],
    ));
    let image = id(cli_publish_as(
        root,
        None,
        ("decision", "room-001", "designer"),
        "The landing page uses a background image of the office.",
        &[],
    ));
    id(cli_publish_as(
        root,
        None,
        ("decision", "room-003", "engineer"),
        "The background job queue runs on Redis streams.",
        &[],
    ));

    let runtime = tempfile::tempdir().unwrap();
    let _daemon = start_daemon(root, runtime.path());
    let base = url_of(root, runtime.path())
        .trim_end_matches("/mcp")
        .to_string();
    let b = Browser::start();
    b.goto(&console_login_url(root, runtime.path()));
    assert_eq!(b.url(), format!("{base}/"));

    // From the plans page to the overlaps page.
    b.click("#overlaps-link");
    b.wait_for(
        "return location.pathname === '/overlaps'",
        Duration::from_secs(5),
        "the plans page links to /overlaps",
    );
    let pairs = b.eval(
        "return [...document.querySelectorAll('li.overlap')].map(li => \
           [...li.querySelectorAll('.side a code')].map(c => c.textContent).join(' '))",
    );
    assert_eq!(
        pairs,
        json!([format!("{cents} {dollars}")]),
        "one pair, older first"
    );
    let page = b
        .eval("return document.querySelector('main').innerText")
        .to_string();
    assert!(
        !page.contains(&image),
        "shared words alone are no overlap: {page}"
    );
    let diff = b.eval(
        "const d = document.querySelector('li.overlap .diff');\
         return [d.querySelectorAll('del').length > 0, d.querySelectorAll('ins').length > 0,\
                 d.querySelector('del').textContent]",
    );
    assert_eq!(diff[0], json!(true), "{diff}");
    assert_eq!(diff[1], json!(true), "{diff}");
    let as_of = b.eval("return document.querySelector('#as-of').textContent");
    assert!(
        as_of
            .as_str()
            .unwrap()
            .contains("Found by a pass over all "),
        "the first view's pass looked at every entry: {as_of}"
    );
    let why = b.eval("return document.querySelector('li.overlap .why').textContent");
    assert!(why.as_str().unwrap().contains("amount_cents"), "{why}");
    b.screenshot("overlaps");

    // A room page links to its own overlaps, and its brief carries the pair.
    b.goto(&format!("{base}/room/room-002"));
    let brief = b.eval("return document.querySelector('#brief').textContent");
    let brief = brief.as_str().unwrap();
    assert!(
        brief.contains("## Open overlaps") && brief.contains(&dollars),
        "{brief}"
    );
    b.click("#overlaps-link");
    b.wait_for(
        "return location.search === '?room=room-002'",
        Duration::from_secs(5),
        "the room page links to its overlaps",
    );
    assert_eq!(
        b.eval("return document.querySelectorAll('li.overlap').length"),
        json!(1)
    );
    let errors = b.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");

    // room-003 reconciles: it supersedes room-002's entry with the agreed rule.
    cli_publish_as(
        root,
        None,
        ("decision", "room-003", "engineer"),
        "Money is integer cents everywhere (amount_cents), as room-002 decided.",
        &["--supersedes", &cents],
    );
    b.goto(&format!("{base}/overlaps"));
    let verdict = b.eval("return document.querySelector('#verdict').textContent");
    let li = b.eval("return document.querySelectorAll('li.overlap').length");
    // Superseding room-002's entry leaves room-003's DECIMAL entry and the new one, both
    // room-003's: no pair across rooms is left.
    assert_eq!(li, json!(0), "{verdict}");
    assert!(
        verdict.as_str().unwrap().contains("No open overlaps"),
        "{verdict}"
    );
    b.screenshot("overlaps-none");

    // A third room decides the subject again: the page's kept pairs are of a shorter
    // ledger, so the view runs the next pass (on a ledger this small it ends within the
    // page's wait) and shows the new entry's pairs.
    let refunds = id(cli_publish_as(
        root,
        None,
        ("decision", "room-001", "engineer"),
        "Refunds are stored as integer cents too (amount_cents).",
        &[],
    ));
    b.goto(&format!("{base}/overlaps"));
    let ids = b.eval(
        "return [...document.querySelectorAll('li.overlap .side a code')].map(c => c.textContent)",
    );
    assert!(
        ids.as_array().unwrap().iter().any(|i| i == &json!(refunds)),
        "the new decision's pairs are listed: {ids}"
    );
    let as_of = b.eval("return document.querySelector('#as-of').textContent");
    assert!(
        as_of.as_str().unwrap().contains("all 6 entries"),
        "the pass looked at the new entry: {as_of}"
    );
}
