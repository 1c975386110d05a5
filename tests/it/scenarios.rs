//! The scenario suite: `warroom-memory scenario run scenarios/` must pass every scenario,
//! and a deliberately wrong expectation must fail with a readable report.

use crate::common;

use std::process::Command;

use common::BIN;

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("WARROOM_LOG", "warn")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// How many scenario files the suite has.
fn scenario_count() -> usize {
    std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".scenario.yaml")
        })
        .count()
}

#[test]
fn every_scenario_passes() {
    let files = scenario_count();
    assert!(
        files >= 13,
        "the suite has at least the 13 scenarios of the issue"
    );
    let report = tempfile::NamedTempFile::new().unwrap();
    let (code, out) = run(&[
        "scenario",
        "run",
        "scenarios",
        "--report",
        report.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&format!("{files} passed, 0 failed")), "{out}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(report.path()).unwrap()).unwrap();
    assert_eq!(json.as_array().unwrap().len(), files);
    assert!(json.as_array().unwrap().iter().all(|o| o["passed"] == true));
}

#[test]
fn every_scenario_passes_under_a_daemon() {
    // The same suite with a daemon serving each scenario's project and every agent's
    // `serve` attached to it (`--daemon require`: no silent fallback to direct mode).
    let files = scenario_count();
    let (code, out) = run(&["scenario", "run", "scenarios", "--daemon"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(&format!("{files} passed, 0 failed")), "{out}");
}

#[test]
fn a_wrong_expectation_fails_with_step_expectation_actual_and_diff() {
    let (code, out) = run(&[
        "scenario",
        "run",
        "tests/fixtures/scenarios/wrong-view.scenario.yaml",
    ]);
    assert_eq!(code, 1, "{out}");
    for want in [
        "✗ wrong-view",
        "at:       step 2 \"wrongly expects to see its own entry\" (memory_query as me)",
        "expected: `entries[*].id` equals [\"mem-",
        "actual:   []",
        "diff:",
        "0 passed, 1 failed",
    ] {
        assert!(out.contains(want), "report shows `{want}`:\n{out}");
    }
    let out = Command::new(BIN)
        .args([
            "--json",
            "scenario",
            "run",
            "tests/fixtures/scenarios/wrong-view.scenario.yaml",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report[0]["passed"], false);
    assert!(
        report[0]["failure"]["diff"]
            .as_str()
            .unwrap()
            .contains("mem-")
    );
}

#[test]
fn an_invalid_scenario_is_refused_with_a_clear_message() {
    let (code, out) = run(&[
        "scenario",
        "run",
        "tests/fixtures/scenarios/invalid.scenario.yaml",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("agent `ghost` is not declared in setup.agents"),
        "{out}"
    );
    let (code, out) = run(&["scenario", "run", "no/such/dir"]);
    assert_eq!(code, 2, "{out}");
}

/// Scenario files that name only the files backend (`backends: [files]`).
fn files_only_count() -> usize {
    std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios"))
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.unwrap().path()).ok())
        .filter(|t| t.lines().any(|l| l.starts_with("backends: [files]")))
        .count()
}

/// The suite on a real server, each scenario in its own database (every process of its
/// project keeps its ledger and channels there), with `--daemon` or not.
fn every_scenario_passes_on_postgres(extra: &[&str]) {
    let admin = common::pg::server().admin.clone();
    let (files, only_files) = (scenario_count(), files_only_count());
    assert_eq!(only_files, 1, "only torn-tail-crash is about files alone");
    let mut args = vec!["scenario", "run", "scenarios", "--postgres", &admin];
    args.extend(extra);
    let (code, out) = run(&args);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&format!(
            "{} passed, 0 failed, {only_files} not applicable to this backend",
            files - only_files
        )),
        "{out}"
    );
}

#[test]
fn every_scenario_passes_on_postgres_in_direct_mode() {
    every_scenario_passes_on_postgres(&[]);
}

#[test]
fn every_scenario_passes_on_postgres_under_a_daemon() {
    every_scenario_passes_on_postgres(&["--daemon"]);
}

/// Red-team finding 12: the caller's environment does not leak into scenarios — with a
/// database URL, an identity and a ledger path set in the shell, scenarios still run on
/// their own files, each alone.
#[test]
fn the_callers_environment_does_not_leak_into_scenarios() {
    let out = Command::new(BIN)
        .args([
            "scenario",
            "run",
            "scenarios/filtered-views.scenario.yaml",
            "scenarios/channel-privacy.scenario.yaml",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("WARROOM_LOG", "warn")
        .env(
            "WARROOM_DATABASE_URL",
            "postgres://nobody@127.0.0.1:1/no_such_database",
        )
        .env("WARROOM_ROOM_ID", "room-from-the-shell")
        .env("WARROOM_LEDGER", "/nonexistent/ledger.jsonl")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("2 passed, 0 failed"), "{text}");
}
