//! `bench secrets` through the developer tools' binary: every positive sample of the
//! corpus is caught and no negative or ordinary text is flagged.

use serde_json::{Value, json};

#[test]
fn the_corpus_is_caught_without_false_positives() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["--json", "bench", "secrets", "--no-locomo"])
        .current_dir(root)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let r: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(r["missed"], json!([]), "{r}");
    assert!(r["positives"].as_u64().unwrap() >= 35);
    let mut scanned = 0;
    for set in r["sets"].as_array().unwrap() {
        assert_eq!(set["flagged"], 0, "false positives in {set}");
        scanned += set["texts"].as_u64().unwrap_or(0);
    }
    assert!(scanned > 0, "the false-positive check scanned no text: {r}");
}
