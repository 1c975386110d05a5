//! Where the files are and how the server behaves: project root resolution, file paths,
//! the optional `.agents/warroom.yaml` config file, and the caller's identity.
//!
//! Precedence, highest first: command-line flags, environment variables, the config file,
//! built-in defaults. Functions here take an environment lookup closure instead of reading
//! `std::env` themselves, so tests can drive them with a plain map.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::entry::Kind;
use crate::error::{Error, Result};

mod file;

pub use file::{ConfigFile, OnOff, SecretsConfig, SemanticConfig, parse_ranking};

/// Name of the optional config file inside `.agents/`.
pub const CONFIG_FILE: &str = "warroom.yaml";
/// The context receipts file's name, in the ledger's directory.
pub const RECEIPTS_FILE: &str = "receipts.jsonl";

/// How the project root was found (reported by `serve` at startup).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootSource {
    /// `--root DIR`.
    Flag,
    /// Environment variable `WARROOM_ROOT`.
    WarroomRoot,
    /// Environment variable `AGENT_OS_ROOT` (OSTwin).
    AgentOsRoot,
    /// Two levels above OSTwin's `AGENT_OS_ROOM_DIR` (`<root>/.war-rooms/<room>`).
    AgentOsRoomDir,
    /// Nearest ancestor of the working directory that has `.agents/`.
    Ancestor,
    /// The working directory itself (no `.agents/` found above it).
    WorkingDir,
}

/// Finds the project root: `--root`, else `WARROOM_ROOT`, else `AGENT_OS_ROOT`, else the
/// nearest ancestor of `cwd` with a `.agents/` directory, else `cwd`.
pub fn resolve_root(
    flag: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    cwd: &Path,
) -> (PathBuf, RootSource) {
    let abs = |p: PathBuf| if p.is_absolute() { p } else { cwd.join(p) };
    if let Some(p) = flag {
        return (abs(p.to_path_buf()), RootSource::Flag);
    }
    for (var, src) in [
        ("WARROOM_ROOT", RootSource::WarroomRoot),
        ("AGENT_OS_ROOT", RootSource::AgentOsRoot),
    ] {
        if let Some(v) = env(var).filter(|v| !v.is_empty()) {
            return (abs(PathBuf::from(v)), src);
        }
    }
    // OSTwin runs an agent with its room's directory, `<root>/.war-rooms/<room>`.
    if let Some(dir) = env("AGENT_OS_ROOM_DIR").filter(|v| !v.is_empty())
        && let Some(root) = abs(PathBuf::from(dir.trim_end_matches('/')))
            .parent()
            .and_then(Path::parent)
    {
        return (root.to_path_buf(), RootSource::AgentOsRoomDir);
    }
    for dir in cwd.ancestors() {
        if dir.join(".agents").is_dir() {
            return (dir.to_path_buf(), RootSource::Ancestor);
        }
    }
    (cwd.to_path_buf(), RootSource::WorkingDir)
}

/// The files the server reads and writes. Relative overrides are relative to `root`.
#[derive(Clone, Debug)]
pub struct Paths {
    /// Project root.
    pub root: PathBuf,
    /// The shared ledger (`.agents/ledger.jsonl`).
    pub ledger: PathBuf,
    /// Directory holding one sub-directory per war-room (`.agents/war-rooms`).
    pub war_rooms: PathBuf,
    /// Directory of registered plans (`.agents/plan`).
    pub plans: PathBuf,
    /// Directories outside the root that the operator configured explicitly (`--ledger`,
    /// `--war-rooms`, the config file); everything else must resolve inside the root.
    pub trusted: Vec<PathBuf>,
    /// The layout these paths follow, and why it was chosen.
    pub layout: (crate::layout::Layout, String),
    /// The PostgreSQL database holding the ledger and channels instead of files
    /// (`ledger: postgres://…`, `--database-url`, `WARROOM_DATABASE_URL`).
    pub database: Option<crate::store::pg::DbUrl>,
}

impl Paths {
    /// The ledger's name for derived state kept beside the snapshot (vectors, a kept
    /// verification): a database's address as shown (no password), else the file's
    /// canonical path.
    pub fn ledger_label(&self) -> String {
        match &self.database {
            Some(url) => url.to_string(),
            None => self
                .ledger
                .canonicalize()
                .unwrap_or_else(|_| self.ledger.clone())
                .display()
                .to_string(),
        }
    }

    /// Default layout under `root`.
    /// The context receipts' stream: `receipts.jsonl` beside the ledger.
    pub fn receipts(&self) -> PathBuf {
        self.ledger.with_file_name(RECEIPTS_FILE)
    }

    /// Paths under `root` in our default layout.
    pub fn under(root: &Path) -> Paths {
        let agents = root.join(".agents");
        Paths {
            root: root.to_path_buf(),
            ledger: agents.join("ledger.jsonl"),
            war_rooms: agents.join("war-rooms"),
            plans: agents.join("plan"),
            trusted: Vec::new(),
            layout: (crate::layout::Layout::Warroom, "default".into()),
            database: None,
        }
    }

    /// The paths of `layout` under `root`.
    pub fn with_layout(root: &Path, layout: crate::layout::Layout, why: String) -> Paths {
        Paths {
            ledger: layout.ledger(root),
            war_rooms: layout.war_rooms(root),
            layout: (layout, why),
            ..Paths::under(root)
        }
    }

    /// Marks `dir` as explicitly configured (it may lie outside the root).
    pub fn trust(&mut self, dir: &Path) {
        self.trusted.push(dir.to_path_buf());
    }

    /// Refuses `path` if, following symlinks, it resolves outside the project root and
    /// outside every explicitly configured directory. A symlinked room directory or ledger
    /// pointing elsewhere is thus refused rather than written through.
    pub fn confine(&self, path: &Path) -> Result<()> {
        // Resolve the nearest existing ancestor; the rest does not exist yet.
        let mut existing = path;
        while !existing.exists() {
            match existing.parent() {
                Some(p) => existing = p,
                None => return Ok(()),
            }
        }
        let resolved = existing
            .canonicalize()
            .map_err(|e| Error::io("resolving", existing, e))?;
        let inside = |base: &Path| base.canonicalize().is_ok_and(|b| resolved.starts_with(b));
        if inside(&self.root) || self.trusted.iter().any(|t| inside(t)) {
            return Ok(());
        }
        Err(Error::Refused(format!(
            "{} resolves to {}, outside the project root {}; refusing to read or write through a \
             symlink that leaves the project. Fix: remove the link, or configure the location \
             explicitly (--ledger / --war-rooms / .agents/warroom.yaml)",
            path.display(),
            resolved.display(),
            self.root.display()
        )))
    }

    /// The root and the configured directories, as a [`crate::fsx::Jail`] every project
    /// file is checked against when it is opened.
    pub fn jail(&self) -> crate::fsx::Jail {
        crate::fsx::Jail::new(
            std::iter::once(self.root.as_path()).chain(self.trusted.iter().map(PathBuf::as_path)),
        )
    }

    fn rooted(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.root.join(p)
        }
    }

    /// The channel file of a room (the room id must already be validated).
    pub fn channel(&self, room_id: &str) -> PathBuf {
        self.war_rooms.join(room_id).join("channel.jsonl")
    }
}

/// What to do when a secret is found in published text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SecretPolicy {
    /// Replace the secret with `[REDACTED:<kind>]`, store, and report what was redacted.
    #[default]
    Redact,
    /// Refuse the call; nothing is written.
    Refuse,
}

/// Default cap on the new context receipts one asker records per minute: ten briefs a
/// second, far above an agent's pace, ~1 MB a minute at most.
pub const DEFAULT_RECEIPTS_PER_MINUTE: u32 = 600;

/// Behaviour switches, from the config file and flags.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Half-life in hours per kind (indexed by [`Kind::index`]).
    pub half_life_hours: [f64; 6],
    /// `fsync` after every append.
    pub fsync: bool,
    /// What publish and channel_post do with secrets.
    pub secrets: SecretPolicy,
    /// How search and predecessor context combine relevance and age.
    pub ranking: crate::index::Ranking,
    /// Longest wait for another process's append lock (`lock_wait_seconds`, default 10).
    pub lock_wait: std::time::Duration,
    /// Who may supersede another room's entries (`supersede_others`; default nobody but
    /// an operator, i.e. a caller without a room identity).
    pub supersede_others: SupersedeOthers,
    /// Test hook: fail appends after this many bytes (`WARROOM_FAULT_APPEND_AFTER_BYTES`).
    pub fault_after_bytes: Option<u64>,
    /// Test hook: crash mid-append after this many bytes (`WARROOM_FAULT_CRASH_AFTER_BYTES`).
    pub crash_after_bytes: Option<u64>,
    /// Where the cold-start snapshot of a big ledger is kept (None: never; the CLI's
    /// default is the user's cache directory).
    pub snapshot: Option<crate::snapshot::SnapshotPlace>,
    /// `verify` accepts unchained lines after chained ones (`allow_unchained`).
    pub allow_unchained: bool,
    /// Semantic ranking (`semantic:`; `WARROOM_SEMANTIC`).
    pub semantic: crate::semantic::SemanticSettings,
    /// New context receipts one asker may record per minute (`receipts_per_minute`,
    /// default [`DEFAULT_RECEIPTS_PER_MINUTE`]); the same brief asked again is not new.
    pub receipts_per_minute: u32,
    /// What one identity may append and register (`appends_per_minute`,
    /// `append_mib_per_minute`, `plans_per_minute`, `plans_per_identity`).
    pub limits: IdentityLimits,
    /// A team's own secret rules in gitleaks' format (`secrets: { rules: FILE }`, else
    /// `.gitleaks.toml` at the root when it exists).
    pub secret_rules: Option<PathBuf>,
    /// fsync every context receipt (`receipts_fsync`, default false: written, synced by
    /// the OS within seconds; the ledger's entries are fsynced either way).
    pub receipts_fsync: bool,
    /// The console's audit page runs a full verify in the background at most once per
    /// this many seconds, continuing the last one in between (`full_verify_seconds`,
    /// default [`DEFAULT_FULL_VERIFY_SECONDS`]).
    pub full_verify_seconds: u64,
}

/// What one identity may make the memory keep (see `memory::budgets`); an operator is
/// not metered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdentityLimits {
    /// Entries published and channel messages posted in any 60 seconds
    /// (`appends_per_minute`, default 600).
    pub appends_per_minute: u32,
    /// MiB of them in any 60 seconds (`append_mib_per_minute`, default 32).
    pub append_mib_per_minute: u64,
    /// Plans registered in any 60 seconds (`plans_per_minute`, default 10).
    pub plans_per_minute: u32,
    /// Plans a room may have registered and kept (`plans_per_identity`, default 20);
    /// registering a plan again under its id replaces it and is not counted twice.
    pub plans_per_identity: u32,
}

impl Default for IdentityLimits {
    fn default() -> Self {
        IdentityLimits {
            appends_per_minute: 600,
            append_mib_per_minute: 32,
            plans_per_minute: 10,
            plans_per_identity: 20,
        }
    }
}

/// Ten minutes between the audit page's background full passes.
pub const DEFAULT_FULL_VERIFY_SECONDS: u64 = 600;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            half_life_hours: Kind::default_half_lives(),
            fsync: true,
            secrets: SecretPolicy::Redact,
            ranking: crate::index::Ranking::default(),
            lock_wait: crate::store::jsonl::DEFAULT_LOCK_WAIT,
            supersede_others: SupersedeOthers::default(),
            allow_unchained: false,
            receipts_fsync: false,
            fault_after_bytes: None,
            crash_after_bytes: None,
            snapshot: None,
            secret_rules: None,
            receipts_per_minute: DEFAULT_RECEIPTS_PER_MINUTE,
            limits: IdentityLimits::default(),
            full_verify_seconds: DEFAULT_FULL_VERIFY_SECONDS,
            semantic: crate::semantic::SemanticSettings {
                on: false,
                model: None,
                weight: crate::semantic::DEFAULT_WEIGHT,
                overlap_cosine: crate::semantic::DEFAULT_OVERLAP_COSINE,
            },
        }
    }
}

/// The roles and rooms allowed to supersede entries of rooms other than their own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SupersedeOthers {
    /// Roles (e.g. `architect`) whose agents may retire any room's entries.
    #[serde(default)]
    pub roles: Vec<String>,
    /// Rooms whose agents may retire any room's entries.
    #[serde(default)]
    pub rooms: Vec<String>,
}

impl SupersedeOthers {
    /// True if `who` may supersede an entry of another room.
    pub fn allows(&self, who: &Identity) -> bool {
        let Some(room) = &who.room_id else {
            return true; // an operator
        };
        self.rooms.iter().any(|r| r == room)
            || who
                .role
                .as_ref()
                .is_some_and(|role| self.roles.iter().any(|r| r == role))
    }
}

impl Settings {
    /// Half-life of `kind` in hours.
    pub fn half_life(&self, kind: Kind) -> f64 {
        self.half_life_hours[kind.index()]
    }
}

/// Who is calling: the room and role an agent's MCP config gives its server process.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    /// `WARROOM_ROOM_ID`, else the basename of OSTwin's `AGENT_OS_ROOM_DIR`.
    pub room_id: Option<String>,
    /// `WARROOM_ROLE`, else OSTwin's `AGENT_OS_ROLE`.
    pub role: Option<String>,
    /// The id of the agent token the session presented, when it did: budgets that
    /// protect one agent from another are kept per credential.
    pub credential: Option<String>,
}

impl Identity {
    /// Who is metered, as said in a refusal: the agent token, else the room and role
    /// (`room-a/engineer`).
    pub fn caller(&self) -> String {
        match &self.credential {
            Some(id) => format!("the agent token whose id is {id}"),
            None => format!(
                "{}/{}",
                self.room_id.as_deref().unwrap_or("-"),
                self.role.as_deref().unwrap_or("-")
            ),
        }
    }

    /// The room named by the caller, else this server's room identity; validated as a
    /// path component. `field` is the argument's name, for the error.
    pub fn room_or_own(&self, field: &str, given: Option<String>) -> Result<String> {
        if let Some(g) = &given {
            crate::validate::path_component(field, g)?;
        }
        if let (Some(own), Some(g)) = (&self.room_id, &given)
            && own != g
        {
            return Err(Error::Refused(format!(
                "`{field}` is `{}` but this agent's identity is room `{own}`; an agent acts \
                 only as its own room (its identity comes from its MCP config or session, \
                 not from arguments). Fix: omit `{field}`",
                crate::validate::printable(g)
            )));
        }
        let room = given.or_else(|| self.room_id.clone()).ok_or_else(|| {
            Error::invalid(
                field,
                "no room given and this server has no room identity",
                format!("pass `{field}`, or set WARROOM_ROOM_ID in the server's environment"),
            )
        })?;
        crate::validate::path_component(field, &room)?;
        Ok(room)
    }

    /// The role named by the caller, else this server's role identity; validated. Where
    /// the identity has a role, a different one is refused.
    pub fn role_or_own(&self, field: &str, given: Option<String>) -> Result<String> {
        if let Some(g) = &given {
            crate::validate::short_id(field, g)?;
        }
        if let (Some(own), Some(g)) = (&self.role, &given)
            && own != g
        {
            return Err(Error::Refused(format!(
                "`{field}` is `{}` but this agent's identity is role `{own}`; an agent writes \
                 only as its own role. Fix: omit `{field}`",
                crate::validate::printable(g)
            )));
        }
        let role = given.or_else(|| self.role.clone()).ok_or_else(|| {
            Error::invalid(
                field,
                "no role given and this server has no role identity",
                format!("pass `{field}` (e.g. \"engineer\"), or set WARROOM_ROLE"),
            )
        })?;
        crate::validate::short_id(field, &role)?;
        Ok(role)
    }

    /// Reads the identity variables through `env`. The room id is validated as a path
    /// component, so a bad value fails at startup instead of on every call.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Identity> {
        let nonempty = |v: Option<String>| v.filter(|s| !s.trim().is_empty());
        let room_id = nonempty(env("WARROOM_ROOM_ID")).or_else(|| {
            nonempty(env("AGENT_OS_ROOM_DIR")).and_then(|d| {
                Path::new(d.trim_end_matches('/'))
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
            })
        });
        if let Some(r) = &room_id {
            crate::validate::path_component("WARROOM_ROOM_ID", r)?;
        }
        let role = nonempty(env("WARROOM_ROLE")).or_else(|| nonempty(env("AGENT_OS_ROLE")));
        if let Some(r) = &role {
            crate::validate::short_id("WARROOM_ROLE", r)?;
        }
        Ok(Identity {
            room_id,
            role,
            credential: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(map: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = map
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn root_precedence() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b");
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::create_dir(dir.path().join(".agents")).unwrap();
        let e = env(&[("AGENT_OS_ROOT", "/srv/ostwin")]);
        assert_eq!(
            resolve_root(Some(Path::new("/x")), &e, &nested).1,
            RootSource::Flag
        );
        assert_eq!(
            resolve_root(None, &e, &nested).0,
            PathBuf::from("/srv/ostwin")
        );
        let e = env(&[("AGENT_OS_ROOT", "/o"), ("WARROOM_ROOT", "/w")]);
        assert_eq!(resolve_root(None, &e, &nested).0, PathBuf::from("/w"));
        let none = env(&[]);
        assert_eq!(
            resolve_root(None, &none, &nested),
            (dir.path().to_path_buf(), RootSource::Ancestor)
        );
    }

    #[test]
    fn identity_from_warroom_or_ostwin_variables() {
        let id = Identity::from_env(&env(&[
            ("AGENT_OS_ROOM_DIR", "/p/.war-rooms/room-007/"),
            ("AGENT_OS_ROLE", "qa"),
        ]))
        .unwrap();
        assert_eq!(id.room_id.as_deref(), Some("room-007"));
        assert_eq!(id.role.as_deref(), Some("qa"));
        let id = Identity::from_env(&env(&[
            ("AGENT_OS_ROOM_DIR", "/p/room-007"),
            ("WARROOM_ROOM_ID", "room-042"),
            ("WARROOM_ROLE", "architect"),
        ]))
        .unwrap();
        assert_eq!(id.room_id.as_deref(), Some("room-042"));
        assert!(Identity::from_env(&env(&[("WARROOM_ROOM_ID", "../etc")])).is_err());
    }

    #[test]
    fn config_file_overrides_half_lives_and_rejects_typos() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".agents")).unwrap();
        let cfg = dir.path().join(".agents").join(CONFIG_FILE);
        std::fs::write(
            &cfg,
            "fsync: false\nhalf_life_hours:\n  decision: 100\nwar_rooms: .war-rooms\n",
        )
        .unwrap();
        let file = ConfigFile::load(dir.path()).unwrap().unwrap();
        let (mut p, mut s) = (Paths::under(dir.path()), Settings::default());
        file.apply(&mut p, &mut s).unwrap();
        assert!(!s.fsync);
        assert_eq!(s.half_life(Kind::Decision), 100.0);
        assert_eq!(s.half_life(Kind::Code), 72.0);
        assert_eq!(p.war_rooms, dir.path().join(".war-rooms"));
        std::fs::write(&cfg, "fsynk: false\n").unwrap();
        assert!(ConfigFile::load(dir.path()).is_err());
    }
}
