//! Every pointer resolves: what the code, `--help` (its text is the code's) and the docs
//! point a reader to exists. A `README § Heading` or `docs/x.md § Heading` names a heading
//! of that file (the words after `§` start with it); a `docs/…md`, `tests/…rs`,
//! `schemas/…json` or `xtask/src/…rs` path names a file of the repository; and nothing
//! cites a document the repository does not hold.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's files that may point somewhere: Rust sources and the docs.
fn texts() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs" || x == "md") {
                out.push((p.clone(), std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    for d in [
        "src",
        "crates",
        "xtask/src",
        "tests/it",
        "tests/semantic",
        "docs",
        "scenarios",
    ] {
        walk(&root().join(d), &mut out);
    }
    for f in ["README.md", "ARCHITECTURE.md"] {
        let p = root().join(f);
        out.push((p.clone(), std::fs::read_to_string(&p).unwrap()));
    }
    // The history says what was, not what is; this file's examples point nowhere on
    // purpose.
    out.retain(|(p, _)| {
        !p.ends_with("CHANGELOG.md")
            && !p.ends_with("performance-log.md")
            && !p.ends_with("pointers.rs")
    });
    out
}

/// The headings of a markdown file, without their `#`s.
fn headings(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .filter(|h| !h.is_empty())
        .collect()
}

/// Problems with the pointers in `text`: `docs` maps a document's name (`README`,
/// `docs/brief.md`) to its headings; `exists` says whether a repository path is a file.
fn problems(
    text: &str,
    docs: &BTreeMap<String, Vec<String>>,
    exists: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut out = Vec::new();
    // `NAME § words`: a heading of NAME starts the words.
    for (at, _) in text.match_indices(" § ") {
        let before = text.split_at(at).0;
        let name = before
            .rsplit(|c: char| c.is_whitespace() || "(`[".contains(c))
            .next()
            .unwrap_or("")
            .trim_end_matches('`');
        let name = name.trim_end_matches(".md").trim_end_matches(".rs");
        let key = match name {
            "README" | "ARCHITECTURE" => name.to_string(),
            n if n.starts_with("docs/") => format!("{n}.md"),
            _ => continue,
        };
        let after = text.split_at(at + " § ".len()).1;
        let Some(hs) = docs.get(&key) else {
            out.push(format!("{key} § …: no such document"));
            continue;
        };
        if !hs.iter().any(|h| after.starts_with(h.as_str())) {
            let shown: String = after.chars().take_while(|c| *c != '\n').take(40).collect();
            out.push(format!("{key} § {shown}: no such heading"));
        }
    }
    // Paths of the repository.
    for word in text.split(|c: char| c.is_whitespace() || "()`[]<>\"',;:*".contains(c)) {
        let word = word.trim_end_matches('.');
        let is_path = (word.starts_with("docs/") && word.ends_with(".md"))
            || (word.starts_with("tests/") && word.ends_with(".rs"))
            || (word.starts_with("xtask/src/") && word.ends_with(".rs"))
            || (word.starts_with("schemas/") && word.ends_with(".json"));
        if is_path && !word.contains('{') && !word.contains('*') && !exists(word) {
            out.push(format!("{word}: no such file"));
        }
    }
    if text.contains("DESIGN.md") {
        out.push("cites DESIGN.md, which the repository does not hold".into());
    }
    out
}

fn documents() -> BTreeMap<String, Vec<String>> {
    let mut docs = BTreeMap::new();
    for (name, file) in [("README", "README.md"), ("ARCHITECTURE", "ARCHITECTURE.md")] {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        docs.insert(name.to_string(), headings(&text));
    }
    for e in std::fs::read_dir(root().join("docs")).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "md") {
            let name = format!("docs/{}", p.file_name().unwrap().to_string_lossy());
            docs.insert(name, headings(&std::fs::read_to_string(&p).unwrap()));
        }
    }
    docs
}

#[test]
fn every_pointer_in_the_code_help_and_docs_resolves() {
    let docs = documents();
    let exists = |p: &str| root().join(p).is_file();
    let mut wrong = Vec::new();
    let files = texts();
    assert!(
        files.len() > 200,
        "read the repository: {} files",
        files.len()
    );
    for (path, text) in &files {
        for p in problems(text, &docs, &exists) {
            let rel = path.strip_prefix(root()).unwrap_or(path);
            wrong.push(format!("{}: {p}", rel.display()));
        }
    }
    assert!(
        wrong.is_empty(),
        "pointers that lead nowhere:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_sees_a_missing_heading_a_missing_file_and_an_absent_document() {
    let docs: BTreeMap<String, Vec<String>> = [
        ("README".to_string(), vec!["Connect an agent".to_string()]),
        ("docs/ostwin.md".to_string(), vec!["Tools".to_string()]),
    ]
    .into();
    let exists = |p: &str| p == "docs/ostwin.md";
    let fine = "see README § Connect an agent has Cursor, docs/ostwin.md § Tools, docs/ostwin.md.";
    assert_eq!(problems(fine, &docs, &exists), Vec::<String>::new());
    let bad = "README § OSTwin; docs/brief.md; DESIGN.md §3; docs/ostwin.md § Nothing";
    let found = problems(bad, &docs, &exists);
    assert_eq!(found.len(), 4, "{found:?}");
}
