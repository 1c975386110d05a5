//! The brief as a selection (docs/brief.md), through the real binary: each
//! principle a manager relies on holds with 60 working notes in every upstream room —
//! a convention reaches every room's brief, a room two and three steps up with an
//! interface is represented, a superseded entry never appears, an entry published with
//! `audience: room` reaches no other room's brief — and the brief explains itself per
//! upstream room and replays byte for byte from its receipt.

use crate::common;

use common::{Agent, agent, cli, strs};
use serde_json::{Value, json};

/// a → b → c → d, and x beside them (in no one's upstream).
fn plan() -> Value {
    json!({"plan_id": "chain", "title": "Chain", "epics": [
        {"ref": "EPIC-A", "room_id": "room-a", "title": "Accounts", "brief_keywords": ["accounts"]},
        {"ref": "EPIC-B", "room_id": "room-b", "title": "Billing", "depends_on": ["EPIC-A"],
         "brief_keywords": ["billing"]},
        {"ref": "EPIC-C", "room_id": "room-c", "title": "Catalog", "depends_on": ["EPIC-B"],
         "brief_keywords": ["catalog"]},
        {"ref": "EPIC-D", "room_id": "room-d", "title": "Delivery", "depends_on": ["EPIC-C"],
         "brief_keywords": ["delivery", "parcel"]},
        {"ref": "EPIC-X", "room_id": "room-x", "title": "Ops"}
    ]})
}

async fn publish(a: &Agent, args: Value) -> String {
    a.ok("memory_publish", args).await["entry"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// 60 working notes of `room`'s own implementation, in every kind but convention, some
/// sharing the downstream room's words ("delivery", "parcel").
async fn notes(a: &Agent, room: &str) {
    let kinds = ["code", "artifact", "decision", "warning", "interface"];
    for n in 0..60 {
        let summary = match n % 4 {
            0 => {
                format!("Renamed {room}_v{n} to {room} in the code; the delivery path is unchanged")
            }
            1 => format!("Migration {n:04}_{room}.sql adds an index for parcel lookups"),
            2 => format!("Internal worker of {room} retries {n} times before giving up"),
            _ => format!("Flaky test {room}_{n} under load; rerun before blaming it"),
        };
        publish(
            a,
            json!({"kind": kinds[n % kinds.len()], "summary": summary}),
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_principle_holds_under_sixty_notes_a_room() {
    let dir = common::project();
    let root = dir.path();
    let x = agent(root).room("room-x").role("architect").start().await;
    x.ok("memory_register_plan", json!({"plan": plan()})).await;
    let convention = publish(
        &x,
        json!({"kind": "convention", "summary": "All wire timestamps are RFC 3339 UTC"}),
    )
    .await;
    let a = agent(root).room("room-a").role("architect").start().await;
    let far = publish(
        &a,
        json!({"kind": "interface", "summary": "GET /v1/accounts/{id} returns account_id and tier"}),
    )
    .await;
    notes(&a, "accounts").await;
    let b = agent(root).room("room-b").role("architect").start().await;
    let two_up = publish(
        &b,
        json!({"kind": "interface", "summary": "POST /v1/invoices creates an invoice for a parcel's charges"}),
    )
    .await;
    let private = publish(
        &b,
        json!({"kind": "decision", "audience": "room",
               "summary": "Delivery parcel billing internals: our ledger cache is rebuilt nightly"}),
    )
    .await;
    notes(&b, "billing").await;
    let c = agent(root).room("room-c").role("architect").start().await;
    let old = publish(
        &c,
        json!({"kind": "decision", "summary": "Delivery polls the catalog for stock every minute"}),
    )
    .await;
    let new = publish(
        &c,
        json!({"kind": "decision", "supersedes": old,
               "summary": "Delivery subscribes to catalog stock events instead of polling"}),
    )
    .await;
    notes(&c, "catalog").await;
    for ag in [x, a, b, c] {
        ag.stop().await;
    }

    let d = agent(root).room("room-d").role("manager").start().await;
    let brief = d.ok("memory_get_context", json!({})).await;
    let ids = strs(&brief["entry_ids"]);
    let md = brief["markdown"].as_str().unwrap();
    assert!(
        ids.contains(&convention.as_str()),
        "the convention binds every room: {md}"
    );
    assert!(
        ids.contains(&far.as_str()),
        "three steps up, represented: {md}"
    );
    assert!(
        ids.contains(&two_up.as_str()),
        "two steps up, represented: {md}"
    );
    assert!(ids.contains(&new.as_str()), "the live decision: {md}");
    assert!(
        !ids.contains(&old.as_str()),
        "a superseded entry never appears"
    );
    assert!(
        !ids.contains(&private.as_str()),
        "a working note stays in its room"
    );
    // Every upstream room is in the brief, and the account says how much of each.
    for room in ["room-a", "room-b", "room-c"] {
        assert!(
            brief["included"]
                .as_array()
                .unwrap()
                .iter()
                .any(|i| i["room_id"] == room),
            "{room} represented"
        );
    }
    assert!(
        md.contains("Shown of each upstream room's live entries:") && md.contains("room-b "),
        "{md}"
    );
    assert!(md.len() <= 10_240);
    // Even asked for the note's own words, by any room, the note is not shown.
    for (room, kw) in [
        ("room-c", json!(["ledger", "cache", "nightly"])),
        ("room-d", json!(["billing", "internals"])),
    ] {
        let m = agent(root).room(room).role("manager").start().await;
        let b = m
            .ok("memory_get_context", json!({"brief_keywords": kw}))
            .await;
        assert!(!strs(&b["entry_ids"]).contains(&private.as_str()), "{room}");
        m.stop().await;
    }
    // The room itself still finds it in search and query.
    let (code, out, _) = cli(root, &["--json", "get", &private]);
    assert_eq!(code, 0);
    assert!(out.contains("\"audience\": \"room\""), "{out}");
    d.stop().await;

    // The CLI explains the choice per upstream room, and the receipt replays it.
    let (code, out, err) = cli(root, &["context", "room-d", "--explain"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("upstream room-a (3 up):"), "{out}");
    assert!(out.contains("live entries shown"), "{out}");
    assert!(
        out.contains("1 working note kept in its room"),
        "room-b's one note is counted apart: {out}"
    );
    assert!(out.contains(&format!("{convention} binding")), "{out}");
    let (_, list, _) = cli(root, &["--json", "receipts", "--room", "room-d"]);
    let list: Value = serde_json::from_str(&list).unwrap();
    for r in list.as_array().unwrap() {
        assert_eq!(r["ranking"]["selection"], "coverage-4");
        assert_eq!(r["accounts"].as_array().unwrap().len(), 3, "{r}");
        let id = r["id"].as_str().unwrap();
        let (code, out, err) = cli(root, &["context", "--replay", id]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("IDENTICAL"), "{out}");
    }
}

/// `audience` is validated: an unknown value is refused with the three names, nothing
/// written; the CLI flag says the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_audience_is_refused_and_writes_nothing() {
    let dir = common::project();
    let root = dir.path();
    let a = agent(root).room("room-a").role("engineer").start().await;
    let r = a
        .call(
            "memory_publish",
            json!({"kind": "decision", "summary": "x", "audience": "everyone"}),
        )
        .await;
    assert_eq!(r.is_error, Some(true));
    let text = common::text(&r);
    assert!(
        text.contains("room") && text.contains("downstream") && text.contains("project"),
        "{text}"
    );
    let (code, _, err) = cli(
        root,
        &[
            "publish",
            "--kind",
            "decision",
            "--summary",
            "y",
            "--room",
            "room-a",
            "--role",
            "e",
            "--audience",
            "everyone",
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("room, downstream or project"), "{err}");
    assert!(common::ledger_lines(root).is_empty());
    a.stop().await;
}

/// An entry that names the room's epic by its title is addressed to it: found through the
/// title even when the keywords describe the room's own job and the title shares none of
/// their words — here in Russian, the title written in another case than the entry. The
/// upstream room's 20 newer interfaces for other rooms would fill the brief otherwise.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entry_naming_the_epic_by_its_title_is_addressed_to_it() {
    let dir = common::project();
    let root = dir.path();
    let o = agent(root).room("room-o").role("architect").start().await;
    o.ok(
        "memory_register_plan",
        json!({"plan": {"plan_id": "clinic", "title": "Клиника", "epics": [
            {"ref": "EPIC-O", "room_id": "room-o", "title": "Заказы", "brief_keywords": ["заказ"]},
            {"ref": "EPIC-P", "room_id": "room-p", "title": "Аптека", "depends_on": ["EPIC-O"],
             "brief_keywords": ["рецепт", "выдача"]}
        ]}}),
    )
    .await;
    let addressed = publish(
        &o,
        json!({"kind": "interface",
               "summary": "АПТЕКА: заказ отдаёт order_id и статус через GET /v1/orders/{id}"}),
    )
    .await;
    for n in 0..20 {
        publish(
            &o,
            json!({"kind": "interface",
                   "summary": format!("Склад {n}: заказ отдаёт order_id и статус партии {n}")}),
        )
        .await;
    }
    o.stop().await;

    let p = agent(root).room("room-p").role("manager").start().await;
    let brief = p.ok("memory_get_context", json!({})).await;
    let md = brief["markdown"].as_str().unwrap();
    let ids = strs(&brief["entry_ids"]);
    assert_eq!(ids.first(), Some(&addressed.as_str()), "{md}");
    assert!(
        md.contains("Searched too: the epic's title, Аптека"),
        "{md}"
    );
    let first = &brief["included"][0];
    assert!(
        first["reason"].as_str().unwrap().ends_with("-match"),
        "{first}"
    );
    assert!(first["matched"].to_string().contains("Аптека"), "{first}");
    p.stop().await;
    // The receipt records the title, and replays byte for byte.
    let (_, list, _) = cli(root, &["--json", "receipts", "--room", "room-p"]);
    let list: Value = serde_json::from_str(&list).unwrap();
    let r = &list.as_array().unwrap()[0];
    assert_eq!(r["epic_title"], "Аптека", "{r}");
    let (code, out, err) = cli(root, &["context", "--replay", r["id"].as_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("IDENTICAL"), "{out}");
}

/// The account tells working notes from what the limits left out: an upstream room's
/// notes published `audience: room` (here in Turkish) are counted as kept in their room —
/// in the brief's `omitted`, in each room's account, in `--explain`, in the receipt — and
/// not as past the entry limit; an entry for the publisher's downstream only (Chinese) is
/// kept from a room off its DAG the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn working_notes_are_counted_apart_from_what_the_limits_left_out() {
    let dir = common::project();
    let root = dir.path();
    let a = agent(root).room("room-a").role("architect").start().await;
    a.ok("memory_register_plan", json!({"plan": plan()})).await;
    let shown = publish(
        &a,
        json!({"kind": "interface", "summary": "GET /v1/accounts/{id} hesap numarasını döndürür"}),
    )
    .await;
    for n in 0..4 {
        publish(
            &a,
            json!({"kind": "code", "audience": "room",
                   "summary": format!("Çalışma notu {n}: önbellek ısınması şimdilik kapalı")}),
        )
        .await;
    }
    let for_downstream = publish(
        &a,
        json!({"kind": "decision", "audience": "downstream",
               "summary": "账户服务只为下游提供只读接口"}),
    )
    .await;
    a.stop().await;

    // room-b is downstream of room-a: 6 live entries there, 4 of them working notes.
    let b = agent(root).room("room-b").role("manager").start().await;
    let brief = b.ok("memory_get_context", json!({})).await;
    assert!(
        strs(&brief["entry_ids"]).contains(&shown.as_str()),
        "{brief}"
    );
    assert_eq!(
        brief["omitted"]["kept_by_audience"], 4,
        "{}",
        brief["omitted"]
    );
    assert_eq!(brief["omitted"]["entry_limit"], 0, "{}", brief["omitted"]);
    let acc = &brief["accounts"][0];
    assert_eq!(
        (
            &acc["room_id"],
            &acc["live"],
            &acc["shown"],
            &acc["working_notes"]
        ),
        (&json!("room-a"), &json!(6), &json!(2), &json!(4)),
        "{acc}"
    );
    assert!(
        brief["markdown"].as_str().unwrap().contains("room-a 2/6"),
        "{}",
        brief["markdown"]
    );
    b.stop().await;
    // room-x is beside the chain: the downstream-only decision is kept from it too.
    let x = agent(root).room("room-x").role("manager").start().await;
    let off = x
        .ok(
            "memory_get_context",
            json!({"brief_keywords": ["账户服务"]}),
        )
        .await;
    assert_eq!(off["omitted"]["kept_by_audience"], 5, "{}", off["omitted"]);
    assert!(
        !strs(&off["entry_ids"]).contains(&for_downstream.as_str()),
        "{}",
        off["markdown"]
    );
    x.stop().await;

    let (code, out, err) = cli(root, &["context", "room-b", "--explain"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "upstream room-a (1 up): 2 of 6 live entries shown, 4 working notes kept in its room, \
             0 left out"
        ),
        "{out}"
    );
    let (_, list, _) = cli(root, &["--json", "receipts", "--room", "room-b"]);
    let list: Value = serde_json::from_str(&list).unwrap();
    for r in list.as_array().unwrap() {
        assert_eq!(r["omitted"]["kept_by_audience"], 4, "{r}");
        assert_eq!(r["accounts"][0]["working_notes"], 4, "{r}");
        let (code, out, err) = cli(root, &["context", "--replay", r["id"].as_str().unwrap()]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("IDENTICAL"), "{out}");
        assert!(out.contains("4 kept from it by their audience"), "{out}");
    }
}

/// Selection `coverage-3`, through the binary: a direct predecessor's entries come
/// before a room two steps up (which fills what is left), and notes written many times in
/// one shape — varying by words, not numbers, in any script, in one room or several —
/// wait until every other upstream entry had its turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nearer_rooms_first_and_notes_written_alike_last() {
    let dir = common::project();
    let root = dir.path();
    let plan = json!({"plan_id": "near", "title": "Near", "epics": [
        {"ref": "EPIC-A", "room_id": "room-a", "title": "Accounts"},
        {"ref": "EPIC-B", "room_id": "room-b", "title": "Billing", "depends_on": ["EPIC-A"]},
        {"ref": "EPIC-P", "room_id": "room-p", "title": "Payments"},
        {"ref": "EPIC-C", "room_id": "room-c", "title": "Checkout",
         "depends_on": ["EPIC-B", "EPIC-P"]}
    ]});
    let a = agent(root).room("room-a").role("architect").start().await;
    a.ok("memory_register_plan", json!({"plan": plan})).await;
    let mut far = Vec::new();
    for s in [
        "GET /v1/accounts/{id} returns the account with its tier",
        "Account ids are opaque strings; never parse them",
        "POST /v1/accounts creates an account from an email address",
        "The account.closed event carries only the account id",
        "Sessions expire after eight hours of inactivity",
        "PATCH /v1/accounts/{id}/locale changes the display language",
        "Avatars are served from the CDN under /avatars/{hash}.webp",
        "Rate limits: sixty requests a minute for each API key",
        "Deleted accounts answer 410 Gone for thirty days",
        "Webhooks for account changes are signed with HMAC-SHA256",
    ] {
        far.push(publish(&a, json!({"kind": "interface", "summary": s})).await);
    }
    // The same routine note in room-a too: near-twins across rooms are routine alike.
    let note =
        |w: &str| format!("Не запускайте скрипт заполнения {w} на стенде: он очищает таблицы");
    let mut routine =
        vec![publish(&a, json!({"kind": "warning", "summary": note("аккаунтов")})).await];
    a.stop().await;
    let b = agent(root).room("room-b").role("architect").start().await;
    let mut near = Vec::new();
    for s in [
        "Invoices are issued in the customer's currency, converted at the day's rate",
        "Totals are rounded half-even to the currency's minor unit",
        "A failed charge is retried twice, a day apart, before the invoice is void",
        "Credit notes never exceed the invoice they refer to",
        "Tax is computed per line item, not on the total",
        "Billing periods start on the first of the month in UTC",
    ] {
        near.push(publish(&b, json!({"kind": "decision", "summary": s})).await);
    }
    for w in [
        "счетов",
        "платежей",
        "тарифов",
        "скидок",
        "налогов",
        "периодов",
        "валют",
        "возвратов",
    ] {
        routine.push(publish(&b, json!({"kind": "warning", "summary": note(w)})).await);
    }
    b.stop().await;
    let p = agent(root).room("room-p").role("architect").start().await;
    for s in [
        "The provider's sandbox accepts only the test card numbers it documents",
        "Refunds over ninety days old must go through the provider's dashboard",
        "Provider webhooks can arrive twice; deduplicate by event id",
        "Card tokens are single-use outside a saved payment method",
    ] {
        near.push(publish(&p, json!({"kind": "warning", "summary": s})).await);
    }
    p.stop().await;

    let (code, out, err) = cli(root, &["--json", "context", "room-c"]);
    assert_eq!(code, 0, "{err}");
    let brief: Value = serde_json::from_str(&out).unwrap();
    let ids = strs(&brief["entry_ids"]);
    let md = brief["markdown"].as_str().unwrap();
    assert_eq!(ids.len(), 15, "{md}");
    for id in &near {
        assert!(
            ids.contains(&id.as_str()),
            "every direct predecessor's entry: {md}"
        );
    }
    let shown_far = far.iter().filter(|id| ids.contains(&id.as_str())).count();
    assert_eq!(
        shown_far, 5,
        "the room two steps up fills what is left: {md}"
    );
    for id in &routine {
        assert!(
            !ids.contains(&id.as_str()),
            "a note written alike waits: {md}"
        );
    }
    let reasons: Vec<(&str, &str)> = brief["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["id"].as_str().unwrap(), i["reason"].as_str().unwrap()))
        .collect();
    for (id, reason) in &reasons {
        let want = if near.iter().any(|n| n == id) {
            "near-1"
        } else {
            "near-2"
        };
        assert_eq!(*reason, want, "{reasons:?}");
    }
    let (_, list, _) = cli(root, &["--json", "receipts", "--room", "room-c"]);
    let list: Value = serde_json::from_str(&list).unwrap();
    let r = &list[0];
    assert_eq!(r["ranking"]["selection"], "coverage-4", "{r}");
    let (code, out, err) = cli(root, &["context", "--replay", r["id"].as_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("IDENTICAL"), "{out}");
}

/// Selection `coverage-4`, through the binary, in Russian: a word in more than half of
/// the entries tells none of them apart and is not searched — the entries it alone is in
/// are no keyword matches (their reason says so, and no keyword is listed as matched),
/// while the rarer keyword still matches; the receipt replays identical.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_word_in_most_entries_is_not_searched() {
    let dir = common::project();
    let root = dir.path();
    let plan = json!({"plan_id": "pay", "title": "Платежи", "epics": [
        {"ref": "EPIC-A", "room_id": "room-a", "title": "Шлюз"},
        {"ref": "EPIC-B", "room_id": "room-b", "title": "Refunds", "depends_on": ["EPIC-A"],
         "brief_keywords": ["платёжный", "возврат"]}
    ]});
    let a = agent(root).room("room-a").role("architect").start().await;
    a.ok("memory_register_plan", json!({"plan": plan})).await;
    let mut common_only = Vec::new();
    for s in [
        "платёжный шлюз принимает только карты с 3-D Secure",
        "платёжный журнал хранится девяносто дней",
        "платёжный адаптер повторяет запрос дважды",
        "платёжный токен одноразовый вне сохранённого способа оплаты",
        "платёжный отчёт строится по UTC",
    ] {
        common_only.push(publish(&a, json!({"kind": "decision", "summary": s})).await);
    }
    let rare = publish(
        &a,
        json!({"kind": "decision", "summary": "платёжный возврат старше девяноста дней идёт через кабинет провайдера"}),
    )
    .await;
    let other = publish(
        &a,
        json!({"kind": "decision", "summary": "Квитанции отправляются письмом после списания"}),
    )
    .await;
    a.stop().await;

    let (code, out, err) = cli(root, &["--json", "context", "room-b"]);
    assert_eq!(code, 0, "{err}");
    let brief: Value = serde_json::from_str(&out).unwrap();
    let md = brief["markdown"].as_str().unwrap();
    let included = brief["included"].as_array().unwrap();
    let of = |id: &str| {
        included
            .iter()
            .find(|i| i["id"] == id)
            .unwrap_or_else(|| panic!("{id} shown: {md}"))
    };
    assert_eq!(of(&rare)["reason"], "near-1-match", "{md}");
    assert_eq!(of(&rare)["matched"], json!(["возврат"]), "{md}");
    for id in common_only.iter().chain([&other]) {
        assert_eq!(of(id)["reason"], "near-1", "{id}: {md}");
        assert_eq!(of(id)["matched"], json!([]), "{id}: {md}");
    }
    // The rarer keyword's match comes first in its room's share.
    let ids = strs(&brief["entry_ids"]);
    assert_eq!(ids.first(), Some(&rare.as_str()), "{md}");

    let (_, list, _) = cli(root, &["--json", "receipts", "--room", "room-b"]);
    let list: Value = serde_json::from_str(&list).unwrap();
    let r = &list[0];
    assert_eq!(r["ranking"]["selection"], "coverage-4", "{r}");
    let (code, out, err) = cli(root, &["context", "--replay", r["id"].as_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("IDENTICAL"), "{out}");
}
