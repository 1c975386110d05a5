//! `bench quality` through the developer tools' binary: the war-room relevance set's
//! expected rankings hold under the default ranking, and the seed formula is shown to
//! bury old exact answers.

use serde_json::Value;

/// Runs the xtask binary from the workspace root; (exit code, stdout, stderr).
fn xtask(args: &[&str]) -> (i32, String, String) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn quality_report() -> Value {
    let (code, out, err) = xtask(&[
        "--json",
        "bench",
        "quality",
        "--no-locomo",
        "--set",
        "tests/fixtures/relevance/warroom.yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str::<Value>(&out).unwrap()[0].clone()
}

fn ranker<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["rankers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ranker"] == name)
        .unwrap_or_else(|| panic!("no ranker {name} in {report}"))
}

#[test]
fn default_ranking_meets_every_expectation_of_the_relevance_set() {
    let report = quality_report();
    let blend = ranker(&report, "blend (default)");
    let (met, of) = (
        blend["expectations_met"][0].as_u64().unwrap(),
        blend["expectations_met"][1].as_u64().unwrap(),
    );
    assert!(of >= 12, "the set has its cases: {blend}");
    assert_eq!(met, of, "failures: {}", blend["failures"]);
    assert_eq!(blend["headline"]["r10"], 1.0);
}

#[test]
fn the_seed_formula_buries_old_exact_answers_and_misses_detail() {
    // Why the default is not the seed: the same set, ranked by BM25 × exp(−λ·age).
    let report = quality_report();
    let failures = ranker(&report, "seed")["failures"].to_string();
    for case in [
        "old-exact-payment-retry",
        "old-exact-postgres",
        "detail-only",
    ] {
        assert!(
            failures.contains(case),
            "seed should fail {case}: {failures}"
        );
    }
}
