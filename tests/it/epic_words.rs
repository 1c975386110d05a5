//! An epic's own words, through the binary: a markdown epic's objective, description,
//! Definition of Done and Acceptance Criteria are kept (`plan show`, text and JSON) and
//! its brief searches the rarest of them with its keywords, so an upstream decision that
//! only its criteria name is shown where it would otherwise be left out; the receipt
//! records them and replays.

use crate::common;

use common::{agent, publish};
use serde_json::{Value, json};

const PLAN: &str = "# Plan: Платежи\n\nplan_id: pay\n\n\
## EPIC-001 — Ядро платежей\nKeywords: платежи\n\n\
## EPIC-002 — Возвраты\nKeywords: возвраты, отчёты\ndepends_on: [EPIC-001]\n\
Objective: Возвращать деньги покупателю\n\
Возврат проходит через тот же шлюз, что и оплата.\n\n\
### Definition of Done\n- [ ] Отчёт о возвратах выгружается\n\n\
### Acceptance Criteria\n- Повторный запрос возврата не списывает дважды: идемпотентность по ключу\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_epics_criteria_are_kept_and_rank_its_brief() {
    let dir = common::project();
    let root = dir.path();
    let op = agent(root).start().await;
    op.ok("memory_register_plan", json!({"markdown": PLAN}))
        .await;
    op.stop().await;

    // plan show: kept, in text and JSON.
    let (code, out, err) = common::cli(root, &["plan", "show"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("objective: Возвращать деньги покупателю"),
        "{out}"
    );
    assert!(
        out.contains("acceptance criteria: Повторный запрос"),
        "{out}"
    );
    assert!(
        out.contains("definition of done: Отчёт о возвратах"),
        "{out}"
    );
    let (_, out, _) = common::cli(root, &["--json", "plan", "show"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let e2 = v["epics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["ref"] == "EPIC-002")
        .unwrap()
        .clone();
    assert_eq!(
        e2["description"],
        "Возврат проходит через тот же шлюз, что и оплата."
    );
    assert_eq!(e2["acceptance_criteria"].as_array().unwrap().len(), 1);

    // The upstream room's one decision about idempotency is its oldest; twenty newer
    // decisions of the same kind match no keyword.
    let up = agent(root).room("room-001").role("architect").start().await;
    let key = publish(
        &up,
        "decision",
        "Идемпотентность списаний: ключ запроса хранится 24 часа",
        json!({}),
    )
    .await;
    let key = key["id"].as_str().unwrap().to_string();
    for fact in [
        "Кэш каталога",
        "Очередь уведомлений",
        "Журнал аудита",
        "Схема базы",
        "Лимиты памяти",
        "Шифрование дисков",
        "Резервные копии",
        "Метрики задержек",
        "Формат дат",
        "Часовые пояса",
        "Валюта счетов",
        "Округление сумм",
        "Ротация логов",
        "Имена сервисов",
        "Версии API",
        "Таймауты соединений",
        "Пул потоков",
        "Сжатие ответов",
        "Кодировка текста",
        "Права доступа",
    ] {
        publish(&up, "decision", fact, json!({})).await;
    }
    up.stop().await;

    let b = agent(root).room("room-002").role("manager").start().await;
    let brief = b.ok("memory_get_context", json!({})).await;
    let ids: Vec<&str> = brief["entry_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&key.as_str()),
        "the decision its criteria name is shown: {}",
        brief["markdown"]
    );
    let md = brief["markdown"].as_str().unwrap();
    assert!(md.contains("Searched too: the epic's objective"), "{md}");
    let why = brief["included"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == key.as_str())
        .unwrap()["reason"]
        .clone();
    assert_eq!(why, "near-1-match", "{why}");
    let receipt = brief["receipt"].as_str().unwrap().to_string();
    b.stop().await;
    // The receipt records the epic's words and replays.
    let (code, out, err) = common::cli(root, &["context", "--replay", &receipt]);
    assert_eq!(code, 0, "{out}{err}");
}
