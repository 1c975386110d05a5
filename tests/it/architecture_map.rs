//! ARCHITECTURE.md's code map matches the tree: it is a map of folders, so every crate,
//! every top-level module and every module that is a folder (has modules of its own) is
//! named in it — leaves are left to their folder's module doc — and every module path it
//! names exists (a last part that is not a module must be an item its module's file
//! mentions: `index::with_spare_scratch`).

use std::collections::BTreeMap;
use std::path::Path;

/// Every module under `dir` (module path → its file's text), `prefix` before each path.
fn modules(dir: &Path, path: &str, out: &mut BTreeMap<String, String>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        let join = |n: &str| {
            if path.is_empty() {
                n.to_string()
            } else {
                format!("{path}::{n}")
            }
        };
        if p.is_dir() {
            if p.join("mod.rs").exists() {
                modules(&p, &join(&name), out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(&p).unwrap();
            let module = match name.as_str() {
                "mod" => path.to_string(),
                // A crate's root: `xtask`'s library is the module `xtask`, the index
                // crate's the module `index`.
                "lib" if !path.is_empty() => path.to_string(),
                "lib" | "main" => continue,
                n => join(n),
            };
            out.entry(module).or_default().push_str(&text);
        }
    }
}

/// A test module (its code is not part of the map's subject, though the map may name it).
fn is_test(module: &str) -> bool {
    let last = module.rsplit("::").next().unwrap();
    last == "tests" || last.ends_with("_tests")
}

/// The backticked paths of the code map section, `bench::…` read as `xtask::bench::…`.
fn named(doc: &str) -> Vec<String> {
    let (_, after) = doc.split_once("## Code map").expect("a code map section");
    let (map, _) = after
        .split_once("\n## Invariants")
        .expect("sections after it");
    map.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| {
            !t.is_empty()
                && t.split("::").all(|p| {
                    !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                })
        })
        .map(|t| {
            if t.starts_with("bench::") || t == "bench" {
                format!("xtask::{t}")
            } else {
                t.to_string()
            }
        })
        .collect()
}

fn tree() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = BTreeMap::new();
    modules(&root.join("src"), "", &mut all);
    modules(&root.join("xtask/src"), "xtask", &mut all);
    // The crates below the product, by the names the product gives them (`lib.rs`).
    modules(&root.join("crates/base/src"), "", &mut all);
    for c in ["index", "secrets", "store"] {
        modules(&root.join("crates").join(c).join("src"), c, &mut all);
    }
    all
}

/// True if `text` holds `word` as a whole identifier.
fn mentions(text: &str, word: &str) -> bool {
    let bytes = text.as_bytes();
    let ident = |at: Option<usize>| {
        at.and_then(|a| bytes.get(a))
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    text.match_indices(word)
        .any(|(i, _)| !ident(i.checked_sub(1)) && !ident(Some(i + word.len())))
}

/// The folders and top-level modules `doc`'s code map leaves out, and the paths it names
/// that `all` lacks.
fn check(doc: &str, all: &BTreeMap<String, String>) -> (Vec<String>, Vec<String>) {
    let names = named(doc);
    let is_folder = |m: &str| {
        all.keys()
            .any(|k| k.starts_with(&format!("{m}::")) && !is_test(k))
    };
    let top =
        |m: &str| !m.contains("::") || m.matches("::").count() == 1 && m.starts_with("xtask::");
    let missing = all
        .keys()
        .filter(|m| !is_test(m))
        .filter(|m| top(m) || is_folder(m))
        .filter(|m| {
            !names
                .iter()
                .any(|n| n == *m || n.starts_with(&format!("{m}::")))
        })
        .cloned()
        .collect();
    let tops: Vec<&str> = all.keys().map(|m| m.split("::").next().unwrap()).collect();
    let mut wrong = Vec::new();
    for n in &names {
        if !tops.contains(&n.split("::").next().unwrap()) || all.contains_key(n) {
            continue; // not a module path, or a module that exists
        }
        // Not a module: the last part must be an item its module mentions.
        let (module, item) = n.rsplit_once("::").unwrap_or(("", n));
        if !all.get(module).is_some_and(|text| mentions(text, item)) {
            wrong.push(n.clone());
        }
    }
    (missing, wrong)
}

#[test]
fn the_code_map_names_every_module_and_no_module_that_does_not_exist() {
    let all = tree();
    assert!(all.len() > 150, "read the tree: {} modules", all.len());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let (missing, wrong) = check(&doc, &all);
    assert!(
        missing.is_empty(),
        "modules the code map of ARCHITECTURE.md does not name: {missing:?}"
    );
    assert!(
        wrong.is_empty(),
        "the code map names what the tree does not have: {wrong:?}"
    );
}

#[test]
fn the_check_sees_a_module_left_out_and_one_made_up() {
    let all: BTreeMap<String, String> = [
        ("index", "pub fn with_spare_scratch() {}"),
        ("index::walk", ""),
        ("index::tests", ""),
        ("store", ""),
        ("store::pg", ""),
        ("store::pg::source", ""),
        ("xtask::bench", ""),
        ("xtask::bench::corpus", ""),
    ]
    .into_iter()
    .map(|(m, t)| (m.to_string(), t.to_string()))
    .collect();
    let doc = "## Code map\n`index` (`index::with_spare_scratch`), `index::nowhere`, `index::with_spare`, \
               `bench::corpus`, `Memory`, `--json`\n## Invariants\n";
    let (missing, wrong) = check(doc, &all);
    assert_eq!(missing, ["store", "store::pg"]);
    assert_eq!(wrong, ["index::nowhere", "index::with_spare"]);
}
