//! Where a project's files are and how it is set up, settled in one step: the root
//! (`--root`, `WARROOM_ROOT`, OSTwin's variables, the nearest `.agents/`), its layout
//! (ours or OSTwin's, from `layout:` or detected), `.agents/warroom.yaml`, the command
//! line's overrides and the environment's settings. The rest of the program gets a settled
//! [`Paths`] and [`Settings`] and never looks up a path itself.
//!
//! Inputs are plain values ([`Overrides`], an environment lookup, the working directory),
//! so the edges (CLI, daemon, tests) all resolve a project the same way.

use std::path::{Path, PathBuf};

use crate::config::{ConfigFile, Paths, RootSource, SecretPolicy, Settings, resolve_root};
use crate::error::{Error, Result};

/// What the command line (or any other edge) says about the project, over the files.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--root`.
    pub root: Option<PathBuf>,
    /// `--ledger` / `WARROOM_LEDGER`.
    pub ledger: Option<PathBuf>,
    /// `--database-url` / `WARROOM_DATABASE_URL`.
    pub database_url: Option<String>,
    /// `--war-rooms` / `WARROOM_WAR_ROOMS`.
    pub war_rooms: Option<PathBuf>,
    /// `--no-fsync`.
    pub no_fsync: bool,
    /// `--snapshot-dir` / `WARROOM_SNAPSHOT_DIR` (`off` disables).
    pub snapshot_dir: Option<PathBuf>,
}

/// A settled project: its files, its settings, and how its root was found.
#[derive(Debug, Clone)]
pub struct Project {
    /// Every path the program uses.
    pub paths: Paths,
    /// Every setting.
    pub settings: Settings,
    /// How the root was found (for `serve`'s first log line).
    pub root_source: RootSource,
}

/// Resolves the project: root, layout, config file, overrides, environment — in that
/// order, each step refining the last, so what is settled here is final.
pub fn settle(o: &Overrides, env: &dyn Fn(&str) -> Option<String>, cwd: &Path) -> Result<Project> {
    let (root, root_source) = resolve_root(o.root.as_deref(), env, cwd);
    let file = ConfigFile::load(&root)?;
    let (layout, why) = match file.as_ref().and_then(|f| f.layout) {
        Some(l) => (l, "set by `layout:` in .agents/warroom.yaml".to_string()),
        None => crate::layout::detect(&root)?,
    };
    let mut paths = Paths::with_layout(&root, layout, why);
    // OSTwin names the agent's room directory: its channel is that directory's, so the
    // war-rooms are its parent (when that lies in the root).
    if let Some(dir) = env("AGENT_OS_ROOM_DIR").filter(|v| !v.is_empty()) {
        let dir = absolute(cwd, &PathBuf::from(dir.trim_end_matches('/')));
        if let Some(parent) = dir.parent().filter(|p| p.starts_with(&root)) {
            paths.war_rooms = parent.to_path_buf();
        }
    }
    let mut settings = Settings::default();
    if let Some(file) = &file {
        file.apply(&mut paths, &mut settings)?;
    }
    if let Some(l) = &o.ledger {
        paths.ledger = absolute(cwd, l);
        if let Some(dir) = paths.ledger.parent().map(Path::to_path_buf) {
            paths.trust(&dir);
        }
    }
    if let Some(u) = o.database_url.as_deref().filter(|u| !u.is_empty()) {
        paths.database = Some(crate::store::pg::DbUrl::parse(
            "--database-url / WARROOM_DATABASE_URL",
            u,
        )?);
    }
    if let Some(w) = &o.war_rooms {
        paths.war_rooms = absolute(cwd, w);
        paths.trust(&paths.war_rooms.clone());
    }
    if o.no_fsync {
        settings.fsync = false;
    }
    environment(o, env, cwd, &mut settings)?;
    if settings.secret_rules.is_none() {
        let default = paths.root.join(".gitleaks.toml");
        settings.secret_rules = default.is_file().then_some(default);
    }
    Ok(Project {
        paths,
        settings,
        root_source,
    })
}

/// The settings the environment (and `--snapshot-dir`) gives.
fn environment(
    o: &Overrides,
    env: &dyn Fn(&str) -> Option<String>,
    cwd: &Path,
    settings: &mut Settings,
) -> Result<()> {
    let snapshot_dir = match &o.snapshot_dir {
        Some(d) if d.as_os_str() == "off" => None,
        Some(d) => Some(absolute(cwd, d)),
        None => crate::snapshot::SnapshotPlace::default_dir(),
    };
    let number = |var: &str, fix: &str| -> Result<Option<u64>> {
        env(var)
            .map(|n| {
                n.parse::<u64>()
                    .map_err(|_| Error::invalid(var, format!("`{n}` is not a number"), fix))
            })
            .transpose()
    };
    let min_entries = number(
        "WARROOM_SNAPSHOT_MIN_ENTRIES",
        "give a number of entries, e.g. 20000",
    )?
    .map_or(crate::snapshot::DEFAULT_MIN_ENTRIES, |n| n as usize);
    settings.snapshot = snapshot_dir.map(|dir| crate::snapshot::SnapshotPlace { dir, min_entries });
    if let Some(v) = env("WARROOM_SEMANTIC").filter(|v| !v.is_empty()) {
        settings.semantic.on = match v.as_str() {
            "on" | "true" | "1" => true,
            "off" | "false" | "0" => false,
            other => {
                return Err(Error::invalid(
                    "WARROOM_SEMANTIC",
                    format!(
                        "`{}` is neither on nor off",
                        crate::validate::printable(other)
                    ),
                    "set it to on or off",
                ));
            }
        };
    }
    if let Some(p) = env("WARROOM_SECRETS") {
        settings.secrets = match p.as_str() {
            "redact" => SecretPolicy::Redact,
            "refuse" => SecretPolicy::Refuse,
            other => {
                return Err(Error::invalid(
                    "WARROOM_SECRETS",
                    format!("`{other}` is neither `redact` nor `refuse`"),
                    "set it to redact or refuse",
                ));
            }
        };
    }
    settings.crash_after_bytes = number("WARROOM_FAULT_CRASH_AFTER_BYTES", "a byte count")?;
    settings.fault_after_bytes = number("WARROOM_FAULT_APPEND_AFTER_BYTES", "a byte count")?;
    Ok(())
}

fn absolute(cwd: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}
