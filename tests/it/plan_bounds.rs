//! What is acknowledged is kept, what is refused is not echoed, through the binary: a
//! markdown plan is held to the bounds of a JSON one (500 epics, 32 brief keywords an
//! epic) before it is acknowledged; a refusal names the limit and the fix, is at most
//! 8 KiB and never repeats a secret it was sent.

use crate::common;

use common::agent;
use serde_json::json;

const MAX_ERROR: usize = 8 * 1024;

fn markdown(epics: usize) -> String {
    let mut md = String::from("# Plan: Большой план\n\nplan_id: md-big\n\n");
    for i in 1..=epics {
        md.push_str(&format!(
            "## EPIC-{i:04} — Задача номер {i}\nObjective: сделать часть {i} ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\n\n"
        ));
    }
    md
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_past_the_bounds_are_refused_short_and_redacted_and_nothing_is_kept() {
    let dir = common::project();
    let root = dir.path();
    let a = agent(root).room("room-x").role("manager").start().await;
    // 501 epics in markdown: refused as a JSON plan is, naming the limit.
    let e = a
        .err("memory_register_plan", json!({"markdown": markdown(501)}))
        .await;
    assert!(e.contains("500"), "{e}");
    assert!(e.len() <= MAX_ERROR, "{} bytes", e.len());
    assert!(!e.contains("ghp_ABCDEF"), "a token echoed: {e}");
    // 4,000 epics as JSON, a token in each title: short, redacted.
    let epics: Vec<_> = (0..4000)
        .map(|i| {
            json!({"ref": format!("E{i}"), "room_id": format!("room-{i}"),
                        "title": "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"})
        })
        .collect();
    let e = a
        .err(
            "memory_register_plan",
            json!({"plan": {"plan_id": "huge", "epics": epics}}),
        )
        .await;
    assert!(e.len() <= MAX_ERROR, "{} bytes", e.len());
    assert!(!e.contains("ghp_ABCDEF"), "a token echoed: {e}");
    // A token across the place where the quoted value is cut: redacted, not left in part.
    for pad in [20, 28, 36, 44, 52] {
        let title = format!(
            "{} ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
            "п".repeat(pad / 2)
        );
        let epics: Vec<_> = (0..600)
            .map(
                |i| json!({"ref": format!("E{i}"), "room_id": format!("room-{i}"), "title": title}),
            )
            .collect();
        let e = a
            .err(
                "memory_register_plan",
                json!({"plan": {"plan_id": "cut", "epics": epics}}),
            )
            .await;
        assert!(
            !e.contains("ghp_ABCD"),
            "a token's head echoed (pad {pad}): {e}"
        );
    }
    // 33 brief keywords: refused as the tool argument is (at most 32).
    let kws: Vec<String> = (0..33).map(|i| format!("слово{i}")).collect();
    let e = a
        .err(
            "memory_register_plan",
            json!({"plan": {"plan_id": "kw", "epics": [
                {"ref": "E1", "room_id": "room-x", "brief_keywords": kws}]}}),
        )
        .await;
    assert!(e.contains("brief_keywords") && e.contains("32"), "{e}");
    // A plan linking an agent's epic to another plan's epic: refused (only the operator
    // links plans), nothing kept.
    let e = a
        .err(
            "memory_register_plan",
            json!({"plan": {"plan_id": "linker", "epics": [
                {"ref": "E1", "room_id": "room-x", "depends_on": ["shop-v1/EPIC-001"]}]}}),
        )
        .await;
    assert!(e.contains("another plan") && e.contains("operator"), "{e}");
    // 500 epics in markdown are acknowledged and kept.
    let ok = a
        .ok("memory_register_plan", json!({"markdown": markdown(500)}))
        .await;
    assert!(ok.to_string().contains("md-big"), "{ok}");
    a.stop().await;
    let (code, out, err) = common::cli(root, &["--json", "plan", "show"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("EPIC-0500"), "the acknowledged plan is kept");
    for refused in ["\"huge\"", "\"kw\"", "\"linker\""] {
        assert!(!out.contains(refused), "nothing refused is kept: {refused}");
    }
    // A CLI error is screened too.
    let file = root.join("bad.json");
    std::fs::write(
        &file,
        json!({"plan_id": "huge", "epics": (0..600).map(|i| json!({"ref": format!("E{i}"),
            "room_id": format!("room-{i}"), "title": "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"}))
            .collect::<Vec<_>>()})
        .to_string(),
    )
    .unwrap();
    let (code, _, err) = common::cli(root, &["plan", "register", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.len() <= MAX_ERROR, "{} bytes", err.len());
    assert!(!err.contains("ghp_ABCDEF"), "{err}");
}
