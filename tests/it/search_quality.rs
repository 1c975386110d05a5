//! Search quality through the real binary: detail/ref/identifier search on the bundled
//! example over MCP, and the seed ranking kept exactly behind one setting. (The war-room
//! relevance set's expected rankings are measured by `cargo xtask bench quality`, tested
//! in xtask/tests/quality.rs.)

use crate::common;

use common::*;
use serde_json::{Value, json};

#[tokio::test]
async fn detail_refs_and_identifiers_are_searchable_over_mcp() {
    let p = example_project();
    let a = agent(p.path())
        .room("room-009")
        .role("engineer")
        .now("2026-11-26T00:00:00Z")
        .start()
        .await;
    // Words only in the bundled entries' details, and a ref.
    for (query, must_contain) in [
        ("vetted", "bcrypt"),
        ("RS256", "/auth/login"),
        ("bindings", "bcrypt"),
        ("EPIC-001", ""),
    ] {
        let r = a
            .ok("memory_search", json!({"text": query, "room_id": "*"}))
            .await;
        let hits = r["hits"].as_array().unwrap();
        assert!(!hits.is_empty(), "`{query}` finds nothing: {r}");
        let first = hits[0]["entry"].to_string();
        assert!(first.contains(must_contain), "`{query}` → {first}");
        if query == "EPIC-001" {
            // Every EPIC-001 entry ranks above entries that only share the word "epic".
            let refs: Vec<bool> = hits
                .iter()
                .map(|h| h["entry"]["ref"] == "EPIC-001")
                .collect();
            let first_other = refs.iter().position(|is| !is).unwrap_or(refs.len());
            assert!(first_other >= 5, "{r}");
            assert!(refs[first_other..].iter().all(|is| !is), "{r}");
        }
    }
    // Identifiers: every spelling finds the others; the exact one ranks first.
    let id = |v: &Value| v["entry"]["id"].as_str().unwrap().to_string();
    let exact = publish(
        &a,
        "interface",
        "Middleware calls verifyToken(req) before every handler",
        json!({"room_id": "room-009"}),
    )
    .await;
    publish(
        &a,
        "convention",
        "Always verify the token on the server side",
        json!({"room_id": "room-009"}),
    )
    .await;
    let path = publish(
        &a,
        "artifact",
        "Client in src/payments/stripe_client.py",
        json!({"room_id": "room-009"}),
    )
    .await;
    for (query, want) in [
        ("verify_token", &exact),
        ("verifyToken", &exact),
        ("VerifyToken", &exact),
        ("stripe", &path),
        ("stripe_client.py", &path),
    ] {
        let r = a
            .ok(
                "memory_search",
                json!({"text": query, "room_id": "room-009"}),
            )
            .await;
        assert_eq!(
            id(&r["hits"][0]),
            want["id"].as_str().unwrap(),
            "`{query}`: {r}"
        );
    }
    let r = a
        .ok(
            "memory_search",
            json!({"text": "verify token", "room_id": "room-009"}),
        )
        .await;
    assert_eq!(
        r["hits"].as_array().unwrap().len(),
        2,
        "parts find both: {r}"
    );
}

#[test]
fn ranking_seed_is_the_exact_seed_formula() {
    let p = example_project();
    std::fs::write(p.path().join(".agents/warroom.yaml"), "ranking: seed\n").unwrap();
    let now = [("WARROOM_NOW", "2026-12-20T00:00:00Z")];
    let (code, out, err) = cli_env(p.path(), &["--json", "search", "password", "hashing"], &now);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&out).unwrap();
    for h in r["hits"].as_array().unwrap() {
        let (score, bm25, decay) = (
            h["score"].as_f64().unwrap(),
            h["bm25"].as_f64().unwrap(),
            h["decay"].as_f64().unwrap(),
        );
        assert!((score - bm25 * decay).abs() < 1e-12, "{h}");
        assert_eq!(h["time_factor"], h["decay"]);
    }
    // Detail is not part of the seed: "vetted" is only in a detail.
    let (code, _, _) = cli_env(p.path(), &["search", "vetted"], &now);
    assert_eq!(code, 1, "nothing found under the seed");
    // A bad setting is refused with the key named.
    std::fs::write(p.path().join(".agents/warroom.yaml"), "ranking: fancy\n").unwrap();
    let (code, _, err) = cli(p.path(), &["search", "x"]);
    assert_eq!(code, 2);
    assert!(err.contains("ranking") && err.contains("blend"), "{err}");
    // --explain shows the field shares and the seed side by side under the default.
    std::fs::remove_file(p.path().join(".agents/warroom.yaml")).unwrap();
    let (code, out, err) = cli_env(p.path(), &["search", "vetted", "--explain"], &now);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("ranking blend") && out.contains("detail 0.") && out.contains("seed:"),
        "{out}"
    );
}
