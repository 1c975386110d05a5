//! Reading the plan sources from disk: registered plans (`<plans>/*.json`), OSTwin room
//! `config.json` files and the OSTwin `DAG.json`, plus a cheap fingerprint (paths, sizes,
//! modification times) that tells when any of them changed so the DAG can be rebuilt
//! without a restart. Unreadable or invalid files are reported, never fatal.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde_json::Value;

use super::Plan;
use crate::config::Paths;
use crate::validate::path_component;

/// A node contributed by an OSTwin file (`config.json` or a `DAG.json` entry).
#[derive(Debug, Clone, PartialEq)]
pub struct ForeignNode {
    /// War-room id.
    pub room_id: String,
    /// Epic ref (`task_ref`).
    pub ref_: String,
    /// Plan named by the file, if any.
    pub plan_id: Option<String>,
    /// Dependencies (refs).
    pub depends_on: Vec<String>,
    /// Where it came from, for messages.
    pub source: String,
}

/// Everything read from the plan sources.
#[derive(Debug, Default, Clone)]
pub struct Sources {
    /// Registered plans, oldest registration first.
    pub plans: Vec<Plan>,
    /// Nodes from OSTwin files.
    pub foreign: Vec<ForeignNode>,
    /// Files that could not be used, and why.
    pub problems: Vec<String>,
}

/// (path, length, mtime in ns) of every source file: equal fingerprints, same sources.
pub type Fingerprint = Vec<(PathBuf, u64, u128)>;

fn stat(path: &Path) -> Option<(PathBuf, u64, u128)> {
    let m = std::fs::metadata(path).ok()?;
    let t = m
        .modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((path.to_path_buf(), m.len(), t))
}

fn dir_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// The registered plan files of `<plans>/`.
pub fn plan_files(paths: &Paths) -> Vec<PathBuf> {
    dir_entries(&paths.plans)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect()
}

fn files(paths: &Paths) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = plan_files(paths);
    out.push(paths.war_rooms.join("DAG.json"));
    for room in dir_entries(&paths.war_rooms) {
        if room.is_dir() {
            out.push(room.join("config.json"));
        }
    }
    out
}

/// The current fingerprint of the plan sources.
pub fn fingerprint(paths: &Paths) -> Fingerprint {
    files(paths).iter().filter_map(|p| stat(p)).collect()
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) if !s.trim().is_empty() => vec![s.trim().to_string()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

fn foreign(
    v: &Value,
    source: String,
    room_hint: Option<&str>,
    ref_hint: Option<&str>,
) -> Result<ForeignNode, String> {
    let room_id = v
        .get("room_id")
        .and_then(Value::as_str)
        .or(room_hint)
        .ok_or_else(|| format!("{source}: no room_id"))?
        .to_string();
    path_component("room_id", &room_id).map_err(|e| format!("{source}: {e}"))?;
    let ref_ = v
        .get("task_ref")
        .and_then(Value::as_str)
        .or(ref_hint)
        .ok_or_else(|| format!("{source}: no task_ref"))?
        .to_string();
    let plan_id = v.get("plan_id").and_then(Value::as_str).map(str::to_string);
    if let Some(p) = &plan_id {
        path_component("plan_id", p).map_err(|e| format!("{source}: {e}"))?;
    }
    Ok(ForeignNode {
        room_id,
        ref_,
        plan_id,
        depends_on: string_list(v.get("depends_on")),
        source,
    })
}

/// A JSON file of the project (BOM tolerated), read inside `jail`.
pub fn read_json(path: &Path, jail: &crate::fsx::Jail) -> Result<Value, String> {
    let text = crate::fsx::read_to_string_in(path, Some(jail))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    // PowerShell's ConvertTo-Json | Set-Content writes a byte order mark first.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    serde_json::from_str(text).map_err(|e| format!("{}: not JSON ({e})", path.display()))
}

/// Reads every plan source.
pub fn load(paths: &Paths) -> Sources {
    load_with(paths, None)
}

/// Reads every plan source; with `registered`, those are the registered plans (from the
/// database) and `<plans>/` is not read.
pub fn load_with(paths: &Paths, registered: Option<&[Plan]>) -> Sources {
    let mut s = Sources::default();
    let jail = paths.jail();
    if let Some(plans) = registered {
        s.plans.extend(plans.iter().cloned());
    }
    for path in files(paths) {
        if !path.exists() {
            continue;
        }
        if let Some(plans) = registered.filter(|_| path.starts_with(&paths.plans)) {
            // A plan file beside a database backend: used only once imported.
            let id = read_json(&path, &jail)
                .ok()
                .and_then(|v| v.get("plan_id")?.as_str().map(str::to_string));
            if !id.is_some_and(|id| plans.iter().any(|p| p.plan_id == id)) {
                s.problems.push(format!(
                    "{}: not registered in the database, so not used; run `warroom-memory db \
                     import` (or register it) to use it",
                    path.display()
                ));
            }
            continue;
        }
        let v = match read_json(&path, &jail) {
            Ok(v) => v,
            Err(e) => {
                s.problems.push(e);
                continue;
            }
        };
        let shown = path.display().to_string();
        if path.starts_with(&paths.plans) {
            match Plan::from_json(&v) {
                Ok(p) => s.plans.push(p),
                Err(e) => s.problems.push(format!("{shown}: {e}")),
            }
        } else if path.file_name().is_some_and(|n| n == "DAG.json") {
            let Some(nodes) = v.get("nodes").and_then(Value::as_object) else {
                s.problems.push(format!("{shown}: no `nodes` object"));
                continue;
            };
            for (key, node) in nodes {
                match foreign(node, format!("{shown} node {key}"), None, Some(key)) {
                    Ok(n) => s.foreign.push(n),
                    Err(e) => s.problems.push(e),
                }
            }
        } else {
            let room_dir = path
                .parent()
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned());
            match foreign(&v, shown, room_dir.as_deref(), None) {
                Ok(n) => s.foreign.push(n),
                Err(e) => s.problems.push(e),
            }
        }
    }
    s.plans.sort_by(|a, b| {
        (a.registered_at.as_deref().unwrap_or(""), &a.plan_id)
            .cmp(&(b.registered_at.as_deref().unwrap_or(""), &b.plan_id))
    });
    s
}

/// Registered plan files as the lines `register_plan` stores (one compact JSON line
/// each), oldest registration first: what `db import` moves into the database.
pub fn registered_lines(
    files: &[std::path::PathBuf],
    jail: &crate::fsx::Jail,
) -> std::io::Result<Vec<crate::store::transfer::PlanLine>> {
    let mut plans = Vec::new();
    for f in files {
        let v = read_json(f, jail).map_err(std::io::Error::other)?;
        let plan = super::Plan::from_json(&v)
            .map_err(|e| std::io::Error::other(format!("{}: {e}", f.display())))?;
        plans.push(plan);
    }
    plans.sort_by(|a, b| {
        (a.registered_at.as_deref().unwrap_or(""), &a.plan_id)
            .cmp(&(b.registered_at.as_deref().unwrap_or(""), &b.plan_id))
    });
    Ok(plans
        .into_iter()
        .map(|p| crate::store::transfer::PlanLine {
            line: serde_json::to_string(&p)
                .expect("plans serialize")
                .into_bytes(),
            plan_id: p.plan_id,
        })
        .collect())
}
