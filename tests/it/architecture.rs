//! The module graph keeps its direction (ARCHITECTURE.md § Invariants): the core never
//! imports an edge, and an edge never imports one above it. Checked by reading every
//! `crate::…` path in `src/` — `use` lines and inline paths alike, comments skipped.
//!
//! Layers, bottom to top: the core (everything not listed below) → `mcp` (the protocol
//! edge) and `console` (the web edge) → `daemon` and `scenario` (transport edge; acceptance runner) → `cli`.
//! Inside the core every top-level module has a rank of its own ([`layer`]): production
//! code imports only lower ranks, so no import cycle can form.
//! Also: the two tool profiles (`mcp::tools`, `mcp::ostwin`) never import each other (they
//! share `mcp::registry`), and only `clock` reads the wall clock.

use std::collections::BTreeSet;
use std::path::Path;

/// The rank of a top-level module: higher may import lower, never the reverse.
fn rank(module: &str) -> u8 {
    match module {
        "mcp" | "console" => 1,
        "daemon" | "scenario" => 2,
        "cli" => 3,
        _ => 0,
    }
}

/// Every `.rs` file under `dir`, with its path relative to `src/`.
fn sources(dir: &Path, base: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, base, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            out.push((rel, std::fs::read_to_string(&p).unwrap()));
        }
    }
}

/// The top-level modules a file names through `crate::…` (outside comments).
fn imports(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some((_, after)) = rest.split_once("crate::") {
            rest = after;
            if let Some(group) = rest.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or("");
                for name in inner.split(',') {
                    let name = name.trim().split("::").next().unwrap_or("").trim();
                    if !name.is_empty() {
                        out.insert(name.to_string());
                    }
                }
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
    out
}

fn top_module(rel: &str) -> String {
    rel.split('/')
        .next()
        .unwrap()
        .trim_end_matches(".rs")
        .to_string()
}

fn all_sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    assert!(files.len() > 50, "read the sources: {}", files.len());
    files
}

#[test]
fn no_module_imports_one_above_it() {
    let mut wrong = Vec::new();
    for (rel, text) in all_sources() {
        let me = top_module(&rel);
        if me == "lib" || me == "main" {
            continue;
        }
        for m in imports(&text) {
            let upward = rank(&m) > rank(&me);
            let sideways = m != me && rank(&m) == rank(&me) && rank(&me) > 0;
            if upward || sideways {
                wrong.push(format!("{rel} ({me}) imports crate::{m}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

/// The layers below the product, each a crate of its own (`crates/`): the product names
/// them as its modules (`crate::index`, `crate::entry`, …, re-exported by `lib.rs`), and
/// Cargo holds their order — a lower crate cannot name a higher one, since it does not
/// depend on it. So any product module may import them.
const CRATES_BELOW: &[&str] = &[
    "cancel", "chain", "clock", "entry", "error", "fsx", "index", "par", "secrets", "store",
    "text", "validate",
];

/// Every product module's place in the core's one-way order (ARCHITECTURE.md § Crates and layers):
/// a module's code imports only modules of a lower rank (and the crates below). What is
/// built on the index (1: channels, the brief's pieces, the snapshot, the ledger,
/// semantic), configuration and the domain on top (2–4: config, render, plans, receipts,
/// audit), the service (`memory`, 5), then the edges (6–9). A module missing here fails
/// the test: give it its place.
fn layer(module: &str) -> Option<u8> {
    Some(match module {
        "conn" | "layout" | "progress" | "ratelog" | "schema" => 0,
        "brief" | "channel" | "snapshot" => 1,
        "api" | "ledger" | "semantic" => 2,
        "config" | "render" => 3,
        "overlap" | "plan" | "receipts" | "settle" => 4,
        "audit" => 5,
        "memory" | "scenario" => 6,
        "console" | "render_audit" => 7,
        "mcp" => 8,
        "daemon" => 9,
        "cli" => 10,
        _ => return None,
    })
}

/// A file's code without its tests: test files, and each item marked `#[cfg(test)]` (a
/// `mod x;` line, or a block to its closing brace): a test module assembles layers to test
/// one, so it may reach above its module.
fn production(rel: &str, text: &str) -> Option<String> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if name == "tests.rs" || name.ends_with("_tests.rs") || rel.contains("/tests/") {
        return None;
    }
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        // Skip the marked item: its lines until the braces it opens are closed (or a line
        // ending in `;` before any brace).
        let mut depth = 0i32;
        let mut opened = false;
        for item in lines.by_ref() {
            let code = item.split("//").next().unwrap_or("");
            depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
            opened |= code.contains('{');
            if (opened && depth <= 0) || (!opened && code.trim_end().ends_with(';')) {
                break;
            }
        }
    }
    Some(out)
}

#[test]
fn every_module_has_a_layer_and_imports_only_below_it() {
    let (mut wrong, mut unplaced) = (Vec::new(), BTreeSet::new());
    for (rel, text) in all_sources() {
        let me = top_module(&rel);
        if me == "lib" || me == "main" {
            continue;
        }
        let Some(code) = production(&rel, &text) else {
            continue;
        };
        let Some(mine) = layer(&me) else {
            unplaced.insert(me);
            continue;
        };
        for m in imports(&code) {
            if m == me || CRATES_BELOW.contains(&m.as_str()) {
                continue;
            }
            match layer(&m) {
                Some(theirs) if theirs < mine => {}
                Some(theirs) => wrong.push(format!(
                    "{rel} ({me}, layer {mine}) imports crate::{m} (layer {theirs})"
                )),
                None => {
                    unplaced.insert(m);
                }
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules without a layer (add them to `layer`): {unplaced:?}"
    );
    assert!(
        wrong.is_empty(),
        "imports against the order (a module imports only lower layers):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_tool_profiles_share_a_registry_and_not_each_other() {
    let files = all_sources();
    let text = |rel: &str| &files.iter().find(|(r, _)| r == rel).unwrap().1;
    assert!(
        !text("mcp/tools.rs").contains("ostwin"),
        "mcp::tools names ostwin"
    );
    assert!(
        !text("mcp/ostwin.rs").contains("super::tools"),
        "mcp::ostwin imports tools"
    );
    assert!(text("mcp/ostwin.rs").contains("super::registry"));
    assert!(text("mcp/tools.rs").contains("super::registry"));
}

#[test]
fn the_console_reads_only_through_memory() {
    let mut wrong = Vec::new();
    for (rel, text) in all_sources() {
        if !rel.starts_with("console/") {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for banned in [
                "crate::ledger",
                "crate::store",
                "std::fs",
                "crate::audit::verify::verify(",
            ] {
                if code.contains(banned) {
                    wrong.push(format!("{rel}:{} names {banned}", n + 1));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the console must read through Memory: {wrong:?}"
    );
}

/// Every `.rs` file of the product and of the crates below it, with its path relative to
/// the workspace's root.
fn workspace_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), root, &mut files);
    for e in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        sources(&e.path().join("src"), root, &mut files);
    }
    assert!(files.iter().any(|(r, _)| r.starts_with("crates/index/")));
    files
}

#[test]
fn only_clock_reads_the_wall_clock() {
    let mut wrong = Vec::new();
    for (rel, text) in workspace_sources() {
        if rel == "crates/base/src/clock.rs" {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("SystemTime::now") || code.contains("Utc::now") {
                wrong.push(format!("{rel}:{}", n + 1));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "wall clock read outside clock.rs: {wrong:?}"
    );
}

#[test]
fn the_checker_sees_grouped_and_inline_paths() {
    let found = imports(
        "use crate::{render, render_audit};\nlet x = crate::cli::out::note(); // crate::mcp\n",
    );
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        ["cli", "render", "render_audit"]
    );
}

/// The files of crate `dir` (`crates/<dir>/src/`, its folders too) that each file's
/// production code names through `super::…` or `crate::…`.
fn sibling_imports(dir: &str) -> std::collections::BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates")
        .join(dir)
        .join("src");
    // Every file of the crate, its folders' too, by its module's name (a folder's `mod.rs`
    // by the folder's): the crate names its modules from its root, one name each.
    let mut texts = std::collections::BTreeMap::new();
    let mut dirs = vec![src.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let mut name = p.file_stem().unwrap().to_string_lossy().into_owned();
                if name == "mod" {
                    name = d.file_name().unwrap().to_string_lossy().into_owned();
                }
                let rel = format!("{dir}/{}", p.strip_prefix(&src).unwrap().display());
                if let Some(code) = production(&rel, &std::fs::read_to_string(&p).unwrap()) {
                    let clash = texts.insert(name.clone(), code);
                    assert!(clash.is_none(), "two files of {dir}/ are the module {name}");
                }
            }
        }
    }
    let names: BTreeSet<String> = texts.keys().cloned().collect();
    let mut out = std::collections::BTreeMap::new();
    for (name, code) in &texts {
        let code: String = code
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let mut to = BTreeSet::new();
        for prefix in ["super::", "crate::"] {
            let mut rest = code.as_str();
            while let Some((_, after)) = rest.split_once(prefix) {
                rest = after;
                let listed: Vec<String> = match after.strip_prefix('{') {
                    Some(group) => group
                        .split('}')
                        .next()
                        .unwrap_or("")
                        .split(',')
                        .map(|n| n.trim().split("::").next().unwrap_or("").to_string())
                        .collect(),
                    None => vec![
                        after
                            .chars()
                            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                            .collect(),
                    ],
                };
                for n in listed {
                    if names.contains(&n) && &n != name && n != "lib" {
                        to.insert(n);
                    }
                }
            }
        }
        out.insert(name.clone(), to);
    }
    out
}

/// A cycle among `graph`'s nodes, if there is one.
fn cycle(graph: &std::collections::BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        g: &std::collections::BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            return Some(path.split_at(i).1.to_vec());
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, g, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_files_of_index_and_secrets_import_one_way() {
    for dir in ["index", "secrets"] {
        let g = sibling_imports(dir);
        assert!(g.len() > 10, "read {dir}/: {g:?}");
        assert_eq!(cycle(&g), None, "an import cycle among the files of {dir}/");
    }
    // The check sees one.
    let g: std::collections::BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert!(cycle(&g).is_some());
}

/// Code lines of `text` (comments cut) holding `needle`, as `rel:line`.
fn code_lines_with(rel: &str, text: &str, needle: &str) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.split("//").next().unwrap_or("").contains(needle))
        .map(|(n, _)| format!("{rel}:{}", n + 1))
        .collect()
}

#[test]
fn only_cli_out_and_the_mcp_transport_write_to_stdout() {
    // Stdout is the MCP channel in stdio mode: the line transport of `serve` and the
    // relay write JSON-RPC there; every other byte a command prints goes through cli::out.
    let allowed = ["cli/out.rs", "cli/serve.rs", "daemon/relay.rs"];
    let mut wrong = Vec::new();
    for (rel, text) in all_sources() {
        if !allowed.contains(&rel.as_str()) {
            wrong.extend(code_lines_with(&rel, &text, "stdout()"));
        }
    }
    assert!(
        wrong.is_empty(),
        "stdout written outside cli::out: {wrong:?}"
    );
}

#[test]
fn every_entry_reaches_the_index_through_one_apply() {
    // `LedgerIndex::apply` is called by the ledger's tail alone (the index crate's own
    // first read on two cores splits it into stages of the same code).
    let mut wrong = Vec::new();
    for (rel, text) in all_sources() {
        if rel != "ledger.rs" && production(&rel, &text).is_some() {
            for l in code_lines_with(&rel, &text, "index.apply(")
                .into_iter()
                .chain(code_lines_with(&rel, &text, "ix.apply("))
            {
                wrong.push(l);
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "entries applied outside the ledger: {wrong:?}"
    );
}

#[test]
fn only_the_storage_seam_opens_the_ledger_for_the_live_path() {
    // Product files that open files themselves, each for a reason other than the live
    // path's ledger and channels (those go through `store`: its tail, append lock and
    // read-back). A new file here is a new way bytes reach storage: route it through
    // `store`, or add it with its reason.
    let allowed: &[(&str, &str)] = &[
        (
            "audit/",
            "audits read ledgers as bytes on purpose, never through the index",
        ),
        ("config/file.rs", "the project's settings file"),
        ("plan/sources.rs", "plan files, room configs and DAG.json"),
        ("snapshot.rs", "the snapshot's own files and key"),
        (
            "semantic/",
            "model files, the vectors' cache, the fetch lock",
        ),
        ("daemon/", "the daemon's lock, socket place and credentials"),
        ("scenario/", "the acceptance runner's files"),
        (
            "cli/",
            "files named on the command line, the spawned daemon's log",
        ),
        ("memory/receipts/", "the receipts stream's own index file"),
    ];
    let opens = [
        "File::open",
        "OpenOptions::new",
        "fs::read(",
        "fs::read_to_string(",
        "fsx::open_read",
        "fsx::read",
        "fsx::open_append",
    ];
    let mut wrong = Vec::new();
    for (rel, text) in all_sources() {
        let Some(code) = production(&rel, &text) else {
            continue;
        };
        if allowed.iter().any(|(p, _)| rel.starts_with(p)) {
            continue;
        }
        for o in opens {
            wrong.extend(code_lines_with(&rel, &code, o));
        }
    }
    // The index opens nothing: it reads its entries' lines back through the reader the
    // ledger gives it (`fsx::ReadAt`, the store's `ReadBack`). The scanner opens only a
    // team's rules file (`secrets::team_rules`).
    for (rel, text) in workspace_sources() {
        let under = rel.starts_with("crates/index/") || rel.starts_with("crates/secrets/");
        let name = rel.rsplit('/').next().unwrap_or("");
        if !under || name == "test_support.rs" || name == "team_rules.rs" {
            continue;
        }
        if let Some(code) = production(name, &text) {
            for o in opens {
                wrong.extend(code_lines_with(&rel, &code, o));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "files opened outside the storage seam: {wrong:?}"
    );
}
